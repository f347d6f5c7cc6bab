// A target whose event loop behaves in a known way, for the event-loop tests.
//   node loop.js idle     a timer every second, nothing else: the loop is idle
//   node loop.js busy     work in setImmediate callbacks without a pause: the loop is saturated
//   node loop.js block    blockHere() holds the loop for 300 ms every 2 s, idle between
//   node loop.js timers   leaks a timer every 100 ms (never cleared, 1000 s long)
// Prints "ready PID".
'use strict';
const mode = process.argv[2] || 'idle';
function spin(ms) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end) x += Math.sqrt(x + 1);
	return x;
}
function blockHere() {
	return spin(300);
}
const kept = [];
if (mode === 'idle') {
	setInterval(() => {}, 1000);
} else if (mode === 'busy') {
	const step = () => { spin(5); setImmediate(step); };
	setImmediate(step);
} else if (mode === 'block') {
	setInterval(blockHere, 2000);
} else if (mode === 'timers') {
	setInterval(() => kept.push(setTimeout(() => {}, 1e6)), 100);
} else {
	console.error('usage: node loop.js idle|busy|block|timers');
	process.exit(2);
}
console.log('ready', process.pid);
