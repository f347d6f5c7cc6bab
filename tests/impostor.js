#!/usr/bin/env node
// impostor.js: a fake Node.js inspector, for testing ntop-js against broken or hostile peers.
//
//   node tests/impostor.js SCENARIO
//
// Listens on 127.0.0.1 (a free port) and prints the port as its first line on stdout. Every
// later stdout line records something a test may check: "http GET /json/version host=...",
// "upgrade /PATH host=...", "call METHOD", "console-profile" (an evaluation that starts or
// ends a profile), "client-violation ...", "client-close", "bye" (after "end unanswered=N" with
// slow-replies and slow-refuse).
//
// Scenario "good" answers like Node 20 well enough for ntop-js's CPU windows (console.profile
// rotation, Profiler.start/stop), memory readings and leaving; every other scenario (listed in
// SCENARIOS below) misbehaves in one way. No npm package: the websocket handshake and framing
// are written out here (server frames unmasked, as Node sends them).
'use strict';

const net = require('net');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const scenario = process.argv[2] || 'good';
const log = (s) => process.stdout.write(s + '\n');
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'profile-fib.json'),
	'utf8'));
const TARGET_ID = '0f2c9b43-7d0e-4f8e-9d51-5d7e4c1a2b3c';
const PWN_TITLE = '\u001b]0;pwned\u0007';
const ESCAPES = [PWN_TITLE + 'osc', '\u001b[2Jclear', '\u009b31mcsi8bit', '\u001bPdcs\u001b\\',
	'\u0007bell\u0008bs\r\ncrlf', '\u009d0;pwned\u009c', '\u202eevil\u202c'];

// ---- profiles ----

let clockUs = 1e9; // each profile starts where the previous one ended: windows never overlap

function clone(o) { return JSON.parse(JSON.stringify(o)); }

function timed(p) {
	const span = p.timeDeltas.reduce((a, b) => a + b, 0);
	p.startTime = clockUs;
	p.endTime = clockUs + span + 10;
	clockUs = p.endTime + 1;
	return p;
}

function goodProfile() { return timed(clone(FIXTURE)); }

function escapedProfile() {
	const p = clone(FIXTURE);
	p.nodes.forEach((n, i) => {
		if (n.callFrame.functionName === 'fibHot' || n.callFrame.functionName === 'spinBusyLoop' ||
		    n.callFrame.functionName === 'makeGarbage') {
			n.callFrame.functionName = ESCAPES[i % ESCAPES.length] + '\ud800lone';
			n.callFrame.url = 'file:///tmp/' + ESCAPES[(i + 1) % ESCAPES.length] + '.js';
		}
	});
	return timed(p);
}

// A chain of depth nodes under the root, every sample at the bottom. Built once (as text: it
// is 31 MB, and building it again for each window would make the impostor the slow side).
let chainNodesText = null;
function chainProfileText(depth) {
	if (!chainNodesText)
		chainNodesText = JSON.stringify(chainProfile(depth).nodes);
	const p = timed({ samples: new Array(50).fill(depth + 1), timeDeltas: new Array(50).fill(1000) });
	return `{"nodes":${chainNodesText},"startTime":${p.startTime},"endTime":${p.endTime},` +
		`"samples":${JSON.stringify(p.samples)},"timeDeltas":${JSON.stringify(p.timeDeltas)}}`;
}

function chainProfile(depth) {
	const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '',
		lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2] }];
	for (let i = 2; i <= depth + 1; i++)
		nodes.push({ id: i, callFrame: { functionName: 'deep' + (i % 7), scriptId: '9',
			url: 'file:///deep.js', lineNumber: i % 100, columnNumber: 1 },
			hitCount: i === depth + 1 ? 50 : 0, children: i === depth + 1 ? [] : [i + 1] });
	const samples = new Array(50).fill(depth + 1);
	return timed({ nodes, samples, timeDeltas: new Array(50).fill(1000) });
}

// Broken variants of the real profile. Each must be refused by ntop-js's parser.
const BAD = {
	'unknown-child': (p) => { p.nodes[1].children.push(999999); },
	'cycle': (p) => { p.nodes[p.nodes.length - 1].children = [2]; },
	'self-child': (p) => { p.nodes[3].children.push(p.nodes[3].id); },
	'root-child': (p) => { p.nodes[5].children = [1]; },
	'two-parents': (p) => { p.nodes[2].children.push(p.nodes[6].id); },
	'duplicate-node-id': (p) => { p.nodes[4].id = p.nodes[3].id; },
	'orphan': (p) => { p.nodes.push({ id: 5000, callFrame: p.nodes[1].callFrame,
		hitCount: 0, children: [] }); },
	'unknown-sample': (p) => { p.samples[3] = 424242; },
	'deltas-mismatch': (p) => { p.timeDeltas.pop(); },
	'negative-ids': (p) => { p.nodes[7].id = -7; },
	'negative-hitcount': (p) => { p.nodes[7].hitCount = -1; },
	'float-ids': (p) => { p.samples[0] = 1.5; },
	'huge-ids': (p) => { p.samples[0] = 1e300; },
	'string-numbers': (p) => { p.timeDeltas[0] = '12'; },
	'no-nodes': (p) => { delete p.nodes; },
	'empty-nodes': (p) => { p.nodes = []; p.samples = []; p.timeDeltas = []; },
	'nodes-not-array': (p) => { p.nodes = { id: 1 }; },
	'callframe-not-object': (p) => { p.nodes[2].callFrame = 'x'; },
	'children-not-array': (p) => { p.nodes[2].children = 3; },
};

function badProfile(kind) {
	const p = timed(clone(FIXTURE));
	BAD[kind](p);
	return p;
}

// ---- websocket framing ----

function frameHeader(opcode, len, o = {}) {
	const b0 = (o.fin === false ? 0 : 0x80) | ((o.rsv || 0) << 4) | opcode;
	const mask = o.mask ? 0x80 : 0;
	if (len < 126)
		return Buffer.from([b0, mask | len]);
	if (len < 65536)
		return Buffer.from([b0, mask | 126, len >> 8, len & 255]);
	const h = Buffer.alloc(10);
	h[0] = b0;
	h[1] = mask | 127;
	h.writeBigUInt64BE(BigInt(len), 2);
	return h;
}

function frame(opcode, payload, o = {}) {
	payload = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
	if (!o.mask)
		return Buffer.concat([frameHeader(opcode, payload.length, o), payload]);
	const key = crypto.randomBytes(4);
	const masked = Buffer.from(payload);
	for (let i = 0; i < masked.length; i++)
		masked[i] ^= key[i & 3];
	return Buffer.concat([frameHeader(opcode, payload.length, o), key, masked]);
}

// Reads the client's frames; checks them against what Node's server accepts.
function frameReader(onFrame) {
	let buf = Buffer.alloc(0);
	return (data) => {
		buf = Buffer.concat([buf, data]);
		for (;;) {
			if (buf.length < 2)
				return;
			const fin = (buf[0] & 0x80) !== 0, rsv = (buf[0] >> 4) & 7, opcode = buf[0] & 15;
			const masked = (buf[1] & 0x80) !== 0;
			let len = buf[1] & 127, off = 2;
			if (len === 126) {
				if (buf.length < 4)
					return;
				len = buf.readUInt16BE(2);
				off = 4;
			} else if (len === 127) {
				if (buf.length < 10)
					return;
				len = Number(buf.readBigUInt64BE(2));
				off = 10;
			}
			if (masked)
				off += 4;
			if (buf.length < off + len)
				return;
			const payload = Buffer.from(buf.subarray(off, off + len));
			if (masked)
				for (let i = 0; i < len; i++)
					payload[i] ^= buf[off - 4 + (i & 3)];
			buf = buf.subarray(off + len);
			// Pongs only ever answer the pings of the scenarios that send them.
			if (!masked || !fin || rsv || (opcode !== 1 && opcode !== 8 && opcode !== 10))
				log(`client-violation fin=${fin} rsv=${rsv} opcode=${opcode} masked=${masked}`);
			onFrame(opcode, payload);
		}
	};
}

// ---- the protocol side ----

class Conn {
	constructor(sock) {
		this.sock = sock;
		this.evaluations = 0;
		this.windowsEnded = 0;
		this.timers = [];
	}

	raw(buf) {
		if (!this.sock.destroyed)
			this.sock.write(buf);
	}

	// One protocol message, framed the way the scenario wants.
	send(obj) {
		const text = typeof obj === 'string' || Buffer.isBuffer(obj) ? obj : JSON.stringify(obj);
		const payload = Buffer.isBuffer(text) ? text : Buffer.from(text);
		switch (scenario) {
		case 'binary-frames':
			this.raw(frame(2, crypto.randomBytes(64)));
			break;
		case 'ping-frames':
			this.raw(frame(9, 'are you there?'));
			this.raw(frame(10, 'unsolicited pong'));
			break;
		case 'fragmented':
		case 'fragmented-ping': {
			const a = payload.subarray(0, payload.length >> 2);
			const b = payload.subarray(payload.length >> 2, payload.length >> 1);
			const c = payload.subarray(payload.length >> 1);
			this.raw(frame(1, a, { fin: false }));
			if (scenario === 'fragmented-ping')
				this.raw(frame(9, 'mid-message ping'));
			this.raw(frame(0, b, { fin: false }));
			this.raw(frame(0, c));
			return;
		}
		case 'masked-server-frames':
			this.raw(frame(1, payload, { mask: true }));
			return;
		case 'rsv-bits':
			this.raw(frame(1, payload, { rsv: 4 }));
			return;
		case 'reserved-opcode':
			this.raw(frame(3, 'what is this'));
			break;
		case 'oversized-ping':
			this.raw(Buffer.concat([Buffer.from([0x89, 126, 0, 200]), Buffer.alloc(200, 65)]));
			break;
		case 'fragmented-ping-frame':
			this.raw(frame(9, 'x', { fin: false }));
			break;
		case 'stray-continuation':
			this.raw(frame(0, 'no message to continue'));
			break;
		case 'empty-frames':
			this.raw(frame(1, ''));
			return;
		}
		this.raw(frame(1, payload));
	}

	reply(id, result) { this.send({ id, result }); }

	error(id, message) { this.send({ id, error: { code: -32601, message } }); }

	evaluate(msg) {
		const expr = (msg.params && msg.params.expression) || '';
		const starts = [...expr.matchAll(/\.profile\('([^']*)'\)/g)].map((m) => m[1]);
		const ends = [...expr.matchAll(/\.profileEnd\('([^']*)'\)/g)].map((m) => m[1]);
		this.evaluations++;
		if (starts.length || ends.length)
			log('console-profile');
		// ntop-js's lease on the inspector it opened (a timer that would close it later): a
		// target whose inspector was open before has none, so nothing is its to close.
		if (/ntop-js\.door/.test(expr) && /setInterval/.test(expr)) {
			log('door-lease');
			this.reply(msg.id, { result: { type: 'number', value: 0 } });
			return;
		}
		if (/\.close\(\)/.test(expr)) {
			// Closing the inspector ends the connection before any reply.
			this.raw(frame(8, Buffer.from([0x03, 0xe8])));
			this.sock.end();
			return;
		}
		// ntop-js's JIT step: the version check, then the flags (jit-* scenarios answer as a
		// Node 20 would; jit-evil with a version and flags full of escapes).
		if (/versions\.v8/.test(expr) && scenario.startsWith('jit-')) {
			const value = scenario === 'jit-evil' ?
				{ v8: ESCAPES[0] + '11.3', flags: PWN_TITLE.repeat(500), cov: 'yes' } :
				{ v8: '11.3.244.8-node.38', flags: '--inspect-port=0', cov: false };
			this.reply(msg.id, { result: { type: 'object', value } });
			return;
		}
		// The pause check before the profiler: a small heap, or (pause-big) a 2.8 GB one.
		if (/ntopJsPauseCheck/.test(expr)) {
			const value = scenario === 'pause-big' ? { u: 3e9, b: null, k: null, v: '11.3.244.8' } :
				{ u: 5e6, b: 1e5, k: 2e5, v: '11.3.244.8-node.38' };
			this.reply(msg.id, { result: { type: 'object', value } });
			return;
		}
		// Switching the inlining flags off: the flags to try; every one is said to have been on.
		const off = expr.match(/l='([^']*)'\.split/);
		if (off) {
			log('switch-off ' + off[1]);
			this.reply(msg.id, { result: { type: 'string', value: off[1] } });
			return;
		}
		// Putting them back: the lease's own function (flags, then a deoptimization).
		if (/if\(s&&s\.id===id\)s\.b\(\)/.test(expr))
			log('put-back');
		if (/getHeapSpaceStatistics/.test(expr)) {
			const name = scenario === 'escapes' ? ESCAPES[0] + 'space' : 'old_space';
			if (scenario === 'bad-memory') {
				// Strings that are not JSON, wrong types, a value that is not a string.
				const bad = ['{"e":', '[1,2', JSON.stringify({ e: 'big', a: -5, s: [[1, 2, 3],
					'x', [PWN_TITLE, 'a', 'b'], [PWN_TITLE, -1, 1e308]] })];
				this.reply(msg.id, { result: { type: 'string', value: bad[this.evaluations % 3] } });
				return;
			}
			this.reply(msg.id, { result: { type: 'string', value: JSON.stringify({ e: 1e6,
				a: 5e5, s: [['new_space', 1e6, 2e6], [name, 3e6, 4e6]] }) } });
			return;
		}
		for (const title of ends) {
			this.windowsEnded++;
			this.profileFinished(title);
		}
		if (scenario === 'exception')
			this.reply(msg.id, { result: { type: 'object', subtype: 'error' },
				exceptionDetails: { text: 'Uncaught', exceptionId: 1 } });
		else
			this.reply(msg.id, { result: { type: 'undefined' } });
		void starts;
	}

	profileFor(n) {
		if (scenario.startsWith('bad-profile-once-'))
			return n === 1 ? badProfile(scenario.slice(17)) : goodProfile();
		if (scenario.startsWith('bad-profile-'))
			return badProfile(scenario.slice(12));
		if (scenario === 'escapes')
			return escapedProfile();
		if (scenario === 'negative-deltas') {
			const p = goodProfile();
			p.timeDeltas = p.timeDeltas.map((d, i) => (i % 3 ? -d : d));
			return p;
		}
		if (scenario === 'huge-values') {
			const p = goodProfile();
			p.startTime = 1e308;
			p.endTime = -1e308;
			p.timeDeltas = p.timeDeltas.map(() => 9007199254740991);
			return p;
		}
		if (scenario === 'long-names') {
			const p = goodProfile();
			p.nodes[7].callFrame.functionName = 'n'.repeat(200000) + 'END';
			p.nodes[7].callFrame.url = 'file:///' + 'd/'.repeat(100000) + 'x.js';
			return p;
		}
		return goodProfile();
	}

	profileFinished(title) {
		const n = this.windowsEnded;
		if (scenario === 'no-profile-event')
			return;
		if (scenario === 'wrong-title')
			title = title + 'x';
		if (scenario === 'stray-profiles') {
			// What another debugger or the app's own console.profile would produce.
			this.send({ method: 'Profiler.consoleProfileFinished', params: { id: 'x',
				title: 'app-profile', profile: { nodes: 'garbage' } } });
			this.send({ method: 'Profiler.consoleProfileFinished', params: { id: 'y',
				profile: 17 } });
			this.send({ method: 'Profiler.consoleProfileFinished', params: 'not an object' });
		}
		if (scenario === 'deep-chain') {
			this.send(`{"method":"Profiler.consoleProfileFinished","params":{"id":"${n}",` +
				`"title":${JSON.stringify(title)},"profile":${chainProfileText(200000)}}}`);
			return;
		}
		if (scenario === 'profile-missing') {
			this.send({ method: 'Profiler.consoleProfileFinished', params: { id: String(n),
				title } });
			return;
		}
		if (scenario === 'profile-nan') {
			const text = JSON.stringify({ method: 'Profiler.consoleProfileFinished', params: {
				id: String(n), title, profile: this.profileFor(n) } });
			this.send(text.replace(/"timeDeltas":\[(\d+)/, '"timeDeltas":[NaN'));
			return;
		}
		if (scenario === 'invalid-utf8') {
			const p = this.profileFor(n);
			p.nodes[8].callFrame.functionName = '@@BAD@@';
			const text = Buffer.from(JSON.stringify({ method: 'Profiler.consoleProfileFinished',
				params: { id: String(n), title, profile: p } }));
			const at = text.indexOf('@@BAD@@');
			this.send(Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xc0, 0x80,
				0xed, 0xa0, 0x80, 0x1b]), text.subarray(at + 7)]));
			return;
		}
		this.send({ method: 'Profiler.consoleProfileFinished', params: { id: String(n),
			location: { scriptId: '0', lineNumber: 0, columnNumber: 0 }, profile:
			this.profileFor(n), title } });
	}

	// The well-behaved answer to one request.
	answer(msg) {
		const id = msg.id;
		switch (msg.method) {
		case 'Profiler.enable':
		case 'Profiler.disable':
		case 'Profiler.setSamplingInterval':
		case 'Profiler.start':
		case 'NodeRuntime.notifyWhenWaitingForDisconnect':
		case 'HeapProfiler.enable':
		case 'HeapProfiler.disable':
		case 'HeapProfiler.startSampling':
		case 'HeapProfiler.stopSampling':
			if (scenario === 'result-wrong-type')
				return this.send({ id, result: ['not', 'an', 'object'] });
			if (scenario === 'result-string')
				return this.send({ id, result: 'yes' });
			if (scenario === 'no-result')
				return this.send({ id });
			return this.reply(id, {});
		case 'Profiler.stop':
			this.windowsEnded++;
			return this.reply(id, { profile: this.profileFor(this.windowsEnded) });
		case 'Runtime.evaluate':
			return this.evaluate(msg);
		case 'Profiler.startPreciseCoverage':
		case 'Profiler.stopPreciseCoverage':
			if (scenario === 'jit-v8-11' || (scenario === 'jit-refused' &&
			    msg.method === 'Profiler.stopPreciseCoverage'))
				return this.reply(id, {});
			return this.error(id, `'${msg.method}' wasn't found`);
		case 'Runtime.getHeapUsage':
			if (scenario === 'bad-memory')
				return this.reply(id, { usedSize: 'lots', totalSize: -1, extra: [PWN_TITLE] });
			return this.reply(id, { usedSize: 5e6, totalSize: 8e6 });
		case 'HeapProfiler.getSamplingProfile':
			return this.reply(id, { profile: { head: { callFrame: { functionName: '(root)',
				scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, selfSize: 0, id: 1,
				children: [] }, samples: [] } });
		default:
			return this.error(id, `'${msg.method}' wasn't found`);
		}
	}

	onMessage(text) {
		let msg;
		try {
			msg = JSON.parse(text);
		} catch (e) {
			log('client-violation not-json');
			return;
		}
		log('call ' + msg.method + (process.env.IMPOSTOR_TIMES ? ' ' + (Date.now() % 100000) : ''));
		const first = !this.gotFirst;
		this.gotFirst = true;
		switch (scenario) {
		case 'never-reply':
			return;
		case 'never-reply-evaluate':
			// Only the evaluations that start or end a profile go unanswered.
			if (msg.method === 'Runtime.evaluate' &&
			    /\.profile\(/.test((msg.params && msg.params.expression) || ''))
				return;
			break;
		case 'never-reply-getheapusage':
			if (msg.method === 'Runtime.getHeapUsage')
				return;
			break;
		case 'slow-refuse':
			// the first profile's start refused at once, while the calls before it are still
			// being answered: a failure must not end the connection before their answers
			if (msg.method === 'Runtime.evaluate' &&
			    /\.profile\(/.test((msg.params && msg.params.expression) || ''))
				return this.error(msg.id, 'Another profiler is already running');
			// fall through
		case 'slow-replies':
			// how many are unanswered when the client leaves: Node 20 writes a late answer to
			// a connection whose end it has read into freed memory, and dies of it
			this.unanswered = (this.unanswered || 0) + 1;
			setTimeout(() => { this.unanswered--; this.answer(msg); }, 400);
			return;
		case 'not-json':
			return this.send('this is not JSON at all');
		case 'truncated-json':
			return this.send(`{"id":${msg.id},"result":{"profile":{"nodes":[{"id":1,"callFr`);
		case 'trailing-garbage':
			return this.send(`{"id":${msg.id},"result":{}} {"id":${msg.id}}`);
		case 'json-array':
			return this.send(`[{"id":${msg.id},"result":{}}]`);
		case 'json-number':
			return this.send('42');
		case 'deep-json':
			return this.send(`{"id":${msg.id},"result":{"x":` + '['.repeat(100000) +
				']'.repeat(100000) + '}}');
		case 'wrong-id':
			return this.send({ id: msg.id + 1000, result: {} });
		case 'negative-id':
			return this.send({ id: -msg.id, result: {} });
		case 'id-string':
			return this.send({ id: String(msg.id), result: {} });
		case 'id-float':
			return this.send({ id: msg.id + 0.5, result: {} });
		case 'id-huge':
			return this.send(`{"id":1e300,"result":{}}`);
		case 'duplicate-id':
			this.answer(msg);
			this.answer(msg);
			return;
		case 'error-escape':
			return this.send({ id: msg.id, error: { code: -32000, message: PWN_TITLE +
				'\u001b[2J\u009b31m refused' } });
		case 'huge-message':
		case 'huge-message-dribble':
			if (!first)
				break;
			// 600 MB announced, some sent (256 KB: more than one receive buffer; or 1 KB),
			// then a byte now and then: ntop-js must neither wait for the rest nor allocate it.
			this.hugeAt = Date.now();
			this.raw(frameHeader(1, 600 * 1024 * 1024));
			this.raw(Buffer.from(`{"id":${msg.id},"result":{"junk":"` + 'x'.repeat(
				scenario === 'huge-message' ? 256 * 1024 : 1000)));
			this.timers.push(setInterval(() => this.raw(Buffer.from('x')), 100));
			return;
		case 'huge-message-under-cap':
			if (!first)
				break;
			// Just under ntop-js's 512 MB cap, then a trickle: only the timeout ends it.
			this.raw(frameHeader(1, 511 * 1024 * 1024));
			this.raw(Buffer.from(`{"id":${msg.id},"result":{"junk":"`));
			this.timers.push(setInterval(() => this.raw(Buffer.from('x')), 100));
			return;
		case 'huge-length-max':
			// The largest length a frame may announce (2^63 - 1), then a full receive buffer.
			this.raw(Buffer.from([0x81, 127, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
			this.raw(Buffer.alloc(128 * 1024, 0x20));
			return;
		case 'close-mid-message':
			this.raw(frameHeader(1, 10000));
			this.raw(Buffer.from(`{"id":${msg.id},"result":{"a":"`));
			setTimeout(() => this.sock.destroy(), 50);
			return;
		case 'tcp-reset':
			if (msg.method === 'Runtime.evaluate' && this.evaluations >= 1) {
				this.sock.resetAndDestroy();
				return;
			}
			break;
		case 'close-frame-escape':
			if (msg.method === 'Runtime.evaluate') {
				const reason = Buffer.from(PWN_TITLE + '\u001b[2Jbye');
				this.raw(frame(8, Buffer.concat([Buffer.from([0x03, 0xe8]), reason])));
				return;
			}
			break;
		case 'waiting-for-disconnect':
			if (msg.method === 'Runtime.evaluate') {
				this.answer(msg);
				return this.send({ method: 'NodeRuntime.waitingForDisconnect', params: {} });
			}
			break;
		case 'detached':
			if (msg.method === 'Runtime.evaluate') {
				this.answer(msg);
				return this.send({ method: 'Inspector.detached', params: {
					reason: PWN_TITLE + 'target_closed' } });
			}
			break;
		case 'exception':
			if (msg.method !== 'Runtime.evaluate')
				break;
			return this.answer(msg);
		}
		this.answer(msg);
	}

	onOpen() {
		if (scenario === 'close-after-upgrade') {
			this.sock.end();
			return;
		}
		if (scenario === 'event-flood') {
			// Thousands of events a second that ntop-js never asked for.
			let n = 0;
			this.flooded = () => n;
			this.timers.push(setInterval(() => {
				for (let i = 0; i < 60; i++, n++)
					this.send(i % 4 === 0 ? { method: 'Debugger.scriptParsed', params: {
						scriptId: String(n), url: 'file:///x' + n + '.js', startLine: 0 } } :
						i % 4 === 1 ? { method: 'Made.up' + (n % 50), params: [n, PWN_TITLE] } :
						i % 4 === 2 ? { method: 'HeapProfiler.addHeapSnapshotChunk', params: {
							chunk: '{"snapshot":' } } :
						{ method: 'Runtime.consoleAPICalled', params: { type: 'log',
							args: [{ type: 'string', value: 'x'.repeat(n % 500) }] } });
			}, 10));
		}
	}

	close() {
		for (const t of this.timers)
			clearInterval(t);
		if (this.flooded)
			log(`flood-sent ${this.flooded()}`);
		if (this.hugeAt)
			log(`closed ${Date.now() - this.hugeAt} ms after the huge header`);
	}
}

// ---- HTTP ----

function httpReply(sock, status, body, type = 'application/json; charset=UTF-8') {
	const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
	sock.end(Buffer.concat([Buffer.from(`HTTP/1.0 ${status} ${status === 200 ? 'OK' :
		'Error'}\r\nContent-Type: ${type}\r\nCache-Control: no-cache\r\n` +
		`Content-Length: ${b.length}\r\n\r\n`), b]));
}

function versionBody() {
	switch (scenario) {
	case 'not-node-version':
		return JSON.stringify({ Browser: 'Chrome/120.0.6099.71', 'Protocol-Version': '1.3' });
	case 'version-escape':
		return JSON.stringify({ Browser: 'node.js/v20' + PWN_TITLE, 'Protocol-Version': '1.1' });
	case 'version-not-object':
		return '"node.js/v20.20.2"';
	default:
		return JSON.stringify({ Browser: 'node.js/v20.20.2', 'Protocol-Version': '1.1' });
	}
}

function listBody(port) {
	const t = {
		description: 'node.js instance',
		faviconUrl: 'https://nodejs.org/static/images/favicons/favicon.ico',
		id: TARGET_ID,
		title: 'impostor.js',
		type: 'node',
		url: 'file:///impostor.js',
		webSocketDebuggerUrl: `ws://127.0.0.1:${port}/${TARGET_ID}`,
	};
	switch (scenario) {
	case 'list-empty':
		return '[]';
	case 'list-not-array':
		return JSON.stringify(t);
	case 'list-foreign-host':
		t.webSocketDebuggerUrl = `ws://203.0.113.9:1/${TARGET_ID}-foreign`;
		break;
	case 'list-crlf':
		t.webSocketDebuggerUrl = `ws://127.0.0.1:${port}/${TARGET_ID}\r\nX-Evil: 1`;
		break;
	case 'list-no-url':
		delete t.webSocketDebuggerUrl;
		break;
	case 'escapes':
		t.title = ESCAPES.join(' ');
		break;
	}
	return JSON.stringify([t]);
}

function wsAccept(key) {
	return crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
		.digest('base64');
}

function upgrade(sock, req, rest) {
	log(`upgrade ${req.path} host=${req.headers.host || ''}`);
	switch (scenario) {
	case 'upgrade-refused':
		return httpReply(sock, 400, 'WebSockets request was expected\r\n', 'text/plain');
	case 'upgrade-redirect':
		sock.end(`HTTP/1.1 302 Found\r\nLocation: ws://127.0.0.1:${decoy.address().port}/` +
			`${TARGET_ID}\r\nContent-Length: 0\r\n\r\n`);
		return;
	case 'upgrade-silent':
		return;
	case 'upgrade-slowloris': {
		const text = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n';
		let i = 0;
		const t = setInterval(() => {
			if (sock.destroyed)
				return clearInterval(t);
			sock.write(text[i++ % text.length]);
		}, 150);
		return;
	}
	}
	const accept = scenario === 'upgrade-bad-accept' ? wsAccept('wrong') :
		wsAccept(req.headers['sec-websocket-key'] || '');
	let extra = '';
	if (scenario === 'upgrade-extension')
		extra = 'Sec-WebSocket-Extensions: permessage-deflate\r\n';
	if (scenario === 'upgrade-protocol')
		extra = 'Sec-WebSocket-Protocol: evil\r\n';
	sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n` +
		`Connection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${extra}\r\n`);
	const c = new Conn(sock);
	const read = frameReader((opcode, payload) => {
		if (opcode === 1)
			c.onMessage(payload.toString('utf8'));
		else if (opcode === 8) {
			log('client-close');
			if (scenario === 'no-close-ack')
				return; // neither answers the close nor closes the connection
			c.raw(frame(8, payload.subarray(0, 2)));
			sock.end();
		}
	});
	sock.on('data', read);
	sock.on('close', () => {
		c.close();
		if (scenario === 'slow-replies' || scenario === 'slow-refuse')
			log('end unanswered=' + (c.unanswered || 0));
		log('bye');
	});
	c.onOpen();
	if (rest.length)
		read(rest);
}

function onHttp(sock, head, rest) {
	const lines = head.split('\r\n');
	const [method, reqPath] = lines[0].split(' ');
	const headers = {};
	for (const l of lines.slice(1)) {
		const i = l.indexOf(':');
		if (i > 0)
			headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
	}
	const req = { method, path: reqPath, headers };
	if ((headers.upgrade || '').toLowerCase() === 'websocket')
		return upgrade(sock, req, rest);
	log(`http ${method} ${reqPath} host=${headers.host || ''}`);
	const port = server.address().port;
	switch (scenario) {
	case 'not-http':
		return sock.end('SSH-2.0-OpenSSH_9.6\r\n');
	case 'http-404':
		return httpReply(sock, 404, 'WebSockets request was expected\r\n', 'text/plain');
	case 'not-node-html':
		return httpReply(sock, 200, '<!doctype html><title>' + PWN_TITLE + '</title><p>hi',
			'text/html');
	case 'http-slowloris': {
		const text = 'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n';
		let i = 0;
		const t = setInterval(() => {
			if (sock.destroyed)
				return clearInterval(t);
			sock.write(text[i++ % text.length]);
		}, 150);
		return;
	}
	case 'http-huge-length':
		sock.write('HTTP/1.0 200 OK\r\nContent-Length: 10000000000\r\n\r\n{"Browser":"');
		return;
	case 'http-endless': {
		sock.write('HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[');
		const chunk = Buffer.alloc(65536, 0x20);
		const pump = () => { while (!sock.destroyed && sock.write(chunk)); };
		sock.on('drain', pump);
		pump();
		return;
	}
	case 'http-no-end':
		// A length longer than the body, and the connection kept open.
		sock.write('HTTP/1.0 200 OK\r\nContent-Length: 500\r\n\r\n{"Browser":"node.js/v20"}');
		return;
	case 'http-huge-header':
		sock.write('HTTP/1.0 200 OK\r\nX-Pad: ' + 'a'.repeat(200000) + '\r\n\r\n');
		return;
	}
	if (reqPath === '/json/version')
		return httpReply(sock, 200, versionBody());
	if (reqPath === '/json/list' || reqPath === '/json')
		return httpReply(sock, 200, listBody(port));
	return httpReply(sock, 404, 'WebSockets request was expected\r\n', 'text/plain');
}

const server = net.createServer((sock) => {
	let buf = Buffer.alloc(0);
	sock.on('error', () => {});
	if (scenario === 'tcp-silent')
		return; // accepts, reads nothing, answers nothing
	const onData = (d) => {
		buf = Buffer.concat([buf, d]);
		const end = buf.indexOf('\r\n\r\n');
		if (end < 0)
			return;
		sock.removeListener('data', onData);
		onHttp(sock, buf.subarray(0, end).toString('latin1'), buf.subarray(end + 4));
	};
	sock.on('data', onData);
});

// A second listener: the place a redirect points to. Nothing may ever connect to it.
const decoy = net.createServer((sock) => {
	log('decoy-connected');
	sock.destroy();
});

decoy.listen(0, '127.0.0.1', () => {
	server.listen(0, '127.0.0.1', () => log(String(server.address().port)));
});

// The test kills us; an orphan must not outlive it for long.
setTimeout(() => process.exit(0), 120000).unref();
process.on('SIGTERM', () => process.exit(0));
