#!/bin/bash
# sourcemap.sh: what loading a bundle's source map costs ntop-js: load time, peak memory as a
# ratio to the map's size, and the time of a lookup (bench/sourcemap.c).
#
# Usage: bench/sourcemap.sh [-r RUNS] [BUILD_DIR]
#   -r RUNS  runs of the minified map with sourcesContent (default 3, or $RUNS)
#
# BUILD_DIR holds bench/sourcemap (build it with `make bench-sourcemap`, in a build configured
# without sanitizers: they distort both time and memory). The maps are real: esbuild (pinned in
# bench/npm) bundles typescript's own lib/typescript.js and lib/_tsc.js with prettier's
# standalone.js and its 13 plugins (26 MB of JavaScript), minified, with --sourcemap: a 32 MB
# map, into $NTOP_BENCH_DIR (default ${TMPDIR:-/tmp}/ntop-js-bench). Each run is a fresh
# process; RUNS of them; then one each of three other shapes of map for the same
# code: without sourcesContent (as tsc writes by default), not minified, and not minified
# without sourcesContent.
set -eu
# shellcheck source=bench/lib.sh source-path=SCRIPTDIR/..
. "$(dirname "$0")/lib.sh"

bench_runs_and_build "$@"
srcdir=$(dirname "$BENCH_DIR")
prog=$build/bench/sourcemap
work=${NTOP_BENCH_DIR:-${TMPDIR:-/tmp}/ntop-js-bench}/sourcemap

if [ ! -x "$prog" ]; then
	echo "sourcemap.sh: $prog not found; run 'make bench-sourcemap' in $build first" >&2
	exit 1
fi
deps=$(bench_npm_deps)
mkdir -p "$work"
nm=$deps/node_modules
{
	printf 'require(%s);\n' "'$nm/typescript/lib/typescript.js'" "'$nm/typescript/lib/_tsc.js'" \
		"'$nm/prettier/standalone.js'"
	for f in "$nm"/prettier/plugins/*.js; do printf 'require(%s);\n' "'$f'"; done
} >"$work/entry.js"
esbuild() {
	"$nm/.bin/esbuild" "$work/entry.js" --bundle --platform=node --sourcemap \
		--log-level=warning "$@"
}
# The same map without sourcesContent: all mappings, so the costliest per byte of map.
strip_content() {
	node -e '
const fs = require("fs"), [, dir, from, to] = process.argv;
const m = JSON.parse(fs.readFileSync(`${dir}/${from}.map`, "utf8"));
delete m.sourcesContent;
fs.writeFileSync(`${dir}/${to}.map`, JSON.stringify(m));
fs.writeFileSync(`${dir}/${to}`, fs.readFileSync(`${dir}/${from}`, "utf8")
	.replace(`sourceMappingURL=${from}.map`, `sourceMappingURL=${to}.map`));
' "$work" "$1" "$2"
}
esbuild --minify --outfile="$work/bundle.min.js"
echo "# map: $(stat -c %s "$work/bundle.min.js.map") bytes, esbuild $("$nm/.bin/esbuild" --version)," \
	"typescript $(node -p "require('$nm/typescript/package.json').version")," \
	"prettier $(node -p "require('$nm/prettier/package.json').version")"
for i in $(seq 1 "$runs"); do
	echo "# run $i"
	"$prog" "$work/bundle.min.js"
done
strip_content bundle.min.js nocontent.min.js
echo "# minified, without sourcesContent: $(stat -c %s "$work/nocontent.min.js.map") bytes"
"$prog" "$work/nocontent.min.js"
esbuild --outfile="$work/bundle.js"
echo "# not minified: $(stat -c %s "$work/bundle.js.map") bytes"
"$prog" "$work/bundle.js"
strip_content bundle.js nocontent.js
echo "# not minified, without sourcesContent: $(stat -c %s "$work/nocontent.js.map") bytes"
"$prog" "$work/nocontent.js"
