#!/bin/bash
# ntop-js against a broken or hostile inspector (tests/impostor.js, one scenario per case).
# Whatever the other end does, ntop-js must end with the status the man page gives for it,
# say what went wrong in one line on stderr (a notice before it where documented), stay
# within its --timeout, never trip the sanitizers, and never let the peer's bytes reach the
# terminal raw: no ESC, no C0 or C1 control, only valid UTF-8, and valid JSON with --json.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

IMPOSTOR=$top_srcdir/tests/impostor.js
TMO=2
# Over the timeout: starting ntop-js (sanitized) and node, attaching, leaving, and a loaded
# machine (at most 0.5 s when idle; 2.7 s seen with a load average of 10 on 2 cores). A hang
# is far longer: the handshake used to wait forever.
SLACK_MS=3500
JOBS=4
# A run still going after this long has hung: it is killed, and its case fails.
KILL_S=${HOSTILE_KILL_S:-30}
BATCH="-b --json -n 2 -d 0.3"
TEXT="-b -n 2 -d 0.3"

# name | impostor scenario | exit status | stderr lines | ERE the last stderr line matches | ntop-js options
CASES='
good|good|0|0||
good-text|good|0|0||TEXT
good-no-eval|good|0|1|--no-eval: |BATCH --no-eval
tcp-silent|tcp-silent|9|1|did not answer GET /json/version within 2 s|
http-slowloris|http-slowloris|9|1|did not answer GET /json/version within 2 s|
http-no-end|http-no-end|9|1|did not answer GET /json/version within 2 s|
not-http|not-http|11|1|answered GET /json/version with something that is not HTTP|
http-404|http-404|11|1|with HTTP status 404|
http-huge-length|http-huge-length|11|1|announced a 10000000000-byte answer|
http-endless|http-endless|11|1|sent more than 1024 KiB|
http-huge-header|http-huge-header|11|1|something that is not HTTP|
not-node-version|not-node-version|11|1|is not Node.s inspector|
not-node-html|not-node-html|11|1|is not Node.s inspector|
version-escape|version-escape|11|1|is not Node.s inspector|
version-not-object|version-not-object|11|1|is not Node.s inspector|
list-empty|list-empty|11|1|lists no target of type "node"|
list-not-array|list-not-array|11|1|not a JSON array of targets|
list-crlf|list-crlf|11|1|listed a malformed webSocketDebuggerUrl|
list-no-url|list-no-url|0|0||
list-foreign-host|list-foreign-host|0|0||
upgrade-refused|upgrade-refused|8|1|cannot open the inspector.s websocket .*not 101|
upgrade-bad-accept|upgrade-bad-accept|8|1|cannot open the inspector.s websocket|
upgrade-extension|upgrade-extension|8|1|cannot open the inspector.s websocket|
upgrade-protocol|upgrade-protocol|8|1|cannot open the inspector.s websocket|
upgrade-redirect|upgrade-redirect|8|1|cannot open the inspector.s websocket|
upgrade-silent|upgrade-silent|9|1|did not open its websocket within 2 s|
upgrade-slowloris|upgrade-slowloris|9|1|did not open its websocket within 2 s|
close-after-upgrade|close-after-upgrade|10|1|connection to the target was lost|
not-json|not-json|11|1|not the inspector protocol: "this is not JSON at all"|
truncated-json|truncated-json|11|1|not the inspector protocol: "\{"id":1,"result|
trailing-garbage|trailing-garbage|11|1|not the inspector protocol|
json-array|json-array|11|1|not the inspector protocol|
json-number|json-number|11|1|not the inspector protocol: "42"|
deep-json|deep-json|11|1|not the inspector protocol|
empty-frames|empty-frames|11|1|not the inspector protocol: ""|
invalid-utf8|invalid-utf8|11|1|not the inspector protocol|
profile-nan|profile-nan|11|1|not the inspector protocol|
masked-server-frames|masked-server-frames|11|1|not the inspector protocol|
id-string|id-string|11|1|not the inspector protocol|
id-float|id-float|11|1|not the inspector protocol|
id-huge|id-huge|11|1|not the inspector protocol|
wrong-id|wrong-id|11|1|answered a request ntop-js never sent|
negative-id|negative-id|11|1|answered a request ntop-js never sent|
duplicate-id|duplicate-id|0|0||
result-wrong-type|result-wrong-type|11|1|reply to Profiler.setSamplingInterval has no result|
result-string|result-string|11|1|reply to Profiler.setSamplingInterval has no result|
no-result|no-result|11|1|reply to Profiler.setSamplingInterval has no result|
error-escape|error-escape|11|1|refused Profiler.setSamplingInterval: \?\]0;pwned\?|
exception|exception|11|1|console.profile threw an exception|
never-reply|never-reply|9|1|did not answer the heap reading within 2 s|
never-reply-no-eval|never-reply|9|2|did not answer Runtime.getHeapUsage within 2 s|BATCH --no-eval
pause-big|pause-big|12|1|would pause the target( .PID [0-9]+.)? for about [0-9.]+ s .heap 2.8 GB.; --max-pause [0-9.]+ allows it, and --no-cpu watches memory without it|
pause-big-allowed|pause-big|0|0||BATCH --max-pause 10
pause-big-no-cpu|pause-big|0|0||BATCH --no-cpu
pause-big-alloc|pause-big|12|1|--alloc forces a full garbage collection at every profile fetch, which would pause the target( .PID [0-9]+.)? for about [0-9.]+ s .heap 2.8 GB. each time|BATCH --no-cpu --alloc
never-reply-evaluate|never-reply-evaluate|9|1|did not answer console.profile within 2 s|
never-reply-getheapusage|never-reply-getheapusage|9|1|did not answer Runtime.getHeapUsage within 2 s|BATCH -n 50
slow-replies|slow-replies|0|0||
slow-refuse|slow-refuse|11|1|refused console.profile: Another profiler is already running|
huge-message|huge-message|11|1|larger than 512 MB; ntop-js closed the connection|
huge-length-max|huge-length-max|11|1|larger than 512 MB; ntop-js closed the connection|
huge-message-dribble|huge-message-dribble|9|1|did not answer the heap reading within 2 s|
huge-message-under-cap|huge-message-under-cap|9|1|did not answer the heap reading within 2 s|
close-mid-message|close-mid-message|10|1|connection to the target was lost|
tcp-reset|tcp-reset|10|1|connection to the target was lost|
close-frame-escape|close-frame-escape|10|1|connection to the target was lost|
rsv-bits|rsv-bits|10|1|connection to the target was lost|
reserved-opcode|reserved-opcode|10|1|connection to the target was lost|
oversized-ping|oversized-ping|10|1|connection to the target was lost|
fragmented-ping-frame|fragmented-ping-frame|10|1|connection to the target was lost|
stray-continuation|stray-continuation|10|1|connection to the target was lost|
waiting-for-disconnect|waiting-for-disconnect|10|1|the target( \(PID [0-9]+\))? exited|
detached|detached|10|1|detached ntop-js.s session|
no-profile-event|no-profile-event|9|1|ended a window but did not send its profile within 2 s|
wrong-title|wrong-title|9|1|ended a window but did not send its profile within 2 s|
profile-missing|profile-missing|11|1|a finished profile came without its data|
stray-profiles|stray-profiles|0|0||
bad-profile-once|bad-profile-once-unknown-child|0|1|ignored a window whose profile is invalid: .*unknown child 999999|
bad-profile-no-eval|bad-profile-cycle|11|3|3 invalid profiles in a row|BATCH --no-eval
negative-deltas|negative-deltas|0|0||
huge-values|huge-values|0|0||
escapes|escapes|0|0||
escapes-text|escapes|0|0||TEXT
bad-memory|bad-memory|0|0||
jit-v8-11|jit-v8-11|0|0||BATCH --inlining off
jit-v8-11-repair|jit-v8-11|0|1|inlined functions are not repaired: the target refused Profiler.getBestEffortCoverage.|BATCH --inlining repair
jit-refused|jit-refused|0|0||BATCH --inlining off
jit-evil|jit-evil|0|0||
binary-frames|binary-frames|0|0||
ping-frames|ping-frames|0|0||
fragmented|fragmented|0|0||
fragmented-ping|fragmented-ping|0|0||
no-close-ack|no-close-ack|0|0||
'
for kind in unknown-child cycle self-child root-child two-parents duplicate-node-id orphan \
	unknown-sample deltas-mismatch negative-ids negative-hitcount float-ids huge-ids \
	string-numbers no-nodes empty-nodes nodes-not-array callframe-not-object children-not-array; do
	CASES="$CASES
bad-profile-$kind|bad-profile-$kind|11|2|3 invalid profiles in a row; the last one: invalid profile: |"
done
# Heavy ones run alone, after the others: their time is their own. The 200,000-deep chain is a
# 31 MB message, which the sanitized build takes about a second to read and check: its case is
# about depth, so it gets a longer timeout.
HEAVY='
event-flood|event-flood|0|0||
deep-chain|deep-chain|0|0||BATCH --timeout 5
long-names|long-names|0|0||TEXT
'

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run_case NAME SCENARIO OPTIONS: the impostor, then ntop-js against it; results in $WORK/NAME.
run_case() {
	local d=$WORK/$1 scenario=$2 opts=$3 ipid port i t0
	mkdir -p "$d"
	"$NODE" "$IMPOSTOR" "$scenario" >"$d/imp.out" 2>"$d/imp.err" &
	ipid=$!
	for i in $(seq 300); do
		port=$(head -n 1 "$d/imp.out" | grep -x '[0-9]\+')
		[ -n "$port" ] && break
		sleep 0.05
	done
	echo "$port" >"$d/port"
	t0=$(now_ms)
	# shellcheck disable=SC2086
	timeout -s KILL "$KILL_S" "$NTOP_JS" --port "$port" --timeout $TMO $opts \
		>"$d/out" 2>"$d/err" </dev/null
	echo $? >"$d/rc"
	echo $(( $(now_ms) - t0 )) >"$d/ms"
	# what the impostor says when the connection ends
	case $scenario in slow-*) wait_for 5 grep -q '^bye' "$d/imp.out" ;; esac
	kill "$ipid" 2>/dev/null
	wait "$ipid" 2>/dev/null
}

opts_of() {
	case $1 in
	'') echo "$BATCH" ;;
	BATCH*) echo "$BATCH${1#BATCH}" ;;
	TEXT*) echo "$TEXT${1#TEXT}" ;;
	*) echo "$BATCH $1" ;;
	esac
}

# Bytes a terminal would act on: C0 controls but tab and newline, DEL, C1 (as UTF-8), and
# invalid UTF-8.
term_unsafe() {
	LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" && return 0
	! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

# check_case NAME SCENARIO STATUS LINES REGEX OPTIONS
check_case() {
	local name=$1 scenario=$2 want=$3 lines=$4 re=$5 opts=$6 d=$WORK/$1 rc ms n tmo=$TMO
	[[ $opts =~ --timeout\ ([0-9]+) ]] && tmo=${BASH_REMATCH[1]}
	rc=$(cat "$d/rc")
	ms=$(cat "$d/ms")
	ok $([ "$rc" = "$want" ]; echo $?) "$name: exit status $want (got $rc)"
	[ "$rc" = "$want" ] || diag "$name stderr: $(cat "$d/err")"
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$d/err"; then
		ok 1 "$name: no sanitizer report"
		diag "$(head -n 20 "$d/err")"
	else
		ok 0 "$name: no sanitizer report"
	fi
	n=$(wc -l <"$d/err")
	if [ "$lines" -eq 0 ]; then
		ok $([ "$n" -eq 0 ]; echo $?) "$name: nothing on stderr"
	else
		ok $([ "$n" -eq "$lines" ] && tail -n 1 "$d/err" | grep -qE "^ntop-js: .*$re"; echo $?) \
			"$name: $lines line(s) on stderr, the last one says /$re/"
	fi
	[ "$n" -le 1 ] || [ "$lines" -ne 1 ] || diag "$name stderr: $(cat "$d/err")"
	if [ "$lines" -ge 2 ]; then
		ok $(head -n -1 "$d/err" | grep -qE '^ntop-js: (ignored a window whose profile is invalid|--no-eval: )'
			echo $?) "$name: a notice came first"
	fi
	ok $([ "$ms" -le $((tmo * 1000 + SLACK_MS)) ]; echo $?) \
		"$name: ended within the timeout and ${SLACK_MS} ms (took $ms ms)"
	ok $(! term_unsafe "$d/err" && ! term_unsafe "$d/out"; echo $?) \
		"$name: no control character or invalid UTF-8 on stdout or stderr"
	if [ "$want" -eq 0 ]; then
		case $opts in
		*--json*)
			check "$name: two windows of valid JSON" jsonl_check "$d/out" \
				'l => l.length === 2 && l.every(w => Array.isArray(w.top)) || l.length' ;;
		*)
			ok $([ "$(grep -c '^ntop-js - ' "$d/out")" -eq 2 ]; echo $?) "$name: two text reports" ;;
		esac
	fi
	grep -q '^client-violation' "$d/imp.out" && diag "$name: $(grep '^client-violation' "$d/imp.out")"
	ok $(! grep -q '^client-violation' "$d/imp.out"; echo $?) \
		"$name: every frame ntop-js sent is one Node accepts"
}

run_all() { # run_all CASES PARALLEL
	local name scenario want lines re opts
	while IFS='|' read -r name scenario want lines re opts; do
		[ -n "$name" ] || continue
		run_case "$name" "$scenario" "$(opts_of "$opts")" &
		while [ "$(jobs -rp | wc -l)" -ge "$2" ]; do wait -n; done
	done <<<"$1"
	wait
}

check_all() {
	local name scenario want lines re opts
	while IFS='|' read -r name scenario want lines re opts; do
		[ -n "$name" ] || continue
		check_case "$name" "$scenario" "$want" "$lines" "$re" "$(opts_of "$opts")"
	done <<<"$1"
}

started=$(now_ms)
run_all "$CASES" $JOBS
run_all "$HEAVY" 1
diag "all cases ran in $(( $(now_ms) - started )) ms"
check_all "$CASES"
check_all "$HEAVY"

# Case by case, what the table cannot say.
check "jit-v8-11: the inlining flag of V8 11 for the session, the deopt, then the profiler off and the flag back" \
	diff <(printf 'switch-off %s\ncall %s\ncall %s\ncall %s\nput-back\n' '--turbo-inlining' \
		Profiler.startPreciseCoverage Profiler.stopPreciseCoverage Profiler.disable) \
	<(grep -E '^switch-off |^put-back|^call Profiler\.((start|stop)PreciseCoverage|disable)$' "$WORK/jit-v8-11/imp.out")
check "jit-v8-11: the windows say so" jsonl_check "$WORK/jit-v8-11/out" \
	'l => l.every(w => w.inlining.exact && w.inlining.deoptimized &&
		w.inlining.v8_flags === "--no-turbo-inlining") || l[0].inlining'
check "jit-refused: a refused deoptimization does not end the session, and is said" \
	jsonl_check "$WORK/jit-refused/out" 'l => l.every(w => !w.inlining.exact &&
		w.inlining.why_not === "the target refused precise coverage" &&
		w.top.every(f => f.function.startsWith("(") || f.self_may_include_inlined)) || l[0].inlining'
check "jit-refused: the flags set before it are put back" grep -qx 'put-back' \
	"$WORK/jit-refused/imp.out"
check "jit-evil: a version that is not one changes nothing" jsonl_check "$WORK/jit-evil/out" \
	'l => l.every(w => !w.inlining.exact && w.inlining.why_not === "unknown V8 version") || l[0].inlining'
ok $(! grep -q '^switch-off' "$WORK/jit-evil/imp.out"; echo $?) "jit-evil: and sets no flag"
port=$(cat "$WORK/list-foreign-host/port")
check "list-foreign-host: the websocket went to the address ntop-js was given, not the listed one" \
	grep -qx "upgrade /0f2c9b43-7d0e-4f8e-9d51-5d7e4c1a2b3c-foreign host=127.0.0.1:$port" \
	"$WORK/list-foreign-host/imp.out"
ok $(! grep -q decoy-connected "$WORK/upgrade-redirect/imp.out"; echo $?) \
	"upgrade-redirect: the redirect was not followed"
ms=$(sed -n 's/^closed \([0-9]*\) ms after the huge header$/\1/p' "$WORK/huge-message/imp.out")
ok $([ "${ms:-99999}" -lt $((TMO * 1000)) ]; echo $?) \
	"huge-message: refused when announced, without waiting for the rest (closed after ${ms:-?} ms)"
check "escapes-text: the escape sequences are shown as '?'" \
	grep -q '?\]0;pwned?osc' "$WORK/escapes-text/out"
check "escapes-text: so is the 8-bit CSI" grep -q '??31mcsi8bit' "$WORK/escapes-text/out"
check "escapes-text: the title is shown, cleaned" grep -q 'title ?\]0;pwned?osc ?\[2Jclear' \
	"$WORK/escapes-text/out"
check "escapes: --json keeps the names, escaped" jsonl_check "$WORK/escapes/out" \
	'l => l[0].top.some(f => f.function.startsWith("\u001b]0;pwned\u0007osc")) &&
		l[0].top.some(f => f.function.startsWith("\u009b31m")) || JSON.stringify(l[0].top)'
check "error-escape: the refusal is shown, cleaned" grep -q '?\[2J??31m refused' \
	"$WORK/error-escape/err"
check "long-names: the long name is cut" grep -q '^ .* nnnnnnnn*\.\.\.[ +] ' "$WORK/long-names/out"
long=$(awk 'length > 300' "$WORK/long-names/out" | wc -l)
ok $([ "$long" -eq 0 ]; echo $?) "long-names: no report line is longer than 300 bytes"
flood=$(sed -n 's/^flood-sent //p' "$WORK/event-flood/imp.out")
ok $([ "${flood:-0}" -ge 2000 ]; echo $?) "event-flood: ntop-js worked through ${flood:-0} events"

check "bad-profile-once: the windows after the bad one were reported" jsonl_check \
	"$WORK/bad-profile-once/out" 'l => l.length === 2 && l[0].samples > 0 || l.length'
# (ntop-js ends its connections without a close frame, which Node's inspector.close() can
# cross fatally: transport.c; a peer that would never acknowledge one cannot hold it either)
check "no-close-ack: ntop-js ended the connection itself" grep -qx bye "$WORK/no-close-ack/imp.out"
# A failure while calls are in flight (a refusal, with the calls before it answered 400 ms late)
# ends the connection only once they are answered: Node 20 kills itself writing an answer to a
# connection whose end it has read.
for name in slow-replies slow-refuse; do
	check "$name: the connection ended with every request answered ($(grep '^end' "$WORK/$name/imp.out"))" \
		grep -qx 'end unanswered=0' "$WORK/$name/imp.out"
done
check "no-close-ack: without a close frame" eval '! grep -q client-close "$WORK/no-close-ack/imp.out"'
check "good: ntop-js left the profiler as it found it" grep -qx 'call Profiler.disable' \
	"$WORK/good/imp.out"

# A signal while the handshake hangs ends the session at once (it used to wait forever).
mkdir -p "$WORK/sig"
"$NODE" "$IMPOSTOR" upgrade-silent >"$WORK/sig/imp.out" 2>/dev/null &
ipid=$!
wait_for 10 grep -qx '[0-9]\+' "$WORK/sig/imp.out"
port=$(head -n 1 "$WORK/sig/imp.out")
t0=$(now_ms)
"$NTOP_JS" --port "$port" --timeout 30 $BATCH >"$WORK/sig/out" 2>"$WORK/sig/err" </dev/null &
npid=$!
pids_to_kill="$pids_to_kill $npid $ipid"
wait_for 10 grep -q '^upgrade ' "$WORK/sig/imp.out"
kill -TERM "$npid"
wait_for 10 dead "$npid" || kill -KILL "$npid"
wait "$npid"
rc=$?
ms=$(( $(now_ms) - t0 ))
ok $([ $rc -eq 0 ]; echo $?) "SIGTERM during a hanging handshake: exit status 0 (got $rc)"
ok $([ $ms -lt 5000 ]; echo $?) "SIGTERM during a hanging handshake: ends at once ($ms ms)"
check "SIGTERM during a hanging handshake: nothing on stderr" test ! -s "$WORK/sig/err"
kill "$ipid" 2>/dev/null
wait "$ipid" 2>/dev/null
done_testing
