#!/bin/bash
# Launch mode: `ntop-js -- COMMAND` starts the program with an inspector on a free loopback
# port, keeps the program's output in a log file, profiles it, and ends it on exit; a command
# that cannot run or that exits at once fails with one sentence.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

# Keep the log files inside this test's directory.
export TMPDIR=$WORK XDG_STATE_HOME=$WORK/state
mkdir -p "$XDG_STATE_HOME"
marker=ntop-js-launch-test-$$

# The log file ntop-js named on its stderr.
log_of() { grep -o '/[^ ]*\.log' "$1" | head -n 1; }
# The PID the program printed in its log ("ready PID").
ready_pid_of() { sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1; }

"$NTOP_JS" -b --json -n 2 -d 0.3 -- "$NODE" "$TARGETS/hot.js" "$marker" \
	>"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
ok $rc "ntop-js -- node hot.js exits 0 after -n 2 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/ntop.err")"
check "two JSON windows on stdout" jsonl_check "$WORK/out.jsonl" 'l => l.length === 2 || l.length'
check "hotMain is the hottest function of each window" jsonl_check "$WORK/out.jsonl" '
	l => l.every(w => w.top.length > 0 && w.top[0].function === "hotMain") ||
		l.map(w => w.top.map(f => f.function).slice(0, 3))'
log=$(log_of "$WORK/ntop.err")
ok $([ -n "$log" ] && [ -f "$log" ]; echo $?) "the log file is named on stderr (${log:-none})"
check "the log file is private (0600)" test "$(stat -c %a "$log" 2>/dev/null)" = 600
pid=$(ready_pid_of "$log")
ok $([ -n "$pid" ]; echo $?) "the program's own output went to the log (ready ${pid:-?})"
check "and not to stdout" test "$(grep -c ready "$WORK/out.jsonl")" -eq 0
check "the profiled process is the started program" jsonl_check "$WORK/out.jsonl" \
	"l => l.every(w => w.target.pid === ${pid:-0}) || l.map(w => w.target.pid)"
port=$(sed -n 's|^Debugger listening on ws://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log" | head -n 1)
ok $([ -n "$port" ] && [ "$port" != 9229 ]; echo $?) \
	"its inspector listened on a free loopback port, not 9229 (${port:-none})"
check "the started program is gone afterwards" wait_for 3 dead "${pid:-0}"
check "no process is left with the marker argument" wait_for 3 eval "! pgrep -f '$marker' >/dev/null"

# Through a wrapper: sh stays the parent (the trailing ":" keeps it from exec'ing node), and
# the process to attach to is its node child, the owner of the inspector's socket.
"$NTOP_JS" -b --json -n 1 -d 0.3 -- sh -c "\"\$0\" \"\$1\" \"\$2\"; :" \
	"$NODE" "$TARGETS/hot.js" "$marker-sh" >"$WORK/sh.jsonl" 2>"$WORK/sh.err"
rc=$?
ok $rc "ntop-js -- sh -c 'node hot.js' exits 0 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/sh.err")"
shlog=$(log_of "$WORK/sh.err")
shpid=$(ready_pid_of "$shlog")
check "the wrapper's node child is profiled, not sh" jsonl_check "$WORK/sh.jsonl" \
	"l => l.length === 1 && l[0].target.pid === ${shpid:-0} || l.map(w => w.target.pid)"
check "sh and node are both gone afterwards" \
	wait_for 3 eval "! pgrep -f '$marker-sh' >/dev/null"

# What the program inherits: the user's NODE_OPTIONS plus ours, a process group of its own
# (so a Ctrl-C at the terminal reaches only ntop-js), stdin from /dev/null.
NODE_OPTIONS=--stack-trace-limit=7 "$NTOP_JS" -b --json -n 1 -d 0.2 -- "$NODE" -e '
	const fs = require("fs");
	const stat = fs.readFileSync("/proc/self/stat", "utf8");
	const pgrp = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2];
	console.log("opts " + process.env.NODE_OPTIONS);
	console.log("group " + (Number(pgrp) === process.pid ? "own" : "shared"));
	console.log("stdin " + fs.readlinkSync("/proc/self/fd/0"));
	setInterval(() => {}, 50);' "$marker-env" >"$WORK/env.jsonl" 2>"$WORK/env.err"
rc=$?
ok $rc "a program reading its environment runs (status $rc)"
envlog=$(log_of "$WORK/env.err")
check "NODE_OPTIONS keeps the user's options and adds the inspector" \
	grep -qx 'opts --stack-trace-limit=7 --inspect=127.0.0.1:0' "$envlog"
check "the program leads a process group of its own" grep -qx 'group own' "$envlog"
check "its stdin is /dev/null" grep -qx 'stdin /dev/null' "$envlog"

# A command that does not exist: one sentence, non-zero status, nothing on stdout.
"$NTOP_JS" -b --json -n 1 -- "ntop-js-no-such-command-$$" >"$WORK/nx.out" 2>"$WORK/nx.err"
rc=$?
ok $([ $rc -ne 0 ]; echo $?) "a missing command fails (status $rc)"
check "with one line on stderr" test "$(wc -l <"$WORK/nx.err")" -eq 1
check "saying it cannot be run" grep -q "cannot run ntop-js-no-such-command-$$: No such file or directory\.$" "$WORK/nx.err"
check "and nothing on stdout" test ! -s "$WORK/nx.out"
diag "$(cat "$WORK/nx.err")"

# A program that exits at once: non-zero status and a sentence naming its log.
"$NTOP_JS" -b --json -n 1 -- "$NODE" -e 'console.log("bye"); process.exit(3)' \
	>"$WORK/ex.out" 2>"$WORK/ex.err"
rc=$?
ok $([ $rc -ne 0 ]; echo $?) "a program that exits at once fails (status $rc)"
exlog=$(log_of "$WORK/ex.err")
check "the sentence gives the exit status and names the log" \
	grep -q "status 3.*$exlog" "$WORK/ex.err"
check "the log holds the program's output" grep -qx bye "$exlog"
check "nothing on stdout" test ! -s "$WORK/ex.out"
diag "$(cat "$WORK/ex.err")"
done_testing
