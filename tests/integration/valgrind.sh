#!/bin/bash
# ntop-js under valgrind: no invalid access, no uninitialised value, nothing definitely or
# indirectly lost, in real sessions: batch mode with memory readings, --alloc, --log, -o and
# --folded ended by SIGINT; a target that exits during the session; the live view with the
# memory screen. The check build uses AddressSanitizer, which cannot run under valgrind, so
# this test configures and builds a plain ntop-js once, in $top_builddir/valgrind-build.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind not found (Debian package valgrind)"
[ -n "${top_builddir:-}" ] || skip_all "top_builddir not set: run through make check"
# configure refuses a second build of a source tree that is configured in place.
[ -f "$top_srcdir/config.status" ] && skip_all "the source tree is configured in place"

vgdir=${NTOP_VALGRIND_BUILD:-$top_builddir/valgrind-build}
mkdir -p "$vgdir" || skip_all "cannot create $vgdir"
# One builder at a time; the build's own make rules decide what is out of date.
(
	command -v flock >/dev/null 2>&1 && { flock -w 600 9 || exit 1; }
	cd "$vgdir" || exit 1
	unset MAKEFLAGS MFLAGS MAKELEVEL
	if [ ! -f config.status ]; then
		"$top_srcdir/configure" -q CFLAGS="-g -O1" || { rm -f config.status; exit 1; }
	fi
	make -j2 ntop-js
) 9>"$vgdir.lock" >"$WORK/build.log" 2>&1
ok $? "a plain (sanitizer-free) ntop-js is built in $vgdir"
VG_NTOP=$vgdir/ntop-js
if [ ! -x "$VG_NTOP" ]; then
	diag "$(tail -n 20 "$WORK/build.log")"
	done_testing
	exit 0
fi

# A plain command, not a function: a function run with & would be a subshell, and the
# SIGINT meant for ntop-js would reach that shell instead.
vg_cmd="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --track-origins=yes"

# valgrind_clean NAME WHAT: the assertions on one report.
valgrind_clean() {
	local f=$WORK/$1.vg
	check "$2: valgrind reports 0 errors" grep -q 'ERROR SUMMARY: 0 errors' "$f"
	check "$2: definitely lost: 0 (and indirectly lost: 0)" grep -qE \
		'definitely lost: 0 bytes|All heap blocks were freed -- no leaks are possible' "$f"
	check "$2: nothing indirectly lost" sh -c "! grep -qE 'indirectly lost: [1-9]' '$f'"
	check "$2: no invalid read, write or free, no uninitialised value" sh -c \
		"! grep -qE 'Invalid (read|write|free)|uninitialised|Mismatched free|overlap' '$f'"
	grep -qE 'ERROR SUMMARY: 0 errors' "$f" || diag "$(grep -vE '^==[0-9]+== *$' "$f" | head -n 60)"
	diag "$1: $(grep -E 'total heap usage|(definitely|indirectly|possibly) lost: |still reachable: ' "$f" | sed 's/^==[0-9]*== *//' | tr '\n' ';')"
}

# 1. Batch mode with everything that allocates: memory readings, allocation sampling, the
# log, the exports at exit; ended by SIGINT once an allocation profile was reported.
start_node leak --inspect-port=0 "$TARGETS/leak.js" 300000
wait_ready leak
$vg_cmd --log-file="$WORK/batch.vg" "$VG_NTOP" --pid "$leak_PID" -b --json -d 0.3 --mem-interval 0.1 --alloc \
	--alloc-interval 5 --log "$WORK/run.log" -o "$WORK/out.cpuprofile" \
	--folded "$WORK/out.folded" -t 5 >"$WORK/batch.jsonl" 2>"$WORK/batch.err" &
vg=$!
pids_to_kill="$pids_to_kill $vg"
check "the session reports an allocation profile" wait_for 40 grep -q '"alloc":\[{' "$WORK/batch.jsonl"
kill -INT $vg
wait_for 60 dead $vg || { diag "still running 60 s after SIGINT"; kill -9 $vg; }
wait $vg
rc=$?
ok $rc "SIGINT ends the session under valgrind with status 0 (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/batch.err")"
valgrind_clean batch "batch session"
check "the windows had memory readings" jsonl_check "$WORK/batch.jsonl" \
	'l => (l.length >= 5 && l.every(w => w.mem && w.mem.heap_used_bytes > 0)) || l.length'
check "the log has mem and window records" sh -c "grep -q '\"type\":\"mem\"' '$WORK/run.log' && grep -q '\"type\":\"window\"' '$WORK/run.log'"
check "the .cpuprofile was written at exit" "$NODE" "$top_srcdir/tests/check-cpuprofile.js" "$WORK/out.cpuprofile"
check "the folded stacks were written at exit" test -s "$WORK/out.folded"
check "the inspector was closed" wait_for 5 port_closed "$(inspector_port_of leak)"

# 2. The target exits during the session: the error path frees everything too.
start_node exits --inspect-port=0 "$TARGETS/idle.js" 4000
wait_ready exits
$vg_cmd --log-file="$WORK/exits.vg" "$VG_NTOP" --pid "$exits_PID" -b --json -d 0.3 --mem-interval 0.1 \
	>"$WORK/exits.jsonl" 2>"$WORK/exits.err"
rc=$?
ok "$([ $rc -eq 10 ]; echo $?)" "a target that exits ends the session with status 10 (status $rc)"
[ $rc -eq 10 ] || diag "$(cat "$WORK/exits.err")"
valgrind_clean exits "target exits"

# 3. The live view, its memory screen with allocation sampling, and q.
if command -v "$TMUX_BIN" >/dev/null 2>&1; then
	require_tmux
	term_start 160 45 "$vg_cmd --log-file=$WORK/tui.vg $VG_NTOP --pid $leak_PID -d 0.3 --no-config --alloc --alloc-interval 5 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
	check "the live view runs under valgrind" wait_screen 30 '^MEM rss [0-9.]+[KMG]'
	keys m
	check "the memory screen shows the allocation sites" wait_screen 40 '^ +[0-9.]+[KMG] leakyCache '
	keys q
	check "q quits with status 0" wait_screen 30 '^EXIT=0'
	screen_has '^EXIT=0' || diag "$(screen | grep EXIT; cat "$WORK/tui.err")"
	valgrind_clean tui "live view"
else
	echo "ok $((tap_n += 1)) - live view under valgrind # SKIP tmux not found"
fi
check "the target is still running" alive "$leak_PID"
done_testing
