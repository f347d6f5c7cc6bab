#!/usr/bin/env bash
# What attaching costs a busy target: the one-time event-loop stall at attach, and how long
# and by how much the target runs slower afterwards.
#
# Usage: bench/attach-cost.sh [-t TARGETS] [-w WARM] [-b BASE] [-a SECS] [-N NODE_MAJOR]
#                             [-x 'NTOP_JS_ARGS'] [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -t TARGETS  any of "many express big tsc" (default all four)
#   -w WARM     seconds of warm-up under load before the baseline (default 15)
#   -b BASE     seconds of baseline, no profiler (default 10)
#   -a SECS     seconds with ntop-js attached (default 30)
#   -N MAJOR    run the targets on that Node version from ~/.cache/ntop-js/node
#               (default: $NODE, the node in PATH)
#   -x ARGS     more ntop-js options (default none: -b with default settings)
# The ntop-js binary: the argument, else $NTOP_JS.
#
# Targets, each a fresh process with default V8 flags, attached by PID (SIGUSR1 opens the
# inspector on the port of --inspect-port=127.0.0.1:0):
#   many     bench/targets/many-functions.js --functions 20000 --busy 50 (calls its
#            functions 50 % of the time; ops = calls)
#   express  bench/targets/express-app.js under bench/targets/load.js (autocannon, 4
#            connections, the whole run); ops = requests answered
#   big      many-functions.js --functions 100000 --heap-mb 2000 --busy 50, with
#            --max-old-space-size=4096: a large application (about 2.5 GB of RAM)
#   tsc      bench/targets/tsc-loop.js: the TypeScript compiler checking 300 generated files
#            in a loop (about one check a second, so its per-second numbers are coarse: a
#            line covers the checks that ended in it); ops = checks
# Each target prints a line per second: ops, its CPU time and the worst event-loop stall of
# that second. Reported per target, against the baseline seconds just before the attach:
#   attach stall   the worst stall of the first 3 s after ntop-js started, next to the
#                  baseline's p95 and max
#   throughput     per second after the attach, as % of the baseline median, for the first
#                  10 s; the steady ratio (median of seconds 11 to the end); "slower for":
#                  the first second from which 3 seconds in a row reach the steady ratio
#                  minus 10 points. The same per CPU second of the target (steadier when
#                  other processes share the cores).
#   detach stall   the worst stall of the 3 s after ntop-js was stopped
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

targets="many express big tsc"
warm=15
base=10
secs=30
major=""
extra=""
while getopts 't:w:b:a:N:x:h' opt; do
	case $opt in
	t) targets=$OPTARG ;;
	w) warm=$OPTARG ;;
	b) base=$OPTARG ;;
	a) secs=$OPTARG ;;
	N) major=$OPTARG ;;
	x) extra=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -w "$warm"
bench_uint -b "$base" 1
bench_uint -a "$secs" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
tnode=$NODE
[ -z "$major" ] || tnode=$(bench_node_bin "$major")
read -ra extra_args <<<"$extra"
case " $targets " in *" express "* | *" tsc "*)
	deps=$(bench_npm_deps)
	export NODE_PATH="$deps/node_modules" ;;
esac

echo "== attach cost: stall at attach and slowdown after it"
# shellcheck disable=SC2016 # the quotes are printed, $extra expands
echo "reproduce: NTOP_JS=$ntop bench/attach-cost.sh -t '$targets' -w $warm -b $base -a $secs${major:+ -N $major}${extra:+ -x '$extra'}"
echo "targets run on $("$tnode" --version); ntop-js: $("$ntop" --version | head -n 1)"
bench_machine
echo

# wait_lines FILE N PID: wait until FILE has N per-second lines (at most N + 60 s).
wait_lines() {
	local deadline=$((SECONDS + 60 + $2 - $(bench_count_lines "$1" '"t":')))
	while [ "$(bench_count_lines "$1" '"t":')" -lt "$2" ]; do
		kill -0 "$3" 2>/dev/null || bench_die "the target died (see $1)"
		[ "$SECONDS" -lt "$deadline" ] || bench_die "the target stopped reporting (see $1)"
		sleep 0.1
	done
}

invalid=no
results="$bench_tmp/results.txt"
: >"$results"
for t in $targets; do
	out="$bench_tmp/$t.jsonl"
	lpid=""
	case $t in
	many) "$tnode" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/many-functions.js" --functions 20000 \
		--busy 50 --out "$out" 2>"$bench_tmp/$t.err" & ;;
	express) "$tnode" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/express-app.js" --out "$out" \
		2>"$bench_tmp/$t.err" & ;;
	big) "$tnode" --max-old-space-size=4096 --inspect-port=127.0.0.1:0 \
		"$BENCH_TARGETS/many-functions.js" --functions 100000 --heap-mb 2000 --busy 50 --out "$out" \
		2>"$bench_tmp/$t.err" & ;;
	tsc) "$tnode" --inspect-port=127.0.0.1:0 "$BENCH_TARGETS/tsc-loop.js" --dir "$bench_tmp/tsproj" \
		--files 300 --out "$out" 2>"$bench_tmp/$t.err" & ;;
	*) bench_die "unknown target $t" ;;
	esac
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$out" '"event":"ready"' 180
	grep '"event":"ready"' "$out" | head -n 1 | sed "s/^/$t: /"
	if [ "$t" = express ]; then
		port=$(bench_json_field "$out" port)
		"$NODE" "$BENCH_TARGETS/load.js" "http://127.0.0.1:$port" 4 $((warm + base + secs + 10)) \
			>"$bench_tmp/$t.load.json" 2>"$bench_tmp/$t.load.err" &
		lpid=$!
		bench_track "$lpid"
	fi
	l0=$(bench_count_lines "$out" '"t":')
	wait_lines "$out" $((l0 + warm + base)) "$tpid"
	attach_at=$(bench_count_lines "$out" '"t":')
	nlog="$bench_tmp/$t.ntop.txt"
	"$ntop" --pid "$tpid" --max-pause 60 -b "${extra_args[@]+"${extra_args[@]}"}" >"$nlog" 2>"$bench_tmp/$t.ntop.err" &
	npid=$!
	bench_track "$npid"
	wait_lines "$out" $((attach_at + secs)) "$tpid"
	detach_at=$(bench_count_lines "$out" '"t":')
	alive=yes
	kill -0 "$npid" 2>/dev/null || alive=no
	bench_stop "$npid"
	if [ $alive = no ] || { [ "$bench_rc" != 0 ] && [ "$bench_rc" != 130 ]; }; then
		echo "$t: ntop-js misbehaved (alive: $alive, status $bench_rc): $(cat "$bench_tmp/$t.ntop.err")" >&2
		invalid=yes
	fi
	wait_lines "$out" $((detach_at + 3)) "$tpid"
	[ -z "$lpid" ] || bench_stop "$lpid"
	bench_stop "$tpid"
	echo "$t: $(bench_count_lines "$nlog" '^ntop-js - ') windows from ntop-js"
	# shellcheck disable=SC2016 # JavaScript, not shell
	"$NODE" -e '
		const [file, name, b0, a0, d0] = process.argv.slice(1);
		const L = require("fs").readFileSync(file, "utf8").split("\n").filter((l) => l.includes("\"t\":"))
			.map((l) => JSON.parse(l));
		const sorted = (v) => [...v].sort((x, y) => x - y);
		const med = (v) => { const s = sorted(v), n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
		const p95 = (v) => { const s = sorted(v); return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]; };
		const baseL = L.slice(+b0, +a0), after = L.slice(+a0, +d0), det = L.slice(+d0, +d0 + 3);
		const rate = (l) => l.ops_per_s, percpu = (l) => (l.cpu_ms > 0 ? l.ops / l.cpu_ms : 0);
		const stall = (l) => l.worst_stall_ms;
		const report = (label, f) => {
			const b = med(baseL.map(f));
			const r = after.map((l) => 100 * f(l) / b);
			const steady = med(r.slice(10));
			let settled = r.length;
			for (let i = 0; i + 2 < r.length; i++)
				if (r[i] >= steady - 10 && r[i + 1] >= steady - 10 && r[i + 2] >= steady - 10) { settled = i; break; }
			console.log(`${name}: ${label}: first 10 s after attach (% of baseline): ${r.slice(0, 10).map((x) => x.toFixed(0)).join(" ")};` +
				` steady ${steady.toFixed(1)} %; slower for ${settled} s`);
			return { steady, settled, first: Math.min(...r.slice(0, 3)) };
		};
		const w = report("ops/s", rate);
		const c = report("ops per CPU s", percpu);
		const bs = baseL.map(stall);
		const attach = Math.max(...after.slice(0, 3).map(stall));
		const detach = Math.max(...det.map(stall));
		console.log(`${name}: stall ms: baseline median ${med(bs).toFixed(1)}, p95 ${p95(bs).toFixed(1)}, max ${Math.max(...bs).toFixed(1)};` +
			` attach (first 3 s) ${attach.toFixed(1)}; detach (3 s after) ${detach.toFixed(1)}; attached, seconds 4+: median` +
			` ${med(after.slice(3).map(stall)).toFixed(1)}, max ${Math.max(...after.slice(3).map(stall)).toFixed(1)}`);
		const br = med(baseL.map(rate));
		require("fs").appendFileSync(process.argv[6], [name, br.toFixed(br < 100 ? 2 : 0), p95(bs).toFixed(1), attach.toFixed(1),
			detach.toFixed(1), w.first.toFixed(0), w.steady.toFixed(1), w.settled, c.first.toFixed(0), c.steady.toFixed(1), c.settled].join(" ") + "\n");
	' "$out" "$t" "$((l0 + warm))" "$attach_at" "$detach_at" "$results"
	echo
done

echo "summary (throughput as % of the baseline median; 'slower for': seconds after the attach"
echo "until 3 s in a row reach the steady ratio minus 10 points):"
row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
row target "baseline ops/s" "baseline stall p95 ms" "attach stall ms" "detach stall ms" \
	"worst of s 1-3 %" "steady %" "slower for s" "per CPU s: worst of 1-3 %" "steady %" "slower for s"
row --- --- --- --- --- --- --- --- --- --- ---
while read -r -a f; do row "${f[@]}"; done <"$results"
bench_load_after
[ $invalid = no ] || { echo "INVALID: ntop-js misbehaved (see above)"; exit 1; }
