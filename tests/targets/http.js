'use strict';
// An express 5 server (from NODE_PATH, pinned by bench/npm) for the requests tests. Routes:
//   GET /api/items/:id  answers after a 20 ms timer (mounted under /api)
//   GET /report         calls the upstream (GET /slow, 50 ms) with http.get, then with fetch
//   GET /fail           503
//   GET /subs           whether anything subscribes to the HTTP channels ntop-js uses
// plus /slow itself on a second server (the upstream). Prints {"event":"ready","port":P}.
const http = require('http'), dc = require('diagnostics_channel');
const express = require('express');

const upstream = http.createServer((q, s) => setTimeout(() => s.end('slow'), 50)).listen(0, '127.0.0.1');
const app = express(), api = express.Router();
api.get('/items/:id', (q, s) => setTimeout(() => s.json({ id: q.params.id }), 20));
app.use('/api', api);
app.get('/report', (q, s, next) => {
	const up = `http://127.0.0.1:${upstream.address().port}/slow`;
	http.get(up, (r) => {
		r.resume();
		r.on('end', () => fetch(up).then((x) => x.text()).then(() => s.json({ ok: true }), next));
	}).on('error', next);
});
app.get('/fail', (q, s) => s.status(503).end());
app.get('/subs', (q, s) => s.json(['http.server.request.start', 'http.server.response.finish',
	'http.client.request.start', 'undici:request:create'].map((n) => dc.channel(n).hasSubscribers)));
const srv = app.listen(0, '127.0.0.1', () =>
	console.log(JSON.stringify({ event: 'ready', port: srv.address().port })));
