'use strict';
// Load for tests/targets/http.js: CONNS loops, each requesting /api/items/N, /report and /fail
// in turn for SECS seconds, PAUSE ms apart (0 by default). Usage: node http-load.js PORT CONNS
// SECS [PAUSE]
const http = require('http');
const [port, conns, secs, pause = 0] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true });
const paths = ['/api/items/1', '/api/items/22', '/report', '/fail'];
const end = Date.now() + secs * 1000;
const get = (p) => new Promise((ok) => http.get({ host: '127.0.0.1', port, path: p, agent }, (r) => {
	r.resume();
	r.on('end', ok);
}).on('error', ok));
for (let c = 0; c < conns; c++)
	(async () => {
		for (let i = c; Date.now() < end; i++) {
			await get(paths[i % paths.length]);
			if (pause) await new Promise((ok) => setTimeout(ok, pause));
		}
	})();
