#!/bin/sh
# quickstart.sh: set up, build and run ntop-js on a Debian or Ubuntu machine.
#
#   ./quickstart.sh          install what is missing, build, and watch the bundled example app
#   ./quickstart.sh test     the same set-up, then build with -Werror and the sanitizers, run
#                            every test tier (make check-all) and make distcheck; ends with
#                            "N passed, N failed"
#
# Packages are installed with apt-get when run as root, or through sudo; the tests fetch
# pinned npm packages and Node versions into ~/.cache/ntop-js. Builds go to build/demo and
# build/check, outside the source tree.
set -eu

mode=${1:-demo}
case $mode in
demo|test) ;;
*) echo "usage: ./quickstart.sh [test]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

packages="build-essential autoconf automake libtool pkg-config libncurses-dev
libwebsockets-dev libcjson-dev zlib1g-dev nodejs tmux"
# The tests also fuzz with clang's libFuzzer, run a session under valgrind, and fetch other
# Node versions with npm; go tool pprof and promtool read what ntop-js writes for them; the
# Debian package is built, checked by lintian, installed and removed.
if [ "$mode" = test ]; then
	packages="$packages clang libclang-rt-dev valgrind npm golang-go prometheus iproute2 util-linux
dpkg-dev debhelper lintian"
fi

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# Node and npm from another source (nvm, NodeSource, a tarball) are as good as Debian's.
if command -v node >/dev/null 2>&1; then
	missing=$(echo "$missing" | sed 's/ nodejs//')
fi
if command -v npm >/dev/null 2>&1; then
	missing=$(echo "$missing" | sed 's/ npm//')
fi
if [ -n "$missing" ]; then
	echo "quickstart: installing:$missing"
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "quickstart: please install these Debian packages as root:$missing" >&2
		exit 1
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi

if [ "$mode" = demo ]; then
	build=build/demo
	flags=""
else
	build=build/check
	flags="--enable-werror --enable-sanitizers"
fi
mkdir -p "$build"
if [ ! -f "$build/config.status" ]; then
	(cd "$build" && "$here/configure" $flags)
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -C "$build" -j"$jobs"

if [ "$mode" = demo ]; then
	out=$(mktemp)
	node --inspect-port=0 examples/busy-server.js >"$out" 2>&1 &
	app=$!
	trap 'kill $app 2>/dev/null; rm -f "$out"' EXIT INT TERM
	i=0
	until grep -q "pid" "$out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "quickstart: the example app did not start:" >&2; cat "$out" >&2; exit 1; }
		sleep 0.1
	done
	echo "quickstart: watching examples/busy-server.js (PID $app); press q or Ctrl-C to quit."
	"$build/ntop-js" --pid "$app" || true
	exit 0
fi

status=0
# Every tier: unit, short and long tests (make check-all).
make -C "$build" -j"$jobs" check-all || status=$?
# The release tarball builds and passes make check on its own (make distcheck); counted as
# one more result.
dist=PASS
if ! make -C "$build" -j"$jobs" distcheck >"$build/distcheck.log" 2>&1; then
	dist=FAIL
	tail -n 30 "$build/distcheck.log"
	# Every test has just passed or failed above, on this tree. One that fails in the
	# tarball's build because the tarball lacks a file fails again; one or two that failed
	# there by timing (two CPUs, tests side by side) are run once more, alone, and said so.
	sub=$(ls -d "$build"/ntop-js-*/_build/sub 2>/dev/null | head -n 1)
	failed=""
	[ -n "$sub" ] && failed=$(cd "$sub" && grep -lE '^:test-result: (FAIL|ERROR)' \
		tests/*/*.trs 2>/dev/null | sed 's/\.trs$//' | tr '\n' ' ')
	if [ -n "$failed" ] && [ "$(echo $failed | wc -w)" -le 2 ]; then
		for t in $failed; do
			echo "--- make distcheck: $t failed in the tarball's build; what it said:"
			grep -E '^(#|not ok)' "$sub/$t.log" 2>/dev/null | tail -n 40
		done
		echo "--- running $failed again, alone, in the tarball's build"
		if make -C "$sub" check TESTS="$failed" >"$build/distcheck-rerun.log" 2>&1; then
			dist=PASS
			echo "make distcheck: $failed passed when run again alone (log: $build/distcheck-rerun.log)"
		fi
	fi
	[ "$dist" = PASS ] || status=1
fi
echo "$dist: make distcheck (log: $build/distcheck.log)"
# What a failed test said of itself (its diagnostics and failed checks), here at the end where
# a shortened CI log still shows it.
# make distcheck leaves its tree behind when it fails: its tests' logs are read too.
for trs in "$build"/tests/*/*.trs "$build"/ntop-js-*/_build/sub/tests/*/*.trs; do
	[ -e "$trs" ] && grep -Eq '^:test-result: (FAIL|XPASS|ERROR)' "$trs" || continue
	log=${trs%.trs}.log
	echo "--- ${log#"$build"/}: its diagnostics and failed checks"
	grep -E '^(#|not ok)' "$log" 2>/dev/null | tail -n 60
done
# automake's summary is not read by CI: count every TAP result of every test log.
{ cat "$build"/tests/*/*.trs 2>/dev/null; echo ":test-result: $dist"; } | awk '
	/^:test-result: (PASS|XFAIL)/ { p++ }
	/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
	/^:test-result: SKIP/ { s++ }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
exit $status
