#!/bin/bash
# The live view in a real terminal (tmux): hot functions appear, help, sort, pause, search,
# drill-down and back, save, resize, quit with status 0 and the terminal restored, Ctrl-C
# the same.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

start_node target --inspect-port=0 "$TARGETS/hot.js"
wait_ready target
mkdir -p "$WORK/saves"
# The shell around ntop-js reports its status and whether the terminal is back in cooked
# mode (icanon, echo) after it exits.
term_start 120 40 "$NTOP_JS --pid $target_PID -d 0.5 --no-config --save-dir $WORK/saves 2>$WORK/err.log; \
echo EXIT=\$?; stty -a | tr ' ' '\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 60"

# The location column narrows when a long name is sampled: the path may start with an ellipsis.
check "hot functions appear" wait_screen 20 'hotMain +[^ ]*hot\.js:7'
check "the header names the target" screen_has "PID $target_PID +node v[0-9]"
check "the CPU split is shown" screen_has 'JS [0-9.]+% +GC [0-9.]+% +program [0-9.]+% +idle'
check "every column says its window and unit" screen_has 'SELF%\(0\.5s\) +TOTAL%\(0\.5s\) +SELF\(tot\) +TOTAL\(tot\)'
check "the key bar is shown" screen_has '^q quit +\? help'
first=$(screen | grep -nE '^ +[0-9.]+%' | head -1)
case $first in *hotMain*) ok 0 "hotMain is the first row";; *) ok 1 "hotMain is the first row: $first";; esac

keys '?'
check "? opens help, which explains the columns" wait_screen 5 'COLUMNS'
check "help explains the cumulative column" screen_has 'SELF\(tot\) +time in the function'
keys Escape
check "Esc leaves help" wait_screen 5 'hotMain'

keys 5
check "5 sorts by function name, highlighted with an arrow" wait_screen 5 '[▲▼^v]FUNCTION'
rows=$(screen | grep -E '^ +[0-9.]+%' | awk '{print $5}' | grep -v '^(' | head -5)
sorted=$(printf '%s\n' "$rows" | LC_ALL=C sort)
ok $([ "$rows" = "$sorted" ] || [ "$rows" = "$(printf '%s\n' "$rows" | LC_ALL=C sort -r)" ]; echo $?) \
	"rows are in name order"
keys 1

keys p
check "p pauses the display" wait_screen 5 'PAUSED'
a=$(screen | grep -E 'hotMain')
sleep 1.2
b=$(screen | grep -E 'hotMain')
ok $([ "$a" = "$b" ]; echo $?) "paused rows do not change"
keys p
sleep 1.2
c=$(screen | grep -E 'hotMain')
ok $([ "$b" != "$c" ]; echo $?) "unpaused rows move again"

keys / h o t S i d e Enter
sleep 0.3
keys Enter
check "search then Enter opens the found function's detail" wait_screen 5 'FUNCTION hotSide'
check "the detail lists its caller" screen_has '^CALLERS'
check "tick is the caller" wait_screen 3 '[0-9.]+% +[0-9.]+m?s tick'
check "hot lines are listed" screen_has '^HOT LINES'
keys Escape
check "Esc goes back to the table" wait_screen 5 'SELF%\(0\.5s\)'

keys s
check "s saves and names the files" wait_screen 5 'saved .*ntop-js-'"$target_PID"'-.*-\{all,window\}\.cpuprofile'
check "the saved profile is valid" wait_for 3 "$NODE" "$top_srcdir/tests/check-cpuprofile.js" \
	"$(ls "$WORK"/saves/*-all.cpuprofile | head -1)"
check "the last window was saved too" test -s "$(ls "$WORK"/saves/*-window.cpuprofile | head -1)"
check "folded stacks were saved" test -s "$(ls "$WORK"/saves/*-all.folded | head -1)"

kill -USR2 "$(pgrep -x -P "$(tmx display -p -t t '#{pane_pid}')" ntop-js)"
diag "pane $(tmx display -p -t t '#{pane_pid}'): $(ps -o pid,ppid,comm --ppid "$(tmx display -p -t t '#{pane_pid}')" | tr '\n' ' ')"
check "SIGUSR2 saves without stopping" wait_for 5 test "$(ls "$WORK"/saves/*-all.cpuprofile | wc -l)" -ge 2

tmx resize-window -t t -x 80 -y 24
check "after a resize to 80x24 the table is still drawn" wait_screen 5 'hotMain'
sleep 0.7
check "the key bar fits the narrower screen" screen_has '^q quit'
long=$(screen | LC_ALL=C.UTF-8 grep -cE '^.{81,}')
ok $([ "$long" -eq 0 ]; echo $?) "no line is wider than 80 columns"
tmx resize-window -t t -x 200 -y 50
check "a wide terminal shows the whole location" wait_screen 5 'hotMain +/.*tests/targets/hot\.js:7'

port=$(inspector_port_of target)
keys q
check "q quits with status 0" wait_screen 10 '^EXIT=0'
check "the terminal is back in cooked mode with echo" wait_screen 5 '^icanon echo'
check "nothing was written to stderr" test ! -s "$WORK/err.log"
check "the inspector was closed" wait_for 5 port_closed "$port"
check "the target is still running" alive "$target_PID"

term_stop
term_start 100 30 "$NTOP_JS --pid $target_PID -d 0.5 --no-config 2>$WORK/err2.log; echo EXIT=\$?; sleep 60"
check "a second session attaches again" wait_screen 10 'hotMain'
diag "$(screen | head -5; cat "$WORK/err2.log")"
keys C-c
check "Ctrl-C quits with status 0" wait_screen 10 '^EXIT=0'
check "the target is still running after Ctrl-C" alive "$target_PID"
term_stop
done_testing
