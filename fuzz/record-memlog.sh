#!/bin/bash
# record-memlog.sh: records a real --log file as a seed for fuzz_memlog.
#
#   NTOP_JS=path/to/ntop-js fuzz/record-memlog.sh [OUT]
#       (default OUT: fuzz/corpus/fuzz_memlog/recorded.log)
#
# ntop-js follows tests/targets/leak.js in batch mode with --log for a few seconds; the target
# is then killed and started again, so that the log holds every record type: attach, mem,
# window, post_gc, target_exit, and the second attach. The file is cut at a line boundary to stay
# under 100 KB, and a copy with its last line torn (as a kill -9 mid-write leaves it) is
# written beside it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
NTOP_JS=${NTOP_JS:-$top/ntop-js}
NODE=${NODE:-node}
out=${1:-$here/corpus/fuzz_memlog/recorded.log}
[ -x "$NTOP_JS" ] || { echo "record-memlog.sh: set NTOP_JS to a built ntop-js" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ntop-js-memlog.XXXXXX")
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

start_target() {
	"$NODE" --inspect-port=0 "$top/tests/targets/leak.js" 200000 >"$work/target.out" 2>/dev/null &
	target=$!
	pids="$pids $target"
	for _ in $(seq 100); do grep -q ready "$work/target.out" && return 0; sleep 0.1; done
	echo "record-memlog.sh: the target did not start" >&2
	exit 1
}

start_target
"$NTOP_JS" --pid "$target" -b --json -d 0.5 --mem-interval 0.2 --follow --log "$work/run.log" \
	>/dev/null 2>"$work/ntop.err" &
ntop=$!
pids="$pids $ntop"
sleep 3
kill "$target"
wait "$target" 2>/dev/null || true
sleep 1.5
start_target
sleep 2.5
kill -INT "$ntop"
wait "$ntop" || true

mkdir -p "$(dirname "$out")"
# whole lines only, under 100 KB
awk 'BEGIN { n = 0 } { n += length($0) + 1; if (n > 100000) exit; print }' "$work/run.log" >"$out"
# the same log as a kill -9 mid-write leaves it: its last line cut short
head -c "$(( $(wc -c <"$out") - 7 ))" "$out" >"${out%.log}-torn.log"
grep -o '"type":"[a-z_]*"' "$out" | sort | uniq -c
