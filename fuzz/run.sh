#!/bin/bash
# run.sh: builds the fuzz targets and runs each for a bounded time.
#
#   fuzz/run.sh SECONDS [TARGET...]       (default: every target, one after the other)
#
# Each target starts from its committed seeds (fuzz/corpus/TARGET/) plus the real recordings
# in tests/fixtures that fit it, copied into a working corpus under the build directory, so
# that the tree is never written to. Fails (exit 1) if a target does not build, or if any
# finds a crash, a sanitizer report, a leak, a timeout (-timeout=10) or an out-of-memory
# (-rss_limit_mb=2048); the input is then under BUILD/artifacts/TARGET/. Exits 0 with a
# message when clang's libFuzzer is not available.
#
# Environment: FUZZ_CC (default clang), FUZZ_BUILD (default fuzz/build), FUZZ_JOBS (targets run at
# once, default 1), FUZZ_ARGS (more libFuzzer flags, e.g. "-seed=1").
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
fixtures=$top/tests/fixtures
all_targets="fuzz_profile fuzz_envelope fuzz_heapprof fuzz_procfs fuzz_memlog fuzz_settings"
all_targets="$all_targets fuzz_sourcemap fuzz_requests fuzz_pprof"

secs=${1:-}
case $secs in
''|*[!0-9]*) echo "usage: fuzz/run.sh SECONDS [TARGET...]" >&2; exit 2 ;;
esac
shift
targets=${*:-$all_targets}
for t in $targets; do
	case " $all_targets " in
	*" $t "*) ;;
	*) echo "run.sh: unknown target $t (targets: $all_targets)" >&2; exit 2 ;;
	esac
done

cc=${FUZZ_CC:-clang}
build=${FUZZ_BUILD:-$here/build}
jobs=${FUZZ_JOBS:-1}
mkdir -p "$build"

# libFuzzer comes with clang's runtime (Debian: clang and libclang-rt-N-dev).
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: skipped: clang's libFuzzer is not available ($cc not found; install clang" \
		"and libclang-rt-dev)"
	exit 0
fi
probe=$build/probe
if ! printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n > 0 && d[0] == 1; }' |
	"$cc" -x c -fsanitize=fuzzer,address,undefined -o "$probe" - >"$build/probe.log" 2>&1; then
	echo "fuzz: skipped: clang's libFuzzer is not available ($cc cannot link" \
		"-fsanitize=fuzzer,address,undefined: is libclang-rt-dev installed?); see $build/probe.log"
	exit 0
fi
rm -f "$probe"

echo "fuzz: building with $cc into $build"
goals=""
for t in $targets; do goals="$goals $build/$t"; done
# shellcheck disable=SC2086
if ! make -s -C "$here" BUILD="$build" CC="$cc" -j2 $goals >"$build/make.log" 2>&1; then
	cat "$build/make.log"
	echo "fuzz: FAILED: the targets do not build"
	exit 1
fi

# The working corpus of target $1: committed seeds and fitting recordings from tests/.
prepare_corpus() {
	local t=$1 dir=$build/corpus/$1 f
	mkdir -p "$dir"
	[ -d "$here/corpus/$t" ] && cp -n "$here/corpus/$t"/* "$dir"/ 2>/dev/null
	case $t in
	fuzz_profile)
		cp -n "$fixtures/profile-fib.json" "$fixtures/profile-graph.json" "$dir"/ ;;
	fuzz_heapprof)
		cp -n "$fixtures"/heap-sampling-*.json "$dir"/ ;;
	fuzz_requests)
		# the two readings of the recorded reply, each as the evaluation's value
		if [ ! -e "$dir/fixture-second.json" ] && command -v node >/dev/null; then
			node -e 'const r = require(process.argv[1]);
				for (const k of ["first", "second"])
					require("fs").writeFileSync(process.argv[2] + "/fixture-" + k + ".json",
						JSON.stringify(r[k]));' "$fixtures/requests/reply.json" "$dir"
		fi ;;
	fuzz_sourcemap)
		# tsc's and esbuild's maps, the index map, and the scripts that end in a comment
		for f in "$fixtures"/sourcemap/*/*.map "$fixtures"/sourcemap/*/*.js; do
			cp -n "$f" "$dir/$(echo "${f#"$fixtures"/sourcemap/}" | tr / -)"
		done ;;
	fuzz_procfs)
		for f in "$fixtures"/proc/*; do
			case ${f##*/} in record.sh|meta.txt) ;; *) cp -n "$f" "$dir/" ;; esac
		done ;;
	fuzz_envelope)
		# the recorded profiles as the replies that carry them (ids the harness waits for)
		[ -e "$dir/fixture-profile-reply.json" ] || {
			printf '{"id":2,"result":{"profile":'
			cat "$fixtures/profile-fib.json"
			printf '}}'
		} >"$dir/fixture-profile-reply.json"
		[ -e "$dir/fixture-sampling-reply.json" ] || {
			printf '{"id":3,"result":{"profile":'
			cat "$fixtures/heap-sampling-1.json"
			printf '}}'
		} >"$dir/fixture-sampling-reply.json" ;;
	esac
}

# Runs target $1; its libFuzzer output goes to BUILD/logs/TARGET.log.
run_one() {
	local t=$1 art=$build/artifacts/$1 log=$build/logs/$1.log
	mkdir -p "$art" "$build/logs"
	rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-* "$art"/slow-unit-*
	prepare_corpus "$t"
	# shellcheck disable=SC2086
	"$build/$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
		-dict="$here/$t.dict" -artifact_prefix="$art/" -print_final_stats=1 \
		${FUZZ_ARGS:-} "$build/corpus/$t" >"$log" 2>&1
	echo $? >"$build/logs/$t.rc"
}

echo "fuzz: running $(echo $targets | wc -w) target(s) for ${secs}s each, $jobs at a time"
running=0
for t in $targets; do
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

failed=0
printf '%-15s %-6s %12s %9s %7s %7s %7s\n' target result executions exec/s cov ft corpus
for t in $targets; do
	log=$build/logs/$t.log art=$build/artifacts/$t
	rc=$(cat "$build/logs/$t.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')
	found=$(ls "$art" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' | head -n 1)
	result=ok
	if [ "$rc" != 0 ] || [ -n "$found" ]; then
		result=FAILED
		failed=$((failed + 1))
	fi
	printf '%-15s %-6s %12s %9s %7s %7s %7s\n' "$t" "$result" "${execs:-?}" "${speed:-?}" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}"
done
for t in $targets; do
	log=$build/logs/$t.log art=$build/artifacts/$t
	rc=$(cat "$build/logs/$t.rc" 2>/dev/null || echo 1)
	found=$(ls "$art" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' | head -n 1)
	if [ "$rc" != 0 ] || [ -n "$found" ]; then
		echo "--- $t (exit $rc): last lines of $log"
		grep -v -E '^#[0-9]+ ' "$log" | tail -n 40
		[ -n "$found" ] && echo "--- input: $art/$found (reproduce: $build/$t $art/$found)"
	fi
done
if [ "$failed" -gt 0 ]; then
	echo "fuzz: FAILED: $failed target(s) found a problem"
	exit 1
fi
echo "fuzz: $(echo $targets | wc -w) target(s) ran ${secs}s each with no crash"
exit 0
