// A target with two known hot functions: hotMain burns 6 ms and hotSide 2 ms per cycle, both
// called from tick; the rest of each cycle is idle. Prints "ready".
'use strict';
// V8 inlines small hot functions into their callers, and its profiler then charges their time
// to the caller; the tests need a fixed call tree, so inlining is off in this target.
require('v8').setFlagsFromString('--no-turbo-inlining');
function hotMain() {
	const end = performance.now() + 6;
	let x = 0;
	while (performance.now() < end) for (let i = 0; i < 1000; i++) x = (x * 31 + i) | 0;
	return x;
}
function hotSide() {
	const end = performance.now() + 2;
	let x = 0;
	while (performance.now() < end) for (let i = 0; i < 1000; i++) x = (x * 31 + i) | 0;
	return x;
}
function tick() {
	hotMain();
	hotSide();
	setTimeout(tick, 2);
}
tick();
console.log('ready', process.pid);
