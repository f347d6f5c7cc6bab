#!/bin/bash
# A target that exits during the session: ntop-js says so with status 10, does not hold the
# target back, and still writes what it collected (-o).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/idle.js" 3000
wait_ready target
start=$(date +%s%N)
"$NTOP_JS" --pid "$target_PID" -b --json -d 0.5 -o "$WORK/partial.cpuprofile" \
	>"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
end=$(date +%s%N)
ok $([ $rc -eq 10 ]; echo $?) "target exit gives status 10 (got $rc)"
check "one clear sentence saying the target exited" grep -q "exited" "$WORK/ntop.err"
diag "$(cat "$WORK/ntop.err")"
wait_for 5 dead "$target_PID"
check "the target is gone" dead "$target_PID"
ok $([ $(( (end - start) / 1000000 )) -lt 6000 ]; echo $?) \
	"ntop-js did not keep the target waiting ($(( (end - start) / 1000000 )) ms)"
check "windows before the exit were reported" jsonl_check "$WORK/out.jsonl" 'l => l.length >= 2 || l.length'
check "the profile collected so far was written" test -s "$WORK/partial.cpuprofile"
check "and is a valid .cpuprofile" "$NODE" "$top_srcdir/tests/check-cpuprofile.js" "$WORK/partial.cpuprofile"
done_testing
