#!/bin/bash
# bench/weekend.sh: the accelerated weekend. One ntop-js session of DURATION
# seconds (default 1800) against a busy target (examples/busy-server.js) with 50 ms CPU
# windows (-d 0.05, twenty times the default rate), memory readings every 0.1 s, allocation
# sampling and --log; ntop-js's resident memory (VmRSS) and open descriptors are sampled
# all along. At the end it checks, and prints as TAP:
#   - RSS is flat: after the warm-up (a quarter of the run, or half of a run of 20 minutes
#     or more), the last third's peak is at most 10 % (or 2 MB, if more) above the first
#     third's peak;
#   - the descriptors are the same all along (transient /proc reads aside);
#   - no lost log lines: every window printed on stdout is in the log, in order, and the
#     log's memory readings come every 0.1 s with no gap over 1 s;
#   - SIGINT ends the session with status 0.
# Exit status 0 when every check passes, 1 otherwise.
#
# Usage: bench/weekend.sh [-s SAMPLE_S] [-i INTERVAL_US] [-w WARMUP_S] [-k] [DURATION]
#   -s SAMPLE_S     seconds between RSS/descriptor samples (default 10; shorter runs less;
#                   or $WEEKEND_SAMPLE_S)
#   -i INTERVAL_US  the sampling interval (ntop-js -i, default 1000, or $WEEKEND_INTERVAL_US).
#                   ntop-js keeps the session's samples in order for the export (12 bytes
#                   each, up to 500,000, then dropped): a minute-long run measures that
#                   growth unless it samples less.
#   -w WARMUP_S     seconds of warm-up before RSS must be flat (default: a quarter of the run,
#                   half of a run of 20 minutes or more; or $WEEKEND_WARMUP_S)
#   -k              keep the working directory (its path is printed; or WEEKEND_KEEP=1)
#   NTOP_JS   the ntop-js to run (default: ntop-js from PATH; `make weekend` passes its own)
#   NODE      node for the target and the checks (default: node)
# Under AddressSanitizer its quarantine (256 MB of freed memory by default) would read as
# growth: it is capped at 4 MB unless ASAN_OPTIONS sets it.
set -u
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

sample_arg=${WEEKEND_SAMPLE_S:-}
interval_us=${WEEKEND_INTERVAL_US:-1000}
warmup_arg=${WEEKEND_WARMUP_S:-}
keep=${WEEKEND_KEEP:-}
while getopts 's:i:w:kh' opt; do
	case $opt in
	s) sample_arg=$OPTARG ;;
	i) interval_us=$OPTARG ;;
	w) warmup_arg=$OPTARG ;;
	k) keep=1 ;;
	*) bench_usage 2 ;;
	esac
done
shift $((OPTIND - 1))
duration=${1:-1800}
bench_uint DURATION "$duration" 30
[ -z "$sample_arg" ] || bench_uint -s "$sample_arg" 1
bench_uint -i "$interval_us" 100
[ -z "$warmup_arg" ] || bench_uint -w "$warmup_arg" 0 "$duration"
srcdir=$(dirname "$BENCH_DIR")
NTOP_JS=${NTOP_JS:-ntop-js}
if [ -n "$sample_arg" ]; then
	sample_s=$sample_arg
elif [ "$duration" -ge 600 ]; then
	sample_s=10
else
	sample_s=$(((duration + 29) / 30))
fi
# Allocation profiles force a full GC in the target: every minute in a long run, more often
# in a short one so that several happen.
if [ "$duration" -ge 600 ]; then alloc_s=60; else alloc_s=10; fi
case ${ASAN_OPTIONS:-} in
*quarantine_size_mb*) ;;
*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/ntop-weekend.XXXXXX")
target=""
ntop=""
cleanup() {
	[ -n "$ntop" ] && kill -9 "$ntop" 2>/dev/null
	[ -n "$target" ] && kill -9 "$target" 2>/dev/null
	if [ -n "$keep" ]; then echo "# kept $work"; else rm -rf "$work"; fi
	bench_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

n=0
failed=0
ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

command -v "$NODE" >/dev/null 2>&1 || { echo "1..0 # SKIP node not found"; exit 0; }
command -v "$NTOP_JS" >/dev/null 2>&1 || { echo "$0: $NTOP_JS not found" >&2; exit 2; }

"$NODE" --inspect-port=0 "$srcdir/examples/busy-server.js" --quiet >"$work/target.out" \
	2>"$work/target.err" &
target=$!
for _ in $(seq 100); do grep -q pid "$work/target.out" 2>/dev/null && break; sleep 0.1; done
grep -q pid "$work/target.out" 2>/dev/null
ok $? "the busy target started (PID $target)"

"$NTOP_JS" --pid "$target" --max-pause 60 -b --json -d 0.05 -i "$interval_us" -t 5 --mem-interval 0.1 --alloc \
	--alloc-interval "$alloc_s" --log "$work/run.log" >"$work/out.jsonl" 2>"$work/ntop.err" &
ntop=$!
started=$(date +%s.%N)
for _ in $(seq 100); do grep -q window_ms "$work/out.jsonl" 2>/dev/null && break; sleep 0.1; done

# Samples: seconds since start, VmRSS in kB, descriptors (reads of /proc come and go: not
# counted), ntop-js's CPU time in clock ticks.
fds_of() { # the descriptors' targets, one a line
	local f
	for f in /proc/"$1"/fd/*; do readlink "$f"; done 2>/dev/null | grep -v '^/proc/' | sort
}
sample() {
	local rss cpu t
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ntop/status" 2>/dev/null) || return 1
	[ -n "$rss" ] || return 1
	cpu=$(awk '{ print $14 + $15 }' "/proc/$ntop/stat" 2>/dev/null)
	t=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "$t $rss $(fds_of "$ntop" | wc -l) $cpu" >>"$work/samples"
}
fds_of "$ntop" >"$work/fds.first"
end=$(awk -v a="$started" -v d="$duration" 'BEGIN { printf "%d", a + d }')
while [ "$(date +%s)" -lt "$end" ] && kill -0 "$ntop" 2>/dev/null; do
	sample
	sleep "$sample_s"
done
sample
fds_of "$ntop" >"$work/fds.last"
if kill -0 "$ntop" 2>/dev/null; then
	ok 0 "ntop-js ran for the whole $duration s"
	kill -INT "$ntop"
	for _ in $(seq 100); do kill -0 "$ntop" 2>/dev/null || break; sleep 0.1; done
	wait "$ntop"
	rc=$?
	ok $rc "SIGINT ends the session with status 0 (status $rc)"
else
	wait "$ntop"
	rc=$?
	ok 1 "ntop-js ran for the whole $duration s (it ended after $(tail -n 1 "$work/samples" | cut -d' ' -f1) s with status $rc)"
fi
ntop=""
[ -s "$work/ntop.err" ] && diag "ntop-js said: $(head -c 2000 "$work/ntop.err")"
ok "$([ ! -s "$work/ntop.err" ]; echo $?)" "nothing on ntop-js's stderr"
cmp -s "$work/fds.first" "$work/fds.last" ||
	diag "descriptors at start:" "$(cat "$work/fds.first")" "at the end:" "$(cat "$work/fds.last")"

# Everything else is checked in one pass over the outputs.
TAP_N=$n "$NODE" - "$work" "$duration" "$sample_s" "$warmup_arg" <<'EOF'
const fs = require('fs');
const [work, duration, sampleS, warmArg] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]),
	process.argv[5]];
let n = Number(process.env.TAP_N), failed = 0;
const ok = (cond, what, why) => {
	n++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
	if (!cond) { failed++; if (why !== undefined) console.log('# ' + JSON.stringify(why).slice(0, 2000)); }
};
const mb = kb => (kb / 1024).toFixed(1) + ' MB';

// RSS and descriptors.
const s = fs.readFileSync(`${work}/samples`, 'utf8').trim().split('\n').map(l => l.split(' ').map(Number))
	.map(([t, rss, fds, cpu]) => ({ t, rss, fds, cpu }));
// ntop-js keeps the session's samples in order (12 bytes each) until there are 500,000 of
// them, about 10 minutes at 1 ms, then drops them: a long run's first half is its warm-up.
const warm = warmArg ? Number(warmArg) : duration >= 1200 ? Math.max(300, duration / 2) : duration / 4;
const after = s.filter(x => x.t >= warm);
const third = Math.max(1, Math.floor(after.length / 3));
const first = after.slice(0, third), last = after.slice(-third);
const peak = a => Math.max(...a.map(x => x.rss));
const allowed = Math.max(2048, peak(first) * 0.10);
console.log(`# ${s.length} samples every ${sampleS} s; RSS ${mb(s[0].rss)} at start, peak ` +
	`${mb(peak(first))} in the first third after ${warm} s of warm-up, ${mb(peak(last))} in the ` +
	`last third, ${mb(s[s.length - 1].rss)} at the end`);
// The trend after the warm-up, by least squares: a leak shows as a steady slope.
const tMean = after.reduce((a, x) => a + x.t, 0) / after.length;
const rMean = after.reduce((a, x) => a + x.rss, 0) / after.length;
const slope = after.reduce((a, x) => a + (x.t - tMean) * (x.rss - rMean), 0) /
	(after.reduce((a, x) => a + (x.t - tMean) ** 2, 0) || 1);
console.log(`# RSS trend after the warm-up: ${(slope * 3600 / 1024).toFixed(2)} MB an hour`);
ok(after.length >= 6, 'enough samples after the warm-up', after.length);
ok(peak(last) <= peak(first) + allowed, `RSS is flat (last third's peak within ${mb(allowed)} of the first third's)`,
	s.map(x => [x.t, x.rss]));
const fdCounts = [...new Set(s.map(x => x.fds))];
console.log(`# open descriptors: ${fdCounts.join(', ')}`);
ok(fdCounts.length === 1, 'the number of open descriptors is constant', s.map(x => [x.t, x.fds]));
const cpuS = (s[s.length - 1].cpu - s[0].cpu) / 100, spanS = s[s.length - 1].t - s[0].t;
console.log(`# ntop-js used ${cpuS.toFixed(1)} s of CPU in ${spanS.toFixed(0)} s (${(100 * cpuS / spanS).toFixed(1)} % of a core)`);

// Windows: stdout against the log.
const out = fs.readFileSync(`${work}/out.jsonl`, 'utf8').split('\n').filter(Boolean);
const logLines = fs.readFileSync(`${work}/run.log`, 'utf8').split('\n').filter(Boolean);
let bad = 0;
const log = logLines.map(l => { try { return JSON.parse(l); } catch (e) { bad++; return null; } });
ok(bad === 0, 'every line of the log is JSON', bad);
const logWindows = logLines.filter((l, i) => log[i] && log[i].type === 'window');
const expected = out.map(l => '{"type":"window",' + l.slice(1));
let firstMissing = -1;
for (let i = 0, j = 0; i < expected.length; i++) {
	while (j < logWindows.length && logWindows[j] !== expected[i]) j++;
	if (j === logWindows.length) { firstMissing = i; break; }
	j++;
}
ok(firstMissing < 0 && logWindows.length === out.length,
	`every window on stdout is in the log, in order (${out.length} on stdout, ${logWindows.length} in the log)`,
	firstMissing >= 0 ? { firstMissing, line: out[firstMissing].slice(0, 200) } : undefined);
const win = out.map(l => JSON.parse(l));
const span = win[win.length - 1].time - win[0].time;
let wgap = 0;
for (let i = 1; i < win.length; i++) wgap = Math.max(wgap, win[i].time - win[i - 1].time);
const rate = win.length / span;
console.log(`# ${win.length} windows in ${span.toFixed(0)} s: ${rate.toFixed(1)} a second (20 asked), longest gap ${wgap.toFixed(2)} s`);
ok(rate >= 10, 'the 50 ms windows keep at least half their rate', rate);
ok(wgap <= 2, 'no window gap over 2 s', wgap);
const allocs = win.filter(w => w.alloc).length;
console.log(`# ${allocs} windows carried an allocation profile`);

// Memory readings in the log.
const mem = log.filter(r => r && r.type === 'mem');
let back = 0;
for (let i = 1; i < mem.length; i++) if (mem[i].time < mem[i - 1].time) back++;
ok(back === 0, 'the memory readings are logged in time order', back);
const mt = mem.map(r => r.time).sort((a, b) => a - b);
let mgap = 0;
for (let i = 1; i < mt.length; i++) mgap = Math.max(mgap, mt[i] - mt[i - 1]);
const mspan = mt[mt.length - 1] - mt[0];
console.log(`# ${mem.length} memory readings in ${mspan.toFixed(0)} s (${(mem.length / mspan).toFixed(2)} a second), longest gap ${mgap.toFixed(2)} s`);
ok(mem.length >= 0.9 * mspan / 0.1, 'a memory reading every 0.1 s (at least 90 % of them)', mem.length / mspan);
ok(mgap <= 1, 'no gap over 1 s between memory readings', mgap);
ok(mem.every(r => r.rss_bytes > 0) && mem.filter(r => r.heap_used_bytes > 0).length >= 0.9 * mem.length,
	'the readings have RSS, and heap figures (90 %)');
fs.writeFileSync(`${work}/tap_n`, `${n} ${failed}\n`);
EOF
read -r n nfailed <"$work/tap_n" 2>/dev/null || { n=$((n + 1)); echo "not ok $n - the checks ran"; nfailed=1; }
failed=$((failed + nfailed))
kill -0 "$target" 2>/dev/null
ok $? "the target is still running"
echo "1..$n"
[ "$failed" -eq 0 ]
