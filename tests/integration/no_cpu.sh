#!/bin/bash
# --no-cpu: memory only. The CPU profiler is never touched (an impostor inspector records
# every call), a real target gets memory, growth and no JIT change in every window, and the
# live view opens on the memory screen and starts the profiler on c after a confirmation.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

IMPOSTOR=$top_srcdir/tests/impostor.js

# 1. What is sent: nothing of the Profiler domain, no console.profile, and a clean leave.
"$NODE" "$IMPOSTOR" good >"$WORK/imp.out" 2>"$WORK/imp.err" &
imp=$!
pids_to_kill="$pids_to_kill $imp"
wait_for 10 grep -qx '[0-9]\+' "$WORK/imp.out"
port=$(head -n 1 "$WORK/imp.out")
"$NTOP_JS" --port "$port" --no-cpu -b --json -n 3 -d 0.3 --mem-interval 0.1 \
	>"$WORK/imp.jsonl" 2>"$WORK/imp-ntop.err"
ok $? "--no-cpu against a fake inspector: status 0"
wait_for 5 grep -q '^client-close\|^bye' "$WORK/imp.out"
kill "$imp" 2>/dev/null
check "no Profiler method was called" bash -c "! grep -q '^call Profiler\.' '$WORK/imp.out'"
check "no profile was started by evaluation either" bash -c "! grep -q '^console-profile' '$WORK/imp.out'"
check "memory was read" grep -q '^call Runtime.getHeapUsage' "$WORK/imp.out"
check "the target may still exit while watched" grep -q '^call NodeRuntime.notifyWhenWaitingForDisconnect' "$WORK/imp.out"
check "three windows of memory" jsonl_check "$WORK/imp.jsonl" 'l => l.length === 3 || l.length'
diag "$(grep '^call' "$WORK/imp.out" | sort | uniq -c)"

# 1b. The leave's end waits for every answer: a target that answers 400 ms late still has
# every request answered before the connection ends (Node 20 kills itself writing an answer to
# a connection whose end it has read).
"$NODE" "$IMPOSTOR" slow-replies >"$WORK/slow.out" 2>"$WORK/slow.err" &
imp=$!
pids_to_kill="$pids_to_kill $imp"
wait_for 10 grep -qx '[0-9]\+' "$WORK/slow.out"
"$NTOP_JS" --port "$(head -n 1 "$WORK/slow.out")" --no-cpu -b --json -n 2 -d 0.3 \
	--mem-interval 0.1 >/dev/null 2>"$WORK/slow-ntop.err"
ok $? "--no-cpu against an inspector that answers 400 ms late: status 0"
wait_for 5 grep -q '^bye' "$WORK/slow.out"
kill "$imp" 2>/dev/null
check "the connection ended with every request answered ($(grep '^end' "$WORK/slow.out"))" \
	grep -qx 'end unanswered=0' "$WORK/slow.out"

# 2. A real, warm target with V8's default flags (it logs every v8.setFlagsFromString call).
start_node target --inspect-port=0 "$TARGETS/warm.js"
wait_ready target
sleep 2
"$NTOP_JS" --pid "$target_PID" --no-cpu -b --json -n 4 -d 0.5 --mem-interval 0.2 \
	>"$WORK/out.jsonl" 2>"$WORK/ntop.err"
ok $? "--no-cpu -b --json on a real target: status 0"
check "nothing on stderr" test ! -s "$WORK/ntop.err"
check "every window says the CPU is not profiled" jsonl_check "$WORK/out.jsonl" '
	l => l.length === 4 && l.every(w => w.cpu_profiling === false && w.cpu === null &&
		Array.isArray(w.top) && w.top.length === 0 && !("inlining" in w) && w.samples === 0) || l'
check "and carries memory and growth" jsonl_check "$WORK/out.jsonl" '
	l => l.every(w => w.mem && w.mem.heap_used_bytes > 0 && w.mem.rss_bytes > 0 && w.growth &&
		typeof w.growth.verdict === "string") || l.map(w => w.mem)'
check "windows keep their cadence (0.5 s)" jsonl_check "$WORK/out.jsonl" '
	l => l.slice(1).every(w => w.window_ms > 300 && w.window_ms < 1500) || l.map(w => w.window_ms)'
check "no V8 flag was touched" bash -c "! grep -q '^flags' '$WORK/target.out'"
check "no lease was left" bash -c "! grep -q '^lease on' '$WORK/target.out'"
check "the target is still running" alive "$target_PID"

"$NTOP_JS" --pid "$target_PID" --no-cpu -b -n 1 -d 0.3 >"$WORK/out.txt" 2>&1
check "batch text says so in its window line" grep -q '^Window: [0-9]* ms, CPU not profiled (--no-cpu: memory only)$' "$WORK/out.txt"
check "and has memory but no function table" bash -c "grep -q '^MEM: rss' '$WORK/out.txt' && ! grep -q 'SELF%' '$WORK/out.txt'"

"$NTOP_JS" --pid "$target_PID" --no-cpu -b -o "$WORK/x.cpuprofile" >/dev/null 2>"$WORK/refuse.err"
ok $([ $? -eq 2 ]; echo $?) "--no-cpu with -o in batch mode: usage status 2"
check "with one sentence" grep -qx 'ntop-js: --no-cpu collects no CPU profile: -o has nothing to write.' "$WORK/refuse.err"

# 3. The live view: the memory screen first, then c, y: the profiler starts, with the JIT step.
require_tmux
term_start 160 40 "$NTOP_JS --pid $target_PID --no-cpu --inlining off -d 0.5 --no-config 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
check "the live view opens on the memory screen" wait_screen 10 '^MEMORY +zoom'
check "the status line says memory only and how to start the CPU profiler" \
	screen_has 'attached for memory only \(--no-cpu\); c starts the CPU profiler'
keys Escape
check "the table says the CPU is off" wait_screen 5 'CPU profiling is off \(--no-cpu\): press c to start it'
check "the key bar leads with c" screen_has '^c start CPU profiler'
keys c
check "c asks first, with the pause and the heap" wait_screen 5 'Start the CPU profiler\? It will pause the target about [0-9.]+ m?s .*\(heap [0-9.]+[KMG]\)'
keys n
sleep 1
check "n leaves it off" bash -c "! grep -q '^flags' '$WORK/target.out'"
keys c
wait_screen 5 'Start the CPU profiler\?'
keys y
check "y starts it: hot functions appear" wait_screen 20 'hotMain +[^ ]*hot\.js:7'
check "the JIT step ran as at attach" wait_for 5 grep -q '^flags --no-turbo-inlining\|^flags --no-' "$WORK/target.out"
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/tui.err"
check "the flags were put back" wait_for 5 grep -q '^lease off' "$WORK/target.out"
check "the target is still running" alive "$target_PID"
term_stop
done_testing
