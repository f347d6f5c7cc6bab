#!/usr/bin/env node
'use strict';
// inline-repair.js: the prototype of repairing a CPU profile of a warm process instead of
// changing its JIT (doc/inlining.md, "Next"). On Node 18 to 24 a sample inside inlined code is
// charged to the caller, with the callee's line in positionTicks; that line, outside the
// caller's own source range, names the callee once the functions' ranges are known.
//
//   node22+ inline-repair.js capture PID SECS OUT.json [INTERVAL_US]
//       profiles a warm target with no change to its JIT (Profiler.start/stop), then asks for
//       best-effort coverage (the functions' ranges; it changes nothing in the target). The
//       target runs with --inspect-port=0 (no other flag) and its stderr in
//       /tmp/jit-probe.PID.err, as for jit-probe.js; this client needs Node 22's WebSocket.
//   node inline-repair.js repair OUT.json [REFERENCE.cpuprofile SKIP_S]
//       self-time shares of the busy time before and after the repair, beside a reference
//       profile's (e.g. node --cpu-prof of a fresh process under the same load, its first
//       SKIP_S seconds left out). Scripts are read from their file:// URLs.
const fs = require('fs');
const [cmd, ...args] = process.argv.slice(2);

// ---- capture
const { connect, sleep } = require('./probe-client');
async function capture() {
	const { ws, call } = await connect(pid);
	await call('Profiler.enable');
	await call('Profiler.setSamplingInterval', { interval: Number(iv || 1000) });
	await call('Profiler.start');
	await sleep(Number(secs) * 1000);
	const p = (await call('Profiler.stop')).result.profile;
	let t = process.hrtime.bigint();
	const cov = (await call('Profiler.getBestEffortCoverage')).result.result;
	const covMs = Number(process.hrtime.bigint() - t) / 1e6;
	fs.writeFileSync(out, JSON.stringify({ profile: p, coverage: cov, covMs }));
	console.log(`coverage: ${covMs.toFixed(1)} ms, ${cov.length} scripts, ${cov.reduce((a, s) => a + s.functions.length, 0)} functions`);
	await call('Profiler.disable');
	ws.close();
}

// ---- repair
function repair(file, refFile, skipS) {
	const { profile: p, coverage: cov } = JSON.parse(fs.readFileSync(file));
	const key = (name, url, line) => `${name || '(anonymous)'} ${(url || '').replace(/^.*\//, '')}:${line}`;

	// --- scripts: line starts (UTF-16 offsets) and function line ranges
	const scripts = new Map(); // scriptId -> {url, lineStart[], fns:[{name,s,e,sl,el}]}
	function lineStarts(text) { const a = [0]; for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) a.push(i + 1); return a; }
	function lineOf(ls, off) { let lo = 0, hi = ls.length - 1; while (lo < hi) { const m = (lo + hi + 1) >> 1; if (ls[m] <= off) lo = m; else hi = m - 1; } return lo + 1; }
	for (const s of cov) {
		if (!s.url.startsWith('file://')) continue;
		let text; try { text = fs.readFileSync(new URL(s.url), 'utf8'); } catch { continue; }
		if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
		const ls = lineStarts(text);
		const fns = s.functions.filter(f => f.ranges[0].startOffset > 0 || f.ranges[0].endOffset < text.length)
			.map(f => ({ name: f.functionName, s: f.ranges[0].startOffset, e: f.ranges[0].endOffset,
				sl: lineOf(ls, f.ranges[0].startOffset), el: lineOf(ls, f.ranges[0].endOffset - 1), url: s.url }));
		scripts.set(s.scriptId, { url: s.url, ls, fns });
	}
	// innermost function of a script containing line L
	function innermost(sc, L) { let best = null; for (const f of sc.fns) if (f.sl <= L && L <= f.el && (!best || f.e - f.s < best.e - best.s)) best = f; return best; }
	function own(sc, cf) { // the function a node is, by start line (0-based in callFrame)
		const L = cf.lineNumber + 1; let best = null;
		for (const f of sc.fns) if (f.sl === L && (!best || Math.abs(f.s - sc.ls[L - 1] - cf.columnNumber) < Math.abs(best.s - sc.ls[L - 1] - cf.columnNumber))) best = f;
		return best;
	}
	// --- self ticks per key, with and without repair
	const before = new Map(), after = new Map(); let busy = 0, moved = 0, unresolved = 0;
	const add = (m, k, t) => m.set(k, (m.get(k) || 0) + t);
	const byId = new Map(p.nodes.map(n => [n.id, n]));
	// the scripts below each node (inline paths at calls are expanded, even for the leaf's caller)
	const below = new Map();
	function scriptsBelow(n) {
		if (below.has(n.id)) return below.get(n.id);
		const set = new Set();
		below.set(n.id, set);
		for (const c of n.children || []) { const cn = byId.get(c); set.add(cn.callFrame.scriptId); for (const x of scriptsBelow(cn)) set.add(x); }
		return set;
	}
	const fb = new Map();
	function fnsBelow(n) {
		if (fb.has(n.id)) return fb.get(n.id);
		const set = new Set(); fb.set(n.id, set);
		for (const c of n.children || []) { const cn = byId.get(c); set.add(cn.callFrame.url + ':' + (cn.callFrame.lineNumber + 1)); for (const x of fnsBelow(cn)) set.add(x); }
		return set;
	}
	for (const n of p.nodes) {
		const cf = n.callFrame, t = n.hitCount || 0;
		if (!t || cf.functionName === '(idle)') continue;
		busy += t;
		const k = key(cf.functionName, cf.url, cf.lineNumber + 1);
		add(before, k, t);
		const sc = scripts.get(cf.scriptId), me = sc && own(sc, cf);
		if (!me || !n.positionTicks) { add(after, k, t); continue; }
		let rest = t;
		for (const pt of n.positionTicks) {
			let f = innermost(sc, pt.line);
			if (f === me) continue;
			if (!f || !(f.sl >= me.sl && f.el <= me.el)) {
				// outside: a callee's line, in this script or in one the node's inline paths reach;
				// a function seen below the node wins, then this script's
				const cands = [...scriptsBelow(n)].filter(id => id !== cf.scriptId && scripts.has(id))
					.map(id => innermost(scripts.get(id), pt.line)).filter(Boolean);
				if (!f) { const seen = cands.filter(c => fnsBelow(n).has(c.url + ':' + c.sl));
					f = seen.length === 1 ? seen[0] : cands.length === 1 ? cands[0] : null; }
			}
			rest -= pt.ticks;
			if (f) { add(after, key(f.name, f.url, f.sl), pt.ticks); moved += pt.ticks; }
			else { add(after, k + ' [inlined, line ' + pt.line + ']', pt.ticks); unresolved += pt.ticks; }
		}
		add(after, k, rest);
	}
	// --- reference
	let ref = null;
	if (refFile) {
		const r = JSON.parse(fs.readFileSync(refFile)); const skip = Number(skipS || 0) * 1e6;
		const byId = new Map(r.nodes.map(x => [x.id, x])); ref = new Map(); let rb = 0, tt = 0;
		for (let i = 0; i < r.samples.length; i++) { tt += r.timeDeltas[i]; if (tt < skip) continue;
			const cf = byId.get(r.samples[i]).callFrame; if (cf.functionName === '(idle)') continue; rb++; add(ref, key(cf.functionName, cf.url, cf.lineNumber + 1), 1); }
		for (const [k, v] of ref) ref.set(k, 100 * v / rb);
	}
	const pct = (m, k) => (100 * (m.get(k) || 0) / busy);
	const keys = new Set([...[...after].sort((a, b) => b[1] - a[1]).slice(0, 12).map(x => x[0]), ...(ref ? [...ref].sort((a, b) => b[1] - a[1]).slice(0, 8).map(x => x[0]) : [])]);
	console.log(`moved ${(100 * moved / busy).toFixed(1)} % of busy ticks, unresolved ${(100 * unresolved / busy).toFixed(1)} %`);
	console.log('function'.padEnd(44), 'raw', 'repaired', ref ? 'ref' : '');
	for (const k of [...keys].sort((a, b) => (after.get(b) || 0) - (after.get(a) || 0)))
		console.log(k.padEnd(44), pct(before, k).toFixed(1).padStart(5), pct(after, k).toFixed(1).padStart(6), ref ? (ref.get(k) || 0).toFixed(1).padStart(6) : '');

}

if (cmd === 'capture' && args.length >= 3) {
	var [pid, secs, out, iv] = args;
	capture().catch(e => { console.error('inline-repair:', e.message); process.exit(1); });
} else if (cmd === 'repair' && args.length >= 1) {
	repair(...args);
} else {
	process.stderr.write('usage: inline-repair.js capture PID SECS OUT.json [INTERVAL_US] | repair OUT.json [REF.cpuprofile SKIP_S]\n');
	process.exit(2);
}
