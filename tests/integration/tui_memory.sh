#!/bin/bash
# The memory side of the live view in a real terminal: the MEM header line, the memory
# screen (m) with its chart, growth, heap spaces and allocation sites, a heap snapshot (H)
# after confirmation, s saving the allocation profile, and --replay of a --log file; all in a
# UTF-8 locale (braille chart, block sparkline), then again with LANG=C (ASCII only).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux
utf8=$(utf8_locale) || skip_all "no UTF-8 locale"
# Each run's LANG alone decides its character set (grep reads the screen in UTF-8).
unset LC_ALL LC_CTYPE
export LANG=$utf8

start_node target --inspect-port=0 "$TARGETS/leak.js" 500000
wait_ready target
mkdir -p "$WORK/saves"
# ntop-js starts a moment late, so that everything it writes to the terminal is recorded.
term_start 220 45 "sleep 1; LANG=$utf8 $NTOP_JS --pid $target_PID -d 0.5 --no-config --alloc \
--alloc-interval 5 --save-dir $WORK/saves --log $WORK/run.log 2>$WORK/err.log; echo EXIT=\$?; \
sleep 60"
tmx pipe-pane -t t -o "cat >>$WORK/raw-utf8.bin"

check "the header has a memory line" wait_screen 10 '^MEM rss [0-9.]+[KMG] +heap [0-9.]+[KMG]/[0-9.]+[KMG]'
check "with a sparkline of block elements" wait_screen 10 '^MEM .*[▁▂▃▄▅▆▇█] *$'
keys m
check "m opens the memory screen" wait_screen 5 '^MEMORY +zoom 5 min'
check "the chart has a y axis in bytes" screen_has '^ +[0-9.]+[KMG]│'
check "the lines are braille dots" wait_for 5 screen_has_pcre '^ +[0-9.]*[KMG]?│ *[\x{2801}-\x{28ff}]'
ok $(screen | grep -qE '│.*[#=]'; [ $? -ne 0 ]; echo $?) "and no ASCII glyphs in the plot"
check "and a time axis ending now" screen_has 'now *$'
check "a legend names the lines and their patterns" \
	screen_has '⣿⣿ heap used .*⠒⠂ heap total .*⠒⠒ rss .*⠂⠂ external'
check "growth figures for several spans" screen_has '^5m\*? '
check "the heap spaces table" screen_has 'HEAP SPACE'
check "the leaking function tops the allocation sites" wait_screen 15 '^ +[0-9.]+[KMG] leakyCache .*leak\.js'
check "the growth table names it too" wait_screen 15 'GROWTH since first profile'
keys 2
check "2 zooms to an hour" wait_screen 5 'zoom 1 h'
keys 1

keys H
check "H asks before taking a heap snapshot, with the heap size and free memory" \
	wait_screen 5 'Take a heap snapshot\? heap [0-9.]+[KMG], free memory [0-9.]+[KMG]'
keys n
sleep 0.5
ok $(ls "$WORK"/saves/*.heapsnapshot >/dev/null 2>&1; [ $? -ne 0 ]; echo $?) "n takes no snapshot"
keys H
wait_screen 5 'Take a heap snapshot'
keys y
check "y takes it and says how long the target paused" \
	wait_screen 20 'heap snapshot saved to .*\.heapsnapshot .*paused about [0-9.]+ s'
snap=$(ls "$WORK"/saves/*.heapsnapshot | head -1)
check "the snapshot is a valid heap snapshot" "$NODE" -e '
	const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	if (!(s.snapshot && s.snapshot.node_count > 1000 && s.nodes.length > 0)) process.exit(1);' "$snap"
check "and private (0600)" test "$(stat -c %a "$snap")" = 600

keys s
check "s saves the allocation profile too" wait_screen 10 'saved .*-alloc\.heapprofile'
check "the .heapprofile is V8's sampling profile" "$NODE" -e '
	const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	if (!(p.head && p.head.children)) process.exit(1);' "$(ls "$WORK"/saves/*-alloc.heapprofile | head -1)"

keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on stderr" test ! -s "$WORK/err.log"
check "the target is still running" alive "$target_PID"
check "braille reached the terminal as UTF-8" grep -qaF $'\xe2\xa0\x92' "$WORK/raw-utf8.bin"
check "and everything written was valid UTF-8" iconv -f UTF-8 -t UTF-8 "$WORK/raw-utf8.bin"
ok $(! LC_ALL=C grep -qaP '\xc2[\x80-\x9f]' "$WORK/raw-utf8.bin"; echo $?) "with no C1 control"
term_stop

# LANG=C: a terminal that cannot show UTF-8 gets ASCII, byte for byte.
term_start 220 45 "sleep 1; LANG=C $NTOP_JS --pid $target_PID -d 0.5 --no-config \
2>$WORK/err-c.log; echo EXIT=\$?; sleep 60"
tmx pipe-pane -t t -o "cat >>$WORK/raw-c.bin"
check "LANG=C: the header has a memory line" wait_screen 10 '^MEM rss [0-9.]+[KMG] '
check "LANG=C: its sparkline is ASCII" wait_screen 10 '^MEM .*(growing|stable|shrinking|unknown) +[_.,~=*#-]+ *$'
keys m
check "LANG=C: m opens the memory screen" wait_screen 5 '^MEMORY +zoom 5 min'
check "LANG=C: an ASCII y axis" screen_has '^ +[0-9.]+[KMG]\|'
check "LANG=C: and time axis" screen_has '^ +0\+-+$'
check "LANG=C: the lines are ASCII glyphs" screen_has '^ +[0-9.]*[KMG]?\| *[#=]'
check "LANG=C: the legend names them" screen_has '# heap used .*- heap total .*= rss .*\. external'
keys q
check "LANG=C: q quits with status 0" wait_screen 15 '^EXIT=0'
check "LANG=C: nothing on stderr" test ! -s "$WORK/err-c.log"
check "LANG=C: the terminal output was recorded" test -s "$WORK/raw-c.bin"
ok $(! LC_ALL=C grep -qaP '[\x80-\xff]' "$WORK/raw-c.bin"; echo $?) \
	"LANG=C: not one byte outside ASCII reached the terminal"
term_stop

# (the collections themselves come every 10 s: gc_growth.sh checks them in a longer log)
check "the log says when the target's observer of collections started (post_gc, span_s -1)" \
	jsonl_check "$WORK/run.log" 'l => l.some(r => r.type === "post_gc" && r.span_s === -1) || l.map(r => r.type)'
term_start 220 45 "LANG=$utf8 $NTOP_JS --replay $WORK/run.log --no-config 2>$WORK/replay.err; \
echo EXIT=\$?; sleep 60"
check "--replay opens the memory screen of the log" wait_screen 10 '^MEMORY +zoom'
check "the replay shows the recorded process" screen_has 'leak\.js|replay'
check "the replayed chart has data" screen_has_pcre '│ *[\x{2801}-\x{28ff}]'
check "its title says REPLAY, not DISCONNECTED" eval 'screen_has "^MEMORY .*  REPLAY" && ! screen_has DISCONNECTED'
check "its keys offer no allocation sampling, heap snapshot or pause" eval \
	'screen_has "1 5m  2 1h  3 24h  4 all  \+/- zoom  I incidents  \? help  q quit" && ! screen_has "a alloc sampling|H heap snapshot|p pause"'
keys H
check "H says a replay has no live target" wait_screen 5 'A replay has no live target: no heap snapshot\.'
keys a
check "a says so too" wait_screen 5 'A replay has no live target: no allocation sampling\.'
keys Escape
check "Esc stays on the replay and says q quits" wait_screen 5 "A replay shows the log's memory: q quits\."
check "still the memory screen" screen_has '^MEMORY +zoom'
keys q
check "q leaves the replay with status 0" wait_screen 10 '^EXIT=0'
term_stop
done_testing
