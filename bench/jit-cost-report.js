#!/usr/bin/env node
'use strict';
// jit-cost-report.js: the numbers of bench/jit-cost.sh for one target process (see there).
//   --lines FILE    the target's output (its per-second lines have "t", "ops", "cpu_ms")
//   --phases FILE   a line per phase, in order: NAME FIRST LAST (1-based, inclusive, counting
//                   per-second lines only); U0 A1 U1 A2 ... U<rounds>
//   --skip N        seconds left out at the start of an attached phase
//   --first N, --late N   the after-phase windows: seconds 1..first and 5..late
//   --row 'TARGET|NODE|CANDIDATE|PROBLEMS'  the summary row's first cells
//   --results FILE  append the summary row (markdown) to FILE
// A rate is ops per CPU second of the target over a span of seconds: its ops over its CPU
// time (so a slow second weighs as much as it cost; tsc finishes about one check a second).
// Prints each phase's rates.
const fs = require('fs');

const arg = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) arg[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const lines = fs.readFileSync(arg.lines, 'utf8').split('\n').filter((l) => l.includes('"t":')).map((l) => JSON.parse(l));
const phases = fs.readFileSync(arg.phases, 'utf8').trim().split('\n').map((l) => {
	const [name, from, to] = l.split(' ');
	return { name, span: lines.slice(+from - 1, +to), from: +from, to: +to };
});
const skip = +arg.skip, first = +arg.first, late = +arg.late;

const add = (v) => v.reduce((x, y) => x + y, 0);
const rate = (span) => 1000 * add(span.map((l) => l.ops)) / add(span.map((l) => l.cpu_ms));
const median = (v) => {
	const s = [...v].sort((x, y) => x - y), n = s.length;
	return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const digits = (x) => x.toFixed(x < 100 ? 2 : 0);
const pct = (x) => (100 * x).toFixed(1);

const u0 = rate(phases[0].span);
const attached = [], after1 = [], after2 = [];
let before = u0;
for (const p of phases) {
	const where = `  ${p.name} (lines ${p.from}-${p.to})`;
	if (p.name.startsWith('A')) {
		const r = rate(p.span.slice(skip)) / before;
		attached.push(r);
		console.log(`${where}: s ${skip + 1}-${p.span.length}: ${digits(rate(p.span.slice(skip)))} ops/CPU-s,` +
			` ${pct(r)} % of the U before`);
		continue;
	}
	const all = rate(p.span), a = rate(p.span.slice(0, first)), b = rate(p.span.slice(4, late));
	let tail = '';
	if (p.name !== 'U0') {
		after1.push(a / u0);
		after2.push(b / u0);
		tail = ` (${pct(a / u0)} and ${pct(b / u0)} % of U0)`;
	}
	console.log(`${where}: ${digits(all)} ops/CPU-s; s 1-${first}: ${digits(a)}, s 5-${late}: ${digits(b)}${tail}`);
	before = all;
}
const cell = (v) => `${pct(median(v))} % (${v.map((x) => (100 * x).toFixed(0)).join(', ')})`;
const [target, node, cand, problems] = arg.row.split('|');
fs.appendFileSync(arg.results, `| ${target} | ${node} | ${cand} | ${digits(u0)} | ${cell(attached)} | ${cell(after1)} |` +
	` ${cell(after2)} | ${problems === 'no' ? 'ok' : 'MISBEHAVED'} |\n`);
