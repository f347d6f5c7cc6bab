'use strict';
// Load generator for express-app.js: autocannon (from NODE_PATH) cycling through the four
// routes on a fixed number of connections for a bounded time. Prints autocannon's summary
// as one JSON line: {"requests_per_s":..,"requests":..,"errors":..,"non2xx":..}.
//
// Usage: node load.js URL CONNECTIONS SECONDS
const autocannon = require('autocannon');
const [url, conns, secs] = process.argv.slice(2);
if (!url || !(Number(conns) > 0) || !(Number(secs) > 0)) {
	process.stderr.write('usage: node load.js URL CONNECTIONS SECONDS\n');
	process.exit(2);
}
autocannon({
	url, connections: Number(conns), duration: Number(secs), pipelining: 1,
	requests: ['/json', '/render', '/hash', '/sort'].map((path) => ({ method: 'GET', path })),
}, (err, r) => {
	if (err) { process.stderr.write(`load.js: ${err.message}\n`); process.exit(1); }
	console.log(JSON.stringify({ requests_per_s: r.requests.average, requests: r.requests.total,
		errors: r.errors, non2xx: r.non2xx }));
});
