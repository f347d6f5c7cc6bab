#!/bin/bash
# ntop-js --diff A B: two CPU profiles compared, as a user runs it: the recordings of
# tests/fixtures/diff (a program before and after an edit, by its record.js), a profile that
# ntop-js -o wrote from a live target against itself, and every way the command can be given
# wrong, each one sentence and exit status 2.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
fx=$top_srcdir/tests/fixtures/diff

"$NTOP_JS" --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" >"$WORK/text.out" 2>"$WORK/text.err"
ok $? "--diff A B prints the comparison and exits 0"
check "a line per profile, then the table" bash -c "head -n 3 '$WORK/text.out' | grep -q '^A: .*a.cpuprofile  (busy' &&
	head -n 3 '$WORK/text.out' | grep -q '^ SELF A  SELF B  CHANGE TOTAL A TOTAL B  CHANGE  FUNCTION'"
check "hotA first: its share fell, and it moved two lines down" \
	grep -qE '^ +7[0-9]\.[0-9]% +3[0-9]\.[0-9]% +-[34][0-9]\.[0-9] .* hotA  /FIXTURE/app\.js:5 \(line 3 in A\)$' "$WORK/text.out"
check "newHelper is new in B" grep -qE '^ +- +2[0-9]\.[0-9]% .* newHelper  /FIXTURE/app\.js:15 \(new in B\)$' "$WORK/text.out"
check "nothing on stderr" test ! -s "$WORK/text.err"
"$NTOP_JS" --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" --top 3 >"$WORK/top.out"
check "--top 3: three rows and how many more" bash -c "[ \$(grep -c '%' '$WORK/top.out') -eq 3 ] &&
	tail -n 1 '$WORK/top.out' | grep -qE '^\([0-9]+ more; --top N shows more, --json all\)$'"
"$NTOP_JS" --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" --json >"$WORK/diff.json"
ok $? "--json: exits 0"
check "--json: one object with both files and every function's shares" "$NODE" -e '
	const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const f = n => o.functions.find(x => x.function === n);
	const b = f("hotB");
	process.exit(o.type === "diff" && o.a.busy_ms > 0 && o.b.samples > 0 && b.match === "moved" &&
		b.line === 10 && b.line_a === 8 && Math.abs(b.delta_self_pct - (b.self_pct_b - b.self_pct_a)) < 1e-9 &&
		b.delta_self_pct > 15 && f("newHelper").match === "new" ? 0 : 1)' "$WORK/diff.json"

# a profile written by ntop-js itself, from a live target, against itself and the recording
start_node hot --inspect-port=0 "$TARGETS/hot.js"
wait_ready hot || diag "the target did not start: $(cat "$WORK/hot.err")"
"$NTOP_JS" --pid "$hot_PID" -b -n 2 -d 0.5 -o "$WORK/live.cpuprofile" >/dev/null 2>"$WORK/live.err"
ok $? "ntop-js -o wrote a profile of a live target"
"$NTOP_JS" --diff "$WORK/live.cpuprofile" "$WORK/live.cpuprofile" --json >"$WORK/self.json"
check "that profile against itself: every function the same, no change" "$NODE" -e '
	const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	process.exit(o.functions.length > 0 && o.functions.some(x => x.function === "hotMain") &&
		o.functions.every(x => x.match === "same" && x.delta_self_pct === 0 && x.delta_total_pct === 0) ? 0 : 1)' \
	"$WORK/self.json"
"$NTOP_JS" --diff "$fx/a.cpuprofile" "$WORK/live.cpuprofile" >"$WORK/other.out"
check "against another program: its functions new, the recording's gone" bash -c \
	"grep -q 'hotMain .*(new in B)' '$WORK/other.out' && grep -q 'hotA .*(not in B)' '$WORK/other.out'"

# given wrong: one sentence on stderr, status 2, nothing on stdout
printf 'not json' >"$WORK/junk.cpuprofile"
printf '\037\213\010\000' >"$WORK/prof.pb.gz"
# and as pprof, from another session of the same target
"$NTOP_JS" --pid "$hot_PID" -b -n 2 -d 0.5 -o "$WORK/live.pb.gz" >/dev/null 2>"$WORK/live-pb.err"
ok $? "ntop-js -o x.pb.gz wrote a pprof profile of it"
"$NTOP_JS" --diff "$WORK/live.cpuprofile" "$WORK/live.pb.gz" --json >"$WORK/formats.json"
check "a .cpuprofile against a pprof file of the same program: hotMain in both, the same function, within 15 points" \
	"$NODE" -e '
	const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const h = o.functions.find(x => x.function === "hotMain");
	process.exit(h && h.match === "same" && h.self_pct_a > 30 && Math.abs(h.delta_self_pct) < 15 ? 0 : 1)' \
	"$WORK/formats.json"
gzip -dc "$WORK/live.pb.gz" >"$WORK/live.pb"
"$NTOP_JS" --diff "$WORK/live.pb" "$WORK/live.pb.gz" --json >"$WORK/plain.json"
check "the same pprof inflated (a plain protobuf, whose first byte is a newline's) reads the same" \
	"$NODE" -e '
	const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	process.exit(o.functions.length > 0 && o.functions.every(x => x.match === "same" && x.delta_self_pct === 0) ? 0 : 1)' \
	"$WORK/plain.json"
refused() { # refused NAME WORDS -- ARGS...: status 2, one line naming WORDS
	local name=$1 words=$2
	shift 3
	"$NTOP_JS" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	local rc=$?
	ok $(
		[ $rc -eq 2 ] && [ ! -s "$WORK/$name.out" ] && [ "$(wc -l <"$WORK/$name.err")" -eq 1 ] &&
			grep -q "$words" "$WORK/$name.err"
		echo $?
	) "$name: status 2 ($rc), one sentence: $(cat "$WORK/$name.err")"
}
refused one-file "compares two profiles" -- --diff "$fx/a.cpuprofile"
refused missing "cannot read $WORK/none.cpuprofile: No such file or directory" -- --diff "$WORK/none.cpuprofile" "$fx/a.cpuprofile"
refused junk "junk.cpuprofile is neither a .cpuprofile nor a pprof profile." -- --diff "$fx/a.cpuprofile" "$WORK/junk.cpuprofile"
printf '{"nodes": 3}' >"$WORK/bad.cpuprofile"
refused bad-json "bad.cpuprofile is not a .cpuprofile (" -- --diff "$WORK/bad.cpuprofile" "$fx/a.cpuprofile"
refused pprof "prof.pb.gz is not a pprof profile: its gzip stream is damaged." -- --diff "$WORK/prof.pb.gz" "$fx/a.cpuprofile"
refused three "unexpected argument" -- --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" "$fx/a.cpuprofile"
refused with-pid "give one of --pid" -- --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" --pid "$hot_PID"
refused with-output "does not go with --serve" -- --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" -o "$WORK/x.cpuprofile"
# --baseline: the live session against a saved profile, printed when the run ends
"$NTOP_JS" --pid "$hot_PID" -b --json -n 2 -d 0.5 --baseline "$WORK/live.cpuprofile" \
	>"$WORK/base.jsonl" 2>"$WORK/base.err"
ok $? "--baseline FILE with -b --json -n 2: status 0"
check "two window lines, then the comparison: the file against this session" jsonl_check \
	"$WORK/base.jsonl" 'l => l.length === 3 && l[2].type === "diff" && l[2].a.file.endsWith("live.cpuprofile") &&
		l[2].b.file === "this session (PID '"$hot_PID"')" || JSON.stringify(l.map(x => x.type))'
check "hotMain is in both, and its share moved little (the same load)" jsonl_check "$WORK/base.jsonl" \
	'l => { const f = l[2].functions.find(x => x.function === "hotMain");
		return f && f.match === "same" && f.self_pct_a > 20 && Math.abs(f.delta_self_pct) < 20 || JSON.stringify(f); }'
"$NTOP_JS" --pid "$hot_PID" -b -n 1 -d 0.5 --baseline "$WORK/live.pb.gz" >"$WORK/base.txt" 2>&1
check "in text, after the report: the table, with hotMain" grep -q "hotMain" "$WORK/base.txt"
refused baseline-junk "baseline: $WORK/junk.cpuprofile is neither" -- --pid "$hot_PID" -b -n 1 \
	--baseline "$WORK/junk.cpuprofile"
refused baseline-diff "use --diff A B" -- --diff "$fx/a.cpuprofile" "$fx/b.cpuprofile" \
	--baseline "$WORK/live.cpuprofile"
check "the live target runs on, never signalled again" alive "$hot_PID"
done_testing
