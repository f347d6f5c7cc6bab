'use strict';
// Benchmark target: keeps one core busy with a fixed unit of work ("op") and prints how
// many ops it completed in each second, as one JSON line:
//   {"event":"ready","pid":..}                       once
//   {"t":<seconds since ready>,"ops_per_s":..,"cpu_pct":..,"ops_per_cpu_s":..}   every second
// cpu_pct is the process's CPU time (all threads: V8's profiler thread counts too) over that
// second; ops_per_cpu_s = ops / CPU seconds, which other load on the machine changes much
// less than ops_per_s.
// The work runs in slices of about 10 ms with the event loop in between, like a batch job
// written for Node, so timers, signals and the inspector are served promptly.
//
// Usage: node cpu-bound.js [--out FILE] [--duration SECS]
// No npm dependencies; plain `node` (no flags) so that tools can attach by SIGUSR1.

const fs = require('fs');

let out_path = null;
let duration_s = 0;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '--out' && i + 1 < argv.length) out_path = argv[++i];
	else if (argv[i] === '--duration' && i + 1 < argv.length) duration_s = Number(argv[++i]);
	else {
		process.stderr.write(`cpu-bound.js: bad argument: ${argv[i]}\n`);
		process.exit(2);
	}
}
const out = out_path ? fs.openSync(out_path, 'a') : 1;
const emit = (obj) => fs.writeSync(out, JSON.stringify(obj) + '\n');

// One op: hash a few strings, sort a small array, build and summarise a record. Several
// named functions so that a profile of this target has a recognisable shape.
function hashString(s) {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

function sortSmall(seed) {
	const a = new Array(32);
	let x = seed | 1;
	for (let i = 0; i < a.length; i++) {
		x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
		a[i] = x & 0xffff;
	}
	a.sort((p, q) => p - q);
	return a[16];
}

function buildRecord(n) {
	const rec = { id: n, name: `record-${n}`, tags: ['a', 'b', String(n & 7)], total: 0 };
	for (let i = 0; i < 8; i++) rec.total += (n * (i + 1)) % 13;
	return rec;
}

const words = [];
for (let i = 0; i < 64; i++) words.push(`word-${i}-${'x'.repeat(i % 23)}-end`);

let sink = 0;
function doOp(n) {
	sink ^= hashString(words[n & 63]);
	sink ^= sortSmall(n ^ sink);
	sink ^= buildRecord(n).total;
}

let ops = 0;
let n = 0;
function slice() {
	const t_end = process.hrtime.bigint() + 10_000_000n;
	do {
		for (let k = 0; k < 64; k++) doOp(n++);
		ops += 64;
	} while (process.hrtime.bigint() < t_end);
	setImmediate(slice);
}

emit({ event: 'ready', pid: process.pid, node: process.version });
const t_ready = process.hrtime.bigint();
let t_last = t_ready;
let cpu_last = process.cpuUsage();
let seconds = 0;
setInterval(() => {
	const now = process.hrtime.bigint();
	const dt_s = Number(now - t_last) / 1e9;
	const cpu = process.cpuUsage(cpu_last);
	const cpu_s = (cpu.user + cpu.system) / 1e6;
	cpu_last = process.cpuUsage();
	seconds++;
	emit({
		t: seconds, ops_per_s: Math.round(ops / dt_s), cpu_pct: +((100 * cpu_s) / dt_s).toFixed(1),
		ops_per_cpu_s: cpu_s > 0 ? Math.round(ops / cpu_s) : 0, sink: sink & 1,
	});
	ops = 0;
	t_last = now;
	if (duration_s > 0 && Number(now - t_ready) / 1e9 >= duration_s) process.exit(0);
}, 1000);
setImmediate(slice);

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
