#!/usr/bin/env bash
# Where the flight recorder's cost goes in the target (--trigger): an idle Node process (a
# 1 s timer, nothing else: whatever CPU it spends beyond that is ntop-js's), watched in
# alternating phases, each thread's CPU read from /proc/PID/task/*/schedstat (nanoseconds:
# an idle target spends well under the 10 ms clock tick a second, which bench/memcost.sh
# counts in). Split by thread: the main thread (JavaScript, V8's sampling signal, the
# event-loop timers), V8's profiler thread (v8:ProfEvntProc, one wake per sample) and the
# others (the inspector's I/O thread, which carries the websocket). Then bench/loop-parts.js
# runs each part alone in a process of its own, without ntop-js.
#
# Usage: bench/recorder-parts.sh [-r ROUNDS] [-s SECS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -r ROUNDS   rounds (default 2) of every phase
#   -s SECS     seconds measured per phase (default 20)
# Phases: nothing; `--no-cpu` (memory readings and the coarse loop timer, the weekend's
# watching); the recorder, `-d 1 --trigger 'cpu>99%:10s'` (a trigger that never fires: the
# recorder alone, at its default -i 20000, whose loop timer ticks every 20 ms); the same at
# -i 10000 (the timer at 10 ms) and at -i 100000 (the sampler nearly gone: what stays is not
# per sample).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

rounds=2
secs=20
while getopts 'r:s:h' opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 1
bench_uint -s "$secs" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"

echo "== the flight recorder's cost, by thread, in an idle target"
echo "reproduce: NTOP_JS=$ntop bench/recorder-parts.sh -r $rounds -s $secs"
echo "ntop-js: $("$ntop" --version | head -n 1)"
bench_machine

"$NODE" --inspect-port=0 -e 'setInterval(() => {}, 1000); console.log("ready")' \
	>"$bench_tmp/target.out" 2>&1 &
target=$!
bench_track "$target"
bench_wait_line "$bench_tmp/target.out" '^ready' 10

# threads: "main profiler other" nanoseconds on CPU over the target's live threads, then the
# main thread's and the profiler thread's wakes (voluntary context switches: each time the
# thread slept and was woken, by a timer, a signal or a message), which unlike the CPU a wake
# costs do not depend on the machine
threads() {
	local t name ns vcs main=0 prof=0 other=0 mainw=0 profw=0
	for t in /proc/"$target"/task/*; do
		read -r ns _ <"$t/schedstat" 2>/dev/null || continue
		name=$(cat "$t/comm" 2>/dev/null) || continue
		vcs=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$t/status" 2>/dev/null)
		if [ "${t##*/}" = "$target" ]; then main=$((main + ns)) mainw=$((mainw + ${vcs:-0}))
		elif [ "$name" = v8:ProfEvntProc ]; then prof=$((prof + ns)) profw=$((profw + ${vcs:-0}))
		else other=$((other + ns)); fi
	done
	echo "$main $prof $other $mainw $profw"
}

trig="--trigger cpu>99%:10s --incident-dir $bench_tmp/incidents"
phases=("nothing|"
	"--no-cpu|--no-cpu"
	"recorder (its -i 20000)|-d 1 $trig"
	"recorder, -i 10000|-d 1 -i 10000 $trig"
	"recorder, -i 100000|-d 1 -i 100000 $trig")
: >"$bench_tmp/rows"
for ((round = 1; round <= rounds; round++)); do
	for p in "${phases[@]}"; do
		name=${p%%|*} args=${p#*|} np=
		if [ -n "$args" ]; then
			# shellcheck disable=SC2086 # the options are words
			"$ntop" --pid "$target" -b --json $args >/dev/null 2>"$bench_tmp/ntop.err" &
			np=$!
			bench_track "$np"
			sleep 6 # the attach and the first windows are left out
			kill -0 "$np" 2>/dev/null || bench_die "ntop-js $args ended: $(cat "$bench_tmp/ntop.err")"
		else
			sleep 2
		fi
		read -r m0 p0 o0 mw0 pw0 < <(threads)
		t0=$(date +%s%N)
		sleep "$secs"
		read -r m1 p1 o1 mw1 pw1 < <(threads)
		t1=$(date +%s%N)
		if [ -n "$np" ]; then
			kill -INT "$np"
			wait "$np" 2>/dev/null || true
			sleep 3 # the inspector closes and V8's profiler thread ends
		fi
		line=$("$NODE" -p "const s = ($t1 - $t0) / 1e9, f = x => (x / 1e6 / s).toFixed(2);
			const w = x => (x / s).toFixed(1);
			[f($m1 - $m0), f(Math.max(0, $p1 - $p0)), f($o1 - $o0), w($mw1 - $mw0),
				w(Math.max(0, $pw1 - $pw0))].join(' ')")
		echo "$name|$line" >>"$bench_tmp/rows"
		echo "round $round, $name: ms/s main, profiler thread, others; wakes/s main, profiler thread: $line"
	done
done

echo
"$NODE" -e '
	const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(l => {
		const [name, v] = l.split("|"); return [name, v.split(" ").map(Number)]; });
	const med = a => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
	const by = new Map();
	for (const [n, v] of rows) { if (!by.has(n)) by.set(n, []); by.get(n).push(v); }
	const base = by.get("nothing").map(v => v[0] + v[1] + v[2]);
	console.log("| phase | main thread | V8 profiler thread | other threads | all, over nothing | the rounds (all) | wakes a second: main thread, profiler thread |");
	console.log("|---|---|---|---|---|---|---|");
	for (const [n, vs] of by) {
		const all = vs.map(v => v[0] + v[1] + v[2]), m = i => med(vs.map(v => v[i]));
		console.log(`| ${n} | ${m(0).toFixed(2)} | ${m(1).toFixed(2)} | ${m(2).toFixed(2)} | ` +
			`${n === "nothing" ? "" : (med(all) - med(base)).toFixed(2)} | ` +
			`${all.map(x => x.toFixed(2)).join(", ")} | ${m(3).toFixed(0)}, ${m(4).toFixed(0)} |`);
	}
	console.log("(ms of the target'"'"'s CPU a second, and wakes a second, medians of the rounds)");' "$bench_tmp/rows"
echo
echo "== each part alone, without ntop-js (bench/loop-parts.js)"
"$NODE" "$BENCH_DIR/loop-parts.js" "$((secs * 3 / 4 > 5 ? secs * 3 / 4 : 5))" "$rounds" | sed -n '/^|/p'
bench_load_after
