#!/usr/bin/env bash
# What attaching costs a warm target while ntop-js is attached, and after it has left: does
# the target stay slower once ntop-js is gone? Phases without and with ntop-js alternate on
# one process, and each is measured in the target's work per second of its own CPU.
#
# Usage: bench/jit-cost.sh [-t TARGETS] [-v NODE_MAJORS] [-r ROUNDS] [-p PHASE_SECS]
#                          [-w WARM] [-c 'CANDIDATES'] [-o MARKDOWN]
#                          [NTOP_JS_BINARY_OR_BUILD_DIR]
#   -t TARGETS     any of "express helpers tsc many" (default all four)
#   -v MAJORS      Node major versions from ~/.cache/ntop-js/node (default "20"), installed
#                  by tests/integration/versions.sh
#   -r ROUNDS      rounds of (a phase without ntop-js, a phase with it) (default 4)
#   -p PHASE_SECS  seconds per phase (default 12, at least 7)
#   -w WARM        seconds of load before the first phase (default 15)
#   -c CANDIDATES  ntop-js option strings separated by '|', each one a candidate measured on
#                  a fresh target; "default" is no extra option (default 'default|--leave-jit')
#   -o FILE        also append the summary table to FILE (markdown)
# The ntop-js binary: the argument, else $NTOP_JS.
#
# Targets (bench/targets/), each a fresh process per version and candidate, default V8 flags
# and --inspect-port=127.0.0.1:0 (SIGUSR1 opens the inspector there):
#   express  express-app.js under load.js (autocannon, 4 connections, the whole run);
#            ops = requests answered
#   helpers  helpers-app.js under load.js likewise: an express server whose time goes into
#            small helpers that V8 inlines, within its file and from helpers-lib.js
#   tsc      tsc-loop.js, the TypeScript compiler checking 300 generated files in a loop
#            (about one check a second: coarse, a line counts the checks that ended in it)
#   many     many-functions.js --functions 20000 --busy 50; ops = function calls
# Every target prints a line a second with its ops and its CPU time. A rate is ops per CPU
# second of the target over a span of seconds (the span's ops over its CPU time: steadier
# than per wall second when other processes share the cores, and a slow second weighs as
# much as it cost).
#
# Per target, version and candidate: WARM s of load, then ROUNDS rounds of a phase without
# ntop-js (U) and one with `ntop-js -b --pid PID --max-pause 60 -n PHASE_SECS -d 1
# CANDIDATE` (A), which leaves by itself at about the end of its phase; then a last U. A phase
# starts once ntop-js has exited with status 0 and the target's inspector is closed again
# (both checked), and leaves out the second it started in. Reported:
#   attached  median over rounds of A_r (its first 5 s left out) / the U just before it
#   after     median over U_1..U_ROUNDS (the phases after an attach) of U_i over its first
#             10 s, and over its seconds 5-12, / U_0 (before ntop-js ever attached, whole
#             phase): whether the target stays slower once ntop-js has left
# Each phase's rate is printed too, so that the ratios can be checked.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

targets="express helpers tsc many"
majors="20"
rounds=4
phase=12
warm=15
cands="default|--leave-jit"
md=""
while getopts 't:v:r:p:w:c:o:h' opt; do
	case $opt in
	t) targets=$OPTARG ;;
	v) majors=$OPTARG ;;
	r) rounds=$OPTARG ;;
	p) phase=$OPTARG ;;
	w) warm=$OPTARG ;;
	c) cands=$OPTARG ;;
	o) md=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_uint -r "$rounds" 1
bench_uint -p "$phase" 7
bench_uint -w "$warm"
for t in $targets; do
	case $t in express | helpers | tsc | many) ;; *) bench_die "unknown target $t" ;; esac
done
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE" ss
IFS='|' read -ra candv <<<"$cands"
[ "${#candv[@]}" -gt 0 ] || bench_die "-c names no candidate"
case " $targets " in *" express "* | *" helpers "* | *" tsc "*)
	deps=$(bench_npm_deps)
	export NODE_PATH="$deps/node_modules" ;;
esac
first=$((phase < 10 ? phase : 10))
late=$((phase < 12 ? phase : 12))

echo "== jit cost: a warm target's rate while ntop-js is attached and after it has left"
echo "reproduce: NTOP_JS=$ntop bench/jit-cost.sh -t '$targets' -v '$majors' -r $rounds -p $phase -w $warm -c '$cands'"
echo "ntop-js: $("$ntop" --version | head -n 1)"
bench_machine
echo

invalid=no
results="$bench_tmp/results.txt"
: >"$results"

# start_target TARGET NODE_BINARY OUT LOAD_SECS: start TARGET (and its load) writing its lines
# to OUT; sets tpid, lpid (empty without load) and app_port (the target's own listening port).
start_target() {
	local args=()
	case $1 in
	express) args=("$BENCH_TARGETS/express-app.js") ;;
	helpers) args=("$BENCH_TARGETS/helpers-app.js") ;;
	tsc) args=("$BENCH_TARGETS/tsc-loop.js" --dir "$bench_tmp/tsproj" --files 300) ;;
	many) args=("$BENCH_TARGETS/many-functions.js" --functions 20000 --busy 50) ;;
	esac
	"$2" --inspect-port=127.0.0.1:0 "${args[@]}" --out "$3" 2>"$3.err" &
	tpid=$!
	bench_track "$tpid"
	bench_wait_line "$3" '"event":"ready"' 180
	lpid=""
	app_port=""
	case $1 in express | helpers)
		app_port=$(bench_json_field "$3" port)
		"$NODE" "$BENCH_TARGETS/load.js" "http://127.0.0.1:$app_port" 4 "$4" >"$3.load.json" 2>"$3.load.err" &
		lpid=$!
		bench_track "$lpid" ;;
	esac
}

# until_line N: wait until the target has printed N per-second lines; the target and its
# load must live on meanwhile.
until_line() {
	local deadline=$((SECONDS + 60 + $1 - $(bench_count_lines "$out" '"t":')))
	while [ "$(bench_count_lines "$out" '"t":')" -lt "$1" ]; do
		kill -0 "$tpid" 2>/dev/null || bench_die "the target died (see $out.err)"
		[ -z "$lpid" ] || kill -0 "$lpid" 2>/dev/null || bench_die "the load ended early (see $out.load.err)"
		[ "$SECONDS" -lt "$deadline" ] || bench_die "the target stopped reporting (see $out)"
		sleep 0.1
	done
}

# inspector_ports: the ports the target listens on besides its own (an inspector's).
inspector_ports() {
	ss -Hltnp 2>/dev/null | grep -F "pid=$tpid," | awk '{print $4}' | sed 's/.*://' |
		grep -vxF -e "${app_port:-none}" || true
}

# record NAME: one phase, from the line after the one being written now, PHASE lines long.
record() {
	local from=$(($(bench_count_lines "$out" '"t":') + 2))
	until_line $((from + phase - 1))
	echo "$1 $from $((from + phase - 1))" >>"$phases"
}

# attached NAME LOG CANDIDATE_OPTIONS...: phase NAME with ntop-js attached; then wait until
# ntop-js has left (by itself after -n windows, else stopped) and the inspector is closed.
attached() {
	local name=$1 log=$2 npid rc=0 i how="by itself"
	shift 2
	"$ntop" -b --pid "$tpid" --max-pause 60 -n "$phase" -d 1 "$@" >"$log" 2>"$log.err" &
	npid=$!
	bench_track "$npid"
	record "$name"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$npid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$npid" 2>/dev/null; then
		how="stopped by SIGINT"
		bench_stop "$npid"
		rc=$bench_rc
	else
		wait "$npid" || rc=$?
	fi
	for ((i = 0; i < 100; i++)); do
		[ -n "$(inspector_ports)" ] || break
		sleep 0.1
	done
	local open
	open=$(inspector_ports | tr '\n' ' ')
	echo "  $name: ntop-js left ($how) with status $rc after $(bench_count_lines "$log" '^ntop-js - ') windows;" \
		"inspector ${open:+still open on }${open:-closed}"
	if [ "$rc" != 0 ] || [ -n "$open" ]; then
		echo "  $name: ntop-js misbehaved: $(head -c 500 "$log.err")" >&2
		invalid=yes
		problems=yes
	fi
}

for t in $targets; do
	for v in $majors; do
		nb=$(bench_node_bin "$v")
		for ((ci = 0; ci < ${#candv[@]}; ci++)); do
			cand=$(echo "${candv[ci]}" | sed 's/^ *//; s/ *$//')
			copts=()
			[ "$cand" = default ] || read -ra copts <<<"$cand"
			out="$bench_tmp/$t-$v-$ci.jsonl"
			phases="$out.phases"
			: >"$phases"
			problems=no
			start_target "$t" "$nb" "$out" $((warm + (2 * rounds + 1) * (phase + 2) + rounds * 45 + 60))
			echo "$t on $("$nb" --version), candidate '$cand': $(grep '"event":"ready"' "$out" | head -n 1)"
			until_line $(($(bench_count_lines "$out" '"t":') + warm))
			for ((r = 1; r <= rounds; r++)); do
				record "U$((r - 1))"
				attached "A$r" "$out.ntop$r.txt" "${copts[@]+"${copts[@]}"}"
			done
			record "U$rounds"
			[ -z "$lpid" ] || bench_stop "$lpid"
			bench_stop "$tpid"
			"$NODE" "$BENCH_DIR/jit-cost-report.js" --lines "$out" --phases "$phases" --skip 5 \
				--first "$first" --late "$late" \
				--row "$t|$("$nb" --version)|$cand|$problems" --results "$results"
			echo
		done
	done
done

say() { # print, and append to the markdown file
	echo "$*"
	[ -z "$md" ] || echo "$*" >>"$md"
}
say "summary (ops per CPU second of the target; % of: the U phase just before (attached), U_0"
say "before any attach (after); median over rounds, each round's value in brackets):"
say ""
say "| target | node | candidate | U_0 ops/CPU-s | attached, s 6-$phase | after, s 1-$first | after, s 5-$late | ntop-js |"
say "|---|---|---|---|---|---|---|---|"
while IFS= read -r line; do say "$line"; done <"$results"
bench_load_after
[ $invalid = no ] || { echo "INVALID: ntop-js misbehaved (see above)"; exit 1; }
