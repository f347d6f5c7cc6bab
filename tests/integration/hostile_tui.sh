#!/bin/bash
# The live view against an inspector (tests/impostor.js, scenario "escapes") whose function
# names, URLs, target title and heap space names carry terminal escape sequences (OSC window
# title, clear screen, 8-bit CSI, DCS, bell, backspace, CR/LF, bidi override) and lone
# surrogates: they are drawn as '?', never sent to the terminal, the window title stays, and
# q restores the terminal.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

# A new server started while the last one is still exiting can fail ("server exited
# unexpectedly"): wait until it is gone.
tmux_stop() {
	local server
	server=$(tmx display -p '#{pid}' 2>/dev/null)
	tmx kill-server 2>/dev/null
	[ -z "$server" ] || wait_for 5 dead "$server"
}

"$NODE" "$top_srcdir/tests/impostor.js" escapes >"$WORK/imp.out" 2>"$WORK/imp.err" &
imp=$!
wait_for 10 grep -qx '[0-9]\+' "$WORK/imp.out" || diag "the impostor did not start: $(cat "$WORK/imp.err")"
port=$(head -n 1 "$WORK/imp.out")

# ntop-js starts a moment late, so that everything it writes to the terminal is recorded.
term_start 160 40 "sleep 1; $NTOP_JS --port $port -d 0.5 --timeout 2 --no-config 2>$WORK/err.log; \
echo EXIT=\$?; stty -a | tr ' ' '\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 60"
tmx pipe-pane -t t -o "cat >>$WORK/raw.bin"
title0=$(tmx display -p -t t '#{pane_title}')

check "the table is drawn" wait_screen 10 '[0-9]%.*\?\?31mcsi8bit'
check "OSC (window title) is drawn as '?'" screen_has '\?\]0;pwned\?osc'
check "CSI 2J (clear screen) is drawn as '?'" screen_has '\?\[2Jclear'
check "8-bit CSI is drawn as '?'" screen_has '\?\?31mcsi8bit'
check "DCS is drawn as '?'" screen_has '\?Pdcs\?\\'
check "bell, backspace, CR and LF are drawn as '?'" screen_has '\?bell\?bs\?\?crlf'
check "the title from /json/list is drawn cleaned" screen_has '\?\]0;pwned\?osc \?\[2Jclear'
title=$(tmx display -p -t t '#{pane_title}')
ok $([ "$title" = "$title0" ] && [ "${title#*pwned}" = "$title" ]; echo $?) \
	"the window title was not changed (was '$title0', is '$title')"

keys Enter
check "Enter opens the detail of the first row" wait_screen 5 '^FUNCTION '
check "the detail draws the name cleaned" screen_has '^FUNCTION .*\?'
keys Escape
check "Esc goes back to the table" wait_screen 5 'csi8bit'
keys m
check "m opens the memory screen" wait_screen 5 '^MEMORY'
check "its heap spaces table draws the space name cleaned" wait_screen 15 '\?\]0;pwned\?oscspace'
keys m
sleep 0.5

keys q
check "q quits with status 0" wait_screen 10 '^EXIT=0'
check "the terminal is back in cooked mode with echo" wait_screen 5 '^icanon echo'
check "nothing was written to stderr" test ! -s "$WORK/err.log"
[ -s "$WORK/err.log" ] && diag "$(cat "$WORK/err.log")"

# What ntop-js wrote to the terminal, byte for byte.
check "the terminal output was recorded" test -s "$WORK/raw.bin"
ok $(! LC_ALL=C grep -qaF $'\e]0;pwned' "$WORK/raw.bin"; echo $?) "no OSC from the target reached the terminal"
ok $(! LC_ALL=C grep -qaF $'\e[2Jclear' "$WORK/raw.bin"; echo $?) "no clear-screen from the target reached it"
ok $(! LC_ALL=C grep -qaP '\xc2[\x80-\x9f]' "$WORK/raw.bin"; echo $?) "no C1 control reached it"
ok $(! LC_ALL=C grep -qaF $'\eP' "$WORK/raw.bin"; echo $?) "no DCS reached it"
ok $(! LC_ALL=C grep -qaF $'\a' "$WORK/raw.bin"; echo $?) "no bell reached it"
tmux_stop
kill "$imp" 2>/dev/null
wait "$imp" 2>/dev/null

# A peer that fails the session: the live view stays, says why, and q restores the terminal
# and exits with the documented status.
for c in 'bad-profile-cycle|11|invalid profiles in a row' 'never-reply|9|did not answer the heap reading' \
	'upgrade-silent|9|did not open its websocket'; do
	IFS='|' read -r scenario want msg <<<"$c"
	"$NODE" "$top_srcdir/tests/impostor.js" "$scenario" >"$WORK/$scenario.imp" 2>/dev/null &
	imp=$!
	wait_for 10 grep -qx '[0-9]\+' "$WORK/$scenario.imp"
	port=$(head -n 1 "$WORK/$scenario.imp")
	term_start 200 30 "$NTOP_JS --port $port -d 0.3 --timeout 2 --no-config 2>$WORK/$scenario.err; \
echo EXIT=\$?; stty -a | tr ' ' '\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 60"
	check "$scenario: the live view says why the session ended" wait_screen 10 "$msg"
	check "$scenario: and that q quits" screen_has 'Press q to quit'
	keys q
	check "$scenario: q quits with status $want" wait_screen 10 "^EXIT=$want"
	check "$scenario: the terminal is back in cooked mode with echo" wait_screen 5 '^icanon echo'
	tmux_stop
	kill "$imp" 2>/dev/null
	wait "$imp" 2>/dev/null
done

# The terminal goes away while the peer stalls: ntop-js must not spin on the dead terminal
# while it waits (bounded by --timeout) to leave.
"$NODE" "$top_srcdir/tests/impostor.js" never-reply >"$WORK/gone.imp" 2>/dev/null &
imp=$!
wait_for 10 grep -qx '[0-9]\+' "$WORK/gone.imp"
port=$(head -n 1 "$WORK/gone.imp")
term_start 120 30 "$NTOP_JS --port $port -d 0.3 --timeout 8 --no-config 2>/dev/null; sleep 60"
wait_for 10 grep -qx 'call Profiler.setSamplingInterval' "$WORK/gone.imp"
npid=$(pgrep -x -P "$(tmx display -p -t t '#{pane_pid}')" ntop-js)
tmux_stop
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
t0=$(cpu_ticks "$npid")
sleep 2
t1=$(cpu_ticks "$npid")
ok $([ -n "$npid" ] && [ $((t1 - t0)) -lt 40 ]; echo $?) \
	"terminal gone: ntop-js does not spin while it leaves ($((t1 - t0)) ticks of CPU in 2 s)"
check "terminal gone: ntop-js ends within its timeout" wait_for 12 dead "$npid"
kill "$imp" 2>/dev/null
wait "$imp" 2>/dev/null
done_testing
