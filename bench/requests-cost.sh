#!/usr/bin/env bash
# What following HTTP requests costs the target: an express server at its full rate, with and
# without ntop-js's requests reading (the diagnostics_channel subscribers, and on Node 24 and
# later the AsyncLocalStorage that says which request a call is made for), in alternating
# phases of one process (bench/requests-cost.js), on each Node version asked for.
#
# Usage: bench/requests-cost.sh [-m] [-v NODE_MAJORS] [-r ROUNDS] [-p PHASE_SECS] [-o MARKDOWN]
#   -m             only the subscribers' own work: ns a request added to the server channels'
#                  publishing, from a loop (no server, no load)
#   -v MAJORS      Node major versions from ~/.cache/ntop-js/node (default "18 20 22 24 26")
#   -r ROUNDS      phases with the reading, and as many without (default 12)
#   -p PHASE_SECS  seconds per phase (default 4)
#   -o FILE        also append the table to FILE (markdown)
# NTOP_REQ_DROP and NTOP_REQ_SUBST in the environment change the reading (bench/requests-cost.js).
# Reported per version: the requests per CPU second of the server without and with the
# reading (medians over phases), the median and mean of the rounds' ratios (with / without),
# and whether the reading said which request each call was for (context).
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

majors="18 20 22 24 26"
rounds=12
phase=4
md=""
micro=no
while getopts 'mv:r:p:o:h' opt; do
	case $opt in
	m) micro=yes ;;
	v) majors=$OPTARG ;;
	r) rounds=$OPTARG ;;
	p) phase=$OPTARG ;;
	o) md=$OPTARG ;;
	*) bench_usage 2 ;;
	esac
done
bench_uint -r "$rounds" 2
bench_uint -p "$phase" 2
bench_check_tools "$NODE"
if [ "$micro" = yes ]; then
	echo "== requests cost, the subscribers' own work: ns a request (a start and a finish published)"
	echo "reproduce: bench/requests-cost.sh -m -v '$majors'"
	bench_machine
	table="| Node | context (waits) | ns a request without | with | added |
|---|---|---|---|---|"
	for v in $majors; do
		line=$("$(bench_node_bin "$v")" "$BENCH_DIR/requests-cost.js" micro) || bench_die "node $v: micro failed"
		echo "$line"
		table="$table
$("$NODE" -e 'const r = JSON.parse(process.argv[1]);
	console.log(`| ${r.node} | ${r.context ? "yes" : "no"} | ${r.ns_without} | ${r.ns_with} | ${r.ns_with - r.ns_without} |`)' "$line")"
	done
	echo
	echo "$table"
	[ -z "$md" ] || printf '%s\n' "$table" >>"$md"
	exit 0
fi
deps=$(bench_npm_deps)
export NODE_PATH="$deps/node_modules"

echo "== requests cost: an express server's requests per CPU second with ntop-js's requests reading / without"
echo "reproduce: bench/requests-cost.sh -v '$majors' -r $rounds -p $phase"
bench_machine
echo
table="| Node | context (waits) | without, req/CPU s | with, req/CPU s | with / without, median (mean) | rounds' ratios |
|---|---|---|---|---|---|"
for v in $majors; do
	nb=$(bench_node_bin "$v")
	line=$("$nb" "$BENCH_DIR/requests-cost.js" "$rounds" "$phase" 2>"$bench_tmp/err.$v") ||
		bench_die "node $v: requests-cost.js failed: $(tail -n 3 "$bench_tmp/err.$v")"
	echo "$line"
	row=$("$NODE" -e '
		const r = JSON.parse(process.argv[1]), med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
		const pct = (x) => (x * 100).toFixed(1) + " %";
		console.log(`| ${r.node} | ${r.context ? "yes" : "no"} | ${med(r.off)} | ${med(r.on)} | ` +
			`${pct(r.ratio_median)} (${pct(r.ratio_mean)}) | ${r.ratios.map((x) => (x * 100).toFixed(0)).join(", ")} |`);' "$line")
	table="$table
$row"
done
echo
echo "$table"
[ -z "$md" ] || printf '%s\n' "$table" >>"$md"
