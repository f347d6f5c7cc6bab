// A target whose hot function changes when a file appears: slowPath burns the CPU until the
// file named by the first argument exists, fastPath after (a deploy, a fix). Each burns about
// 8 ms from a timer every 10 ms. Prints "ready PID".
'use strict';
const fs = require('fs');
const flag = process.argv[2];
let shifted = false, sink = 0;

function slowPath(ms) {
	const end = Date.now() + ms;
	while (Date.now() < end) sink += Math.sqrt(sink + 1);
}
function fastPath(ms) {
	const end = Date.now() + ms;
	while (Date.now() < end) sink ^= (sink << 1) + 7;
}
function tick() {
	if (!shifted && flag && fs.existsSync(flag)) shifted = true;
	if (shifted) fastPath(8);
	else slowPath(8);
}
setInterval(tick, 10);
console.log('ready', process.pid);
