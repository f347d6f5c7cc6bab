#!/usr/bin/env bash
# Throughput of a Node process with and without ntop-js attached (default settings: 1 s
# windows, 1000 us sampling, -b with its output thrown away).
#
# Usage: bench/overhead.sh [-r ROUNDS] [-s SECS] [-a 'NTOP_JS_ARGS'] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -r ROUNDS  rounds per workload; each round has one phase without and one with ntop-js,
#              in alternating order (off/on, on/off, ...) so that slow drifts cancel (default 4)
#   -s SECS    seconds measured per phase (default 8)
#   -a ARGS    more ntop-js options, e.g. -a '-i 4000' (default: none, the default settings)
#
# Workloads, one target process each for the whole run:
#   cpu-bound    bench/targets/cpu-bound.js, ops/s as it reports them every second (the
#                first 2 s of each phase are skipped: attach, detach, re-log)
#   http         bench/targets/http-server.js under `wrk -t1 -c8 -dSECS`, requests/s
# The headline ratio is the median over rounds of (with / without) within each round, which
# pairs phases that ran next to each other; the ratio of the overall means is shown too.
# Each workload is measured twice: per second of wall-clock time (the goal) and per second
# of the target's own CPU time, which stays meaningful when other processes load the
# machine (the target then simply gets less CPU).
# Goal: with ntop-js, at least 97 % of the throughput without it.
# Only 2 cores on the reference machine: the target, wrk and ntop-js share them, so ntop-js's
# own CPU time competes with the target directly.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

rounds=4
secs=8
extra=""
while getopts 'r:s:a:h' opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	a) extra=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 1
bench_uint -s "$secs" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE" wrk

echo "== overhead: throughput with and without ntop-js attached"
read -ra extra_args <<<"$extra"
extra_shown=""
[ -z "$extra" ] || extra_shown=" -a '$extra'"
echo "reproduce: bench/overhead.sh -r $rounds -s $secs$extra_shown $ntop"
bench_machine
echo

npid=""
nerr=""
attach() { # attach TARGET_PID NAME
	nerr="$bench_tmp/overhead-$2.ntop.err"
	"$ntop" --pid "$1" --max-pause 60 -b "${extra_args[@]+"${extra_args[@]}"}" >/dev/null 2>"$nerr" &
	npid=$!
	bench_track "$npid"
}
detach() {
	local alive=yes
	kill -0 "$npid" 2>/dev/null || alive=no
	bench_stop "$npid"
	if [ $alive = no ] || { [ "$bench_rc" != 0 ] && [ "$bench_rc" != 130 ]; }; then
		echo "ntop-js misbehaved (alive until the end: $alive, exit status $bench_rc); its stderr:" >&2
		sed 's/^/  | /' "$nerr" >&2
		misbehaved=yes
	fi
	npid=""
}
misbehaved=no

# order ROUND: the two phases of a round, alternating which one comes first.
order() { if (($1 % 2)); then echo "on off"; else echo "off on"; fi; }

# Each phase leaves two numbers, one line per round, in $bench_tmp/NAME-KIND-PHASE where KIND
# is wall (throughput per second of wall-clock time: the goal) or cpu (throughput per second
# of the target's own CPU time, threads included: much less sensitive to other load on the
# machine, and it still charges the target for V8's sampling).
for w in cpu http; do
	for k in wall cpu; do
		for p in off on; do : >"$bench_tmp/$w-$k-$p"; done
	done
done

# ---- cpu-bound ---------------------------------------------------------------------------
cpu_out="$bench_tmp/cpu-bound.jsonl"
"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/cpu-bound.js" --out "$cpu_out" \
	2>"$bench_tmp/cpu-bound.err" &
cpu_pid=$!
bench_track "$cpu_pid"
bench_wait_line "$cpu_out" '"event":"ready"' 30
sleep 3 # JIT warm-up
# field NAME FROM TO: mean of the numeric field NAME of per-second lines FROM..TO.
field() {
	grep '"t":' "$cpu_out" | sed -n "$2,$3p" | sed -n "s/.*\"$1\":\\([0-9.]*\\).*/\\1/p" |
		bench_stats | cut -d' ' -f5
}
for ((r = 0; r < rounds; r++)); do
	for phase in $(order "$r"); do
		[ "$phase" = on ] && attach "$cpu_pid" "cpu-$r"
		start=$(bench_count_lines "$cpu_out" '"t":')
		while [ "$(bench_count_lines "$cpu_out" '"t":')" -lt $((start + 2 + secs)) ]; do
			kill -0 "$cpu_pid" 2>/dev/null || bench_die "cpu-bound.js died"
			sleep 0.2
		done
		[ "$phase" = on ] && detach
		wall=$(field ops_per_s $((start + 3)) $((start + 2 + secs)))
		percpu=$(field ops_per_cpu_s $((start + 3)) $((start + 2 + secs)))
		cpu_pct=$(field cpu_pct $((start + 3)) $((start + 2 + secs)))
		echo "$wall" >>"$bench_tmp/cpu-wall-$phase"
		echo "$percpu" >>"$bench_tmp/cpu-cpu-$phase"
		echo "cpu-bound round $((r + 1)) $phase: $wall ops/s, $percpu ops per CPU second (target on CPU $cpu_pct %)"
	done
done
bench_stop "$cpu_pid"

# ---- http --------------------------------------------------------------------------------
http_out="$bench_tmp/http.jsonl"
"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/http-server.js" 0 >"$http_out" \
	2>"$bench_tmp/http.err" &
http_pid=$!
bench_track "$http_pid"
bench_wait_line "$http_out" '"event":"ready"' 30
port=$(bench_json_field "$http_out" port)
url="http://127.0.0.1:$port/orders/42"
hz=$(getconf CLK_TCK)
wrk -t1 -c8 -d3s "$url" >/dev/null # warm-up
for ((r = 0; r < rounds; r++)); do
	for phase in $(order "$r"); do
		if [ "$phase" = on ]; then
			attach "$http_pid" "http-$r"
			sleep 3 # attach and the one-off re-log
		fi
		ticks0=$(bench_cpu_ticks "$http_pid")
		wrk -t1 -c8 -d"${secs}s" "$url" >"$bench_tmp/wrk.txt"
		ticks1=$(bench_cpu_ticks "$http_pid")
		[ "$phase" = on ] && detach
		rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$bench_tmp/wrk.txt")
		requests=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$bench_tmp/wrk.txt")
		if [ -z "$rps" ] || [ -z "$requests" ]; then
			bench_die "could not read wrk's output: $(cat "$bench_tmp/wrk.txt")"
		fi
		percpu=$(bench_calc "($requests * $hz / Math.max(1, $ticks1 - $ticks0)).toFixed(0)")
		cpu_pct=$(bench_calc "(100 * ($ticks1 - $ticks0) / $hz / $secs).toFixed(1)")
		echo "$rps" >>"$bench_tmp/http-wall-$phase"
		echo "$percpu" >>"$bench_tmp/http-cpu-$phase"
		echo "http round $((r + 1)) $phase: $rps requests/s, $percpu per CPU second (target on CPU $cpu_pct %)"
		sleep 1
	done
done
bench_stop "$http_pid"

# summary NAME KIND UNIT LABEL: one table row: the means over rounds without and with ntop-js,
# the median of the per-round ratios and, in brackets, the ratio of the means.
summary() {
	# shellcheck disable=SC2016 # JavaScript, not shell
	paste -d' ' "$bench_tmp/$1-$2-off" "$bench_tmp/$1-$2-on" | "$NODE" -e '
		const rows = require("fs").readFileSync(0, "utf8").trim().split("\n")
			.map((l) => l.split(" ").map(Number));
		const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
		const r = rows.map(([off, on]) => 100 * on / off).sort((a, b) => a - b);
		const n = r.length;
		const med = n % 2 ? r[(n - 1) / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
		const off = mean(rows.map((x) => x[0]));
		const on = mean(rows.map((x) => x[1]));
		const ratio = `${med.toFixed(1)}% (${(100 * on / off).toFixed(1)}%)`;
		const verdict = med >= 97 ? "PASS" : "FAIL";
		console.log([process.argv[1], process.argv[2], off.toFixed(0), on.toFixed(0), ratio, verdict]
			.map((s, i) => i < 2 ? s.padEnd(i ? 22 : 10) : i < 5 ? s.padStart(i === 4 ? 16 : 15) : s)
			.join(" "));
	' "$4" "$3"
}

echo
echo "throughput: mean over $rounds rounds of ${secs} s per phase; ratio: median of the per-round"
echo "ratios with/without (in brackets: ratio of the means); goal >= 97 %"
printf '%-10s %-22s %15s %15s %16s %s\n' workload unit "without ntop-js" "with ntop-js" ratio verdict
summary cpu wall "ops/s" cpu-bound
summary cpu cpu "ops/CPU s of target" cpu-bound
summary http wall "requests/s" http
summary http cpu "requests/CPU s" http
for w in cpu http; do
	for k in wall cpu; do
		echo "per round, $w $k: off: $(tr '\n' ' ' <"$bench_tmp/$w-$k-off")| on: $(tr '\n' ' ' <"$bench_tmp/$w-$k-on")"
	done
done
[ "$misbehaved" = no ] || echo "INVALID: ntop-js misbehaved during the run (see above)"
bench_load_after
[ "$misbehaved" = no ] || exit 1
