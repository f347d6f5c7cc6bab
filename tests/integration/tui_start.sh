#!/bin/bash
# Choosing the target in a terminal: with no target ntop-js lists the Node processes and
# attaches to the one picked; with a command after -- it starts the program, watches it, keeps
# its output off the screen, and ends it on quit.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

start_node target --inspect-port=0 "$TARGETS/hot.js"
wait_ready target
term_start 200 50 "$NTOP_JS --no-config -d 0.5 2>$WORK/err.log; echo EXIT=\$?; sleep 60"
check "the picker lists the running node" wait_screen 10 "^ *$target_PID .*hot\.js"
check "with its signal state" screen_has "^ *$target_PID +[^ ]+ +- +yes "
# Move the selection down to the target's row and pick it.
row=$(screen | grep -E '^ *[0-9]+ ' | grep -nE "^ *$target_PID " | cut -d: -f1)
for _ in $(seq 2 "$row"); do keys Down; done
keys Enter
check "Enter attaches to the picked process" wait_screen 10 "PID $target_PID "
check "and shows its hot functions" wait_screen 10 'hotMain'
keys q
check "q quits with status 0" wait_screen 10 '^EXIT=0'
check "the picked target is still running" alive "$target_PID"
term_stop

# (--inspect-port=0: the inspector that ntop-js opens by signal takes a free port, not 9229)
term_start 200 50 "$NTOP_JS --no-config -d 0.5 -- $NODE --inspect-port=0 $TARGETS/hot.js \
launched-by-test 2>$WORK/err2.log; echo EXIT=\$?; sleep 60"
check "a command after -- is started and watched" wait_screen 15 'hotMain'
check "the status line names the program's log" screen_has 'its output goes to .*\.log'
log=$(screen | sed -n 's/.*its output goes to \([^ ]*\.log\).*/\1/p' | head -1)
check "the program's own output went to that log, not the screen" grep -q ready "$log"
ok $(screen | grep -q '^ready'; [ $? -ne 0 ]; echo $?) "nothing of the program's output on the screen"
launched=$(awk '/ready/ {print $2}' "$log" | head -1)
check "the program is running" alive "$launched"
keys q
check "q quits with status 0" wait_screen 10 '^EXIT=0'
check "and ends the program" wait_for 5 dead "$launched"
rm -f "$log"
term_stop
done_testing
