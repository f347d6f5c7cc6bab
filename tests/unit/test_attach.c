/* Tests for attach: loopback rules, the /json replies (through a fake inspector forked by the
 * test: ws path extraction, version parsing, hostile answers), and real node processes
 * attached by PID and by port. Every process started here is killed at the end, and each
 * one also dies by itself if the test dies (PR_SET_PDEATHSIG, and node scripts that exit
 * when their parent changes). Node is $NODE, else "node" on PATH. */
#include "config.h"

#include "attach.h"
#include "exitcode.h"
#include "procfs.h"
#include "util.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exits when its parent goes away, and after a minute whatever happens. */
#define KEEP_JS "const p=process.ppid;setInterval(()=>{if(process.ppid!==p)process.exit(0)},200);" \
	"setTimeout(()=>process.exit(0),60000);"

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static pid_t kids[32];
static size_t nkids;

static void kids_kill_all(void)
{
	for (size_t i = 0; i < nkids; i++) {
		struct procfs_pids gk = { 0 };

		if (kids[i] <= 0)
			continue;
		/* A wrapper's child first, so that the wrapper reaps it. */
		procfs_children_read(kids[i], &gk, NULL);
		for (size_t k = 0; k < gk.n; k++)
			kill(gk.v[k], SIGKILL);
		for (int t = 0; gk.n && t < 50 && waitpid(kids[i], NULL, WNOHANG) == 0; t++)
			sleep_s(0.02);
		procfs_pids_free(&gk);
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
		kids[i] = 0;
	}
	nkids = 0;
}

static void on_fatal_signal(int sig)
{
	kids_kill_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static pid_t spawn(char *const argv[])
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0 && nkids < sizeof(kids) / sizeof(kids[0]))
		kids[nkids++] = pid;
	return pid;
}

static const char *node_bin(void)
{
	const char *n = getenv("NODE");

	return n && n[0] ? n : "node";
}

static bool node_available(void)
{
	char *cmd = xasprintf("'%s' -e 0 >/dev/null 2>&1", node_bin());
	int rc = system(cmd);

	free(cmd);
	return rc == 0;
}

/* Waits until PID has Node's SIGUSR1 handler (installed a little after start). */
static bool wait_handler(pid_t pid)
{
	for (int i = 0; i < 250; i++) {
		struct procfs_status st;
		if (procfs_status_read(pid, &st, NULL) == 0 && (st.sig_cgt & PROCFS_SIGUSR1_MASK))
			return true;
		sleep_s(0.02);
	}
	return false;
}

/* Node catches SIGUSR1 natively from its start (its inspector's handler), so the mask says
 * nothing of a JavaScript listener: a target that installs one touches FILE after it, and
 * this waits for that. A SIGUSR1 before it would open the inspector (on 9229) instead. */
static bool wait_file(const char *path)
{
	for (int i = 0; i < 500; i++) {
		if (access(path, F_OK) == 0)
			return true;
		sleep_s(0.02);
	}
	return false;
}

/* The port of a listener PID owns, or 0. */
static int owned_listen_port(pid_t pid)
{
	struct procfs_inodes fds = { 0 };
	struct procfs_listeners ls = { 0 };
	int port = 0;

	if (procfs_socket_inodes_read(pid, &fds, NULL) == 0 && procfs_listeners_read(pid, &ls, NULL) == 0)
		for (size_t i = 0; i < ls.n && !port; i++)
			if (procfs_inodes_has(&fds, ls.v[i].inode))
				port = ls.v[i].port;
	procfs_inodes_free(&fds);
	procfs_listeners_free(&ls);
	return port;
}

static int wait_listen_port(pid_t pid)
{
	for (int i = 0; i < 250; i++) {
		int port = owned_listen_port(pid);
		if (port)
			return port;
		sleep_s(0.02);
	}
	return 0;
}

/* Alive and not a zombie. */
static bool running(pid_t pid)
{
	struct procfs_status st;

	return attach_pid_alive(pid) && procfs_status_read(pid, &st, NULL) == 0 && st.state != 'Z';
}

static bool ipv6_loopback_works(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool works = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;

	if (fd >= 0)
		close(fd);
	return works;
}

static int listen_loopback(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0 ||
		getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static char *json_reply(const char *body)
{
	return xasprintf("HTTP/1.0 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\n"
		"Content-Length: %zu\r\n\r\n%s", strlen(body), body);
}

/* A fake inspector: answers /json/version and /json/list with raw replies (NULL: never
 * answer), and 400 when the Host header is not "127.0.0.1:PORT", as Node does. */
static pid_t fake_server(const char *version_raw, const char *list_raw, int *port)
{
	int fd = listen_loopback(port);
	pid_t pid;

	if (fd < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char want_host[64];
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		snprintf(want_host, sizeof(want_host), "\r\nHost: 127.0.0.1:%d\r\n", *port);
		for (;;) {
			char req[4096];
			size_t n = 0;
			const char *reply;
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				continue;
			while (n < sizeof(req) - 1) {
				ssize_t got = read(c, req + n, sizeof(req) - 1 - n);
				if (got <= 0)
					break;
				n += (size_t)got;
				req[n] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			req[n] = '\0';
			if (!strstr(req, want_host))
				reply = "HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
			else if (strncmp(req, "GET /json/version ", 18) == 0)
				reply = version_raw;
			else if (strncmp(req, "GET /json/list ", 15) == 0)
				reply = list_raw;
			else
				reply = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n";
			if (!reply) {
				pause();
				_exit(0);
			}
			if (write(c, reply, strlen(reply)) < 0)
				_exit(1);
			close(c);
		}
	}
	close(fd);
	if (pid > 0 && nkids < sizeof(kids) / sizeof(kids[0]))
		kids[nkids++] = pid;
	return pid;
}

static void stop(pid_t pid)
{
	for (size_t i = 0; i < nkids; i++)
		if (kids[i] == pid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			kids[i] = 0;
		}
}

static const char version_ok[] = "{\n  \"Browser\": \"node.js/v20.20.2\",\n  \"Protocol-Version\": \"1.1\"\n}\n";

/* Attaches by port to a fake inspector; returns the exit status. */
static int fake_attach(const char *version_raw, const char *list_raw, double timeout_s,
	struct attach_result *r, char **cause)
{
	struct attach_opts o = { .host = "127.0.0.1", .timeout_s = timeout_s };
	pid_t srv = fake_server(version_raw, list_raw, &o.port);
	int code;

	if (srv < 0)
		return -1;
	code = attach_target(&o, r, cause);
	stop(srv);
	return code;
}

static bool has(const char *s, const char *sub)
{
	return s && strstr(s, sub);
}

static void test_loopback(void)
{
	static const char *const yes[] = { "127.0.0.1", "127.1.2.3", "127.1", "::1", "[::1]",
		"localhost", "LOCALHOST", "::ffff:127.0.0.1" };
	static const char *const no[] = { "10.0.0.1", "0.0.0.0", "::", "example.com", "",
		"127.0.0.1.example.com", "localhost.example.com", "192.0.2.1", "[::2]", "::ffff:10.0.0.1" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ok(attach_host_is_loopback(yes[i]), "loopback: %s", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ok(!attach_host_is_loopback(no[i]), "not loopback: \"%s\"", no[i]);
	ok(!attach_host_is_loopback(NULL), "not loopback: NULL");
	ok(attach_pid_alive(getpid()) && !attach_pid_alive(0), "pid alive");
}

static void test_port_mode(void)
{
	struct attach_opts o = { .host = "192.0.2.1", .port = 9229, .timeout_s = 1 };
	struct attach_result r;
	char *cause = NULL, *v = json_reply(version_ok), *l, *raw;
	int code, port, fd;

	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_USAGE, "a remote host is refused without allow_remote");
	ok(has(cause, "--allow-remote") && has(cause, "remote code execution"), "and says why: %s", cause);
	free(cause);
	o.host = "example.com";
	is_int(attach_target(&o, &r, &cause), EXIT_USAGE, "a host name other than localhost is refused");
	free(cause);
	o.host = NULL;
	o.port = 0;
	is_int(attach_target(&o, &r, &cause), EXIT_USAGE, "port 0 is refused");
	free(cause);

	fd = listen_loopback(&port);
	close(fd);
	o.port = port;
	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_UNREACHABLE, "a closed port is unreachable");
	ok(has(cause, "connection refused"), "cause: %s", cause);
	free(cause);
	o.host = "localhost";
	is_int(attach_target(&o, &r, &cause), EXIT_UNREACHABLE, "localhost: every address tried");
	free(cause);

	l = json_reply("[ {\n \"description\": \"node.js instance\", \"id\": \"abc-123\", "
		"\"title\": \"srv\\u001b[31m\", \"type\": \"node\", \"url\": \"file://\", "
		"\"webSocketDebuggerUrl\": \"ws://evil.example:1/abc-123\" } ]");
	code = fake_attach(v, l, 2, &r, &cause);
	is_int(code, EXIT_OK, "fake inspector: attached (%s)", cause ? cause : "");
	is_str(r.ws_path, "/abc-123", "only the path of webSocketDebuggerUrl is kept");
	is_str(r.host, "127.0.0.1", "the host is ours, not the one the reply names");
	ok(r.port > 0 && r.port != 1, "the port is ours too");
	ok(strncmp(r.host_header, "127.0.0.1:", 10) == 0 && atoi(r.host_header + 10) == r.port,
		"Host header is the numeric address and port: %s", r.host_header);
	is_str(r.node_version, "v20.20.2", "node.js/v20.20.2 gives v20.20.2");
	is_str(r.title, "srv?[31m", "the title is made safe for a terminal");
	ok(!r.opened_by_us && r.pid == 0, "not opened by us; the owner is not node");
	free(cause);
	free(l);

	l = json_reply("[{\"type\":\"node\",\"id\":\"0f2c-uuid\",\"title\":\"x\"}]");
	code = fake_attach(v, l, 2, &r, &cause);
	ok(code == EXIT_OK && strcmp(r.ws_path, "/0f2c-uuid") == 0, "no URL: the path is /id");
	free(cause);
	free(l);

	static const char *const bad_lists[] = {
		"[{\"type\":\"page\",\"webSocketDebuggerUrl\":\"ws://127.0.0.1:1/x\"}]",
		"[{\"type\":\"node\",\"webSocketDebuggerUrl\":\"http://127.0.0.1:1/x\"}]",
		"[{\"type\":\"node\",\"webSocketDebuggerUrl\":\"ws://127.0.0.1:1\"}]",
		"[{\"type\":\"node\",\"webSocketDebuggerUrl\":\"ws://h/a b\"}]",
		"[{\"type\":\"node\",\"webSocketDebuggerUrl\":42}]",
		"{\"type\":\"node\"}",
		"[{\"type\":\"node\",\"webSocketDebuggerUrl\":\"ws://h/x\"",
	};
	for (size_t i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		l = json_reply(bad_lists[i]);
		is_int(fake_attach(v, l, 2, &r, &cause), EXIT_PROTOCOL, "bad /json/list %zu: %s", i,
			cause ? cause : "");
		free(cause);
		free(l);
	}

	static const char *const bad_versions[] = {
		"{\"Browser\":\"Chrome/120.0\",\"Protocol-Version\":\"1.3\"}",
		"{\"Browser\":\"node.js/v20\\u001b[31m\"}",
		"{\"Browser\":\"node.js/\"}",
		"[\"node.js/v20.20.2\"]",
		"<html>hello</html>",
	};
	l = json_reply("[{\"type\":\"node\",\"id\":\"x\"}]");
	for (size_t i = 0; i < sizeof(bad_versions) / sizeof(bad_versions[0]); i++) {
		raw = json_reply(bad_versions[i]);
		is_int(fake_attach(raw, l, 2, &r, &cause), EXIT_PROTOCOL, "bad /json/version %zu: %s",
			i, cause ? cause : "");
		free(cause);
		free(raw);
	}
	code = fake_attach("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", l, 2, &r, &cause);
	ok(code == EXIT_PROTOCOL && has(cause, "404"), "HTTP 404: %s", cause);
	free(cause);
	code = fake_attach("SSH-2.0-OpenSSH_9.2\r\n", l, 2, &r, &cause);
	ok(code == EXIT_PROTOCOL && has(cause, "not HTTP"), "not HTTP at all: %s", cause);
	free(cause);
	code = fake_attach("HTTP/1.0 200 OK\r\nContent-Length: 99999999\r\n\r\n{}", l, 2, &r, &cause);
	is_int(code, EXIT_PROTOCOL, "an oversized answer is refused: %s", cause);
	free(cause);
	code = fake_attach("HTTP/1.0 200 OK\r\nContent-Length: 100\r\n\r\n{\"Browser\"", l, 2, &r, &cause);
	is_int(code, EXIT_PROTOCOL, "a cut answer is refused: %s", cause);
	free(cause);
	code = fake_attach("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"10\r\n{\"Browser\":\"node\r\n10;ext=1\r\n.js/v22.1.0\"}   \r\n0\r\n\r\n", l, 2, &r, &cause);
	ok(code == EXIT_OK && strcmp(r.node_version, "v22.1.0") == 0, "a chunked answer is decoded %s",
		cause ? cause : "");
	free(cause);
	code = fake_attach(NULL, l, 0.4, &r, &cause);
	ok(code == EXIT_TIMEOUT && has(cause, "did not answer"), "a silent server times out: %s", cause);
	free(cause);
	free(l);
	free(v);
}

static void test_node(void)
{
	struct attach_opts o = { .timeout_s = 5 };
	struct attach_result r;
	char *cause = NULL, *cmd, arg[64], ready[64];
	const char *node = node_bin();
	pid_t n1, n2, sh, sl, dead, n3, n4, n5, nodekid = 0;
	int code, port, hold_fd;
	double t0;

	/* 1. A plain node, attached by SIGUSR1. */
	n1 = spawn((char *const[]){ (char *)node, "--inspect-port=0", "-e", KEEP_JS, NULL });
	ok(n1 > 0 && wait_handler(n1), "node started and installed its SIGUSR1 handler");
	o.pid = n1;
	t0 = util_now_mono_s();
	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_OK, "SIGUSR1 attach (%s)", cause ? cause : "");
	printf("# SIGUSR1 to a confirmed inspector: %.0f ms\n", (util_now_mono_s() - t0) * 1e3);
	ok(r.opened_by_us, "opened_by_us");
	ok(r.port > 0 && r.port != 9229 && r.port == owned_listen_port(n1),
		"the port (%d) was found from /proc, not assumed", r.port);
	ok(r.ws_path[0] == '/' && strlen(r.ws_path) > 1, "ws path %s", r.ws_path);
	ok(r.node_version[0] == 'v' && r.pid == n1, "version %s, pid", r.node_version);
	free(cause);
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_OK && !r.opened_by_us, "a second attach finds it already open");
	free(cause);

	/* --port to the same inspector learns the PID from /proc. */
	o.pid = 0;
	o.port = r.port;
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_OK && r.pid == n1 && !r.opened_by_us, "--port mode: pid %d from the port owner",
		(int)r.pid);
	free(cause);
	o.port = 0;

	/* 2. Already listening with --inspect. */
	n2 = spawn((char *const[]){ (char *)node, "--inspect=127.0.0.1:0", "-e", KEEP_JS, NULL });
	port = n2 > 0 ? wait_listen_port(n2) : 0;
	ok(port > 0, "node --inspect=127.0.0.1:0 listens on %d", port);
	o.pid = n2;
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_OK && !r.opened_by_us && r.port == port, "existing inspector used (%s)",
		cause ? cause : "");
	free(cause);

	/* 3. A shell wrapper: refused, its node child named, nothing killed. */
	cmd = xasprintf("'%s' -e '%s'; true", node, KEEP_JS);
	sh = spawn((char *const[]){ "sh", "-c", cmd, NULL });
	for (int i = 0; i < 250 && !nodekid; i++) {
		struct procfs_pids k = { 0 };
		procfs_children_read(sh, &k, NULL);
		if (k.n == 1 && wait_handler(k.v[0]))
			nodekid = k.v[0];
		procfs_pids_free(&k);
		if (!nodekid)
			sleep_s(0.02);
	}
	ok(nodekid > 0, "sh wrapper started node %d", (int)nodekid);
	o.pid = sh;
	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_NOT_NODE, "the wrapper is refused: %s", cause ? cause : "");
	snprintf(arg, sizeof(arg), "ntop-js --pid %d", (int)nodekid);
	ok(has(cause, arg), "the node child is named");
	ok(running(sh) && running(nodekid), "the wrapper and its child are still alive");
	free(cause);
	free(cmd);

	/* 4. Not node at all. */
	sl = spawn((char *const[]){ "sleep", "30", NULL });
	sleep_s(0.05);
	o.pid = sl;
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_NOT_NODE && has(cause, "not Node"), "sleep is refused: %s", cause);
	ok(running(sl), "sleep is still alive");
	free(cause);

	/* 5. A dead PID. */
	fflush(stdout);
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	o.pid = dead;
	code = attach_target(&o, &r, &cause);
	snprintf(arg, sizeof(arg), "no process with PID %d.", (int)dead);
	ok(code == EXIT_NO_PROCESS && has(cause, arg), "a dead PID: %s", cause);
	free(cause);

	/* 6. The inspector's port is taken by a socket of ours. */
	hold_fd = listen_loopback(&port);
	snprintf(arg, sizeof(arg), "--inspect-port=%d", port);
	n3 = spawn((char *const[]){ (char *)node, arg, "-e", KEEP_JS, NULL });
	ok(hold_fd >= 0 && n3 > 0 && wait_handler(n3), "node with --inspect-port=%d", port);
	o.pid = n3;
	t0 = util_now_mono_s();
	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_PORT_BUSY, "busy port: %s", cause ? cause : "");
	printf("# busy port reported after %.0f ms\n", (util_now_mono_s() - t0) * 1e3);
	snprintf(arg, sizeof(arg), "port %d", port);
	ok(has(cause, arg), "the port is named");
	snprintf(arg, sizeof(arg), "PID %d", (int)getpid());
	ok(has(cause, arg), "and the PID holding it");
	ok(running(n3), "node is still alive");
	free(cause);
	close(hold_fd);

	/* The expected port is taken by the target's own server. */
	close(listen_loopback(&port)); /* a port that was free a moment ago */
	snprintf(arg, sizeof(arg), "--inspect-port=%d", port);
	cmd = xasprintf("require('http').createServer((q,s)=>s.end('app')).listen(%d,'127.0.0.1');" KEEP_JS, port);
	n4 = spawn((char *const[]){ (char *)node, arg, "-e", cmd, NULL });
	free(cmd);
	ok(n4 > 0 && wait_handler(n4) && wait_listen_port(n4) == port,
		"node serving on its inspector port %d", port);
	o.pid = n4;
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_PORT_BUSY && has(cause, "of its own") && running(n4), "busy by itself: %s",
		cause ? cause : "");
	free(cause);
	stop(n4);

	/* 7. An app that listens for SIGUSR1 itself: no inspector, a timeout. */
	snprintf(ready, sizeof ready, "/tmp/ntop-test-attach-%d.ready", (int)getpid());
	unlink(ready);
	cmd = xasprintf("process.on('SIGUSR1',()=>{});require('fs').writeFileSync('%s','');" KEEP_JS,
		ready);
	n4 = spawn((char *const[]){ (char *)node, "-e", cmd, NULL });
	free(cmd);
	ok(n4 > 0 && wait_file(ready), "node with its own SIGUSR1 listener");
	unlink(ready);
	o.pid = n4;
	o.timeout_s = 0.5;
	code = attach_target(&o, &r, &cause);
	ok(code == EXIT_TIMEOUT && running(n4), "times out and leaves it running: status %d, %s", code,
		cause ? cause : "");
	free(cause);

	/* 8. The target exits while we wait. */
	stop(n4);
	cmd = xasprintf("process.on('SIGUSR1',()=>process.exit(0));require('fs').writeFileSync('%s','');"
		KEEP_JS, ready);
	n4 = spawn((char *const[]){ (char *)node, "-e", cmd, NULL });
	free(cmd);
	ok(n4 > 0 && wait_file(ready), "node that exits on SIGUSR1");
	unlink(ready);
	o.pid = n4;
	o.timeout_s = 3;
	code = attach_target(&o, &r, &cause);
	is_int(code, EXIT_TARGET_GONE, "the target went away: %s", cause ? cause : "");
	free(cause);

	/* 9. An inspector on IPv6 loopback, by PID and by port. */
	if (ipv6_loopback_works()) {
		n5 = spawn((char *const[]){ (char *)node, "--inspect=[::1]:0", "-e", KEEP_JS, NULL });
		port = n5 > 0 ? wait_listen_port(n5) : 0;
		o.pid = n5;
		code = attach_target(&o, &r, &cause);
		ok(code == EXIT_OK && strcmp(r.host, "::1") == 0 && r.port == port && !r.opened_by_us,
			"IPv6 inspector by PID (%s)", cause ? cause : r.host);
		snprintf(arg, sizeof(arg), "[::1]:%d", port);
		is_str(r.host_header, arg, "IPv6 Host header is bracketed");
		free(cause);
		o.pid = 0;
		o.host = "::1";
		o.port = port;
		code = attach_target(&o, &r, &cause);
		ok(code == EXIT_OK && r.pid == n5, "IPv6 inspector by port (%s)", cause ? cause : "");
		free(cause);
		o.host = NULL;
		o.port = 0;
		stop(n5);
	} else {
		ok(1, "# SKIP no IPv6 loopback");
	}

	/* 10. Attach by signal disabled (Node 22.14+; skipped on older Node). */
	cmd = xasprintf("'%s' --disable-sigusr1 -e 0 >/dev/null 2>&1", node);
	if (system(cmd) == 0) {
		struct procfs_status st = { 0 };
		n5 = spawn((char *const[]){ (char *)node, "--disable-sigusr1", "-e", KEEP_JS, NULL });
		for (int i = 0; i < 250; i++) {
			if (procfs_status_read(n5, &st, NULL) == 0 && (st.sig_blk & PROCFS_SIGUSR1_MASK))
				break;
			sleep_s(0.02);
		}
		o.pid = n5;
		code = attach_target(&o, &r, &cause);
		ok(code == EXIT_SIGNAL_DISABLED && running(n5), "--disable-sigusr1 is reported: %s",
			cause ? cause : "");
		free(cause);
		stop(n5);
		n5 = spawn((char *const[]){ (char *)node, "--disable-sigusr1", "--inspect=127.0.0.1:0",
			"-e", KEEP_JS, NULL });
		port = n5 > 0 ? wait_listen_port(n5) : 0;
		o.pid = n5;
		code = attach_target(&o, &r, &cause);
		ok(code == EXIT_OK && !r.opened_by_us && r.port == port,
			"an open inspector is used even with --disable-sigusr1 (%s)", cause ? cause : "");
		free(cause);
		stop(n5);
	} else {
		ok(1, "# SKIP this node has no --disable-sigusr1");
	}
	free(cmd);

	/* 11. As root: another user may not attach to root's node. */
	if (geteuid() == 0) {
		pid_t c;
		int status = 0;
		fflush(stdout);
		c = fork();
		if (c == 0) {
			struct attach_opts uo = { .pid = n3, .timeout_s = 2 };
			struct attach_result ur;
			char *uc = NULL;
			if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
				_exit(100);
			code = attach_target(&uo, &ur, &uc);
			printf("# as uid 65534: %s\n", uc ? uc : "");
			fflush(stdout);
			_exit(code);
		}
		waitpid(c, &status, 0);
		is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, EXIT_PERMISSION,
			"another user gets EXIT_PERMISSION");
		ok(running(n3), "and the node is still alive");
	} else {
		ok(1, "# SKIP not root: no permission test");
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGINT, on_fatal_signal);
	signal(SIGPIPE, SIG_IGN);
	atexit(kids_kill_all);
	test_loopback();
	test_port_mode();
	if (node_available())
		test_node();
	else
		ok(1, "# SKIP %s not found: no tests with real node processes", node_bin());
	kids_kill_all();
	return done_testing();
}
