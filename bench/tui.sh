#!/usr/bin/env bash
# bench/tui.sh: the live view's costs, measured on the real binary in a real terminal (tmux).
#
#   1. Own CPU with the screen running: ntop-js's CPU time (utime+stime from /proc) over a
#      60 s session at the default 1 s refresh, on the 20,000-function target, as a share of
#      one core. Goal: at most 1 %.
#   2. Responsiveness while huge profiles are read: a target whose windows (7 s, sampled
#      every 100 us) are 25-30 MB of JSON on a quiet 2-core machine (the size is measured:
#      one window is saved with -o and weighed). Two measures, taken together:
#      - key latency: p (pause) is pressed every 0.1-0.4 s and the time until the screen
#        shows the change is measured from outside (tmux capture-pane polling, which adds a
#        few ms);
#      - the event loop's longest turns: strace timestamps every poll() of ntop-js's main
#        thread; the time from one poll's return to the next poll is work during which no
#        key can be read (strace slows system calls, so these are upper bounds).
#      Goal: every key answered within 100 ms. With TUI_BASELINE set, the same is measured
#      on that binary in the same run (for example a build of an earlier commit).
#
# Usage: bench/tui.sh [NTOP_JS_BINARY_OR_BUILD_DIR] [SECONDS]   (default: $NTOP_JS, else
#   ntop-js on PATH; 60 s for each part)
#   TUI_BIG_WINDOW_S=N  the window length of part 2 (default 7)
#   TUI_BASELINE=PATH   another ntop-js to measure in part 2 first, as the baseline
#   TUI_SKIP_CPU=1      run part 2 only
set -euo pipefail
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != -h ] || bench_usage 2
NTOP=$(bench_resolve_ntop "${1:-}")
SECS=${2:-60}
bench_uint SECONDS "$SECS" 1
command -v tmux >/dev/null || { echo "bench/tui.sh: tmux is needed" >&2; exit 1; }
export TMUX_TMPDIR="$bench_tmp/tmux"
mkdir -p "$TMUX_TMPDIR"
printf 'set -g remain-on-exit on\n' >"$bench_tmp/tmux.conf"
tmx() { tmux -L ntopjs-bench -f "$bench_tmp/tmux.conf" "$@"; }
trap 'tmx kill-server 2>/dev/null || true; bench_cleanup' EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "# command: ${TUI_BASELINE:+TUI_BASELINE=$TUI_BASELINE }${TUI_SKIP_CPU:+TUI_SKIP_CPU=1 }bench/tui.sh $NTOP $SECS"
echo "# machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%M:%SZ)"

big_d=${TUI_BIG_WINDOW_S:-7}
# ---- 1. own CPU with the screen running ----
if [ -z "${TUI_SKIP_CPU:-}" ]; then
"$NODE" --inspect-port=0 "$BENCH_TARGETS/many-functions.js" --functions 20000 >"$bench_tmp/many.out" 2>&1 &
target=$!
bench_track $target
for _ in $(seq 100); do grep -q '"event":"ready"' "$bench_tmp/many.out" && break; sleep 0.2; done
tmx new-session -d -s cpu -x 160 -y 45 "$NTOP --pid $target --max-pause 60 --no-config 2>$bench_tmp/cpu.err"
ntop=""
for _ in $(seq 50); do
	ntop=$(pgrep -x -P "$(tmx display -p -t cpu '#{pane_pid}')" ntop-js || true)
	[ -n "$ntop" ] && break
	ntop=$(tmx display -p -t cpu '#{pane_pid}')
	[ "$(cat /proc/$ntop/comm)" = ntop-js ] && break
	sleep 0.1
done
sleep 5 # attach, the first windows and the one-off re-log
t0=$(cpu_ticks "$ntop")
sleep "$SECS"
t1=$(cpu_ticks "$ntop")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$ntop/status")
hz=$(getconf CLK_TCK)
cpu_pct=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$SECS" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }')
tmx send-keys -t cpu q
sleep 1
tmx kill-session -t cpu 2>/dev/null || true
kill "$target" 2>/dev/null || true
echo "own CPU with the screen (1 s refresh, 20,000 functions): ${cpu_pct} % of one core over ${SECS} s; peak RSS $((hwm / 1024)) MB"
fi

# ---- 2. responsiveness while ~30 MB profiles are read ----
# keys_run NTOP LABEL: one session on a fresh big-profiles target; prints two result lines.
keys_run() {
	local ntop=$1 label=$2 big main lat trace end paused start want have size_mb
	"$NODE" --inspect-port=0 "$BENCH_TARGETS/big-profiles.js" >"$bench_tmp/big.out" 2>&1 &
	big=$!
	bench_track $big
	for _ in $(seq 100); do grep -q ready "$bench_tmp/big.out" && break; sleep 0.2; done
	tmx new-session -d -s keys -x 160 -y 45 "$ntop --pid $big --max-pause 60 --no-config -i 100 -d $big_d 2>$bench_tmp/keys.err"
	# wait for the first big window
	for _ in $(seq 150); do tmx capture-pane -p -t keys | grep -q 'gen_' && break; sleep 0.2; done
	main=$(tmx display -p -t keys '#{pane_pid}')
	[ "$(cat "/proc/$main/comm" 2>/dev/null)" = ntop-js ] || main=$(pgrep -x -P "$main" ntop-js || echo "$main")
	trace=$bench_tmp/poll.trace
	: >"$trace"
	if command -v strace >/dev/null; then
		strace -ttt -T -e trace=poll,ppoll -p "$main" -o "$trace" 2>/dev/null &
		bench_track $!
		sleep 0.5
	fi
	lat=$bench_tmp/latency.txt
	: >"$lat"
	end=$(( $(date +%s) + SECS ))
	paused=0
	while [ "$(date +%s)" -lt "$end" ]; do
		start=$(date +%s%N)
		tmx send-keys -t keys p
		if [ $paused = 0 ]; then want=yes; else want=no; fi
		while :; do
			if tmx capture-pane -p -t keys | head -3 | grep -q PAUSED; then have=yes; else have=no; fi
			[ "$have" = "$want" ] && break
			[ $(( ($(date +%s%N) - start) / 1000000 )) -gt 5000 ] && break
		done
		echo $(( ($(date +%s%N) - start) / 1000000 )) >>"$lat"
		paused=$((1 - paused))
		sleep 0.$(( RANDOM % 4 + 1 ))
	done
	pkill -INT -f "strace -ttt -T -e trace=poll,ppoll -p $main" 2>/dev/null || true
	tmx send-keys -t keys q
	sleep 2
	tmx kill-session -t keys 2>/dev/null || true
	# How big one such window is: the same settings, one window written out as a .cpuprofile.
	"$ntop" --pid "$big" --max-pause 60 -b -n 1 -i 100 -d "$big_d" -o "$bench_tmp/one.cpuprofile" >/dev/null 2>&1 || true
	size_mb=$(awk -v b="$(stat -c %s "$bench_tmp/one.cpuprofile" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')
	rm -f "$bench_tmp/one.cpuprofile"
	kill "$big" 2>/dev/null || true
	sort -n "$lat" | awk -v mb="$size_mb" -v l="$label" '{ v[NR] = $1; if ($1 > 100) over++ } END {
		p95 = int(NR * 0.95) + 1; if (p95 > NR) p95 = NR
		printf "%s: key latency while reading %s MB windows: %d keys, median %d ms, p95 %d ms, max %d ms, %d over 100 ms\n",
			l, mb, NR, v[int(NR / 2) + 1], v[p95], v[NR], over }'
	if [ -s "$trace" ]; then
		"$NODE" -e '
			const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
			let prevEnd = null; const gaps = [];
			for (const l of lines) {
				const m = /^(\d+\.\d+) p?poll\(.*<(\d+\.\d+)>$/.exec(l);
				if (!m) continue;
				if (prevEnd !== null) gaps.push((+m[1] - prevEnd) * 1000);
				prevEnd = +m[1] + +m[2];
			}
			gaps.sort((a, b) => b - a);
			console.log(`${process.argv[2]}: event-loop turns (strace): ${gaps.length}, longest ` +
				gaps.slice(0, 5).map(g => g.toFixed(1)).join(", ") + " ms; over 50 ms: " +
				gaps.filter(g => g > 50).length + ", over 100 ms: " + gaps.filter(g => g > 100).length);
		' "$trace" "$label"
	else
		echo "$label: event-loop turns not measured (strace is not installed)"
	fi
}

if [ -n "${TUI_BASELINE:-}" ]; then
	keys_run "$TUI_BASELINE" "baseline $TUI_BASELINE"
fi
keys_run "$NTOP" "$NTOP"
