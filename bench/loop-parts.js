'use strict';
// loop-parts.js: what each thing that ntop-js's recorder keeps running in a target costs an
// idle Node process, measured in this process's own main thread (its schedstat, ns), without
// ntop-js: V8's CPU sampler (through an in-process inspector session, as a remote one would
// start it), the event-loop delay histogram at the recorder's 10 ms and at a coarse period,
// and the reading's 1 ms timers (30 ms of them a second, engine_evloop.c). Each part runs
// alone for SECS, between rounds of nothing.
//
//   node bench/loop-parts.js [SECS [ROUNDS]]
//
// Prints one line per phase and round, then the medians, in ms of main-thread CPU a second
// (doc/benchmarks.md section 23).
const fs = require('fs');
const inspector = require('inspector');
const { monitorEventLoopDelay } = require('perf_hooks');

const secs = Number(process.argv[2] || 15), rounds = Number(process.argv[3] || 2);
const mainMs = () => Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
	.split(' ')[0]) / 1e6;
const sleep = ms => new Promise(r => setTimeout(r, ms));
const median = a => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };

const session = new inspector.Session();
session.connect();
const post = (m, p) => new Promise((res, rej) => session.post(m, p || {}, (e, r) => e ? rej(e) : res(r)));

function sampler(us) {
	return {
		start: async () => {
			await post('Profiler.enable');
			await post('Profiler.setSamplingInterval', { interval: us });
			await post('Profiler.start');
		},
		stop: async () => { await post('Profiler.stop'); await post('Profiler.disable'); },
	};
}
function histogram(ms) {
	let h;
	return {
		start: async () => { h = monitorEventLoopDelay({ resolution: ms }); h.enable(); },
		stop: async () => h.disable(),
	};
}
// the reading's timers: for 30 ms after each reading (one a second), 1 ms timers
function gapTimers() {
	let on = false, t;
	const tick = () => {
		const until = Date.now() + 30;
		const gap = () => { if (on && Date.now() < until) setTimeout(gap, 1).unref(); };
		setTimeout(gap, 1).unref();
		t = setTimeout(tick, 1000);
	};
	return { start: async () => { on = true; tick(); }, stop: async () => { on = false; clearTimeout(t); } };
}
const nothing = { start: async () => {}, stop: async () => {} };

const phases = [
	['nothing', nothing],
	['sampler at 10 ms', sampler(10000)],
	['sampler at 100 ms', sampler(100000)],
	['loop histogram at 10 ms', histogram(10)],
	['loop histogram at 333 ms', histogram(333)],
	['1 ms timers, 30 ms a second', gapTimers()],
];

(async () => {
	const keep = setInterval(() => {}, 1000); /* an idle server's loop: alive, waiting */
	const res = new Map();
	for (let r = 0; r < rounds; r++)
		for (const [name, p] of phases) {
			await p.start();
			await sleep(1000);
			const m0 = mainMs(), t0 = process.hrtime.bigint();
			await sleep(secs * 1000);
			const v = (mainMs() - m0) / (Number(process.hrtime.bigint() - t0) / 1e9);
			await p.stop();
			if (!res.has(name)) res.set(name, []);
			res.get(name).push(v);
			console.log(`round ${r + 1}, ${name}: main thread ${v.toFixed(2)} ms/s`);
		}
	const base = median(res.get('nothing'));
	console.log('\n| part, alone in an idle process | main thread, ms of CPU a second (median) | over nothing | the rounds |');
	console.log('|---|---|---|---|');
	for (const [name, v] of res)
		console.log(`| ${name} | ${median(v).toFixed(2)} | ${name === 'nothing' ? '' :
			(median(v) - base).toFixed(2)} | ${v.map(x => x.toFixed(2)).join(', ')} |`);
	clearInterval(keep);
	session.disconnect();
})().catch(e => { console.error(e.message); process.exit(1); });
