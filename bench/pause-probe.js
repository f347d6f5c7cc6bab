'use strict';
// pause-probe.js: a plain inspector client (nothing of ntop-js) that measures the main-thread
// pauses that ntop-js's inspector commands cause in a warm target, and the cheap readings
// taken before them from which ntop-js could predict those pauses. Used by bench/pause.sh.
//
//   node22+ pause-probe.js PID TARGET_STDERR TARGET_OUT [--label JSON]
//
// PID is a bench/targets/many-functions.js process started with --inspect-port=127.0.0.1:0
// and already warm; TARGET_STDERR is the file its stderr goes to (the inspector's URL is
// read from it after SIGUSR1); TARGET_OUT is its --out file (per-second lines with
// worst_stall_ms and mono_us, the CLOCK_MONOTONIC time of the line in microseconds, which is
// the same clock as this process's process.hrtime).
//
// Steps, in order, each separated by GAP_MS so that each falls in its own per-second lines:
//   readings  one Runtime.evaluate (returnByValue) of v8.getHeapStatistics(),
//             v8.getHeapCodeStatistics(), process.memoryUsage(); then Runtime.getHeapUsage
//   start     Profiler.enable + Profiler.setSamplingInterval {interval:1000} + Profiler.start
//   deopt     Profiler.startPreciseCoverage {callCount:false, detailed:false} immediately
//             followed by Profiler.stopPreciseCoverage (the profile still running)
//   stop      Profiler.stop
//   gc        HeapProfiler.collectGarbage, twice (gc, gc2)
// For every step: rtt_ms, the client-side round trip of the whole step (the command that
// matters: Profiler.start alone is also given as start_cmd_ms), and stall_ms, the target's
// worst event-loop stall over the per-second lines whose window overlaps the step (from its
// first send to 1.1 s after its last reply: a gap is counted in the line in which it ends,
// and the line itself may be emitted late by the stall). The baseline is the worst and the
// median stall of the lines before the first step.
// Prints one JSON object on stdout.
// Needs a global WebSocket (Node 22 or newer) for itself; the target can be any version.
const fs = require('fs');

const [pidArg, errFile, outFile] = process.argv.slice(2);
const li = process.argv.indexOf('--label');
const label = li > 0 ? JSON.parse(process.argv[li + 1]) : {};
const GAP_MS = Number(process.env.PAUSE_GAP_MS || 3000);
const pid = Number(pidArg);
const sleep = ms => new Promise(r => setTimeout(r, ms));
const mono_us = () => Number(process.hrtime.bigint() / 1000n);

async function inspectorUrl() {
	process.kill(pid, 'SIGUSR1');
	for (let i = 0; i < 400; i++) {
		await sleep(50);
		const m = fs.readFileSync(errFile, 'utf8').match(/ws:\/\/127\.0\.0\.1:\d+\/\S+/);
		if (m) return m[0];
	}
	throw new Error('the target opened no inspector');
}

function lines() {
	return fs.readFileSync(outFile, 'utf8').split('\n').filter(l => l.includes('"mono_us"'))
		.map(l => JSON.parse(l));
}

// Worst stall of the lines whose window (previous mono_us, mono_us] overlaps [a, b].
function stallOver(L, a, b) {
	let worst = 0, n = 0;
	for (let i = 1; i < L.length; i++) {
		if (L[i].mono_us > a && L[i - 1].mono_us < b) { worst = Math.max(worst, L[i].worst_stall_ms); n++; }
	}
	return n ? worst : null;
}

(async () => {
	const t_conn0 = mono_us();
	const ws = new WebSocket(await inspectorUrl());
	await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
	const connect_ms = (mono_us() - t_conn0) / 1000;
	let id = 0;
	const pending = new Map();
	ws.onmessage = e => {
		const m = JSON.parse(e.data);
		if (m.id && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
	};
	const call = (method, params = {}) => new Promise((ok, fail) => {
		pending.set(++id, m => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : ok(m.result)));
		ws.send(JSON.stringify({ id, method, params }));
	});
	const timed = async (method, params) => {
		const t = mono_us();
		const r = await call(method, params);
		return { ms: (mono_us() - t) / 1000, r };
	};

	// a. The cheap readings, before anything else.
	const expr = `(() => {
		const v8 = process.getBuiltinModule ? process.getBuiltinModule('v8') : require('v8');
		return { node: process.version, v8: process.versions.v8,
			heap: v8.getHeapStatistics(), code: v8.getHeapCodeStatistics(),
			mem: process.memoryUsage() };
	})()`;
	const ev = await timed('Runtime.evaluate', { expression: expr, returnByValue: true, includeCommandLineAPI: true });
	if (ev.r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(ev.r.exceptionDetails));
	const readings = ev.r.result.value;
	const hu = await timed('Runtime.getHeapUsage');
	readings.getHeapUsage = { usedSize: hu.r.usedSize, totalSize: hu.r.totalSize };
	const t_first = t_conn0;
	await sleep(GAP_MS);

	const steps = {};
	const step = async (name, fn) => {
		const a = mono_us();
		const extra = await fn();
		const b = mono_us();
		steps[name] = { a, b, rtt_ms: +((b - a) / 1000).toFixed(2), ...extra };
		await sleep(GAP_MS);
	};
	// b. The first profile.
	await step('start', async () => {
		const en = await timed('Profiler.enable');
		const si = await timed('Profiler.setSamplingInterval', { interval: 1000 });
		const st = await timed('Profiler.start');
		return { enable_ms: +en.ms.toFixed(2), interval_ms: +si.ms.toFixed(2), start_cmd_ms: +st.ms.toFixed(2) };
	});
	// c. Deoptimize everything once, the profile running.
	await step('deopt', async () => {
		const on = await timed('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
		const off = await timed('Profiler.stopPreciseCoverage');
		return { cov_start_ms: +on.ms.toFixed(2), cov_stop_ms: +off.ms.toFixed(2) };
	});
	// d. Stop the profile.
	await step('stop', async () => {
		const s = await timed('Profiler.stop');
		return { profile_nodes: s.r.profile.nodes.length };
	});
	// e. Forced full GCs.
	await step('gc', async () => { await call('HeapProfiler.collectGarbage'); return {}; });
	await step('gc2', async () => { await call('HeapProfiler.collectGarbage'); return {}; });
	const hu2 = await call('Runtime.getHeapUsage');
	await call('Profiler.disable');
	ws.close();

	// Wait for the per-second line that covers the last step plus 1.1 s.
	const last_b = Math.max(...Object.values(steps).map(s => s.b));
	let L = lines();
	for (let i = 0; i < 100 && L[L.length - 1].mono_us < last_b + 1.2e6; i++) { await sleep(100); L = lines(); }
	const before = [];
	for (let i = 1; i < L.length; i++) if (L[i].mono_us < t_first) before.push(L[i].worst_stall_ms);
	const base = before.slice(-10).sort((x, y) => x - y);
	const out = {
		...label, node: readings.node, v8: readings.v8, pid,
		readings, evaluate_ms: +ev.ms.toFixed(2), getHeapUsage_ms: +hu.ms.toFixed(2), connect_ms: +connect_ms.toFixed(1),
		baseline_stall_max_ms: base.length ? base[base.length - 1] : null,
		baseline_stall_median_ms: base.length ? base[base.length >> 1] : null,
		heap_used_after_gc: hu2.usedSize,
		pauses: {},
	};
	for (const [k, s] of Object.entries(steps)) {
		const { a, b, ...rest } = s;
		out.pauses[k] = { ...rest, stall_ms: stallOver(L, a, b + 1.1e6) };
	}
	console.log(JSON.stringify(out));
	process.exit(0);
})().catch(e => { console.error('pause-probe:', e.stack || e.message); process.exit(1); });
