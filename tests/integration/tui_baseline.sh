#!/bin/bash
# The live view's baseline (b), in a real terminal under tmux: a target burns its CPU in
# slowPath until a file appears, then in fastPath (tests/targets/shift.js). b pins the profile
# so far; the table gains each function's change beside SELF% and TOTAL%: after the shift
# fastPath gains and slowPath, now idle, keeps a row with its loss; 7 sorts by the change;
# b again drops the baseline and its columns. Then --baseline FILE: a profile saved before the
# shift is the baseline from the first window, its slowPath (which the new session never runs)
# a row with its loss; b drops it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

utf8=$(locale -a 2>/dev/null | grep -iE '^(C|en_US)\.utf-?8$' | head -n 1)
utf8=${utf8:-C.UTF-8}
start_node target --inspect-port=0 "$TARGETS/shift.js" "$WORK/shifted"
wait_ready target
# the "before a deploy" profile, for --baseline below
"$NTOP_JS" --pid "$target_PID" -b -n 2 -d 1 -o "$WORK/before.cpuprofile" >/dev/null 2>"$WORK/save.err"
ok $? "a profile saved before the shift ($(cat "$WORK/save.err"))"
term_start 140 40 "LANG=$utf8 $NTOP_JS --pid $target_PID --no-config -d 1 --mode window 2>$WORK/err.log; \
echo EXIT=\$?; sleep 60"
check "slowPath on top before the shift" wait_screen 20 '^ +[0-9.]+% +[0-9.]+% .* slowPath '
keys 7
check "7 sorts nothing without a baseline" eval '! screen_has "ΔSELF"'
keys b
check "b pins the profile: the status says so" wait_screen 5 'baseline pinned \([0-9.]+ s of busy CPU\)'
check "the changes' columns beside the shares" screen_has 'TOTAL%\(1s\) +ΔSELF +ΔTOTAL +SELF\(tot\)'
touch "$WORK/shifted"
gained() { screen | grep -qE '^ +[0-9.]+% +[0-9.]+% +\+[0-9]{2}\.[0-9] +\+[0-9]{2}\.[0-9] .* fastPath '; }
check "after the shift fastPath gains tens of points" wait_for 15 gained
lost() { screen | grep -qE '^ +0\.0% +0\.0% +-[0-9]{2}\.[0-9] +-[0-9]{2}\.[0-9] .* slowPath '; }
check "and slowPath, idle now, keeps a row with its loss" wait_for 10 lost
diag "$(screen | sed -n 1,12p)"
keys 7
first=$(screen | grep -E '^ +[0-9.]+% +[0-9.]+% +[-+0-9]' | head -n 1)
case $first in *fastPath*) ok 0 "7: the largest gain first";; *) ok 1 "7: the largest gain first: $first";; esac
check "its heading marked" screen_has '[▼▲]ΔSELF'
keys b
check "b again drops it" wait_screen 5 'baseline dropped'
check "and its columns" eval '! screen_has "ΔSELF"'
check "the sort back on SELF%" screen_has '[▼▲]SELF%\(1s\)'
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/err.log"
term_stop

# --baseline FILE: the live view compares with the saved profile from the start
term_start 140 40 "LANG=$utf8 $NTOP_JS --pid $target_PID --no-config -d 1 --mode window \
--baseline $WORK/before.cpuprofile 2>$WORK/err2.log; echo EXIT=\$?; sleep 60"
check "the status names the file it compares with" wait_screen 20 \
	'compared with .*before\.cpuprofile \([0-9.]+ s of busy CPU\)'
check "the changes' columns from the start" wait_screen 10 'TOTAL%\(1s\) +ΔSELF +ΔTOTAL'
check "fastPath gains tens of points against the file" wait_for 15 gained
check "slowPath, never run in this session, has a row with its loss" wait_for 10 lost
diag "$(screen | sed -n 1,12p)"
keys b
check "b drops it" wait_screen 5 'baseline dropped'
check "and its columns" eval '! screen_has "ΔSELF"'
keys b
check "b again pins this session's own profile, not the file" wait_screen 5 'baseline pinned'
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/err2.log"
term_stop
done_testing
