#!/usr/bin/env bash
# Sampling interval: what each interval costs the target, and how far the shares of one
# default window (1 s) stray from the truth at that interval.
#
# Usage: bench/interval.sh [-i INTERVALS] [-r ROUNDS] [-s SECS] [-w WARM] [-N NODE_MAJOR]
#                          [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -i INTERVALS  ntop-js -i values, microseconds (default "1000 2000 4000 10000")
#   -r ROUNDS     rounds (default 3); each round has, per interval, a phase without ntop-js
#                 and one with it, in alternating order so that slow drifts cancel
#   -s SECS       seconds per phase (default 10; the first 2 of each are left out)
#   -w WARM       seconds of load before the first phase (default 15)
#   -N MAJOR      run the target on that Node version from ~/.cache/ntop-js/node
# The ntop-js binary: the argument, else $NTOP_JS.
#
# One target for the whole run: bench/targets/express-app.js, default V8 flags, under
# bench/targets/load.js (autocannon, 4 connections). With ntop-js: ntop-js --pid PID -b --json
# -d 1 -i INTERVAL.
#   cost     requests per CPU second of the target with ntop-js, as % of the phase without it
#            in the same round (median over rounds); per CPU second because the target,
#            autocannon and ntop-js share 2 cores, so requests per wall-clock second mostly
#            measure who got the CPU
#   shares   the truth is the cumulative shares (of busy time) of the 1000 us phases
#            together (the smallest interval given); for each interval and each 1 s window,
#            the largest distance in points between the window's share and the truth of the
#            truth's top-5 functions; reported as median and p95 over windows
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

intervals="1000 2000 4000 10000"
rounds=3
secs=10
warm=15
major=""
while getopts 'i:r:s:w:N:h' opt; do
	case $opt in
	i) intervals=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	w) warm=$OPTARG ;;
	N) major=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 1
bench_uint -s "$secs" 1
bench_uint -w "$warm"
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
tnode=$NODE
[ -z "$major" ] || tnode=$(bench_node_bin "$major")
deps=$(bench_npm_deps)
export NODE_PATH="$deps/node_modules"
read -ra ivs <<<"$intervals"

echo "== sampling interval: cost per CPU second and share error of a 1 s window"
echo "reproduce: NTOP_JS=$ntop bench/interval.sh -i '$intervals' -r $rounds -s $secs -w $warm${major:+ -N $major}"
echo "target runs on $("$tnode" --version); ntop-js: $("$ntop" --version | head -n 1)"
bench_machine
echo

out="$bench_tmp/express.jsonl"
"$tnode" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/express-app.js" --out "$out" 2>"$bench_tmp/express.err" &
tpid=$!
bench_track "$tpid"
bench_wait_line "$out" '"event":"ready"' 60
port=$(bench_json_field "$out" port)
total=$((warm + rounds * ${#ivs[@]} * 2 * (secs + 1) + 60))
"$NODE" "$BENCH_TARGETS/load.js" "http://127.0.0.1:$port" 4 "$total" >"$bench_tmp/load.json" 2>"$bench_tmp/load.err" &
lpid=$!
bench_track "$lpid"

wait_lines() { # wait_lines N: until the target printed N per-second lines
	while [ "$(bench_count_lines "$out" '"t":')" -lt "$1" ]; do
		kill -0 "$tpid" 2>/dev/null || bench_die "the target died (see $out)"
		kill -0 "$lpid" 2>/dev/null || bench_die "the load ended early: raise its duration"
		sleep 0.1
	done
}
wait_lines "$warm"
phases="$bench_tmp/phases.txt" # lines: ROUND INTERVAL on|off FIRST_LINE LAST_LINE JSONL
: >"$phases"
k=0
for ((r = 0; r < rounds; r++)); do
	for iv in "${ivs[@]}"; do
		# Alternate within a round and, for the same interval, from one round to the next.
		if (((k + r) % 2)); then order="on off"; else order="off on"; fi
		k=$((k + 1))
		for ph in $order; do
			start=$(bench_count_lines "$out" '"t":')
			j="$bench_tmp/r$r-$iv.jsonl"
			if [ "$ph" = on ]; then
				"$ntop" --pid "$tpid" --max-pause 60 -b --json -d 1 -i "$iv" -t 1000 >"$j" 2>"$j.err" &
				npid=$!
				bench_track "$npid"
			fi
			wait_lines $((start + secs))
			end=$(bench_count_lines "$out" '"t":')
			if [ "$ph" = on ]; then
				kill -0 "$npid" 2>/dev/null || bench_die "ntop-js -i $iv ended early: $(cat "$j.err")"
				bench_stop "$npid"
			fi
			echo "$r $iv $ph $((start + 2)) $end $j" >>"$phases"
			echo "round $((r + 1)) -i $iv $ph: lines $((start + 3))-$end"
		done
	done
done
bench_stop "$lpid"
bench_stop "$tpid"
echo
"$NODE" "$BENCH_DIR/interval-report.js" "$out" "$phases"
bench_load_after
