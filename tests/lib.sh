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
	if "$@" >/dev/null 2>&1; then ok 0 "$d"; else ok 1 "$d"; fi
}

diag() { printf '# %s\n' "$*" | sed '2,$s/^/# /'; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

done_testing() { echo "1..$tap_n"; }

cleanup() {
	local p
	for p in $pids_to_kill; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$WORK"
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

alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
dead() { ! alive "$1"; }

# A node target that has printed its ready line.
wait_ready() { wait_for 10 grep -q ready "$WORK/$1.out"; }

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
wait_screen() { wait_for "$1" screen_has "$2"; }

pane_dead() { [ "$(tmx display -p -t t '#{pane_dead}')" = 1 ]; }
pane_status() { tmx display -p -t t '#{pane_dead_status}'; }
