#!/usr/bin/env node
// record-messages.js: records real inspector protocol messages as seeds for the fuzz targets.
//
//   node fuzz/record-messages.js [OUTDIR]     (default: the corpus/ directory beside this file)
//
// A session of Node's own inspector module (the same V8 inspector ntop-js talks to over its
// websocket) runs the commands ntop-js sends. Every reply is written as the protocol sends it,
// {"id":N,"result":{...}} or {"id":N,"error":{"code":C,"message":"..."}}, and every event
// (inspectorNotification) as {"method":"...","params":{...}}, one JSON text per file:
//   OUTDIR/fuzz_envelope/msg-*.json       the messages
//   OUTDIR/fuzz_profile/recorded-profile.json     the Profile of the Profiler.stop reply
//   OUTDIR/fuzz_heapprof/recorded-sampling.json   the SamplingHeapProfile of its reply
// Files over 100 KB are not written (seeds must stay small; the short workloads below keep
// every message under that).
//
// Node's inspector module hands over parsed objects, and reports an error reply as an Error
// whose message is "Inspector error CODE: MESSAGE"; both are turned back into the wire form.
'use strict';

const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const outDir = process.argv[2] || path.join(__dirname, 'corpus');
const MAX_BYTES = 100 * 1024;
const session = new inspector.Session();
let nextId = 1;
const written = [];

function save(dir, name, text) {
	const d = path.join(outDir, dir);
	if (Buffer.byteLength(text) > MAX_BYTES) {
		process.stderr.write(`record-messages.js: ${name}: ${Buffer.byteLength(text)} bytes, not kept\n`);
		return;
	}
	fs.mkdirSync(d, { recursive: true });
	fs.writeFileSync(path.join(d, name), text);
	written.push(path.join(dir, name));
}

// Each call's reply in wire form; name is the seed file to keep it in (or null).
function post(method, params, name) {
	const id = nextId++;
	return new Promise((resolve) => {
		session.post(method, params, (err, result) => {
			let msg;
			if (err) {
				const m = /^Inspector error (-?\d+): ([\s\S]*)$/.exec(err.message);
				msg = { id, error: m ? { code: Number(m[1]), message: m[2] } :
					{ code: -32000, message: err.message } };
			} else {
				msg = { id, result: result || {} };
			}
			if (name)
				save('fuzz_envelope', name, JSON.stringify(msg));
			resolve(msg);
		});
	});
}

// Events: the first few of each method, in the order they arrive.
const eventsSeen = new Map();
session.on('inspectorNotification', (m) => {
	const n = eventsSeen.get(m.method) || 0;
	eventsSeen.set(m.method, n + 1);
	if (n >= 2)
		return;
	const text = JSON.stringify({ method: m.method, params: m.params || {} });
	save('fuzz_envelope', `msg-event-${m.method.replace(/[^A-Za-z0-9]/g, '_')}-${n + 1}.json`, text);
});

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function busy(ms) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end)
		x += fib(18);
	return x;
}

const kept = [];
function leakyCache(n) {
	for (let i = 0; i < n; i++)
		kept.push(Buffer.alloc(256, i).toString('hex'));
}

async function main() {
	session.connect();
	await post('Runtime.enable', {}, 'msg-reply-runtime-enable.json');
	await post('NodeRuntime.notifyWhenWaitingForDisconnect', { enabled: true },
		'msg-reply-notify-disconnect.json');
	await post('Runtime.evaluate', { expression: 'process.version', returnByValue: true },
		'msg-reply-evaluate.json');
	await post('Runtime.evaluate', { expression: 'throw new Error("boom")' },
		'msg-reply-evaluate-exception.json');
	await post('Runtime.getHeapUsage', {}, 'msg-reply-heap-usage.json');
	await post('Profiler.enable', {}, 'msg-reply-profiler-enable.json');
	await post('Profiler.setSamplingInterval', { interval: 500 }, null);
	await post('Profiler.start', {}, 'msg-reply-profiler-start.json');
	busy(40);
	const stop = await post('Profiler.stop', {}, 'msg-reply-profiler-stop.json');
	if (stop.result && stop.result.profile)
		save('fuzz_profile', 'recorded-profile.json', JSON.stringify(stop.result.profile));
	// console.profile() in the target makes the Profiler send its own events
	console.profile('fuzz');
	busy(10);
	console.profileEnd('fuzz');
	await post('Profiler.start', {}, null);
	await post('Profiler.start', {}, 'msg-reply-profiler-start-twice.json');
	await post('Profiler.stop', {}, null);
	await post('Profiler.disable', {}, null);

	await post('HeapProfiler.enable', {}, null);
	await post('HeapProfiler.startSampling', { samplingInterval: 4096 },
		'msg-reply-start-sampling.json');
	leakyCache(2000);
	const samp = await post('HeapProfiler.getSamplingProfile', {}, 'msg-reply-sampling-profile.json');
	if (samp.result && samp.result.profile)
		save('fuzz_heapprof', 'recorded-sampling.json', JSON.stringify(samp.result.profile));
	await post('HeapProfiler.stopSampling', {}, null);
	// HeapProfiler.takeHeapSnapshot through an in-process session crashes Node 20 (SIGSEGV),
	// so the snapshot chunk comes from the recording in tests/fixtures: its last chunk,
	// in the event that carries it.
	const chunks = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tests', 'fixtures',
		'heap-snapshot-chunks.json'), 'utf8'));
	save('fuzz_envelope', 'msg-event-HeapProfiler_addHeapSnapshotChunk-last.json',
		JSON.stringify({ method: 'HeapProfiler.addHeapSnapshotChunk',
			params: { chunk: chunks[chunks.length - 1] } }));
	await post('HeapProfiler.getSamplingProfile', {}, 'msg-reply-sampling-not-started.json');
	await post('HeapProfiler.disable', {}, null);
	await post('Profiler.nosuchMethod', {}, 'msg-reply-unknown-method.json');
	await post('Profiler.setSamplingInterval', { interval: 'x' }, 'msg-reply-bad-params.json');
	session.disconnect();
	process.stdout.write(written.sort().join('\n') + '\n');
}

main().catch((e) => {
	process.stderr.write(`record-messages.js: ${e.stack || e}\n`);
	process.exit(1);
});
