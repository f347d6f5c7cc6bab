'use strict';
// Benchmark target: an express 5 server with four CPU-heavy routes written the way ordinary
// application code is (small helpers called from loops, which V8 inlines once the code is
// hot):
//   /json    builds a 200-item order list with helper functions, JSON.stringify
//   /render  renders a 300-row HTML table with a little template engine and HTML escaping
//   /hash    a MurmurHash3-style hash of a 16 KB buffer, in JavaScript
//   /sort    sorts 2000 records with a comparator
// express comes from NODE_PATH (bench/lib.sh's bench_npm_deps installs it).
//
// Usage: node express-app.js [--out FILE] [--duration SECS]
// Prints {"event":"ready","port":..,"pid":..} on stdout (or FILE), then monitor.js's
// per-second lines; ops: requests answered; routes: {route: [requests, us of its own work]}.
const express = require('express');
const { start } = require('./monitor');

const opt = { out: null, duration_s: 0 };
for (let i = 2; i < process.argv.length; i++) {
	if (process.argv[i] === '--out') opt.out = process.argv[++i];
	else if (process.argv[i] === '--duration') opt.duration_s = Number(process.argv[++i]);
	else { process.stderr.write(`express-app.js: unknown argument ${process.argv[i]}\n`); process.exit(2); }
}
const mon = start(opt);

// ---- /json
function formatPrice(cents) {
	return (cents / 100).toFixed(2) + ' EUR';
}
function makeItem(i, seed) {
	const qty = 1 + ((seed + i * 7) % 5);
	const cents = 199 + ((seed * 31 + i * 17) % 9000);
	return { sku: 'SKU-' + (seed + i), name: 'Item ' + i, qty, unit: formatPrice(cents),
		total: formatPrice(cents * qty), tags: ['a' + (i % 3), 'b' + (i % 5)] };
}
function buildOrders(seed) {
	const items = [];
	for (let i = 0; i < 200; i++) items.push(makeItem(i, seed));
	return { id: seed, customer: { id: seed % 1000, name: 'Customer ' + seed }, items };
}

// ---- /render
const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(s) {
	let out = '';
	for (let i = 0; i < s.length; i++) {
		const c = s[i];
		out += ESC[c] || c;
	}
	return out;
}
function compileTemplate(src) {
	const parts = src.split(/\{\{(\w+)\}\}/);
	return (data) => {
		let out = '';
		for (let i = 0; i < parts.length; i++) out += i % 2 ? escapeHtml(String(data[parts[i]])) : parts[i];
		return out;
	};
}
const rowTemplate = compileTemplate('<tr><td>{{id}}</td><td>{{name}}</td><td class="{{cls}}">{{note}}</td></tr>\n');
function renderTable(seed) {
	let html = '<table>\n';
	for (let i = 0; i < 300; i++)
		html += rowTemplate({ id: seed + i, name: `Row <${i}> & "friends"`, cls: i % 2 ? 'odd' : 'even',
			note: `It's row ${i} of ${seed}` });
	return html + '</table>\n';
}

// ---- /hash
function mix32(h, k) {
	k = Math.imul(k, 0xcc9e2d51);
	k = (k << 15) | (k >>> 17);
	k = Math.imul(k, 0x1b873593);
	h ^= k;
	h = (h << 13) | (h >>> 19);
	return (Math.imul(h, 5) + 0xe6546b64) | 0;
}
function hashBuffer(buf, seed) {
	let h = seed | 0;
	for (let i = 0; i + 4 <= buf.length; i += 4)
		h = mix32(h, buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24));
	h ^= buf.length;
	h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
	return (h ^ (h >>> 13)) >>> 0;
}
const block = Buffer.alloc(16384);
for (let i = 0; i < block.length; i++) block[i] = (i * 131) & 0xff;

// ---- /sort
function keyOf(r) {
	return r.group * 100000 + r.score;
}
function compareRecords(a, b) {
	return keyOf(a) - keyOf(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
function sortRecords(seed) {
	const recs = [];
	for (let i = 0; i < 2000; i++)
		recs.push({ group: (i * 7 + seed) % 13, score: (i * 7919 + seed) % 99991, name: 'r' + ((i * 31) % 977) });
	recs.sort(compareRecords);
	return recs[0].name + recs[recs.length - 1].name;
}

let seq = 0;
const app = express();
app.get('/json', (req, res) => { mon.count(); const t = process.hrtime.bigint(); const o = buildOrders(seq++); note('json', t); res.json(o); });
app.get('/render', (req, res) => { mon.count(); const t = process.hrtime.bigint(); const o = renderTable(seq++); note('render', t); res.type('html').send(o); });
app.get('/hash', (req, res) => {
	mon.count();
	const t = process.hrtime.bigint();
	let h = 0;
	for (let r = 0; r < 8; r++) h ^= hashBuffer(block, seq++ + r);
	note('hash', t);
	res.json({ h });
});
app.get('/sort', (req, res) => { mon.count(); const t = process.hrtime.bigint(); const o = sortRecords(seq++); note('sort', t); res.json({ s: o }); });

// Per-route counts and the time spent computing each route's body, reset every second and
// printed in monitor.js's lines as "routes": {route: [requests, compute_us]}.
const routes = { json: [0, 0], render: [0, 0], hash: [0, 0], sort: [0, 0] };
function note(name, t) {
	const s = routes[name];
	s[0]++;
	s[1] += Number(process.hrtime.bigint() - t) / 1000;
}
opt.extra = () => {
	const out = {};
	for (const k in routes) { out[k] = [routes[k][0], Math.round(routes[k][1])]; routes[k][0] = routes[k][1] = 0; }
	return { routes: out };
};

const server = app.listen(0, '127.0.0.1', () => {
	mon.emit({ event: 'ready', port: server.address().port, pid: process.pid, node: process.version });
});
