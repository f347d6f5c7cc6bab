#!/bin/bash
# sourcemap.sh: what loading a bundle's source map costs ntop-js: load time, peak memory as a
# ratio to the map's size, and the time of a lookup (bench/sourcemap.c).
#
#   bench/sourcemap.sh [BUILD_DIR]
#
# BUILD_DIR holds bench/sourcemap (build it with `make bench-sourcemap`, in a build configured
# without sanitizers: they distort both time and memory). The map is real: esbuild (pinned in
# bench/npm) bundles and minifies typescript's own lib/typescript.js and lib/_tsc.js (15 MB of
# JavaScript) with --sourcemap, into $NTOP_BENCH_DIR (default ${TMPDIR:-/tmp}/ntop-js-bench).
# Each run is a fresh process; RUNS (default 3) of them; then one of the same map without its
# sourcesContent.
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$srcdir}
prog=$build/bench/sourcemap
runs=${RUNS:-3}
work=${NTOP_BENCH_DIR:-${TMPDIR:-/tmp}/ntop-js-bench}/sourcemap

if [ ! -x "$prog" ]; then
	echo "sourcemap.sh: $prog not found; run 'make bench-sourcemap' in $build first" >&2
	exit 1
fi
. "$srcdir/bench/lib.sh"
deps=$(bench_npm_deps)
mkdir -p "$work"
ts=$deps/node_modules/typescript/lib
printf 'require(%s);\nrequire(%s);\n' "'$ts/typescript.js'" "'$ts/_tsc.js'" >"$work/entry.js"
"$deps/node_modules/.bin/esbuild" "$work/entry.js" --bundle --minify --platform=node \
	--sourcemap --outfile="$work/bundle.min.js" --log-level=warning
echo "# map: $(stat -c %s "$work/bundle.min.js.map") bytes, esbuild $("$deps/node_modules/.bin/esbuild" --version), typescript $(node -p "require('$ts/../package.json').version")"
for i in $(seq 1 "$runs"); do
	echo "# run $i"
	"$prog" "$work/bundle.min.js"
done
# The same map without sourcesContent (as tsc writes by default): all mappings, so the
# costliest per byte of map.
node -e '
const fs = require("fs"), [, dir] = process.argv;
const m = JSON.parse(fs.readFileSync(dir + "/bundle.min.js.map", "utf8"));
delete m.sourcesContent;
fs.writeFileSync(dir + "/nocontent.min.js.map", JSON.stringify(m));
fs.writeFileSync(dir + "/nocontent.min.js", fs.readFileSync(dir + "/bundle.min.js", "utf8")
	.replace(/sourceMappingURL=bundle\.min\.js\.map/, "sourceMappingURL=nocontent.min.js.map"));
' "$work"
echo "# without sourcesContent: $(stat -c %s "$work/nocontent.min.js.map") bytes"
"$prog" "$work/nocontent.min.js"
