'use strict';
// Benchmark target: an express 5 server whose time goes mostly into small helpers of a few
// lines each, called from loops, as ordinary application code is written; V8 inlines them
// once the code is hot, within this file and across files (fnvStep, xorshift and clamp come
// from helpers-lib.js). The routes have express-app.js's names, so that load.js drives both:
//   /json    an invoice of 1000 lines: tax and rounding of prices in cents (withTax,
//            Math.round; formatCents, toFixed), discounts kept in range (clamp); answers the
//            totals and the first lines
//   /render  600 table rows of three cells, each HTML-escaped char by char through a small
//            map (escapeHtml); answers the size and the start of the HTML
//   /hash    an ETag over 1000 keys (makeKey) and a 64 KB buffer, FNV-1a step by step
//            (fnvStep) with an xorshift finish (xorshift)
//   /sort    1500 records scored by interpolation kept in range (lerp, clamp), sorted by
//            score then key (byScoreThenKey, makeKey); answers the top five
// express comes from NODE_PATH (bench/lib.sh's bench_npm_deps installs it).
//
// Usage: node helpers-app.js [--out FILE] [--duration SECS]
// Prints {"event":"ready","port":..,"pid":..} on stdout (or FILE), then monitor.js's
// per-second lines; ops: requests answered; routes: {route: [requests, us of its own work]}.
const express = require('express');
const { start } = require('./monitor');
const { fnvStep, xorshift, clamp } = require('./helpers-lib');

const opt = { out: null, duration_s: 0 };
const args = process.argv.slice(2);
while (args.length) {
	const a = args.shift();
	if (a === '--out' && args.length) opt.out = args.shift();
	else if (a === '--duration' && args.length) opt.duration_s = Number(args.shift());
	else { process.stderr.write(`helpers-app.js: bad argument ${a}\n`); process.exit(2); }
}
const mon = start(opt);

// ---- the helpers
function withTax(cents, ratePct) {
	return Math.round(cents * (100 + ratePct) / 100);
}
function formatCents(cents) {
	return (cents / 100).toFixed(2);
}
const HTML_ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(s) {
	let out = '';
	for (let i = 0; i < s.length; i++) out += HTML_ESC[s[i]] || s[i];
	return out;
}
function lerp(a, b, t) {
	return a + (b - a) * t;
}
function makeKey(kind, region, id) {
	return kind + ':' + region + ':' + id;
}
function hashString(h, s) {
	for (let i = 0; i < s.length; i++) h = fnvStep(h, s.charCodeAt(i));
	return h;
}
function byScoreThenKey(a, b) {
	return b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

// ---- /json
function buildInvoice(seed) {
	const lines = [];
	let net = 0, gross = 0;
	for (let i = 0; i < 1000; i++) {
		const cents = 99 + ((seed * 31 + i * 17) % 20000), qty = 1 + ((seed + i) % 4);
		const rate = i % 3 ? 20 : 5.5;
		const discount = clamp((seed + i * 13) % 40 - 10, 0, 25);
		const lineNet = Math.round(cents * qty * (100 - discount) / 100);
		net += lineNet;
		gross += withTax(lineNet, rate);
		lines.push({ sku: makeKey('sku', seed % 7, i), unit: formatCents(withTax(cents, rate)), qty,
			discount, total: formatCents(withTax(lineNet, rate)) });
	}
	return { id: seed, net: formatCents(net), gross: formatCents(gross), tax: formatCents(gross - net),
		count: lines.length, first: lines.slice(0, 3) };
}

// ---- /render
function renderRows(seed) {
	let html = '<table>\n';
	for (let i = 0; i < 600; i++)
		html += '<tr><td>' + escapeHtml(`Item <${seed + i}> & "co"`) + '</td><td>' +
			escapeHtml(`It's row ${i}: 5 > 3 & 2 < 4`) + '</td><td>' + escapeHtml(`tag-${i % 9}`) + '</td></tr>\n';
	return html + '</table>\n';
}

// ---- /hash
const block = Buffer.alloc(65536);
for (let i = 0; i < block.length; i++) block[i] = (i * 131) & 0xff;
function etag(seed) {
	let h = 0x811c9dc5 ^ seed;
	for (let i = 0; i < 1000; i++) h = hashString(h, makeKey('user', i % 11, seed + i));
	for (let i = 0; i < block.length; i++) h = fnvStep(h, block[i]);
	return xorshift(h).toString(16);
}

// ---- /sort
function rankRecords(seed) {
	const recs = [];
	for (let i = 0; i < 1500; i++) {
		const t = ((i * 37 + seed) % 101) / 100;
		const score = Math.round(clamp(lerp(-20, 120, t) + ((i * 7) % 13) - 6, 0, 100));
		recs.push({ key: makeKey('rec', i % 5, (i * 7919 + seed) % 99991), score });
	}
	recs.sort(byScoreThenKey);
	return recs.slice(0, 5);
}

// route(name, work, reply): GET /name answers reply(work(n)) as JSON, n counting requests;
// the time of work() is added to the route's line in monitor.js's output.
const app = express();
const routes = {};
let seq = 0;
function route(name, work, reply) {
	const stat = routes[name] = [0, 0];
	app.get('/' + name, (req, res) => {
		mon.count();
		const t0 = process.hrtime.bigint();
		const result = work(seq++);
		stat[0]++;
		stat[1] += Number(process.hrtime.bigint() - t0) / 1000;
		res.json(reply(result));
	});
}
route('json', buildInvoice, (invoice) => invoice);
route('render', renderRows, (html) => ({ bytes: html.length, head: html.slice(0, 120) }));
route('hash', etag, (tag) => ({ etag: tag }));
route('sort', rankRecords, (top) => ({ top }));
// Printed every second as "routes": {route: [requests, compute_us]}, then reset.
opt.extra = () => ({ routes: Object.fromEntries(Object.entries(routes).map(([k, stat]) => {
	const row = [stat[0], Math.round(stat[1])];
	stat[0] = stat[1] = 0;
	return [k, row];
})) });

const server = app.listen(0, '127.0.0.1', () => {
	mon.emit({ event: 'ready', port: server.address().port, pid: process.pid, node: process.version });
});
