#!/bin/bash
# The event-loop screen in a real terminal: a target whose blockHere() holds its loop for
# 300 ms every 2 s (tests/targets/loop.js block). The header's LOOP line counts the blocks,
# l charts the loop over time (the memory screen's zoom keys) and lists the blocks with their
# function, Enter shows the stack, Esc closes it and goes back.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

# the first three frames of the stack shown, innermost first
stack_is() { [ "$(screen | grep -A3 '^Stack of the block' | sed -n '2,4p' | awk '{print $1}' |
	tr '\n' ' ')" = "$1" ]; }
no_stack() { ! screen_has '^Stack of the block'; }

start_node block --inspect-port=0 "$TARGETS/loop.js" block
wait_ready block
term_start 160 40 "$NTOP_JS --pid $block_PID --no-config -d 1 2>$WORK/err.log; echo EXIT=\$?; sleep 60"
check "the LOOP line counts the blocks" wait_screen 20 '^LOOP .*max [0-9.]+m?s +[0-9]+ blocks? \(l\)'
keys l
check "l opens the event-loop screen" wait_screen 5 '^EVENT LOOP  zoom 5 min'
check "with its charts: busy, then lag" wait_screen 5 '^ +100%│'
check "lag's axis tops over the 300 ms blocks" wait_screen 10 '^ +(500|1000)ms│'
check "the legend names the lines" wait_screen 5 'busy \(top\) .*lag p99 .*lag max'
# the blocks' delays: dots in the lag chart's plot above its bottom row (where the loop's
# usual delay of a few ms is), the rows between its top label and its x axis
lag_rows() { screen | awk '/^ +(500|1000)ms│/{on=1} on&&/^ +0└/{exit} on' | tail -n +2 | head -n -1; }
spikes() { lag_rows | sed 's/^[^│]*│//' | grep -q '[^ ]'; }
check "a block rises above the floor of the lag chart" wait_for 10 spikes
check "and the list of blocks under the charts" wait_screen 5 '^Blocks of 100 ms or more, newest first'
keys 2
check "2 zooms the charts out to an hour" wait_screen 5 '^EVENT LOOP  zoom 1 h'
keys 1
check "which lists the blocks with how long they held the loop and their function" \
	wait_screen 5 '^[0-9:]+ +(2[4-9][0-9]|3[0-5][0-9]) ms +[0-9]+% +spin .*loop\.js:9'
keys Enter
check "Enter shows the stack of the selected block" wait_screen 5 '^Stack of the block at [0-9:]+ \([0-9]+ ms'
check "innermost first: spin, then blockHere, then the timers" stack_is 'spin blockHere listOnTimeout '
keys Escape
check "Esc closes the stack" wait_for 5 no_stack
keys Escape
check "a second Esc goes back to the table" wait_screen 5 'blockHere +[^ ]*loop\.js:15'
keys q
check "q quits with status 0" wait_screen 10 '^EXIT=0'
check "nothing on ntop-js's stderr" test ! -s "$WORK/err.log"
check "the target is still running" alive "$block_PID"
term_stop
done_testing
