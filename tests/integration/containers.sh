#!/bin/bash
# Containers: a node in PID, network and mount namespaces of its own (unshare, as root),
# attached from the host by its host PID. SIGUSR1 opens its inspector on 9229 of its own
# loopback; ntop-js creates its sockets in that namespace, names the PID inside the container,
# marks it in --list, closes the inspector it opened and leaves the target running. Without
# CAP_SYS_ADMIN it refuses before signalling, names nsenter, and exits with status 5; nsenter,
# the way out it names, works; --follow re-attaches to the container started again.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
[ "$(id -u)" = 0 ] || skip_all "needs root (unshare and setns)"
for tool in unshare nsenter ip; do
	command -v $tool >/dev/null 2>&1 || skip_all "$tool not found (util-linux, iproute2)"
done
unshare --net --pid --mount --kill-child --mount-proc sh -c 'ip link set lo up' \
	>/dev/null 2>&1 || skip_all "this machine forbids new namespaces"

# start_ctr NAME: hot.js as PID 1 of its namespaces with lo up; sets NAME_PID (the host's PID
# of node) and NAME_UNSHARE (unshare, whose death kills it).
start_ctr() {
	local name=$1 u kids
	unshare --net --pid --mount --kill-child --mount-proc \
		sh -c 'ip link set lo up && exec "$0" "$1"' "$NODE" "$TARGETS/hot.js" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" &
	u=$!
	pids_to_kill="$pids_to_kill $u"
	wait_ready "$name" || return 1
	kids=$(cat /proc/$u/task/*/children 2>/dev/null)
	eval "${name}_PID=${kids// /}"
	eval "${name}_UNSHARE=$u"
}

# ns_listens PID PORT: a LISTEN row (st 0A) for PORT in the network namespace of PID.
ns_listens() {
	cat /proc/$1/net/tcp /proc/$1/net/tcp6 2>/dev/null |
		awk -v p=":$(printf '%04X' "$2")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
			END { exit !f }'
}

ns_quiet() { ! ns_listens "$@"; }

opened() { grep -c 'Debugger listening on ws://127.0.0.1:9229/' "$WORK/$1.err"; }

start_ctr c1 || { diag "$(cat "$WORK/c1.err")"; skip_all "the namespaced node did not start"; }
pid=$c1_PID
ok $([ -n "$pid" ] && [ "$pid" != 1 ]; echo $?) "the container's node has host PID ${pid:-none}"
check "inside, it is PID 1 (NStgid)" grep -Eq '^NStgid:[[:space:]]+[0-9]+[[:space:]]+1$' \
	"/proc/$pid/status"
check "its network namespace is not ours" test "$(stat -L -c %i /proc/$pid/ns/net)" != \
	"$(stat -L -c %i /proc/self/ns/net)"

"$NTOP_JS" --list >"$WORK/list.txt" 2>&1
check "--list has a CTR column" grep -Eq '^ *PID CTR USER' "$WORK/list.txt"
check "--list marks it with its PID in the container" grep -Eq "^ *$pid +1 " "$WORK/list.txt"
[ $tap_failed -eq 0 ] || diag "$(cat "$WORK/list.txt")"

# Without CAP_SYS_ADMIN (root otherwise): refused before anything is signalled.
if setpriv --bounding-set=-sys_admin true >/dev/null 2>&1; then
	setpriv --bounding-set=-sys_admin -- "$NTOP_JS" -b --json -n 1 --pid "$pid" \
		>/dev/null 2>"$WORK/nocap.err"
	rc=$?
	ok $([ $rc -eq 5 ]; echo $?) "without CAP_SYS_ADMIN: exit status 5 (status $rc)"
	check "the sentence names nsenter" grep -qF "nsenter -t $pid -n ntop-js --pid $pid" \
		"$WORK/nocap.err"
	check "and kubectl debug" grep -qF "kubectl debug --target=<container>" "$WORK/nocap.err"
	check "in one line" test "$(wc -l <"$WORK/nocap.err")" -eq 1
	diag "$(cat "$WORK/nocap.err")"
	check "nothing was signalled: no inspector opened" test "$(opened c1)" -eq 0
else
	for d in "exit status 5" "names nsenter" "names kubectl debug" "one line" "nothing signalled"; do
		skip "without CAP_SYS_ADMIN: $d" "setpriv cannot drop a capability here"
	done
fi

check "no inspector listens in the container before attaching" ns_quiet "$pid" 9229
"$NTOP_JS" -b --json -n 4 -d 0.5 --pid "$pid" >"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
ok $rc "ntop-js -b --json -n 4 --pid HOSTPID attaches and exits 0 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/ntop.err")"
check "SIGUSR1 opened the inspector on 9229 inside the container" test "$(opened c1)" -eq 1
check "four windows, naming the host PID, the container and its PID 1" \
	jsonl_check "$WORK/out.jsonl" '
	l => l.length === 4 && l.every(w => w.target.pid === '"$pid"' &&
		w.target.container === true && w.target.container_pid === 1) || JSON.stringify(l[0].target)'
check "hotMain leads the last window with a large share" jsonl_check "$WORK/out.jsonl" '
	l => { const t = l[l.length - 1].top[0]; return t.function === "hotMain" && t.self_pct > 30 ||
		JSON.stringify(t); }'
check "the inspector ntop-js opened is closed again, inside the container" \
	wait_for 5 ns_quiet "$pid" 9229
check "the target is still running" alive "$pid"
check "nothing on ntop-js's stderr" test ! -s "$WORK/ntop.err"

# The way out the refusal names: ntop-js in the target's network namespace.
nsenter -t "$pid" -n "$NTOP_JS" -b --json -n 1 -d 0.5 --pid "$pid" >"$WORK/nsenter.jsonl" \
	2>"$WORK/nsenter.err"
rc=$?
ok $rc "nsenter -t PID -n ntop-js --pid PID works (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/nsenter.err")"
check "there too the container's PID is named" jsonl_check "$WORK/nsenter.jsonl" '
	l => l.length === 1 && l[0].target.container === true && l[0].target.container_pid === 1'
check "and its inspector is closed again" wait_for 5 ns_quiet "$pid" 9229

# --follow: the container dies and a new one starts with the same command line.
"$NTOP_JS" -b --json -d 0.5 --follow --pid "$pid" >"$WORK/follow.jsonl" 2>"$WORK/follow.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 grep -q '"window_ms"' "$WORK/follow.jsonl"
kill -9 "$c1_UNSHARE"
wait "$c1_UNSHARE" 2>/dev/null
check "the first container is gone" wait_for 5 dead "$pid"
start_ctr c2
check "ntop-js re-attached to the new container's node" \
	wait_for 30 grep -q "\"pid\":$c2_PID,.*\"container\":true,\"container_pid\":1" "$WORK/follow.jsonl"
kill -INT $ntop
wait $ntop
ok $? "SIGINT ends the followed session with status 0"
diag "$(cat "$WORK/follow.err")"
check "the inspector it opened in the second container is closed" \
	wait_for 5 ns_quiet "$c2_PID" 9229
check "the second container's node is still running" alive "$c2_PID"
done_testing
