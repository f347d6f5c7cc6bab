#!/bin/bash
# --cpu-every: CPU profiling in bursts for long runs. On a warm target with V8's default flags
# (tests/targets/warm.js, which logs every v8.setFlagsFromString and ntop-js's lease), one
# window in three carries a profile that names the hot functions; the windows between carry
# memory only and say when the next burst comes; V8's profiler really stops between bursts
# (its thread, v8:ProfEvntProc, is gone) and the JIT flags go back after every burst.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/warm.js"
wait_ready target || diag "the target did not start"
sleep 3 # hot code warm before the attach

# The profiler's thread, every 0.1 s while ntop-js runs: "1" while it exists, "0" when not.
watch_profiler() {
	local t
	while kill -0 "$1" 2>/dev/null; do
		t=0
		grep -qx 'v8:ProfEvntProc' /proc/"$target_PID"/task/*/comm 2>/dev/null && t=1
		printf '%s\n' "$t"
		sleep 0.1
	done
}
"$NTOP_JS" --pid "$target_PID" --inlining off -b --json -d 1 --cpu-every 3 -n 8 -t 5 \
	>"$WORK/out.jsonl" 2>"$WORK/ntop.err" &
ntop=$!
watch_profiler "$ntop" >"$WORK/thread.txt"
wait "$ntop"
ok $? "ntop-js -b --json -d 1 --cpu-every 3 -n 8: status 0"
check "nothing on stderr" test ! -s "$WORK/ntop.err"
diag "windows: $("$NODE" -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
	const w = JSON.parse(l); process.stdout.write(w.cpu_profiling ? "[" + w.samples + " " + (w.top[0] || {}).function + "] " : "- "); }' "$WORK/out.jsonl" 2>&1)"
check "eight windows, a burst every third (the first at attach)" jsonl_check "$WORK/out.jsonl" '
	l => l.length === 8 && l.map(w => w.cpu_profiling).join() === [1, 0, 0, 1, 0, 0, 1, 0].map(Boolean).join() ||
		l.map(w => w.cpu_profiling).join()'
check "each burst has samples and names the hot functions first, through inlining" jsonl_check "$WORK/out.jsonl" '
	l => l.filter(w => w.cpu_profiling).every(w => w.samples > 200 && w.inlining.exact &&
		w.top.slice(0, 2).map(t => t.function).sort().join() === "hotMain,hotSide") ||
		l.filter(w => w.cpu_profiling).map(w => w.top.slice(0, 3).map(t => t.function + " " + t.self_pct))'
check "the windows between have memory, no samples, and say when the next burst comes" jsonl_check "$WORK/out.jsonl" '
	l => l.filter(w => !w.cpu_profiling).every(w => w.samples === 0 && w.cpu === null &&
		w.mem.heap_used_bytes > 0 && w.next_cpu_burst_s >= 0 && w.next_cpu_burst_s <= 3) ||
		l.filter(w => !w.cpu_profiling).map(w => [w.samples, w.next_cpu_burst_s])'
# Three bursts: the thread came and went three times, and was gone for over a second each time.
runs=$(awk 'BEGIN { r = 0; p = 0 } { if ($1 == 1 && p == 0) r++; p = $1 } END { print r }' "$WORK/thread.txt")
gap=$(awk 'BEGIN { m = 0; z = 0; seen = 0 } { if ($1 == 1) { seen = 1; z = 0 } else if (seen) { z++; if (z > m) m = z } } END { print m }' "$WORK/thread.txt")
ok $([ "$runs" -eq 3 ]; echo $?) "V8's profiler thread ran three times ($runs)"
ok $([ "$gap" -ge 12 ]; echo $?) "and was gone for over a second between bursts (longest $gap x 0.1 s)"
check "and is gone after ntop-js left" bash -c "! grep -qx 'v8:ProfEvntProc' /proc/$target_PID/task/*/comm"
# The JIT step's flags: switched off at each burst, put back after it (when this V8 needs any:
# the bursts' windows name them).
flagged=$("$NODE" -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	console.log(l.filter(w => w.cpu_profiling && w.inlining && w.inlining.v8_flags).length)' "$WORK/out.jsonl" 2>&1)
diag "bursts with flags: $flagged; $(grep -E '^(flags|lease)' "$WORK/target.out" | tr '\n' ' ')"
sets=$(grep -c '^flags --no-' "$WORK/target.out")
restores=$(grep '^flags ' "$WORK/target.out" | grep -vc '^flags --no-')
leases=$(grep -c '^lease on' "$WORK/target.out")
ok $([ "$flagged" = 3 ] || [ "$flagged" = 0 ]; echo $?) "every burst did the same JIT step ($flagged of 3 set flags)"
ok $([ "$restores" -eq "$flagged" ] && [ "$leases" -eq "$flagged" ] && [ $((sets % 3)) -eq 0 ] &&
	{ [ "$sets" -gt 0 ] || [ "$flagged" = 0 ]; }; echo $?) \
	"the flags were put back after each burst that set them ($sets set, $restores put back, $leases leases)"
check "and no lease is left between bursts" bash -c "
	[ \$(grep -c '^lease on' '$WORK/target.out') -eq \$(grep -c '^lease off' '$WORK/target.out') ]"
check "the target is still running" alive "$target_PID"

# Batch text between bursts, and the refusals.
"$NTOP_JS" --pid "$target_PID" -b -d 0.5 --cpu-every 5 -n 2 >"$WORK/out.txt" 2>&1
check "batch text says so between bursts" grep -q '^Window: [0-9]* ms, CPU not profiled (between bursts: the next in [0-9]* s)$' "$WORK/out.txt"
"$NTOP_JS" --pid "$target_PID" -b --cpu-every 60 --no-cpu >/dev/null 2>"$WORK/refuse.err"
ok $([ $? -eq 2 ]; echo $?) "--cpu-every with --no-cpu: usage status 2"
check "with one sentence" grep -qx 'ntop-js: --no-cpu and --cpu-every contradict each other: --cpu-every runs the CPU profiler in bursts, --no-cpu never.' "$WORK/refuse.err"
done_testing
