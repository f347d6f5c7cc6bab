#!/bin/bash
# --push received by a Pyroscope-like endpoint written in node (it records each POST's query
# and its multipart profile part): the query names the application with from < until and
# format=pprof, go tool pprof reads the part and lists hotMain first; the profiles of a 12 s
# outage arrive once the endpoint is back (no gap in from/until); a 500 is retried, a 400 is
# said once and not retried; SIGINT ends ntop-js promptly with status 0 while the endpoint is
# down or never answers; a piscina pool's threads are pushed as series of their own and
# labelled in --serve's profile; USER:PASSWORD@ in the URL is sent as basic authentication
# and the password appears in no message or output, whether the URL is refused, the server
# cannot be reached or it takes the profiles. Without go its checks skip (./quickstart.sh
# test installs golang-go).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
require_node
GO=${GO:-go}
export HOME=${HOME:-$WORK}

free_port() {
	"$NODE" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
		console.log(s.address().port); s.close(); });'
}

# endpoint NAME PORT STATUS: records POST N as $WORK/NAME/N.query and N.pb.gz, answers STATUS
# (0: never)
cat >"$WORK/endpoint.js" <<'EOF'
const http = require("http"), fs = require("fs");
const [dir, port, status] = [process.argv[2], +process.argv[3], +process.argv[4]];
fs.mkdirSync(dir, { recursive: true });
let n = fs.readdirSync(dir).filter(f => f.endsWith(".query")).length;
http.createServer((req, res) => {
	const chunks = [];
	req.on("data", c => chunks.push(c));
	req.on("end", () => {
		const body = Buffer.concat(chunks), i = n++;
		const m = /boundary=([^;]+)/.exec(req.headers["content-type"] || "");
		fs.writeFileSync(`${dir}/${i}.query`, req.method + " " + req.url + "\n");
		fs.writeFileSync(`${dir}/${i}.auth`, (req.headers.authorization || "-") + "\n");
		if (m) {
			const b = Buffer.from("--" + m[1]);
			const start = body.indexOf(b), head = body.indexOf("\r\n\r\n", start);
			const end = body.indexOf(Buffer.concat([Buffer.from("\r\n"), b]), head);
			if (start >= 0 && head > 0 && end > 0 &&
			    /name="profile"/.test(body.subarray(start, head).toString()))
				fs.writeFileSync(`${dir}/${i}.pb.gz`, body.subarray(head + 4, end));
		}
		if (status === 0)
			return; /* a server that never answers */
		res.writeHead(status, { "Content-Type": "text/plain" });
		res.end(status === 200 ? "" : "no\n");
	});
}).listen(port, "127.0.0.1", () => console.log("listening"));
EOF
start_endpoint() { # start_endpoint NAME PORT STATUS: sets endpoint_PID
	"$NODE" "$WORK/endpoint.js" "$WORK/$1" "$2" "$3" >>"$WORK/$1.log" 2>&1 &
	endpoint_PID=$!
	pids_to_kill="$pids_to_kill $endpoint_PID"
	wait_for 10 port_open "$2"
}
queries() { cat "$WORK/$1"/*.query 2>/dev/null; }
count() { ls "$WORK/$1"/*.query 2>/dev/null | wc -l; }
# the (from, until) pairs received, sorted and unique
spans() { queries "$1" | sed -E 's/.*[?&]from=([0-9]+)&until=([0-9]+).*/\1 \2/' | sort -un; }
# no gap: each span begins where the one before ended
contiguous() { spans "$1" | awk 'NR > 1 && $1 != prev { exit 1 } { prev = $2 }'; }
covers_until() { [ "$(spans "$1" | tail -1 | cut -d' ' -f2)" -ge "$2" ] 2>/dev/null; }

# push_to PORT OUT ERR: ntop-js pushing the target's profiles to PORT every 5 s, in the
# background (its PID in $ntop)
push_to() {
	"$NTOP_JS" -b --pid "$target_PID" -d 0.5 --push "http://127.0.0.1:$1" --push-every 5 \
		>"$2" 2>"$3" &
	ntop=$!
	pids_to_kill="$pids_to_kill $ntop"
}
# sigint_within_5s DESCRIPTION [DETAIL]: SIGINT to $ntop; passes on status 0 within 5 s
sigint_within_5s() {
	local start rc took
	start=$(date +%s%N)
	kill -INT "$ntop"
	wait "$ntop"
	rc=$?
	took=$((($(date +%s%N) - start) / 1000000))
	ok "$([ $rc -eq 0 ] && [ "$took" -lt 5000 ]; echo $?)" \
		"$1: status 0 within 5 s (got $rc after $took ms${2:+; $2})"
}

start_node target --inspect-port=0 "$TARGETS/hot.js"
wait_ready target
PORT=$(free_port)

# refusals: one sentence and exit status 2
"$NTOP_JS" -b --pid "$target_PID" --push "http://pyroscope.example:4040" >/dev/null 2>"$WORK/name.err"
rc=$?
ok "$([ $rc -eq 2 ] && grep -q "resolves no host names" "$WORK/name.err"; echo $?)" \
	"a host name: exit status 2 and the reason (got $rc: $(head -c 200 "$WORK/name.err"))"
"$NTOP_JS" -b --pid "$target_PID" --push "http://10.1.2.3:4040" >/dev/null 2>"$WORK/remote.err"
rc=$?
ok "$([ $rc -eq 2 ] && grep -q "allow-remote" "$WORK/remote.err"; echo $?)" \
	"a non-loopback address without --allow-remote: exit status 2 (got $rc)"
"$NTOP_JS" -b --pid "$target_PID" --push "http://127.0.0.1:$PORT" --push-every 2 >/dev/null 2>&1
ok "$([ $? -eq 2 ]; echo $?)" "--push-every 2: exit status 2"

# ---- credentials in the URL: sent, never shown ----
"$NTOP_JS" -b --pid "$target_PID" --push "http://user:SECRETPASS@10.1.2.3:4040" >/dev/null 2>"$WORK/cred-remote.err"
rc=$?
ok "$([ $rc -eq 2 ] && grep -q "allow-remote" "$WORK/cred-remote.err" &&
	! grep -q SECRETPASS "$WORK/cred-remote.err"; echo $?)" \
	"a remote URL with a password: exit status 2, the password not said (got $rc: $(head -c 200 "$WORK/cred-remote.err"))"
"$NTOP_JS" -b --pid "$target_PID" --push "http://user:SECRETPASS@pyroscope.example:4040" >/dev/null 2>"$WORK/cred-name.err"
rc=$?
ok "$([ $rc -eq 2 ] && ! grep -q SECRETPASS "$WORK/cred-name.err"; echo $?)" \
	"a host name with a password: exit status 2, the password not said (got $rc: $(head -c 200 "$WORK/cred-name.err"))"
"$NTOP_JS" -b --pid "$target_PID" --push "htp://user:SECRETPASS@127.0.0.1:4040" >/dev/null 2>"$WORK/cred-scheme.err"
rc=$?
ok "$([ $rc -eq 2 ] && ! grep -q SECRETPASS "$WORK/cred-scheme.err"; echo $?)" \
	"a URL that is not http:// with a password: the password not said (got $rc: $(head -c 200 "$WORK/cred-scheme.err"))"
DEAD=$(free_port)
"$NTOP_JS" -b --json --pid "$target_PID" -n 6 -d 0.5 --push "http://user:SECRETPASS@127.0.0.1:$DEAD" \
	--push-every 5 >"$WORK/cred-dead.out" 2>"$WORK/cred-dead.err"
rc=$?
ok "$([ $rc -eq 0 ] && grep -q "not delivered to http://127.0.0.1:$DEAD" "$WORK/cred-dead.err"; echo $?)" \
	"a server that cannot be reached: status 0, said with the URL without its credentials (got $rc: $(head -c 300 "$WORK/cred-dead.err"))"
ok "$(! grep -q SECRETPASS "$WORK/cred-dead.err" "$WORK/cred-dead.out"; echo $?)" \
	"the password is in neither its messages nor its JSON"
PORTC=$(free_port)
start_endpoint cred "$PORTC" 200
"$NTOP_JS" -b --pid "$target_PID" -n 6 -d 0.5 --push "http://user:SECRETPASS@127.0.0.1:$PORTC" \
	--push-every 5 >"$WORK/cred.out" 2>"$WORK/cred.err"
rc=$?
want="Basic $("$NODE" -p 'Buffer.from("user:SECRETPASS").toString("base64")')"
ok "$([ $rc -eq 0 ] && [ "$(cat "$WORK/cred"/*.auth 2>/dev/null | sort -u)" = "$want" ]; echo $?)" \
	"the server gets them as basic authentication (got $rc: $(cat "$WORK/cred"/*.auth 2>/dev/null | sort -u | head -2))"
ok "$(! grep -q SECRETPASS "$WORK/cred.err" "$WORK/cred.out"; echo $?)" "and nothing shows the password"
kill "$endpoint_PID"
wait "$endpoint_PID" 2>/dev/null

# ---- pushes, an outage, and the profiles it held back ----
start_endpoint ok "$PORT" 200
ok $? "the endpoint listens on $PORT"
push_to "$PORT" "$WORK/ntop.out" "$WORK/ntop.err"
wait_for 20 sh -c "ls '$WORK/ok'/*.pb.gz >/dev/null 2>&1"
ok $? "a profile arrives within 20 s"
q=$(queries ok | head -1)
diag "$q"
check "the query names the application with its pid" \
	grep -q "name=ntop-js\.hot\.js%7Bpid%3D$target_PID%2Cthread%3Dmain%7D" <<<"$q"
check "format=pprof" grep -q "&format=pprof" <<<"$q"
from=$(sed -E 's/.*[?&]from=([0-9]+).*/\1/' <<<"$q")
until=$(sed -E 's/.*[?&]until=([0-9]+).*/\1/' <<<"$q")
ok "$([ "$from" -lt "$until" ] 2>/dev/null; echo $?)" "from < until ($from, $until)"
if ! command -v "$GO" >/dev/null 2>&1; then
	skip "go tool pprof reads the pushed profile and lists hotMain first" \
		"go not found (Debian: golang-go)"
else
	PPROF_TMPDIR=$WORK "$GO" tool pprof -top "$(ls "$WORK/ok"/*.pb.gz | head -1)" \
		>"$WORK/pprof.top" 2>"$WORK/pprof.err"
	first=$(awk 'seen { print $6; exit } /flat%/ { seen = 1 }' "$WORK/pprof.top")
	ok "$([ "$first" = hotMain ]; echo $?)" "go tool pprof -top lists hotMain first (got '$first')"
	[ "$first" = hotMain ] || diag "$(head -15 "$WORK/pprof.top" "$WORK/pprof.err")"
fi

kill "$endpoint_PID"
wait "$endpoint_PID" 2>/dev/null
down_at=$(date +%s)
sleep 12
before=$(count ok)
start_endpoint ok "$PORT" 200
up_at=$(date +%s)
# the backoff is at most 16 s by then; the outage's profiles come first, then the new ones
wait_for 30 covers_until ok "$up_at"
ok $? "after the outage the profiles arrive up to the endpoint's return ($(count ok) received, $before before)"
check "no gap in from/until over the outage" contiguous ok
[ $? -eq 0 ] || diag "$(spans ok)"
ok "$([ "$(spans ok | awk -v d="$down_at" '$1 <= d && $2 > d' | wc -l)" -ge 1 ]; echo $?)" \
	"a profile covers the moment the endpoint went down"
grep -q "takes profiles again" "$WORK/ntop.err"
ok $? "the outage and the return are said on stderr"
sigint_within_5s "SIGINT" "$(head -c 300 "$WORK/ntop.err")"
check "the final partial interval is pushed at exit" contiguous ok

# ---- 500: retried; then down, SIGINT ends it promptly ----
PORT5=$(free_port)
start_endpoint e500 "$PORT5" 500
push_to "$PORT5" /dev/null "$WORK/e500.err"
wait_for 20 sh -c "[ \$(ls '$WORK/e500'/*.query 2>/dev/null | wc -l) -ge 3 ]"
ok $? "a 500 is retried ($(count e500) requests)"
check "the retries send the same profile" sh -c "[ \$(cat '$WORK/e500'/*.query | sort | uniq -d | wc -l) -ge 1 ]"
check "the outage is said once" sh -c "[ \$(grep -c 'answered 500' '$WORK/e500.err') -eq 1 ]"
kill "$endpoint_PID"
wait "$endpoint_PID" 2>/dev/null
sleep 1
sigint_within_5s "SIGINT with the endpoint down"

# ---- a server that takes the request and never answers: SIGINT still ends it at once ----
PORTH=$(free_port)
start_endpoint hang "$PORTH" 0
push_to "$PORTH" /dev/null "$WORK/hang.err"
wait_for 20 sh -c "ls '$WORK/hang'/*.query >/dev/null 2>&1"
ok $? "a request reaches the endpoint that never answers"
sigint_within_5s "SIGINT with a request unanswered"
kill "$endpoint_PID"
wait "$endpoint_PID" 2>/dev/null

# ---- 400: said once, never retried ----
PORT4=$(free_port)
start_endpoint e400 "$PORT4" 400
push_to "$PORT4" /dev/null "$WORK/e400.err"
wait_for 20 sh -c "[ \$(ls '$WORK/e400'/*.query 2>/dev/null | wc -l) -ge 2 ]"
ok $? "profiles reach the endpoint that answers 400 ($(count e400))"
sleep 2
check "a 400 is not retried (each profile sent once)" sh -c "[ -z \"\$(cat '$WORK/e400'/*.query | sort | uniq -d)\" ]"
kill -INT "$ntop"
wait "$ntop"
rc=$?
ok "$([ $rc -eq 0 ]; echo $?)" "exit status 0 (got $rc)"
n=$(grep -c "refused a profile with status 400" "$WORK/e400.err")
ok "$([ "$n" -eq 1 ]; echo $?)" "the refusal is said once on stderr (got $n: $(head -c 300 "$WORK/e400.err"))"

# ---- worker threads: a series each (thread=ID), and --serve's profile labels them ----
kill "$target_PID" 2>/dev/null # the pool needs both cores
if ! deps=$(bash -c ". '$top_srcdir/bench/lib.sh' && bench_npm_deps" 2>"$WORK/npm.log"); then
	skip "worker threads pushed and served" "the pinned npm packages (piscina) are not installed"
else
	export NODE_PATH=$deps/node_modules
	start_node pool --inspect-port=0 "$TARGETS/pool.js" pool
	wait_for 15 grep -q '^ready' "$WORK/pool.out"
	sleep 2 # warm
	PORTW=$(free_port)
	SERVEW=$(free_port)
	start_endpoint thr "$PORTW" 200
	"$NTOP_JS" -b --pid "$pool_PID" --no-config -n 10 --push "http://127.0.0.1:$PORTW" \
		--push-every 5 --push-name pool --serve "$SERVEW" >/dev/null 2>"$WORK/thr.err" &
	ntop=$!
	pids_to_kill="$pids_to_kill $ntop"
	wait_for 10 port_open "$SERVEW"
	if command -v "$GO" >/dev/null 2>&1; then
		PPROF_TMPDIR=$WORK "$GO" tool pprof -raw \
			"http://127.0.0.1:$SERVEW/debug/pprof/profile?seconds=4" >"$WORK/served.raw" 2>&1
	fi
	wait "$ntop"
	ok $? "ntop-js on a piscina pool with --push and --serve: status 0 ($(head -c 200 "$WORK/thr.err"))"
	threads=$(queries thr | grep -o 'thread%3D[0-9]*%7D' | sort -u | wc -l)
	ok "$([ "$threads" -ge 2 ] && queries thr | grep -q 'name=pool%7Bpid%3D'"$pool_PID"'%2Cthread%3Dmain%7D'; echo $?)" \
		"a series for the main thread and one for each pool thread ($threads thread=ID series)"
	if ! command -v "$GO" >/dev/null 2>&1; then
		skip "go tool pprof reads a pool thread's pushed profile" "go not found (Debian: golang-go)"
		skip "the served profile labels the threads" "go not found (Debian: golang-go)"
	else
		# each push of the threads' series in turn, until one lists the task first: the first
		# covers the attach (the worker's deoptimization and inspector start), where once in CI
		# postMessage outweighed it
		first=""
		for q in $(grep -l 'thread%3D[0-9]*%7D' "$WORK/thr"/*.query); do
			PPROF_TMPDIR=$WORK "$GO" tool pprof -top "${q%.query}.pb.gz" >"$WORK/thr.top" 2>&1
			first=$(awk 'seen { print $6; exit } /flat%/ { seen = 1 }' "$WORK/thr.top")
			case $first in isPrime | primeCount) break ;; esac
		done
		ok "$(case $first in isPrime | primeCount) echo 0 ;; *) echo 1 ;; esac)" \
			"go tool pprof -top lists the pool's task first in a thread's series (got '$first')"
		case $first in isPrime | primeCount) ;; *) diag "$(head -15 "$WORK/thr.top")" ;; esac
		# -raw prints each sample's labels: thread:[ID] for the pool's threads (the main
		# thread, which only waits, may have no sample that is not idle)
		ids=$(grep -o 'thread:\[[0-9]*\]' "$WORK/served.raw" | sort -u | wc -l)
		ok "$([ "$ids" -ge 2 ] && grep -q "pid:\[$pool_PID\]" "$WORK/served.raw"; echo $?)" \
			"the served profile labels its samples by pid and thread ($ids worker threads)"
		[ "$ids" -ge 2 ] || diag "$(head -c 600 "$WORK/served.raw")"
	fi
fi

done_testing
