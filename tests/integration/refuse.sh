#!/bin/bash
# Processes ntop-js must not signal: a shell wrapper around node (refused, its node child
# named), a process that is not node, a PID that does not exist. All left alive.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

sh -c "\"$NODE\" --inspect-port=0 \"$TARGETS/idle.js\" >\"$WORK/child.out\"; true" &
wrapper=$!
pids_to_kill="$pids_to_kill $wrapper"
wait_for 10 grep -q ready "$WORK/child.out"
child=$(awk '{print $2}' "$WORK/child.out")
"$NTOP_JS" --pid "$wrapper" -b -n 1 >/dev/null 2>"$WORK/wrapper.err"
ok $([ $? -eq 4 ]; echo $?) "a wrapper is refused with status 4"
check "the message names the node child" grep -q "$child" "$WORK/wrapper.err"
diag "$(cat "$WORK/wrapper.err")"
check "the wrapper is still alive" alive "$wrapper"
check "its node child is still alive" alive "$child"
check "and was not signalled (no inspector)" test ! -s "$WORK/child.err"
pids_to_kill="$pids_to_kill $child"

sleep 60 &
sleeper=$!
pids_to_kill="$pids_to_kill $sleeper"
"$NTOP_JS" --pid "$sleeper" -b -n 1 >/dev/null 2>"$WORK/sleep.err"
ok $([ $? -eq 4 ]; echo $?) "a process that is not node is refused with status 4"
check "the non-node process is still alive" alive "$sleeper"
check "one sentence on stderr" test "$(wc -l <"$WORK/sleep.err")" -eq 1

"$NTOP_JS" --pid 0 -b -n 1 >/dev/null 2>"$WORK/nopid.err"
ok $([ $? -eq 2 ]; echo $?) "PID 0 is a usage error (2)"
pid_max=$(cat /proc/sys/kernel/pid_max)
"$NTOP_JS" --pid $((pid_max - 1)) -b -n 1 >/dev/null 2>"$WORK/nopid.err"
rc=$?
if [ -d /proc/$((pid_max - 1)) ]; then ok 0 "# SKIP pid_max-1 exists"; else
	ok $([ $rc -eq 3 ]; echo $?) "a PID with no process gives status 3 (got $rc)"
	check "saying there is no such process" grep -qi "no process" "$WORK/nopid.err"
fi

"$NTOP_JS" --bogus >/dev/null 2>"$WORK/usage.err"
ok $([ $? -eq 2 ]; echo $?) "an unknown option gives status 2"
"$NTOP_JS" --help >"$WORK/help.out"
ok $? "--help exits 0"
check "--help lists --pid" grep -q -- --pid "$WORK/help.out"
undocumented=
for o in $(grep -oE -- '--[a-z][a-z-]+' "$WORK/help.out" | sort -u); do
	grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$top_srcdir/doc/ntop-js.1" ||
		undocumented="$undocumented $o"
done
ok $([ -z "$undocumented" ]; echo $?) "every option --help lists is in the man page${undocumented:+: missing$undocumented}"
"$NTOP_JS" --version >"$WORK/version.out"
ok $? "--version: status 0"
check "it prints the version first" grep -q '^ntop-js [0-9]' "$WORK/version.out"
check "the libraries it runs with" grep -qE '^libraries: ncurses [0-9].*, libwebsockets [0-9][^ ]*, cJSON [0-9][^ ]*, zlib [0-9]' "$WORK/version.out"
check "what it does on each Node version of the matrix, the repair on Node 18 to 24, and later ones left alone" bash -c "
	for v in $NODE_MATRIX; do grep -qE \"^  Node ([0-9]+, )?\$v[ ,]\" '$WORK/version.out' || exit 1; done
	for v in 18 20 22 24; do grep -qE \"^  Node \$v +V8 [0-9]+ +profiles repaired\" '$WORK/version.out' || exit 1; done &&
	grep -qE '^  later +nothing done' '$WORK/version.out'"
check "in lines of 100 columns at most" bash -c "! awk 'length > 100' '$WORK/version.out' | grep -q ."
done_testing
