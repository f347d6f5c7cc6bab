#!/bin/bash
# Attach by PID through SIGUSR1 to a node started without an inspector; JSON windows; the
# inspector that ntop-js opened is closed again when it leaves, and the target lives on.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

# --inspect-port=0 opens nothing by itself; it only makes SIGUSR1 pick a free port, so the
# test never depends on 9229 being free.
start_node target --inspect-port=0 "$TARGETS/hot.js"
wait_ready target
ok "$(grep -c 'Debugger listening' "$WORK/target.err")" "no inspector before attaching"

"$NTOP_JS" --pid "$target_PID" -b --json -n 3 -d 0.5 >"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
ok $rc "ntop-js exits 0 after -n 3 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/ntop.err")"
port=$(inspector_port_of target)
ok $([ -n "$port" ]; echo $?) "SIGUSR1 opened the inspector (port ${port:-none})"
ok $([ "$port" != 9229 ]; echo $?) "the port was found, not assumed to be 9229"
check "three JSON windows" jsonl_check "$WORK/out.jsonl" 'l => l.length === 3 || l.length'
check "required fields and types" jsonl_check "$WORK/out.jsonl" '
	l => l.every(w => typeof w.time === "number" && w.window_ms > 0 && w.samples > 0 &&
		w.target.pid === '"$target_PID"' && /^v\d+\./.test(w.target.node_version) &&
		typeof w.target.title === "string" &&
		["js_pct","gc_pct","program_pct","idle_pct"].every(k => w.cpu[k] >= 0 && w.cpu[k] <= 100) &&
		Array.isArray(w.top) && w.top.length > 0 &&
		w.top.every(f => typeof f.function === "string" && typeof f.url === "string" &&
			["self_pct","total_pct","self_ms","total_ms","cum_self_ms","cum_total_ms"].every(k => typeof f[k] === "number")))'
check "the CPU split adds up to 100 %" jsonl_check "$WORK/out.jsonl" '
	l => l.every(w => Math.abs(w.cpu.js_pct + w.cpu.gc_pct + w.cpu.program_pct + w.cpu.idle_pct - 100) < 0.5)'
check "cumulative times grow" jsonl_check "$WORK/out.jsonl" '
	l => { const c = w => (w.top.find(f => f.function === "hotMain") || {}).cum_self_ms || 0;
		return c(l[2]) > c(l[0]) || [c(l[0]), c(l[2])]; }'
check "the inspector ntop-js opened is closed again" wait_for 5 port_closed "$port"
check "the target is still running" alive "$target_PID"
check "the target's inspector was opened once" test "$(grep -c 'Debugger listening' "$WORK/target.err")" -eq 1
check "nothing on ntop-js's stderr" test ! -s "$WORK/ntop.err"
done_testing
