// A process of many light threads, for bench/workers.sh: the main thread and N worker threads
// (default 32) each do about 0.3 ms of hashing every 50 ms (about 0.6 % of a core each), and
// each measures its own event loop: a 10 ms timer's worst lateness in every second, its stall.
// The main thread writes one JSON line a second to --out: {"t": SECOND, "main": MS,
// "workers": [MS, ...]} (a worker that has not reported that second is null), after
// {"event":"ready"} once every worker runs.
//   node threads.js [--workers N] --out FILE
'use strict';
const fs = require('fs');
const { Worker, isMainThread, parentPort } = require('worker_threads');

function hashSome() {
	let h = 0;
	for (let i = 0; i < 30000; i++)
		h = (h * 31 + i) | 0;
	return h;
}
// the worst lateness of a 10 ms timer in each second, handed to report(ms) once a second
function watchStall(report) {
	let last = Date.now(), worst = 0, second = Math.floor(last / 1000);
	setInterval(() => {
		const now = Date.now(), late = Math.max(0, now - last - 10);
		last = now;
		if (Math.floor(now / 1000) !== second) {
			report(second, worst);
			second = Math.floor(now / 1000);
			worst = 0;
		}
		worst = Math.max(worst, late);
	}, 10);
	setInterval(hashSome, 50);
}

if (!isMainThread) {
	watchStall((second, ms) => parentPort.postMessage([second, ms]));
	parentPort.postMessage('up');
} else {
	const args = process.argv.slice(2);
	const n = Number(args[args.indexOf('--workers') + 1]) || (args.includes('--workers') ? 0 : 32);
	const out = fs.openSync(args[args.indexOf('--out') + 1], 'a');
	const seconds = new Map();
	let up = 0;
	const line = (s) => {
		const e = seconds.get(s);
		if (!e)
			return;
		seconds.delete(s);
		fs.writeSync(out, JSON.stringify({ t: s, main: e.main, workers: e.workers }) + '\n');
	};
	const entry = (s) => {
		if (!seconds.has(s))
			seconds.set(s, { main: null, workers: new Array(n).fill(null) });
		return seconds.get(s);
	};
	for (let i = 0; i < n; i++) {
		const w = new Worker(__filename, { name: `light-${i}` });
		w.on('message', (m) => {
			if (m === 'up') {
				if (++up === n)
					fs.writeSync(out, '{"event":"ready"}\n');
				return;
			}
			entry(m[0]).workers[i] = m[1];
		});
	}
	if (n === 0)
		fs.writeSync(out, '{"event":"ready"}\n');
	// a second is written two seconds after it ended: every thread has reported it by then
	watchStall((second, ms) => {
		entry(second).main = ms;
		line(second - 2);
	});
}
