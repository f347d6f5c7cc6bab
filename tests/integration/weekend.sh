#!/bin/bash
# The unattended weekend: --log survives kill -9 of ntop-js with every line up to the last
# second; --follow re-attaches when the service comes back and marks the gap.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/idle.js"
wait_ready target
"$NTOP_JS" --pid "$target_PID" -b --json -d 0.5 --mem-interval 0.2 --log "$WORK/run.log" \
	>/dev/null 2>"$WORK/ntop.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 grep -q '"type":"window"' "$WORK/run.log"
sleep 2
kill -9 $ntop
killed_at=$(date +%s.%N)
wait $ntop 2>/dev/null
check "the log has an attach record" grep -q '"type":"attach"' "$WORK/run.log"
check "every complete line of the log is JSON" "$NODE" -e '
	const t = require("fs").readFileSync(process.argv[1], "utf8"); const lines = t.split("\n");
	const last = lines.pop(); // "" when the file ends with a newline, else a torn line
	for (const l of lines) JSON.parse(l);' "$WORK/run.log"
check "memory readings up to the last second before kill -9" "$NODE" -e '
	const l = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
	const mem = l.map(x => { try { return JSON.parse(x); } catch (e) { return null; } }).filter(r => r && r.type === "mem");
	const gap = Number(process.argv[2]) - mem[mem.length - 1].time;
	if (!(mem.length >= 10 && gap < 1.0)) { console.error(mem.length, gap); process.exit(1); }' "$WORK/run.log" "$killed_at"
check "the log file is private (0600)" test "$(stat -c %a "$WORK/run.log")" = 600
check "the target is still running after ntop-js was killed" alive "$target_PID"
port=$(inspector_port_of target)
diag "the inspector stays open after kill -9 (port $port): nothing could close it"

# --follow: kill the target, start it again with the same command line.
start_node svc --inspect-port=0 "$TARGETS/idle.js"
wait_ready svc
"$NTOP_JS" --pid "$svc_PID" -b --json -d 0.5 --follow --log "$WORK/follow.log" \
	>"$WORK/follow.jsonl" 2>"$WORK/follow.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 grep -q '"window_ms"' "$WORK/follow.jsonl"
old=$svc_PID
kill $old
wait $old 2>/dev/null
sleep 1.5
start_node svc --inspect-port=0 "$TARGETS/idle.js"
wait_ready svc
check "ntop-js re-attached to the new process" wait_for 15 grep -q "\"pid\":$svc_PID" "$WORK/follow.jsonl"
check "ntop-js is still running" alive "$ntop"
diag "$(cat "$WORK/follow.err")"
kill -INT $ntop
wait $ntop
ok $? "SIGINT ends the followed session with status 0"
check "the log records the exit and the second attach" "$NODE" -e '
	const r = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	const types = r.map(x => x.type);
	const exit = types.indexOf("target_exit"), att2 = types.lastIndexOf("attach");
	if (!(exit > 0 && att2 > exit && r[att2].target.pid === Number(process.argv[2]))) { console.error(types.join(",")); process.exit(1); }' \
	"$WORK/follow.log" "$svc_PID"
check "the follow message was printed" grep -q "Waiting for it to come back" "$WORK/follow.err"
done_testing
