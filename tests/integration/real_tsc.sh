#!/bin/bash
# Right answers on a real program: the TypeScript compiler (bench/targets/tsc-loop.js, the
# typescript@5 API type-checking 300 generated files in a loop), warmed with V8's default
# flags, then attached by PID, on every Node version of the matrix, against a reference
# recorded from the start of the same workload with inlining off (tests/fixtures/accuracy,
# made by bench/accuracy.sh -k; doc/benchmarks.md section 8).
#
# Shares are of the time in JavaScript with a source file (garbage collection, (program) and
# native or evaluated code without a url left out: the GC share moves by 5-10 points between
# two processes of this program, and ntop-js's own evaluations are not the program's). When
# V8's inlined frames are lost, small hot callees (getNodeLinks, the reference's first) lose
# their time to their callers, and functions the reference hardly sees take points.
#
#   NTOP_TSC_WARM_S   seconds of type-checking before the attach (default 15)
#   NTOP_TSC_TOL      largest error allowed, points of the JavaScript time (default 2.5; a
#                     share over 4 % may be off by 60 % of itself)
#   NTOP_TSC_ARGS     more ntop-js options, e.g. --leave-jit
#
# The last 10 of 30 windows are compared (20 s and more after the attach): the JIT step
# deoptimizes all code, and until V8 has optimized it again the program truly spends its time
# elsewhere (with TurboFan off, getNodeLinks is 1.4 % of Node 18's JavaScript time, not 7 %).
# On an idle machine that takes a cycle or two of the loop; in CI, with the long tests beside
# it, Node 18 read getNodeLinks at 1.7 % over windows 2-11 and at 2.4 % over windows 12-21
# (2026-11-28). The compiler's own per-cycle lines (monitor.js) are printed around the attach,
# with the first cycle back within 1.25 times the median of the 5 before, for the record only:
# in CI the cycles took 2-11 s before the attach and 4-9 s after (two tests side by side on two
# cores, with the sanitizer build of ntop-js among them), so wall time there says how loaded the
# machine is rather than whether V8 is done.
# A loaded machine moves the program's own profile too: in a plain `node --cpu-prof` run of
# the same loop (no ntop-js), getNodeLinks was 6.4 % of the JavaScript time alone and 3.0 %
# beside two busy loops (Node 18, last 20 s of 45-60 s, 2026-11-29). ntop-js read it at 2.6 %
# on Node 18 and 20 in CI, and at 2.3 % on Node 18 beside two busy loops (2.4 % with
# --leave-jit, which leaves the JIT alone), against 8.0 % and 6.6 % on a quiet machine. So this
# test runs alone, after the others (ALONE_TESTS, Makefile.am).
#
# Unlike the express server (real_programs.sh), this compiler's hot functions kept their
# frames after 15 s of warm-up on every version even with --leave-jit (2026-11-25: worst
# 0.4-1.1 points): what the test guards is the attribution of a large real program (names,
# files, lines, shares) after the JIT step, against a from-start reference. It failed on
# distortions it should catch: shares computed against the wrong total (getNodeLinks 1.6 %
# against 6.4 %), and the first windows after the JIT step on a loaded Node 18, while V8 was
# still re-optimizing (1.7 % against 5.7 %).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

versions=${NTOP_NODE_VERSIONS:-$NODE_MATRIX}
warm=${NTOP_TSC_WARM_S:-15}
read -ra extra_args <<<"${NTOP_TSC_ARGS:-}"
tol=${NTOP_TSC_TOL:-2.5}
fixtures=$top_srcdir/tests/fixtures/accuracy

require_npm_deps

# compare REFERENCE.json NTOP.jsonl: prints "max-error worst-key extra-share extra-key" and a
# table of the reference's top 8 on stderr.
compare_js='
	const fs = require("fs");
	const [refFile, ntopFile, tol, cycleFile, epoch0, mono0] = process.argv.slice(1);
	const ref = JSON.parse(fs.readFileSync(refFile, "utf8")).shares;
	const special = new Set(["(garbage collector)", "(program)", "(idle)", "(root)"]);
	const hasFile = k => !special.has(k) && !/ :\d*$/.test(k);
	// the reference: shares of busy time, made shares of the time in functions with a file
	// (the fixture keeps shares from 0.05 %: the long tail is in 100 less what has no file)
	const refJs = Object.entries(ref).filter(([k]) => hasFile(k));
	const refSum = 100 - Object.entries(ref).filter(([k]) => !hasFile(k)).reduce((a, [, v]) => a + v, 0);
	const r = new Map(refJs.map(([k, v]) => [k, 100 * v / refSum]));
	// the cycles of the compiler (one monitor line per type-check of the project: dt_ms, ops 1),
	// on the clock of process.hrtime; the attach was at mono0 (Unix time epoch0)
	const cycles = fs.readFileSync(cycleFile, "utf8").split("\n").filter(l => l.includes("mono_us"))
		.map(JSON.parse).filter(c => c.ops >= 1).map(c => ({ end: c.mono_us, ms: c.dt_ms / c.ops }));
	const before = cycles.filter(c => c.end < Number(mono0)).slice(-5).map(c => c.ms);
	const sorted = [...before].sort((a, b) => a - b), warmMs = sorted.length ? sorted[sorted.length >> 1] : NaN;
	const back = cycles.find(c => c.end - 1000 * c.ms >= Number(mono0) && c.ms <= 1.25 * warmMs);
	const backAt = back ? Number(epoch0) + (back.end - 1000 * back.ms - Number(mono0)) / 1e6 : Infinity;
	console.error("# cycles (ms) before the attach: " + before.map(x => x.toFixed(0)).join(" ") +
		"; after: " + cycles.filter(c => c.end >= Number(mono0)).map(c => c.ms.toFixed(0)).join(" ") +
		(back ? "; warm again " + (backAt - Number(epoch0)).toFixed(1) + " s after the attach" : "; not back to its warm speed in the run"));
	// ntop-js: the last 10 windows (the first is the attach), every function
	const all = fs.readFileSync(ntopFile, "utf8").split("\n").filter(Boolean).map(JSON.parse);
	const w = all.slice(-10);
	console.error(`# windows compared: ${all.length - 9} to ${all.length}` + (back ? `; the compiler ` +
		`was back to its warm speed from window ${all.findIndex(x => x.time - x.window_ms / 1000 >= backAt) + 1}` : ""));
	if (all.length < 20) { console.log("1 999 too_few_windows 999 too_few_windows"); process.exit(0); }
	const self = new Map();
	let js = 0;
	for (const x of w) {
		js += x.window_ms * x.cpu.js_pct / 100;
		for (const f of x.top) {
			const k = f.function + " " + f.url.replace(/^(?:file:\/\/)?\/.*\//, "") + ":" + (f.line ?? "");
			if (!hasFile(k)) { js -= f.self_ms; continue; }
			self.set(k, (self.get(k) || 0) + f.self_ms);
		}
	}
	if (!(js > 0)) { console.log("1 999 no_windows 999 no_windows"); process.exit(0); }
	const n = new Map([...self].map(([k, v]) => [k, 100 * v / js]));
	const top = [...r].sort((a, b) => b[1] - a[1]).slice(0, 8);
	// each within tol points, or 60 % of its share for the few over 4 % (getNodeLinks, whose
	// callers are re-optimized with or without it inlined: 7.1 % against 4.5 % once, with
	// the long tests running beside)
	let worst = -Infinity, worstKey = "-", worstErr = 0;
	for (const [k, v] of top) {
		const e = Math.abs((n.get(k) || 0) - v), over = e - Math.max(Number(tol), 0.6 * v);
		console.error(`# ${k.padEnd(48)} ref ${v.toFixed(1).padStart(5)} %  ntop-js ${(n.get(k) || 0).toFixed(1).padStart(5)} %`);
		if (over > worst) { worst = over; worstKey = k; worstErr = e; }
	}
	// where misplaced time goes: a function the reference puts under 0.5 %
	let extra = 0, extraKey = "-";
	for (const [k, v] of n)
		if ((r.get(k) || 0) < 0.5 && v > extra) { extra = v; extraKey = k; }
	console.error(`# busiest function the reference hardly sees: ${extraKey} ${extra.toFixed(1)} % (ref ${(r.get(extraKey) || 0).toFixed(2)} %)`);
	console.log(worst > 0 ? 1 : 0, worstErr.toFixed(1), worstKey.replace(/ /g, "_"), extra.toFixed(1),
		extraKey.replace(/ /g, "_"));'

for v in $versions; do
	matrix_node "$v" || continue
	t="node $("$nb" --version):"
	ref=$fixtures/tsc-node$v.json
	if [ ! -f "$ref" ]; then
		ok 1 "$t a reference recording exists ($ref)"
		continue
	fi
	tag=${v//[^0-9A-Za-z]/_}
	NODE=$nb start_server "tsc$tag" 60 --inspect-port=0 "$top_srcdir/bench/targets/tsc-loop.js" \
		--dir "$WORK/tsproj$tag" --files 300
	sleep "$warm"
	pv=tsc${tag}_PID
	read -r epoch0 mono0 < <("$NODE" -e 'console.log(Date.now() / 1e3, Number(process.hrtime.bigint() / 1000n))')
	"$NTOP_JS" --pid "${!pv}" --max-pause 60 "${extra_args[@]+"${extra_args[@]}"}" -b --json -n 30 -d 1 -t 1000 >"$WORK/$tag.jsonl" 2>"$WORK/$tag.err"
	rc=$?
	ok $rc "$t ntop-js attached to the warm TypeScript compiler and ran 30 windows"
	[ $rc -eq 0 ] || diag "$(cat "$WORK/$tag.err")"
	read -r bad worst worst_key extra extra_key < <("$NODE" -e "$compare_js" "$ref" "$WORK/$tag.jsonl" "$tol" \
		"$WORK/tsc$tag.out" "$epoch0" "$mono0" 2>"$WORK/$tag.cmp")
	cat "$WORK/$tag.cmp"
	ok "${bad:-1}" \
		"$t the reference's top 8 functions are within $tol points of it, or 60 % of a share over 4 % (worst ${worst:-?}: ${worst_key//_/ })"
	ok $(awk "BEGIN{exit !($extra <= $tol)}"; echo $?) \
		"$t no function the reference puts under 0.5 % takes over $tol % (${extra:-?} %: ${extra_key//_/ })"
	kill "${!pv}" 2>/dev/null
	wait "${!pv}" 2>/dev/null
done
done_testing
