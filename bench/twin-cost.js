'use strict';
// What ntop-js costs a server, measured on twins: two copies of one express server run side by
// side under the same load, and in each phase one of them (in turn: A B B A ...) carries what
// is measured while the other does not. Both count their requests and their own CPU time over
// the same seconds, so that what slows the whole machine (another VM's load, its caches) slows
// both and cancels in the phase's ratio: requests per CPU second of the one with it over the
// one without. Swapping the roles each phase cancels what differs between the two processes.
//
// Usage: node twin-cost.js MODE ROUNDS PHASE_S SETTLE_S [NTOP_JS [ARGS...]]
//   MODE reading: ntop-js's requests reading (bench/requests-expr.js), installed, read every
//                 second and removed in the server itself, as the engine's evaluations do it;
//                 TWIN_R=empty: only its channels subscribed, handlers that do nothing;
//                 TWIN_R=count: handlers that count;
//        profile: V8's profiler from an inspector.Session in the server, sampling every TWIN_I
//                 us (default 1000), its windows rotated every TWIN_W ms (default 1000) as
//                 ntop-js rotates them; TWIN_P=start: one Profiler.start instead; TWIN_P=
//                 deopt: the same after a switch of the coverage mode (the repair's
//                 deoptimization); TWIN_P=switch: that switch and no profile; TWIN_P=
//                 session: the session's Runtime and Profiler enabled, no profile;
//        ntop:    ntop-js itself attached (NTOP_JS ARGS --pid PID -b -d TWIN_D, default 1,
//                 output discarded; a -d in ARGS is overridden) and stopped with SIGINT;
//        none:    nothing (the method's own spread).
//   SETTLE_S: seconds between the start of what is measured and the phase's count (the attach,
//   the code V8 compiles again after it), and again after it is removed.
//   TWIN_AFTER=S: what it leaves behind instead: ROUNDS phases with nothing on either twin,
//   then twin A carries it once for S seconds, then SETTLE_S later ROUNDS phases again; each
//   later phase's ratio (A over B) is divided by the median of the earlier ones.
// The servers: express 5 (NODE_PATH), small JSON answers, one request in ten awaiting a fetch
// to an upstream in another process; the load: autocannon, 4 connections on each twin, in a
// third process. Prints one JSON line: {node, mode, rounds, phase_s, settle_s, with: [...],
// without: [...], ratios: [...], ratio_median, ratio_mean} (an even count's median is the
// mean of the middle two); with TWIN_AFTER, before: [...] and after: [...] instead of with and
// without.
const { fork, spawn } = require('child_process');

const role = process.argv[2];
if (role === 'upstream' || role === 'load' || role === 'server')
	process.on('disconnect', () => process.exit(0));

const api = require('./express-api.js');
if (role === 'upstream') {
	api.upstream();
	return;
}

if (role === 'load') {
	api.load(process.argv.slice(4).map(Number), 4, Number(process.argv[3]));
	return;
}

if (role === 'server') {
	const expr = require('./requests-expr.js');
	// the inspector's evaluations see require (Node 18 to 20.15 have no getBuiltinModule); an
	// indirect eval here runs in the same global scope, without it
	globalThis.require = require;
	const upPort = Number(process.argv[3]);
	const dc = require('diagnostics_channel');
	let served = 0, timer = null, session = null, subs = null;
	const app = api.app(upPort, () => served++);
	process.on('message', (m) => {
		if (m.cmd === 'count') {
			const c = process.cpuUsage();
			process.send({ served, cpu_us: c.user + c.system });
		} else if (m.cmd === 'on' && m.part !== 'full') {
			// a part of the reading's price: its channels subscribed with handlers that do
			// nothing (empty) or only count (count)
			let n = 0;
			const f = m.part === 'count' ? () => { n++; } : () => {};
			subs = expr.channels.map((c) => { dc.channel(c).subscribe(f); return [c, f]; });
			process.send({ done: true });
		} else if (m.cmd === 'on') {
			(0, eval)(expr.reading(m.nonce));
			timer = setInterval(() => (0, eval)(expr.reading(m.nonce)), 1000);
			process.send({ done: true });
		} else if (m.cmd === 'off') {
			clearInterval(timer);
			if (subs) {
				for (const [c, f] of subs)
					dc.channel(c).unsubscribe(f);
				subs = null;
			} else {
				(0, eval)(expr.leave(m.nonce));
			}
			process.send({ done: true });
		} else if (m.cmd === 'profile') {
			// V8's profiler from an in-process session, its windows rotated as ntop-js does
			// (console.profile of the next, console.profileEnd of the current, in one
			// evaluation), every m.window_ms, sampling every m.interval_us
			const inspector = require('inspector');
			session = new inspector.Session();
			session.connect();
			session.post('Profiler.enable');
			session.post('Runtime.enable');
			session.post('Profiler.setSamplingInterval', { interval: m.interval_us });
			// TWIN_P=session: the domains enabled, no profile; start: one Profiler.start;
			// deopt: one Profiler.start after a switch of the coverage mode (what the repair's
			// attach does to the JIT: every optimized function deoptimized, then optimized again)
			if (m.how === 'deopt' || m.how === 'switch') {
				session.post('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
				session.post('Profiler.stopPreciseCoverage');
			}
			if (m.how === 'session' || m.how === 'start' || m.how === 'deopt' || m.how === 'switch') {
				if (m.how === 'start' || m.how === 'deopt')
					session.post('Profiler.start');
				process.send({ done: true });
				return;
			}
			let n = 0;
			session.post('Runtime.evaluate', { expression: `console.profile('w${n}')` });
			timer = setInterval(() => session.post('Runtime.evaluate',
				{ expression: `console.profile('w${n + 1}');console.profileEnd('w${n}')` }, () => n++), m.window_ms);
			process.send({ done: true });
		} else if (m.cmd === 'unprofile') {
			clearInterval(timer);
			const end = m.how === 'start' || m.how === 'deopt' ? ['Profiler.stop', {}] :
				['Runtime.evaluate', { expression: 'console.profileEnd()' }];
			session.post(...end, () => {
				session.post('Profiler.disable');
				session.disconnect();
				process.send({ done: true });
			});
		}
	});
	const srv = app.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port }));
	return;
}

const [mode, roundsArg, phaseArg, settleArg, ntop, ...ntopArgs] = process.argv.slice(2);
const rounds = Number(roundsArg), phaseS = Number(phaseArg), settleS = Number(settleArg);
const afterS = Number(process.env.TWIN_AFTER || 0);
if (!['reading', 'profile', 'ntop', 'none'].includes(mode) || !(rounds > 0) || !(phaseS > 0) || !(settleS >= 0) ||
    (mode === 'ntop' && !ntop) || !(afterS >= 0)) {
	console.error('usage: node twin-cost.js reading|profile|ntop|none ROUNDS PHASE_S SETTLE_S [NTOP_JS [ARGS...]]');
	process.exit(2);
}
const WARM_S = 8;
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// a child's stdout is not this process's: its stdout is the result line
const child = (args, execArgv = []) => fork(__filename, args,
	{ stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv });
// a child's answer, or the end of the run if none comes within 30 s
const reply = (c, pred) => new Promise((ok) => {
	const timer = setTimeout(() => {
		console.error(`twin-cost: no answer from child ${c.pid} within 30 s`);
		process.exit(1);
	}, 30000);
	const f = (m) => { if (pred(m)) { clearTimeout(timer); c.off('message', f); ok(m); } };
	c.on('message', f);
});
const ask = (c, m, pred) => { const r = reply(c, pred); c.send(m); return r; };
const ntopFailed = ([code, sig]) => {
	console.error(`twin-cost: ntop-js ended with ${code === null ? sig : 'status ' + code}`);
	process.exit(1);
};

(async () => {
	const up = child(['upstream']);
	const upPort = await reply(up, (m) => typeof m === 'number');
	// --inspect-port=0: ntop-js's SIGUSR1 opens each twin's inspector on a port of its own
	const twins = [child(['server', upPort], ['--inspect-port=0']), child(['server', upPort], ['--inspect-port=0'])];
	const ports = await Promise.all(twins.map((t) => reply(t, (m) => m && m.port).then((m) => m.port)));
	const perPhase = 2 * settleS + phaseS + 3;
	const loadS = afterS > 0 ? 2 * rounds * (phaseS + 1) + afterS + settleS : rounds * perPhase;
	const load = child(['load', Math.ceil((WARM_S + loadS) * 1.2) + 20, ...ports]);
	let ntopProc = null, ntopEnd = null;
	const stopAll = () => { for (const c of [load, ...twins, up, ...(ntopProc ? [ntopProc] : [])]) c.kill(); };
	process.on('exit', stopAll);
	await sleep(WARM_S * 1000);
	const counts = () => Promise.all(twins.map((t) => ask(t, { cmd: 'count' }, (m) => m && 'served' in m)));
	// what is measured, put on twin w for round i and taken off again
	const putOn = async (w, i) => {
		const twin = twins[w];
		ntopProc = null;
		if (mode === 'reading') {
			await ask(twin, { cmd: 'on', nonce: 'twin-' + i, part: process.env.TWIN_R || 'full' }, (m) => m && m.done);
		} else if (mode === 'profile') {
			await ask(twin, { cmd: 'profile', interval_us: Number(process.env.TWIN_I || 1000),
				window_ms: Number(process.env.TWIN_W || 1000), how: process.env.TWIN_P || 'rotate' },
			(m) => m && m.done);
		} else if (mode === 'ntop') {
			ntopProc = spawn(ntop, [...ntopArgs, '--pid', String(twin.pid), '-b', '-d', process.env.TWIN_D || '1'],
				{ stdio: ['ignore', 'ignore', 'inherit'] });
			ntopEnd = new Promise((ok) => ntopProc.once('exit', (code, sig) => ok([code, sig])));
		}
	};
	const takeOff = async (w, i) => {
		// ntop-js gone before the phase's end: it measured nothing
		if (ntopProc && (await Promise.race([ntopEnd.then(() => true), sleep(0).then(() => false)])))
			ntopFailed(await ntopEnd);
		if (mode === 'reading') {
			await ask(twins[w], { cmd: 'off', nonce: 'twin-' + i }, (m) => m && m.done);
		} else if (mode === 'profile') {
			await ask(twins[w], { cmd: 'unprofile', how: process.env.TWIN_P || 'rotate' }, (m) => m && m.done);
		} else if (ntopProc) {
			ntopProc.kill('SIGINT');
			const end = await ntopEnd;
			ntopProc = null;
			if (end[0] !== 0)
				ntopFailed(end);
		}
	};
	// one phase's requests per CPU second of each twin
	const rates = async () => {
		const c0 = await counts();
		await sleep(phaseS * 1000);
		const c1 = await counts();
		return [0, 1].map((k) => (c1[k].served - c0[k].served) / ((c1[k].cpu_us - c0[k].cpu_us) / 1e6));
	};
	const r3 = (x) => Math.round(x * 1000) / 1000;
	const median = (a) => { const s = [...a].sort((x, y) => x - y); return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2; };
	if (afterS > 0) {
		// what it leaves behind: twin 0 over twin 1 in ROUNDS phases with nothing on either,
		// then twin 0 carries it once for TWIN_AFTER s, then SETTLE_S later ROUNDS phases again
		const before = [], after = [];
		for (let i = 0; i < rounds; i++) {
			const r = await rates();
			before.push(r[0] / r[1]);
		}
		await putOn(0, 0);
		await sleep(afterS * 1000);
		await takeOff(0, 0);
		await sleep(settleS * 1000);
		for (let i = 0; i < rounds; i++) {
			const r = await rates();
			after.push(r[0] / r[1]);
		}
		const b = median(before);
		console.log(JSON.stringify({ node: process.version, mode, rounds, phase_s: phaseS, settle_s: settleS,
			after_s: afterS, before: before.map(r3), after: after.map(r3), ratios: after.map((x) => r3(x / b)),
			ratio_median: r3(median(after) / b),
			ratio_mean: r3(after.reduce((x, y) => x + y, 0) / after.length / b) }));
		process.exit(0);
	}
	const withIt = [], without = [];
	for (let i = 0; i < rounds; i++) {
		// A B B A: the twin that carries it, by pairs of rounds
		const w = (i % 4 === 0 || i % 4 === 3) ? 0 : 1;
		await putOn(w, i);
		await sleep(settleS * 1000);
		const r = await rates();
		withIt.push(r[w]);
		without.push(r[1 - w]);
		await takeOff(w, i);
		await sleep(settleS * 1000);
	}
	const ratios = withIt.map((x, i) => x / without[i]);
	console.log(JSON.stringify({ node: process.version, mode, rounds, phase_s: phaseS, settle_s: settleS,
		with: withIt.map(Math.round), without: without.map(Math.round), ratios: ratios.map(r3),
		ratio_median: r3(median(ratios)),
		ratio_mean: r3(ratios.reduce((a, b) => a + b, 0) / ratios.length) }));
	process.exit(0);
})();
