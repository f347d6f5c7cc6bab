// A target with two known hot functions: hotMain burns 6 ms and hotSide 2 ms per cycle, both
// called from tick; the rest of each cycle is idle. Prints "ready".
'use strict';
// A fixed call tree for the UI tests: no inlining (TurboFan; Maglev from V8 11) and no Maglev
// OSR (V8 12+); warm.js runs the same functions with V8's default flags (HOT_DEFAULT_FLAGS).
if (!process.env.HOT_DEFAULT_FLAGS) require('v8').setFlagsFromString('--no-turbo-inlining --no-maglev-inlining --no-maglev-osr'.split(' ').slice(0, parseInt(process.versions.v8) - 9).join(' '));
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
// forked by a test's parent process: go when the parent does, whatever killed it
if (process.send) process.on('disconnect', () => process.exit(0));
console.log('ready', process.pid);
