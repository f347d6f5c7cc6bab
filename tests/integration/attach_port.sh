#!/bin/bash
# Attach with --port to an inspector the operator opened: ntop-js must leave it open.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect=127.0.0.1:0 "$TARGETS/hot.js"
wait_ready target
wait_for 5 test -n "$(inspector_port_of target)"
port=$(inspector_port_of target)
"$NTOP_JS" --port "$port" -b --json -n 2 -d 0.5 >"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
ok $rc "ntop-js --port exits 0 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/ntop.err")"
check "two windows" jsonl_check "$WORK/out.jsonl" 'l => l.length === 2 || l.length'
check "the PID behind the port was found" jsonl_check "$WORK/out.jsonl" \
	'l => l[0].target.pid === '"$target_PID"' || l[0].target.pid'
check "an inspector ntop-js did not open stays open" port_open "$port"
check "the target is still running" alive "$target_PID"

"$NTOP_JS" --port "$port" --host localhost -b -n 1 -d 0.2 >"$WORK/text.out" 2>&1
ok $? "--host localhost works"
check "text report names the hot function" grep -q hotMain "$WORK/text.out"

"$NTOP_JS" --port "$port" --host 192.0.2.1 -b -n 1 >/dev/null 2>"$WORK/remote.err"
ok $([ $? -eq 2 ]; echo $?) "a remote host without --allow-remote is a usage error (2)"
check "the refusal explains --allow-remote" grep -q -- --allow-remote "$WORK/remote.err"
done_testing
