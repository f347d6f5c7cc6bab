#!/bin/bash
# --max-pause on a real large-heap target: ntop-js predicts the profiler's pause before
# causing it; batch mode refuses with the prediction (and the refusal itself pauses nothing);
# allowed, the prediction is close to the pause the target's event loop saw; the live view
# starts with memory only and asks.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

MANY=$top_srcdir/bench/targets/many-functions.js
[ -f "$MANY" ] || skip_all "bench/targets/many-functions.js not found"
# 700 MB of small live records (like a cache) and 1,000 functions: a pause of about a second
# when V8's profiler starts. The target prints its worst event-loop stall every second.
start_big() {
	start_server big 60 --max-old-space-size=3000 --inspect-port=0 "$MANY" --functions 1000 --heap-mb 700
	sleep 2
}
# node itself crashed (SIGSEGV) while building or holding this heap, before anything was
# attached, in runs of the whole suite on a loaded machine: say how, and start it once more
# (before each part, so that one crash costs no part its target).
revive_big() {
	alive "$big_PID" && return 0
	wait "$big_PID" 2>/dev/null
	diag "the target died (status $?: $(tail -c 200 "$WORK/big.err")); once more"
	start_big
}
start_big
revive_big

# stall_max FROM_S TO_S: the worst stall the target reported between two of its clocks.
stall_max() {
	"$NODE" -e 'const [f, a, b] = process.argv.slice(1);
		let m = -1;
		for (const l of require("fs").readFileSync(f, "utf8").split("\n")) {
			let r; try { r = JSON.parse(l); } catch (e) { continue; }
			if (r.worst_stall_ms !== undefined && r.wall_s >= +a && r.wall_s <= +b)
				m = Math.max(m, Math.round(r.worst_stall_ms));
		}
		console.log(m);' "$WORK/big.out" "$1" "$2"
}
now_s() { date +%s.%N; }

# stall_around T0 T1: the worst stall the target reported in the seconds that overlap
# [T0, T1], up to and with its first report from a second after T1 (a stall that blocked the
# target's clock past T1 is reported late, in that one). Waits up to 15 s for that report.
stall_around() {
	local after
	after=$(awk "BEGIN{printf \"%.3f\", $2 + 1}")
	wait_for 15 "$NODE" -e 'const [f, a] = process.argv.slice(1);
		process.exit(require("fs").readFileSync(f, "utf8").split("\n").some(l => {
			try { return JSON.parse(l).wall_s >= +a; } catch (e) { return false; } }) ? 0 : 1);' \
		"$WORK/big.out" "$after"
	"$NODE" -e 'const [f, a, b] = process.argv.slice(1);
		let m = -1;
		for (const l of require("fs").readFileSync(f, "utf8").split("\n")) {
			let r; try { r = JSON.parse(l); } catch (e) { continue; }
			if (r.worst_stall_ms === undefined || r.wall_s <= +a) continue;
			m = Math.max(m, Math.round(r.worst_stall_ms));
			if (r.wall_s >= +b) break;
		}
		console.log(m);' "$WORK/big.out" "$1" "$after"
}

# The refusal: its check reads heap statistics only (no heap walk above 400 MB). The target's
# own garbage collector pauses it too, now and then (a 700 MB heap takes some 100s of ms under
# load), so a stall is believed to be the check's only if each of three refusals saw one.
# A target that died during a try (the SIGSEGV above, seen once in CI during the attach, on
# Node 20 under the whole suite's load, never in 18 tries on a quiet machine) is said, started
# again and tried again, twice at most: its death is not the refusal's to judge.
stalls=""
revive_big
revived=0
tries=0
while [ $tries -lt 3 ]; do
	tries=$((tries + 1))
	t0=$(now_s)
	"$NTOP_JS" --pid "$big_PID" -b --json -n 2 >"$WORK/refused.out" 2>"$WORK/refused.err"
	rc=$?
	t1=$(now_s)
	if ! alive "$big_PID" && [ $revived -lt 2 ]; then
		revived=$((revived + 1))
		tries=$((tries - 1))
		revive_big
		continue
	fi
	worst=$(stall_around "$t0" "$t1")
	stalls="$stalls $worst"
	[ "$worst" -ge 0 ] && [ "$worst" -lt 150 ] && break
done
ok $([ $rc -eq 12 ]; echo $?) "over --max-pause (default 0.2 s), batch mode refuses with status 12 (got $rc)"
check "in one sentence with the predicted pause and the heap" grep -qxE \
	"ntop-js: starting the CPU profiler would pause the target \(PID $big_PID\) for about [0-9.]+ m?s \(heap [0-9.]+ MB\); --max-pause [0-9.]+ allows it, and --no-cpu watches memory without it\." \
	"$WORK/refused.err"
diag "$(cat "$WORK/refused.err")"
check "nothing on stdout" test ! -s "$WORK/refused.out"
ok $([ "$worst" -ge 0 ] && [ "$worst" -lt 150 ]; echo $?) \
	"the check itself did not pause the target (worst stall of each try, ms:$stalls)"

# main_cpu_ms PID: CPU time of the process's main thread (where V8 walks the heap when the
# profiler starts), in ms, at the clock tick's resolution (10 ms).
main_cpu_ms() {
	local stat f
	stat=$(cat "/proc/$1/task/$1/stat" 2>/dev/null) || { echo 0; return; }
	read -ra f <<<"${stat##*) }"
	echo $(( (f[11] + f[12]) * 1000 / $(getconf CLK_TCK) ))
}

# --leave-jit: the profiler's start alone (the JIT step's deoptimization is a second pause).
# The pause is measured as the main thread's CPU time in the session beyond what it spends in
# as long without ntop-js: the target's own clock (its worst stall, also shown) is wall time,
# which other processes on a loaded machine stretch (900-1350 ms against 448 predicted, with
# the long tests running beside), while the walk costs the same CPU. Each start walks the heap
# again, so each try measures the same pause: one of three close enough is believed. Close
# enough is a factor of 2.5, not the model's 50 %: the same VM walked the same heap at half
# the speed of the model's fit on some days (449 ms predicted; 995-1045 ms of CPU and stalls of
# 1021-1109 ms in three tries, alone, in a fresh-clone CI of 2026-11-30), so this checks that
# the prediction has the pause's size, and doc/bench/pause.md says how far a slow day moves it.
tries=""
within=1
revive_big
for try in 1 2 3; do
	b0=$(main_cpu_ms "$big_PID") s0=$(now_s)
	sleep 3
	b1=$(main_cpu_ms "$big_PID") s1=$(now_s)
	t0=$(now_s) c0=$(main_cpu_ms "$big_PID")
	"$NTOP_JS" --pid "$big_PID" --max-pause 30 --leave-jit -b --json -n 3 >"$WORK/allowed.jsonl" \
		2>"$WORK/allowed.err"
	rc=$?
	c1=$(main_cpu_ms "$big_PID") t1=$(now_s)
	[ $rc -eq 0 ] || break
	sleep 1.5
	est=$("$NODE" -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
		console.log(JSON.parse(l[0]).pause_estimate.profiler_start_ms)' "$WORK/allowed.jsonl")
	worst=$(stall_max "$t0" "$(now_s)")
	cpu=$("$NODE" -p "Math.round(($c1 - $c0) - ($b1 - $b0) * ($t1 - $t0) / ($s1 - $s0))")
	tries="$tries $est/$cpu (stall $worst)"
	"$NODE" -e 'const [e, w] = process.argv.slice(1).map(Number);
		process.exit(w > 0 && e / w >= 0.4 && e / w <= 2.5 ? 0 : 1)' "$est" "$cpu" && { within=0; break; }
done
ok $rc "--max-pause 30 allows it"
diag "predicted/measured ms of each try:$tries"
ok $within "the prediction is within a factor of 2.5 of the pause (predicted/main-thread CPU ms:$tries)"

# --alloc: every fetch forces a full GC (about 0.7 s here), checked the same way.
revive_big
"$NTOP_JS" --pid "$big_PID" --max-pause 0.6 --leave-jit --alloc -b --json -n 2 >/dev/null \
	2>"$WORK/alloc.err"
rc=$?
ok $([ $rc -eq 12 ]; echo $?) "--alloc whose forced GC is over --max-pause: status 12 (got $rc)"
check "saying so" grep -qE '^ntop-js: --alloc forces a full garbage collection at every profile fetch, which would pause the target .* for about [0-9.]+ m?s \(heap [0-9.]+ MB\) each time; --max-pause [0-9.]+ allows it\.$' "$WORK/alloc.err"
diag "$(cat "$WORK/alloc.err")"

# The live view: memory only, and the question, at once.
require_tmux
# The question, on a live target: when the 700 MB target died by itself meanwhile (above), the
# screen says so and the view is tried once more on a new one.
ask_screen() {
	revive_big
	term_start 160 40 "$NTOP_JS --pid $big_PID --no-config -d 0.5 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
	wait_screen 15 'Start the CPU profiler\? It will pause the target about [0-9.]+ m?s'
}
asked=0
ask_screen || asked=$?
if [ "$asked" -ne 0 ] && ! alive "$big_PID"; then
	diag "the target died under the live view: $(screen | grep -v '^ *$' | tail -n 3 | tr '\n' ' ')"
	term_stop
	asked=0
	ask_screen || asked=$?
fi
[ "$asked" -eq 0 ] || diag "the screen: $(screen | grep -v '^ *$' | head -n 8 | tr '\n' '|') stderr: $(head -c 300 "$WORK/tui.err") target alive: $(alive "$big_PID" && echo yes || echo no)"
ok "$asked" "the live view asks before starting the profiler"
check "on the memory screen" screen_has '^MEMORY +zoom'
keys n
check "n: memory only, said in the status line" wait_screen 5 'memory only for now: starting the CPU profiler would pause the target about'
keys Escape
check "the table says the CPU is off" wait_screen 5 'CPU profiling is off'
keys c
wait_screen 5 'Start the CPU profiler\?'
keys y
check "y starts it" wait_screen 30 'last window [0-9.]+ ?m?s, [0-9]+ samples'
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/tui.err"
alive "$big_PID" || { wait "$big_PID" 2>/dev/null; diag "the target died (status $?: $(tail -c 200 "$WORK/big.err"))"; }
check "the target is still running" alive "$big_PID"
term_stop
done_testing
