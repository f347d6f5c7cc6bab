'use strict';
// window-parts.js: what each part of a window's requests costs an idle target, without
// ntop-js: a plain inspector client (probe-client.js) makes, once a second for a phase, one
// kind of request, and the target's CPU is read from /proc around the phase (its main
// thread's schedstat, and the whole process's utime + stime, V8's profiler thread included).
//
//   node22+ bench/window-parts.js PID [PHASE_S [ROUNDS [PHASES]]]
//
// PID: a node process (bench/targets/fixed-work.js) whose stderr goes to
// /tmp/jit-probe.PID.err (the inspector's URL is read from it; SIGUSR1 opens it). PHASES, in
// order each round (default off,eval1,heap,prof10,rot10):
//   off     nothing (the connection open and idle)
//   eval1   Runtime.evaluate of "1"
//   heap    Runtime.getHeapUsage (ntop-js's memory reading)
//   prof10  the CPU profiler running at 10 ms, never rotated
//   rot10   ...and rotated as ntop-js rotates a window (console.profile the next, profileEnd
//           the last, in one evaluation)
//   rot1    the same at the default 1 ms
// Prints each phase's figures in ms of CPU a second, then the medians (doc/benchmarks.md 23).
const fs = require('fs');
const { connect } = require('./probe-client.js');

const pid = Number(process.argv[2]);
const phaseS = Number(process.argv[3] || 30), rounds = Number(process.argv[4] || 3);
const order = (process.argv[5] || 'off,eval1,heap,prof10,rot10').split(',');
const sleep = ms => new Promise(r => setTimeout(r, ms));
const mainMs = () => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
	.split(' ')[0]) / 1e6;
const procMs = () => {
	const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(f[11]) + Number(f[12])) * 1000 / 100; /* clock ticks of 10 ms */
};
const INS = "(process.getBuiltinModule ? process.getBuiltinModule('inspector') : require('inspector'))";
const median = a => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };

(async () => {
	if (!pid) throw new Error('usage: node window-parts.js PID [PHASE_S [ROUNDS [PHASES]]]');
	const { call } = await connect(pid);
	let seq = 0;
	const rotate = () => call('Runtime.evaluate', { expression: `(function ntopJsWindow(c){` +
		`c.profile('p${seq + 1}');c.profileEnd('p${seq}')})(${INS}.console)` }).then(() => seq++);
	const profiler = (interval, start) => async () => {
		await call('Profiler.setSamplingInterval', { interval });
		await call('Profiler.enable');
		await (start === 'console' ? call('Runtime.evaluate',
			{ expression: `${INS}.console.profile('p${seq}')` }) : call('Profiler.start'));
	};
	const none = async () => {};
	const off = () => call('Profiler.disable');
	const phases = {
		off: [none, none, none],
		eval1: [none, () => call('Runtime.evaluate', { expression: '1' }), none],
		heap: [none, () => call('Runtime.getHeapUsage'), none],
		prof10: [profiler(10000, 'protocol'), none, off],
		rot10: [profiler(10000, 'console'), rotate, off],
		rot1: [profiler(1000, 'console'), rotate, off],
	};
	const res = {};
	for (let r = 0; r < rounds; r++)
		for (const name of order) {
			const [setup, each, end] = phases[name];
			await setup();
			await sleep(2000);
			const m0 = mainMs(), p0 = procMs(), t0 = Date.now();
			while (Date.now() - t0 < phaseS * 1000) {
				await each();
				await sleep(1000);
			}
			const dt = (Date.now() - t0) / 1000;
			const m = (mainMs() - m0) / dt, p = (procMs() - p0) / dt;
			await end();
			(res[name] = res[name] || []).push([m, p]);
			console.log(`${name} round ${r + 1}: main thread ${m.toFixed(2)} ms/s, process ` +
				`${p.toFixed(1)} ms/s`);
		}
	for (const [name, v] of Object.entries(res))
		console.log(`${name}: medians main ${median(v.map(x => x[0])).toFixed(2)} ms/s, process ` +
			`${median(v.map(x => x[1])).toFixed(1)} ms/s`);
	process.exit(0);
})().catch(e => { console.error(e.message); process.exit(1); });
