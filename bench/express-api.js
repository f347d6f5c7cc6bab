'use strict';
// The express server that bench/requests-cost.js and bench/twin-cost.js measure, with its
// upstream and its load, so that both measure the same thing: small JSON answers, one request
// in ten awaiting a fetch to an upstream in another process (which answers after 2 ms), under
// autocannon in a third. express and autocannon come from NODE_PATH.
const http = require('http');

// The upstream: sends its port to the parent process.
exports.upstream = () => {
	http.createServer((q, s) => setTimeout(() => s.end('{"ok":true}'), 2)).listen(0, '127.0.0.1',
		function () { process.send(this.address().port); });
};

// The load: CONNECTIONS connections on each of PORTS for SECS; the process exits when all are
// done (status 0) or one fails (1).
exports.load = (ports, connections, secs) => {
	const autocannon = require('autocannon');
	const requests = [];
	for (let i = 0; i < 10; i++)
		requests.push({ method: 'GET', path: i === 9 ? '/report' : `/api/items/${i * 37}` });
	let left = ports.length;
	for (const port of ports)
		autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: secs, requests },
			(err) => { if (err || --left === 0) process.exit(err ? 1 : 0); });
};

// The server's app, its upstream on UP_PORT; served() is called for each request answered.
exports.app = (upPort, served) => {
	const express = require('express');
	const app = express(), api = express.Router();
	api.get('/items/:id', (q, s) => { served(); s.json({ id: q.params.id, name: 'item ' + q.params.id, tags: ['a', 'b'] }); });
	app.use('/api', api);
	app.get('/report', async (q, s) => {
		const r = await fetch(`http://127.0.0.1:${upPort}/`);
		await r.text();
		served();
		s.json({ ok: true });
	});
	return app;
};
