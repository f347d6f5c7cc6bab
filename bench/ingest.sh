#!/usr/bin/env bash
# ingest.sh: how fast, and in how much memory, ntop-js turns a CPU profile into per-function
# self/total times, compared with Node.js doing JSON.parse() plus the same aggregation.
#
# Usage: bench/ingest.sh [-r RUNS] [BUILD_DIR]
#   -r RUNS  runs of each side (default 3, or $RUNS)
#
# BUILD_DIR holds bench/ingest (build it with `make bench-ingest`, in a build configured
# without sanitizers: they distort both time and memory). Defaults to the source tree.
# Real profiles of about 1, 10 and 30 MB are recorded once with
# tests/fixtures/record-profile.js (many generated functions, a 50 µs sampling interval, so
# nodes and samples are both numerous) and kept in $NTOP_BENCH_DIR (default
# ${TMPDIR:-/tmp}/ntop-js-bench). Each side runs RUNS times in fresh processes; the table
# shows the fastest time and the largest peak RSS.
set -eu
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

bench_runs_and_build "$@"
srcdir=$(dirname "$BENCH_DIR")
ingest=$build/bench/ingest
node=$NODE
work=${NTOP_BENCH_DIR:-${TMPDIR:-/tmp}/ntop-js-bench}

if [ ! -x "$ingest" ]; then
	echo "ingest.sh: $ingest not found; run 'make bench-ingest' in $build first" >&2
	exit 1
fi
mkdir -p "$work"

# name and record-profile.js arguments. The three sized profiles are dominated by their
# nodes (every sample in the generated call graph lands on a new stack); "long" is 45 s of a
# plain workload at the highest rate V8 manages here (~7000 samples/s), so its bytes are
# mostly samples and timeDeltas.
profiles="1MB 10MB 30MB long"
profile_args() {
	case $1 in
	1MB) echo "--functions 300 --duration-ms 200 --target-bytes 1000000" ;;
	10MB) echo "--functions 3000 --duration-ms 1000 --target-bytes 10000000" ;;
	30MB) echo "--functions 8000 --duration-ms 3000 --target-bytes 30000000" ;;
	long) echo "--duration-ms 45000" ;;
	esac
}
for name in $profiles; do
	f=$work/profile-$name.json
	if [ ! -s "$f" ]; then
		echo "recording $f ..." >&2
		args=$(profile_args "$name")
		# shellcheck disable=SC2086
		"$node" "$srcdir/tests/fixtures/record-profile.js" $args --interval-us 50 --out "$f.tmp"
		mv "$f.tmp" "$f"
	fi
done

# field VALUE from a "RESULT k=v ..." line
result() {
	sed -n "s/^RESULT.* $1=\([0-9.]*\).*/\1/p; s/^RESULT $1=\([0-9.]*\).*/\1/p" | head -n 1
}

best() { # min of a column of numbers
	sort -g | head -n 1
}

worst() {
	sort -g | tail -n 1
}

top5() { # "self total" of the top 5 functions printed by either side
	sed -n 's/^  self *\([0-9]*\) total *\([0-9]*\).*/\1 \2/p'
}

mismatch=""
printf '%-7s %9s %7s %7s %7s %7s %8s %7s %10s %10s\n' profile bytes nodes samples "C ms" \
	"C MB/s" "node ms" "node/C" "C RSS/size" "node RSS/size"
for name in $profiles; do
	f=$work/profile-$name.json
	size=$(wc -c <"$f")
	c_ms=""
	c_rss=""
	n_ms=""
	n_rss=""
	nodes=""
	parse_ms=""
	i=0
	while [ $i -lt "$runs" ]; do
		out=$("$ingest" "$f")
		c_ms="$c_ms $(echo "$out" | result ms)"
		parse_ms="$parse_ms $(echo "$out" | result parse_ms)"
		c_rss="$c_rss $(echo "$out" | result rss_kib)"
		c_start=$(echo "$out" | result start_kib)
		nodes=$(echo "$out" | sed -n 's/.* \([0-9]*\) nodes.*/\1/p' | head -n 1)
		samples=$(echo "$out" | sed -n 's/.* \([0-9]*\) samples.*/\1/p' | head -n 1)
		c_top=$(echo "$out" | top5)
		out=$("$node" "$srcdir/bench/ingest-node.js" "$f")
		n_ms="$n_ms $(echo "$out" | result ms)"
		n_rss="$n_rss $(echo "$out" | result rss_kib)"
		n_start=$(echo "$out" | result start_kib)
		n_top=$(echo "$out" | top5)
		[ "$c_top" = "$n_top" ] || mismatch="$mismatch $name"
		i=$((i + 1))
	done
	c_ms=$(echo $c_ms | tr ' ' '\n' | best)
	parse_ms=$(echo $parse_ms | tr ' ' '\n' | best)
	c_rss=$(echo $c_rss | tr ' ' '\n' | worst)
	n_ms=$(echo $n_ms | tr ' ' '\n' | best)
	n_rss=$(echo $n_rss | tr ' ' '\n' | worst)
	awk -v name="$name" -v size="$size" -v nodes="$nodes" -v samples="$samples" \
		-v cms="$c_ms" -v pms="$parse_ms" -v nms="$n_ms" -v crss="$c_rss" -v nrss="$n_rss" \
		-v cstart="$c_start" -v nstart="$n_start" 'BEGIN {
		printf "%-7s %9d %7d %7d %7.1f %7.0f %8.1f %6.1fx %4.2f (%4.2f) %5.2f (%5.2f)\n", name,
			size, nodes, samples, cms, size / (pms / 1000) / 1e6, nms, nms / cms,
			crss * 1024 / size, (crss - cstart) * 1024 / size,
			nrss * 1024 / size, (nrss - nstart) * 1024 / size
	}'
done
echo "C ms: read + parse + aggregate, best of $runs runs; C MB/s: parse alone."
echo "RSS/size: the process's peak RSS over the file size (in brackets: above its RSS at start)."
if [ -n "$mismatch" ]; then
	echo "the top 5 functions differ between C and node for:$mismatch" >&2
	exit 1
fi
echo "both sides agree on the self and total time of the top 5 functions of every profile"
