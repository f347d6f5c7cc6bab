#!/bin/bash
# ntop-js's evaluations change nothing of Node's own state in the middle of the target's work.
# The inspector runs an evaluation through an interrupt, inside whatever task the target is
# running; Node's timer lists and priority queue are not made to be changed half-way through
# one of their own operations, and a timer set or cleared there once left a list in the queue
# and out of the map: the target's processTimers spun on it for good (a cluster worker at 100 %
# in listOnTimeout, serving nothing). So the timers, diagnostics channels and GC observer the
# session installs, renews and removes are changed in a microtask, once the task in progress
# ends. tests/targets/interrupt_probe.js is busy in 200 ms tasks of its own and counts the
# changes made inside them; a whole session (event loop, requests, memory with the GC
# observer, the inspector's lease, the JIT flags' lease) runs on it on every Node version.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
command -v ss >/dev/null 2>&1 || skip_all "ss (iproute2) not found"

versions=${NTOP_NODE_VERSIONS:-$NODE_MATRIX}
# last_line NAME: the probe's last "calls N inside M"
last_line() { grep '^calls ' "$WORK/$1.out" | tail -n 1; }

for v in $versions; do
	matrix_node "$v" || continue
	tag=p$v
	NODE=$nb start_node "$tag" --inspect-port=0 "$TARGETS/interrupt_probe.js"
	wait_ready "$tag"
	t="node $("$nb" --version):"
	pid_var=${tag}_PID
	pid=${!pid_var}
	"$NTOP_JS" --no-config --pid "$pid" -b --json -n 6 -d 0.5 --inlining off \
		>"$WORK/$tag.jsonl" 2>"$WORK/$tag-ntop.err"
	ok $? "$t a session on a target busy in tasks of its own: status 0"
	[ -s "$WORK/$tag-ntop.err" ] && diag "$(head -c 400 "$WORK/$tag-ntop.err")"
	check "$t the inspector it opened is closed again" wait_for 5 quiet "$pid"
	sleep 1.5 # the probe's next line counts what the leave's microtasks did
	read -r _ calls _ inside < <(last_line "$tag")
	diag "$t $(last_line "$tag")"
	ok $([ "${inside:-1}" -eq 0 ]; echo $?) \
		"$t nothing of Node's state was changed inside the target's tasks ($inside times)"
	[ "${inside:-1}" -eq 0 ] || diag "$(grep '^inside: ' "$WORK/$tag.out" | head -n 5)"
	ok $([ "${calls:-0}" -ge 8 ]; echo $?) "$t the session's changes were made, outside them ($calls)"
	check "$t the event loop was read on a target that never idles (its timers ran)" \
		jsonl_check "$WORK/$tag.jsonl" 'l => l.slice(3).some(w => w.event_loop &&
			w.event_loop.lag_ms.p99 >= 150) || l.map(w => w.event_loop && w.event_loop.lag_ms.p99)'
	before=$(grep -c '^calls ' "$WORK/$tag.out")
	check "$t the target runs on" wait_for 5 eval '[ "$(grep -c "^calls " "$WORK/$tag.out")" -gt '"$before"' ]'
	kill "$pid" 2>/dev/null
done

done_testing
