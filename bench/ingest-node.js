#!/usr/bin/env node
// ingest-node.js: the Node.js side of the ingest benchmark. Reads a Profiler.Profile JSON
// file, JSON.parse()s it and computes what ntop-js computes for one window: self and total
// time per function (total counted once per sample under recursion), weighted by timeDeltas
// (negative -> 0), plus the idle/program/gc/js split. Prints one line of timing and peak
// memory, then the top functions (for a cross-check against bench/ingest).
//
//   node bench/ingest-node.js FILE [--top N] [--naive]
//     --naive  compute totals by walking every sample's stack (slow, obviously correct),
//              to check the fast O(nodes) method
'use strict';

const fs = require('node:fs');

function aggregateFast(p) {
	const nodes = p.nodes, n = nodes.length;
	const index = new Map();
	for (let i = 0; i < n; i++) index.set(nodes[i].id, i);
	const parent = new Int32Array(n).fill(-1);
	for (let i = 0; i < n; i++)
		for (const c of nodes[i].children || []) parent[index.get(c)] = i;

	const funcIds = new Map(), funcNames = [];
	const nodeFunc = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		const cf = nodes[i].callFrame;
		const key = cf.functionName + '\u0000' + cf.url + '\u0000' + cf.lineNumber + '\u0000' + cf.columnNumber;
		let f = funcIds.get(key);
		if (f === undefined) {
			f = funcNames.length;
			funcIds.set(key, f);
			funcNames.push(cf.url === '' ? cf.functionName : cf.functionName + ' ' + cf.url + ':' + (cf.lineNumber + 1));
		}
		nodeFunc[i] = f;
	}

	const self = new Float64Array(n);
	const samples = p.samples || [], deltas = p.timeDeltas || [];
	for (let s = 0; s < samples.length; s++) {
		const d = deltas[s];
		self[index.get(samples[s])] += d > 0 ? d : 0;
	}

	// preorder with an explicit stack, then bottom-up totals and once-per-path attribution
	const root = parent.indexOf(-1);
	const order = new Int32Array(n);
	const stack = [root];
	let k = 0;
	while (stack.length) {
		const i = stack.pop();
		order[k++] = i;
		const ch = nodes[i].children || [];
		for (let c = ch.length - 1; c >= 0; c--) stack.push(index.get(ch[c]));
	}
	const total = Float64Array.from(self);
	for (let x = n - 1; x > 0; x--) total[parent[order[x]]] += total[order[x]];

	const nf = funcNames.length;
	const fSelf = new Float64Array(nf), fTotal = new Float64Array(nf), active = new Int32Array(nf);
	const path = [];
	for (let x = 0; x < n; x++) {
		const i = order[x], f = nodeFunc[i];
		while (path.length && path[path.length - 1] !== parent[i]) active[nodeFunc[path.pop()]]--;
		fSelf[f] += self[i];
		if (active[f] === 0) fTotal[f] += total[i];
		active[f]++;
		path.push(i);
	}
	return { funcNames, fSelf, fTotal };
}

function aggregateNaive(p) {
	const index = new Map(p.nodes.map((nd, i) => [nd.id, i]));
	const parent = new Int32Array(p.nodes.length).fill(-1);
	p.nodes.forEach((nd, i) => (nd.children || []).forEach((c) => (parent[index.get(c)] = i)));
	const keyOf = (cf) => cf.functionName + '\u0000' + cf.url + '\u0000' + cf.lineNumber + '\u0000' + cf.columnNumber;
	const funcIds = new Map(), funcNames = [];
	const nodeFunc = p.nodes.map((nd) => {
		const key = keyOf(nd.callFrame);
		if (!funcIds.has(key)) {
			funcIds.set(key, funcNames.length);
			const cf = nd.callFrame;
			funcNames.push(cf.url === '' ? cf.functionName : cf.functionName + ' ' + cf.url + ':' + (cf.lineNumber + 1));
		}
		return funcIds.get(key);
	});
	const fSelf = new Float64Array(funcNames.length), fTotal = new Float64Array(funcNames.length);
	p.samples.forEach((id, s) => {
		const w = Math.max(0, p.timeDeltas[s]);
		let i = index.get(id);
		fSelf[nodeFunc[i]] += w;
		const on = new Set();
		for (; i >= 0; i = parent[i]) on.add(nodeFunc[i]);
		for (const f of on) fTotal[f] += w;
	});
	return { funcNames, fSelf, fTotal };
}

function main() {
	const file = process.argv[2];
	const topIdx = process.argv.indexOf('--top');
	const top = topIdx > 0 ? Number(process.argv[topIdx + 1]) : 5;
	const naive = process.argv.includes('--naive');
	if (!file) {
		process.stderr.write('usage: ingest-node.js FILE [--top N] [--naive]\n');
		process.exit(2);
	}
	const size = fs.statSync(file).size;
	const startKiB = Math.round(process.memoryUsage().rss / 1024);
	const t0 = process.hrtime.bigint();
	const text = fs.readFileSync(file, 'utf8');
	const p = JSON.parse(text);
	const r = naive ? aggregateNaive(p) : aggregateFast(p);
	const t1 = process.hrtime.bigint();
	const ms = Number(t1 - t0) / 1e6;
	const peakKiB = process.resourceUsage().maxRSS;
	console.log(`node: ${size} bytes, ${p.nodes.length} nodes, ${(p.samples || []).length} samples: ` +
		`${ms.toFixed(1)} ms, peak RSS ${(peakKiB / 1024).toFixed(1)} MiB (${(peakKiB * 1024 / size).toFixed(2)}x file; ` +
		`${((peakKiB - startKiB) * 1024 / size).toFixed(2)}x above the ${(startKiB / 1024).toFixed(1)} MiB at start)`);
	const ids = [...r.funcNames.keys()].filter((f) => !/^\((root|program|idle|garbage collector)\)$/.test(r.funcNames[f]));
	ids.sort((a, b) => r.fSelf[b] - r.fSelf[a] || r.fTotal[b] - r.fTotal[a]);
	for (const f of ids.slice(0, top))
		console.log(`  self ${r.fSelf[f].toFixed(0).padStart(10)} total ${r.fTotal[f].toFixed(0).padStart(10)}  ${r.funcNames[f]}`);
	// for machine reading by bench/ingest.sh
	console.log(`RESULT ms=${ms.toFixed(2)} rss_kib=${peakKiB} start_kib=${startKiB}`);
}

main();
