#!/bin/bash
# A short, bounded fuzz run in every make check: each libFuzzer target of fuzz/ for 15 s from
# its seeds (doc/fuzzing.md). A crash, sanitizer report, leak or timeout fails it; the input
# is kept under the build directory's fuzz-build/artifacts/.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

secs=${NTOP_FUZZ_SECONDS:-15}
out=$(FUZZ_BUILD="${top_builddir:-$WORK}/fuzz-build" bash "$top_srcdir/fuzz/run.sh" "$secs" 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qi "not available"; then
	skip_all "clang's libFuzzer is not available"
fi
printf '%s\n' "$out" | tail -n 12 | sed 's/^/# /'
ok $rc "every fuzz target ran ${secs} s without a crash, leak or timeout"
done_testing
