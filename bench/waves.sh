#!/bin/bash
# The wave program (tests/targets/waves.js: allocates in waves, keeps nothing) watched for a
# long time: how often its growth verdict reads growing, and from what. Prints one summary
# line: windows, counts per verdict, basis of the last window, majors in it, the last rate.
#
#   bench/waves.sh [SECONDS]       (default 1800, at least 10: one 10 s window)
#   NTOP_JS=build/dev/ntop-js NODE=/path/to/node bench/waves.sh 1800
# The ntop-js binary: $NTOP_JS (the binary or its build directory), else ntop-js on PATH.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"
[ "${1:-}" != -h ] || bench_usage 2
secs=${1:-1800}
bench_uint SECONDS "$secs" 10
NTOP_JS=$(bench_resolve_ntop "${NTOP_JS:-}")
"$NODE" --inspect-port=0 "$BENCH_DIR/../tests/targets/waves.js" >"$bench_tmp/waves.out" \
	2>"$bench_tmp/waves.err" &
bench_pids+=($!)
target=$!
for _ in $(seq 100); do grep -q ready "$bench_tmp/waves.out" && break; sleep 0.1; done
# 10 s windows keep ntop-js's own cost small; the growth window is the default 300 s.
"$NTOP_JS" --pid "$target" --max-pause 60 -b --json -d 10 -n $((secs / 10)) -t 1 >"$bench_tmp/w.jsonl"
"$NODE" -e '
const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const c = {};
for (const w of l) c[w.growth.verdict] = (c[w.growth.verdict] || 0) + 1;
const g = l[l.length - 1].growth;
console.log(`node ${process.version}: ${l.length} windows, verdicts ${JSON.stringify(c)},` +
	` last: ${g.verdict} ${g.basis} ${g.major_gcs} majors,` +
	` fitted ${(g.heap_bytes_per_hour / 1048576).toFixed(1)} MB/h, significant ${g.significant}`);
' "$bench_tmp/w.jsonl"
