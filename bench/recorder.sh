#!/usr/bin/env bash
# The flight recorder's memory (--trigger): the express server under autocannon, watched by one
# session whose trigger holds from the start and fires after 65 s (cpu>=0%:65s), so that the
# recorder is full (--keep 60) when the incident is written; incident.json says what it held
# (recorder.windows, recorder.bytes). Then the same session without a trigger and with the
# same sampling (-i 20000 --inlining repair, the recorder's): ntop-js's peak RSS (VmHWM) of each.
#
# Usage: bench/recorder.sh [-c CONNECTIONS] [NTOP_JS_BINARY_OR_BUILD_DIR]
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

conns=8
while getopts 'c:h' opt; do
	case $opt in
	c) bench_uint -c "$OPTARG" 1; conns=$OPTARG ;;
	*) bench_usage ;;
	esac
done
shift $((OPTIND - 1))
ntop=$(bench_resolve_ntop "${1:-}")
bench_check_tools "$NODE"
deps=$(bench_npm_deps)
export NODE_PATH=$deps/node_modules
work=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$work"' EXIT
echo "== the flight recorder's memory"
echo "reproduce: bench/recorder.sh -c $conns $ntop"
bench_machine
"$NODE" --inspect-port=0 "$BENCH_DIR/targets/express-app.js" >"$work/app.out" 2>&1 &
app=$!
bench_track "$app"
bench_wait_line "$work/app.out" '"event":"ready"' 10 || bench_die "the express server did not start"
port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$work/app.out" | head -n 1)
"$NODE" "$NODE_PATH/autocannon/autocannon.js" -c "$conns" -d 200 "http://127.0.0.1:$port/render" \
	>/dev/null 2>&1 &
bench_track $!
sleep 12
# peak NAME ARGS...: one 70-window session, its peak RSS printed
peak() {
	local name=$1
	shift
	"$ntop" --pid "$app" -b -n 70 -d 1 "$@" >/dev/null 2>"$work/$name.err" &
	local n=$! hwm=0 h
	while kill -0 "$n" 2>/dev/null; do
		h=$(bench_hwm_kb "$n")
		[ -n "$h" ] && hwm=$h
		sleep 1
	done
	wait "$n" || bench_die "ntop-js $*: $(tail -n 1 "$work/$name.err")"
	echo "$name: ntop-js peak RSS $hwm KB"
}
mkdir -m 700 "$work/inc"
peak "with --trigger cpu>=0%:65s" --trigger 'cpu>=0%:65s' --incident-dir "$work/inc"
peak "without, -i 20000 --inlining repair" -i 20000 --inlining repair
for b in "$work"/inc/incident-*; do
	"$NODE" -e 'const fs = require("fs"), d = process.argv[1];
		const j = JSON.parse(fs.readFileSync(d + "/incident.json", "utf8"));
		console.log(`incident: ${j.windows} windows, ${(j.to - j.from).toFixed(1)} s; recorder ` +
			`${j.recorder.windows} windows, ${(j.recorder.bytes / 1048576).toFixed(2)} MiB; ` +
			`.cpuprofile ${fs.statSync(d + "/profile.cpuprofile").size} bytes, pprof ` +
			`${fs.statSync(d + "/profile.pb.gz").size}; top ` +
			j.top.slice(0, 3).map(t => `${t.function} ${t.self_pct} %`).join(", "))' "$b"
done
