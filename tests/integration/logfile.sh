#!/bin/bash
# --log at a path another user prepared: a symbolic link planted (in a sticky directory, as
# in /tmp) to a file only root reads is refused before the target is touched, and that file
# is unchanged; so are an existing file others can read (0644) and one of another user. An
# existing file of ntop-js's own user with mode 0600 is appended to, and a new one is created
# with mode 0600 whatever the umask.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node

start_node target --inspect-port=0 "$TARGETS/idle.js"
wait_ready target

# log_run PATH NAME: a two-window batch run logging to PATH; status in $rc, stderr in NAME.err
log_run() {
	"$NTOP_JS" -b --pid "$target_PID" --no-config -n 2 -d 0.3 --log "$1" >/dev/null 2>"$WORK/$2.err"
	rc=$?
}
# inspector_opened: whether the target has opened its inspector (node says so on stderr)
inspector_opened() { grep -q "Debugger listening" "$WORK/target.err"; }

# a world-writable sticky directory, as /tmp is, with a file that only root reads
mkdir -m 1777 "$WORK/tmp"
printf 'root only\n' >"$WORK/secret"
chmod 600 "$WORK/secret"
sum=$(cksum <"$WORK/secret")
if id nobody >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	chmod 711 "$WORK"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$WORK/secret" "$WORK/tmp/app.log"
else
	ln -s "$WORK/secret" "$WORK/tmp/app.log"
fi
check "a symlink to the root-only file is planted (owner $(stat -c %U "$WORK/tmp/app.log"))" \
	test -L "$WORK/tmp/app.log"

log_run "$WORK/tmp/app.log" link
ok "$([ $rc -eq 2 ] && grep -q "symbolic link" "$WORK/link.err"; echo $?)" \
	"--log at a planted symlink: exit status 2 and a sentence (got $rc: $(head -c 200 "$WORK/link.err"))"
ok "$([ "$(cksum <"$WORK/secret")" = "$sum" ]; echo $?)" "the file it points to is unchanged"
ok "$(! inspector_opened; echo $?)" "refused before the target's inspector is opened"

printf 'mine, for all to read\n' >"$WORK/open.log"
chmod 644 "$WORK/open.log"
log_run "$WORK/open.log" open
ok "$([ $rc -eq 2 ] && grep -q "other users" "$WORK/open.err"; echo $?)" \
	"an existing --log file with mode 0644: exit status 2 (got $rc: $(head -c 200 "$WORK/open.err"))"
ok "$([ "$(cat "$WORK/open.log")" = "mine, for all to read" ] &&
	[ "$(stat -c %a "$WORK/open.log")" = 644 ]; echo $?)" "left as it was"

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "an existing --log file of another user is refused" "needs root and the user nobody"
	skip "and left as it was" "needs root and the user nobody"
else
	printf 'nobody'"'"'s\n' >"$WORK/theirs.log"
	chmod 600 "$WORK/theirs.log"
	chown nobody "$WORK/theirs.log"
	log_run "$WORK/theirs.log" theirs
	ok "$([ $rc -eq 2 ] && grep -q "another user" "$WORK/theirs.err"; echo $?)" \
		"an existing --log file of another user (nobody, mode 0600): exit status 2 (got $rc: $(head -c 200 "$WORK/theirs.err"))"
	ok "$([ "$(cat "$WORK/theirs.log")" = "nobody's" ]; echo $?)" "and left as it was"
fi

printf '{"type":"gap","time":1}\n' >"$WORK/own.log"
chmod 600 "$WORK/own.log"
log_run "$WORK/own.log" own
ok "$([ $rc -eq 0 ]; echo $?)" "our own --log file with mode 0600: status 0 (got $rc: $(head -c 200 "$WORK/own.err"))"
ok "$([ "$(head -1 "$WORK/own.log")" = '{"type":"gap","time":1}' ] &&
	grep -q '"type":"attach"' "$WORK/own.log"; echo $?)" "appended to, after what it held"

(umask 000; log_run "$WORK/new.log" new; exit $rc)
ok "$([ $? -eq 0 ] && [ "$(stat -c %a "$WORK/new.log")" = 600 ]; echo $?)" \
	"a new --log file has mode 0600 under umask 000 (got $(stat -c %a "$WORK/new.log" 2>/dev/null))"
done_testing
