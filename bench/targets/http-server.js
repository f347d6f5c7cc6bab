'use strict';
// Benchmark target: a minimal HTTP server on 127.0.0.1 that does a little CPU work per
// request (a few tens of microseconds: hash the path, build and serialise a small JSON
// body), to be loaded with wrk.
//
// Usage: node http-server.js [PORT]      (PORT 0 or absent: pick a free port)
// Prints one JSON line when listening: {"event":"ready","pid":..,"port":..}
// No npm dependencies; plain `node` (no flags) so that tools can attach by SIGUSR1.

const http = require('http');

const port_arg = process.argv[2] === undefined ? 0 : Number(process.argv[2]);
if (!Number.isInteger(port_arg) || port_arg < 0 || port_arg > 65535) {
	process.stderr.write('usage: node http-server.js [PORT]\n');
	process.exit(2);
}

function hashPath(path) {
	let h = 0x811c9dc5;
	for (let round = 0; round < 16; round++) {
		for (let i = 0; i < path.length; i++) {
			h ^= path.charCodeAt(i) + round;
			h = Math.imul(h, 0x01000193);
		}
	}
	return h >>> 0;
}

function buildBody(path, h) {
	const items = [];
	for (let i = 0; i < 20; i++) items.push({ id: (h + i) & 0xffff, score: ((h >>> i) & 0xff) / 255 });
	items.sort((a, b) => b.score - a.score);
	return JSON.stringify({ path, hash: h, top: items.slice(0, 5) });
}

const server = http.createServer((req, res) => {
	const body = buildBody(req.url, hashPath(req.url));
	res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
	res.end(body);
});
server.keepAliveTimeout = 60_000;

server.listen(port_arg, '127.0.0.1', () => {
	const line = JSON.stringify({ event: 'ready', pid: process.pid, port: server.address().port });
	process.stdout.write(line + '\n');
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
