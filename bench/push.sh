#!/usr/bin/env bash
# What --push costs ntop-js: its own CPU time (schedstat, else utime + stime) over two
# sessions of the same length on bench/targets/many-functions.js (20,000 compiled functions),
# the baseline without --push, then --push-every 15 to a local endpoint (node) that takes
# every profile with 200. Reported: each session's CPU as a % of one core from second 5 on,
# the difference, peak RSS (VmHWM), and the profiles the endpoint received.
#
# Usage: bench/push.sh [-s SECS] [-f FUNCTIONS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS       each session's length (default 60)
#   -f FUNCTIONS  compiled functions in the target (default 20000)
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
bench_uint -s "$secs" 20
bench_uint -f "$functions" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"

echo "== push: ntop-js's own CPU with and without --push-every 15, ${secs} s each"
echo "reproduce: bench/push.sh -s $secs -f $functions $ntop"
bench_machine
echo

now_ms() { date +%s%3N; }

# session NAME PUSH(yes|no): prints "pct hwm_kb profiles bytes"
session() {
	local name=$1 push=$2 port out tpid npid epid="" ns5="" t5="" ns t s profiles=0 bytes=0
	local args=()
	out="$bench_tmp/$name-target.jsonl"
	"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/many-functions.js" --functions "$functions" \
		--out "$out" 2>"$bench_tmp/$name-target.err" &
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$out" '"event":"ready"' 120
	sleep 2
	if [ "$push" = yes ]; then
		port=$(bench_free_port)
		"$NODE" -e '
			let profiles = 0, bytes = 0;
			process.on("SIGTERM", () => { console.log(profiles, bytes); process.exit(0); });
			require("http").createServer((req, res) => {
				req.on("data", c => { bytes += c.length; });
				req.on("end", () => { profiles++; res.end(); });
			}).listen(+process.argv[1], "127.0.0.1");
		' "$port" >"$bench_tmp/$name.endpoint" 2>&1 &
		epid=$!
		bench_track "$epid"
		args=(--push "http://127.0.0.1:$port" --push-every 15)
	fi
	"$ntop" --pid "$tpid" --max-pause 60 -b "${args[@]}" \
		>"$bench_tmp/$name.ntop.txt" 2>"$bench_tmp/$name.ntop.err" &
	npid=$!
	bench_track "$npid"
	for ((s = 1; s <= secs; s++)); do
		sleep 1
		kill -0 "$npid" 2>/dev/null || bench_die "ntop-js ($name) ended early: $(cat "$bench_tmp/$name.ntop.err")"
		ns=$(bench_cpu_ns "$npid")
		t=$(now_ms)
		if [ "$s" -eq 5 ]; then ns5=$ns; t5=$t; fi
	done
	hwm=$(bench_hwm_kb "$npid")
	bench_stop "$npid"
	if [ -n "$epid" ]; then
		kill -TERM "$epid" 2>/dev/null || true
		wait "$epid" 2>/dev/null || true
		read -r profiles bytes <"$bench_tmp/$name.endpoint" || true
	fi
	bench_stop "$tpid"
	echo "$(bench_calc "(100 * ($ns - $ns5) / 1e9 / (($t - $t5) / 1000)).toFixed(3)") $hwm $profiles $bytes"
}

read -r base_pct base_hwm _ _ < <(session base no)
read -r push_pct push_hwm profiles bytes < <(session push yes)
printf '%-44s %s\n' "CPU, % of one core, without --push" "$base_pct"
printf '%-44s %s\n' "CPU, % of one core, --push-every 15" "$push_pct"
printf '%-44s %s\n' "pushing's cost, % of one core" "$(bench_calc "($push_pct - $base_pct).toFixed(3)")"
printf '%-44s %s / %s\n' "peak RSS, without / with, MB" "$(bench_calc "($base_hwm / 1024).toFixed(1)")" \
	"$(bench_calc "($push_hwm / 1024).toFixed(1)")"
printf '%-44s %s (%s bytes of requests)\n' "profiles received by the endpoint" "$profiles" "$bytes"
