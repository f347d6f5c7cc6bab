#!/bin/bash
# A target that collects precise coverage (NODE_V8_COVERAGE, as c8's and nyc's test runs do):
# an inspector session that enables the Profiler domain switches V8's coverage back to best
# effort when it leaves, wiping the counts, and console.profile() reaches Node's own coverage
# session, which prints every profile to the target's stderr. ntop-js leaves the CPU profiler
# off for it (one sentence), keeps the rest, and the target's coverage file is whole: the
# function's block counts add up to the calls the target made.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

mkdir -p "$WORK/cov" "$WORK/cov2"
NODE_V8_COVERAGE=$WORK/cov start_node cov --inspect-port=0 "$TARGETS/coverage.js" 9000
wait_ready cov
"$NTOP_JS" --pid "$cov_PID" --no-config -b --json -n 3 -d 1 >"$WORK/cov.jsonl" 2>"$WORK/cov-ntop.err"
ok $? "ntop-js ran three windows on the target: status 0"
check "one sentence says the CPU profiler stays off, and why" grep -qx \
	'ntop-js: the CPU profiler stays off: the target collects precise coverage (NODE_V8_COVERAGE), which V8 would end when ntop-js leaves.' \
	"$WORK/cov-ntop.err"
check "the windows carry no profile, and memory" jsonl_check "$WORK/cov.jsonl" '
	l => l.length === 3 && l.every(w => w.cpu_profiling === false && w.cpu === null &&
		w.mem && w.mem.heap_used_bytes > 0) || l'
"$NTOP_JS" --pid "$cov_PID" --no-config -b -n 1 -d 0.5 >"$WORK/cov.txt" 2>/dev/null
check "batch text says why the CPU is not profiled" grep -q \
	'^Window: [0-9]* ms, CPU not profiled (the target collects precise coverage: memory only)$' "$WORK/cov.txt"
# still watched when it ends: it exits at once (not held until ntop-js leaves), with status 10
start=$(date +%s)
"$NTOP_JS" --pid "$cov_PID" --no-config -b --json -n 60 -d 1 >/dev/null 2>"$WORK/cov-end.err"
rc=$?
ok $([ $rc -eq 10 ]; echo $?) "watched to its end: status 10 (target exited), got $rc ($(tail -n 1 "$WORK/cov-end.err"))"
check "it did not wait for ntop-js to leave (ended within 15 s of 60 windows)" test $(($(date +%s) - start)) -lt 15
wait_for 15 grep -q '^calls' "$WORK/cov.out"
wait_for 5 dead "$cov_PID"
# branchy's block counts: the function's own range counts every call; its two branches split
# them (a third and two thirds)
cov_check='
	const fs = require("fs"), [dir, calls] = [process.argv[1], Number(process.argv[2])];
	const files = fs.readdirSync(dir);
	let fn = null;
	for (const f of files)
		for (const s of JSON.parse(fs.readFileSync(dir + "/" + f, "utf8")).result)
			if (s.url.endsWith("/coverage.js"))
				fn = s.functions.find(x => x.functionName === "branchy") || fn;
	if (!fn) { console.log("no coverage of branchy in", files); process.exit(1); }
	const r = fn.ranges;
	const whole = fn.isBlockCoverage && r.length === 3 && r[0].count === calls &&
		r[1].count + r[2].count === calls;
	console.log("calls", calls, "ranges", JSON.stringify(r), "block", fn.isBlockCoverage);
	process.exit(whole ? 0 : 1);'
calls=$(awk '$1 == "calls" {print $2}' "$WORK/cov.out")
check "its coverage file is whole: block counts that add up to its $calls calls" \
	"$NODE" -e "$cov_check" "$WORK/cov" "$calls"
check "nothing was printed to the target's stderr by Node's coverage session" \
	bash -c "! grep -q 'Cannot retrieve id' '$WORK/cov.err'"
diag "the target's stderr: $(head -c 300 "$WORK/cov.err" | tr '\n' ' ')"

# The live view: memory only, and c says why it cannot start the profiler.
require_tmux
NODE_V8_COVERAGE=$WORK/cov2 start_node cov2 --inspect-port=0 "$TARGETS/coverage.js" 60000
wait_ready cov2
term_start 160 40 "$NTOP_JS --pid $cov2_PID --no-config -d 0.5 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
check "the live view says the CPU profiler stays off" wait_screen 10 'stays off: the target collects precise coverage'
keys Escape
check "the table says why" wait_screen 5 'CPU not profiled: the target collects precise coverage'
keys c
check "c says why it cannot" wait_screen 5 'stays off: the target collects precise coverage \(NODE_V8_COVERAGE\)'
sleep 0.5
check "and asks nothing" eval '! screen_has "Start the CPU profiler"'
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "the target is still running" alive "$cov2_PID"
term_stop
done_testing
