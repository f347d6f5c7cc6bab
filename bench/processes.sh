#!/usr/bin/env bash
# Several processes: ntop-js's own cost watching the processes of a service, and the
# event-loop stall it adds to each.
#
# Usage: bench/processes.sh [-s SECS] [-k SKIP] [-p PROCESSES] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS        seconds measured per phase (default 30)
#   -k SKIP        seconds skipped after attaching (default 8: the attach of every process,
#                  one after the other, and each one's JIT step)
#   -p PROCESSES   processes of the service (default 8)
#
# The service: PROCESSES copies of bench/targets/threads.js with no worker thread, each a
# little work every 50 ms and a report of its worst event-loop stall of every second. Like a
# cluster's workers, they share one inspector port (a free one, through NODE_OPTIONS, so that
# the run stays off 9229): ntop-js opens each inspector by SIGUSR1 and moves it to a free port
# before the next. Four phases, each on a fresh service:
#   none   no profiler attached
#   one    ntop-js -b --pid FIRST (default settings): one process, what ntop-js did before it
#          watched several; the baseline of both measures
#   all    ntop-js -b --pid P1 --pid P2 ... (default settings): every process
#   match  ntop-js -b --match TEXT: the same processes found by their command line, and the
#          machine's processes listed again every 10 s for new ones
# Reported: ntop-js's CPU time (percent of one core, from /proc/PID/stat) and peak RSS
# (VmHWM) over the phase, and the median and p95 of the per-second worst stall of the
# processes watched (all of them in phase none), with what each phase adds to phase none's.
# Goals (issue 11): watching 8 processes costs ntop-js at most 2 % of one core and 50 MB; the
# stall added to each process is the same as one process's today (phase one).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

secs=30
skip=8
procs=8
while getopts 's:k:p:h' opt; do
	case $opt in
	s) secs=$OPTARG ;;
	k) skip=$OPTARG ;;
	p) procs=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -s "$secs" 1
bench_uint -k "$skip"
bench_uint -p "$procs" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
hz=$(getconf CLK_TCK)

echo "== processes: ntop-js watching a service of $procs processes"
echo "reproduce: bench/processes.sh -s $secs -k $skip -p $procs $ntop"
bench_machine
echo


# run_phase NAME none|one|all: appends "NAME cpu_pct hwm_mb median p95 status" to results.
results=()
invalid=no
run_phase() {
	local name=$1 mode=$2 i port npid="" t0 t1 cpu="-" hwm="-" status=ok
	local nlog="$bench_tmp/procs-$name.ntop.txt" nerr="$bench_tmp/procs-$name.ntop.err"
	local tpids=() outs=() args=() bases=()
	port=$(bench_free_port)
	for ((i = 0; i < procs; i++)); do
		outs+=("$bench_tmp/procs-$name-$i.jsonl")
		NODE_OPTIONS=--inspect-port=$port "$NODE" "$BENCH_TARGETS/threads.js" --workers 0 \
			--out "${outs[$i]}" 2>"$bench_tmp/procs-$name-$i.target.err" &
		tpids+=($!)
		bench_track "$!"
	done
	for ((i = 0; i < procs; i++)); do
		bench_wait_line "${outs[$i]}" '"event":"ready"' 60
	done
	sleep 3
	case $mode in
	one) args=(--pid "${tpids[0]}") ;;
	all) for p in "${tpids[@]}"; do args+=(--pid "$p"); done ;;
	match) args=(--match "procs-$name-") ;; # the --out paths: this phase's processes alone
	esac
	if [ "$mode" != none ]; then
		"$ntop" "${args[@]}" --no-config -b >"$nlog" 2>"$nerr" &
		npid=$!
		bench_track "$npid"
	fi
	sleep "$skip"
	for ((i = 0; i < procs; i++)); do bases+=("$(bench_count_lines "${outs[$i]}" '"t":')"); done
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
	: >"$bench_tmp/procs-$name.sel"
	for ((i = 0; i < procs; i++)); do
		local n1
		n1=$(bench_count_lines "${outs[$i]}" '"t":')
		bench_stop "${tpids[$i]}"
		# phase one: only the process watched; the seconds written while attached, past SKIP
		if [ "$mode" != one ] || [ "$i" -eq 0 ]; then
			grep '"t":' "${outs[$i]}" | sed -n "$((bases[i] + 1)),$((n1 - 1))p" \
				>>"$bench_tmp/procs-$name.sel"
		fi
	done
	"$NODE" -e '
		const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map(JSON.parse);
		console.log(l.map(x => x.main).filter(x => x !== null).join("\n"));' "$bench_tmp/procs-$name.sel" \
		| bench_stats >"$bench_tmp/procs-$name.stall"
	local med p95
	read -r _ med p95 _ _ <"$bench_tmp/procs-$name.stall"
	results+=("$name $cpu $hwm $med $p95 $status")
	echo "phase $name: ${results[-1]}"
}

run_phase none none
run_phase one one
run_phase all all
run_phase match match

read -r _ _ _ base_med _ _ <<<"${results[0]}"
echo
echo "ntop-js's CPU (% of one core) and peak RSS over ${secs} s; per-second worst event-loop"
echo "stall (ms) of the processes watched, median and p95, and what the phase adds to the"
echo "median of phase none (a fresh service per phase)"
row() { printf '%-6s %8s %8s %8s %8s %8s  %s\n' "$@"; }
row phase "cpu %" "rss MB" "median" "p95" "+median" status
for r in "${results[@]}"; do
	read -r name cpu hwm med p95 status <<<"$r"
	row "$name" "$cpu" "$hwm" "$med" "$p95" "$(bench_calc "($med - $base_med).toFixed(2)")" "$status"
done
read -r _ ocpu ohwm omed _ _ <<<"${results[1]}"
read -r _ acpu ahwm amed _ _ <<<"${results[2]}"
read -r _ mcpu mhwm _ _ _ <<<"${results[3]}"
one_added=$(bench_calc "($omed - $base_med).toFixed(2)")
all_added=$(bench_calc "($amed - $base_med).toFixed(2)")
echo
echo "watching $procs processes: ntop-js $acpu % of a core (one process: $ocpu %), $ahwm MB"\
	"(one process: $ohwm MB); goal <= 2 % and 50 MB:" \
	"$(bench_calc "$acpu <= 2 && $ahwm <= 50 ? 'PASS' : 'FAIL'")"
echo "stall added to each process: $all_added ms at the median (one process's today:" \
	"$one_added ms); goal: no more than 1 ms over it:" \
	"$(bench_calc "$all_added <= Math.max($one_added, 0) + 1 ? 'PASS' : 'FAIL'")"
echo "found by --match, listed again every 10 s: ntop-js $mcpu % of a core, $mhwm MB" \
	"(by --pid: $acpu %, $ahwm MB)"
[ $invalid = no ] || echo "INVALID: ntop-js did not stay attached (see above)"
bench_load_after
[ $invalid = no ] || exit 1
