'use strict';
// A small, busy Node application to try ntop-js on. No npm dependencies:
//
//     node examples/busy-server.js
//     ntop-js --pid <the PID it prints>
//
// It runs an HTTP server on a free port of 127.0.0.1 and keeps calling itself: a client
// POSTs batches of orders as CSV, the server parses them, totals the invoices, renders a
// report and validates e-mail addresses. The work is split so that a profiler shows a
// clear ranking (self time, share of the busy time, measured with Node 20):
//
//     parseOrders           ~45-50 %  the dominant hot spot (CSV, checksums, dates)
//     computeInvoiceTotals  ~10 %
//     renderReport          ~6 %      (plus escapeHtml ~2 %)
//     handleInvoiceRequest  ~5 %      (V8 charges some of its callees' builtin calls to it)
//     slowRegexValidate     ~3 %      (a backtracking regular expression)
//     garbage collection, HTTP handling and the client's requests for the rest
//
// The request rate adapts itself so that the process uses about 65 % of one core on any
// machine (the rest of the time it waits in the event loop). It runs until killed.
// Options: --cpu PCT (target share of one core, 10-95, default 65), --quiet (no status lines).

const http = require('http');

let target_cpu_pct = 65;
let quiet = false;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '--cpu' && i + 1 < argv.length) target_cpu_pct = Number(argv[++i]);
	else if (argv[i] === '--quiet') quiet = true;
	else {
		process.stderr.write('usage: node busy-server.js [--cpu PCT] [--quiet]\n');
		process.exit(2);
	}
}
if (!(target_cpu_pct >= 10 && target_cpu_pct <= 95)) {
	process.stderr.write('busy-server.js: --cpu must be between 10 and 95\n');
	process.exit(2);
}

// ---- Data the client sends -------------------------------------------------------------

const CUSTOMERS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne',
	'wonka', 'tyrell', 'cyberdyne', 'soylent', 'aperture'];
const REGIONS = ['eu-west', 'eu-north', 'us-east', 'us-west', 'ap-south'];
const PRODUCTS = ['widget', 'gadget', 'sprocket', 'gizmo', 'doohickey', 'thingamajig'];

// Each CSV line ends with a checksum of the rest of the line.
function fletcher16(s, len) {
	let a = 0;
	let b = 0;
	for (let i = 0; i < len; i++) {
		a = (a + s.charCodeAt(i)) % 255;
		b = (b + a) % 255;
	}
	return (b << 8) | a;
}

function makeOrderBatch(seed, rows) {
	let x = seed | 1;
	const rnd = (n) => {
		x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
		return (x >>> 0) % n;
	};
	const two = (n) => String(n).padStart(2, '0');
	const lines = ['id,created,customer,region,product,quantity,unit_price,currency,email,note,sum'];
	for (let i = 0; i < rows; i++) {
		const cust = CUSTOMERS[rnd(CUSTOMERS.length)];
		const line = [
			`ord-${seed}-${i}`,
			`2024-${two(1 + rnd(12))}-${two(1 + rnd(28))}T${two(rnd(24))}:${two(rnd(60))}:${two(rnd(60))}Z`,
			`  ${cust.toUpperCase()} `, REGIONS[rnd(REGIONS.length)],
			PRODUCTS[rnd(PRODUCTS.length)], 1 + rnd(40), (rnd(100000) / 100).toFixed(2), 'EUR',
			`billing.${cust}${rnd(100)}@${cust}-corp.example.com`,
			`"${rnd(5) === 0 ? 'rush, gift wrap' : 'standard'}"`,
		].join(',');
		lines.push(`${line},${fletcher16(line, line.length)}`);
	}
	return lines.join('\n');
}

// A few prepared batches: the client's own cost stays small.
const BATCHES = [];
for (let i = 0; i < 8; i++) BATCHES.push(Buffer.from(makeOrderBatch(1000 + i, 300)));

// ---- The hot functions -----------------------------------------------------------------
// Each stage of a request takes the request's context object and adds its result to it.

// Hand-written CSV parsing (quoted fields, trimming, number conversion): the dominant cost.
// The body arrives as the request's raw bytes.
function parseOrders(ctx) {
	const orders = [];
	const lines = ctx.body.toString('utf8').split('\n');
	const header = lines[0].split(',');
	for (let li = 1; li < lines.length; li++) {
		const line = lines[li];
		// Verify the line's checksum (inline: the running sums are the hot loop).
		const sum_at = line.lastIndexOf(',');
		let sa = 0;
		let sb = 0;
		for (let i = 0; i < sum_at; i++) {
			sa = (sa + line.charCodeAt(i)) % 255;
			sb = (sb + sa) % 255;
		}
		if (((sb << 8) | sa) !== Number.parseInt(line.slice(sum_at + 1), 10)) {
			ctx.corrupt_lines++;
			continue;
		}
		const fields = [];
		let start = 0;
		let quoted = false;
		for (let i = 0; i < line.length; i++) {
			const c = line.charCodeAt(i);
			if (c === 34 /* " */) quoted = !quoted;
			else if (c === 44 /* , */ && !quoted) {
				fields.push(line.slice(start, i).trim());
				start = i + 1;
			}
		}
		fields.push(line.slice(start).trim());
		const o = {};
		for (let k = 0; k < header.length; k++) o[header[k]] = fields[k];
		// created: YYYY-MM-DDTHH:MM:SSZ to epoch milliseconds, by hand (days from civil).
		const t = o.created;
		const num = (from, to) => {
			let v = 0;
			for (let i = from; i < to; i++) v = v * 10 + (t.charCodeAt(i) - 48);
			return v;
		};
		let y = num(0, 4);
		const m = num(5, 7);
		const d = num(8, 10);
		y -= m <= 2 ? 1 : 0;
		const era = Math.floor(y / 400);
		const yoe = y - era * 400;
		const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
		const days = era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
		o.created_ms = ((days * 24 + num(11, 13)) * 60 + num(14, 16)) * 60000 + num(17, 19) * 1000;
		o.customer = o.customer.toLowerCase();
		o.quantity = Number.parseInt(o.quantity, 10);
		o.unit_price = Number.parseFloat(o.unit_price);
		o.rush = o.note.includes('rush');
		orders.push(o);
	}
	ctx.orders = orders;
}

const TAX_PCT = { 'eu-west': 21, 'eu-north': 25, 'us-east': 8, 'us-west': 9, 'ap-south': 18 };

function computeInvoiceTotals(ctx) {
	const byCustomer = new Map();
	for (const o of ctx.orders) {
		let inv = byCustomer.get(o.customer);
		if (inv === undefined) {
			inv = { customer: o.customer, lines: 0, net: 0, tax: 0, rush: 0, products: {} };
			byCustomer.set(o.customer, inv);
		}
		let net = o.quantity * o.unit_price;
		if (o.quantity >= 30) net *= 0.9;
		else if (o.quantity >= 10) net *= 0.95;
		for (let r = 0; r < 12; r++) net = Math.round(net * 100 + r * 1e-9) / 100;
		inv.lines++;
		inv.net += net;
		inv.tax += (net * TAX_PCT[o.region]) / 100;
		if (o.rush) inv.rush++;
		inv.products[o.product] = (inv.products[o.product] || 0) + o.quantity;
	}
	ctx.invoices = [...byCustomer.values()].sort((a, b) => b.net - a.net);
}

// A regular expression with nested quantifiers: correct on good input, slow on long input.
const EMAIL_RE = /^([a-zA-Z0-9_.+-])+@(([a-zA-Z0-9-])+\.)+([a-zA-Z0-9]{2,4})+$/;

function slowRegexValidate(ctx) {
	let bad = 0;
	// Spot check: every other order.
	for (let i = 0; i < ctx.orders.length; i += 2) if (!EMAIL_RE.test(ctx.orders[i].email)) bad++;
	ctx.bad_emails = bad;
}

function checkCreditLimits(ctx) {
	let over = 0;
	for (const inv of ctx.invoices) if (inv.net + inv.tax > 250000) over++;
	ctx.over_limit = over;
}

const HTML_SPECIAL = /[&<>"']/;

function escapeHtml(s) {
	if (!HTML_SPECIAL.test(s)) return s;
	return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function renderReport(ctx) {
	let html = '<html><body><h1>Invoices</h1><table>';
	for (const inv of ctx.invoices) {
		html += `<tr><td>${escapeHtml(inv.customer)}</td><td>${inv.lines}</td>` +
			`<td>${inv.net.toFixed(2)}</td><td>${inv.tax.toFixed(2)}</td><td>${inv.rush}</td><td>`;
		for (const [p, q] of Object.entries(inv.products)) html += `${escapeHtml(p)}&nbsp;x${q} `;
		html += '</td></tr>';
	}
	html += '</table><h2>Orders</h2><table>';
	for (const o of ctx.orders) {
		html += `<tr class="${o.rush ? 'rush' : 'std'}"><td>${o.id}</td><td>${o.customer}</td>` +
			`<td>${o.product}</td><td>${o.quantity}</td><td>${o.unit_price.toFixed(2)}</td>` +
			`<td>${o.rush ? escapeHtml(o.note) : 'standard'}</td></tr>`;
	}
	ctx.html = html + '</table></body></html>';
}

// The handler runs its stages through one call site, like a middleware chain. With more
// than four different stages that call site is megamorphic, so V8 does not inline the
// stages into the handler and each shows up under its own name in a profile.
const STAGES = [parseOrders, computeInvoiceTotals, slowRegexValidate, checkCreditLimits,
	renderReport];

function handleInvoiceRequest(body) {
	const ctx = { body, orders: null, invoices: null, corrupt_lines: 0, bad_emails: 0, over_limit: 0,
		html: '' };
	for (const stage of STAGES) stage(ctx);
	return ctx;
}

// ---- Server ----------------------------------------------------------------------------

let served = 0;
const server = http.createServer((req, res) => {
	if (req.method !== 'POST' || req.url !== '/invoices') {
		res.writeHead(404).end();
		return;
	}
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const r = handleInvoiceRequest(Buffer.concat(chunks));
		served++;
		res.writeHead(200, { 'content-type': 'text/html', 'x-invalid-emails': String(r.bad_emails) });
		res.end(r.html);
	});
});

// ---- Client: calls the server at a rate that keeps CPU near the target -----------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
let port = 0;
let in_flight = 0;
let rate_per_s = 100; // adjusted every second
let carry = 0;
let next_batch = 0;

function sendOne() {
	in_flight++;
	let done = false;
	const finish = () => {
		if (!done) {
			done = true;
			in_flight--;
		}
	};
	const body = BATCHES[next_batch++ % BATCHES.length];
	const req = http.request({
		host: '127.0.0.1', port, method: 'POST', path: '/invoices', agent,
		headers: { 'content-type': 'text/csv', 'content-length': body.length },
	}, (res) => {
		res.resume();
		res.on('end', finish);
	});
	req.setTimeout(10_000, () => req.destroy());
	req.on('error', finish);
	req.on('close', finish);
	req.end(body);
}

function pace() {
	carry += rate_per_s / 100;
	while (carry >= 1 && in_flight < 8) {
		sendOne();
		carry -= 1;
	}
	// Requests that could not be sent now are dropped, not queued up.
	if (carry > 1) carry = 1;
}

let last_cpu = process.cpuUsage();
let last_wall = process.hrtime.bigint();
let cpu_pct = 0;
function adjust() {
	const cpu = process.cpuUsage(last_cpu);
	const now = process.hrtime.bigint();
	cpu_pct = (100 * (cpu.user + cpu.system)) / (Number(now - last_wall) / 1e3);
	last_cpu = process.cpuUsage();
	last_wall = now;
	const err = (target_cpu_pct - cpu_pct) / target_cpu_pct;
	rate_per_s *= 1 + Math.max(-0.2, Math.min(0.2, err * 0.3));
	rate_per_s = Math.max(1, Math.min(5000, rate_per_s));
}

let served_last = 0;
function status() {
	if (!quiet)
		process.stdout.write(`busy-server: ${(served - served_last) / 10} req/s, ` +
			`${cpu_pct.toFixed(0)} % CPU\n`);
	served_last = served;
}

server.listen(0, '127.0.0.1', () => {
	port = server.address().port;
	process.stdout.write(`busy-server: pid ${process.pid}, listening on http://127.0.0.1:${port}/\n` +
		`busy-server: watch it with: ntop-js --pid ${process.pid}\n`);
	setInterval(pace, 10);
	setInterval(adjust, 1000);
	setInterval(status, 10_000);
});

for (const sig of ['SIGINT', 'SIGTERM']) {
	process.on(sig, () => {
		server.close();
		process.exit(0);
	});
}
