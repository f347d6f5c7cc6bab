#!/bin/bash
# Incidents (--trigger, --incident-dir): a target that spikes its CPU in one function for 2.5 s
# every 10 s (tests/targets/incidents.js), watched headless with cpu>60%, gets one incident per
# spike and none in the quiet parts; each incident's profile (.cpuprofile, valid for DevTools,
# and pprof) has spikeHash on top and reaches back before the spike began; incident.json says
# what fired, with the memory and event-loop series around it, and the --log has a line for
# it. A blocked loop and a heap jump each fire theirs (the block with its stack). A trigger
# that holds all the time stays within --incident-max. Refusals: one sentence, status 2.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

# incidents DIR: the bundles in DIR, oldest first.
incidents() { ls -1 "$1" 2>/dev/null | grep '^incident-' | sort; }
# field DIR/BUNDLE EXPR: a value of its incident.json.
field() { "$NODE" -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1] + "/incident.json", "utf8"));
	console.log(eval(process.argv[2]))' "$1" "$2"; }

# ---- a CPU spike every 10 s ----
start_server spike 10 --inspect-port=0 "$TARGETS/incidents.js" spike 10000 11000
D=$WORK/spike-incidents
"$NTOP_JS" --pid "$spike_PID" -b --json -n 40 -d 1 --trigger 'cpu>60%' --incident-dir "$D" \
	--keep 8 --after 3 --cooldown 5 --log "$WORK/spike.log" >"$WORK/spike.jsonl" 2>"$WORK/spike.err"
ok $? "a session of 40 windows with --trigger cpu>60%: status 0"
diag "$(cat "$WORK/spike.err")"
kill "$spike_PID" 2>/dev/null
# the spikes that ended at least 3 s before the session did (their incident is complete)
last=$(jsonl_check "$WORK/spike.jsonl" 'l => console.log(Math.round(l[l.length - 1].time * 1000)) || true')
spikes=$(grep '"event":"spike"' "$WORK/spike.out" | "$NODE" -e '
	const last = Number(process.argv[1]);
	const s = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map(JSON.parse);
	console.log(s.filter(x => x.end < last - 3000).map(x => x.start + ":" + x.end).join(" "))' "$last")
n_spikes=$(echo $spikes | wc -w)
n_inc=$(incidents "$D" | wc -l)
diag "spikes (start:end, unix ms): $spikes; incidents: $(incidents "$D" | tr '\n' ' ')"
ok "$([ "$n_spikes" -ge 2 ] && [ "$n_inc" -ge "$n_spikes" ] && [ "$n_inc" -le "$((n_spikes + 1))" ]; echo $?)" \
	"one incident per spike ($n_inc incidents, $n_spikes spikes done)"
check "the directory is mode 0700, and so is each bundle" sh -c \
	"[ \$(stat -c %a '$D') = 700 ] && for b in \$(ls '$D'); do [ \$(stat -c %a '$D'/\$b) = 700 ] || exit 1; done"
first=$D/$(incidents "$D" | head -n 1)
check "a bundle holds incident.json, profile.cpuprofile and profile.pb.gz, mode 0600" sh -c \
	"for f in incident.json profile.cpuprofile profile.pb.gz; do [ \$(stat -c %a '$first'/\$f) = 600 ] || exit 1; done"
# every incident fired inside a spike (the window that saw it ends at most 1.5 s after it)
check "every incident fired during a spike, none in the quiet parts" "$NODE" -e '
	const fs = require("fs"), [dir, all] = process.argv.slice(1);
	const s = all.trim().split("\n").map(JSON.parse).filter(x => x.event === "spike");
	const bad = fs.readdirSync(dir).filter(b => b.startsWith("incident-")).filter(b => {
		const j = JSON.parse(fs.readFileSync(dir + "/" + b + "/incident.json", "utf8"));
		return !s.some(x => j.fired * 1000 >= x.start && j.fired * 1000 <= x.end + 1500);
	});
	if (bad.length) { console.error("outside a spike:", bad); process.exit(1); }' "$D" "$(cat "$WORK/spike.out")"
check "incident.json: what fired (cpu>60%), its value over 60, and the series around it" \
	"$NODE" -e '
	const j = JSON.parse(require("fs").readFileSync(process.argv[1] + "/incident.json", "utf8"));
	const ok = j.trigger === "cpu>60%" && j.measure === "cpu" && j.value > 60 && j.threshold === 60 &&
		j.to - j.from >= 8 && j.memory.filter(m => m.rss_bytes > 0).length >= 5 &&
		j.event_loop.length >= 3 && Array.isArray(j.blocks) && j.target.pid > 0 && j.windows >= 8;
	if (!ok) { console.error(JSON.stringify(j).slice(0, 600)); process.exit(1); }' "$first"
diag "first incident: $(head -c 400 "$first/incident.json")"
# (2.5 s of spike in the 11 s the profile spans, idle time included)
check "its .cpuprofile is valid for DevTools, and spikeHash holds 15 % of its time or more" \
	"$NODE" "$top_srcdir/tests/check-cpuprofile.js" "$first/profile.cpuprofile" --lax-hitcount \
	--expect-hot spikeHash:15
check "spikeHash is incident.json's top function" \
	eval '[ "$(field "$first" "j.top[0].function")" = spikeHash ]'
# before the spike: the profile starts --keep (8 s) before the firing, and the spike began at
# most 1.5 s before it, so over 5 s of the profile is from before the spike
check "the profile reaches back before the spike: its span is 10 s or more (8 before, 3 after)" \
	"$NODE" -e '
	const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const span = (p.endTime - p.startTime) / 1e6;
	if (span < 10) { console.error("span", span); process.exit(1); }' "$first/profile.cpuprofile"
check "and from before the spike it holds quietTick, the quiet parts' function" \
	grep -q '"functionName":"quietTick"' "$first/profile.cpuprofile"
"$NTOP_JS" --diff "$first/profile.pb.gz" "$first/profile.cpuprofile" --json >"$WORK/diff.json" 2>"$WORK/diff.err"
ok $? "ntop-js --diff reads its pprof against its .cpuprofile"
# (the same time: the pprof holds each sample's own weight, the .cpuprofile's timeline gives
# the first sample of a window the time since the last one's; ntop-js's own evaluation is
# there)
check "both have spikeHash on top, with the same time" jsonl_check "$WORK/diff.json" \
	'l => { const f = l[0].functions, top = k => f.reduce((a, x) => x[k] > a[k] ? x : a);
		const a = top("self_pct_a"), b = top("self_pct_b");
		return a.function === "spikeHash" && b === a && Math.abs(a.self_ms_a - a.self_ms_b) < 1 ||
			JSON.stringify([a, b]); }'
check "the --log has a line per incident, naming its bundle" eval \
	'[ "$(grep -c "\"type\":\"incident\"" "$WORK/spike.log")" -eq "$n_inc" ]'
check "and stderr says where each went" eval \
	'[ "$(grep -c "^ntop-js: incident incident-.*: cpu>60%, written to" "$WORK/spike.err")" -eq "$n_inc" ]'

# ---- a blocked loop ----
start_server blk 10 --inspect-port=0 "$TARGETS/incidents.js" block 6000 3000
D=$WORK/block-incidents
"$NTOP_JS" --pid "$blk_PID" -b --json -n 12 -d 1 --trigger 'block>300ms' --incident-dir "$D" \
	--keep 5 --after 1 >"$WORK/blk.jsonl" 2>"$WORK/blk.err"
ok $? "a session with --trigger block>300ms: status 0"
kill "$blk_PID" 2>/dev/null
b=$D/$(incidents "$D" | head -n 1)
check "a blocked loop fires an incident with the block and its stack" "$NODE" -e '
	const j = JSON.parse(require("fs").readFileSync(process.argv[1] + "/incident.json", "utf8"));
	const k = j.blocks.find(x => x.function && x.function.function === "blockFor");
	const ok = j.measure === "block" && j.value > 300 && k && k.ms > 300 && k.stack.length >= 1;
	if (!ok) { console.error(JSON.stringify(j).slice(0, 800)); process.exit(1); }' "$b"

# ---- a heap jump ----
start_server grow 10 --inspect-port=0 "$TARGETS/incidents.js" grow 0 7000
D=$WORK/grow-incidents
"$NTOP_JS" --pid "$grow_PID" -b --json -n 12 -d 1 --trigger 'heap>100M' --incident-dir "$D" \
	--keep 6 --after 1 >"$WORK/grow.jsonl" 2>"$WORK/grow.err"
ok $? "a session with --trigger heap>100M: status 0"
kill "$grow_PID" 2>/dev/null
g=$D/$(incidents "$D" | head -n 1)
check "the heap jump fires once, and its memory series shows the heap before and after" "$NODE" -e '
	const fs = require("fs"), dir = process.argv[1];
	const n = fs.readdirSync(dir).filter(b => b.startsWith("incident-")).length;
	const j = JSON.parse(fs.readFileSync(dir + "/" + process.argv[2] + "/incident.json", "utf8"));
	const M = 1024 * 1024, h = j.memory.map(m => m.heap_used_bytes).filter(x => x > 0);
	const ok = n === 1 && j.value > 100 * M && h[0] < 100 * M && h[h.length - 1] > 100 * M;
	if (!ok) { console.error(n, j.value, h.map(x => Math.round(x / M))); process.exit(1); }' \
	"$D" "$(incidents "$D" | head -n 1)"

# ---- the caps: a trigger that always holds ----
start_server cap 10 --inspect-port=0 "$TARGETS/incidents.js" spike 600000 600000
D=$WORK/cap-incidents
"$NTOP_JS" --pid "$cap_PID" -b --json -n 8 -d 0.5 --trigger 'cpu>=0%' --incident-dir "$D" \
	--after 0 --cooldown 0 --incident-max 3 --log "$WORK/cap.log" >/dev/null 2>"$WORK/cap.err"
ok $? "a trigger that fires at every window, --incident-max 3: status 0"
kill "$cap_PID" 2>/dev/null
check "at most 3 bundles are kept" eval '[ "$(incidents "$D" | wc -l)" -eq 3 ]'
# (every window with a CPU profile fires: the first may have none yet)
check "while every firing was written and logged (7 or 8), the oldest removed" eval \
	'[ "$(grep -c "\"type\":\"incident\"" "$WORK/cap.log")" -ge 7 ] &&
	 [ "$(grep -c "\"removed\":[1-9]" "$WORK/cap.log")" -ge 4 ]'

# ---- refusals ----
refused() { # refused DESCRIPTION PATTERN ARGS...
	local d=$1 pat=$2 out rc
	shift 2
	out=$("$NTOP_JS" "$@" 2>&1 >/dev/null)
	rc=$?
	ok "$([ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q -- "$pat"; echo $?)" \
		"$d: status $rc, $out"
}
refused "--trigger without --incident-dir" "needs --incident-dir" --pid 1 --trigger 'cpu>80%'
refused "a measure that does not exist" "unknown measure" --pid 1 --trigger 'mem>1G' --incident-dir "$WORK/x"
refused "a bad duration" "not a duration" --pid 1 --trigger 'cpu>80%:soon' --incident-dir "$WORK/x"
refused "--trigger with --cpu-every" "does not go with --cpu-every" --pid 1 --trigger 'cpu>80%' \
	--incident-dir "$WORK/x" --cpu-every 600
refused "--incident-dir alone" "give one or more --trigger" --pid 1 --incident-dir "$WORK/x"
refused "a lag trigger with --no-eval" "which --no-eval forbids" --pid 1 --trigger 'lag>100ms' \
	--incident-dir "$WORK/x" --no-eval
ln -s "$WORK" "$WORK/link"
# (both before any attach: PID 1 is never signalled)
refused "an --incident-dir that is a symbolic link" "symbolic link" --pid 1 \
	--trigger 'cpu>80%' --incident-dir "$WORK/link" -b -n 1
refused "the same with a slash after it" "symbolic link" --pid 1 \
	--trigger 'cpu>80%' --incident-dir "$WORK/link/" -b -n 1
refused "a block trigger under --block-threshold" "under --block-threshold" --pid 1 \
	--trigger 'block>50ms' --incident-dir "$WORK/y" -b -n 1
done_testing
