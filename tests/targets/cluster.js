// A clustered HTTP server for the several-processes tests: node's cluster module, a primary
// that only forks and a few workers that each price orders (priceOrder, a little CPU per
// request) on one shared port. No inspector flag anywhere: every process opens its inspector
// on SIGUSR1, all on the default port.
//   node cluster.js [WORKERS]   the workers share a free loopback port; prints "worker PID"
//                               for each once it listens, then "ready PID PORT" (the
//                               primary's PID). A worker that exits is forked again, as
//                               cluster managers (PM2, throng) do.
'use strict';
const cluster = require('cluster');
const http = require('http');
const workers = Number(process.argv[2] || 4);

function priceOrder(n) {
	let total = 0;
	for (let line = 0; line < n; line++) {
		let price = (line * 2654435761) % 1000;
		for (let k = 0; k < 200; k++)
			price = (price * 31 + k) % 100003;
		total += price;
	}
	return total;
}

if (cluster.isPrimary) {
	let up = 0;
	cluster.on('listening', (w, address) => {
		console.log('worker', w.process.pid);
		if (++up === workers)
			console.log('ready', process.pid, address.port);
	});
	cluster.on('exit', () => cluster.fork());
	for (let i = 0; i < workers; i++)
		cluster.fork();
} else {
	http.createServer((req, res) => res.end(String(priceOrder(400)))).listen(0, '127.0.0.1');
}
