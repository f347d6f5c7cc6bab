#!/bin/bash
# Descendants that still hold an inspector at exit are closed or named. Node's cluster primary,
# whenever its inspector starts (SIGUSR1, inspector.open()), sends SIGUSR1 on to each of its
# workers, which open theirs (tests/targets/cluster-open.js: every process on --inspect-port=0,
# a free port, never 9229). After ntop-js has left a primary it attached to, no worker listens
# on an inspector that ntop-js caused to open; a worker whose inspector was open before (its
# own --inspect), or one forked with --inspect during the session, keeps it; with --no-eval
# each one left open is named on stderr, with its PID and port. Launch mode: launch.sh.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
command -v ss >/dev/null 2>&1 || skip_all "ss (iproute2) not found"

all_quiet() { local p; for p in "$@"; do quiet "$p" || return 1; done; }
all_listen() { local p; for p in "$@"; do listens "$p" || return 1; done; }
# The workers the primary printed: "open" (started with --inspect) or "plain".
workers_of() { awk -v kind="$1" '$1 == "worker" && $3 == kind { print $2 }' "$WORK/cl.out"; }
still() { local p; for p in "$@"; do alive "$p" && echo "$p"; done; }

start_node cl --inspect-port=0 "$TARGETS/cluster-open.js" 3 1
wait_for 15 grep -q '^ready ' "$WORK/cl.out" || diag "the cluster did not start: $(cat "$WORK/cl.err")"
primary=$(sed -n 's/^ready //p' "$WORK/cl.out")
open=$(workers_of open)
plain=$(workers_of plain | tr '\n' ' ')
pids_to_kill="$pids_to_kill $open $plain"
open_port=$(listening "$open")
diag "primary $primary, worker started with --inspect $open (port $open_port), plain workers $plain"
check "before: the primary listens on nothing" quiet "$primary"
check "before: the worker started with --inspect listens" listens "$open"
check "before: the other workers listen on nothing" all_quiet $plain

"$NTOP_JS" --no-config -b -n 2 -d 0.3 --pid "$primary" >"$WORK/s1.out" 2>"$WORK/s1.err"
ok $? "ntop-js -b -n 2 --pid PRIMARY: status 0"
check "nothing on stderr" test ! -s "$WORK/s1.err"
diag "$(head -c 600 "$WORK/s1.err")"
check "after: the primary's inspector is closed" wait_for 3 quiet "$primary"
check "after: no plain worker listens (their inspectors opened when the primary's did)" \
	wait_for 3 all_quiet $plain
diag "still listening: $(for p in $plain; do echo "$p:[$(listening "$p" | tr '\n' ' ')]"; done)"
check "the worker started with --inspect still listens, on its port ($open_port)" \
	test "$(listening "$open")" = "$open_port"

# A worker forked during the session with --inspect (the primary forks again the one that
# exits) opened its inspector itself: it stays open; the plain ones are closed again.
"$NTOP_JS" --no-config -b -d 0.3 --pid "$primary" >"$WORK/s2.out" 2>"$WORK/s2.err" &
ntop=$!
pids_to_kill="$pids_to_kill $ntop"
wait_for 10 test -s "$WORK/s2.out" || diag "no window came: $(cat "$WORK/s2.err")"
check "during the session the plain workers listen (the primary passed SIGUSR1 on)" \
	wait_for 5 all_listen $plain
kill "$open"
wait_for 10 eval '[ "$(workers_of open | wc -l)" -ge 2 ]' || diag "no worker was forked again"
reforked=$(workers_of open | tail -n 1)
pids_to_kill="$pids_to_kill $reforked"
check "the worker forked again with --inspect listens" wait_for 5 listens "$reforked"
kill -INT "$ntop"
wait "$ntop"
ok $? "SIGINT ends the session with status 0"
check "after: no plain worker listens" wait_for 3 all_quiet $plain
check "the worker forked with --inspect during the session still listens" listens "$reforked"
check "and the primary's inspector is closed" quiet "$primary"

# --no-eval: nothing can close them; each is named, with its PID and port.
"$NTOP_JS" --no-config -b -n 1 -d 0.3 --no-eval --pid "$primary" >"$WORK/ne.out" 2>"$WORK/ne.err"
ok $? "--no-eval: status 0"
named() {
	local p port
	for p in $plain; do
		port=$(listening "$p")
		[ -n "$port" ] && grep -q "inspector of PID $p stays open on port $port: .*--no-eval" \
			"$WORK/ne.err" || return 1
	done
}
check "--no-eval: each plain worker's inspector is named on stderr with its port" named
check "--no-eval: the worker forked with --inspect is not named" \
	eval '! grep -q "PID $reforked " "$WORK/ne.err"'
diag "$(cat "$WORK/ne.err")"
kill "$primary"
wait_for 5 eval '[ -z "$(still $primary $plain $reforked)" ]'
done_testing
