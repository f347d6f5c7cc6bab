// A server-like target whose work runs in worker threads, for the worker tests.
//   node pool.js pool     a piscina pool of 2 threads runs primeCount (pool-task.js) back to
//                         back; the main thread only waits for the results
//   node pool.js churn    the pool, and every 4 s a short-lived worker ("churner") that runs
//                         churnWork for 3 s and exits
//   node pool.js nested   the pool, and a worker ("outer") that starts a worker ("inner")
//                         running nestedWork without a pause
// Every thread prints "syms THREADID N" each second: N is how many ntop-js keys its
// globalThis holds (what ntop-js installs there, and must remove at detach; the one that
// stays, the count of the built-ins its deoptimizations used, Symbol.for('ntop-js.deopt'),
// is not counted). Prints "ready".
// piscina comes from NODE_PATH (bench/npm pins it).
'use strict';
const path = require('path');
const { Worker, isMainThread, threadId, workerData } = require('worker_threads');

function ntopKeys() {
	return Object.getOwnPropertySymbols(globalThis).filter((s) => String(s).includes('ntop-js') &&
		s !== Symbol.for('ntop-js.deopt')).length;
}
function reportKeys() {
	setInterval(() => console.log(`syms ${threadId} ${ntopKeys()}`), 1000).unref();
}
function spin(ms, f) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end) x += f(x);
	return x;
}
function churnWork(x) { return Math.sqrt(x + 1) % 7; }
function nestedWork(x) { return Math.cbrt(x + 2) % 5; }

if (!isMainThread) {
	reportKeys();
	if (workerData === 'churner') {
		spin(3000, churnWork);
	} else if (workerData === 'outer') {
		new Worker(__filename, { name: 'inner', workerData: 'inner' });
		setInterval(() => {}, 1000);
	} else if (workerData === 'inner') {
		const step = () => { spin(50, nestedWork); setTimeout(step, 1); };
		step();
	}
} else {
	const mode = process.argv[2] || 'pool';
	const Piscina = require('piscina');
	const pool = new Piscina({ filename: path.join(__dirname, 'pool-task.js'), minThreads: 2,
		maxThreads: 2, idleTimeout: 600000 });
	const submit = () => pool.run(30000).then(submit);
	submit();
	submit();
	reportKeys();
	setInterval(() => {}, 1000);
	if (mode === 'churn') {
		setInterval(() => new Worker(__filename, { name: 'churner', workerData: 'churner' }), 4000);
	} else if (mode === 'nested') {
		new Worker(__filename, { name: 'outer', workerData: 'outer' });
	} else if (mode !== 'pool') {
		console.error('usage: node pool.js pool|churn|nested');
		process.exit(2);
	}
	console.log('ready');
}
