#!/bin/bash
# Files a target names are read with the target's rights. A target running as nobody names a
# root-only source map in its sourceMappingURL comment, and compiles code under the file name
# of a root-only file: ntop-js, as root, shows neither the map's names and sources (batch
# JSON, --folded) nor the file's lines (the detail screen's hot lines), and the screen says
# why. A map that nobody can read is still used, and the hot lines of a script nobody can
# read still show its text.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux
[ "$(id -u)" = 0 ] || skip_all "not root: a target of another user needs root"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv not found (util-linux)"
nogroup=$(id -g nobody 2>/dev/null) || skip_all "no user nobody"
as_nobody() { setpriv --reuid=nobody --regid="$nogroup" --clear-groups "$@"; }
as_nobody "$NODE" -e 0 2>/dev/null || skip_all "nobody cannot run $NODE"

# nobody may pass through $WORK to its own directory, not into the secret one
chmod 0711 "$WORK"
pub=$WORK/pub
secret=$WORK/secret
mkdir -m 0755 "$pub"
mkdir -m 0700 "$secret"

# A map for N lines whose every line maps to source 0, line 0, column 0, name 0.
map_json() { # map_json NAME SOURCE TEXT
	local m="AAAAA" i
	for ((i = 1; i < 40; i++)); do m="$m;AAAAA"; done
	printf '{"version":3,"sources":["%s"],"sourcesContent":["%s"],"names":["%s"],"mappings":"%s"}\n' \
		"$2" "$3" "$1" "$m"
}
map_json secretFunctionName secretSourceFile.ts secretSourceText >"$secret/private.map"
printf '// secretLineText %s\n' 1 2 3 4 5 6 >"$secret/secret.js"
chmod 0600 "$secret/private.map" "$secret/secret.js"
map_json publicMappedName publicSource.ts publicSourceText >"$pub/lib.js.map"

cat >"$pub/lib.js" <<'EOF'
function hotPublic() {
	let s = 0;
	for (let i = 0; i < 200000; i++) s = (s * 13 + i) % 1000033;
	return s;
}
module.exports = hotPublic;
//# sourceMappingURL=lib.js.map
EOF
cat >"$pub/app.js" <<EOF
const vm = require('vm');
const hotPublic = require('./lib.js');
function hotMapped() {
	let s = 0;
	for (let i = 0; i < 200000; i++) s = (s * 31 + i) % 1000003;
	return s;
}
// compiled under the name of a file that only root can read
const hotSecret = vm.runInThisContext('(function hotSecret() {\n\tlet s = 0;\n' +
	'\tfor (let i = 0; i < 200000; i++) s = (s * 7 + i) % 999983;\n\treturn s;\n})',
	{ filename: process.argv[2] });
function tick() {
	const end = Date.now() + 50;
	while (Date.now() < end) { hotMapped(); hotSecret(); hotPublic(); }
	setTimeout(tick, 5);
}
console.log('ready');
tick();
//# sourceMappingURL=$secret/private.map
EOF
chmod 0644 "$pub"/*

# setpriv execs node: $! is the target
setpriv --reuid=nobody --regid="$nogroup" --clear-groups "$NODE" --inspect-port=0 "$pub/app.js" "$secret/secret.js" \
	>"$WORK/app.out" 2>"$WORK/app.err" &
app_PID=$!
pids_to_kill="$pids_to_kill $app_PID"
wait_ready app || diag "the target did not start: $(cat "$WORK/app.err")"
check "the target runs as nobody" grep -qE "^Uid:\s+$(id -u nobody)\s" "/proc/$app_PID/status"
check "and root can read what it cannot" bash -c "as_nobody() { setpriv --reuid=nobody \
	--regid=$nogroup --clear-groups \"\$@\"; }; ! as_nobody cat '$secret/private.map' 2>/dev/null &&
	grep -q secretFunctionName '$secret/private.map'"

"$NTOP_JS" --pid "$app_PID" --no-config -b --json -n 5 -t 8 --folded "$WORK/app.folded" \
	>"$WORK/app.jsonl" 2>"$WORK/ntop.err"
ok $? "ntop-js -b --json on it: status 0 ($(head -c 300 "$WORK/ntop.err"))"
check "the map nobody can read is used: hotPublic is publicMappedName in the last windows" \
	jsonl_check "$WORK/app.jsonl" "l => l.length === 5 && l.slice(3).every(w => w.top.some(f => f.function ===
		'hotPublic' && f.original && f.original.function === 'publicMappedName'))"
check "the hot functions of app.js and the secret file are in the report" \
	jsonl_check "$WORK/app.jsonl" "l => l.length === 5 && l.slice(3).every(w => ['hotMapped', 'hotSecret'].every(n =>
		w.top.some(f => f.function === n)))"
check "the root-only map's names and sources are nowhere in the JSON" \
	bash -c "grep -q publicMappedName '$WORK/app.jsonl' && ! grep -qE 'secretFunctionName|secretSourceFile|secretSourceText' '$WORK/app.jsonl'"
check "nor in --folded" bash -c "grep -q publicMappedName '$WORK/app.folded' &&
	! grep -qE 'secretFunctionName|secretSourceFile' '$WORK/app.folded'"
check "nor on stderr" bash -c "! grep -qE 'secretFunctionName|secretLineText' '$WORK/ntop.err'"

# The detail screen: hot lines of the code named after the root-only file, then of app.js.
term_start 160 40 "$NTOP_JS --pid $app_PID --no-config 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
wait_screen 20 ' hotSecret '
keys / h o t S e c r e t Enter
sleep 0.3
keys Enter
check "Enter on hotSecret: its details" wait_screen 10 '^FUNCTION hotSecret'
check "the screen says why its lines have no text" \
	wait_screen 15 "Source not shown: .*secret/secret\.js is not readable by the target's user \(uid $(id -u nobody)\)\."
check "its hot line is there (V8's line 3), without the file's text" wait_screen 10 '^ +[0-9.]+% +line 3 +[0-9]+ ticks *$'
screen >"$WORK/secret.screen"
check "the root-only file's lines are not on the screen" \
	bash -c "! grep -q secretLineText '$WORK/secret.screen'"
keys Escape
keys / h o t M a p p e d Enter
sleep 0.3
keys Enter
check "Enter on hotMapped: its details" wait_screen 10 '^FUNCTION hotMapped'
check "its hot line, read as nobody, with its text" \
	wait_screen 15 'app\.js:5 +[0-9]+ ticks +for \(let i = 0; i < 200000; i\+\+\) s = \(s \* 31'
check "and why it has no source map: the map is not readable by the target's user" \
	wait_screen 10 "No source map: .*secret/private\.map is not readable by the target's user"
screen >>"$WORK/secret.screen"
check "no name or line of the root-only files on any screen" \
	bash -c "! grep -qE 'secretFunctionName|secretSourceFile|secretSourceText|secretLineText' '$WORK/secret.screen'"
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
term_stop

done_testing
