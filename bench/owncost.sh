#!/usr/bin/env bash
# ntop-js's own cost: CPU time and peak RSS (VmHWM from /proc/PID/status) over a session on
# bench/targets/many-functions.js (20,000 compiled functions, mostly idle, so every window
# carries ~1000 samples). CPU time is utime + stime from /proc/PID/stat, or, where the
# kernel has it, the finer /proc/PID/task/*/schedstat (nanoseconds).
#
# Usage: bench/owncost.sh [-s SECS] [-f FUNCTIONS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS       session length (default 60)
#   -f FUNCTIONS  compiled functions in the target (default 20000)
#
# ntop-js runs at default settings with -b; its output goes to a file (a few kB/s, as cheap
# as /dev/null) only so that the script can check that it printed a report per window.
# Counters are read once a second while it runs; the last reading before it is stopped is
# reported, for the whole session and for its steady state (from second 5 on).
# Goal: at most 1 % of one core and 20 MB.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

secs=60
functions=20000
while getopts 's:f:h' opt; do
	case $opt in
	s) secs=$OPTARG ;;
	f) functions=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -s "$secs" 10
bench_uint -f "$functions" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
hz=$(getconf CLK_TCK)

echo "== owncost: ntop-js's own CPU time and memory over a ${secs} s session"
echo "reproduce: bench/owncost.sh -s $secs -f $functions $ntop"
bench_machine
echo

# cpu_ns PID: time on CPU in nanoseconds, summed over the threads' schedstat (finer than
# clock ticks; empty when the kernel does not provide schedstat).
cpu_ns() {
	local f sum=0 ns
	for f in /proc/"$1"/task/*/schedstat; do
		read -r ns _ <"$f" 2>/dev/null || return 1
		sum=$((sum + ns))
	done
	[ "$sum" -gt 0 ] && echo "$sum"
}
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
now_ms() { date +%s%3N; }

out="$bench_tmp/owncost-target.jsonl"
"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/many-functions.js" --functions "$functions" \
	--out "$out" 2>"$bench_tmp/owncost-target.err" &
tpid=$!
bench_track "$tpid"
bench_wait_line "$out" '"event":"ready"' 120
sleep 2

nerr="$bench_tmp/owncost.ntop.err"
nout="$bench_tmp/owncost.ntop.txt"
t0=$(now_ms)
"$ntop" --pid "$tpid" --max-pause 60 -b >"$nout" 2>"$nerr" &
npid=$!
bench_track "$npid"

ticks5="" t5="" ticks=0 ns5="" ns="" hwm=0 rss=0 t_last=$t0 alive=yes
for ((s = 1; s <= secs; s++)); do
	sleep 1
	if ! kill -0 "$npid" 2>/dev/null; then
		alive=no
		break
	fi
	ticks=$(bench_cpu_ticks "$npid") || { alive=no; break; }
	ns=$(cpu_ns "$npid" || true)
	hwm=$(bench_hwm_kb "$npid")
	rss=$(rss_kb "$npid")
	t_last=$(now_ms)
	if [ "$s" -eq 5 ]; then
		ticks5=$ticks
		ns5=$ns
		t5=$t_last
	fi
done
bench_stop "$npid"
tgt_ticks=$(bench_cpu_ticks "$tpid" || echo 0)
bench_stop "$tpid"
if [ "$alive" = no ] || { [ "$bench_rc" != 0 ] && [ "$bench_rc" != 130 ]; }; then
	echo "ntop-js misbehaved (still running at the end: $alive, exit status $bench_rc); stderr:" >&2
	sed 's/^/  | /' "$nerr" >&2
	exit 1
fi

windows=$(bench_count_lines "$nout" '^ntop-js - ')
if [ "$windows" -lt $((secs - 3)) ]; then
	echo "ntop-js printed only $windows reports in ${secs} s; stderr:" >&2
	sed 's/^/  | /' "$nerr" >&2
	exit 1
fi

wall_s=$(bench_calc "($t_last - $t0) / 1000")
cpu_s=$(bench_calc "$ticks / $hz")
pct=$(bench_calc "(100 * $cpu_s / $wall_s).toFixed(2)")
steady_pct=$(bench_calc "(100 * ($ticks - $ticks5) / $hz / (($t_last - $t5) / 1000)).toFixed(2)")
src="utime+stime, clock ticks of 1/$hz s"
if [ -n "$ns" ] && [ -n "$ns5" ]; then
	# Prefer the nanosecond counters: a 60 s session is only a few ticks long.
	cpu_s=$(bench_calc "($ns / 1e9).toFixed(3)")
	pct=$(bench_calc "(100 * $ns / 1e9 / $wall_s).toFixed(3)")
	steady_pct=$(bench_calc "(100 * ($ns - $ns5) / 1e9 / (($t_last - $t5) / 1000)).toFixed(3)")
	src="schedstat, ns; utime+stime: $ticks ticks of 1/$hz s"
fi
hwm_mb=$(bench_calc "($hwm / 1024).toFixed(1)")
rss_mb=$(bench_calc "($rss / 1024).toFixed(1)")
tgt_pct=$(bench_calc "(100 * $tgt_ticks / $hz / (($(now_ms) - $t0) / 1000 + 3)).toFixed(1)")

echo "measure                               value     goal   verdict"
printf '%-34s %8s %8s   %s\n' "CPU, % of one core (whole session)" "$pct" "<= 1" \
	"$(bench_calc "$pct <= 1 ? 'PASS' : 'FAIL'")"
printf '%-34s %8s %8s   %s\n' "CPU, % of one core (from 5 s on)" "$steady_pct" "<= 1" \
	"$(bench_calc "$steady_pct <= 1 ? 'PASS' : 'FAIL'")"
printf '%-34s %8s %8s   %s\n' "peak RSS (VmHWM), MB" "$hwm_mb" "<= 20" \
	"$(bench_calc "$hwm_mb <= 20 ? 'PASS' : 'FAIL'")"
printf '%-34s %8s\n' "RSS at the end, MB" "$rss_mb"
printf '%-34s %8s   (%s)\n' "CPU time, s" "$cpu_s" "$src"
printf '%-34s %8s   (%s reports printed)\n' "session, s" "$wall_s" "$windows"
echo "(for scale: the target itself used about ${tgt_pct} % of one core over its life, start-up included)"
bench_load_after
