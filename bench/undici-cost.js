'use strict';
// What undici's diagnostics_channel channels cost a fetch once something subscribes to them
// (doc/benchmarks.md section 21): fetches to a local server (in a child process, so that its
// CPU is not counted) from this process, in phases that alternate between no subscriber and
// empty subscribers on a set of channels; the measure is fetches per CPU second of this
// process, each phase against the "none" phase of its round.
//
// Usage: node bench/undici-cost.js [ROUNDS] [PHASE_SECS] [CONCURRENCY]
const dc = require('diagnostics_channel');
const { fork } = require('child_process');

if (process.argv[2] === 'server') {
	const srv = require('http').createServer((q, r) => r.end('ok'));
	srv.keepAliveTimeout = 60000;
	srv.listen(0, '127.0.0.1', () => process.send(srv.address().port));
	return;
}

const rounds = +process.argv[2] || 6;
const phaseS = +process.argv[3] || 3;
const conc = +process.argv[4] || 4;
const SETS = {
	none: [],
	create: ['undici:request:create'],
	headers: ['undici:request:headers'],
	error: ['undici:request:error'],
	all3: ['undici:request:create', 'undici:request:headers', 'undici:request:error'],
};
const noop = () => {};

async function phase(url, names) {
	for (const n of names)
		dc.channel(n).subscribe(noop);
	const end = Date.now() + phaseS * 1000, c0 = process.cpuUsage();
	let count = 0;
	async function worker() {
		while (Date.now() < end) {
			const r = await fetch(url);
			await r.text();
			count++;
		}
	}
	await Promise.all(Array.from({ length: conc }, worker));
	const c = process.cpuUsage(c0);
	for (const n of names)
		dc.channel(n).unsubscribe(noop);
	return count / ((c.user + c.system) / 1e6);
}

const median = (a) => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

(async () => {
	const child = fork(__filename, ['server'], { stdio: 'inherit' });
	const port = await new Promise((res) => child.once('message', res));
	const url = `http://127.0.0.1:${port}/`;
	await phase(url, []); // warm
	const ratios = Object.fromEntries(Object.keys(SETS).filter((k) => k !== 'none').map((k) => [k, []]));
	const base = [];
	for (let r = 0; r < rounds; r++) {
		const order = Object.keys(SETS).filter((k) => k !== 'none');
		for (const k of order) {
			const b = await phase(url, SETS.none);
			const w = await phase(url, SETS[k]);
			base.push(b);
			ratios[k].push(w / b);
		}
	}
	child.kill();
	console.log(`node ${process.version}, ${rounds} rounds of ${phaseS} s phases, ${conc} at once: ` +
		`${median(base).toFixed(0)} fetches per CPU second with no subscriber (median)`);
	for (const [k, v] of Object.entries(ratios))
		console.log(`${k.padEnd(8)} ${(100 * median(v)).toFixed(1)} % (rounds ${v.map((x) =>
			(100 * x).toFixed(0)).join(', ')})`);
})();
