#!/bin/bash
# Nothing a session changed in the JIT stays once it left, on every Node version of the matrix:
# code V8 optimized while the session's inlining flags were off would otherwise stay without
# its inlining until V8 happened to optimize it again (a server a fifth to a half slower for
# the rest of its life). When the flags go back, the target deoptimizes its code once more, so
# that hot code is optimized again with its inlining: at a polite exit, after a weekend mode's
# CPU burst, and (jit_lease.sh) by the lease's timer once ntop-js was killed. On Node 26 no
# flag is changed: the code is deoptimized once at the attach (for the OSR code compiled before
# it) and optimized again with its inlining, and the exit does nothing.
# tests/targets/reopt.js prints V8's own "optimized"/"deoptimized" for its hot function.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

versions=${NTOP_NODE_VERSIONS:-$NODE_MATRIX}

deopts() { grep -c '^deoptimized' "$WORK/$1.out"; }
# deopted_since NAME N: the target printed more than N deoptimizations, then optimized again.
deopted_since() {
	[ "$(deopts "$1")" -gt "$2" ] && [ "$(last_status "$1")" = optimized ]
}
last_status() { grep -E '^(optimized|deoptimized)$' "$WORK/$1.out" | tail -n 1; }
# switches NAME: the coverage-mode switches the target made through an in-process session.
switches() { grep -c '^session Profiler.startPreciseCoverage' "$WORK/$1.out"; }

# plan VERSION: what the session does to the JIT on that line (src/jitplan.c): "redeopt"
# (flags off and a deoptimization at the attach, flags back and another at the exit), or
# "attach" (V8 14 names inlined frames itself: no flag, one deoptimization at the attach). On
# Node 26 too V8 does not always optimize this target's hot function again soon: in one try of
# three beside CPU hogs it was not optimized again 30 s after the attach's deoptimization
# (doc/inlining.md), so there only the deoptimization and the quiet exit are checked. On Node 22 the same as "redeopt", but this
# target's one hot function is not always optimized again: V8 12 leaves it in baseline code
# for 30 s and more in some tries (doc/inlining.md; the express servers of bench/jit-cost.sh
# came back to their full rate), so only the two deoptimizations are checked there.
plan() {
	case $1 in
	22*) echo redeopt-only ;;
	26*) echo attach ;;
	*) echo redeopt ;;
	esac
}
# unopt_at_exit_reoptimized NAME: between the attach's deoptimization and the exit's coverage
# switch the target printed "optimized" (so the switch had optimized code to drop).
unopt_at_exit_reoptimized() {
	awk '/^deoptimized$/ && !d { d = 1; next } d && /^optimized$/ { o = 1 }
		/^session Profiler.startPreciseCoverage/ { exit !o } END { }' "$WORK/$1.out"
}
# deopted NAME N: the target printed N deoptimizations or more.
deopted() { [ "$(deopts "$1")" -ge "$2" ]; }

for v in $versions; do
	matrix_node "$v" || continue
	tag=r${v//[^0-9A-Za-z]/_}
	NODE=$nb start_node "$tag" --inspect-port=0 "$TARGETS/reopt.js"
	pv=${tag}_PID
	t="node $("$nb" --version):"
	check "$t the target's hot function is optimized" wait_for 20 grep -q ready "$WORK/$tag.out"
	"$NTOP_JS" --pid "${!pv}" --inlining off -b --json -n 3 -d 0.5 >"$WORK/$tag.jsonl" 2>"$WORK/$tag.err"
	ok $? "$t a session of three windows"
	diag "$v: flags $(jsonl_check "$WORK/$tag.jsonl" 'l => console.log(l[0].inlining.v8_flags) || true')"
	case $(plan "$v") in
	redeopt)
		# One deoptimization at the attach (the plan), one when the flags went back.
		check "$t V8 deoptimized it at the attach and again at the exit, then optimized it again" \
			wait_for 10 deopted_since "$tag" 1 ;;
	redeopt-only)
		# (when V8 12 left it in baseline code from the attach's deoptimization to the exit,
		# the exit's switch, which the target made, had no optimized code to drop)
		check "$t V8 deoptimized it at the attach and again at the exit (or it was not optimized again before it)" \
			wait_for 5 eval 'deopted "$tag" 2 || { [ "$(switches "$tag")" -ge 1 ] && ! unopt_at_exit_reoptimized "$tag"; }' ;;
	attach)
		check "$t V8 deoptimized it once at the attach" wait_for 5 deopted "$tag" 1
		sleep 2
		check "$t and the exit left it alone (no flag to put back, no second deoptimization)" \
			eval '[ "$(deopts "$tag")" -eq 1 ] && [ "$(switches "$tag")" -eq 0 ]'
		diag "$v: after the exit: $(last_status "$tag")" ;;
	esac
	diag "$v: $(deopts "$tag") deoptimization(s)"
	if [ "$(plan "$v")" != attach ]; then
		# A weekend mode's burst: the profiler off between bursts puts the flags back as
		# well. One burst (the first window), then a window of memory only: the burst's end
		# switches the coverage mode in the target (the deoptimization), and V8 optimizes
		# the code again.
		m=$(switches "$tag")
		"$NTOP_JS" --pid "${!pv}" --inlining off -b --json -n 2 -d 1 --cpu-every 30 \
			>"$WORK/$tag.burst.jsonl" 2>"$WORK/$tag.burst.err"
		ok $? "$t a session with CPU bursts"
		check "$t its burst's end deoptimized the code (and its exit did not again)" \
			eval '[ "$(switches "$tag")" -eq $((m + 1)) ]'
		if [ "$(plan "$v")" = redeopt ]; then
			check "$t and V8 optimized it again" \
				wait_for 10 eval '[ "$(last_status "$tag")" = optimized ]'
		fi
	fi
	check "$t the target is still running" alive "${!pv}"
	diag "$v: $(tr "\n" " " <"$WORK/$tag.out")"
	kill "${!pv}" 2>/dev/null
done

# Bytecode flushing: a break at an unused built-in's entry (src/engine_jit.c) would leave it
# on, the switch of the coverage mode leaves it off for the life of the process; the break is
# not used for now (targets died of it: src/jitplan.c), and this checks what the switch does.
# tests/targets/flush.js with --stress-flush-code: after a session of the repair's plan, a GC
# still flushes (V8's trace says so between two probes).
# flushed NAME FROM TO: flush lines in NAME's output between "probed FROM" and "probed TO".
flushed() {
	awk -v a="probed $2" -v b="probed $3" '$0 == a { on = 1; next } $0 == b { on = 0 }
		on && (/discarding compiled metadata/ || /[1-9][0-9]* flushed SharedFunctionInfo/) { n++ }
		END { print n + 0 }' "$WORK/$1.out"
}
probed() { grep -qx "probed $2" "$WORK/$1.out"; }
first=yes
for v in $versions; do
	matrix_node "$v" || continue
	# on the first version also a target whose built-ins are used up: the coverage switch
	# deoptimizes instead, and flushing is off after it (what the check above would see)
	for kind in fresh ${first:+used-up}; do
		tag=f${kind%%-*}${v//[^0-9A-Za-z]/_}
		trace=$("$nb" --v8-options | grep -o -- '--trace-flush-[a-z]*' | head -n 1)
		NODE=$nb start_node "$tag" --inspect-port=0 --stress-flush-code $trace "$TARGETS/flush.js" $kind
		pv=${tag}_PID
		t="node $("$nb" --version) ($kind built-ins):"
		wait_for 10 grep -q ready "$WORK/$tag.out"
		kill -USR2 "${!pv}"
		wait_for 5 probed "$tag" 1
		"$NTOP_JS" --pid "${!pv}" --inlining repair -b --json -n 2 -d 0.5 >"$WORK/$tag.jsonl" \
			2>"$WORK/$tag.ntop.err"
		ok $? "$t a session of the repair's plan (the default on Node 18 to 24)"
		check "$t it deoptimized the code once" jsonl_check "$WORK/$tag.jsonl" \
			'l => l.every(w => w.inlining.deoptimized === true && w.inlining.v8_flags === "") || l[0].inlining'
		kill -USR2 "${!pv}"
		wait_for 5 probed "$tag" 2
		kill -USR2 "${!pv}"
		wait_for 5 probed "$tag" 3
		n=$(flushed "$tag" 2 3)
		switch_only=yes # every version, for now (src/jitplan.c says why)
		if [ "$kind" = fresh ] && [ -z "$switch_only" ]; then
			ok "$([ "$n" -gt 0 ]; echo $?)" "$t and V8 still flushes bytecode after it ($n flushes traced)"
		elif [ "$kind" = fresh ]; then
			# the coverage switch deoptimizes (src/jitplan.c says why)
			ok "$([ "$n" -eq 0 ]; echo $?)" "$t by the coverage switch on this V8: flushing is off after it ($n flushes traced)"
		else
			ok "$([ "$n" -eq 0 ]; echo $?)" "$t by the coverage switch: flushing is off after it ($n flushes traced)"
		fi
		kill "${!pv}" 2>/dev/null
	done
	first=
done
done_testing
