#!/usr/bin/env bash
# Run every ntop-js benchmark and print a summary.
#
# Usage: bench/run-all.sh [-q] [BUILD_DIR | NTOP_JS_BINARY]
#   -q   quick: shorter phases (a smoke test of the scripts, numbers are rougher)
# With a build directory (or a binary inside one), that build is measured. Without an
# argument, a plain optimised ntop-js (CFLAGS='-O2 -g', no sanitizers) is built in a
# temporary directory from this source tree, which needs its configure script (run
# `autoreconf -fi` first in a git checkout).
# Runs bench/stall.sh, bench/overhead.sh, bench/owncost.sh and, if present, bench/ingest.sh
# (which needs `make bench-ingest`, done here when the build directory has a Makefile).
# About 8 minutes (2 with -q). Needs node and wrk.
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

quick=no
while getopts 'qh' opt; do
	case $opt in
	q) quick=yes ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
srcdir=$(cd "$BENCH_DIR/.." && pwd)
bench_check_tools "$NODE" wrk make

build=""
reproduce_arg=${1:-}
if [ $# -eq 0 ]; then
	[ -x "$srcdir/configure" ] || bench_die "no $srcdir/configure: run 'autoreconf -fi' in $srcdir first"
	build="$bench_tmp/build"
	mkdir -p "$build"
	echo "building a plain optimised ntop-js in $build (log: build.log there)..."
	(cd "$build" && "$srcdir/configure" CFLAGS='-O2 -g' -q && make -j"$(nproc)" ntop-js) \
		>"$build/build.log" 2>&1 || { tail -n 30 "$build/build.log" >&2; bench_die "build failed"; }
	ntop="$build/ntop-js"
elif [ -d "$1" ]; then
	build=$(cd "$1" && pwd)
	ntop=$(bench_resolve_ntop "$build")
else
	ntop=$(bench_resolve_ntop "$1")
	[ -f "$(dirname "$ntop")/Makefile" ] && build=$(dirname "$ntop")
fi
if "$ntop" --version >/dev/null 2>&1; then :; else bench_die "$ntop --version fails"; fi
if [ -f "$(dirname "$ntop")/config.log" ] && grep -q -- '-fsanitize' "$(dirname "$ntop")/config.log"; then
	echo "WARNING: $ntop seems to be built with sanitizers: its own cost will look much higher" >&2
fi

if [ $quick = yes ]; then
	stall_args=(-s 10)
	overhead_args=(-r 1 -s 5)
	owncost_args=(-s 15)
else
	stall_args=()
	overhead_args=()
	owncost_args=()
fi

echo "== ntop-js benchmarks: $("$ntop" --version | head -n 1), $ntop"
echo "reproduce: bench/run-all.sh $([ $quick = yes ] && echo '-q ')${reproduce_arg}"
bench_machine
echo

status=0
ran=()
run() { # run NAME SCRIPT ARGS...
	local name=$1 rc=0
	shift
	echo "######## $name"
	"$@" 2>&1 | tee "$bench_tmp/$name.log" || rc=$?
	[ $rc -eq 0 ] || { echo "$name: FAILED (exit status $rc)"; status=1; }
	ran+=("$name:$rc")
	echo
}
run stall "$BENCH_DIR/stall.sh" "${stall_args[@]+"${stall_args[@]}"}" "$ntop"
run overhead "$BENCH_DIR/overhead.sh" "${overhead_args[@]+"${overhead_args[@]}"}" "$ntop"
run owncost "$BENCH_DIR/owncost.sh" "${owncost_args[@]+"${owncost_args[@]}"}" "$ntop"
if [ -x "$BENCH_DIR/ingest.sh" ] || [ -f "$BENCH_DIR/ingest.sh" ]; then
	if [ -n "$build" ] && [ -f "$build/Makefile" ]; then
		if make -C "$build" bench-ingest >"$bench_tmp/ingest-build.log" 2>&1; then
			run ingest bash "$BENCH_DIR/ingest.sh" "$build"
		else
			tail -n 20 "$bench_tmp/ingest-build.log"
			echo "ingest: FAILED (make bench-ingest)"
			ran+=("ingest:build")
			status=1
		fi
	else
		echo "ingest: skipped (needs a build directory, not just a binary)"
		ran+=("ingest:skipped")
	fi
fi

echo "================ summary ================"
bench_machine
for entry in "${ran[@]}"; do
	name=${entry%%:*}
	rc=${entry#*:}
	echo
	echo "---- $name (exit status $rc)"
	log="$bench_tmp/$name.log"
	[ -f "$log" ] || continue
	case $name in
	stall) sed -n '/^per-second worst/,$p' "$log" ;;
	overhead) sed -n '/^throughput: mean/,$p' "$log" ;;
	owncost) sed -n '/^measure /,$p' "$log" ;;
	*) tail -n 15 "$log" ;;
	esac
done
exit $status
