#!/bin/bash
# Incidents in the live view and in --replay, in a real terminal under tmux: a target whose CPU
# spikes in spikeHash (tests/targets/incidents.js) watched with --trigger cpu>60%: when an
# incident is written the table's title marks it (INCIDENTS 1 (I)), I lists it (when, the
# trigger, the value, the span, the hottest function), Enter opens it (what fired, the span,
# spikeHash on top, where its bundle is); the --log holds it with its top functions, and
# --replay of that log lists and opens the same incident. A log line with control characters
# in its names reaches the terminal made safe.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

utf8=$(locale -a 2>/dev/null | grep -iE '^(C|en_US)\.utf-?8$' | head -n 1)
utf8=${utf8:-C.UTF-8}
start_server spike 10 --inspect-port=0 "$TARGETS/incidents.js" spike 8000 4000
D=$WORK/incidents
term_start 200 45 "LANG=$utf8 $NTOP_JS --pid $spike_PID --no-config -d 1 --trigger 'cpu>60%' \
--incident-dir $D --keep 5 --after 2 --cooldown 5 --log $WORK/run.log 2>$WORK/err.log; \
echo EXIT=\$?; sleep 60"
check "the table starts" wait_screen 20 'SELF'
check "an incident written is marked in the table's title" wait_screen 40 'INCIDENTS [0-9]+ \(I\)'
diag "$(screen | head -n 3)"
keys I
check "I opens the incidents screen" wait_screen 5 '^INCIDENTS +[0-9]+'
check "it lists the incident: the trigger, its value, the span, the hottest function" \
	wait_screen 5 'cpu>60% +[0-9]+ % +-[0-9]+s \+[0-9]+s +spikeHash'
diag "$(screen | head -n 8)"
keys Enter
check "Enter opens it: what fired and when" wait_screen 5 'cpu>60% +fired at [0-9:]+, read [0-9]+ %'
check "the span its profile covers" screen_has 'its profile covers [0-9:]+ to [0-9:]+ \([0-9]+ s\)'
check "where its bundle is" screen_has "bundle: .*incident-[0-9T]+Z-$spike_PID-"
check "spikeHash first among its top functions, with its file and line" \
	screen_has_pcre '^ +[0-9.]+% +spikeHash +(/[^ ]*/)?incidents\.js:[0-9]+'
diag "$(screen | sed -n 1,20p)"
keys Escape
check "Esc closes it" wait_for 5 eval '! screen_has "fired at"'
check "and Esc again goes back to the table" eval 'keys Escape; wait_screen 5 SELF'
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/err.log"
term_stop
kill "$spike_PID" 2>/dev/null

check "the log holds the incident with its top functions, spikeHash first" \
	jsonl_check "$WORK/run.log" 'l => { const i = l.filter(r => r.type === "incident");
		return (i.length >= 1 && i[0].trigger === "cpu>60%" && i[0].unit === "%" && i[0].value > 60 &&
			i[0].top[0].function === "spikeHash" && /incidents\.js:\d+$/.test(i[0].top[0].where) &&
			i[0].dir.length > 0 && i[0].from < i[0].time && i[0].time < i[0].to) || i; }'

# a line written by hand: control characters in a function's name and the trigger
printf '%s\n' '{"type":"incident","time":1795900000,"name":"incident-x","dir":"/tmp/d\u001b[31m","trigger":"cpu>1%\u0007","unit":"%","value":99,"from":1795899990,"to":1795900002,"removed":0,"top":[{"function":"evil\u001b]0;owned\u0007","where":"x.js:1","self_pct":50}]}' >>"$WORK/run.log"
term_start 200 45 "LANG=$utf8 $NTOP_JS --replay $WORK/run.log --no-config 2>$WORK/replay.err; \
echo EXIT=\$?; sleep 60"
check "--replay opens the log" wait_screen 10 '^MEMORY +zoom'
check "its title marks the incidents too" screen_has 'REPLAY +INCIDENTS [0-9]+ \(I\)'
keys I
check "I lists the log's incidents, the newest first" wait_screen 5 'cpu>1%\? +99 % +-10s \+2s +evil\?\]0;owned\?'
check "and the live run's" screen_has 'cpu>60% +[0-9]+ % +-[0-9]+s \+[0-9]+s +spikeHash'
keys Down Enter
check "Enter opens the live run's from the replay: spikeHash on top" \
	wait_screen 5 '^ +[0-9.]+% +spikeHash +(/[^ ]*/)?incidents\.js:[0-9]+'
keys q
check "q leaves the replay with status 0" wait_screen 10 '^EXIT=0'
check "the replay said nothing on stderr" test ! -s "$WORK/replay.err"
term_stop

# a log of incidents and no memory reading opens on its incidents
grep '"type":"incident"' "$WORK/run.log" >"$WORK/incidents-only.log"
term_start 200 45 "LANG=$utf8 $NTOP_JS --replay $WORK/incidents-only.log --no-config 2>$WORK/replay2.err; \
echo EXIT=\$?; sleep 60"
check "a log of incidents alone opens on the incidents screen" \
	wait_screen 10 'cpu>60% +[0-9]+ % +-[0-9]+s \+[0-9]+s +spikeHash'
diag "$(screen | sed -n 1,4p)"
keys Escape
check "Esc goes to the memory screen, which says the log has no reading" \
	wait_screen 5 'memory is not read in this session'
keys q
check "and q leaves it with status 0" wait_screen 10 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/replay2.err"
term_stop
done_testing
