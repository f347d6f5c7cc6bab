#!/bin/bash
# Original sources: a TypeScript program (tests/targets/ts/src) built at test time by the real
# tools bench/npm pins, run with no flag, watched by ntop-js with V8's default flags and warm
# code: tsc's CommonJS output with .js.map files beside it, and esbuild's minified bundles with
# an inline map, as CommonJS and as an ES module. ntop-js finds each script's map from its
# sourceMappingURL comment (never the inspector's Debugger domain) and names the hot function
# as the TypeScript does: unitPrice in src/pricing.ts, line 14, even where the minifier
# renamed it. --no-source-maps and g show V8's positions instead.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
require_tmux
require_npm_deps
bin=$NODE_PATH/.bin

cp -r "$TARGETS/ts" "$WORK/app"
cd "$WORK/app" || exit 1
# tsc's node types are not installed: the program declares what it uses
printf 'declare const process: { pid: number };\ndeclare const console: { log(...a: unknown[]): void };\ndeclare function setTimeout(f: () => void, ms: number): unknown;\n' >src/env.d.ts
# shellcheck disable=SC2086
"$bin/tsc" --target es2022 --lib es2022 --strict --module commonjs --sourceMap --outDir dist \
	src/main.ts src/pricing.ts src/env.d.ts >"$WORK/tsc.log" 2>&1
ok $? "tsc compiled the program with source maps ($(head -c 300 "$WORK/tsc.log"))"
"$bin/esbuild" src/main.ts --bundle --minify --platform=node --sourcemap=inline \
	--outfile=bundle/app.min.js --log-level=warning >"$WORK/esbuild.log" 2>&1 &&
"$bin/esbuild" src/main.ts --bundle --minify --platform=node --format=esm --sourcemap=inline \
	--outfile=bundle/app.min.mjs --log-level=warning >>"$WORK/esbuild.log" 2>&1
ok $? "esbuild bundled and minified it, as CommonJS and as an ES module, with inline maps"
check "the minifier renamed unitPrice" bash -c "! grep -q unitPrice bundle/app.min.js"
cd "$top_srcdir" || exit 1

# run NAME SCRIPT: the program under node with no flag, warm, then six windows of JSON
run() {
	start_node "$1" "$WORK/app/$2"
	wait_ready "$1" || diag "$1 did not start: $(cat "$WORK/$1.err")"
	sleep 3
	local pv=${1}_PID
	"$NTOP_JS" --pid "${!pv}" --no-config -b --json -n 6 -t 8 "${@:3}" >"$WORK/$1.jsonl" 2>"$WORK/$1-ntop.err"
}
# the original name and place of the hottest function of the application in the last windows
hot_is() { # hot_is FILE NAME
	jsonl_check "$1" "l => l.slice(2).every(w => { const f = w.top.find(f => f.original);
		return f && f.original.function === '$2' && /src\\/pricing\\.ts\$/.test(f.original.url) &&
			f.original.line === 14 && f.original.url.startsWith('$WORK/app/'); }) ||
		l.map(w => w.top.slice(0, 3).map(f => f.function + ' ' + JSON.stringify(f.original || null)))"
}

run tsc dist/main.js
ok $? "ntop-js on tsc's output: status 0"
# tsc's maps have no sourcesContent: the hot lines' text comes from the .ts file itself
term_start 160 30 "$NTOP_JS --pid $tsc_PID --no-config 2>$WORK/tui-tsc.err; echo EXIT=\$?; sleep 60"
wait_screen 20 ' unitPrice +.*pricing\.ts:14'
keys / u n i t P r i c e Enter
sleep 0.3
keys Enter
check "tsc's output, Enter on unitPrice: its hot line 16 of src/pricing.ts, the text read from the .ts file" \
	wait_screen 15 'pricing\.ts:16 +[0-9]+ ticks +for \(let k = 0; k < 2000; k\+\+\) p = \(p \* 31 \+ k\) % 100003;'
keys g
check "g: V8's line of dist/pricing.js, with its text" \
	wait_screen 10 'pricing\.js:1[0-9] +[0-9]+ ticks +for \(let k = 0; k < 2000; k\+\+\)'
keys q
term_stop
check "the hot function maps to unitPrice in src/pricing.ts:14, with the file's full path" hot_is "$WORK/tsc.jsonl" unitPrice
check "and keeps V8's position beside it: unitPrice in dist/pricing.js" jsonl_check "$WORK/tsc.jsonl" "
	l => l.slice(2).every(w => w.top.some(f => f.function === 'unitPrice' && /dist\\/pricing\\.js\$/.test(f.url)))"
kill "$tsc_PID"

# The same program with the repair asked for by name (the run above, at default settings,
# repairs too on Node 18-24): V8 11 (Node 20)
# inlines priceLines and unitPrice into tick, and unitPrice's hot lines of dist/pricing.js are
# inside tick's own range of dist/main.js. The windows after the attach's deoptimization, where
# unitPrice still ran as a real frame, say whose those lines are, and the window where V8
# inlined it again does not outweigh them (tick took 73-78 % from the third window before).
run tscfix dist/main.js --inlining repair
ok $? "ntop-js --inlining repair on tsc's output: status 0"
check "repaired, unitPrice stays the hot function in src/pricing.ts:14 after V8 inlined it again" \
	hot_is "$WORK/tscfix.jsonl" unitPrice
kill "$tscfix_PID"

run cjs bundle/app.min.js
ok $? "ntop-js on esbuild's minified CommonJS bundle: status 0"
check "its renamed function is unitPrice again, in src/pricing.ts:14" hot_is "$WORK/cjs.jsonl" unitPrice
check "while V8 calls it something short, in app.min.js" jsonl_check "$WORK/cjs.jsonl" "
	l => l.slice(2).every(w => w.top.some(f => f.original && f.original.function === 'unitPrice' &&
		f.function !== 'unitPrice' && f.function.length <= 3 && /app\\.min\\.js\$/.test(f.url)))"

# Node 18-24's default is the repair (the JIT left as it is), which cannot look into a minified
# script: one line holds every function, and line ticks have no column. V8 13 inlines unitPrice
# into tick there (tick read 76-79 % in every window), so the session turns inlining off
# instead, says so once, and unitPrice has its row again.
if [[ " ${NTOP_NODE_VERSIONS:-$NODE_MATRIX} " == *" 24 "* ]] && matrix_node 24; then
	NODE=$nb run min24 bundle/app.min.js
	ok $? "Node 24, the minified bundle at default settings: status 0"
	check "the repair meets minified code and says that inlining is switched off" \
		grep -q "minified code holds [0-9]* % of the samples.*V8's inlining is switched off" \
		"$WORK/min24-ntop.err"
	check "and the windows say so (inlining off, not repaired)" jsonl_check "$WORK/min24.jsonl" "
		l => l.slice(1).every(w => !w.inlining.repaired && /--no-turbo-inlining/.test(w.inlining.v8_flags))"
	check "unitPrice is the hot function again" hot_is "$WORK/min24.jsonl" unitPrice
	kill "$min24_PID"
fi

run esm bundle/app.min.mjs
ok $? "ntop-js on the ES module bundle (file:// URLs): status 0"
check "unitPrice in src/pricing.ts:14 there too" hot_is "$WORK/esm.jsonl" unitPrice

"$NTOP_JS" --pid "$cjs_PID" --no-config -b -n 3 -t 8 >"$WORK/cjs.txt" 2>/dev/null
check "batch text names it as the TypeScript does, with its .ts line" \
	grep -qE '^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +unitPrice +.*src/pricing\.ts:14:' "$WORK/cjs.txt"
"$NTOP_JS" --pid "$cjs_PID" --no-config -b --json -n 3 --no-source-maps >"$WORK/nomaps.jsonl" 2>/dev/null
check "--no-source-maps: no original fields, V8's names only" jsonl_check "$WORK/nomaps.jsonl" "
	l => l.every(w => w.top.every(f => !f.original && f.function !== 'unitPrice'))"
"$NTOP_JS" --pid "$cjs_PID" --no-config -b -n 2 --folded "$WORK/cjs.folded" -o "$WORK/cjs.cpuprofile" \
	>/dev/null 2>&1
check "--folded: the TypeScript names" grep -q ';unitPrice (.*src/pricing\.ts:14) ' "$WORK/cjs.folded"
check "-o: a .cpuprofile as DevTools reads it (V8's names)" "$NODE" "$top_srcdir/tests/check-cpuprofile.js" \
	--quiet --lax-hitcount "$WORK/cjs.cpuprofile"
check "with VS Code's \$vscode block: the renamed function's node located at src/pricing.ts:14" \
	"$NODE" -e '
	const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")), locs = p.$vscode.locations;
	const hot = p.nodes.filter(n => n.locationId !== undefined && locs[n.locationId].locations[0].source.path.endsWith("/src/pricing.ts") &&
		locs[n.locationId].locations[0].lineNumber === 14 && n.callFrame.functionName !== "unitPrice" &&
		n.callFrame.functionName === locs[n.locationId].callFrame.functionName);
	process.exit(hot.length > 0 && hot.some(n => n.hitCount > 0) ? 0 : 1);' "$WORK/cjs.cpuprofile"

# pprof, for go tool pprof and the fleet's backends: the original names and .ts lines.
"$NTOP_JS" --pid "$cjs_PID" --no-config -b -n 2 -o "$WORK/cjs.pb.gz" >/dev/null 2>&1
if ! command -v "${GO:-go}" >/dev/null 2>&1; then
	skip "go tool pprof lists unitPrice at src/pricing.ts:14" "go not found (Debian: golang-go)"
else
	HOME=${HOME:-$WORK} "${GO:-go}" tool pprof -top -lines "$WORK/cjs.pb.gz" >"$WORK/pprof.top" 2>&1
	if grep -qE ' unitPrice .*src/pricing\.ts:14( |$)' "$WORK/pprof.top"; then
		ok 0 "-o x.pb.gz: go tool pprof lists unitPrice at src/pricing.ts:14"
	else
		ok 1 "-o x.pb.gz: go tool pprof lists unitPrice at src/pricing.ts:14"
		diag "$(head -20 "$WORK/pprof.top")"
	fi
fi

# The live view: the original name on the table; g shows V8's, and back.
term_start 160 30 "$NTOP_JS --pid $cjs_PID --no-config 2>$WORK/tui.err; echo EXIT=\$?; sleep 60"
check "the table shows unitPrice at src/pricing.ts:14" \
	wait_screen 20 '^ +[0-9.]+% +[0-9.]+% +[0-9.]+s +[0-9.]+s unitPrice +.*pricing\.ts:14'
keys g
check "g: V8's names and places (app.min.js)" wait_screen 10 'app\.min\.js:1'
check "and the status line says so" wait_screen 5 'generated positions, as V8 gives them'
keys g
check "g again: back to the original sources" wait_screen 10 ' unitPrice +.*pricing\.ts:14'
# the details of unitPrice (found by search: the top row is whichever is hottest this window)
keys / u n i t P r i c e Enter
sleep 0.3
keys Enter
check "Enter: unitPrice's details at src/pricing.ts:14" wait_screen 10 '^FUNCTION unitPrice'
# V8 counts ticks per line only: the bundle's one line holds the whole program
check "its hot line is the minified bundle's line, said so (V8 counts ticks per line)" \
	wait_screen 15 'Minified: each line of this script holds many lines of the sources'
check "(app.min.js:1)" wait_screen 5 'app\.min\.js:1 +[0-9]+ ticks'
keys Escape
keys q
check "q quits with status 0" wait_screen 15 '^EXIT=0'
check "nothing on ntop-js's stderr" test ! -s "$WORK/tui.err"
term_stop
kill "$cjs_PID" "$esm_PID"

done_testing
