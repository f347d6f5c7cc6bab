#!/usr/bin/env bash
# What --serve costs ntop-js: its own CPU time (schedstat, else utime + stime) over two
# sessions of the same length on bench/targets/many-functions.js (20,000 compiled functions),
# both with --serve: the baseline with no client, then one with a Prometheus server scraping
# /metrics every second and a pprof CPU profile fetched from /debug/pprof/profile every 10 s
# (seconds=10, back to back, as a continuous profiler does). Reported: each session's CPU as
# a % of one core from second 5 on, the difference, and peak RSS (VmHWM).
#
# Usage: bench/serve.sh [-s SECS] [-f FUNCTIONS] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -s SECS       each session's length (default 60)
#   -f FUNCTIONS  compiled functions in the target (default 20000)
#
# Without Debian's prometheus, node fetches /metrics every second instead (said in the output).
# Goal: serving adds under 0.5 % of one core.
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
PROMETHEUS=${PROMETHEUS:-prometheus}

echo "== serve: ntop-js's own CPU with and without Prometheus and pprof clients, ${secs} s each"
echo "reproduce: bench/serve.sh -s $secs -f $functions $ntop"
bench_machine
echo

now_ms() { date +%s%3N; }

# session NAME CLIENTS(yes|no): prints "pct hwm_kb profiles scrapes"
session() {
	local name=$1 clients=$2 port out tpid npid ns5 t5 ns t s pprom="" fetcher="" profiles=0 scrapes=0
	out="$bench_tmp/$name-target.jsonl"
	"$NODE" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/many-functions.js" --functions "$functions" \
		--out "$out" 2>"$bench_tmp/$name-target.err" &
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$out" '"event":"ready"' 120
	sleep 2
	port=$(bench_free_port)
	"$ntop" --pid "$tpid" --max-pause 60 -b --serve "127.0.0.1:$port" \
		>"$bench_tmp/$name.ntop.txt" 2>"$bench_tmp/$name.ntop.err" &
	npid=$!
	bench_track "$npid"
	if [ "$clients" = yes ]; then
		if command -v "$PROMETHEUS" >/dev/null 2>&1; then
			local pport
			pport=$(bench_free_port)
			printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ntopjs\n    static_configs:\n      - targets: [%s]\n' \
				"'127.0.0.1:$port'" >"$bench_tmp/prometheus.yml"
			"$PROMETHEUS" --config.file="$bench_tmp/prometheus.yml" \
				--storage.tsdb.path="$bench_tmp/tsdb" --web.listen-address="127.0.0.1:$pport" \
				>"$bench_tmp/prometheus.log" 2>&1 &
			pprom=$!
			bench_track "$pprom"
			echo "prometheus" >"$bench_tmp/scraper"
		else
			echo "node (prometheus not installed)" >"$bench_tmp/scraper"
		fi
		# the profile fetcher (and the scraper without prometheus): counts what it got
		"$NODE" -e '
			const [port, scrape] = [process.argv[1], process.argv[2] === "yes"];
			const base = "http://127.0.0.1:" + port;
			let profiles = 0, scrapes = 0, bad = 0;
			process.on("SIGTERM", () => { console.log(profiles, scrapes, bad); process.exit(0); });
			(async () => { for (;;) {
				try { const r = await fetch(base + "/debug/pprof/profile?seconds=10");
					const b = Buffer.from(await r.arrayBuffer());
					if (r.status === 200 && b[0] === 0x1f && b[1] === 0x8b) profiles++; else bad++;
				} catch { bad++; await new Promise(r => setTimeout(r, 1000)); } } })();
			if (scrape) setInterval(() => fetch(base + "/metrics").then(r => r.text())
				.then(() => scrapes++, () => bad++), 1000);
		' "$port" "$([ -z "$pprom" ] && echo yes || echo no)" >"$bench_tmp/$name.fetcher" 2>&1 &
		fetcher=$!
		bench_track "$fetcher"
	fi
	ns5="" t5=""
	for ((s = 1; s <= secs; s++)); do
		sleep 1
		kill -0 "$npid" 2>/dev/null || bench_die "ntop-js ($name) ended early: $(cat "$bench_tmp/$name.ntop.err")"
		ns=$(bench_cpu_ns "$npid")
		t=$(now_ms)
		if [ "$s" -eq 5 ]; then ns5=$ns; t5=$t; fi
	done
	hwm=$(bench_hwm_kb "$npid")
	if [ -n "$fetcher" ]; then
		kill -TERM "$fetcher" 2>/dev/null || true
		wait "$fetcher" 2>/dev/null || true
		read -r profiles scrapes _ <"$bench_tmp/$name.fetcher" || true
	fi
	if [ -n "$pprom" ]; then
		scrapes=$("$NODE" -e 'fetch(process.argv[1]).then(r => r.json()).then(j =>
			console.log(j.data.result.length ? j.data.result[0].value[1] : 0), () => console.log(0))' \
			"http://127.0.0.1:$pport/api/v1/query?query=count_over_time(up%7Bjob%3D%22ntopjs%22%7D%5B10m%5D)")
		bench_stop "$pprom"
	fi
	bench_stop "$npid"
	bench_stop "$tpid"
	echo "$(bench_calc "(100 * ($ns - $ns5) / 1e9 / (($t - $t5) / 1000)).toFixed(3)") $hwm $profiles $scrapes"
}

read -r base_pct base_hwm _ _ < <(session baseline no)
read -r load_pct load_hwm profiles scrapes < <(session served yes)
delta=$(bench_calc "($load_pct - $base_pct).toFixed(3)")

echo "measure                                        value     goal   verdict"
printf '%-44s %8s\n' "CPU, % of one core, --serve, no client" "$base_pct"
printf '%-44s %8s\n' "CPU, % of one core, scraped and profiled" "$load_pct"
printf '%-44s %8s %8s   %s\n' "serving's cost, % of one core" "$delta" "< 0.5" \
	"$(bench_calc "$delta < 0.5 ? 'PASS' : 'FAIL'")"
printf '%-44s %8s\n' "ratio (scraped / no client)" "$(bench_calc "($load_pct / $base_pct).toFixed(2)")"
printf '%-44s %8s\n' "peak RSS, MB, no client" "$(bench_calc "($base_hwm / 1024).toFixed(1)")"
printf '%-44s %8s\n' "peak RSS, MB, scraped and profiled" "$(bench_calc "($load_hwm / 1024).toFixed(1)")"
echo "scrapes by $(cat "$bench_tmp/scraper"): $scrapes; gzipped pprof profiles fetched: $profiles"
echo "(CPU from second 5 to the end of each session; schedstat where the kernel has it)"
bench_load_after
