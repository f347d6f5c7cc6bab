#!/bin/bash
# The memory side of the live view in a real terminal: the MEM header line, the memory
# screen (m) with its chart, growth, heap spaces and allocation sites, a heap snapshot (H)
# after confirmation, s saving the allocation profile, and --replay of a --log file.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux

start_node target --inspect-port=0 "$TARGETS/leak.js" 500000
wait_ready target
mkdir -p "$WORK/saves"
term_start 220 45 "$NTOP_JS --pid $target_PID -d 0.5 --no-config --alloc --alloc-interval 5 \
--save-dir $WORK/saves --log $WORK/run.log 2>$WORK/err.log; echo EXIT=\$?; sleep 60"

check "the header has a memory line" wait_screen 10 '^MEM rss [0-9.]+[KMG] +heap [0-9.]+[KMG]/[0-9.]+[KMG]'
keys m
check "m opens the memory screen" wait_screen 5 '^MEMORY +zoom 5 min'
check "the chart has a y axis in bytes" screen_has '^ +[0-9.]+[KMG]│'
check "and a time axis ending now" screen_has 'now *$'
check "a legend names the lines" screen_has 'heap used.*heap total.*rss.*external'
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
term_stop

term_start 220 45 "$NTOP_JS --replay $WORK/run.log --no-config 2>$WORK/replay.err; echo EXIT=\$?; sleep 60"
check "--replay opens the memory screen of the log" wait_screen 10 '^MEMORY +zoom'
check "the replay shows the recorded process" screen_has 'leak\.js|replay'
check "the replayed chart has data" screen_has '[#=]'
keys q
check "q leaves the replay with status 0" wait_screen 10 '^EXIT=0'
term_stop
done_testing
