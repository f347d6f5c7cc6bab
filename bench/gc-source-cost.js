// What learning the heap after major collections costs a target, in its own process (no
// ntop-js, no inspector), for the two sources Node offers:
//   gcprofiler  v8.GCProfiler, which writes heap statistics before and after every
//               collection, young ones included, until it is stopped
//   observer    a PerformanceObserver of 'gc' entries that reads v8.getHeapStatistics() when
//               a major collection's entry comes (what ntop-js keeps in the target)
//
//   node --expose-gc bench/gc-source-cost.js [ROUNDS]
//
// 1. The cost of one young collection with each source: 20,000 forced scavenges of a nearly
//    empty heap (so the source's share stands out), CPU time per collection, the median of
//    ROUNDS (default 5) alternating runs.
// 2. What a source leaves behind when it is replaced every 100 ms for 8 s (as a reader that
//    collects its batch and starts a new one would), in a program that allocates garbage all
//    the time but keeps its heap small: a stopped GCProfiler keeps recording into its buffer
//    until its object is garbage collected, which a small steady heap puts off for good.
'use strict';
const v8 = require('v8');
const { PerformanceObserver, constants } = require('perf_hooks');
const { spawnSync } = require('child_process');

const MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR;

function startSource(name) {
	if (name === 'gcprofiler') {
		const p = new v8.GCProfiler();
		p.start();
		return () => { const r = p.stop(); if (typeof r === 'string') JSON.parse(r); };
	}
	if (name === 'observer') {
		const sizes = [];
		const o = new PerformanceObserver((l) => {
			for (const e of l.getEntries())
				if ((e.detail || e).kind === MAJOR) sizes.push(v8.getHeapStatistics().used_heap_size);
		});
		o.observe({ entryTypes: ['gc'] });
		return () => o.disconnect();
	}
	return () => {};
}

if (process.argv[2] === '--replace') {
	// part 2, in a process of its own
	const name = process.argv[3];
	let stop = null, n = 0;
	setInterval(() => { if (stop) stop(); stop = name === 'none' ? null : startSource(name); n++; }, 100);
	setInterval(() => { const g = []; for (let i = 0; i < 20000; i++) g.push({ i }); return g.length; }, 5);
	setTimeout(() => {
		const m = process.memoryUsage(), c = process.cpuUsage();
		console.log(JSON.stringify({ rss: m.rss, heap: m.heapUsed, cpu_ms: (c.user + c.system) / 1e3 }));
		process.exit(0);
	}, 8000);
	return;
}

if (typeof gc !== 'function') {
	console.error('usage: node --expose-gc bench/gc-source-cost.js [ROUNDS]');
	process.exit(2);
}
const rounds = Number(process.argv[2] || 5);
const N = 20000;

function perCollection(name) {
	return new Promise((resolve) => {
		const stop = startSource(name);
		const c0 = process.cpuUsage();
		let left = N;
		// a turn of the loop every 500, so that the observer's entries are delivered (and paid)
		const step = () => {
			for (let k = 0; k < 500 && left > 0; k++, left--) gc({ type: 'minor' });
			if (left > 0) return setImmediate(step);
			stop();
			const c = process.cpuUsage(c0);
			resolve((c.user + c.system) / N);
		};
		setImmediate(step);
	});
}

(async () => {
	const r = { none: [], gcprofiler: [], observer: [] };
	for (let i = 0; i < rounds; i++)
		for (const s of ['none', 'gcprofiler', 'none', 'observer']) r[s].push(await perCollection(s));
	const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
	const base = med(r.none);
	console.log(`node ${process.version}: a young collection costs ${base.toFixed(1)} us of CPU; ` +
		`with a GCProfiler ${(med(r.gcprofiler) - base).toFixed(1)} us more, with the observer ` +
		`${(med(r.observer) - base).toFixed(1)} us more (median of ${rounds})`);
	for (const s of ['none', 'gcprofiler', 'observer']) {
		const out = spawnSync(process.execPath, [__filename, '--replace', s], { encoding: 'utf8' });
		const x = JSON.parse(out.stdout);
		console.log(`  replaced every 100 ms for 8 s: ${s.padEnd(10)} rss ${(x.rss / 1e6).toFixed(0)} MB, ` +
			`heap ${(x.heap / 1e6).toFixed(1)} MB, CPU ${x.cpu_ms.toFixed(0)} ms`);
	}
})();
