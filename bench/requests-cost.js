'use strict';
// What following HTTP requests costs an express server at its full rate: one process serves
// a light API (small JSON answers; one request in ten awaits a call to an upstream by fetch)
// under autocannon, and phases without and with ntop-js's requests reading alternate in it
// (A B B A, so that a drift cancels), the reading installed, read every second and removed
// exactly as the engine does it (bench/requests-expr.js). The server counts its requests and
// its own CPU time; a phase's rate is requests per CPU second. The load generator and the
// upstream run in other processes.
//
// Usage: node requests-cost.js [ROUNDS] [PHASE_S]   (express and autocannon on NODE_PATH;
//        NTOP_REQ_DROP and NTOP_REQ_SUBST change the reading, below)
//        node requests-cost.js micro               (the subscribers' own ns a request)
// Prints one JSON line: {node, context, rounds, phase_s, off: [...], on: [...], ratio_median,
// ratio_mean, ratios: [...]} where the ratios are each round's on/off.
const { fork } = require('child_process');

// the children go with the parent, whatever ends it
if (process.argv[2] === 'upstream' || process.argv[2] === 'load')
	process.on('disconnect', () => process.exit(0));
const api = require('./express-api.js');
if (process.argv[2] === 'upstream') {
	api.upstream();
	return;
}
if (process.argv[2] === 'load') {
	api.load([Number(process.argv[3])], 8, Number(process.argv[4]));
	return;
}

if (process.argv[2] === 'micro') {
	// The subscribers' own work: the server channels published from a loop with messages
	// shaped as Node's (express's req.route and baseUrl set), without and with the reading
	// installed; ns a request (a start and a finish).
	const { reading, leave } = require('./requests-expr.js');
	globalThis.require = require;
	const dc = require('diagnostics_channel');
	const start = dc.channel('http.server.request.start'), finish = dc.channel('http.server.response.finish');
	const route = { path: '/items/:id' };
	const msgs = Array.from({ length: 1000 }, (_, i) => ({
		request: { method: 'GET', url: '/api/items/' + i, route, baseUrl: '/api' },
		response: { statusCode: 200, destroyed: false } }));
	const run = (n) => {
		const t = process.hrtime.bigint();
		for (let i = 0; i < n; i++) {
			start.publish(msgs[i % 1000]);
			finish.publish(msgs[i % 1000]);
		}
		return Number(process.hrtime.bigint() - t) / n;
	};
	run(1e5);
	const without = run(1e6);
	const v = JSON.parse((0, eval)(reading('micro')));
	run(1e5);
	const withIt = run(1e6);
	(0, eval)(leave('micro'));
	console.log(JSON.stringify({ node: process.version, context: v.ctx, ns_without: Math.round(without),
		ns_with: Math.round(withIt) }));
	process.exit(0);
}

const expr = require('./requests-expr.js');
// Variants of the reading, for finding where its cost is (doc/benchmarks.md section 21):
// NTOP_REQ_DROP, channel names the reading does not subscribe to (comma-separated);
// NTOP_REQ_SUBST, a JSON list of [from, to] replacements in its expression (each must match).
const drop = (process.env.NTOP_REQ_DROP || '').split(',').filter(Boolean);
const subst = JSON.parse(process.env.NTOP_REQ_SUBST || '[]');
const reading = (nonce) => drop.reduce((e, n) => e.split(`on('${n}',`).join(`(function(){})('${n}',`),
	subst.reduce((e, [from, to]) => {
		if (!e.includes(from))
			throw new Error(`NTOP_REQ_SUBST: not in the expression: ${from}`);
		return e.split(from).join(to);
	}, expr.reading(nonce)));
const leave = expr.leave;
// the inspector's evaluations see require (Node 18 to 20.15 have no getBuiltinModule); an
// indirect eval here runs in the same global scope, without it
globalThis.require = require;
// the children's output is not this process's: its stdout is the result line
const child = (args) => fork(__filename, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const rounds = Number(process.argv[2] || 10), phaseS = Number(process.argv[3] || 4);
const WARM_S = 5;

const up = child(['upstream']);
up.once('message', (upPort) => {
	let served = 0;
	const app = api.app(upPort, () => served++);
	const srv = app.listen(0, '127.0.0.1', async () => {
		// the load outlasts the phases with room to spare (each phase also installs, reads and
		// removes the reading, which the phase's own seconds do not count); it is stopped at
		// the end
		const total = Math.ceil((WARM_S + rounds * 2 * phaseS) * 1.2) + 10;
		const load = child(['load', srv.address().port, total]);
		const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
		await sleep(WARM_S * 1000);
		const off = [], on = [];
		let context = null;
		// one phase: its requests per CPU second
		const phase = async (withReading, n) => {
			const nonce = 'bench-' + n;
			let timer = null;
			if (withReading) {
				const v = JSON.parse((0, eval)(reading(nonce)));
				context = v.ctx;
				timer = setInterval(() => (0, eval)(reading(nonce)), 1000);
			}
			const c0 = process.cpuUsage(), r0 = served;
			await sleep(phaseS * 1000);
			const c = process.cpuUsage(c0), r = served - r0;
			if (timer) {
				clearInterval(timer);
				(0, eval)(leave(nonce));
			}
			return r / ((c.user + c.system) / 1e6);
		};
		for (let i = 0; i < rounds; i++) {
			// A B B A: without, with, with, without (by pairs of rounds)
			if (i % 2 === 0) {
				off.push(await phase(false, i));
				on.push(await phase(true, i));
			} else {
				on.push(await phase(true, i));
				off.push(await phase(false, i));
			}
		}
		const ratios = on.map((x, i) => x / off[i]), sorted = [...ratios].sort((a, b) => a - b);
		const r3 = (x) => Math.round(x * 1000) / 1000;
		console.log(JSON.stringify({ node: process.version, context, rounds, phase_s: phaseS,
			off: off.map(Math.round), on: on.map(Math.round),
			ratio_median: r3(sorted[Math.floor(sorted.length / 2)]),
			ratio_mean: r3(ratios.reduce((a, b) => a + b, 0) / ratios.length),
			ratios: ratios.map(r3) }));
		load.kill();
		up.kill();
		srv.close();
		process.exit(0);
	});
});
