// A production-like target for the accuracy tests: hot.js's functions with V8's default flags
// (no inlining switched off), so that once warm, V8 inlines hotMain and hotSide into their
// callers. hotMain burns 6 ms and hotSide 2 ms per cycle, both called from tick on a timer.
// It also reports what a session does to it: every v8.setFlagsFromString call ("flags ARGS")
// whether ntop-js's lease on those flags is on its globalThis ("lease on", "lease off"), and
// each in-process inspector call that switches the coverage mode ("session METHOD"): the
// deoptimization that comes with the flags put back.
// Prints "ready PID".
'use strict';
const v8 = require('v8');
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = function (flags) {
	console.log('flags', flags);
	return setFlags.apply(this, arguments);
};
const { Session } = require('inspector');
const post = Session.prototype.post;
Session.prototype.post = function (method) {
	if (/PreciseCoverage$/.test(method))
		console.log('session', method);
	return post.apply(this, arguments);
};
let lease = false;
setInterval(() => {
	const now = globalThis[Symbol.for('ntop-js.jit')] !== undefined;
	if (now !== lease)
		console.log('lease', now ? 'on' : 'off');
	lease = now;
}, 200).unref();
process.env.HOT_DEFAULT_FLAGS = '1';
require('./hot.js');
