#!/usr/bin/env bash
# Right answers on warm processes: ntop-js's self-time shares of real programs, attached to
# a process that V8 has already optimised, against a from-start reference profile.
#
# Usage: bench/accuracy.sh [-v VERSIONS] [-p PROGRAMS] [-w WARM] [-m SECS] [-c CONNS]
#                          [-R REF_DEFAULT_VERSIONS] [-F NODE_FLAGS] [-o MARKDOWN] [-k DIR]
#                          [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -v VERSIONS  Node major versions (default "18 20 22 24 26"), installed by
#                tests/integration/versions.sh into ~/.cache/ntop-js/node
#   -p PROGRAMS  "express tsc" (default both)
#   -w WARM      seconds of load before measuring (default 15)
#   -m SECS      seconds measured (default 10: ntop-js -n SECS+1 -d 1, the first window,
#                the attach, is left out)
#   -c CONNS     autocannon connections for express (default 4)
#   -R VERSIONS  versions that also get a reference with default flags (default: all)
#   -F FLAGS     node flags for every program target, references and measured alike
#                (default none). On Node 18 use -F --no-concurrent-recompilation: V8 10.2's
#                background compiles cannot inline a typed array's `length` (a generic
#                LoadIC instead), its main-thread compiles (OSR) can, and ntop-js's
#                deoptimization changes which one a warm function gets, so the two
#                processes otherwise run different code (doc/benchmarks.md section 8)
#   -o FILE      also append the tables to FILE (markdown)
#   -k DIR       keep each no-inlining reference's shares as DIR/PROGRAM-nodeMAJOR.json (the
#                fixtures of tests/integration/real_tsc.sh: tests/fixtures/accuracy)
# The ntop-js binary: the argument, else $NTOP_JS.
#
# Programs (bench/targets/): express-app.js, an express 5 server with four CPU-heavy routes,
# under autocannon (bench/targets/load.js); tsc-loop.js, the TypeScript compiler's API
# type-checking 300 generated files in a loop. express, autocannon and typescript are pinned
# by bench/npm/package-lock.json and installed once into ~/.cache/ntop-js/npm.
#
# For every program and version, two fresh processes under the same load:
#   reference  node --cpu-prof --cpu-prof-interval 1000 with --no-turbo-inlining and
#              --no-maglev-inlining (those the version accepts): profiled from the start and
#              never inlined, its frames are right; cut to the measured seconds
#   ntop-js    node with default flags and --inspect-port=127.0.0.1:0, WARM s of load, then
#              ntop-js --pid PID -b --json -n SECS+1 -d 1 -o FILE.cpuprofile
# and for the versions of -R one more reference with default flags, also from the start.
# Turning inlining off changes the program (every small helper becomes a real call, with
# its cost), so the no-inlining reference overstates small callees. A from-start profile
# with default flags keeps inlined frames on Node 18-22 (their loss only hits code
# optimised before the profiler started) and on Node 26; on Node 24, Maglev-inlined code
# loses them even under a running profile, so there only the no-inlining reference is right
# for Maglev's share.
# express-app.js also times each route's own work; every run prints its microseconds per
# request, so that a route that costs one process more than the other shows as such.
# With 26 in VERSIONS, every other version's ntop-js run is also compared with Node 26's (V8 14
# names inlined functions itself; ntop-js changes nothing there).
# Shares are of the busy time (JavaScript + GC + program, no idle); functions match by name,
# url and line (bench/accuracy-compare.js). First, the reference is checked on
# tests/targets/hot.js without its flags line: hotMain:hotSide must be about 3:1 (6 and 2 ms
# of every ~10 ms cycle).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

versions="18 20 22 24 26"
programs="express tsc"
warm=15
secs=10
conns=4
refdef="18 20 22 24 26"
xflags=""
md=""
keep=""
while getopts 'v:p:w:m:c:R:F:o:k:h' opt; do
	case $opt in
	v) versions=$OPTARG ;;
	p) programs=$OPTARG ;;
	w) warm=$OPTARG ;;
	m) secs=$OPTARG ;;
	c) conns=$OPTARG ;;
	R) refdef=$OPTARG ;;
	F) xflags=$OPTARG ;;
	o) md=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -w "$warm"
bench_uint -m "$secs" 1
bench_uint -c "$conns" 1
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
deps=$(bench_npm_deps)
export NODE_PATH="$deps/node_modules"
srcdir=$(cd "$BENCH_DIR/.." && pwd)
[ -z "$keep" ] || mkdir -p "$keep" || bench_die "cannot create $keep"
xrepro=""
[ -z "$xflags" ] || xrepro=" -F '$xflags'"
[ -z "$keep" ] || xrepro="$xrepro -k '$keep'"

echo "== accuracy: ntop-js on warm processes against a from-start reference"
echo "reproduce: NTOP_JS=$ntop bench/accuracy.sh -v '$versions' -p '$programs' -w $warm -m $secs -c $conns -R '$refdef'$xrepro"
echo "ntop-js: $("$ntop" --version | head -n 1)"
bench_machine
echo

summary="$bench_tmp/summary.jsonl"
: >"$summary"
declare -A span # PROGRAM-VERSION -> the measured span of its ntop-js run, T0:T1
say() { # print, and append to the markdown file
	echo "$*"
	[ -z "$md" ] || echo "$*" >>"$md"
}
mono_us() { "$NODE" -p 'String(process.hrtime.bigint() / 1000n)'; }

# ---- the reference, checked on hot.js ------------------------------------------------------
# hot.js's own flags line becomes an exit after 8 s (same line numbers: hotMain is on line 7).
hot="$bench_tmp/hot.js"
sed 's/^if (!process.env.HOT_DEFAULT_FLAGS) require(.v8.).setFlagsFromString.*$/setTimeout(() => process.exit(0), 8000);/' \
	"$srcdir/tests/targets/hot.js" >"$hot"
grep -q 'process.exit(0), 8000' "$hot" || bench_die "tests/targets/hot.js changed: no flags line to replace"
say ""
say "reference check: tests/targets/hot.js without its flags line, node --cpu-prof from the start"
say "with the no-inlining flags, seconds 2-8; expected hotMain:hotSide about 3:1 (75 % and 25 % of"
say "the busy time, less what performance.now takes)"
for v in $versions; do
	nb=$(bench_node_bin "$v")
	read -ra flags <<<"$(bench_noinline_flags "$nb")"
	d="$bench_tmp/hot-ref-$v"
	t0=$(mono_us)
	"$nb" "${flags[@]}" --cpu-prof --cpu-prof-dir "$d" --cpu-prof-interval 1000 "$hot" >/dev/null
	prof=$(ls "$d"/*.cpuprofile)
	"$NODE" "$BENCH_DIR/accuracy-compare.js" --label "hot.js node $v (${flags[*]})" --top 3 \
		--ref "$prof:$((t0 + 2000000)):$((t0 + 9000000))" | tee -a "${md:-/dev/null}"
done

# ---- the programs --------------------------------------------------------------------------
# run PROGRAM NODE_BINARY MODE OUT_PREFIX [NODE_FLAGS...]: one fresh target under load. MODE
# ref: the flags given plus --cpu-prof; ntop: default flags, ntop-js attached after WARM s.
# Sets T0 and T1 (the measured span, target's clock) and leaves OUT_PREFIX.{jsonl,cpuprofile}.
run() {
	local prog=$1 nb=$2 mode=$3 out=$4 tpid lpid npid port args=() xf=()
	shift 4
	read -ra xf <<<"$xflags"
	local log="$out.target.jsonl"
	case $prog in
	express) args=("$BENCH_TARGETS/express-app.js" --out "$log") ;;
	tsc) args=("$BENCH_TARGETS/tsc-loop.js" --dir "$bench_tmp/tsproj" --files 300 --out "$log") ;;
	esac
	if [ "$mode" = ref ]; then
		"$nb" "${xf[@]+"${xf[@]}"}" "$@" --cpu-prof --cpu-prof-dir "$out.ref" --cpu-prof-interval 1000 \
			--inspect-port=127.0.0.1:0 "${args[@]}" 2>"$out.target.err" &
	else
		"$nb" "${xf[@]+"${xf[@]}"}" --inspect-port=127.0.0.1:0 "${args[@]}" 2>"$out.target.err" &
	fi
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$log" '"event":"ready"' 120
	lpid=""
	if [ "$prog" = express ]; then
		port=$(bench_json_field "$log" port)
		"$NODE" "$BENCH_TARGETS/load.js" "http://127.0.0.1:$port" "$conns" $((warm + secs + 8)) \
			>"$out.load.json" 2>"$out.load.err" &
		lpid=$!
		bench_track "$lpid"
	fi
	sleep "$warm"
	T0=$(($(mono_us) + 1000000))
	if [ "$mode" = ref ]; then
		sleep $((secs + 1))
	else
		"$ntop" --pid "$tpid" --max-pause 60 -b --json -n $((secs + 1)) -d 1 -t 1000 -o "$out.cpuprofile" \
			>"$out.jsonl" 2>"$out.ntop.err" &
		npid=$!
		bench_track "$npid"
		wait "$npid" || bench_die "ntop-js failed on $prog ($nb): $(cat "$out.ntop.err")"
	fi
	T1=$(mono_us)
	kill -0 "$tpid" 2>/dev/null || bench_die "the $prog target died: $(tail -n 5 "$out.target.err")"
	[ -z "$lpid" ] || bench_stop "$lpid"
	bench_stop "$tpid"
	if [ "$mode" = ref ]; then
		mv "$(ls "$out.ref"/*.cpuprofile)" "$out.cpuprofile" || bench_die "no reference profile for $prog ($nb)"
	fi
	local rate
	rate=$(grep '"t":' "$log" | tail -n $((secs + 1)) | head -n "$secs" |
		sed -n 's/.*"ops_per_s":\([0-9.]*\).*/\1/p' | bench_stats | cut -d' ' -f2)
	echo "  $prog $mode ($("$nb" --version) $xflags $*): median $rate ops/s while measured" >&2
	# shellcheck disable=SC2016 # JavaScript, not shell
	grep '"t":' "$log" | tail -n $((secs + 1)) | head -n "$secs" | "$NODE" -e '
		const s = {};
		for (const l of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) {
			const r = JSON.parse(l).routes || {};
			for (const k in r) { s[k] = s[k] || [0, 0]; s[k][0] += r[k][0]; s[k][1] += r[k][1]; }
		}
		const e = Object.entries(s);
		if (e.length) console.log("    us per request (route work only): " +
			e.map(([k, v]) => `/${k} ${v[0] ? Math.round(v[1] / v[0]) : "-"}`).join(", "));' >&2
}

for prog in $programs; do
	for v in $versions; do
		nb=$(bench_node_bin "$v")
		read -ra flags <<<"$(bench_noinline_flags "$nb")"
		p="$bench_tmp/$prog-$v"
		run "$prog" "$nb" ref "$p-ref" "${flags[@]}"
		ref="$p-ref.cpuprofile:$T0:$T1"
		refd=()
		if [[ " $refdef " == *" $v "* ]]; then
			run "$prog" "$nb" ref "$p-refdef"
			refd=(--ref-default "$p-refdef.cpuprofile:$T0:$T1")
		fi
		run "$prog" "$nb" ntop "$p-ntop"
		span[$prog-$v]="$T0:$T1"
		say ""
		kept=()
		[ -z "$keep" ] || kept=(--ref-shares-out "$keep/$prog-node$v.json" --program "$prog"
			--node "$("$nb" --version)")
		"$NODE" "$BENCH_DIR/accuracy-compare.js" --label "$prog node $("$nb" --version)" \
			--ref "$ref" "${refd[@]+"${refd[@]}"}" "${kept[@]+"${kept[@]}"}" --ntop "$p-ntop.jsonl" \
			--ntop-profile "$p-ntop.cpuprofile:$T0:$T1" --json-out "$summary" |
			tee -a "${md:-/dev/null}"
	done
done

# Every version against V8 14's own naming: V8 14 (Node 25, 26) names inlined functions itself
# and ntop-js changes nothing there, so its attached profile of the same program at the same
# point of its warm-up is what the others should read. It is a fairer yardstick than the
# no-inlining reference, which makes small callees slower (express's /hash 3.7 times), and than
# a from-start profile, whose route handlers move into express's handleRequest when V8 inlines
# them, at a time that varies from run to run (doc/benchmarks.md section 20).
for prog in $programs; do
	[[ " $versions " == *" 26 "* ]] || continue
	for v in $versions; do
		[ "$v" != 26 ] || continue
		say ""
		"$NODE" "$BENCH_DIR/accuracy-compare.js" \
			--label "$prog node $v against node 26 (V8 names inlined functions, ntop-js attached alike)" \
			--ref "$bench_tmp/$prog-26-ntop.cpuprofile:${span[$prog-26]}" --ntop "$bench_tmp/$prog-$v-ntop.jsonl" \
			--ntop-profile "$bench_tmp/$prog-$v-ntop.cpuprofile:${span[$prog-$v]}" --json-out "$summary" |
			tee -a "${md:-/dev/null}"
	done
done

say ""
say "summary (top-5 share error, percentage points of busy time, against the no-inlining reference"
say "unless the label names another):"
# shellcheck disable=SC2016 # JavaScript, not shell
"$NODE" -e '
	for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)) {
		const s = JSON.parse(l);
		console.log(`${s.label}: top-5 share error: max ${s.ntop_max_err} points (-b --json), max ${s.profile_max_err} points (-o)` +
			(s.ref_default_max_diff === null ? "" : `; against the default-flags reference: max ${s.ntop_max_err_vs_default}` +
				` (references differ by max ${s.ref_default_max_diff})`));
	}' "$summary" | tee -a "${md:-/dev/null}"
bench_load_after
