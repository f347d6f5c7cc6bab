#!/usr/bin/env bash
# What ntop-js costs an express server at its full rate, measured on twins (bench/twin-cost.js):
# two copies of the server under one load, one of them carrying what is measured in each phase,
# in turn, so that what slows the whole machine slows both and cancels in each phase's ratio.
#
# Usage: bench/twin-cost.sh [-v NODE_MAJORS] [-r ROUNDS] [-p PHASE_SECS] [-s SETTLE_SECS]
#                           [-m MODE] [-c 'CANDIDATE|CANDIDATE...'] [-o MARKDOWN] [NTOP_JS]
#   -v MAJORS      Node major versions from ~/.cache/ntop-js/node (default "20 24")
#   -r ROUNDS      phases (default 8); -p seconds counted in each (default 6)
#   -s SETTLE      seconds after the start of what is measured before the count, and after
#                  its end before the next phase (default 5: the goal's "after the first 5 s")
#   -m MODE        ntop (default): ntop-js attached, ARGS from each candidate;
#                  reading: ntop-js's requests reading alone, in the server (TWIN_R=empty:
#                  its channels subscribed with handlers that do nothing; count: that count);
#                  profile: V8's profiler from an in-process session, windows rotated as
#                  ntop-js does (TWIN_I sampling interval in us, TWIN_W window in ms;
#                  TWIN_P=start: one Profiler.start instead, deopt: the same after a switch
#                  of the coverage mode, the repair's deoptimization; switch: that switch
#                  and no profile; session: no profile);
#                  none: nothing (the method's own spread)
#   -c CANDIDATES  ntop-js arguments, '|' between candidates (default: '' , the defaults);
#                  TWIN_D in the environment sets -d (default 1; a -d in a candidate is
#                  overridden)
#   TWIN_AFTER=S   what it leaves behind: ROUNDS phases with nothing on either twin, twin A
#                  carrying it once for S seconds, SETTLE seconds, ROUNDS phases again; each
#                  later phase's ratio over the median of the earlier ones
#   -o FILE        also append the table to FILE (markdown)
#   NTOP_JS        the binary or its build directory (else $NTOP_JS or ntop-js in PATH);
#                  build it without the sanitizers (configure without --enable-sanitizers)
# Reported per version and candidate: the median and mean of the phases' ratios (requests per
# CPU second of the twin with it over the one without) and each phase's.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

majors="20 24"
rounds=8
phase=6
settle=5
mode=ntop
cands=""
md=""
while getopts 'v:r:p:s:m:c:o:h' opt; do
	case $opt in
	v) majors=$OPTARG ;;
	r) rounds=$OPTARG ;;
	p) phase=$OPTARG ;;
	s) settle=$OPTARG ;;
	m) mode=$OPTARG ;;
	c) cands=$OPTARG ;;
	o) md=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 2
bench_uint -p "$phase" 2
bench_uint -s "$settle" 1
case $mode in
ntop) ntop=$(bench_resolve_ntop "${1:-}") ;;
reading | profile | none) ntop="" ;;
*) bench_die "-m: ntop, reading, profile or none" ;;
esac
bench_check_tools "$NODE"
deps=$(bench_npm_deps)
export NODE_PATH="$deps/node_modules"

echo "== what ntop-js costs an express server at its full rate, on twins: requests per CPU second of the twin with it / without"
echo "reproduce: ${TWIN_AFTER:+TWIN_AFTER=$TWIN_AFTER }${TWIN_D:+TWIN_D=$TWIN_D }${TWIN_I:+TWIN_I=$TWIN_I }${TWIN_R:+TWIN_R=$TWIN_R }${TWIN_W:+TWIN_W=$TWIN_W }${TWIN_P:+TWIN_P=$TWIN_P }bench/twin-cost.sh -v '$majors' -r $rounds -p $phase -s $settle -m $mode${cands:+ -c '$cands'}${ntop:+ NTOP_JS}"
bench_machine
echo
table="| Node | what | req/CPU s without (median) | with / without, median (mean) | phases' ratios |
|---|---|---|---|---|"
IFS='|' read -r -a list <<<"$cands"
[ ${#list[@]} -gt 0 ] || list=("")
for v in $majors; do
	nb=$(bench_node_bin "$v")
	for c in "${list[@]}"; do
		# shellcheck disable=SC2086 # a candidate is a list of arguments
		line=$("$nb" "$BENCH_DIR/twin-cost.js" "$mode" "$rounds" "$phase" "$settle" ${ntop:+"$ntop"} $c \
			2>"$bench_tmp/err.$v") ||
			bench_die "node $v, '$c': twin-cost.js failed: $(grep -v -e '^Debugger' -e '^For help' \
				"$bench_tmp/err.$v" | tail -n 3)"
		echo "$line"
		what=$mode
		[ "$mode" = ntop ] && what="ntop-js ${c:-(defaults)}${TWIN_D:+ -d $TWIN_D}"
		[ "$mode" = reading ] && [ -n "${TWIN_R:-}" ] && what="the requests reading's channels, handlers: $TWIN_R"
		if [ "$mode" = profile ]; then
			case ${TWIN_P:-rotate} in
			session) what="in-process session, Runtime and Profiler enabled, no profile" ;;
			start) what="in-process profiler, -i ${TWIN_I:-1000}, one profile (Profiler.start)" ;;
			switch) what="in-process coverage switch (all code deoptimized), no profile" ;;
			deopt) what="in-process profiler, -i ${TWIN_I:-1000}, one profile after a coverage switch (all code deoptimized)" ;;
			*) what="in-process profiler, -i ${TWIN_I:-1000}, windows ${TWIN_W:-1000} ms" ;;
			esac
		fi
		[ -z "${TWIN_AFTER:-}" ] || what="after: $what for ${TWIN_AFTER} s, ${settle} s later"
		row=$("$NODE" -e '
			const r = JSON.parse(process.argv[1]), med = (a) => { const s = [...a].sort((x, y) => x - y);
				return Math.round((s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2); };
			const pct = (x) => (x * 100).toFixed(1) + " %";
			console.log(`| ${r.node} | ${process.argv[2]} | ${r.without ? med(r.without) : "-"} | ` +
				`${pct(r.ratio_median)} (${pct(r.ratio_mean)}) | ${r.ratios.map((x) => (x * 100).toFixed(0)).join(", ")} |`);' \
			"$line" "$what")
		table="$table
$row"
	done
done
bench_load_after
echo
echo "$table"
[ -z "$md" ] || printf '%s\n' "$table" >>"$md"
