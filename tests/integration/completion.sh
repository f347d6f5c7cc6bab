#!/bin/bash
# Bash completion (completion/ntop-js), as bash calls it: options from the binary's --help,
# --pid offering the Node processes that ntop-js --list finds with their command lines (and
# no other process), --sort's columns, files, and the program after "--".
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target "$TARGETS/idle.js" completion-marker
start_node other "$TARGETS/idle.js" other-marker
wait_for 10 grep -q ready "$WORK/target.out"
wait_for 10 grep -q ready "$WORK/other.out"
sleep 30 &
notnode=$!
pids_to_kill="$pids_to_kill $notnode"
mkdir -p "$WORK/bin" "$WORK/files"
ln -s "$NTOP_JS" "$WORK/bin/ntop-js"
touch "$WORK/files/prof.cpuprofile"

# complete WORDS...: what the completion offers for the last word, one per line
complete_words() {
	PATH="$WORK/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_ntop_js; printf "%s\n" "${COMPREPLY[@]}"' _ "$top_srcdir/completion/ntop-js" "$@"
}

complete_words ntop-js --so >"$WORK/opt.out"
check "--so: --sort, from --help" grep -qx -- --sort "$WORK/opt.out"
complete_words ntop-js - >"$WORK/all.out"
check "every option --help names, and nothing else" bash -c "
	'$NTOP_JS' --help | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u |
	diff - <(sort -u '$WORK/all.out')"
complete_words ntop-js --sort t >"$WORK/sort.out"
check "--sort t: total and total-time" diff <(printf 'total\ntotal-time\n') "$WORK/sort.out"
complete_words ntop-js --pid "" >"$WORK/pid.out"
diag "--pid offers: $(tr '\n' '|' <"$WORK/pid.out")"
check "--pid: the Node targets, each with its command line" bash -c "
	grep -qE '^$target_PID  .*idle\.js' '$WORK/pid.out' && grep -qE '^$other_PID  .*idle\.js' '$WORK/pid.out'"
check "and not a process that is not Node" bash -c "! grep -q '^$notnode ' '$WORK/pid.out'"
complete_words ntop-js -p "$target_PID" >"$WORK/pid1.out"
check "a single match: its PID alone" diff <(echo "$target_PID") "$WORK/pid1.out"
complete_words ntop-js -o "$WORK/files/pr" >"$WORK/file.out"
check "-o: files" grep -qx "$WORK/files/prof.cpuprofile" "$WORK/file.out"
complete_words ntop-js --diff "$WORK/files/pr" >"$WORK/diff1.out"
complete_words ntop-js --diff "$WORK/files/prof.cpuprofile" "$WORK/files/pr" >"$WORK/diff2.out"
check "--diff A B: files, both" bash -c "grep -qx '$WORK/files/prof.cpuprofile' '$WORK/diff1.out' &&
	grep -qx '$WORK/files/prof.cpuprofile' '$WORK/diff2.out'"
complete_words ntop-js -- nod >"$WORK/cmd.out"
check "after --: a program to start" grep -qx node "$WORK/cmd.out"
check "the target is still running" alive "$target_PID"
check "and was never signalled (no inspector)" bash -c "! grep -q Debugger '$WORK/target.err'"
done_testing
