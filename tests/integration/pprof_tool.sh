#!/bin/bash
# What ntop-js writes for other tools, read by those tools: go tool pprof reads the pprof files
# made from the recordings in tests/fixtures and from a real session's -o x.pb.gz, and promtool
# checks the Prometheus exposition. Installs nothing: without go or promtool their checks skip
# (./quickstart.sh test installs golang-go and prometheus).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
builddir=${top_builddir:-$(dirname "$NTOP_JS")}
GO=${GO:-go}
PROMTOOL=${PROMTOOL:-promtool}
[ -x "$builddir/tests/unit/test_pprof" ] && [ -x "$builddir/tests/unit/test_promtext" ] ||
	skip_all "tests/unit/test_pprof and test_promtext are not built"
# go wants a home for its caches even to run a tool
export HOME=${HOME:-$WORK}

# first_row FILE ARGS...: the function of go tool pprof -top's first row
first_row() {
	local f=$1
	shift
	"$GO" tool pprof -top "$@" "$f" 2>/dev/null |
		awk 'seen { for (i = 6; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "\n"); exit }
			/flat%/ { seen = 1 }'
}

# raw_samples FILE: the sum of the sample counts go tool pprof -raw lists
raw_samples() {
	"$GO" tool pprof -raw "$1" 2>/dev/null |
		awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
			s && $2 ~ /:$/ { n += $1 } END { print n + 0 }'
}

"$builddir/tests/unit/test_pprof" --write "$WORK" >"$WORK/write.out" 2>&1
ok $? "pprof files written from the fixtures"

if ! command -v "$GO" >/dev/null 2>&1; then
	skip "go tool pprof reads the files" "go not found (Debian: golang-go)"
else
	while IFS=$'\t' read -r file hot samples; do
		got=$(first_row "$WORK/$file")
		ok "$([ "$got" = "$hot" ]; echo $?)" "$file: go tool pprof -top lists $hot first"
		[ "$got" = "$hot" ] || diag "$("$GO" tool pprof -top "$WORK/$file" 2>&1 | head -12)"
		got=$(raw_samples "$WORK/$file")
		ok "$([ "$got" = "$samples" ]; echo $?)" "$file: -raw lists $samples samples ($got)"
		got=$("$GO" tool pprof -top -sample_index=samples "$WORK/$file" 2>/dev/null |
			sed -n 's/.* of \([0-9]*\) total.*/\1/p')
		ok "$([ "$got" = "$samples" ]; echo $?)" "$file: -sample_index=samples totals $samples ($got)"
	done <"$WORK/expect"
	check "the heap profile reads as inuse_space" \
		sh -c "'$GO' tool pprof -top '$WORK/heap.pb.gz' 2>&1 | grep -q '^Type: inuse_space'"
	got=$(first_row "$WORK/heap.pb.gz")
	ok "$([ "$got" = leakyCache ]; echo $?)" "the heap profile's biggest holder is leakyCache ($got)"
	got=$(first_row "$WORK/heap.pb.gz" -sample_index=inuse_objects)
	ok "$([ "$got" = leakyCache ]; echo $?)" "... and it holds the most sampled objects ($got)"

	# a real session
	if command -v "$NODE" >/dev/null 2>&1 && [ -x "$NTOP_JS" ]; then
		start_node target --inspect-port=0 "$TARGETS/hot.js"
		wait_ready target
		"$NTOP_JS" --pid "$target_PID" -b -n 3 -d 0.5 -o "$WORK/live.pb.gz" \
			>/dev/null 2>"$WORK/ntop.err"
		ok $? "ntop-js -o live.pb.gz ran 3 windows"
		got=$(first_row "$WORK/live.pb.gz")
		ok "$([ "$got" = hotMain ]; echo $?)" "a real session: go tool pprof lists hotMain first ($got)"
		[ "$got" = hotMain ] || diag "$("$GO" tool pprof -top "$WORK/live.pb.gz" 2>&1 | head -12)"
	else
		skip "a real session read by go tool pprof" "node or ntop-js not found"
	fi
fi

if ! command -v "$PROMTOOL" >/dev/null 2>&1; then
	skip "promtool accepts the exposition" "promtool not found (Debian: prometheus)"
else
	"$builddir/tests/unit/test_promtext" --write "$WORK/metrics.txt"
	ok $? "the exposition written"
	"$PROMTOOL" check metrics <"$WORK/metrics.txt" >"$WORK/promtool.out" 2>&1
	ok $? "promtool check metrics accepts it, lint included"
	[ -s "$WORK/promtool.out" ] && diag "$(cat "$WORK/promtool.out")"
	# the same checker refuses what is broken, so that its yes means something
	printf '# TYPE x gauge\nx{a="b"c"} 1\n' >"$WORK/bad.txt"
	! "$PROMTOOL" check metrics <"$WORK/bad.txt" >/dev/null 2>&1
	ok $? "promtool refuses an unescaped quote"
fi
done_testing
