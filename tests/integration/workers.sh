#!/bin/bash
# Worker threads, through the main thread's inspector (NodeWorker), with no flag in the target
# (tests/targets/pool.js). A piscina pool (from npm, pinned by bench/npm) runs primeCount and
# the isPrime it calls in two threads while the main thread waits for the results: each
# worker's row names isPrime with the share it takes, on warm code (V8 inlines isPrime into
# primeCount, and piscina's wrapper, before the attach: without the JIT step in each worker
# Node 18 and 22 charge it all to "(anonymous)", Node 24 to primeCount). Workers that start
# and exit during the session come and go; nested ones are found; what ntop-js installs in
# every thread is gone once it leaves.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux
require_npm_deps

# "THREAD MAX" for each thread's "syms THREAD N" lines from line $2 to line $3 of the output
max_syms() { sed -n "${2},${3}p" "$WORK/$1.out" | awk '$1 == "syms" { if (!($2 in n) || $3 > n[$2]) n[$2] = $3 }
	END { for (t in n) print t, n[t] }' | sort -n; }

# One target at a time: a pool of two busy threads already takes the machine's two cores.
start_node churn --inspect-port=0 "$TARGETS/pool.js" churn
wait_ready churn || diag "the churn target did not start"
sleep 2 # warm: the pool's task is optimized before the attach

"$NTOP_JS" --pid "$churn_PID" --no-config -b --json -n 12 -t 5 >"$WORK/churn.jsonl" 2>"$WORK/ntop-churn.err"
ok $? "ntop-js -b --json -n 12 on the pool: status 0"
check "nothing on stderr" test ! -s "$WORK/ntop-churn.err"
diag "$("$NODE" -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
	const o = JSON.parse(l); console.log(`main ${o.cpu && o.cpu.idle_pct}% idle:`, (o.threads || []).map(t =>
		`${t.thread_id} ${t.thread_name || "-"}${t.exited ? " exited" : ""} ${(t.top || []).slice(0, 2).map(f => f.function + " " + f.self_pct + "%").join(", ")}`).join(" | ")); }' "$WORK/churn.jsonl" 2>&1)"
check "12 lines, each with the main thread's keys where they always were, and a threads array" \
	jsonl_check "$WORK/churn.jsonl" 'l => l.length === 12 && l.every(w => w.cpu && Array.isArray(w.top) &&
		w.target && w.target.pid > 0 && w.event_loop && Array.isArray(w.threads))'
# (one window of a loaded CI run read 78 % among others at 92-99)
check "the main thread waits: 90 % idle or more from the third window (the median), 70 in each" \
	jsonl_check "$WORK/churn.jsonl" 'l => { const v = l.slice(2).map(w => w.cpu.idle_pct);
	return v.every(x => x >= 70) && v.slice().sort((a, b) => a - b)[v.length >> 1] >= 90 ||
		l.map(w => w.cpu.idle_pct); }'
check "from the second window, both pool threads in every line, each its own window with its thread id" \
	jsonl_check "$WORK/churn.jsonl" 'l => l.slice(1).every(w => [1, 2].every(id =>
		w.threads.filter(t => t.thread_id === id && t.cpu && t.top && t.window_ms > 500).length === 1)) ||
		l.map(w => w.threads.map(t => t.thread_id))'
# piscina's own wait for the next task (Atomics.wait in atomicsWaitLoop) and its postMessage
# take the rest, more of it on a loaded machine: the worker is blocked there, and V8's sampler
# counts that time to them. Of the other functions' time, isPrime must hold two thirds:
# without the JIT step it went to piscina's wrapper ("(anonymous)") or to primeCount (isPrime
# 0-10 %); with it, primeCount's own loop held up to 30 % in a window on a loaded machine
# (isPrime 53.6 %, primeCount 23.0 %).
check "in each, isPrime in pool-task.js is the hot function: 2/3 of the time outside piscina's wait" \
	jsonl_check "$WORK/churn.jsonl" 'l => l.slice(2).every(w => [1, 2].every(id => {
		const t = w.threads.find(x => x.thread_id === id),
			work = t.top.filter(f => !/^(atomicsWaitLoop|postMessage|\(idle\)|\(program\))$/.test(f.function)),
			total = work.reduce((a, f) => a + f.self_pct, 0), f = work[0];
		return f && f.function === "isPrime" && /pool-task\.js$/.test(f.url) && f.self_pct >= 10 &&
			f.self_pct >= 2 / 3 * total; })) ||
		l.map(w => w.threads.map(t => t.top && t.top.map(f => f.function + " " + f.self_pct).join()))'
check "with its heap and its own event loop" jsonl_check "$WORK/churn.jsonl" '
	l => l.slice(2).every(w => w.threads.filter(t => !t.exited && !t.late).every(t => t.mem &&
		t.mem.heap_used_bytes > 1e5 && t.event_loop)) || l.map(w => w.threads.map(t => t.mem))'
check "short-lived workers (churner, every 4 s for 3 s) come with churnWork and go, each said exited once" \
	jsonl_check "$WORK/churn.jsonl" 'l => {
		const seen = {};
		for (const w of l) for (const t of w.threads.filter(t => t.thread_name === "churner")) {
			const s = seen[t.thread_id] = seen[t.thread_id] || { windows: 0, hot: 0, exits: 0 };
			if (t.exited) s.exits++;
			else if (!t.late) { s.windows++; if (t.top.some(f => f.function === "churnWork" && f.self_pct >= 15)) s.hot++; }
		}
		const ids = Object.keys(seen);
		return ids.length >= 2 && ids.every(id => seen[id].exits <= 1) &&
			ids.filter(id => seen[id].hot >= 1 && seen[id].exits === 1).length >= 1 || seen; }'

# five windows: on a busy machine a worker's first report can come a window or two late (its
# scripts are read for the repair first)
"$NTOP_JS" --pid "$churn_PID" --no-config -b -n 5 -t 5 --log "$WORK/churn.log" >"$WORK/churn.txt" \
	-o "$WORK/pool.cpuprofile" --folded "$WORK/pool.folded" 2>"$WORK/churn-txt.err"
ok $? "batch text (and --log): status 0"
check "-o: the main thread's profile, and one beside it for each pool thread with isPrime" bash -c "
	'$NODE' '$top_srcdir/tests/check-cpuprofile.js' --quiet --lax-hitcount '$WORK/pool.cpuprofile' &&
	'$NODE' '$top_srcdir/tests/check-cpuprofile.js' --quiet --lax-hitcount --expect-hot isPrime:10 '$WORK/pool-t1.cpuprofile' &&
	'$NODE' '$top_srcdir/tests/check-cpuprofile.js' --quiet --lax-hitcount --expect-hot isPrime:10 '$WORK/pool-t2.cpuprofile'"
check "--folded: every stack under its thread, isPrime under both pool threads" bash -c "
	grep -q '^thread 1;.*;isPrime (' '$WORK/pool.folded' && grep -q '^thread 2;.*;isPrime (' '$WORK/pool.folded' &&
	grep -q '^main;' '$WORK/pool.folded' && ! grep -qvE '^(main|thread [0-9]+( [^;]*)?);' '$WORK/pool.folded'"
grep '"type":"window"' "$WORK/churn.log" | tail -n 1 >"$WORK/churn-last.jsonl"
check "the --log file's window records carry the workers too" jsonl_check "$WORK/churn-last.jsonl" '
	l => l.length === 1 && l[0].threads.some(t => (t.thread_id === 1 || t.thread_id === 2) && t.top)'
check "each worker has a report of its own, named in its header line, with isPrime" \
	bash -c "[ \$(grep -c '^ntop-js - .* thread [12]\$' '$WORK/churn.txt') -ge 4 ] &&
		grep -A14 '^ntop-js - .* thread 1\$' '$WORK/churn.txt' | grep -q ' isPrime .*pool-task\.js'"
"$NTOP_JS" --pid "$churn_PID" --no-config -b --json -n 3 --no-workers >"$WORK/main-only.jsonl" 2>/dev/null
check "--no-workers: the main thread only (no threads key)" jsonl_check "$WORK/main-only.jsonl" '
	l => l.length === 3 && l.every(w => !("threads" in w) && w.cpu)'

# The live view: the THREADS line names each worker with how busy it is; t shows the next.
main_shown() { screen | grep -q '^ntop-js  PID ' && ! screen | grep -q '^ntop-js .*THREAD '; }
back_to_main() { for i in 1 2 3 4 5 6 7 8; do main_shown && return 0; keys t; sleep 0.5; done; main_shown; }
term_start 160 40 "$NTOP_JS --pid $churn_PID --no-config -d 1 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
check "the live view's THREADS line: both pool threads, busy" \
	wait_screen 20 '^THREADS  main [0-9]+%  (1|2) [0-9]+%  (1|2) [0-9]+%'
check "and the short-lived ones as they come" wait_screen 15 '^THREADS .* [0-9]+ churner [0-9]+%'
keys t
check "t shows a pool thread: the header names it" wait_screen 10 '^ntop-js  PID [0-9]+  node [^ ]+  THREAD [12] '
check "and the table is its own: isPrime on top" \
	wait_screen 15 '^ +[0-9.]+% +[0-9.]+% +[0-9.]+s +[0-9.]+s isPrime +[^ ]*pool-task\.js'
# the top row may be atomicsWaitLoop in a window (piscina's wait): find isPrime, then open it
keys / i s P r i m e Enter
sleep 0.3
keys Enter
check "search and Enter: isPrime's details" wait_screen 10 '^FUNCTION isPrime'
check "Enter: isPrime's details, with its caller from the worker's call tree" \
	wait_screen 10 'primeCount'
keys Escape m
check "m: the worker's memory screen" wait_screen 10 '^MEMORY'
keys m
check "t goes round, back to the main thread" back_to_main
keys T
check "T: one table across the threads, with a THREAD column" \
	wait_screen 10 '^ +SELF% +TOTAL% +THREAD +FUNCTION +LOCATION'
both_pool_rows() { [ "$(screen | grep -E '^ +[0-9.]+% +[0-9.]+% +[12] +isPrime ' | awk '{ print $3 }' |
	sort -u | wc -l)" -eq 2 ]; }
check "isPrime in it for both pool threads, each with its thread id" wait_for 15 both_pool_rows
keys T
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on ntop-js's stderr" test ! -s "$WORK/tui.err"
term_stop

# Sessions that end while workers start and exit. A worker asked to tell when it is done
# (NodeRuntime.notifyWhenWaitingForDisconnect, right for the main thread) waits for the
# session to detach, and Node 20 then crashed once in a few such sessions (SIGSEGV): workers
# are never asked.
survived=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$NTOP_JS" --pid "$churn_PID" --no-config -b -n $((1 + i % 3)) >/dev/null 2>>"$WORK/short.err" || break
	alive "$churn_PID" || break
	survived=$i
done
check "ten short sessions one after the other: each ends with status 0 and the target survives" \
	test "$survived" -eq 10
check "(nothing on stderr)" test ! -s "$WORK/short.err"
kill "$churn_PID"

start_node nested --inspect-port=0 "$TARGETS/pool.js" nested
wait_ready nested || diag "the nested target did not start"
sleep 2

# Nested: outer starts inner, whose loop runs nestedWork. Both report to the main thread's
# inspector. Each prints how many ntop-js keys its globalThis holds, every second.
before=$(wc -l <"$WORK/nested.out")
"$NTOP_JS" --pid "$nested_PID" --no-config -b --json -n 5 -t 5 >"$WORK/nested.jsonl" 2>"$WORK/ntop-nested.err"
ok $? "nested workers: status 0"
during=$(wc -l <"$WORK/nested.out")
# (from the third window: in two of them at least, since a line holds the threads whose window
# came in time and one was late on a loaded machine; nestedWork in each it is in, with 20 % of
# its samples over them: soon after the JIT step's deoptimization spin and nestedWork may still
# run unoptimized, where the call costs spin a larger share)
check "the inner worker, started by a worker, is found with nestedWork" jsonl_check "$WORK/nested.jsonl" '
	l => { const inner = w => w.threads.find(t => t.thread_name === "inner" && !t.late),
		share = w => ((inner(w)?.top || []).find(f => f.function === "nestedWork") || {}).self_pct || 0,
		seen = l.slice(2).filter(inner);
		return (l.length >= 5 && seen.length >= 2 && l.slice(2).every(w => w.threads.some(t =>
			t.thread_name === "outer")) && seen.every(w => share(w) > 0) &&
			seen.reduce((a, w) => a + share(w), 0) / seen.length >= 20) ||
		l.map(w => w.threads.map(t => t.thread_name + ":" + (t.top || []).map(f => f.function + " " +
			f.self_pct).join("/"))); }'
diag "while attached, the most keys of each thread: $(max_syms nested "$before" "$during" | tr '\n' ' ')"
threads_with_keys() { [ "$(max_syms nested "$1" "$2" | awk '$2 > 0' | wc -l)" -ge "$3" ]; }
check "while attached, ntop-js keeps its keys in the main thread and in both workers" \
	threads_with_keys "$before" "$during" 3
sleep 2.5
diag "after, the most: $(max_syms nested "$((during + 1))" '$' | tr '\n' ' ')"
# the last two seconds of lines: every thread has printed since ntop-js left
keys_gone() { [ -n "$(max_syms nested "$((during + 1))" '$')" ] &&
	! tail -n +"$((during + 1))" "$WORK/nested.out" | awk '$1 == "syms"' | tail -n 6 | grep -qv ' 0$'; }
check "once it has left, no thread holds any (none waits for a watchdog)" keys_gone
check "the target is still running" alive "$nested_PID"

# Another process's worker threads: --pid twice, the second process's threads followed
# through its own inspector, in the threads array with its pid, and exported under it.
start_node other --inspect-port=0 "$TARGETS/pool.js" nested
wait_ready other || diag "the second nested target did not start"
sleep 2
before=$(wc -l <"$WORK/other.out")
# nine windows: on a slow, busy machine the second process's nested worker was first seen in
# the fifth window (a CI run), and in the sixth once each process's attach also read its
# scripts for the repair (the default on Node 18-24); the last three must all have it
"$NTOP_JS" --pid "$nested_PID" --pid "$other_PID" --no-config -b --json -n 9 -t 5 \
	-o "$WORK/two.cpuprofile" >"$WORK/two.jsonl" 2>"$WORK/ntop-two.err"
ok $? "two processes, each with workers: status 0 ($(head -c 300 "$WORK/ntop-two.err"))"
during=$(wc -l <"$WORK/other.out")
# a window of a thread can come \"late\" (its own line, documented) on a busy machine: such a
# line names the thread and nothing else, and two of the three must show the function
two_threads=$(jsonl_check "$WORK/two.jsonl" "l => l.slice(6).every(w => w.threads.some(t => t.target.pid === $other_PID &&
		t.thread_name === 'inner' && (t.late || t.top.some(f => f.function === 'nestedWork')))) &&
		l.slice(6).filter(w => w.threads.some(t => t.target.pid === $other_PID &&
		t.thread_name === 'inner' && t.top && t.top.some(f => f.function === 'nestedWork'))).length >= 2 &&
		l.slice(6).every(w => w.threads.some(t => t.target.pid === $nested_PID && t.thread_name === 'inner')) ||
		JSON.stringify(l.map(w => w.threads.map(t => t.target.pid + ':' + t.thread_name + ':' +
			(t.late ? 'late' : (t.top || []).slice(0, 3).map(f => f.function + '=' + f.self_pct).join('/')))))" 2>&1)
ok $? "the second process's inner worker is in the threads array with its pid and nestedWork"
[ -z "$two_threads" ] || diag "windows' threads (pid:name:top): $two_threads"
check "-o: its threads' profiles are named by its pid" sh -c "ls '$WORK'/two-p$other_PID-t*.cpuprofile"
check "while attached, ntop-js keeps its keys in the second process's workers too" sh -c \
	"[ \$(sed -n '${before},${during}p' '$WORK/other.out' | awk '\$1 == \"syms\" && \$2 > 0 && \$3 > 0' | wc -l) -gt 0 ]"
sleep 2.5
other_gone() { ! tail -n +"$((during + 1))" "$WORK/other.out" | awk '$1 == "syms"' | tail -n 6 |
	grep -qv ' 0$'; }
check "once it has left, none of them holds any" other_gone
check "both targets are still running" sh -c "kill -0 $nested_PID && kill -0 $other_PID"

done_testing
