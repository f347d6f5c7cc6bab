#!/bin/bash
# The Debian package, as a server without a compiler gets it: built from a clean copy of the
# tree with the standard tools (dpkg-buildpackage -us -uc -b), checked by lintian, installed
# with dpkg, then the installed /usr/bin/ntop-js answers --version, has its man page and its
# bash completion, and attaches to a real node process: from the host, and as a Kubernetes
# debug container would (kubectl debug --target: the target container's PID and network
# namespaces, a mount namespace and /proc of its own), which unshare and nsenter make here.
# Then the package is removed and nothing of it is left. Needs root; a machine that already
# has an ntop-js package is left alone (skipped). The package's own build runs no test here
# (DEB_BUILD_OPTIONS=nocheck: the unit tier ran already); debian/rules runs the unit tier
# otherwise.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
[ "$(id -u)" = 0 ] || skip_all "needs root (dpkg -i, unshare, nsenter)"
if dpkg-query -W -f='${Status}' ntop-js 2>/dev/null | grep -q installed; then
	skip_all "an ntop-js package is installed on this machine already; not touched"
fi
missing=""
for tool in dpkg-buildpackage dh lintian unshare nsenter ip; do
	command -v $tool >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	case ${CI:-} in
	"" | 0 | false | no) skip_all "not found:$missing (Debian: dpkg-dev debhelper lintian util-linux iproute2)" ;;
	*) ok 1 "the packaging tools are installed (missing:$missing)"; done_testing; exit 0 ;;
	esac
fi

installed=0
remove_package() { [ $installed -eq 1 ] && dpkg -P ntop-js >/dev/null 2>&1; installed=0; }
trap 'remove_package; cleanup' EXIT

# A clean copy: what git tracks (and new files it does not ignore), or the release tarball's
# tree, without the builds inside it (build/, distcheck's _build and _inst).
mkdir -p "$WORK/pkg/ntop-js"
if git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top_srcdir" && git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$WORK/pkg/ntop-js"
else
	tar -cf - -C "$top_srcdir" --exclude=./_build --exclude=./_inst --exclude=./build . |
		tar -xf - -C "$WORK/pkg/ntop-js"
fi
chmod -R u+w "$WORK/pkg/ntop-js"
(cd "$WORK/pkg/ntop-js" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
	>"$WORK/build.log" 2>&1
rc=$?
ok $rc "dpkg-buildpackage -us -uc -b builds the package from a clean copy (status $rc)"
[ $rc -eq 0 ] || diag "$(tail -n 30 "$WORK/build.log")"
deb=$(ls "$WORK"/pkg/ntop-js_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { done_testing; exit 0; }

lintian --allow-root --fail-on error "$deb" >"$WORK/lintian.out" 2>&1
rc=$?
ok $rc "lintian finds no error in it (status $rc)"
[ -s "$WORK/lintian.out" ] && diag "lintian: $(cat "$WORK/lintian.out")"
depends=$(dpkg-deb -f "$deb" Depends)
check "it depends on the runtime libraries only ($depends)" bash -c \
	"grep -q libwebsockets <<<'$depends' && grep -q libcjson <<<'$depends' && grep -q libncurses <<<'$depends' && ! grep -q -- -dev <<<'$depends'"
check "it holds the binary, the man page, the bash completion and the licence" bash -c \
	"dpkg-deb -c '$deb' | grep -q ' ./usr/bin/ntop-js\$' &&
	 dpkg-deb -c '$deb' | grep -q ' ./usr/share/man/man1/ntop-js.1.gz\$' &&
	 dpkg-deb -c '$deb' | grep -q ' ./usr/share/bash-completion/completions/ntop-js\$' &&
	 dpkg-deb -c '$deb' | grep -q ' ./usr/share/doc/ntop-js/copyright\$'"

dpkg -i "$deb" >"$WORK/install.log" 2>&1
rc=$?
[ $rc -eq 0 ] && installed=1
ok $rc "dpkg -i installs it (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/install.log")"
bin=/usr/bin/ntop-js
check "the installed ntop-js answers --version" bash -c "$bin --version | head -n 1 | grep -qx 'ntop-js [0-9.]*'"
check "and its man page is there" bash -c "zcat /usr/share/man/man1/ntop-js.1.gz | grep -q '^\.TH NTOP-JS'"
check "so is its completion, which bash loads" bash -c \
	"source /usr/share/bash-completion/completions/ntop-js && complete -p ntop-js"

start_node host --inspect-port=0 "$TARGETS/hot.js"
wait_ready host || diag "the target did not start: $(cat "$WORK/host.err")"
$bin --pid "$host_PID" -b --json -n 2 -d 0.5 >"$WORK/host.jsonl" 2>"$WORK/host-ntop.err"
rc=$?
ok $rc "the installed binary attaches to a node process by PID (status $rc)"
[ $rc -eq 0 ] || diag "$(cat "$WORK/host-ntop.err")"
check "and finds its hot function" jsonl_check "$WORK/host.jsonl" \
	'l => l.length === 2 && l[1].top.some(f => f.function === "hotMain")'

# kubectl debug --target=CONTAINER: node as PID 1 of its own PID, network and mount
# namespaces (the container); ntop-js in its PID and network namespaces with a mount namespace
# and /proc of its own (the debug container), given the PID it sees there.
ctr_ok=1
unshare --net --pid --mount --kill-child --mount-proc sh -c 'ip link set lo up' \
	>/dev/null 2>&1 || ctr_ok=0
if [ $ctr_ok -eq 1 ]; then
	unshare --net --pid --mount --kill-child --mount-proc \
		sh -c 'ip link set lo up && exec "$0" "$1"' "$NODE" "$TARGETS/hot.js" \
		>"$WORK/ctr.out" 2>"$WORK/ctr.err" &
	u=$!
	pids_to_kill="$pids_to_kill $u"
	wait_ready ctr || diag "the container's node did not start: $(cat "$WORK/ctr.err")"
	hpid=$(cat /proc/$u/task/*/children 2>/dev/null | tr -d ' ')
	inner=$(awk '$1 == "NSpid:" { print $NF }' "/proc/${hpid:-0}/status" 2>/dev/null)
	nsenter -t "${hpid:-0}" --pid --net -- unshare --mount --mount-proc \
		$bin --pid "${inner:-0}" -b --json -n 2 -d 0.5 >"$WORK/debug.jsonl" 2>"$WORK/debug-ntop.err"
	rc=$?
	ok $rc "in the target's PID and network namespaces, with /proc of its own (kubectl debug --target), ntop-js --pid ${inner:-?} attaches (status $rc)"
	[ $rc -eq 0 ] || diag "$(cat "$WORK/debug-ntop.err")"
	check "it names the PID it was given and finds the hot function" jsonl_check "$WORK/debug.jsonl" \
		"l => l.length === 2 && l.every(w => w.target.pid === ${inner:-0}) && l[1].top.some(f => f.function === 'hotMain')"
	check "the container's node runs on" kill -0 "${hpid:-0}"
else
	skip "the kubectl debug --target case" "this machine forbids new namespaces"
fi

dpkg -r ntop-js >"$WORK/remove.log" 2>&1
rc=$?
ok $rc "dpkg -r removes it (status $rc)"
dpkg -P ntop-js >>"$WORK/remove.log" 2>&1
installed=0
check "nothing of it is left: binary, man page, completion, documentation" bash -c \
	"! test -e $bin && ! test -e /usr/share/man/man1/ntop-js.1.gz &&
	 ! test -e /usr/share/bash-completion/completions/ntop-js && ! test -e /usr/share/doc/ntop-js &&
	 ! dpkg-query -W -f='\${Status}' ntop-js 2>/dev/null | grep -q installed"
done_testing
