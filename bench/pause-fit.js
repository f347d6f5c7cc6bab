'use strict';
// pause-fit.js: fits models that predict the pauses measured by bench/pause.sh from the cheap
// readings taken before them, and prints (Markdown) the table of runs, the coefficients and
// every run's prediction against its measurement.
//
//   node pause-fit.js RESULTS.jsonl [--validate OTHER.jsonl] [--json]
//
// --validate: also apply the coefficients fitted (on all versions) on RESULTS to the runs of
// OTHER (e.g. a repeat of some runs: an out-of-sample check), and show, for the runs of OTHER
// that repeat a run of RESULTS (same Node and sizes), how much the measurement itself moved.
//
// Pauses (the target's worst event-loop stall around the step, which is what users feel;
// the client's round trip where the stall is missing):
//   start  the first Profiler.enable + setSamplingInterval + Profiler.start
//   deopt  Profiler.startPreciseCoverage + stopPreciseCoverage with the profile running
//   deopt_rtt  the same, the client's round trip of both commands (an upper bound of the
//          stall: the two commands often run as two separate tasks, sometimes back to back)
//   stop   Profiler.stop
//   gc     the first HeapProfiler.collectGarbage
// Readings, in MB: heap = v8.getHeapStatistics().used_heap_size, bc =
// getHeapCodeStatistics().bytecode_and_metadata_size, code = code_and_metadata_size,
// used = Runtime.getHeapUsage().usedSize (the only one ntop-js --no-eval has).
// Models are linear, pause_ms = a + b*x1 + c*x2 ..., fitted by least squares on the relative
// error (weights 1/max(measured, FLOOR)^2: what matters is the ratio, and the pauses span 3 decades),
// coefficients of the readings kept >= 0 (a reading whose coefficient comes out negative is
// dropped and the model refitted). Fitted once over all versions and once per V8 major.
// Error of a run: predicted/measured - 1; "worst" is the largest |error|.
const fs = require('fs');

const file = process.argv[2];
const vi = process.argv.indexOf('--validate');
const vfile = vi > 0 ? process.argv[vi + 1] : null;
const asJson = process.argv.includes('--json');
const MB = 1048576;
// Pauses below FLOOR ms are within the noise of the stall measurement (the baseline's worst
// stall per second is 3 to 30 ms on this machine): they weigh as if they were FLOOR ms, and
// the errors are also given for the runs of FLOOR ms or more only.
const FLOOR = 20;
const load = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));

const val = (p) => (p.stall_ms !== null && p.stall_ms !== undefined ? p.stall_ms : p.rtt_ms);
const toRows = (runs) => runs.map(r => ({
	node: r.node, major: Number(r.node.slice(1).split('.')[0]), v8: r.v8.split('.').slice(0, 2).join('.'),
	f: r.functions_asked, hmb: r.heap_mb_asked,
	x: {
		heap: r.readings.heap.used_heap_size / MB,
		total: r.readings.heap.total_heap_size / MB,
		bc: r.readings.code.bytecode_and_metadata_size / MB,
		code: r.readings.code.code_and_metadata_size / MB,
		src: r.readings.code.external_script_source_size / MB,
		used: r.readings.getHeapUsage.usedSize / MB,
	},
	y: { start: val(r.pauses.start), deopt: val(r.pauses.deopt), deopt_rtt: r.pauses.deopt.rtt_ms,
		stop: val(r.pauses.stop), gc: val(r.pauses.gc) },
	raw: r,
}));
const rows = toRows(load(file));

function solve(A, b) {
	const n = b.length, M = A.map((row, i) => [...row, b[i]]);
	for (let c = 0; c < n; c++) {
		let p = c;
		for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
		[M[c], M[p]] = [M[p], M[c]];
		if (Math.abs(M[c][c]) < 1e-12) return null;
		for (let r = 0; r < n; r++) {
			if (r === c) continue;
			const k = M[r][c] / M[c][c];
			for (let j = c; j <= n; j++) M[r][j] -= k * M[c][j];
		}
	}
	return M.map((row, i) => row[n] / row[i]);
}

// Weighted least squares, weights 1/y^2, non-negative reading coefficients.
function fit(data, pause, feats) {
	let use = [...feats];
	for (;;) {
		const k = use.length + 1;
		const A = Array.from({ length: k }, () => new Array(k).fill(0)), b = new Array(k).fill(0);
		for (const d of data) {
			const y = d.y[pause];
			const v = [1, ...use.map(f => d.x[f])], w = 1 / Math.max(y, FLOOR) ** 2;
			for (let i = 0; i < k; i++) {
				b[i] += w * v[i] * y;
				for (let j = 0; j < k; j++) A[i][j] += w * v[i] * v[j];
			}
		}
		const c = solve(A, b);
		if (!c) return null;
		const neg = use.findIndex((f, i) => c[i + 1] < 0);
		if (neg < 0) {
			const coef = { a: c[0] };
			feats.forEach(f => { coef[f] = 0; });
			use.forEach((f, i) => { coef[f] = c[i + 1]; });
			return coef;
		}
		use = use.filter((_, i) => i !== neg);
	}
}
const predict = (coef, d) => Object.entries(coef).reduce((s, [k, v]) => s + (k === 'a' ? v : v * d.x[k]), 0);
const errs = (coef, data, pause) => data.map(d => predict(coef, d) / d.y[pause] - 1);
const worst = (e) => e.reduce((m, x) => (Math.abs(x) > Math.abs(m) ? x : m), 0);

const pauses = ['start', 'deopt', 'deopt_rtt', 'stop', 'gc'];
const models = {
	heap: ['heap'],
	bc: ['bc'],
	'heap+bc': ['heap', 'bc'],
	'heap+bc+code': ['heap', 'bc', 'code'],
	'used (no eval)': ['used'],
};
const majors = [...new Set(rows.map(r => r.major))].sort((a, b) => a - b);
const out = { runs: rows.length, fits: {} };
const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)} %`;
const lines = [];

lines.push(`### Runs (${rows.length})`, '',
	'| node | functions | filler MB | heap used MB | bytecode MB | code MB | getHeapUsage MB | start ms (rtt) | deopt ms (rtt) | stop ms | gc ms (rtt) | gc2 rtt | baseline max | load |',
	'|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|');
for (const d of rows) {
	const p = d.raw.pauses;
	lines.push(`| ${d.node} | ${d.f} | ${d.hmb} | ${fmt(d.x.heap)} | ${fmt(d.x.bc, 1)} | ${fmt(d.x.code, 1)} | ${fmt(d.x.used)} | ` +
		`${fmt(p.start.stall_ms)} (${fmt(p.start.start_cmd_ms)}) | ${fmt(p.deopt.stall_ms)} (${fmt(p.deopt.rtt_ms)}) | ${fmt(p.stop.stall_ms)} | ` +
		`${fmt(p.gc.stall_ms)} (${fmt(p.gc.rtt_ms)}) | ${fmt(p.gc2.rtt_ms)} | ${fmt(d.raw.baseline_stall_max_ms)} | ${d.raw.load_before.split(' ')[0]} |`);
}
lines.push('');

for (const pause of pauses) {
	lines.push(`### ${pause}: models (pause_ms = a + b*heap_MB + c*bytecode_MB + d*code_MB, or + e*used_MB)`, '',
		'| model | fitted on | a | heap | bc | code | used | worst error | within 50 % | worst, runs >= 20 ms | within 50 %, runs >= 20 ms |', '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
	out.fits[pause] = {};
	for (const [name, feats] of Object.entries(models)) {
		const all = fit(rows, pause, feats);
		const eAll = errs(all, rows, pause);
		// Per V8 major: the errors of every run under its own major's coefficients.
		const perMajor = {}, ePer = [];
		for (const m of majors) {
			const sub = rows.filter(r => r.major === m);
			if (sub.length < feats.length + 2) continue;
			perMajor[m] = fit(sub, pause, feats);
		}
		for (const d of rows) {
			const c = perMajor[d.major];
			ePer.push(c ? predict(c, d) / d.y[pause] - 1 : NaN);
		}
		out.fits[pause][name] = { all, worst_all: worst(eAll), perMajor, worst_per_major: worst(ePer.filter(x => !Number.isNaN(x))) };
		const row = (label, c, e, big) => {
			const eb = e.filter((_, i) => big[i]);
			lines.push(`| ${name} | ${label} | ${fmt(c.a, 1)} | ${fmt(c.heap, 3)} | ${fmt(c.bc, 1)} | ${fmt(c.code, 1)} | ${fmt(c.used, 3)} | ` +
				`${pct(worst(e))} | ${e.filter(x => Math.abs(x) <= 0.5).length}/${e.length} | ` +
				`${eb.length ? pct(worst(eb)) : '-'} | ${eb.filter(x => Math.abs(x) <= 0.5).length}/${eb.length} |`);
		};
		row('all versions', all, eAll, rows.map(d => d.y[pause] >= FLOOR));
		for (const m of majors) {
			if (!perMajor[m]) continue;
			const sel = rows.map((d, i) => [d, ePer[i]]).filter(([d]) => d.major === m);
			row(`Node ${m}`, perMajor[m], sel.map(([, e]) => e), sel.map(([d]) => d.y[pause] >= FLOOR));
		}
	}
	lines.push('');
}

// Per-run predicted vs measured for the recommended models.
const chosen = { start: 'heap+bc', deopt: 'heap+bc', deopt_rtt: 'heap+bc', gc: 'heap+bc' };
lines.push('### Per run: measured vs predicted (one set of coefficients for all versions; "fb" = the getHeapUsage-only fallback)', '',
	`| node | functions | filler MB | start ms | pred (${chosen.start}) | fb | deopt ms | pred (${chosen.deopt}) | fb | gc ms | pred (${chosen.gc}) | fb |`,
	'|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const d of rows) {
	const cells = ['start', 'deopt', 'gc'].flatMap(p => {
		const c = out.fits[p][chosen[p]].all, fb = out.fits[p]['used (no eval)'].all;
		const pr = predict(c, d), pf = predict(fb, d);
		return [fmt(d.y[p]), `${fmt(pr)} (${pct(pr / d.y[p] - 1)})`, `${fmt(pf)} (${pct(pf / d.y[p] - 1)})`];
	});
	lines.push(`| ${d.node} | ${d.f} | ${d.hmb} | ${cells.join(' | ')} |`);
}
if (vfile) {
	const vrows = toRows(load(vfile));
	const vp = ['start', 'deopt', 'deopt_rtt', 'gc'];
	lines.push('', `### Out of sample: the coefficients above (all versions) on ${vrows.length} other runs, and the same runs' spread`, '',
		'Each cell: measured ms, predicted error; then "1st" = the same Node and sizes in the fitted data, measured ms.', '',
		`| node | functions | filler MB | ${vp.map(p => `${p} (${chosen[p] || 'heap+bc'})`).join(' | ')} |`,
		`|---|--:|--:|${vp.map(() => '---').join('|')}|`);
	const ev = Object.fromEntries(vp.map(p => [p, []])), spread = Object.fromEntries(vp.map(p => [p, []]));
	for (const d of vrows) {
		const twin = rows.find(r => r.node === d.node && r.f === d.f && r.hmb === d.hmb);
		const cells = vp.map(p => {
			const c = out.fits[p][chosen[p] || 'heap+bc'].all, e = predict(c, d) / d.y[p] - 1;
			if (d.y[p] >= FLOOR) ev[p].push(e);
			if (twin && d.y[p] >= FLOOR) spread[p].push(d.y[p] / twin.y[p] - 1);
			return `${fmt(d.y[p])} (${pct(e)})${twin ? `; 1st ${fmt(twin.y[p])}` : ''}`;
		});
		lines.push(`| ${d.node} | ${d.f} | ${d.hmb} | ${cells.join(' | ')} |`);
	}
	lines.push('', `Worst prediction error on these runs (pauses >= ${FLOOR} ms): ` +
		vp.map(p => `${p} ${pct(worst(ev[p]))} (${ev[p].filter(x => Math.abs(x) <= 0.5).length}/${ev[p].length} within 50 %)`).join(', ') + '.',
		`Largest change of the measurement between the two runs of the same Node and sizes (>= ${FLOOR} ms): ` +
		vp.map(p => `${p} ${pct(worst(spread[p]))}`).join(', ') + '.');
}
console.log(asJson ? JSON.stringify(out, null, 1) : lines.join('\n'));
