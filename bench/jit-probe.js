'use strict';
// jit-probe.js: a plain inspector client (nothing of ntop-js) that shows what V8's profiler
// says about a warm process, with and without the changes ntop-js makes to its JIT. It is how
// doc/inlining.md's tables were measured, and how to check a new Node version.
//
//   node22+ jit-probe.js PID MODE WINDOWS WINDOW_S [--gc-heap]
//
// PID is a node process started with --inspect-port=0 (no other flag needed) and already
// warm; its stderr must go to /tmp/jit-probe.PID.err (the inspector's URL is read from it).
// MODE is "none", or "+"-joined steps, in order: V8 flags ("--no-turbo-inlining") set with
// v8.setFlagsFromString, then "cov" (precise coverage started and stopped at once: V8
// deoptimizes all code). The profiler runs first, as in ntop-js (a console profile that
// windows overlap). Prints, per window, the five functions with the most self time as shares
// of the non-idle samples. --gc-heap also prints the heap used after a forced GC before and
// after the steps (the GCs are the probe's, never ntop-js's).
// Needs a global WebSocket (Node 22 or newer) for itself; the target can be any version.
const [pid, mode, nwin, wins] = process.argv.slice(2);
const gcHeap = process.argv.includes('--gc-heap');
const { connect, sleep } = require('./probe-client');
const CON = "(process.getBuiltinModule ? process.getBuiltinModule('inspector') : require('inspector')).console";
const V8 = "(process.getBuiltinModule ? process.getBuiltinModule('v8') : require('v8'))";

(async () => {
	const { ws, call, events } = await connect(pid);
	const evaluate = expr => call('Runtime.evaluate', { expression: expr, includeCommandLineAPI: true, returnByValue: true });
	const heap = async () => { await call('HeapProfiler.collectGarbage'); return (await call('Runtime.getHeapUsage')).result.usedSize; };

	await call('Profiler.enable');
	await call('Profiler.setSamplingInterval', { interval: 1000 });
	let t = Date.now();
	await evaluate(`${CON}.profile('w0')`);
	console.log(`profiler start: ${Date.now() - t} ms`);
	const before = gcHeap ? await heap() : 0;
	for (const step of mode.split('+')) {
		t = Date.now();
		if (step.startsWith('--')) {
			await evaluate(`${V8}.setFlagsFromString(${JSON.stringify(step)})`);
		} else if (step === 'cov') {
			await call('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
			await call('Profiler.stopPreciseCoverage');
			console.log(`deoptimization (coverage on and off): ${Date.now() - t} ms`);
		}
	}
	if (gcHeap) {
		const after = await heap();
		console.log(`heap used after a GC: ${(before / 1048576).toFixed(1)} MB before, ${(after / 1048576).toFixed(1)} MB after (${((after - before) / 1048576).toFixed(1)} MB)`);
	}
	for (let w = 1; w <= Number(nwin); w++) {
		await sleep(Number(wins) * 1000);
		const n = events.length;
		await evaluate(`${CON}.profile('w${w}');${CON}.profileEnd('w${w - 1}')`);
		let ev;
		while (!(ev = events.slice(n).find(x => x.method === 'Profiler.consoleProfileFinished')))
			await sleep(10);
		const p = ev.params.profile, byId = new Map(p.nodes.map(x => [x.id, x])), self = new Map();
		let busy = 0;
		for (let i = 1; i < p.samples.length; i++) {
			const name = byId.get(p.samples[i]).callFrame.functionName || '(anonymous)';
			if (name === '(idle)') continue;
			busy += p.timeDeltas[i];
			self.set(name, (self.get(name) || 0) + p.timeDeltas[i]);
		}
		console.log(`window ${w}: ` + [...self].sort((a, b) => b[1] - a[1]).slice(0, 5)
			.map(([k, v]) => `${k} ${(100 * v / busy).toFixed(0)}`).join(', '));
	}
	await evaluate(`${CON}.profileEnd('w${nwin}')`);
	await call('Profiler.disable');
	ws.close();
})().catch(e => { console.error('jit-probe:', e.message); process.exit(1); });
