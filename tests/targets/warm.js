// A production-like target for the accuracy tests: V8's default flags (no inlining switched
// off, unlike hot.js), so that once warm, V8 inlines hotMain and hotSide into their callers.
// hotMain burns 6 ms and hotSide 2 ms per cycle, both called from tick on a timer.
// It also reports what a session does to it: every v8.setFlagsFromString call ("flags ARGS")
// and whether ntop-js's lease on those flags is on its globalThis ("lease on", "lease off").
// Prints "ready PID".
'use strict';
const v8 = require('v8');
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = function (flags) {
	console.log('flags', flags);
	return setFlags.apply(this, arguments);
};
let lease = false;
setInterval(() => {
	const now = globalThis[Symbol.for('ntop-js.jit')] !== undefined;
	if (now !== lease)
		console.log('lease', now ? 'on' : 'off');
	lease = now;
}, 200).unref();
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
