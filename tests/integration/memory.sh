#!/bin/bash
# Memory: readings in every JSON window; a target that retains memory at a known rate is
# reported growing within 20 % of the truth; a busy heap that does not grow is not reported
# growing; the allocation sampler finds the leaking function.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

# ~1 MB/s retained (3.6 GB/h), accelerated so that a minute is enough (the growth rule wants
# a span of a minute before it believes a rise).
start_node leak --inspect-port=0 "$TARGETS/leak.js" 1000000
# the stable target keeps its last second of results, so that V8's major collections come
# every few seconds (without, it may put them off for the whole run: gc_growth.sh is that case)
start_node saw --inspect-port=0 "$TARGETS/sawtooth.js" 50
wait_ready leak
wait_ready saw
truth=$(awk '{print $3}' "$WORK/leak.out")

"$NTOP_JS" --pid "$leak_PID" -b --json -n 70 -d 1 --mem-interval 0.5 --growth-window 60 \
	--alloc --alloc-interval 12 -t 5 >"$WORK/leak.jsonl" 2>"$WORK/ntop-leak.err" &
ntop1=$!
"$NTOP_JS" --pid "$saw_PID" -b --json -n 70 -d 1 --mem-interval 0.5 --growth-window 60 \
	-t 5 >"$WORK/saw.jsonl" 2>"$WORK/ntop-saw.err" &
ntop2=$!
pids_to_kill="$pids_to_kill $ntop1 $ntop2"
wait $ntop1
ok $? "ntop-js ran 70 windows on the leaking target"
wait $ntop2
ok $? "ntop-js ran 70 windows on the stable target"
diag "$(cat "$WORK/ntop-leak.err" "$WORK/ntop-saw.err")"

check "every window has mem with the required fields" jsonl_check "$WORK/leak.jsonl" '
	l => l.every(w => w.mem && ["rss_bytes","heap_used_bytes","heap_total_bytes"].every(k => w.mem[k] > 0) &&
		"external_bytes" in w.mem && "array_buffers_bytes" in w.mem)'
check "growth has the required fields" jsonl_check "$WORK/leak.jsonl" '
	l => l.every(w => w.growth && "heap_bytes_per_hour" in w.growth && "rss_bytes_per_hour" in w.growth &&
		typeof w.growth.window_s === "number" && ["growing","stable","shrinking","unknown"].includes(w.growth.verdict))'
check "growth is unknown at first" jsonl_check "$WORK/leak.jsonl" 'l => l[0].growth.verdict === "unknown" || l[0].growth'
"$NODE" -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	const g = l[l.length - 1].growth; console.log("# leak: truth", process.argv[2], "B/h, reported", g.heap_bytes_per_hour, g.verdict, "over", g.window_s, "s");' \
	"$WORK/leak.jsonl" "$truth"
check "the leaking target is growing at the end" jsonl_check "$WORK/leak.jsonl" \
	'l => l[l.length - 1].growth.verdict === "growing" || l[l.length - 1].growth'
check "its rate is within 20 % of the truth ($truth B/h)" jsonl_check "$WORK/leak.jsonl" '
	l => { const r = l[l.length - 1].growth.heap_bytes_per_hour / '"$truth"'; return (r > 0.8 && r < 1.2) || r; }'
"$NODE" -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
	console.log("# sawtooth verdicts:", l.map(w => w.growth.verdict[0]).join(""), "last rate", l[l.length - 1].growth.heap_bytes_per_hour);
	console.log("# its major GCs in the span:", l.map(w => w.growth.major_gcs).join(" "));' "$WORK/saw.jsonl"
check "the busy but stable heap is never reported growing" jsonl_check "$WORK/saw.jsonl" '
	l => l.every(w => w.growth.verdict !== "growing") || l.map(w => w.growth.verdict)'
# Its troughs climb with garbage between major collections; the collections, every few
# seconds, say the live heap is flat: once the span holds a minute, the verdict is stable.
check "and is reported stable whenever known (in 10 windows or more)" jsonl_check "$WORK/saw.jsonl" \
	'l => { const k = l.filter(w => w.growth.verdict !== "unknown");
		return k.length >= 10 && k.every(w => w.growth.verdict === "stable") || l.map(w => w.growth.verdict).join(); }'
check "allocation profiles came in some windows" jsonl_check "$WORK/leak.jsonl" \
	'l => l.filter(w => w.alloc).length >= 2 || l.filter(w => w.alloc).length'
check "the leak's allocation site is the top site" jsonl_check "$WORK/leak.jsonl" '
	l => { const a = l.filter(w => w.alloc).pop().alloc; return a[0].function === "leakyCache" || a.slice(0, 3); }'
check "and it grew since the first profile" jsonl_check "$WORK/leak.jsonl" '
	l => { const a = l.filter(w => w.alloc).pop().alloc.find(s => s.function === "leakyCache");
		return a.growth_bytes > 5e6 || a; }'
check "alloc entries have the documented fields" jsonl_check "$WORK/leak.jsonl" '
	l => l.filter(w => w.alloc).every(w => w.alloc.every(s => typeof s.function === "string" &&
		typeof s.url === "string" && "line" in s && s.live_bytes >= 0 && typeof s.growth_bytes === "number"))'
check "the targets are still running" alive "$leak_PID"
done_testing
