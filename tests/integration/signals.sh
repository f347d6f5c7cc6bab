#!/bin/bash
# SIGINT or SIGTERM end a batch session cleanly: status 0, the inspector ntop-js opened is
# closed, the target lives on. --no-eval works and says what it costs.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/hot.js"
wait_ready target
"$NTOP_JS" --pid "$target_PID" -b -d 0.3 >"$WORK/out.txt" 2>"$WORK/ntop.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 grep -q hotMain "$WORK/out.txt"
port=$(inspector_port_of target)
kill -INT $ntop
wait $ntop
rc=$?
ok $rc "SIGINT ends the session with status 0 (got $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/ntop.err")"
check "the inspector was closed" wait_for 5 port_closed "$port"
check "the target is still running" alive "$target_PID"

"$NTOP_JS" --pid "$target_PID" -b -d 0.3 >"$WORK/out2.txt" 2>"$WORK/ntop2.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 grep -q hotMain "$WORK/out2.txt"
kill -TERM $ntop
wait $ntop
ok $? "SIGTERM ends a second session on the same target with status 0"
check "the target reopened and closed its inspector twice" \
	test "$(grep -c 'Debugger listening' "$WORK/target.err")" -eq 2

"$NTOP_JS" --pid "$target_PID" -b --json -n 2 -d 0.3 --no-eval >"$WORK/noeval.jsonl" 2>"$WORK/noeval.err"
ok $? "--no-eval runs"
check "--no-eval reports windows" jsonl_check "$WORK/noeval.jsonl" 'l => l.length === 2 || l.length'
check "--no-eval explains its cost" grep -q "no-eval" "$WORK/noeval.err"
check "--no-eval says the inspector stays open" grep -q "stays open" "$WORK/noeval.err"
done_testing
