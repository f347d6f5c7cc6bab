#!/usr/bin/env node
'use strict';
// accuracy-compare.js: self-time shares of the hot functions, ntop-js against a reference.
//
// usage: node accuracy-compare.js --label TEXT --ref PROFILE [--ref-default PROFILE]
//          --ntop FILE.jsonl [--ntop-profile PROFILE] [--skip-windows N]
//          [--top N] [--worst K] [--json-out FILE] [--ref-shares-out FILE --program NAME]
// where PROFILE is FILE.cpuprofile:T0:T1, T0 and T1 in V8's monotonic clock (microseconds,
// the clock of process.hrtime in the target): only the samples between T0 and T1 count.
//
// Shares are of the busy time: every sample except (idle), i.e. JavaScript, (garbage
// collector) and (program). Functions are matched by name + url + 1-based line.
//   --ref           the reference: a from-start `node --cpu-prof` profile
//   --ref-default   a second from-start profile (default flags) shown as one more column
//   --ntop          ntop-js -b --json output: every window but the first --skip-windows
//                   (default 1: the attach) counts; a function's time is the sum of its
//                   self_ms, and the busy time the sum of window_ms x (js_pct + gc_pct +
//                   program_pct) / 100
//   --ntop-profile  ntop-js -o output
// Prints a table of the reference's top N functions (default 8), then, marked +, those of
// ntop-js's top N that are not among them (where misplaced time went), and a line
// "top-K share error: max X points" for K = --worst (default 5); --json-out appends a JSON
// summary line. --ref-shares-out writes the reference's shares (every function over 0.05 %
// of the busy time, urls cut to the file name so that they hold on any machine) as the
// fixture that tests/integration/real_tsc.sh compares a live attach with.
const fs = require('fs');

const a = { top: 8, worst: 5 };
for (let i = 2; i < process.argv.length; i++) {
	const k = process.argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
	a[k] = process.argv[++i];
}
for (const k of ['ref'])
	if (a[k] === undefined) { process.stderr.write(`accuracy-compare.js: --${k} is needed\n`); process.exit(2); }
const TOP = Number(a.top), WORST = Number(a.worst);

// ntop-js shows file:// URLs as paths, and no line (null) where V8 has none (-1 + 1 = 0).
const key = (name, url, line) =>
	`${name || '(anonymous)'} ${(url || '').replace(/^file:\/\//, '')}:${line == null || line < 1 ? '' : line}`;
const NAMED = new Set(['(native code)', '(evaluated code)']);
const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

// Self time per key of a .cpuprofile, only samples inside [T0, T1].
function profileShares(spec) {
	const m = /^(.*):(\d+):(\d+)$/.exec(spec);
	if (!m) { process.stderr.write(`accuracy-compare.js: ${spec} is not FILE:T0:T1\n`); process.exit(2); }
	const file = m[1], T0 = Number(m[2]), T1 = Number(m[3]);
	const p = JSON.parse(fs.readFileSync(file, 'utf8'));
	const byId = new Map(p.nodes.map((n) => [n.id, n]));
	const self = new Map();
	let busy = 0, t = p.startTime, n = 0;
	for (let i = 0; i < p.samples.length; i++) {
		t += p.timeDeltas[i];
		if (t < T0 || t > T1) continue;
		const d = p.timeDeltas[i]; // as tests/check-cpuprofile.js weighs samples
		const cf = byId.get(p.samples[i]).callFrame;
		if (cf.functionName === '(idle)') continue;
		const k = SPECIAL.has(cf.functionName) ? cf.functionName : key(cf.functionName, cf.url, cf.lineNumber + 1);
		self.set(k, (self.get(k) || 0) + d);
		busy += d;
		n++;
	}
	return { self, busy, samples: n };
}

function ntopShares(file) {
	const self = new Map();
	let busy = 0, windows = 0;
	for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
		if (!l.trim()) continue;
		const w = JSON.parse(l);
		windows++;
		if (windows <= Number(a.skipWindows || 1)) continue;
		const c = w.cpu;
		busy += w.window_ms * (c.js_pct + c.gc_pct + c.program_pct) / 100;
		self.set('(garbage collector)', (self.get('(garbage collector)') || 0) + w.window_ms * c.gc_pct / 100);
		self.set('(program)', (self.get('(program)') || 0) + w.window_ms * c.program_pct / 100);
		for (const f of w.top) {
			if (SPECIAL.has(f.function)) continue;
			// Newer ntop-js names V8's nameless native and evaluated frames; the profiles
			// leave the name empty.
			const name = NAMED.has(f.function) && !f.url ? '' : f.function;
			const k = key(name, f.url, f.line);
			self.set(k, (self.get(k) || 0) + f.self_ms);
		}
	}
	return { self, busy, samples: windows - Number(a.skipWindows || 1) };
}

const pct = (s, k) => (s.busy > 0 ? (100 * (s.self.get(k) || 0)) / s.busy : NaN);
const ref = profileShares(a.ref);
const refd = a.refDefault ? profileShares(a.refDefault) : null;
const nt = a.ntop ? ntopShares(a.ntop) : null;
const ntp = a.ntopProfile ? profileShares(a.ntopProfile) : null;

if (a.refSharesOut) {
	const m = /^(.*):(\d+):(\d+)$/.exec(a.ref);
	const p = JSON.parse(fs.readFileSync(m[1], 'utf8'));
	const shares = {};
	for (const [k, v] of [...ref.self.entries()].sort((x, y) => y[1] - x[1])) {
		const pc = (100 * v) / ref.busy;
		if (pc >= 0.05) shares[k.replace(/ (?:file:\/\/)?\/.*\/([^/]*:\d*)$/, ' $1')] = +pc.toFixed(3);
	}
	fs.writeFileSync(a.refSharesOut, JSON.stringify({
		program: a.program || null, label: a.label || null, node: a.node || null,
		made_by: 'bench/accuracy.sh -k', samples: ref.samples, busy_ms: Math.round(ref.busy / 1000),
		profile_start_time: p.startTime, shares }, null, 1) + '\n');
}

const ranked = [...ref.self.entries()].sort((x, y) => y[1] - x[1]).slice(0, TOP).map(([k]) => k);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const cols = ['#', 'function (url:line)', 'ref %'];
if (refd) cols.push('ref-default %');
if (nt) cols.push('ntop-js %', 'err');
if (ntp) cols.push('-o %', 'err');
console.log(`${a.label || ''}: reference ${ref.samples} samples` + (nt ? `, ntop-js ${nt.samples} windows` : '') +
	`${ntp ? `, -o ${ntp.samples} samples` : ''}; shares of busy time (no idle)`);
console.log(`| ${cols.join(' | ')} |`);
console.log(`|${cols.map(() => '---').join('|')}|`);
const errs = { ntop: [], prof: [], ntopDef: [] };
ranked.forEach((k, i) => {
	const r = pct(ref, k), n = nt ? pct(nt, k) : NaN;
	const row = [i + 1, k.replace(/^(.*) (?:file:\/\/)?\/.*\/([^/]+:\d+)$/, '$1 $2'), f1(r)];
	if (refd) row.push(f1(pct(refd, k)));
	if (nt) row.push(f1(n), f1(n - r));
	errs.ntop.push(Math.abs(n - r));
	if (refd) errs.ntopDef.push(Math.abs(n - pct(refd, k)));
	if (ntp) {
		const q = pct(ntp, k);
		row.push(f1(q), f1(q - r));
		errs.prof.push(Math.abs(q - r));
	}
	console.log(`| ${row.join(' | ')} |`);
});
if (!nt) process.exit(0);
// Where the time went instead: ntop-js's own top functions that are not in the list.
if (nt) {
	const shown = new Set(ranked);
	const theirs = [...nt.self.entries()].sort((x, y) => y[1] - x[1]).slice(0, TOP).map(([k]) => k);
	for (const k of theirs.filter((x) => !shown.has(x))) {
		const r = pct(ref, k), n = pct(nt, k);
		const row = ['+', k.replace(/^(.*) (?:file:\/\/)?\/.*\/([^/]+:\d+)$/, '$1 $2'), f1(r)];
		if (refd) row.push(f1(pct(refd, k)));
		row.push(f1(n), f1(n - r));
		if (ntp) row.push(f1(pct(ntp, k)), f1(pct(ntp, k) - r));
		console.log(`| ${row.join(' | ')} |`);
	}
}
const maxOf = (v) => Math.max(...v.slice(0, WORST));
const summary = { label: a.label, ntop_max_err: +maxOf(errs.ntop).toFixed(1),
	profile_max_err: ntp ? +maxOf(errs.prof).toFixed(1) : null,
	ntop_max_err_vs_default: refd ? +maxOf(errs.ntopDef).toFixed(1) : null,
	ref_default_max_diff: refd ? +Math.max(...ranked.slice(0, WORST).map((k) => Math.abs(pct(refd, k) - pct(ref, k)))).toFixed(1) : null };
console.log(`${a.label || ''}: top-${WORST} share error: max ${summary.ntop_max_err} points (-b --json)` +
	(ntp ? `, max ${summary.profile_max_err} points (-o .cpuprofile)` : '') +
	(refd ? `; against the default-flags reference: max ${summary.ntop_max_err_vs_default} points` +
		` (the two references differ by max ${summary.ref_default_max_diff})` : ''));
if (a.jsonOut) fs.appendFileSync(a.jsonOut, JSON.stringify(summary) + '\n');
