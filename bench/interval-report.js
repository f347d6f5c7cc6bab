#!/usr/bin/env node
'use strict';
// interval-report.js TARGET.jsonl PHASES: the tables of bench/interval.sh (see there).
// PHASES has one line per phase: ROUND INTERVAL on|off FIRST_LINE LAST_LINE NTOP_JSONL, where
// lines FIRST_LINE+1..LAST_LINE of the target's per-second lines belong to the phase.
const fs = require('fs');
const [tfile, pfile] = process.argv.slice(2);
const lines = fs.readFileSync(tfile, 'utf8').split('\n').filter((l) => l.includes('"t":')).map((l) => JSON.parse(l));
const phases = fs.readFileSync(pfile, 'utf8').trim().split('\n').map((l) => {
	const [round, iv, ph, a, b, j] = l.split(' ');
	return { round: +round, iv: +iv, ph, a: +a, b: +b, j };
});
const med = (v) => { const s = [...v].sort((x, y) => x - y), n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };
const p95 = (v) => { const s = [...v].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]; };
const sum = (v) => v.reduce((x, y) => x + y, 0);
function perCpu(p) {
	const L = lines.slice(p.a, p.b);
	return 1000 * sum(L.map((l) => l.ops)) / sum(L.map((l) => l.cpu_ms));
}
function perWall(p) {
	const L = lines.slice(p.a, p.b);
	return 1000 * sum(L.map((l) => l.ops)) / sum(L.map((l) => l.dt_ms));
}
const key = (f) => `${f.function} ${f.url}:${f.line}`;
function windows(file) { // per window: Map key -> share of busy time; the first 2 windows left out
	return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).slice(2).map((w) => {
		const busy = w.window_ms * (w.cpu.js_pct + w.cpu.gc_pct + w.cpu.program_pct) / 100;
		const m = new Map(w.top.map((f) => [key(f), 100 * f.self_ms / busy]));
		m.set('(garbage collector)', 100 * w.window_ms * w.cpu.gc_pct / 100 / busy);
		m.set('_busy', busy);
		m.set('_samples', w.samples);
		return m;
	});
}
const ivs = [...new Set(phases.map((p) => p.iv))].sort((x, y) => x - y);
// The truth: all windows of the smallest interval, weighted by their busy time.
const truthW = phases.filter((p) => p.iv === ivs[0] && p.ph === 'on').flatMap((p) => windows(p.j));
const tot = new Map();
let busyAll = 0;
for (const w of truthW) {
	const b = w.get('_busy');
	busyAll += b;
	for (const [k, v] of w) if (!k.startsWith('_')) tot.set(k, (tot.get(k) || 0) + v * b);
}
const truth = [...tot.entries()].map(([k, v]) => [k, v / busyAll]).sort((x, y) => y[1] - x[1]).slice(0, 5);
console.log(`truth (-i ${ivs[0]}, ${truthW.length} windows): ` +
	truth.map(([k, v]) => `${k.replace(/ (?:file:\/\/)?\/.*\/([^/]+:\d+)$/, ' $1')} ${v.toFixed(1)} %`).join(', '));
console.log('');
console.log('| -i (us) | samples per window (median) | requests per CPU s, % of without (median of rounds) | per wall s, % | top-5 share error of a 1 s window, points: median | p95 |');
console.log('|---|---|---|---|---|---|');
for (const iv of ivs) {
	const rounds = [...new Set(phases.map((p) => p.round))];
	const rc = [], rw = [];
	for (const r of rounds) {
		const on = phases.find((p) => p.round === r && p.iv === iv && p.ph === 'on');
		const off = phases.find((p) => p.round === r && p.iv === iv && p.ph === 'off');
		if (!on || !off) continue;
		rc.push(100 * perCpu(on) / perCpu(off));
		rw.push(100 * perWall(on) / perWall(off));
	}
	const ws = phases.filter((p) => p.iv === iv && p.ph === 'on').flatMap((p) => windows(p.j));
	const errs = ws.map((w) => Math.max(...truth.map(([k, v]) => Math.abs((w.get(k) || 0) - v))));
	console.log(`| ${iv} | ${med(ws.map((w) => w.get('_samples')))} | ${med(rc).toFixed(1)} (${rc.map((x) => x.toFixed(0)).join(' ')}) |` +
		` ${med(rw).toFixed(1)} | ${med(errs).toFixed(1)} | ${p95(errs).toFixed(1)} |`);
}
