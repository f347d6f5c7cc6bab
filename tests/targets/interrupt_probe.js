// A target that is busy nearly all the time, in tasks of its own (200 ms of synchronous work,
// then a short pause), and that notes every change to Node's own state (timers, diagnostics
// channels, performance observers) made while one of its tasks is running: only an inspector
// evaluation, which runs through an interrupt in the middle of the task, can make one there.
// Node's timer lists are not made to be changed half-way through their own operations.
//   node interrupt_probe.js   prints "ready", then every second "calls N inside M": the
//                             changes made by others (an inspector client) outside the
//                             target's tasks, and inside them
'use strict';
const dc = require('diagnostics_channel');
const { PerformanceObserver } = require('perf_hooks');

// its own timers through the functions as they were, so that only others' calls are counted
const ownTimeout = setTimeout, ownInterval = setInterval;
let inTask = false, calls = 0, inside = 0;
const seen = [];
function note(what) {
	if (inTask) {
		inside++;
		if (seen.length < 5)
			seen.push(what + ' ' + new Error().stack.split('\n').slice(2, 4).map(s => s.trim()).join(' < '));
	} else {
		calls++;
	}
}
function wrap(obj, name, label) {
	const orig = obj[name];
	obj[name] = function (...args) {
		note(label);
		return orig.apply(this, args);
	};
}
for (const name of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate'])
	wrap(globalThis, name, name);
wrap(dc.Channel.prototype, 'subscribe', 'channel.subscribe');
wrap(dc.Channel.prototype, 'unsubscribe', 'channel.unsubscribe');
wrap(PerformanceObserver.prototype, 'observe', 'PerformanceObserver.observe');
wrap(PerformanceObserver.prototype, 'disconnect', 'PerformanceObserver.disconnect');

// not inlined away: the work must stay a task of its own
function work(ms) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end)
		for (let i = 0; i < 1000; i++) x = (x * 31 + i) % 1000003;
	return x;
}
(function task() {
	inTask = true;
	work(200);
	inTask = false;
	ownTimeout(task, 20);
})();
ownInterval(() => {
	console.log(`calls ${calls} inside ${inside}`);
	for (const s of seen.splice(0))
		console.log('inside: ' + s);
}, 1000);
console.log('ready');
