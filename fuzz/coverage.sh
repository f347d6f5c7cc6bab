#!/bin/bash
# coverage.sh: line coverage of the library sources reached by each target's corpus.
#
#   fuzz/coverage.sh [TARGET...]
#
# Builds the targets again with clang's source-based coverage (into BUILD/cov), runs every
# input of the working corpus that fuzz/run.sh left in BUILD/corpus/TARGET (or of the
# committed seeds, if none) once, and prints llvm-cov's report for the library files that
# target links. Environment: FUZZ_CC (default clang), FUZZ_BUILD (default fuzz/build),
# LLVM_COV and LLVM_PROFDATA (default: llvm-cov and llvm-profdata).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=${FUZZ_CC:-clang}
build=${FUZZ_BUILD:-$here/build}
cov=$build/cov
llvm_cov=${LLVM_COV:-llvm-cov}
llvm_profdata=${LLVM_PROFDATA:-llvm-profdata}
targets=${*:-fuzz_profile fuzz_envelope fuzz_heapprof fuzz_procfs fuzz_memlog fuzz_settings fuzz_sourcemap}

goals=""
for t in $targets; do goals="$goals $cov/$t"; done
# shellcheck disable=SC2086
make -s -C "$here" BUILD="$cov" CC="$cc" CFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
	-j2 $goals
for t in $targets; do
	corpus=$build/corpus/$t
	[ -d "$corpus" ] || corpus=$here/corpus/$t
	rm -f "$cov/$t".*.profraw
	LLVM_PROFILE_FILE="$cov/$t.%p.profraw" "$cov/$t" -runs=0 -rss_limit_mb=2048 "$corpus" \
		>"$cov/$t.log" 2>&1
	"$llvm_profdata" merge -sparse -o "$cov/$t.profdata" "$cov/$t".*.profraw
	srcs=$(sed -n "s/^${t}_SRC := //p" "$here/Makefile")
	files=""
	for s in $srcs; do files="$files $here/../src/$s.c"; done
	echo "== $t ($(ls "$corpus" | wc -l) inputs from $corpus)"
	# shellcheck disable=SC2086
	"$llvm_cov" report "$cov/$t" -instr-profile="$cov/$t.profdata" $files |
		sed "s|$here/../src/||"
done
