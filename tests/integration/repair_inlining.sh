#!/bin/bash
# --repair-inlining on a warm target (default V8 flags) whose hot function's helpers V8
# inlines: the JIT is left alone (no flag set), and the helpers get their time back from the
# profile's line ticks, where --leave-jit charges it to hot() (Node 18-24; Node 25 and later
# name inlined functions themselves). Node 26 (which needs no repair) gives mix32 14 %, Node 20
# repaired 13 %, Node 18 repaired 6 % (lines its two helpers share stay ambiguous): the
# thresholds say that something moved, not that all did (doc/inlining.md).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/inlined.js"
wait_ready target || diag "the target did not get warm: $(head -c 300 "$WORK/target.err")"
"$NTOP_JS" --pid "$target_PID" --no-config -b --json -n 4 --leave-jit >"$WORK/leave.jsonl" 2>"$WORK/leave.err"
ok $? "--leave-jit: status 0"
"$NTOP_JS" --pid "$target_PID" --no-config -b --json -n 5 --repair-inlining >"$WORK/fix.jsonl" 2>"$WORK/fix.err"
ok $? "--repair-inlining: status 0 ($(head -c 300 "$WORK/fix.err"))"
ok $(grep -c '^flags' "$WORK/target.out" | grep -qx 0; echo $?) "no V8 flag was set"

# self shares of the last three windows, summed per function name
shares() { "$NODE" -e '
	const ls = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	const acc = {};
	for (const w of ls.slice(-3)) for (const f of w.top) acc[f.function] = (acc[f.function] || 0) + f.self_pct / 3;
	console.log(JSON.stringify(acc));' "$1"; }
leave=$(shares "$WORK/leave.jsonl")
fix=$(shares "$WORK/fix.jsonl")
diag "--leave-jit: $leave"
diag "--repair-inlining: $fix"
major=$("$NODE" -p 'process.versions.v8.split(".")[0]')
get() { "$NODE" -p "(($1)['$2'] || 0).toFixed(1)"; }
if [ "$major" -le 13 ]; then
	ok $("$NODE" -e "process.exit($(get "$leave" hot) > 80 ? 0 : 1)"; echo $?) \
		"as V8 gives it, hot() holds its helpers' time ($(get "$leave" hot) %)"
fi
# (scale's share moves with how V8 compiled the helpers in this process: 56-60 % in most runs,
# 26 % in one under a loaded machine, with mix32 at 34 %; --leave-jit gives it 0)
ok $("$NODE" -e "process.exit($(get "$fix" scale) > 15 ? 0 : 1)"; echo $?) \
	"repaired: the nested closure has its own time ($(get "$fix" scale) %)"
ok $("$NODE" -e "process.exit($(get "$fix" mix32) > 4 ? 0 : 1)"; echo $?) \
	"repaired: the helper from another file has its own time ($(get "$fix" mix32) %)"
ok $("$NODE" -e "process.exit($(get "$fix" hot) < 30 ? 0 : 1)"; echo $?) \
	"repaired: hot() keeps little more than its own lines ($(get "$fix" hot) %)"
check "the target is still running" alive "$target_PID"
done_testing
