// A target that watches V8 optimize and deoptimize its hot function, for the tests of what a
// session leaves behind: V8's own status of `outer` (which inlines `inner` once hot), read
// through V8's test syntax, switched on here at run time (only to watch; the accuracy tests
// run targets without it). Prints "optimized" and "deoptimized" at each change, then
// "ready PID" once outer is optimized, and "session METHOD" for each in-process inspector
// call that switches the coverage mode (the deoptimization that comes with the flags put
// back).
'use strict';
const v8 = require('v8');
v8.setFlagsFromString('--allow-natives-syntax');
const status = new Function('f', 'return %GetOptimizationStatus(f)');
function inner(x) { return (x * 31 + 7) % 1000003; }
function outer(n) { let s = 0; for (let i = 0; i < n; i++) s = inner(s + i); return s; }
// The status's "optimized" bit (Maglev or TurboFan code): 1 << 4 up to V8 13; V8 14 dropped
// a flag before it, so 1 << 3 there.
const OPTIMIZED = parseInt(process.versions.v8, 10) >= 14 ? 0x08 : 0x10;
const optimized = () => (status(outer) & OPTIMIZED) !== 0;
const { Session } = require('inspector');
const post = Session.prototype.post;
Session.prototype.post = function (method) {
	if (/PreciseCoverage$/.test(method))
		console.log('session', method);
	return post.apply(this, arguments);
};
let sink = 0, was = false, ready = false;
// Node 22's V8 can leave outer in baseline code for good from the start: once the loop's OSR
// code runs the calls, the function's own tier-up never comes (one start in about ten,
// measured idle; 0.4-3.5 s in the others). The state before the attach is not what is tested,
// so after 5 s without it V8 is asked to optimize outer once, and the output says so.
const started = Date.now();
const optimizeNow = new Function('f', '%OptimizeFunctionOnNextCall(f)');
// The status is read before each run of outer: a deoptimization comes between two timer
// callbacks (an evaluation, the lease's timer), so the next one sees it before V8 can have
// optimized outer again.
setInterval(() => {
	const now = optimized();
	if (now !== was)
		console.log(now ? 'optimized' : 'deoptimized');
	was = now;
	if (!now && !ready && !optimizeNow.done && Date.now() - started > 5000) {
		optimizeNow.done = true;
		console.log('forced: outer not optimized after 5 s');
		optimizeNow(outer);
	}
	if (now && !ready) {
		ready = true;
		console.log('ready', process.pid);
	}
	sink = outer(20000 + (sink & 1));
}, 1);
