#!/usr/bin/env bash
# Event-loop stall that ntop-js adds to a large application.
#
# Usage: bench/stall.sh [-s SECS] [-k SKIP] [-f FUNCTIONS] [-a ARGS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS       seconds measured per phase (default 30)
#   -k SKIP       seconds skipped after attaching (default 3: the one-off re-log of every
#                 compiled function when the profiler first starts)
#   -f FUNCTIONS  compiled functions in the target (default 20000)
#   -a ARGS       one more phase, "ntop-js ARGS" (e.g. -a '--alloc --alloc-interval 10'
#                 for the cost of allocation sampling; memory readings are on by default)
#
# Three phases, each on a fresh bench/targets/many-functions.js process (so that every
# phase starts from the same state: no profiler ever created, same warm-up):
#   none     no profiler attached
#   ntop-js  ntop-js -b (default settings: 1 s windows, 1000 us sampling), attached by PID
#   naive    ntop-js -b --no-eval: Profiler.start/stop every window, the naive client
# The target prints the worst event-loop stall of every second; the script reports the
# median and p95 of those per-second values for each phase.
# Goal: ntop-js adds at most 2 ms to the median.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

secs=30
skip=3
functions=20000
extra=""
while getopts 's:k:f:a:h' opt; do
	case $opt in
	s) secs=$OPTARG ;;
	k) skip=$OPTARG ;;
	f) functions=$OPTARG ;;
	a) extra=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -s "$secs" 1
bench_uint -k "$skip"
bench_uint -f "$functions" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"

echo "== stall: per-second worst event-loop stall of a ${functions}-function target"
echo "reproduce: bench/stall.sh -s $secs -k $skip -f $functions${extra:+ -a '$extra'} $ntop"
bench_machine
echo

# values FILE FROM TO: the worst_stall_ms values of the per-second lines FROM..TO of FILE.
values() {
	grep '"t":' "$1" | sed -n "$2,$3p" | sed -n 's/.*"worst_stall_ms":\([0-9.]*\).*/\1/p'
}

# run_phase NAME none|attach [NTOP_JS_ARGS...]: appends "NAME n median p95 max mean
# attach_worst detach_worst windows status" to results. Not run in a subshell, so that the
# exit trap knows every process it started.
results=()
invalid=no
run_phase() {
	local name=$1 mode=$2
	shift 2
	local out="$bench_tmp/stall-$name.jsonl" nlog="$bench_tmp/stall-$name.ntop.txt"
	local nerr="$bench_tmp/stall-$name.ntop.err" tpid npid="" base stop_at i status=ok windows=-
	# --inspect-port=0: SIGUSR1 opens the inspector on a free port, never on 9229.
	"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/many-functions.js" \
		--functions "$functions" --out "$out" 2>"$bench_tmp/stall-$name.target.err" &
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$out" '"event":"ready"' 120
	sleep 2
	base=$(bench_count_lines "$out" '"t":')
	if [ "$mode" = attach ]; then
		"$ntop" --pid "$tpid" --max-pause 60 -b -n $((skip + secs + 5)) "$@" >"$nlog" 2>"$nerr" &
		npid=$!
		bench_track "$npid"
	fi
	wait_seconds() { # wait until the target printed line number $1 (at most 30 s late)
		local deadline=$((SECONDS + $1 - $(bench_count_lines "$out" '"t":') + 30))
		while [ "$(bench_count_lines "$out" '"t":')" -lt "$1" ]; do
			kill -0 "$tpid" 2>/dev/null || bench_die "phase $name: the target died (see $out)"
			[ "$SECONDS" -lt "$deadline" ] || bench_die "phase $name: the target stopped reporting (see $out)"
			sleep 0.1
		done
	}
	wait_seconds $((base + skip + secs))
	stop_at=$(bench_count_lines "$out" '"t":')
	if [ -n "$npid" ]; then
		local early=no
		kill -0 "$npid" 2>/dev/null || early=yes
		bench_stop "$npid"
		if [ $early = yes ]; then
			status="ntop-js-exited-early,rc=$bench_rc"
		elif [ "$bench_rc" != 0 ] && [ "$bench_rc" != 130 ]; then
			status="ntop-js-rc=$bench_rc"
		fi
		windows=$(bench_count_lines "$nlog" '^ntop-js - ')
		if [ "$status" != ok ]; then
			invalid=yes
			echo "phase $name: ntop-js misbehaved ($status, $windows reports); its stderr:" >&2
			sed 's/^/  | /' "$nerr" >&2
			echo "  (end of stderr; its last report:)" >&2
			tail -n 8 "$nlog" | sed 's/^/  | /' >&2
		fi
	fi
	# Three more seconds: the stall caused by detaching.
	wait_seconds $((stop_at + 3))
	bench_stop "$tpid"
	values "$out" $((base + skip + 1)) $((base + skip + secs)) >"$bench_tmp/stall-$name.values"
	attach_worst=$(values "$out" $((base + 1)) $((base + skip)) | bench_stats | cut -d' ' -f4)
	detach_worst=$(values "$out" $((stop_at + 1)) $((stop_at + 3)) | bench_stats | cut -d' ' -f4)
	results+=("$name $(bench_stats <"$bench_tmp/stall-$name.values") $attach_worst $detach_worst $windows $status")
	echo "phase $name: ${results[-1]}"
}

run_phase none none
run_phase ntop-js attach
run_phase naive attach --no-eval
if [ -n "$extra" ]; then
	# shellcheck disable=SC2086 # ARGS is a list of options
	echo "phase 'extra' is: ntop-js -b $extra"
	run_phase extra attach $extra
fi

base_median=$(echo "${results[0]}" | cut -d' ' -f3)
echo
echo "per-second worst event-loop stall, ms (${secs} s per phase, first ${skip} s after attach skipped,"
echo "fresh target per phase); attach: worst of the ${skip} skipped seconds; detach: worst of the"
echo "3 s after ntop-js was stopped"
row() { printf '%-8s %7s %7s %7s %7s %7s %13s %7s %7s %7s  %s\n' "$@"; }
row phase seconds median p95 max mean "added median" attach detach windows status
for r in "${results[@]}"; do
	read -r name n median p95 max mean attach detach windows status <<<"$r"
	added=$(bench_calc "($median - $base_median).toFixed(2)")
	row "$name" "$n" "$median" "$p95" "$max" "$mean" "$added" "$attach" "$detach" "$windows" "$status"
done
ntop_added=$(bench_calc "($(echo "${results[1]}" | cut -d' ' -f3) - $base_median).toFixed(2)")
verdict=$(bench_calc "$ntop_added <= 2 ? 'PASS' : 'FAIL'")
[ $invalid = no ] || verdict="INVALID: ntop-js did not stay attached (see above)"
echo
echo "ntop-js adds ${ntop_added} ms to the median per-second worst stall (goal <= 2 ms): $verdict"
bench_load_after
[ $invalid = no ] || exit 1
