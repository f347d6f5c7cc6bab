#!/bin/bash
# A session longer than five minutes. libwebsockets 4.1 gives client connections an idle
# policy that pings after 300 s, and Node drops the connection on any ping: no test shorter
# than that can see it. One batch session of 320 s against a real target must keep its
# windows coming past 300 s, end with status 0 on SIGINT, and never reconnect.
# NTOP_LONG_SESSION_S changes the length (shorter only to try the test itself).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

duration=${NTOP_LONG_SESSION_S:-320}
start_node target --inspect-port=0 "$TARGETS/idle.js"
wait_ready target
"$NTOP_JS" --pid "$target_PID" -b --json -d 1 -t 3 >"$WORK/out.jsonl" 2>"$WORK/ntop.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
started=$(date +%s)
check "the session started" wait_for 10 grep -q '"window_ms"' "$WORK/out.jsonl"
# The connections the target saw until now: the session's, and before it ntop-js's check that
# a process started moments ago has finished starting (one or more, each its own connection).
attaches=$(grep -c 'Debugger attached' "$WORK/target.err")
# Poll: a dropped connection ends ntop-js, and the test says so at once.
while [ $(($(date +%s) - started)) -lt "$duration" ] && alive $ntop; do
	sleep 1
done
lasted=$(($(date +%s) - started))
check "ntop-js is still attached after $lasted s" alive $ntop
kill -INT $ntop
wait $ntop
rc=$?
ok $rc "SIGINT ends the session with status 0 (status $rc)"
[ -s "$WORK/ntop.err" ] && diag "$(cat "$WORK/ntop.err")"
check "nothing on ntop-js's stderr (no lost connection, no reconnect)" test ! -s "$WORK/ntop.err"
"$NODE" -e '
	const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	let gap = 0; for (let i = 1; i < l.length; i++) gap = Math.max(gap, l[i].time - l[i - 1].time);
	console.log("# " + l.length + " windows over " + (l[l.length - 1].time - l[0].time).toFixed(1) + " s, largest gap " + gap.toFixed(2) + " s");' \
	"$WORK/out.jsonl"
check "windows kept coming after 300 s" jsonl_check "$WORK/out.jsonl" '
	l => l.filter(w => w.time - l[0].time > 300).length >= '"$((duration - 300 - 5))"' || l[l.length - 1].time - l[0].time'
check "one window a second, none missing (largest gap under 3 s)" jsonl_check "$WORK/out.jsonl" '
	l => { for (let i = 1; i < l.length; i++) if (l[i].time - l[i - 1].time > 3) return [i, l[i].time - l[i - 1].time];
		return l.length >= '"$((duration - 10))"' || l.length; }'
check "memory readings until the end" jsonl_check "$WORK/out.jsonl" '
	l => l.slice(-10).every(w => w.mem && w.mem.heap_used_bytes > 0 && w.mem.external_bytes > 0) || l.slice(-10).map(w => w.mem)'
check "one target, one session: the target saw no attach after the session's ($attaches before)" \
	test "$attaches" -ge 1 -a "$(grep -c 'Debugger attached' "$WORK/target.err")" -eq "$attaches"
check "the inspector ntop-js opened is closed again" wait_for 5 port_closed "$(inspector_port_of target)"
check "the target is still running" alive "$target_PID"
done_testing
