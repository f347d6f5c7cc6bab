'use strict';
// Per-second report shared by the benchmark targets (express-app.js, tsc-loop.js): one JSON
// line a second with the work done (ops, counted by the target), the target's CPU time and
// the worst event-loop stall of that second.
//
//   {"t":<seconds since start>,"mono_us":..,"dt_ms":..,"ops":..,"ops_per_s":..,"cpu_ms":..,
//    "worst_stall_ms":..,"heap_used_mb":..[, what opt.extra() returns]}
//
// worst_stall_ms is the longest gap between two runs of a 1 ms timer chain, minus the 1 ms it
// asked for, as in many-functions.js. A target whose work is one long synchronous step
// (tsc-loop.js) gets late lines: dt_ms says how long the line covers, ops_per_s divides by it.
// mono_us is process.hrtime in microseconds: the clock of V8's profiles (startTime,
// endTime), so that a .cpuprofile can be cut to the seconds between two lines.
// SIGINT and SIGTERM end the process with process.exit(0), so that `node --cpu-prof`
// writes its profile.
const fs = require('fs');

function start(opt) {
	const out = opt.out ? fs.openSync(opt.out, 'a') : 1;
	const emit = (obj) => fs.writeSync(out, JSON.stringify(obj) + '\n');
	let ops = 0;
	let worst = 0n;
	let last = process.hrtime.bigint();
	const chain = () => {
		const now = process.hrtime.bigint();
		if (now - last > worst) worst = now - last;
		last = now;
		setTimeout(chain, 1);
	};
	setTimeout(chain, 1);
	const t0 = process.hrtime.bigint();
	let prev_t = t0;
	let prev_cpu = process.cpuUsage();
	let seconds = 0;
	setInterval(() => {
		const now = process.hrtime.bigint();
		const cpu = process.cpuUsage();
		const dt_ms = Number(now - prev_t) / 1e6;
		seconds++;
		emit({
			t: seconds, mono_us: Number(now / 1000n), dt_ms: +dt_ms.toFixed(1), ops, ops_per_s: +(ops * 1000 / dt_ms).toFixed(2),
			cpu_ms: +((cpu.user - prev_cpu.user + cpu.system - prev_cpu.system) / 1000).toFixed(1),
			worst_stall_ms: +Math.max(0, Number(worst) / 1e6 - 1).toFixed(2),
			heap_used_mb: +(process.memoryUsage().heapUsed / 1048576).toFixed(1),
			...(opt.extra ? opt.extra() : {}),
		});
		ops = 0;
		worst = 0n;
		prev_t = now;
		prev_cpu = cpu;
		if (opt.duration_s > 0 && Number(now - t0) / 1e9 >= opt.duration_s) process.exit(0);
	}, 1000);
	for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
	return { count(n = 1) { ops += n; }, emit };
}

module.exports = { start };
