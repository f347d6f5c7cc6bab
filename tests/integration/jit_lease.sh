#!/bin/bash
# The V8 flags ntop-js sets for a session come back even when it cannot put them back itself:
# killed with SIGKILL, it leaves a lease in the target that its windows renewed, and once the
# lease lapses (a minute at these settings) a timer in the target puts the flags back and
# removes itself; while ntop-js runs, its windows keep renewing the lease. A polite exit puts
# them back at once (warm_accuracy.sh checks that). The inspector ntop-js opened has a lease
# of the same length: once it lapses, the target closes the inspector itself (every other
# exit closes it at once: exits_close.sh). The request channels a session subscribes to in an
# express server are unsubscribed by the target's own watchdog once ntop-js stopped reading.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_npm_deps
command -v ss >/dev/null 2>&1 || skip_all "ss (iproute2) not found"


flag_lines() { grep -c '^flags' "$WORK/target.out"; }
has_line() { grep -qx -- "$1" "$WORK/target.out"; }

# sleep_until EPOCH-SECONDS
sleep_until() { local d=$(( $1 - $(date +%s) )); [ "$d" -gt 0 ] && sleep "$d"; return 0; }
# cpu_ticks PID: the process's CPU time so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# subs PORT: which request channels have subscribers in tests/targets/http.js on PORT.
subs() {
	"$NODE" -e 'require("http").get("http://127.0.0.1:" + process.argv[1] + "/subs",
		r => { let b = ""; r.on("data", d => b += d); r.on("end", () => console.log(b)); })' "$1"
}

start_node target --inspect-port=0 "$TARGETS/warm.js"
wait_ready target
# An express server whose session is killed with the others below.
start_server web 15 --inspect-port=0 "$TARGETS/http.js"
web_port=$web_PORT
"$NTOP_JS" --pid "$web_PID" -b --json -d 0.5 --timeout 5 >"$WORK/web.jsonl" 2>"$WORK/web.err" &
web_ntop=$!
pids_to_kill="$pids_to_kill $web_ntop"
# Beside it, a session that is stopped (SIGSTOP, as a suspended ntop-js is) for longer than
# the lease: its connection is still open, and Node's inspector.close() would wait for it
# with the target's loop blocked, so the lease waits for that client to go instead.
start_node held --inspect-port=0 "$TARGETS/hot.js"
wait_ready held
"$NTOP_JS" --pid "$held_PID" --inlining off -b --json -d 0.5 --timeout 5 >"$WORK/held.jsonl" 2>"$WORK/held.err" &
held_ntop=$!
pids_to_kill="$pids_to_kill $held_ntop"
wait_for 20 eval '[ "$(wc -l <"$WORK/held.jsonl")" -ge 2 ]'
kill -STOP "$held_ntop"
# And a third target whose session is killed: a session that comes once its leases have gone
# unrenewed for half their length takes them over (below).
start_node again --inspect-port=0 "$TARGETS/warm.js"
wait_ready again
"$NTOP_JS" --pid "$again_PID" --inlining off -b --json -d 0.5 >/dev/null 2>"$WORK/again1.err" &
again_ntop=$!
pids_to_kill="$pids_to_kill $again_ntop"
wait_for 20 grep -qx "lease on" "$WORK/again.out"
{ kill -KILL $again_ntop; wait $again_ntop; } 2>/dev/null
again_killed=$(date +%s)
"$NTOP_JS" --pid "$target_PID" --inlining off -b --json -d 0.5 --timeout 5 >"$WORK/out.jsonl" 2>"$WORK/ntop.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
check "the session set its flags and its lease" wait_for 20 has_line "lease on"
n_set=$(flag_lines)
want="flags $(grep '^flags' "$WORK/target.out" | sed 's/^flags --no-/--/' | tr '\n' ' ' | sed 's/ $//')"
diag "set: $(grep '^flags' "$WORK/target.out" | tr '\n' ' ')"
check "the windows go on" wait_for 10 eval '[ "$(wc -l <"$WORK/out.jsonl")" -ge 2 ]'
# Past the lease's minute: the windows renew it, so the flags stay set. Meanwhile, 35 s after
# the third target's session was killed, a new session settles its leases: the dead one's
# flags go back on before its own go off (and back on at its polite exit), and the inspector
# the dead one opened is closed at its end, before the leases would have lapsed.
sleep_start=$(date +%s)
sleep_until $(( again_killed + 35 ))
"$NTOP_JS" --pid "$again_PID" --inlining off -b --json -n 2 -d 0.5 >/dev/null 2>"$WORK/again2.err"
ok $? "a session on a target whose ntop-js was killed 35 s before"
last=$(grep '^flags' "$WORK/again.out" | tail -n 1)
ok $([ "$last" = "$want" ]; echo $?) "V8's flags end as the app had them (last: $last)"
check "the inspector the killed session opened is closed (taken over)" wait_for 3 quiet "$again_PID"
ok $([ $(( $(date +%s) - again_killed )) -lt 55 ]; echo $?) "before its lease would have lapsed"
kill "$again_PID" 2>/dev/null
sleep_until $(( sleep_start + 75 ))
check "a session longer than the lease keeps its flags (the windows renew it)" \
	eval '[ "$(flag_lines)" -eq "$n_set" ] && has_line "lease on" && ! has_line "lease off"'
check "and its inspector (the windows renew that lease too)" listens "$target_PID"

# A second ntop-js beside the running one leaves that session's leases alone.
lines=$(wc -l <"$WORK/out.jsonl")
"$NTOP_JS" --pid "$target_PID" --inlining off -b --json -n 2 -d 0.5 >/dev/null 2>"$WORK/second.err"
second_rc=$?
ok $second_rc "a second ntop-js beside the running session"
[ "$second_rc" -eq 0 ] || diag "second ntop-js: exit $second_rc: $(tr '\n' ' ' <"$WORK/second.err")"
check "it leaves the running session's flags as they are" \
	eval '[ "$(flag_lines)" -eq "$n_set" ] && ! has_line "lease off"'
check "and its inspector open" listens "$target_PID"
check "and the running session goes on" wait_for 5 eval '[ "$(wc -l <"$WORK/out.jsonl")" -gt '"$lines"' ]'

# The stopped session, a lease and more later: the target runs on, its inspector still open.
t1=$(cpu_ticks "$held_PID")
sleep 2
t2=$(cpu_ticks "$held_PID")
ok $([ $((t2 - t1)) -gt 20 ]; echo $?) "a stopped ntop-js past its lease: the target's loop still runs (+$((t2 - t1)) ticks in 2 s)"
check "and it keeps the inspector for the connected client" listens "$held_PID"
web_subs=$(subs "$web_port")
check "the express server's session subscribed to its request channels ($web_subs)" \
	eval '[[ "$web_subs" == "[true,true,"* ]]'
kill -KILL "$held_ntop" "$web_ntop"
{ kill -KILL $ntop; wait $ntop; } 2>/dev/null
t0=$(date +%s)
sleep 5
check "the flags stay set while the lease runs" eval '[ "$(flag_lines)" -eq "$n_set" ]'
check "once the lease lapses, the target puts the flags back itself" wait_for 80 has_line "lease off"
diag "after $(( $(date +%s) - t0 )) s: $(grep '^flags' "$WORK/target.out" | tail -n 1)"
check "and closes the inspector ntop-js opened (within 70 s of the kill)" \
	wait_for $(( t0 + 70 - $(date +%s) )) quiet "$target_PID"
diag "inspector closed $(( $(date +%s) - t0 )) s after the kill"
check "the stopped session killed, its target closes the inspector too" quiet "$held_PID"
check "and deoptimizes, so that V8 optimizes its code again with them" \
	eval '[ "$(grep -A1 "^flags" "$WORK/target.out" | tail -n 1)" = "session Profiler.startPreciseCoverage" ]'
check "with the flags the session had switched off" eval '[ "$(grep "^flags" "$WORK/target.out" | tail -n 1)" = "$want" ] && [ "$(flag_lines)" -eq $((n_set + 1)) ]'
check "the target is still running" alive "$target_PID"
web_subs=$(subs "$web_port")
check "the express server's channels were unsubscribed by its watchdog ($web_subs)" \
	test "$web_subs" = "[false,false,false,false,false]"

# A program that switched TurboFan's inlining off itself keeps it off: V8's flags end as it
# left them, after a polite exit and after a lapsed lease alike.
start_node own --inspect-port=0 "$TARGETS/own-flags.js"
wait_ready own
"$NTOP_JS" --pid "$own_PID" --inlining off -b --json -n 3 -d 0.5 >/dev/null 2>"$WORK/own.err"
ok $? "a session on a program that set its own flags"
sleep 0.5
check "its flags are as it left them after ntop-js left" \
	eval '! grep -q "^flags" "$WORK/own.out" || [ "$(grep "^flags" "$WORK/own.out" | tail -n 1)" = "flags same" ]'
diag "own-flags.js: $(grep '^flags' "$WORK/own.out" | tr '\n' ' ')"
done_testing
