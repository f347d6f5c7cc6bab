/* Unit tests for procfs: the parsers against /proc files recorded from real processes
 * (tests/fixtures/proc, made by record.sh, whose meta.txt holds values found independently),
 * hand-made hostile inputs, and the readers against this process. */
#include "config.h"

#include "procfs.h"
#include "fixture.h"
#include "util.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A value from meta.txt, or -1. */
static long meta_get(const char *meta, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = meta; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, kl) == 0 && p[kl] == '=')
			return strtol(p + kl + 1, NULL, 10);
	return -1;
}

static const struct procfs_listener *find_inode(const struct procfs_listeners *ls,
	unsigned long ino)
{
	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].inode == ino)
			return &ls->v[i];
	return NULL;
}

static size_t count_listen_rows(const char *text)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, " 0A ")) != NULL; p += 4)
		n++;
	return n;
}

/* NStgid: the PID inside a container is its last field. */
static void test_status_nstgid(void)
{
	static const char *const base = "Name:\tnode\nUid:\t0\t0\t0\t0\nSigCgt:\t0\n";
	struct procfs_status st;
	size_t len;
	char *t;

	t = fixture_read_text("proc/ctr_status", &len);
	ok(t && procfs_status_parse(t, len, &st) == 0, "a containerised node's status parses");
	if (t) {
		is_int(st.ns_levels, 2, "container: two PID namespaces in NStgid");
		is_int(st.ns_tgid, 1, "container: PID 1 inside");
		ok(st.tgid > 1, "container: the host PID is Tgid (%d)", (int)st.tgid);
	}
	free(t);
	t = fixture_read_text("proc/node4_status", &len);
	if (t && procfs_status_parse(t, len, &st) == 0)
		ok(st.ns_levels == 1 && st.ns_tgid == st.tgid, "a host process: one NStgid field, "
			"its own PID");
	else
		ok(0, "node4_status parses");
	free(t);
	{
		static const struct { const char *line; int tgid, levels; const char *what; } cases[] = {
			{ "NStgid:\t4242\t17\t1\n", 1, 3, "three levels: the last one" },
			{ "NStgid:\t4242 \t 7 \r\n", 0, 0, "a carriage return makes it malformed" },
			{ "NStgid:\t4242\tx\n", 0, 0, "a non-number is ignored" },
			{ "NStgid:\t4242\t0\n", 0, 0, "PID 0 is ignored" },
			{ "NStgid:\t4242\t99999999999\n", 0, 0, "an overflowing PID is ignored" },
			{ "NStgid:\n", 0, 0, "an empty field is ignored" },
		};
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			char *text = xasprintf("%s%s", base, cases[i].line);
			ok(procfs_status_parse(text, strlen(text), &st) == 0 &&
				st.ns_tgid == cases[i].tgid && st.ns_levels == cases[i].levels,
				"NStgid: %s (%d, %d levels)", cases[i].what, (int)st.ns_tgid, st.ns_levels);
			free(text);
		}
	}
}

static void test_status(const char *meta)
{
	struct procfs_status st;
	size_t len;
	char *t;

	t = fixture_read_text("proc/node4_status", &len);
	ok(t && procfs_status_parse(t, len, &st) == 0, "node status parses");
	if (t) {
		is_str(st.name, "node", "node status: name");
		is_int(st.tgid, meta_get(meta, "node4_pid"), "node status: tgid");
		is_int(st.uid, meta_get(meta, "node4_uid"), "node status: uid");
		ok(st.sig_cgt & PROCFS_SIGUSR1_MASK, "node catches SIGUSR1");
		ok(!(st.sig_blk & PROCFS_SIGUSR1_MASK), "node does not block SIGUSR1");
		ok(st.state == 'S' || st.state == 'R', "node status: state %c", st.state);
		/* Cut before SigCgt: not usable. */
		ok(procfs_status_parse(t, (size_t)(strstr(t, "SigCgt") - t), &st) < 0,
			"status without SigCgt is refused");
	}
	free(t);
	t = fixture_read_text("proc/node6_status", &len);
	ok(t && procfs_status_parse(t, len, &st) == 0 && st.tgid == meta_get(meta, "node6_pid") &&
		(st.sig_cgt & PROCFS_SIGUSR1_MASK), "second node's status");
	free(t);
	t = fixture_read_text("proc/sh_status", &len);
	ok(t && procfs_status_parse(t, len, &st) == 0, "sh status parses");
	if (t) {
		is_int(st.tgid, meta_get(meta, "sh_pid"), "sh status: tgid");
		ok(!(st.sig_cgt & PROCFS_SIGUSR1_MASK), "sh does not catch SIGUSR1 (signal would kill it)");
		ok(!(st.sig_blk & PROCFS_SIGUSR1_MASK), "sh does not block SIGUSR1");
	}
	free(t);
	t = fixture_read_text("proc/sleep_status", &len);
	ok(t && procfs_status_parse(t, len, &st) == 0, "sleep status parses");
	if (t) {
		is_str(st.name, "sleep", "sleep status: name");
		is_int(st.ppid, meta_get(meta, "sh_pid"), "sleep's parent is the sh wrapper");
		is_int(st.sig_cgt, 0, "sleep catches nothing");
	}
	free(t);

	ok(procfs_status_parse("", 0, &st) < 0, "empty status is refused");
	t = "Name:\tx\x1b[31m\nUid:\t1000\t1000\t1000\t1000\nSigCgt:\t00000000000000zz\n";
	ok(procfs_status_parse(t, strlen(t), &st) < 0, "bad hex in SigCgt is refused");
	t = "Name:\tx\x1b[31m\nUid:\t1000\t1000\t1000\t1000\nSigBlk:\t0000000000000200\n"
		"SigCgt:\t0000000000000000\n";
	ok(procfs_status_parse(t, strlen(t), &st) == 0, "minimal status parses");
	is_str(st.name, "x?[31m", "control characters in Name are neutralised");
	ok(st.sig_blk & PROCFS_SIGUSR1_MASK, "SigBlk 0x200 is SIGUSR1");
	t = "Name:\tx\nUid:\t99999999999999999999\nSigCgt:\t0000000000000000\n";
	ok(procfs_status_parse(t, strlen(t), &st) < 0, "overflowing Uid is refused");
	test_status_nstgid();
}

static void test_net(const char *meta)
{
	struct procfs_listeners ls = { 0 };
	const struct procfs_listener *l;
	char addr[64];
	size_t len;
	char *t;
	int n;

	t = fixture_read_text("proc/node4_net_tcp", &len);
	n = t ? procfs_net_tcp_parse(t, len, AF_INET, &ls) : -1;
	ok(n > 0, "tcp parses (%d listeners)", n);
	if (t)
		is_int(n, count_listen_rows(t), "every LISTEN row and nothing else");
	l = find_inode(&ls, (unsigned long)meta_get(meta, "node4_inspector_inode"));
	ok(l != NULL, "the inspector's socket is a listener");
	if (l) {
		is_int(l->port, meta_get(meta, "node4_inspector_port"), "inspector port from hex");
		procfs_listener_addr_str(l, addr, sizeof(addr));
		is_str(addr, "127.0.0.1", "0100007F is 127.0.0.1");
		ok(procfs_listener_is_loopback(l) && !procfs_listener_is_wildcard(l), "loopback, not wildcard");
	}
	l = find_inode(&ls, (unsigned long)meta_get(meta, "node4_app_inode"));
	ok(l && l->port == meta_get(meta, "node4_app_port"), "the app's own server is a listener too");
	free(t);
	procfs_listeners_free(&ls);

	t = fixture_read_text("proc/node6_net_tcp6", &len);
	n = t ? procfs_net_tcp_parse(t, len, AF_INET6, &ls) : -1;
	ok(n >= 1, "tcp6 parses");
	l = find_inode(&ls, (unsigned long)meta_get(meta, "node6_inspector_inode"));
	ok(l != NULL, "the IPv6 inspector's socket is a listener");
	if (l) {
		is_int(l->port, meta_get(meta, "node6_inspector_port"), "IPv6 inspector port");
		procfs_listener_addr_str(l, addr, sizeof(addr));
		is_str(addr, "::1", "four host-order words give ::1");
		ok(procfs_listener_is_loopback(l), "::1 is loopback");
	}
	free(t);
	procfs_listeners_free(&ls);

	ok(procfs_net_tcp_parse("garbage\n", 8, AF_INET, &ls) < 0, "missing header is refused");
	t = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
		"timeout inode\n"
		"   0: 0100007F:ZZZZ 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 11 1\n"
		"   1: 0100007F:240D 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 12 1\n"
		"   2: 0100007F:240E 00000000:0000 0A\n"
		"   3: 00000000:240F 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1";
	n = procfs_net_tcp_parse(t, strlen(t), AF_INET, &ls);
	is_int(n, 1, "bad hex, short rows and a cut last line are skipped");
	ok(ls.n == 1 && ls.v[0].port == 9229 && ls.v[0].inode == 12, "0100007F:240D is port 9229");
	procfs_listeners_free(&ls);
	t = "  sl  local_address remote_address st\n"
		"   0: 0000000000000000FFFF00000100007F:240D 00000000000000000000000000000000:0000 0A "
		"00000000:00000000 00:00000000 00000000 0 0 77 1\n";
	n = procfs_net_tcp_parse(t, strlen(t), AF_INET6, &ls);
	ok(n == 1 && procfs_listener_is_loopback(&ls.v[0]), "::ffff:127.0.0.1 is loopback");
	procfs_listeners_free(&ls);
}

static void test_fds(const char *meta)
{
	struct procfs_inodes s = { 0 };
	size_t len;
	char *t = fixture_read_text("proc/node4_fd_links", &len), *line, *save = NULL;

	for (line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long ino = procfs_socket_inode_parse(line);
		if (ino)
			procfs_inodes_add(&s, ino);
	}
	ok(s.n >= 2, "socket links found (%zu)", s.n);
	ok(procfs_inodes_has(&s, (unsigned long)meta_get(meta, "node4_inspector_inode")),
		"the inspector's inode is among node's fds");
	ok(procfs_inodes_has(&s, (unsigned long)meta_get(meta, "node4_app_inode")),
		"the app server's inode is among node's fds");
	free(t);
	procfs_inodes_free(&s);
	t = fixture_read_text("proc/node6_fd_links", &len);
	for (line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		procfs_inodes_add(&s, procfs_socket_inode_parse(line));
	ok(procfs_inodes_has(&s, (unsigned long)meta_get(meta, "node6_inspector_inode")),
		"the IPv6 inspector's inode is among its node's fds");
	free(t);
	procfs_inodes_free(&s);
	is_int(procfs_socket_inode_parse("pipe:[123]"), 0, "a pipe is not a socket");
	is_int(procfs_socket_inode_parse("socket:[]"), 0, "empty inode");
	is_int(procfs_socket_inode_parse("socket:[12x]"), 0, "non-digit inode");
	is_int(procfs_socket_inode_parse("socket:[99999999999999999999999]"), 0, "overflow");
	is_int(procfs_socket_inode_parse("socket:[42]"), 42, "socket:[42]");
}

/* The whole rule on recorded files: NODE_OPTIONS, then the command line over it. */
static void test_inspect_addr_scan(void)
{
	struct procfs_inspect_addr a;
	size_t env_len = 0, cmd_len = 0;
	char *env = fixture_read("proc/node4_environ", &env_len);
	char *cmd = fixture_read("proc/node4_cmdline", &cmd_len);

	procfs_inspect_addr_scan(env, env_len, cmd, cmd_len, &a);
	ok(a.seen && a.port == 0 && strcmp(a.host, "127.0.0.1") == 0,
		"scan: --inspect=127.0.0.1:0 on the command line wins over NODE_OPTIONS' "
		"127.0.0.2:9339 (%s:%d)", a.host, a.port);
	procfs_inspect_addr_scan(env, env_len, NULL, 0, &a);
	ok(a.seen && a.port == 9339 && strcmp(a.host, "127.0.0.2") == 0,
		"scan: NODE_OPTIONS alone (%s:%d)", a.host, a.port);
	procfs_inspect_addr_scan(NULL, 0, NULL, 0, &a);
	ok(!a.seen && a.port == 9229 && strcmp(a.host, "127.0.0.1") == 0,
		"scan: nothing readable gives Node's default");
	static const char env2[] = "NODE_OPTIONS=--inspect=9300 --inspect-port=9301";
	static const char cmd2[] = "node\0--inspect-port=9302\0--inspect=[::1]:9303\0app.js";
	procfs_inspect_addr_scan(env2, sizeof(env2), cmd2, sizeof(cmd2), &a);
	ok(a.port == 9303 && strcmp(a.host, "::1") == 0,
		"scan: the last option of the command line wins (%s:%d)", a.host, a.port);
	procfs_inspect_addr_scan(env2, sizeof(env2), NULL, 0, &a);
	is_int(a.port, 9301, "scan: the last option of NODE_OPTIONS wins");
	static const char env3[] = "NODE_OPTIONS=--inspect-port=9305";
	static const char cmd3[] = "node\0--inspect=127.0.0.1\0app.js";
	procfs_inspect_addr_scan(env3, sizeof(env3), cmd3, sizeof(cmd3), &a);
	ok(a.port == 9229 && strcmp(a.host, "127.0.0.1") == 0, "scan: a host alone on the command "
		"line means 9229 over NODE_OPTIONS' port, as in Node (%s:%d)", a.host, a.port);
	free(env);
	free(cmd);
}

static void test_args(const char *meta)
{
	struct procfs_inspect_addr a;
	struct procfs_pids kids = { 0 };
	char host[256], base[64];
	const char *v;
	size_t len;
	char *t;
	int port;

	t = fixture_read_text("proc/node4_environ", &len);
	v = t ? procfs_environ_get(t, len, "NODE_OPTIONS") : NULL;
	is_str(v, "--max-old-space-size=64 --inspect-port=127.0.0.2:9339", "NODE_OPTIONS from environ");
	ok(t && procfs_environ_get(t, len, "NODE") == NULL, "a prefix of a name does not match");
	procfs_inspect_addr_init(&a);
	if (v)
		procfs_inspect_scan_node_options(v, &a);
	ok(a.seen && a.port == 9339 && strcmp(a.host, "127.0.0.2") == 0, "NODE_OPTIONS port");
	free(t);
	t = fixture_read_text("proc/node4_cmdline", &len);
	if (t) {
		procfs_cmdline_argv0(t, len, base, sizeof(base));
		is_str(base, "node", "argv[0] basename");
		procfs_inspect_scan_argv(t, len, &a);
	}
	ok(a.port == 0 && strcmp(a.host, "127.0.0.1") == 0, "the command line wins over NODE_OPTIONS");
	free(t);
	t = fixture_read_text("proc/node6_cmdline", &len);
	procfs_inspect_addr_init(&a);
	if (t)
		procfs_inspect_scan_argv(t, len, &a);
	ok(a.port == 0 && strcmp(a.host, "::1") == 0, "--inspect=[::1]:0 (host %s port %d)",
		a.host, a.port);
	free(t);

	static const char argv1[] = "node\0--inspect-port\0009333\0app.js\0--inspect=1234";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv1, sizeof(argv1), &a);
	is_int(a.port, 9333, "--inspect-port VALUE; options after the script are the app's");
	static const char argv2[] = "node\0-e\0--inspect=1111\0--inspect_port=4444";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv2, sizeof(argv2) - 1, &a);
	is_int(a.port, 4444, "-e consumes its code; underscores accepted");
	static const char argv3[] = "node\0--inspect-brk=0.0.0.0\0x.js";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv3, sizeof(argv3), &a);
	ok(a.port == 9229 && strcmp(a.host, "0.0.0.0") == 0, "--inspect-brk=HOST keeps port 9229");
	/* Node 20: "Debugger listening on ws://0.0.0.0:9229/..." */
	static const char argv3b[] = "node\0--inspect-port=9300\0--inspect=0.0.0.0\0x.js";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv3b, sizeof(argv3b), &a);
	ok(a.port == 9229 && strcmp(a.host, "0.0.0.0") == 0,
		"a later --inspect=HOST puts the port back to 9229, as in Node (%s:%d)", a.host, a.port);
	static const char argv4[] = "node\0--\0--inspect=1111";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv4, sizeof(argv4), &a);
	ok(!a.seen && a.port == 9229, "nothing after --");
	static const char argv5[] = "node\0--debug-port=5555\0--inspect=bogus:port";
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_argv(argv5, sizeof(argv5), &a);
	is_int(a.port, 5555, "--debug-port; a malformed value is ignored");
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_node_options("--require \"a b.js\" --inspect-port=\"9\\444\"  -r x", &a);
	is_int(a.port, 9444, "NODE_OPTIONS quotes and escapes");

	ok(procfs_hostport_parse("9230", host, sizeof(host), &port) == 0 && !host[0] && port == 9230,
		"hostport: port only");
	ok(procfs_hostport_parse("0.0.0.0", host, sizeof(host), &port) == 0 &&
		strcmp(host, "0.0.0.0") == 0 && port == 9229, "hostport: host only means port 9229");
	ok(procfs_hostport_parse("[::1]:0", host, sizeof(host), &port) == 0 &&
		strcmp(host, "::1") == 0 && port == 0, "hostport: [::1]:0");
	ok(procfs_hostport_parse("[::1]", host, sizeof(host), &port) == 0 &&
		strcmp(host, "::1") == 0 && port == 9229, "hostport: [::1] means port 9229");
	ok(procfs_hostport_parse("localhost:9230", host, sizeof(host), &port) == 0 &&
		strcmp(host, "localhost") == 0 && port == 9230, "hostport: name:port");
	ok(procfs_hostport_parse(":9231", host, sizeof(host), &port) == 0 && !host[0] &&
		port == 9231, "hostport: :port");
	ok(procfs_hostport_parse("70000", host, sizeof(host), &port) < 0, "hostport: port too big");
	ok(procfs_hostport_parse("h:x", host, sizeof(host), &port) < 0, "hostport: bad port");
	ok(procfs_hostport_parse("", host, sizeof(host), &port) < 0, "hostport: empty");

	t = fixture_read_text("proc/sh_children", &len);
	ok(t && procfs_children_parse(t, len, &kids) == 1, "sh has one child");
	ok(kids.n == 1 && kids.v[0] == meta_get(meta, "sleep_pid"), "the child is the sleep");
	free(t);
	ok(procfs_children_parse("12 x", 4, &kids) < 0, "a malformed children list is refused");
	procfs_pids_free(&kids);
	static const char env[] = "A=1\0B=2\0C=unterminated";
	is_str(procfs_environ_get(env, sizeof(env) - 1, "B"), "2", "environ B");
	ok(procfs_environ_get(env, sizeof(env) - 1, "C") == NULL, "an unterminated entry is ignored");
}

/* The reader on a live process: its environ, not ours; and the defaults for no process. */
static void test_inspect_addr_read(void)
{
	char *const argv[] = { "sleep", "30", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "NODE_OPTIONS=--inspect-port=127.0.0.3:9444",
		NULL };
	struct procfs_inspect_addr a;
	pid_t child = fork();

	if (child == 0) {
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	procfs_inspect_addr_init(&a);
	/* Until the exec, the child's environ is still ours. */
	for (int i = 0; child > 0 && i < 200 && !a.seen; i++) {
		usleep(10000);
		procfs_inspect_addr_read(child, &a);
	}
	ok(a.seen && a.port == 9444 && strcmp(a.host, "127.0.0.3") == 0,
		"read: a live process's NODE_OPTIONS (%s:%d)", a.host, a.port);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	procfs_inspect_addr_read(0x7ffffff0, &a);
	ok(!a.seen && a.port == 9229, "read: no such PID gives Node's default");
}

static void test_live(void)
{
	struct procfs_status st;
	struct procfs_inodes fds = { 0 };
	struct procfs_listeners ls = { 0 };
	struct procfs_pids kids = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	const struct procfs_listener *l;
	struct stat sst;
	int fd, err = 0;
	pid_t child;

	ok(procfs_status_read(getpid(), &st, &err) == 0 && st.tgid == getpid(), "own status");
	ok(!procfs_looks_like_node(getpid(), &st), "this test is not node");
	ok(procfs_status_read(0x7ffffff0, &st, &err) < 0 && err == ENOENT, "no such PID: ENOENT");
	ok(st.ns_levels >= 1 && st.ns_tgid == getpid(), "own NStgid ends in our own PID");
	{
		double self_s = -1, init_s = -1;

		ok(procfs_age_s(getpid(), &self_s) == 0 && self_s >= 0 && self_s < 3600,
			"our own age: started moments ago (%.2f s)", self_s);
		ok(procfs_age_s(1, &init_s) < 0 || init_s >= self_s - 0.02,
			"PID 1 is not younger than us (%.2f s)", init_s);
		ok(procfs_age_s(0x7ffffff0, &self_s) < 0, "no such PID: no age");
	}

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 1) == 0 &&
		getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 && fstat(fd, &sst) == 0,
		"a listening socket of our own");
	ok(procfs_socket_inodes_read(getpid(), &fds, &err) == 0 &&
		procfs_inodes_has(&fds, (unsigned long)sst.st_ino), "its inode is among our fds");
	ok(procfs_listeners_read(getpid(), &ls, &err) == 0, "our namespace's listeners");
	l = find_inode(&ls, (unsigned long)sst.st_ino);
	ok(l && l->port == ntohs(sa.sin_port), "found with its port");
	is_int(procfs_inode_owner((unsigned long)sst.st_ino, 0), getpid(), "its owner is us");
	is_int(procfs_inode_owner((unsigned long)sst.st_ino, getpid()), 0, "skip excludes a PID");
	close(fd);

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	ok(child > 0 && procfs_children_read(getpid(), &kids, &err) == 0, "children read");
	ok(kids.n == 1 && kids.v[0] == child, "our forked child is listed");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	procfs_pids_free(&kids);
	procfs_inodes_free(&fds);
	procfs_listeners_free(&ls);
}

/* procfs_file_read, which the other readers build on, against a recorded file. */
static void test_file_read(void)
{
	char path[4096], *want, *buf = NULL;
	size_t want_len = 0, len = 0;
	int err = 0;

	snprintf(path, sizeof(path), "%s/tests/fixtures/proc/node4_status", SRCDIR);
	want = fixture_read_text("proc/node4_status", &want_len);
	ok(procfs_file_read(path, 1 << 20, &buf, &len, &err) == 0 && want && len == want_len &&
		memcmp(buf, want, len) == 0 && buf[len] == '\0', "reads a whole file, NUL-terminated");
	free(buf);
	ok(procfs_file_read(path, 10, &buf, &len, &err) == 0 && len == 10 && buf[10] == '\0' &&
		want && memcmp(buf, want, 10) == 0, "at most max_bytes of it");
	free(buf);
	ok(procfs_file_read(SRCDIR "/tests/fixtures/proc/no-such-file", 100, &buf, &len, &err) < 0 &&
		err == ENOENT && buf == NULL, "a missing file: -1 with ENOENT");
	free(want);
}

int main(void)
{
	size_t len;
	char *meta = fixture_read_text("proc/meta.txt", &len);

	ok(meta != NULL, "fixtures found");
	if (!meta)
		return done_testing();
	test_status(meta);
	test_net(meta);
	test_fds(meta);
	test_args(meta);
	test_inspect_addr_scan();
	test_file_read();
	test_live();
	test_inspect_addr_read();
	free(meta);
	return done_testing();
}
