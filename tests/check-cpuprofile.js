#!/usr/bin/env node
// check-cpuprofile.js: checks that a .cpuprofile is what Chrome DevTools, VS Code and
// speedscope need, and optionally that some function is hot.
//
// usage: node check-cpuprofile.js FILE [--expect-hot NAME:PCT]... [--lax-hitcount] [--quiet]
//
// Checks: nodes is a non-empty array; ids are unique positive integers; there is exactly one
// root (a node that is nobody's child) and it is nodes[0]; every child id exists and has
// exactly one parent; every node is reachable from the root; samples reference existing ids;
// samples.length == timeDeltas.length; every delta >= 0; startTime and endTime are numbers
// and endTime >= startTime + sum(timeDeltas) - 1; each node's hitCount equals the number of
// samples at it (V8's own profiles break this for (program), whose hitCount also counts
// ticks that recorded no sample: --lax-hitcount reports mismatches without failing).
// --expect-hot NAME:PCT asserts that the functions called NAME together hold
// at least PCT % of the self time (weighted by timeDeltas, as V8 defines them).
// Exit status: 0 valid, 1 invalid or an expectation failed, 2 usage error.
'use strict';

const fs = require('fs');

function usage(msg) {
	process.stderr.write(`check-cpuprofile: ${msg}\n` +
		'usage: node check-cpuprofile.js FILE [--expect-hot NAME:PCT]... [--lax-hitcount] [--quiet]\n');
	process.exit(2);
}

function fail(file, msg) {
	process.stderr.write(`check-cpuprofile: ${file}: ${msg}\n`);
	process.exit(1);
}

function isInt(v) {
	return typeof v === 'number' && Number.isInteger(v);
}

function main(argv) {
	let file = null;
	let quiet = false;
	let laxHits = false;
	const hot = [];

	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--expect-hot') {
			const spec = argv[++i];
			const m = spec === undefined ? null : /^(.*):([0-9]+(?:\.[0-9]+)?)$/.exec(spec);
			if (!m)
				usage('--expect-hot needs NAME:PCT, for example fib:50');
			hot.push({ name: m[1], pct: Number(m[2]) });
		} else if (a === '--lax-hitcount') {
			laxHits = true;
		} else if (a === '--quiet') {
			quiet = true;
		} else if (a.startsWith('-')) {
			usage(`unknown option ${a}`);
		} else if (file === null) {
			file = a;
		} else {
			usage('only one file can be checked at a time');
		}
	}
	if (file === null)
		usage('no file given');

	let prof;
	try {
		prof = JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch (e) {
		fail(file, `cannot read it as JSON: ${e.message}`);
	}
	if (prof === null || typeof prof !== 'object' || Array.isArray(prof))
		fail(file, 'the top level is not an object');
	const { nodes, samples, timeDeltas, startTime, endTime } = prof;
	if (!Array.isArray(nodes) || nodes.length === 0)
		fail(file, 'nodes is missing or empty');
	if (!Array.isArray(samples))
		fail(file, 'samples is missing');
	if (!Array.isArray(timeDeltas))
		fail(file, 'timeDeltas is missing');
	if (typeof startTime !== 'number' || typeof endTime !== 'number')
		fail(file, 'startTime and endTime must be numbers');

	const byId = new Map();
	nodes.forEach((n, i) => {
		if (n === null || typeof n !== 'object')
			fail(file, `nodes[${i}] is not an object`);
		if (!isInt(n.id) || n.id <= 0)
			fail(file, `nodes[${i}] has id ${JSON.stringify(n.id)}, not a positive integer`);
		if (byId.has(n.id))
			fail(file, `node id ${n.id} appears twice`);
		const cf = n.callFrame;
		if (cf === null || typeof cf !== 'object' || typeof cf.functionName !== 'string' ||
		    typeof cf.url !== 'string' || typeof cf.scriptId !== 'string' ||
		    !isInt(cf.lineNumber) || !isInt(cf.columnNumber))
			fail(file, `node ${n.id} has an incomplete callFrame`);
		if (n.children !== undefined && !Array.isArray(n.children))
			fail(file, `node ${n.id}: children is not an array`);
		if (!isInt(n.hitCount) || n.hitCount < 0)
			fail(file, `node ${n.id}: hitCount is not a non-negative integer`);
		byId.set(n.id, n);
	});

	const parentOf = new Map();
	for (const n of nodes) {
		for (const c of n.children || []) {
			if (!byId.has(c))
				fail(file, `node ${n.id} lists child ${JSON.stringify(c)}, which does not exist`);
			if (parentOf.has(c))
				fail(file, `node ${c} has two parents (${parentOf.get(c)} and ${n.id})`);
			if (c === n.id)
				fail(file, `node ${c} is its own child`);
			parentOf.set(c, n.id);
		}
	}
	const roots = nodes.filter((n) => !parentOf.has(n.id));
	if (roots.length !== 1)
		fail(file, `${roots.length} roots (nodes without a parent); there must be exactly one`);
	if (roots[0] !== nodes[0])
		fail(file, `the root is node ${roots[0].id}, but it must be nodes[0]`);

	// Every node reachable from the root (a cycle would leave nodes unreached).
	const seen = new Set([nodes[0].id]);
	const stack = [nodes[0]];
	while (stack.length) {
		const n = stack.pop();
		for (const c of n.children || []) {
			if (!seen.has(c)) {
				seen.add(c);
				stack.push(byId.get(c));
			}
		}
	}
	if (seen.size !== nodes.length)
		fail(file, `${nodes.length - seen.size} nodes are not reachable from the root`);

	if (samples.length !== timeDeltas.length)
		fail(file, `${samples.length} samples but ${timeDeltas.length} timeDeltas`);
	const hits = new Map();
	const selfUs = new Map();
	let sum = 0;
	for (let i = 0; i < samples.length; i++) {
		const id = samples[i];
		const d = timeDeltas[i];
		if (!byId.has(id))
			fail(file, `samples[${i}] is ${JSON.stringify(id)}, which is not a node id`);
		if (typeof d !== 'number' || !Number.isFinite(d))
			fail(file, `timeDeltas[${i}] is not a number`);
		if (d < 0)
			fail(file, `timeDeltas[${i}] is ${d}, negative`);
		sum += d;
		hits.set(id, (hits.get(id) || 0) + 1);
		selfUs.set(id, (selfUs.get(id) || 0) + d);
	}
	if (endTime < startTime + sum - 1)
		fail(file, `endTime ${endTime} is before startTime + sum(timeDeltas) = ${startTime + sum}`);
	for (const n of nodes) {
		const got = hits.get(n.id) || 0;
		if (n.hitCount === got)
			continue;
		const msg = `node ${n.id} (${n.callFrame.functionName || '(anonymous)'}) has hitCount ` +
			`${n.hitCount} but ${got} samples`;
		if (!laxHits)
			fail(file, msg);
		if (!quiet)
			process.stdout.write(`note: ${msg}\n`);
	}

	for (const h of hot) {
		let mine = 0;
		for (const n of nodes)
			if (n.callFrame.functionName === h.name)
				mine += selfUs.get(n.id) || 0;
		const pct = sum > 0 ? (mine / sum) * 100 : 0;
		if (pct < h.pct)
			fail(file, `${h.name} has ${pct.toFixed(1)} % of the self time, expected at least ${h.pct} %`);
		if (!quiet)
			process.stdout.write(`${h.name}: ${pct.toFixed(1)} % of the self time\n`);
	}
	if (!quiet)
		process.stdout.write(`${file}: valid: ${nodes.length} nodes, ${samples.length} samples, ` +
			`${(sum / 1000).toFixed(1)} ms\n`);
	process.exit(0);
}

main(process.argv.slice(2));
