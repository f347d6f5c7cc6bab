'use strict';
// Benchmark target: a process with many compiled functions, a light periodic workload and an
// event-loop stall monitor.
//
// Why: when no profile is running, V8's Profiler.start re-logs every compiled function on
// the main thread, so a profiler client that starts and stops a profile every window stalls
// a large application once per window. This target makes that cost visible: it compiles
// --functions N distinct functions (default 20000), keeps them compiled by calling each
// one every couple of seconds, and once a second prints the worst event-loop stall of that
// second as one JSON line.
//
// Usage: node many-functions.js [--functions N] [--out FILE] [--duration SECS]
//                                [--busy PCT] [--heap-mb MB]
//                                [--self-check | --self-check-after SECS]
//   --out FILE      append the per-second lines to FILE instead of stdout
//   --duration S    exit after S seconds (default: run until killed)
//   --busy PCT      also keep the main thread busy PCT % of every 10 ms tick calling the
//                   functions in turn; ops counts those calls (a throughput measure)
//   --heap-mb MB    before ready, fill the heap with MB megabytes of small live objects
//                   (pointer-rich records, like an in-memory cache; a large value needs
//                   node --max-old-space-size)
//   --self-check    time an in-process Profiler.start/stop right after compiling (shows the
//                   re-log cost, which grows with the number of compiled functions), then exit
//   --self-check-after S   the same after S seconds of the workload (shows that V8 has not
//                   flushed the functions' bytecode meanwhile)
//   --phases        with --busy: after 15 s, an in-process session alternates 6 s without and
//                   6 s with a 1 ms profile (3 rounds), deoptimizes all code under a running
//                   profile as ntop-js's attach does (a coverage-mode switch) and reads 12 s,
//                   then 3 rounds again; prints one {"event":"phase",...} line a phase, exits.
//                   What the profiler costs, apart from what V8's re-optimizing costs.
//   --intervals LIST  with --phases: instead, three rounds of 5 s without and 5 s with a
//                   profile at each sampling interval of LIST (microseconds, comma-separated:
//                   1000,2000,4000,10000), no deoptimization; one {"event":"interval",...}
//                   line each, the profiled phase's median over the one before it.
//
// Output (one JSON object per line):
//   {"event":"ready","pid":..,"functions":..,"bytecode_added_bytes":..,...}   once
//   {"t":<seconds since ready>,"worst_stall_ms":..,"ticks":..,"ops":..,"ops_per_s":..,
//    "cpu_ms":..,"mono_us":..,"wall_s":<unix time at the end of that second>}  every second
// worst_stall_ms is the longest gap between two runs of a 1 ms timer in that second, minus
// the 1 ms it was asked to wait. A gap is counted in the second in which it ends.
// No npm dependencies; plain `node` (no flags) so that tools can attach by SIGUSR1.

const fs = require('fs');
const vm = require('vm');
const v8 = require('v8');

function parse_args(argv) {
	const opt = { functions: 20000, out: null, duration_s: 0, self_check_after_s: -1, busy_pct: 0, heap_mb: 0 };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const next = () => {
			if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
			return argv[++i];
		};
		if (a === '--functions') opt.functions = Number.parseInt(next(), 10);
		else if (a === '--out') opt.out = next();
		else if (a === '--duration') opt.duration_s = Number(next());
		else if (a === '--busy') opt.busy_pct = Number(next());
		else if (a === '--heap-mb') opt.heap_mb = Number(next());
		else if (a === '--self-check') opt.self_check_after_s = 0;
		else if (a === '--self-check-after') opt.self_check_after_s = Number(next());
		else if (a === '--phases') opt.phases = true;
		else if (a === '--intervals') opt.intervals = next().split(',').map(Number);
		else throw new Error(`unknown argument: ${a}`);
	}
	if (!Number.isInteger(opt.functions) || opt.functions < 0) throw new Error('bad --functions');
	if (!(opt.duration_s >= 0)) throw new Error('bad --duration');
	if (Number.isNaN(opt.self_check_after_s)) throw new Error('bad --self-check-after');
	if (!(opt.busy_pct >= 0 && opt.busy_pct <= 95)) throw new Error('bad --busy (0 to 95)');
	if (!(opt.heap_mb >= 0)) throw new Error('bad --heap-mb');
	if (opt.phases && !(opt.busy_pct > 0)) throw new Error('--phases needs --busy');
	if (opt.intervals && !(opt.phases && opt.intervals.every((v) => Number.isInteger(v) && v >= 100)))
		throw new Error('--intervals needs --phases and intervals of 100 us or more');
	return opt;
}

let opt;
try {
	opt = parse_args(process.argv.slice(2));
} catch (e) {
	process.stderr.write(`many-functions.js: ${e.message}\n`);
	process.exit(2);
}

const out = opt.out ? fs.openSync(opt.out, 'a') : 1;
function emit(obj) {
	fs.writeSync(out, JSON.stringify(obj) + '\n');
}

// Generate the functions in modules of 1000, each compiled as its own script, like the
// chunks of a bundled application. Every function has a distinct name and body so that V8
// cannot share anything between them.
const PER_MODULE = 1000;

function module_source(mod, count) {
	const lines = [];
	const names = [];
	for (let j = 0; j < count; j++) {
		const i = mod * PER_MODULE + j;
		const name = `gen_m${mod}_f${j}`;
		names.push(name);
		lines.push(
			`function ${name}(x, o) {\n` +
			`  let s = (x + ${i}) | 0;\n` +
			`  for (let k = 0; k < ${1 + (i % 3)}; k++) s = (s * 31 + k + ${i % 97}) | 0;\n` +
			`  if (o !== undefined) o.v${i % 7} = s;\n` +
			`  return s ^ ${(i * 2654435761) >>> 0};\n` +
			`}`);
	}
	lines.push(`[${names.join(', ')}]`);
	return lines.join('\n');
}

const code_before = v8.getHeapCodeStatistics();
const t_compile0 = process.hrtime.bigint();
const fns = [];
for (let mod = 0; mod * PER_MODULE < opt.functions; mod++) {
	const count = Math.min(PER_MODULE, opt.functions - mod * PER_MODULE);
	const list = vm.runInThisContext(module_source(mod, count), {
		filename: `generated/module-${mod}.js`,
	});
	for (const f of list) fns.push(f);
}
// Functions are compiled lazily: calling each one once is what gives it bytecode.
let sink = 0;
const scratch = {};
for (const f of fns) sink ^= f(sink, scratch);
const compile_ms = Number(process.hrtime.bigint() - t_compile0) / 1e6;
const code_after = v8.getHeapCodeStatistics();
const bytecode_added =
	code_after.bytecode_and_metadata_size - code_before.bytecode_and_metadata_size;

// The heap filler: records of a few small objects and a string each, kept in arrays of
// 100,000, until the used heap reaches --heap-mb.
const filler = [];
if (opt.heap_mb > 0) {
	const target = opt.heap_mb * 1048576;
	let n = 0;
	while (process.memoryUsage().heapUsed < target) {
		const chunk = new Array(100000);
		for (let k = 0; k < chunk.length; k++, n++)
			chunk[k] = { id: n, name: 'rec-' + n, tags: [n & 7, n & 15], owner: { id: n >>> 4, ok: (n & 1) === 0 } };
		filler.push(chunk);
	}
}
// Keep the filler alive: no closure refers to `filler`, so without this V8 frees it at the
// first full GC after this module's code has run (the heap was only full until then).
globalThis.__bench_filler = filler;

function self_check() {
	const code_now = v8.getHeapCodeStatistics();
	// Same thread, so the callbacks run synchronously: the time around post() is the time
	// the main thread is blocked.
	const inspector = require('inspector');
	const s = new inspector.Session();
	s.connect();
	const timed = (method) => {
		const t0 = process.hrtime.bigint();
		let err = null;
		s.post(method, (e) => { err = e; });
		if (err) throw err;
		return Number(process.hrtime.bigint() - t0) / 1e6;
	};
	timed('Profiler.enable');
	const start_ms = timed('Profiler.start');
	const stop_ms = timed('Profiler.stop');
	s.disconnect();
	emit({
		event: 'self-check', pid: process.pid, functions: fns.length,
		bytecode_added_bytes: bytecode_added,
		bytecode_bytes_per_function: fns.length ? Math.round(bytecode_added / fns.length) : 0,
		bytecode_now_vs_ready_bytes:
			code_now.bytecode_and_metadata_size - code_after.bytecode_and_metadata_size,
		profiler_start_ms: +start_ms.toFixed(2), profiler_stop_ms: +stop_ms.toFixed(2),
		sink,
	});
	process.exit(0);
}
if (opt.self_check_after_s === 0) self_check();
if (opt.self_check_after_s > 0) setTimeout(self_check, opt.self_check_after_s * 1000);

// Light workload: every 10 ms call the next slice of functions (every function runs at
// least every 2 s, so V8 never flushes their bytecode as unused) and make a little garbage.
const SLICE = Math.max(1, Math.ceil(fns.length / 200));
let next_fn = 0;
let keep = []; // holds the garbage of the last tick until the next one
let ops = 0;
let ops_total = 0; // never reset: --phases reads it
setInterval(() => {
	for (let k = 0; k < SLICE && fns.length > 0; k++) {
		sink ^= fns[next_fn](sink, scratch);
		next_fn = (next_fn + 1) % fns.length;
	}
	if (opt.busy_pct > 0 && fns.length > 0) {
		const end = performance.now() + opt.busy_pct / 10;
		do {
			for (let k = 0; k < 64; k++) {
				sink ^= fns[next_fn](sink, scratch);
				next_fn = (next_fn + 1) % fns.length;
			}
			ops += 64;
			ops_total += 64;
		} while (performance.now() < end);
	}
	const batch = [];
	for (let k = 0; k < 50; k++) batch.push({ id: k, label: `item-${k}-${sink & 0xff}` });
	keep = batch;
}, 10);

// Stall monitor: a 1 ms timer chain. The worst gap of each second is reported.
let worst_gap_ns = 0n;
let ticks = 0;
let last_tick = process.hrtime.bigint();
function tick() {
	const now = process.hrtime.bigint();
	const gap = now - last_tick;
	if (gap > worst_gap_ns) worst_gap_ns = gap;
	last_tick = now;
	ticks++;
	setTimeout(tick, 1);
}
setTimeout(tick, 1);

emit({
	event: 'ready', pid: process.pid, functions: fns.length,
	bytecode_added_bytes: bytecode_added,
	bytecode_bytes_per_function: fns.length ? Math.round(bytecode_added / fns.length) : 0,
	compile_ms: +compile_ms.toFixed(1), node: process.version,
	heap_used_mb: +(process.memoryUsage().heapUsed / 1048576).toFixed(0), filler_chunks: filler.length,
});

const t_ready = process.hrtime.bigint();
let seconds = 0;
let prev_t = t_ready;
let prev_cpu = process.cpuUsage();
setInterval(() => {
	seconds++;
	const stall_ms = Math.max(0, Number(worst_gap_ns) / 1e6 - 1);
	const now = process.hrtime.bigint();
	const cpu = process.cpuUsage();
	emit({ t: seconds, worst_stall_ms: +stall_ms.toFixed(2), ticks, ops,
		ops_per_s: +(ops * 1e9 / Number(now - prev_t)).toFixed(1),
		cpu_ms: +((cpu.user - prev_cpu.user + cpu.system - prev_cpu.system) / 1000).toFixed(1),
		mono_us: Number(now / 1000n), wall_s: Date.now() / 1000 });
	worst_gap_ns = 0n;
	ticks = 0;
	ops = 0;
	prev_t = now;
	prev_cpu = cpu;
	if (opt.duration_s > 0 && Number(process.hrtime.bigint() - t_ready) / 1e9 >= opt.duration_s)
		process.exit(0);
}, 1000);

// --phases: ops per second of each second of a phase, and their median.
async function phases() {
	const inspector = require('inspector');
	const s = new inspector.Session();
	s.connect();
	const post = (m, p) => new Promise((res, rej) => s.post(m, p || {}, (e, r) => (e ? rej(e) : res(r))));
	const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
	const phase = async (name, secs) => {
		const rates = [];
		for (let i = 0; i < secs; i++) {
			const ops0 = ops_total, t0 = process.hrtime.bigint();
			await sleep(1000);
			rates.push(Math.round((ops_total - ops0) * 1e9 / Number(process.hrtime.bigint() - t0)));
		}
		const sorted = [...rates].sort((a, b) => a - b);
		emit({ event: 'phase', name, ops_per_s_median: sorted[sorted.length >> 1], ops_per_s: rates });
	};
	await sleep(15000);
	await post('Profiler.enable');
	if (opt.intervals) {
		for (let r = 0; r < 3; r++)
			for (const interval of opt.intervals) {
				const median = async () => {
					const rates = [];
					for (let i = 0; i < 5; i++) {
						const ops0 = ops_total, t0 = process.hrtime.bigint();
						await sleep(1000);
						rates.push((ops_total - ops0) * 1e9 / Number(process.hrtime.bigint() - t0));
					}
					return rates.sort((a, b) => a - b)[2];
				};
				const off = await median();
				await post('Profiler.setSamplingInterval', { interval });
				await post('Profiler.start');
				const on = await median();
				await post('Profiler.stop');
				emit({ event: 'interval', round: r + 1, interval_us: interval, off_ops_per_s: Math.round(off),
					profiled_ops_per_s: Math.round(on), pct: +(100 * on / off).toFixed(1) });
			}
		process.exit(0);
	}
	await post('Profiler.setSamplingInterval', { interval: 1000 });
	const rounds = async (what) => {
		for (let r = 0; r < 3; r++) {
			await phase('off', 6);
			await post('Profiler.start');
			await phase(what, 6);
			await post('Profiler.stop');
		}
	};
	await rounds('profiled');
	await post('Profiler.start');
	await post('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
	await post('Profiler.stopPreciseCoverage');
	await phase('deoptimized, profiled, s 1-6', 6);
	await phase('deoptimized, profiled, s 7-12', 6);
	await post('Profiler.stop');
	await rounds('profiled, after the deoptimization');
	process.exit(0);
}
if (opt.phases) phases().catch((e) => { process.stderr.write(`many-functions.js: ${e.message}\n`); process.exit(1); });

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
