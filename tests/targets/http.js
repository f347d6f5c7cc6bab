'use strict';
// An express 5 server, or with "fastify" a fastify 5 one (from NODE_PATH, pinned by bench/npm),
// for the requests tests. Routes:
//   GET /api/items/:id  answers after a 20 ms timer (mounted under /api)
//   GET /report         calls the upstream (GET /slow, 50 ms) with http.get, then with fetch
//   GET /fail           503
//   GET /subs           whether anything subscribes to the HTTP channels ntop-js uses
// plus /slow itself on a second server (the upstream). Prints {"event":"ready","port":P}.
// Usage: node http.js [express|fastify]
const http = require('http'), dc = require('diagnostics_channel');

const upstream = http.createServer((q, s) => setTimeout(() => s.end('slow'), 50)).listen(0, '127.0.0.1');
const up = () => `http://127.0.0.1:${upstream.address().port}/slow`;
// http.get, then fetch, one after the other
const callUpstream = () => new Promise((ok, fail) => {
	http.get(up(), (r) => {
		r.resume();
		r.on('end', () => fetch(up()).then((x) => x.text()).then(ok, fail));
	}).on('error', fail);
});
const subs = () => ['http.server.request.start', 'http.server.response.finish',
	'http.client.request.start', 'undici:request:create',
	'tracing:fastify.request.handler:start'].map((n) => dc.channel(n).hasSubscribers);
const ready = (port) => console.log(JSON.stringify({ event: 'ready', port }));

if (process.argv[2] === 'fastify') {
	const app = require('fastify')();
	app.register(async (api) => {
		api.get('/items/:id', (q, s) => { setTimeout(() => s.send({ id: q.params.id }), 20); });
	}, { prefix: '/api' });
	app.get('/report', async () => { await callUpstream(); return { ok: true }; });
	app.get('/fail', (q, s) => { s.code(503).send(); });
	app.get('/subs', async () => subs());
	app.listen({ port: 0, host: '127.0.0.1' }).then(() => ready(app.server.address().port));
} else {
	const express = require('express');
	const app = express(), api = express.Router();
	api.get('/items/:id', (q, s) => setTimeout(() => s.json({ id: q.params.id }), 20));
	app.use('/api', api);
	app.get('/report', (q, s, next) => callUpstream().then(() => s.json({ ok: true }), next));
	app.get('/fail', (q, s) => s.status(503).end());
	app.get('/subs', (q, s) => s.json(subs()));
	const srv = app.listen(0, '127.0.0.1', () => ready(srv.address().port));
}
