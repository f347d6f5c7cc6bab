// A cluster for the tests of what ntop-js leaves open: node's cluster primary passes SIGUSR1
// on to its workers whenever its own inspector starts, so signalling the primary opens the
// workers' inspectors too. Every worker gets --inspect-port=0 (a free port when it opens, never
// 9229); the first OPEN workers also get --inspect, so theirs is open from the start, as a
// developer's would be. The workers only idle: no port of their own but the inspector.
//   node --inspect-port=0 cluster-open.js [WORKERS [OPEN]]
// prints "worker PID open" or "worker PID plain" as each comes online, then "ready PID" (the
// primary's) once the first WORKERS are; a worker that exits is forked again with the same
// options, and printed again.
'use strict';
const cluster = require('cluster');
const workers = Number(process.argv[2] || 2);
const open = Number(process.argv[3] || 0);

if (cluster.isPrimary) {
	const setup = cluster.setupPrimary || cluster.setupMaster;
	let up = 0;
	const fork = withInspect => {
		const args = process.execArgv.concat('--inspect-port=0');
		setup.call(cluster, { execArgv: withInspect ? args.concat('--inspect') : args, inspectPort: 0 });
		cluster.fork().withInspect = withInspect;
	};
	cluster.on('online', w => {
		console.log('worker', w.process.pid, w.withInspect ? 'open' : 'plain');
		if (++up === workers)
			console.log('ready', process.pid);
	});
	cluster.on('exit', w => fork(w.withInspect));
	for (let i = 0; i < workers; i++)
		fork(i < open);
	// Node passes the signal on from a listener that setupPrimary adds: a SIGUSR1 that came
	// before (ntop-js -- node ... signals as soon as Node's handler is in, which on a loaded
	// machine can be before this script runs) opened the primary's inspector with nobody to
	// tell the workers. Once they are online, tell them, as Node would have.
	let told = false;
	process.on('internalMessage', m => { told = told || (m && m.cmd === 'NODE_DEBUG_ENABLED'); });
	cluster.on('online', () => {
		if (up === workers && !told && require('inspector').url()) {
			told = true;
			process.emit('internalMessage', { cmd: 'NODE_DEBUG_ENABLED' });
		}
	});
} else {
	setInterval(() => {}, 1000);
}
