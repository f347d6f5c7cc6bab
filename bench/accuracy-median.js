// Merges several no-inlining references of one program and version (bench/accuracy.sh -k, one
// directory per run) into one: each function's share the median of the runs (0 where a run
// has none), so that one run's chance does not become the fixture. A TypeScript reference of
// Node 24 read getNodeLinks at 3.5 % once and 6.3-7.5 % in three later runs.
//   node bench/accuracy-median.js OUT.json RUN1.json RUN2.json RUN3.json ...
'use strict';
const fs = require('fs');
const [out, ...runs] = process.argv.slice(2);
if (!out || runs.length < 2) {
	console.error('usage: node bench/accuracy-median.js OUT.json RUN1.json RUN2.json [...]');
	process.exit(2);
}
const refs = runs.map(f => JSON.parse(fs.readFileSync(f, 'utf8')));
const median = v => {
	const s = [...v].sort((a, b) => a - b), m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const keys = new Set(refs.flatMap(r => Object.keys(r.shares)));
const shares = {};
for (const k of keys)
	shares[k] = Number(median(refs.map(r => r.shares[k] || 0)).toFixed(3));
const first = refs[0];
fs.writeFileSync(out, JSON.stringify({
	program: first.program, label: first.label, node: first.node,
	made_by: `bench/accuracy.sh -k, ${refs.length} runs, per-function median by bench/accuracy-median.js`,
	samples: refs.map(r => r.samples), busy_ms: refs.map(r => r.busy_ms),
	profile_start_time: refs.map(r => r.profile_start_time),
	shares: Object.fromEntries(Object.entries(shares).filter(([, v]) => v >= 0.05)
		.sort((a, b) => b[1] - a[1])),
}) + '\n');
