'use strict';
// Load for tests/targets/http.js: CONNS loops, each requesting /api/items/N, /report and /fail
// in turn for SECS seconds, PAUSE ms apart (0 by default). On SIGTERM or at the end it prints
// what it measured itself, per route: {"event":"latency","routes":{"/api/items/:id":
// {"n":..,"p50_ms":..,"p99_ms":..}, ...}}, the reference for ntop-js's figures.
// Usage: node http-load.js PORT CONNS SECS [PAUSE]
const http = require('http');
const [port, conns, secs, pause = 0] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true });
const paths = ['/api/items/1', '/api/items/22', '/report', '/fail'];
const route = (p) => p.replace(/\/[0-9]+$/, '/:id');
const took = new Map();
const end = Date.now() + secs * 1000;
const get = (p) => new Promise((ok) => {
	const t0 = performance.now();
	http.get({ host: '127.0.0.1', port, path: p, agent }, (r) => {
		r.resume();
		r.on('end', () => {
			const k = route(p);
			if (!took.has(k))
				took.set(k, []);
			took.get(k).push(performance.now() - t0);
			ok();
		});
	}).on('error', ok);
});
const report = () => {
	const routes = {};
	for (const [k, v] of took) {
		v.sort((a, b) => a - b);
		const q = (x) => v[Math.min(v.length - 1, Math.ceil(x * v.length) - 1)];
		routes[k] = { n: v.length, p50_ms: +q(0.5).toFixed(2), p99_ms: +q(0.99).toFixed(2) };
	}
	console.log(JSON.stringify({ event: 'latency', routes }));
};
process.on('SIGTERM', () => { report(); process.exit(0); });
let running = conns;
for (let c = 0; c < conns; c++)
	(async () => {
		for (let i = c; Date.now() < end; i++) {
			await get(paths[i % paths.length]);
			if (pause) await new Promise((ok) => setTimeout(ok, pause));
		}
		if (--running === 0) report();
	})();
