#!/bin/bash
# Several processes of one service from one ntop-js: a node cluster (tests/targets/cluster.js,
# a primary and four workers) under load from autocannon (pinned by bench/npm). Node's SIGUSR1
# opens every process's inspector on the same port (9229 by default; here one free port that
# NODE_OPTIONS=--inspect-port gives them all, so that the test stays off 9229), and the
# primary passes the signal on to its workers: ntop-js attaches the workers before the
# primary and moves each inspector it opened to a free port before signalling the next.
# Each worker's handler (priceOrder) is found in that worker's report; a worker killed during
# the session is said gone and the one the primary forks in its place joins; every inspector
# is closed again at the end and every process is still running.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux
require_npm_deps

# node's cluster gives each worker the next port (--inspect-port=SHARED+1, +2, ...): a run of
# free ports below the ephemeral range, where no client connection (autocannon's) takes one as
# its local port and makes a worker's SIGUSR1 fail with "address already in use".
low_ports() {
	"$NODE" -e '
const net = require("net");
const lo = +require("fs").readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0];
const free = p => new Promise(ok => { const s = net.createServer().once("error", () => ok(false))
	.listen(p, "127.0.0.1", () => s.close(() => ok(true))); });
(async () => {
	for (let tries = 0; tries < 200; tries++) {
		const base = 20000 + Math.floor(Math.random() * Math.max(1, lo - 20000 - 16));
		let all = true;
		for (let p = base; p <= base + 8 && all; p++) all = await free(p);
		if (all) return console.log(base);
	}
	console.log(0);
})();'
}
shared=$(low_ports)
[ "$shared" -gt 0 ] 2>/dev/null || diag "no run of free ports found below the ephemeral range"
NODE_OPTIONS=--inspect-port=$shared start_node cl "$TARGETS/cluster.js" 4
wait_for 15 grep -q '^ready ' "$WORK/cl.out" || diag "the cluster did not start: $(cat "$WORK/cl.err")"
read -r _ primary port < <(grep '^ready ' "$WORK/cl.out")
workers=$(sed -n 's/^worker //p' "$WORK/cl.out" | sort -n | tr '\n' ' ')
diag "primary $primary, workers $workers, port $port, the inspectors' port $shared"
# (300 s: longer than the whole test takes on a loaded machine; the cleanup stops it)
start_node load -e "require('autocannon')({ url: 'http://127.0.0.1:$port/', connections: 8,
	duration: 300 }, () => {})"
sleep 3 # warm: priceOrder is optimized before the attach

# Every process's listening sockets: "PID PORT" lines, from /proc/PID/net/tcp and its fds
# (the workers as the primary lists them: it forks a new one when one dies).
listening() { # listening PID...
	local p inodes local_addr st inode hexport
	for p in "$@"; do
		inodes=" $(ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')"
		while read -r _ local_addr _ st _ _ _ _ _ inode _; do
			[ "$st" = 0A ] && case $inodes in *" $inode "*) ;; *) continue ;; esac || continue
			hexport=${local_addr##*:}
			echo "$p $((16#$hexport))"
		done < <(cat "/proc/$p/net/tcp" "/proc/$p/net/tcp6" 2>/dev/null)
	done
}
listeners() { listening $primary $(sed -n 's/^worker //p' "$WORK/cl.out"); }
only_app_ports() { ! listeners | awk -v port="$port" '$2 != port' | grep -q .; }
# closed DESCRIPTION: every inspector closed again, or what still listens
closed() {
	if wait_for 5 only_app_ports; then
		ok 0 "$1"
	else
		ok 1 "$1"
		diag "still listening (pid port): $(listeners | awk -v port="$port" '$2 != port' | tr '\n' ' ')"
	fi
}
check "before: no process of the cluster has an inspector" only_app_ports

"$NTOP_JS" --pid "$primary" --children --no-config -b --json -n 6 -t 5 -o "$WORK/svc.cpuprofile" \
	--folded "$WORK/svc.folded" >"$WORK/cl.jsonl" 2>"$WORK/cl-ntop.err"
ok $? "ntop-js --pid PRIMARY --children -b --json -n 6 -o -folded: status 0"
check "nothing on stderr" test ! -s "$WORK/cl-ntop.err"
diag "$("$NODE" -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
	const o = JSON.parse(l); console.log(`pid ${o.target.pid} ${o.cpu && o.cpu.idle_pct}% idle |`, (o.processes || []).map(p =>
		`${p.target.pid}${p.exited ? " exited" : ""} ${(p.top || []).slice(0, 2).map(f => f.function + " " + f.self_pct + "%").join(", ")}`).join(" | ")); }' "$WORK/cl.jsonl" 2>&1)"
check "6 lines: the primary's keys where one process has them, and a processes array" \
	jsonl_check "$WORK/cl.jsonl" "l => l.length === 6 && l.every(w => w.target.pid === $primary && w.cpu &&
		Array.isArray(w.processes)) || l.map(w => w.target.pid)"
check "the primary only forks: at least 80 % idle" jsonl_check "$WORK/cl.jsonl" '
	l => l.slice(1).every(w => w.cpu.idle_pct >= 80) || l.map(w => w.cpu.idle_pct)'
check "every worker is there, each its own process with its own pid" jsonl_check "$WORK/cl.jsonl" "l => {
	const want = '$workers'.trim().split(' ').map(Number), seen = new Set();
	for (const w of l) for (const p of w.processes) seen.add(p.target.pid);
	return want.every(p => seen.has(p)) && seen.size === want.length || [...seen]; }"
# (a window under load can give the socket writes, writev, more than priceOrder: priceOrder
# is asked among each window's top two, and on top in three windows of four)
check "from the second window, each worker's hot function is priceOrder, in cluster.js" \
	jsonl_check "$WORK/cl.jsonl" 'l => {
	const ps = l.slice(1).flatMap(w => w.processes.filter(p => !p.exited && !p.late));
	const hot = f => f && f.function === "priceOrder" && /cluster\.js$/.test(f.url) && f.self_pct >= 20;
	return ps.length >= 12 && ps.every(p => (p.top || []).slice(0, 2).some(hot)) &&
		ps.filter(p => hot((p.top || [])[0])).length >= 0.75 * ps.length ||
		ps.map(p => p.target.pid + " " + (p.top[0] && p.top[0].function + " " + p.top[0].self_pct)); }'
check "with each worker's memory and event loop" jsonl_check "$WORK/cl.jsonl" '
	l => l.slice(2).every(w => w.processes.filter(p => !p.late).every(p => p.mem &&
		p.mem.heap_used_bytes > 1e5 && p.event_loop))'
check "-o: the primary's profile, valid" "$NODE" "$top_srcdir/tests/check-cpuprofile.js" --quiet \
	--lax-hitcount "$WORK/svc.cpuprofile"
worker_profiles() { local p; for p in $workers; do "$NODE" "$top_srcdir/tests/check-cpuprofile.js" --quiet \
	--lax-hitcount --expect-hot priceOrder:20 "$WORK/svc-p$p.cpuprofile" || return 1; done; }
check "and one beside it for each worker (svc-pPID.cpuprofile), priceOrder hot in each" worker_profiles
folded_per_worker() { local p; for p in $workers; do grep -q "^pid $p;.*;priceOrder (" "$WORK/svc.folded" || return 1; done
	grep -q "^pid $primary;" "$WORK/svc.folded" && ! grep -qv '^pid [0-9]*;' "$WORK/svc.folded"; }
check "--folded: one file, every stack under its process's pid, priceOrder under each worker" folded_per_worker
closed "after: every inspector ntop-js opened is closed again"
alive_all() { local p; for p in $primary $workers; do alive "$p" || return 1; done; }
check "and the primary and its workers are all still running" alive_all

# Batch text: a report per process, each named by its pid.
"$NTOP_JS" --pid "$primary" --children --no-config -b -n 3 -t 5 >"$WORK/cl.txt" 2>"$WORK/cl-txt.err"
ok $? "batch text: status 0"
check "a report of its own for each worker, with priceOrder" bash -c "
	for p in $workers; do grep -A14 \"^ntop-js - .*  pid \$p \" '$WORK/cl.txt' | grep -q ' priceOrder ' || exit 1; done"
closed "every inspector closed again"

# --pid given again, and --match.
set -- $workers
"$NTOP_JS" --pid "$1" --pid "$2" --no-config -b --json -n 3 >"$WORK/two.jsonl" 2>"$WORK/two.err"
ok $? "--pid W1 --pid W2: status 0"
check "the first is the main target, the second in processes" jsonl_check "$WORK/two.jsonl" "
	l => l.every(w => w.target.pid === $1) && l.slice(1).some(w => w.processes.some(p => p.target.pid === $2))"
"$NTOP_JS" --match "targets/cluster.js" --no-config -b --json -n 3 >"$WORK/match.jsonl" 2>"$WORK/match.err"
ok $? "--match cluster.js: status 0"
check "finds the primary and its four workers" jsonl_check "$WORK/match.jsonl" "l => {
	const seen = new Set(l.flatMap(w => [w.target.pid, ...w.processes.map(p => p.target.pid)]));
	return seen.size === 5 && seen.has($primary) || [...seen]; }"
# (three lines, as above: the other processes' first windows may miss the first line, and on a
# loaded machine the second too; a fresh-clone CI run found only the primary in two)
"$NTOP_JS" --user "$(id -un)" --match "targets/cluster.js" --no-config -b --json -n 3 >"$WORK/user.jsonl" \
	2>"$WORK/user.err"
ok $? "--user ME --match cluster.js: status 0"
check "the same five" jsonl_check "$WORK/user.jsonl" "l => {
	const seen = new Set(l.flatMap(w => [w.target.pid, ...w.processes.map(p => p.target.pid)]));
	return seen.size === 5 && seen.has($primary) || [...seen]; }"
"$NTOP_JS" --user 4242424 --no-config -b -n 1 >/dev/null 2>"$WORK/nouser.err"
ok $([ $? -eq 2 ]; echo $?) "--user whose uid runs no node: status 2"
check "with a sentence that says so" grep -qx "ntop-js: 4242424 runs no Node process (ntop-js --list shows them)." "$WORK/nouser.err"
"$NTOP_JS" --user no-such-user-here --no-config -b -n 1 >/dev/null 2>"$WORK/nouser2.err"
ok $([ $? -eq 2 ]; echo $?) "--user that does not exist: status 2"
check "said so" grep -qx 'ntop-js: no user "no-such-user-here" on this machine.' "$WORK/nouser2.err"
"$NTOP_JS" --pid "$1" --pid 999999999 --no-config -b --json -n 2 >"$WORK/bad.jsonl" 2>"$WORK/bad.err"
ok $? "a PID that is not there: the others are watched all the same (status 0)"
check "and it is said in one sentence" grep -qx "ntop-js: PID 999999999: no process with PID 999999999." "$WORK/bad.err"
"$NTOP_JS" --match "no-such-program-here" --no-config -b -n 1 >/dev/null 2>"$WORK/none.err"
ok $([ $? -eq 2 ]; echo $?) "--match that finds nothing: status 2"
check "with a sentence that says so" grep -q "no Node process of this machine has \"no-such-program-here\"" "$WORK/none.err"
closed "every inspector closed again"

# The live view: the PROCESSES line, t shows each process's own table.
term_start 160 40 "$NTOP_JS --pid $primary --children --no-config -d 1 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
check "the live view's PROCESSES line: the primary and each worker by pid, and a total" \
	wait_screen 20 "^PROCESSES  pid $primary [0-9]+%  pid [0-9]+ [0-9]+%  pid [0-9]+ [0-9]+%  pid [0-9]+ [0-9]+%  pid [0-9]+ [0-9]+%  total [0-9]+%"
keys t
check "t shows a worker: the header names its PID and says PROCESS" \
	wait_screen 10 "^ntop-js  PID ($(echo $workers | tr ' ' '|'))  node [^ ]+  PROCESS "
if wait_screen 20 '^ +[0-9.]+% +[0-9.]+% +[0-9.]+s +[0-9.]+s priceOrder +[^ ]*cluster\.js'; then
	ok 0 "and the table is its own: priceOrder on top"
else
	ok 1 "and the table is its own: priceOrder on top"
	diag "$(screen)"
fi
keys T
check "T: one table across the processes, with a PROCESS column" \
	wait_screen 10 '^ +SELF% +TOTAL% +PROCESS +FUNCTION +LOCATION'
several_price_rows() { [ "$(screen | grep -E '^ +[0-9.]+% +[0-9.]+% +pid [0-9]+ +priceOrder ' |
	awk '{ print $4 }' | sort -u | wc -l)" -ge 3 ]; }
check "priceOrder in it once for each of at least three workers, each with its pid" \
	wait_for 15 several_price_rows
keys T
check "T again: back to the table" wait_screen 10 '^PROCESSES  pid '
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on ntop-js's stderr" test ! -s "$WORK/tui.err"
term_stop
closed "every inspector closed again"
check "and every process still running" alive_all

# A worker that dies during the session is said gone, once; the others go on, and the worker
# the primary forks in its place joins (--children lists the service again every 2 s).
set -- $workers
( sleep 3.5; kill "$4" ) &
"$NTOP_JS" --pid "$primary" --children --no-config -b --json -n 20 >"$WORK/gone.jsonl" 2>"$WORK/gone.err"
ok $? "a worker killed during the session: status 0"
new=$(sed -n 's/^worker //p' "$WORK/cl.out" | grep -vxF -e "$1" -e "$2" -e "$3" -e "$4" | head -n 1)
diag "the primary forked worker ${new:-(none)} in its place"
# (autocannon keeps its connections: the new worker gets none, and idles. A line holds the
# windows that came in time, and names the processes whose window is late: the new worker is in
# each of the last three lines, one way or the other. Under load a window can give the socket
# writes more than priceOrder: it is asked among each busy process's top two in the last three
# lines, as above)
check "it is reported gone once; the other three go on to the end, and the new worker is watched (the last three lines)" jsonl_check "$WORK/gone.jsonl" "l => {
	const gone = l.flatMap(w => w.processes.filter(p => p.exited)), tail = l.slice(-3);
	const busy = new Set(tail.flatMap(w => w.processes.filter(p => !p.exited && !p.late &&
		(p.top || []).slice(0, 2).some(f => f.function === 'priceOrder'))).map(p => p.target.pid));
	const joined = l.slice(-3).every(w => w.processes.some(p => !p.exited && p.target.pid === ${new:-0}));
	return gone.length === 1 && gone[0].target.pid === $4 && busy.size === 3 && !busy.has($4) &&
		joined || l.map(w => w.processes.map(p => p.target.pid + (p.exited ? ' exited' : p.late ?
		' late' : ' ' + (p.top && p.top[0] ? p.top[0].function : '-')))); }"
check "and said on stderr" grep -q "^ntop-js: PID $4: " "$WORK/gone.err"
check "the new worker's arrival too" grep -q "^ntop-js: PID ${new:-0} joined the service" "$WORK/gone.err"
closed "every inspector closed again"
set -- $1 $2 $3 ${new:-0}
workers="$*"

# A process stopped for 3 s (SIGSTOP; calls may take 10 s) sends no window: the lines meanwhile
# name it late, with its pid and nothing else, not gone; its windows come back after. (Its
# windows are not in step with the main one's: now and then one is late for a line anyway.)
( sleep 3.5; kill -STOP "$3"; sleep 3; kill -CONT "$3" ) &
"$NTOP_JS" --pid "$1" --pid "$3" --no-config -b --json -n 10 >"$WORK/late.jsonl" 2>"$WORK/late.err"
ok $? "a process stopped for 3 s during the session: status 0"
check "the lines meanwhile say it is late, not gone, and its windows come back" jsonl_check "$WORK/late.jsonl" "l => {
	const of = w => w.processes.find(p => p.target.pid === $3), late = l.filter(w => of(w) && of(w).late);
	return late.length >= 2 && late.every(w => JSON.stringify(of(w)) === '{\"target\":{\"pid\":$3},\"late\":true}') &&
		l.slice(-3).some(w => of(w) && of(w).top) && !l.some(w => of(w) && of(w).exited) ||
		l.map(w => of(w) ? (of(w).late ? 'late' : of(w).exited ? 'exited' : 'window') : '-'); }"
check "and it still runs" alive "$3"

# The main process gone: the session ends as with one process, but the others' inspectors,
# which ntop-js opened, are closed first.
( sleep 3.5; kill "$2" ) &
"$NTOP_JS" --pid "$2" --pid "$3" --no-config -b --json >"$WORK/main-gone.jsonl" 2>"$WORK/main-gone.err"
ok $([ $? -eq 10 ]; echo $?) "the main process killed during the session: status 10 (target exited)"
closed "the other's inspector is closed again"
check "and it still runs" alive "$3"

# A service that starts with one process and grows (--children on a parent whose child starts
# later, both on one inspector port through NODE_OPTIONS): the lone first process still leaves
# the shared port, so that the child can open its inspector there and join.
grow_port=$(low_ports)
NODE_OPTIONS=--inspect-port=$grow_port start_node grow -e "
let c;
setTimeout(() => { c = require('child_process').fork('$TARGETS/hot.js', [], { env: { ...process.env,
	HOT_DEFAULT_FLAGS: '1' } }); console.log('child', c.pid); }, 3000);
process.on('SIGTERM', () => { if (c) c.kill(); process.exit(0); });
setInterval(() => {}, 1000);"
sleep 1
"$NTOP_JS" --pid "$grow_PID" --children --no-config -b --json -n 12 >"$WORK/grow.jsonl" 2>"$WORK/grow-ntop.err"
ok $? "--children on a parent alone at the start: status 0 ($(head -c 300 "$WORK/grow-ntop.err"))"
child=$(sed -n 's/^child //p' "$WORK/grow.out")
# the parent is killed with SIGKILL at the end, which its child would outlive
[ -n "$child" ] && pids_to_kill="$pids_to_kill $child"
check "its child, started 3 s later, joins the service" grep -q "^ntop-js: PID ${child:-0} joined the service" "$WORK/grow-ntop.err"
check "and its hotMain is in its report in the last window" jsonl_check "$WORK/grow.jsonl" "l => {
	const p = l[l.length - 1].processes.find(p => p.target.pid === ${child:-0});
	return p && p.top && p.top.some(f => f.function === 'hotMain') ||
		l.map(w => w.processes.map(p => p.target.pid + (p.late ? ' late' : ''))); }"
no_inspector() { ! listening "$grow_PID" "${child:-0}" | grep -q .; }
check "both inspectors closed again" wait_for 5 no_inspector

done_testing
