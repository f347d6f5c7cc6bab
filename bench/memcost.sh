#!/usr/bin/env bash
# What watching memory costs a target, measured as the CPU time it spends: targets that do a
# fixed amount of work a second (so any CPU time they spend beyond it is what ntop-js costs
# them), watched and not watched in alternating phases. On a saturated target that extra CPU
# is lost throughput: extra / (own + extra) of its work per CPU second. Throughput ratios on a
# saturated server move by several points from round to round (doc/benchmarks.md 12); the CPU
# time of fixed work moves by a few tenths of a point, which is what a 1 % goal needs.
#
# Usage: bench/memcost.sh [-r ROUNDS] [-s SECS] [-a 'NTOP_ARGS'] [-t 'TARGETS'] [-k COPIES]
#                         [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -r ROUNDS     rounds (default 4), each a phase without and one with ntop-js, the order
#                 alternating so that slow drifts cancel
#   -s SECS       seconds measured per phase (default 60)
#   -a ARGS       ntop-js options (default "--no-cpu -d 60": the README's weekend recipe)
#   -t TARGETS    among fixed-work, idle, sawtooth (default "fixed-work sawtooth")
#   -k COPIES     ntop-js sessions on each target at once (default 1). A cost well under the
#                 noise of a phase (a few points) is measured as COPIES times itself: the
#                 table's last columns divide the extra by COPIES (the requests of each
#                 session, its GC profiler and its readings add up in the target)
# The ntop-js binary: the argument, else $NTOP_JS.
#
# Targets (started once, side by side, Node = $NODE): bench/targets/fixed-work.js (the same
# hashing and a little garbage every 10 ms: about 300 ms of CPU a second, steady to a few
# tenths of a percent), tests/targets/idle.js (a little work every 20 ms) and
# tests/targets/sawtooth.js (20,000 objects of garbage every 20 ms: scavenges all the time
# and a major collection every 10-20 s, so every cost that ntop-js's GC profiler adds per
# collection shows; its own CPU drifts by several percent as V8 sizes its heap). With
# ntop-js: `ntop-js --pid PID -b
# --json ARGS` on each, started 5 s before the phase (its attach, a one-time cost, is left
# out) and stopped after it. The last column is the part of the extra spent in V8's profiler
# thread (v8:ProfEvntProc; none without CPU profiling): it wakes at every sampling interval,
# so it tells a cost per sample from the rest (the evaluations, timers and readings of each
# window, on the main thread), which the phases' noise hides. It counts only while the profiler
# runs for the whole phase: V8 ends the thread, and its CPU leaves /proc/PID/task, when its
# last profile stops (--cpu-every, --no-eval).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

rounds=4
secs=60
nargs="--no-cpu -d 60"
tnames="fixed-work sawtooth"
copies=1
while getopts 'r:s:a:t:k:h' opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	a) nargs=$OPTARG ;;
	t) tnames=$OPTARG ;;
	k) copies=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 1
bench_uint -s "$secs" 1
bench_uint -k "$copies" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
targets_dir=$(cd "$BENCH_DIR/../tests/targets" && pwd)
read -ra ntop_args <<<"$nargs"

echo "== memory watching: the target's CPU time with and without ntop-js"
echo "reproduce: NTOP_JS=$ntop bench/memcost.sh -r $rounds -s $secs -a '$nargs' -t '$tnames' -k $copies"
echo "ntop-js: $("$ntop" --version | head -n 1)"
bench_machine

read -ra names <<<"$tnames"
pids=()
for n in "${names[@]}"; do
	script=$targets_dir/$n.js
	[ -f "$script" ] || script=$BENCH_TARGETS/$n.js
	[ -f "$script" ] || bench_die "no target $n"
	# Several sessions: the inspector open from the start, so that no session opened it (the
	# one that did would close it, and end the others, when it leaves).
	if [ "$copies" -gt 1 ]; then insp=--inspect=127.0.0.1:0; else insp=--inspect-port=127.0.0.1:0; fi
	"$NODE" "$insp" "$script" >"$bench_tmp/$n.out" 2>&1 &
	pids+=($!)
	bench_track "$!"
	bench_wait_line "$bench_tmp/$n.out" 'ready' 30
done
sleep 5
hz=$(getconf CLK_TCK)

# phase MODE ROUND: measures each target's CPU ticks over SECS, with ntop-js on or off;
# appends "ROUND MODE NAME MS_PER_S PROFILER_THREAD_MS_PER_S" lines to $bench_tmp/phases.
phase() {
	local mode=$1 round=$2 i c before=() after=() pbefore=() pafter=() npids=() ntarget=()
	if [ "$mode" = on ]; then
		for i in "${!pids[@]}"; do
			for c in $(seq "$copies"); do
				"$ntop" --pid "${pids[$i]}" -b --json "${ntop_args[@]}" \
					>"$bench_tmp/ntop-$round-$i-$c.jsonl" 2>"$bench_tmp/ntop-$round-$i-$c.err" &
				npids+=($!)
				ntarget+=("$i")
				bench_track "$!"
			done
		done
		sleep 5
	fi
	for i in "${!pids[@]}"; do
		before+=("$(bench_cpu_ticks "${pids[$i]}")")
		pbefore+=("$(bench_thread_ticks "${pids[$i]}" v8:ProfEvntProc)")
	done
	sleep "$secs"
	for i in "${!pids[@]}"; do
		after+=("$(bench_cpu_ticks "${pids[$i]}")")
		pafter+=("$(bench_thread_ticks "${pids[$i]}" v8:ProfEvntProc)")
	done
	if [ "$mode" = on ]; then
		for c in "${!npids[@]}"; do
			i=${ntarget[$c]}
			kill -0 "${npids[$c]}" 2>/dev/null ||
				bench_die "ntop-js left ${names[$i]} early: $(cat "$bench_tmp/ntop-$round-$i"-*.err)"
			bench_stop "${npids[$c]}"
			[ "$bench_rc" = 0 ] || bench_die "ntop-js on ${names[$i]} ended with $bench_rc"
			kill -0 "${pids[$i]}" 2>/dev/null || bench_die "the ${names[$i]} target died"
		done
		sleep 3
	fi
	for i in "${!pids[@]}"; do
		echo "$round $mode ${names[$i]} $(bench_calc "(${after[$i]} - ${before[$i]}) * 1000 / $hz / $secs")" \
			"$(bench_calc "(${pafter[$i]} - ${pbefore[$i]}) * 1000 / $hz / $secs")" >>"$bench_tmp/phases"
	done
	echo "round $round, ntop-js $mode: $(tail -n ${#pids[@]} "$bench_tmp/phases" | awk '{printf "%s %.2f ms/s  ", $3, $4}')"
}

: >"$bench_tmp/phases"
for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then phase off "$r"; phase on "$r"; else phase on "$r"; phase off "$r"; fi
done

echo
echo "| target | CPU without, ms per s (median) | with $copies session(s) | extra, ms per s (median of rounds) | extra, % of its own CPU | per round | per session: extra, % of its own CPU | of the extra, V8's profiler thread, ms per s |"
echo "|---|---|---|---|---|---|---|---|"
# shellcheck disable=SC2016 # JavaScript, not shell
"$NODE" -e '
	const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(l => l.split(" "));
	const med = v => { v = [...v].sort((a, b) => a - b); const n = v.length; return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; };
	for (const name of process.argv[2].split(" ")) {
		const r = rows.filter(x => x[2] === name);
		const byRound = {};
		for (const [round, mode, , v, p] of r) {
			const b = byRound[round] = byRound[round] || {};
			b[mode] = Number(v);
			b[mode + "Prof"] = Number(p);
		}
		const prof = Object.values(byRound).map(x => x.onProf - x.offProf);
		const off = Object.values(byRound).map(x => x.off), on = Object.values(byRound).map(x => x.on);
		const extra = Object.values(byRound).map(x => x.on - x.off);
		const pct = Object.values(byRound).map(x => 100 * (x.on - x.off) / x.off);
		const k = Number(process.argv[3]);
		console.log(`| ${name} | ${med(off).toFixed(2)} | ${med(on).toFixed(2)} | ${med(extra).toFixed(2)} | ` +
			`${med(pct).toFixed(2)} % | ${pct.map(p => p.toFixed(2)).join(", ")} | ` +
			`**${(med(pct) / k).toFixed(2)} %** (${pct.map(p => (p / k).toFixed(2)).join(", ")}) | ` +
			`${med(prof).toFixed(2)} |`);
	}' "$bench_tmp/phases" "${names[*]}" "$copies"
bench_load_after
