#!/bin/bash
# Memory readings of a target that stops answering now and then: ntop-js keeps a reading
# every tick from /proc while a heap reading is pending, and the late heap reading is logged
# (and kept in the series) in time order instead of behind the newer ones.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/stall.js"
wait_ready target
"$NTOP_JS" --pid "$target_PID" -b --json -d 0.5 -n 10 --mem-interval 0.1 --log "$WORK/run.log" \
	>"$WORK/out.jsonl" 2>"$WORK/ntop.err"
rc=$?
ok $rc "ntop-js ran 10 windows on a target that blocks 0.7 s every 1.5 s (status $rc)"
"$NODE" -e '
	const m = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse).filter(r => r.type === "mem");
	console.log("# " + m.length + " readings, " + m.filter(r => r.heap_used_bytes).length + " with the heap");' "$WORK/run.log"
check "the memory readings are logged in time order" jsonl_check "$WORK/run.log" '
	l => { const m = l.filter(r => r.type === "mem"); const bad = m.filter((r, i) => i && r.time < m[i - 1].time);
		return bad.length === 0 || bad.length; }'
check "readings kept coming while the target was blocked (no gap over 0.5 s)" jsonl_check "$WORK/run.log" '
	l => { const m = l.filter(r => r.type === "mem"); let g = 0;
		for (let i = 1; i < m.length; i++) g = Math.max(g, m[i].time - m[i - 1].time); return g < 0.5 || g; }'
check "some readings had only RSS (the target was slow), and most have the heap" jsonl_check "$WORK/run.log" '
	l => { const m = l.filter(r => r.type === "mem"); const h = m.filter(r => r.heap_used_bytes > 0).length;
		return (h < m.length && h >= 0.4 * m.length && m.every(r => r.rss_bytes > 0)) || [h, m.length]; }'
check "nothing on ntop-js's stderr" test ! -s "$WORK/ntop.err"
done_testing
