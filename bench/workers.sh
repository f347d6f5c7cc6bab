#!/usr/bin/env bash
# Worker threads: ntop-js's own cost watching a process of many threads, and the event-loop
# stall it adds to each thread.
#
# Usage: bench/workers.sh [-s SECS] [-k SKIP] [-w WORKERS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS       seconds measured per phase (default 30)
#   -k SKIP       seconds skipped after attaching (default 5: the attach and every worker's
#                 JIT step)
#   -w WORKERS    worker threads in the target (default 32)
#
# The target (bench/targets/threads.js): the main thread and WORKERS workers, each a little
# work every 50 ms, each reporting its worst event-loop stall of every second. Three phases,
# each on a fresh target:
#   none      no profiler attached
#   main      ntop-js -b --no-workers (default settings): the main thread alone, as before
#             ntop-js watched workers; the baseline of both measures
#   workers   ntop-js -b (default settings): every thread
# Reported: ntop-js's CPU time (percent of one core, from /proc/PID/stat) and peak RSS
# (VmHWM) over the phase, and for the main thread and for the workers the median and p95 of
# the per-second worst stall, and what each phase adds to phase none's.
# Goals (issue 11): watching 32 workers costs ntop-js at most 2 % of one core and 50 MB; the
# stall added to each worker is the same as the main thread's today (phase main).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

secs=30
skip=5
workers=32
while getopts 's:k:w:h' opt; do
	case $opt in
	s) secs=$OPTARG ;;
	k) skip=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -s "$secs" 1
bench_uint -k "$skip"
bench_uint -w "$workers" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
hz=$(getconf CLK_TCK)

echo "== workers: ntop-js watching a process of $workers worker threads"
echo "reproduce: bench/workers.sh -s $secs -k $skip -w $workers $ntop"
bench_machine
echo


# run_phase NAME none|attach [NTOP_JS_ARGS...]: appends "NAME cpu_pct hwm_mb main_median
# main_p95 workers_median workers_p95 status" to results.
results=()
invalid=no
run_phase() {
	local name=$1 mode=$2
	shift 2
	local out="$bench_tmp/workers-$name.jsonl" nlog="$bench_tmp/workers-$name.ntop.txt"
	local nerr="$bench_tmp/workers-$name.ntop.err" tpid npid="" base t0 t1 cpu="-" hwm="-"
	local status=ok
	"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/threads.js" --workers "$workers" \
		--out "$out" 2>"$bench_tmp/workers-$name.target.err" &
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$out" '"event":"ready"' 120
	sleep 3
	if [ "$mode" = attach ]; then
		"$ntop" --pid "$tpid" --no-config -b "$@" >"$nlog" 2>"$nerr" &
		npid=$!
		bench_track "$npid"
	fi
	sleep "$skip"
	base=$(bench_count_lines "$out" '"t":')
	[ -n "$npid" ] && t0=$(bench_cpu_ticks "$npid")
	sleep "$secs"
	if [ -n "$npid" ]; then
		t1=$(bench_cpu_ticks "$npid") || t1=""
		hwm=$(bench_hwm_kb "$npid")
		if ! kill -0 "$npid" 2>/dev/null || [ -z "$t1" ]; then
			status="ntop-js-exited-early"
			invalid=yes
			sed 's/^/  | /' "$nerr" >&2
		else
			cpu=$(bench_calc "(100 * ($t1 - $t0) / $hz / $secs).toFixed(2)")
			hwm=$(bench_calc "($hwm / 1024).toFixed(1)")
		fi
		bench_stop "$npid"
	fi
	local n1
	n1=$(bench_count_lines "$out" '"t":')
	bench_stop "$tpid"
	# the seconds measured: those the target wrote while ntop-js was attached, past SKIP
	grep '"t":' "$out" | sed -n "$((base + 1)),$((n1 - 2))p" >"$bench_tmp/workers-$name.sel"
	"$NODE" -e '
		const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map(JSON.parse);
		console.log(l.map(x => x.main).filter(x => x !== null).join("\n"));' "$bench_tmp/workers-$name.sel" \
		| bench_stats >"$bench_tmp/workers-$name.main"
	"$NODE" -e '
		const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map(JSON.parse);
		console.log(l.flatMap(x => x.workers).filter(x => x !== null).join("\n"));' "$bench_tmp/workers-$name.sel" \
		| bench_stats >"$bench_tmp/workers-$name.workers"
	read -r _ mmed mp95 _ _ <"$bench_tmp/workers-$name.main"
	read -r _ wmed wp95 _ _ <"$bench_tmp/workers-$name.workers"
	results+=("$name $cpu $hwm $mmed $mp95 $wmed $wp95 $status")
	echo "phase $name: ${results[-1]}"
}

run_phase none none
run_phase main attach --no-workers
run_phase workers attach

read -r _ _ _ base_mmed _ base_wmed _ _ <<<"${results[0]}"
echo
echo "ntop-js's CPU (% of one core) and peak RSS over ${secs} s; per-second worst event-loop"
echo "stall (ms) of the main thread and of the $workers workers (all their seconds), median and"
echo "p95, and what the phase adds to the medians of phase none (fresh target per phase)"
row() { printf '%-8s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n' "$@"; }
row phase "cpu %" "rss MB" "main med" "main p95" "+main" "wrk med" "wrk p95" "+workers" status
for r in "${results[@]}"; do
	read -r name cpu hwm mmed mp95 wmed wp95 status <<<"$r"
	row "$name" "$cpu" "$hwm" "$mmed" "$mp95" "$(bench_calc "($mmed - $base_mmed).toFixed(2)")" \
		"$wmed" "$wp95" "$(bench_calc "($wmed - $base_wmed).toFixed(2)")" "$status"
done
read -r _ mcpu mhwm mmed _ _ _ _ <<<"${results[1]}"
read -r _ wcpu whwm _ _ wmed _ _ <<<"${results[2]}"
main_added=$(bench_calc "($mmed - $base_mmed).toFixed(2)")
workers_added=$(bench_calc "($wmed - $base_wmed).toFixed(2)")
echo
echo "watching $workers workers: ntop-js $wcpu % of a core (main thread alone: $mcpu %), $whwm MB"\
	"(main thread alone: $mhwm MB); goal <= 2 % and 50 MB:" \
	"$(bench_calc "$wcpu <= 2 && $whwm <= 50 ? 'PASS' : 'FAIL'")"
echo "stall added to each worker: $workers_added ms at the median (the main thread's today:" \
	"$main_added ms); goal: no more than 1 ms over it:" \
	"$(bench_calc "$workers_added <= Math.max($main_added, 0) + 1 ? 'PASS' : 'FAIL'")"
[ $invalid = no ] || echo "INVALID: ntop-js did not stay attached (see above)"
bench_load_after
[ $invalid = no ] || exit 1
