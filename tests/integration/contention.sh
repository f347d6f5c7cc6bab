#!/bin/bash
# The CPU a target cannot get, as the kernel counts it, beside the CPU split: a target pinned
# to one CPU beside a busy competitor waits in the run queue for a large share of every window;
# a target in a cpu cgroup with a quota of 0.3 cores is throttled, and its quota is reported.
# Both with and without --no-eval (the kernel's figures need nothing from the target), in JSON
# and in batch text. The cgroup is made here (cgroup v1's cpu controller, else v2's); a machine
# that has neither writable says so and runs the run-queue half only.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

cg=""
cleanup_cgroup() {
	[ -z "$cg" ] && return
	# back to the root group first: a group with processes cannot be removed
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		echo "$p" >"$cg_root/cgroup.procs" 2>/dev/null
	done
	rmdir "$cg" 2>/dev/null
}
trap 'cleanup_cgroup' EXIT

# A target that always wants the CPU: busy 50 ms at a time, its event loop turning between.
BUSY='for (;;) { const t = Date.now() + 50; while (Date.now() < t); await new Promise(r => setImmediate(r)); }'

# 1. The run queue: the target and a busy loop share CPU 0 (each gets about half of it), for
# a few seconds only: the suite runs tests side by side, and this starves CPU 0.
start_node waiter --inspect-port=0 --input-type=module -e "$BUSY"
start_node rival -e 'for (;;) {}'
taskset -apc 0 "$waiter_PID" >/dev/null
taskset -apc 0 "$rival_PID" >/dev/null
sleep 1
"$NTOP_JS" --pid "$waiter_PID" -b --json -n 3 -d 1 >"$WORK/wait.jsonl" 2>"$WORK/wait.err"
ok $? "ntop-js -b --json on a target sharing its CPU with a busy loop: status 0"
diag "$("$NODE" -e '
	for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean))
		console.log(JSON.stringify(JSON.parse(l).cpu_contention), JSON.stringify(JSON.parse(l).gc));' "$WORK/wait.jsonl")"
check "every window has cpu_contention and gc.pause_ms" jsonl_check "$WORK/wait.jsonl" '
	l => l.length === 3 && l.every(w => w.cpu_contention && "runqueue_wait_ms" in w.cpu_contention &&
		"throttled_ms" in w.cpu_contention && "throttled_periods_pct" in w.cpu_contention &&
		"quota_cores" in w.cpu_contention &&
		w.gc && typeof w.gc.pause_ms === "number") || l'
check "from the second window it waited for a CPU 25 % of the window or more (about 50 %)" \
	jsonl_check "$WORK/wait.jsonl" '
	l => l.slice(1).every(w => w.cpu_contention.runqueue_wait_ms >= 0.25 * w.window_ms) ||
		l.map(w => [w.window_ms, w.cpu_contention.runqueue_wait_ms])'
"$NTOP_JS" --pid "$waiter_PID" --no-eval -b --json -n 2 -d 1 >"$WORK/noeval.jsonl" 2>"$WORK/noeval.err"
ok $? "the same with --no-eval: status 0"
check "--no-eval keeps the kernel's figures" jsonl_check "$WORK/noeval.jsonl" '
	l => l.slice(1).every(w => w.cpu_contention.runqueue_wait_ms >= 0.25 * w.window_ms) || l'
kill "$rival_PID" 2>/dev/null
"$NTOP_JS" --pid "$waiter_PID" -b -n 2 -d 1 >"$WORK/wait.txt" 2>"$WORK/wait-txt.err"
ok $? "batch text: status 0"
check "the text report says how long it waited" grep -q '^CPU WAIT: run queue [0-9]* ms' "$WORK/wait.txt"
# The live view: the CPU line ends with the share it waited (now alone on its CPU, little;
# red from 10 %: test_view.c).
if command -v "${TMUX_BIN:-tmux}" >/dev/null 2>&1; then
	require_tmux
	term_start 160 30 "$NTOP_JS --pid $waiter_PID --no-config -d 1 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
	check "the live view's CPU line says how much of the window it waited" \
		wait_screen 20 '^CPU last 1s: JS .* idle [0-9.]+%  waited [0-9]+%'
	keys q
	check "q quits with status 0" wait_screen 10 '^EXIT=0'
	term_stop
else
	diag "tmux not found: the live view's line is not checked"
fi
kill "$rival_PID" "$waiter_PID" 2>/dev/null

# 2. A quota: the target alone in a cpu cgroup with 0.3 cores.
if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	cg_root=/sys/fs/cgroup/cpu
	cg=$cg_root/ntopjs-test-$$
	mkdir "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" && echo 30000 >"$cg/cpu.cfs_quota_us"
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
	cg_root=/sys/fs/cgroup
	echo +cpu >"$cg_root/cgroup.subtree_control" 2>/dev/null
	cg=$cg_root/ntopjs-test-$$
	mkdir "$cg" && echo "30000 100000" >"$cg/cpu.max"
fi
if [ -z "$cg" ] || [ ! -d "$cg" ]; then
	diag "no writable cpu cgroup controller here (v1 or v2): the quota half is not run"
	done_testing
	exit
fi
start_node capped --inspect-port=0 --input-type=module -e "$BUSY"
sleep 0.5
echo "$capped_PID" >"$cg/cgroup.procs"
sleep 1
"$NTOP_JS" --pid "$capped_PID" -b --json -n 4 -d 1 >"$WORK/quota.jsonl" 2>"$WORK/quota.err"
ok $? "ntop-js -b --json on a target with a quota of 0.3 cores: status 0"
diag "$("$NODE" -e '
	for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean))
		console.log(JSON.stringify(JSON.parse(l).cpu_contention));' "$WORK/quota.jsonl")"
check "its quota is reported: 0.3 cores" jsonl_check "$WORK/quota.jsonl" '
	l => l.every(w => w.cpu_contention.quota_cores === 0.3) || l.map(w => w.cpu_contention)'
# (how much depends on the CPU it gets beside the suite's other tests: about 100 % of the
# periods when it runs alone; here only that it was)
check "after the first window it was throttled, in some of the periods" \
	jsonl_check "$WORK/quota.jsonl" '
	l => l.slice(1).some(w => w.cpu_contention.throttled_ms > 0 &&
		w.cpu_contention.throttled_periods_pct > 0) ||
		l.map(w => [w.window_ms, w.cpu_contention.throttled_ms, w.cpu_contention.throttled_periods_pct])'
"$NTOP_JS" --pid "$capped_PID" -b -n 3 -d 1 >"$WORK/quota.txt" 2>/dev/null
check "the text report names the quota" \
	grep -q '^CPU WAIT: .*throttled [0-9]* ms in [0-9]*% of periods (quota 0.30 cores)' "$WORK/quota.txt"
kill "$capped_PID" 2>/dev/null
wait "$capped_PID" 2>/dev/null
done_testing
