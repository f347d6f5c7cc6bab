/* test_discover: the Node processes of this machine as --list shows them, with real node
 * processes (one with an inspector on a free port, one without) and a non-Node one. */
#include "config.h"
#include "discover.h"

#include "grid.h"
#include "picker.h"
#include "strbuf.h"
#include "util.h"

#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Starts argv with stdout and stderr in err_path. */
static pid_t spawn(char *const *argv, const char *err_path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The port of "Debugger listening on ws://127.0.0.1:PORT/" in the file, or 0. */
static int logged_port(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	int port = 0;

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Debugger listening on ws://127.0.0.1:%d/", &port) == 1)
			break;
	fclose(f);
	return port;
}

static bool file_has(const char *path, const char *text)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	bool yes = false;

	if (!f)
		return false;
	while (!yes && fgets(buf, sizeof(buf), f))
		yes = strstr(buf, text) != NULL;
	fclose(f);
	return yes;
}

static const struct node_proc *find_pid(const struct node_proc *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

static bool node_available(const char *node)
{
	char *cmd = xasprintf("command -v '%s' >/dev/null 2>&1", node);
	int rc = system(cmd);

	free(cmd);
	return rc == 0;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (*s == '\n')
			n++;
	return n;
}

static void test_format_table(void)
{
	struct node_proc p[2];
	struct strbuf sb;
	char *line2;

	memset(p, 0, sizeof(p));
	p[0].pid = 7;
	snprintf(p[0].user, sizeof(p[0].user), "alice");
	snprintf(p[0].command, sizeof(p[0].command), "node server.js");
	p[0].inspector_port = 9230;
	p[0].signal = DISCOVER_SIGNAL_OK;
	p[1].pid = 123456;
	snprintf(p[1].user, sizeof(p[1].user), "1001");
	/* 300 columns of command, with two-byte characters where a cut by bytes would split
	 * one (the command column has 123 columns here: 120 and "..."). */
	memset(p[1].command, 'x', 300);
	memcpy(p[1].command + 119, "\xc3\xa9\xc3\xa9\xc3\xa9", 6);
	p[1].signal = DISCOVER_SIGNAL_DISABLED;

	strbuf_init(&sb);
	discover_format_table(p, 2, &sb);
	printf("# %.*s", (int)(strchr(sb.data, '\n') - sb.data + 1), sb.data);
	is_int(count_lines(sb.data), 3, "header and one line per process");
	ok(strncmp(sb.data, "   PID USER  INSPECTOR      SIGNAL   COMMAND\n", 45) == 0,
		"header columns: PID USER INSPECTOR SIGNAL COMMAND");
	ok(strstr(sb.data, "     7 alice 127.0.0.1:9230 yes      node server.js\n") != NULL,
		"a process with an inspector: its address and signal state, aligned");
	line2 = strstr(sb.data, "123456 1001  -              disabled ");
	ok(line2 != NULL, "no inspector shows '-', blocked signal shows 'disabled'");
	if (line2) {
		size_t cols = 0;
		const char *e = strchr(line2, '\n');

		for (const char *c = line2; c < e; c++)
			if (((unsigned char)*c & 0xc0) != 0x80)
				cols++;
		is_int(cols, 160, "a long command is cut to keep the line at 160 columns");
		ok(e - line2 > 3 && memcmp(e - 3, "...", 3) == 0, "a cut command ends in ...");
		/* A split UTF-8 sequence would leave a lone lead byte before the dots. */
		ok(((unsigned char)e[-4] & 0xc0) != 0xc0, "the cut does not split a character");
	}
	strbuf_reset(&sb);
	p[0].signal = DISCOVER_SIGNAL_UNKNOWN;
	discover_format_table(p, 1, &sb);
	ok(strstr(sb.data, " ? ") != NULL, "unknown signal state shows '?'");
	strbuf_reset(&sb);
	discover_format_table(p, 0, &sb);
	is_int(count_lines(sb.data), 1, "no processes: only the header");
	strbuf_free(&sb);
}

static void test_live(const char *node)
{
	char dir[] = "/tmp/ntop-js-discover.XXXXXX", insp_log[128], plain_log[128], sleep_log[128];
	char marker[64];
	pid_t insp, plain, sl;
	int port = 0;
	struct node_proc *v = NULL;
	const struct node_proc *pi, *pp;
	size_t n;
	struct strbuf sb;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(insp_log, sizeof(insp_log), "%s/inspect.log", dir);
	snprintf(plain_log, sizeof(plain_log), "%s/plain.log", dir);
	snprintf(sleep_log, sizeof(sleep_log), "%s/sleep.log", dir);
	snprintf(marker, sizeof(marker), "ntop-js-discover-%d", (int)getpid());
	{
		char *a[] = { (char *)node, "--inspect=127.0.0.1:0", "-e",
			"setInterval(() => {}, 1000); console.log('ready')", marker, NULL };
		/* An app server on a loopback port is not an inspector. */
		char *b[] = { (char *)node, "-e", "require('net').createServer().listen(0, "
			"'127.0.0.1', () => console.log('ready'))", marker, NULL };
		char *c[] = { "sleep", "30", NULL };

		insp = spawn(a, insp_log);
		plain = spawn(b, plain_log);
		sl = spawn(c, sleep_log);
	}
	/* Both print "ready" once Node has installed its handlers and started the inspector. */
	for (int i = 0; i < 500 && !(file_has(insp_log, "ready") && file_has(plain_log, "ready"));
		i++)
		sleep_ms(20);
	port = logged_port(insp_log);
	ok(port > 0 && port != 9229, "the node with --inspect=127.0.0.1:0 printed its port (%d)",
		port);

	n = discover_node_processes(&v);
	ok(n >= 2, "at least the two node processes are listed (%zu)", n);
	pi = find_pid(v, n, insp);
	pp = find_pid(v, n, plain);
	ok(pi != NULL, "the node with an inspector is listed");
	ok(pp != NULL, "the node without an inspector is listed");
	ok(find_pid(v, n, sl) == NULL, "sleep is not listed");
	ok(find_pid(v, n, getpid()) == NULL, "the caller itself is not listed");
	{
		bool sorted = true;
		for (size_t i = 1; i < n; i++)
			sorted = sorted && v[i - 1].pid < v[i].pid;
		ok(sorted, "sorted by PID");
	}
	if (pi) {
		is_int(pi->inspector_port, port, "its inspector port is the one it listens on");
		is_int(pi->signal, DISCOVER_SIGNAL_OK, "its SIGUSR1 handler is seen");
		is_int(pi->uid, getuid(), "its uid is ours");
		ok(pi->user[0] != '\0', "a user name or uid is given (%s)", pi->user);
		ok(strstr(pi->command, "--inspect=127.0.0.1:0 -e setInterval") != NULL &&
			strstr(pi->command, marker) != NULL,
			"command line with spaces between arguments (%s)", pi->command);
		ok(strchr(pi->command, '\n') == NULL, "the command has no control characters");
	}
	if (pp) {
		is_int(pp->inspector_port, 0, "no inspector port for the plain node (its app server "
			"is not one)");
		is_int(pp->signal, DISCOVER_SIGNAL_OK, "the plain node can be attached by signal");
	}
	strbuf_init(&sb);
	discover_format_table(v, n, &sb);
	is_int(count_lines(sb.data), n + 1, "the table has a header and %zu lines", n);
	{
		char want[64];
		snprintf(want, sizeof(want), "127.0.0.1:%d yes ", port);
		ok(strstr(sb.data, want) != NULL, "the table shows the inspector address");
	}
	strbuf_free(&sb);
	free(v);

	/* A process that exits is simply absent the next time. */
	reap(plain);
	plain = 0;
	n = discover_node_processes(&v);
	ok(find_pid(v, n, insp) != NULL && n >= 1, "the inspected node is still listed");
	free(v);

	reap(insp);
	reap(sl);
	unlink(insp_log);
	unlink(plain_log);
	unlink(sleep_log);
	rmdir(dir);
}

/* A free loopback port, closed again (a race with other programs is possible but brief). */
static int free_port(const char *node)
{
	char buf[64], *cmd = xasprintf("'%s' -e \"const s=require('net').createServer()"
		".listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})\"", node);
	FILE *f = popen(cmd, "r");
	int port = 0;

	free(cmd);
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		port = atoi(buf);
	pclose(f);
	return port;
}

/* NODE_OPTIONS names the inspector port; the app listens on another loopback port too. */
static void test_node_options_port(const char *node)
{
	char log[] = "/tmp/ntop-js-discover-opt.XXXXXX", env[64];
	int port = free_port(node), fd;
	struct node_proc *v = NULL;
	const struct node_proc *p;
	pid_t pid;
	size_t n;

	fd = mkstemp(log);
	if (fd < 0 || port <= 0) {
		ok(0, "setup: log %d, port %d", fd, port);
		return;
	}
	close(fd);
	snprintf(env, sizeof(env), "--inspect=127.0.0.1:%d", port);
	setenv("NODE_OPTIONS", env, 1);
	{
		char *a[] = { (char *)node, "-e", "require('net').createServer().listen(0, "
			"'127.0.0.1', () => console.log('ready'))", NULL };
		pid = spawn(a, log);
	}
	unsetenv("NODE_OPTIONS");
	for (int i = 0; i < 500 && !file_has(log, "ready"); i++)
		sleep_ms(20);
	ok(logged_port(log) == port, "node took the inspector port from NODE_OPTIONS (%d)", port);
	n = discover_node_processes(&v);
	p = find_pid(v, n, pid);
	ok(p != NULL, "the node is listed");
	if (p)
		is_int(p->inspector_port, port, "of its two loopback listeners, the inspector is "
			"the one NODE_OPTIONS names");
	free(v);
	reap(pid);
	unlink(log);
}

/* Processes named node without Node's handler: SIGUSR1 blocked, or neither caught nor
 * blocked (a wrapper or an unknown build): the signal column must not say "yes". */
static pid_t spawn_fake_node(bool block)
{
	int pfd[2];
	pid_t pid;
	char c;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		sigset_t s;

		close(pfd[0]);
		prctl(PR_SET_NAME, "node");
		sigemptyset(&s);
		if (block) {
			sigaddset(&s, SIGUSR1);
			sigprocmask(SIG_BLOCK, &s, NULL);
		}
		if (write(pfd[1], "x", 1) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (pid > 0 && read(pfd[0], &c, 1) != 1)
		pid = -1;
	close(pfd[0]);
	return pid;
}

static void test_signal_states(void)
{
	pid_t blocked = spawn_fake_node(true), plain = spawn_fake_node(false);
	struct node_proc *v = NULL;
	const struct node_proc *p;
	size_t n = discover_node_processes(&v);

	p = find_pid(v, n, blocked);
	ok(p && p->signal == DISCOVER_SIGNAL_DISABLED, "SIGUSR1 blocked, not caught: disabled");
	p = find_pid(v, n, plain);
	ok(p && p->signal == DISCOVER_SIGNAL_UNKNOWN, "SIGUSR1 neither caught nor blocked: unknown");
	ok(p && p->inspector_port == 0, "no listener, no inspector port");
	free(v);
	reap(blocked);
	reap(plain);
}

/* A CTR column, in --list and the picker, only when a process runs in a container. */
static void test_container_column(void)
{
	struct node_proc p[2];
	struct picker pk = { p, 2, 0, 0 };
	struct strbuf sb;
	struct grid g;
	char *row;

	memset(p, 0, sizeof(p));
	p[0].pid = 7;
	snprintf(p[0].user, sizeof(p[0].user), "alice");
	snprintf(p[0].command, sizeof(p[0].command), "node server.js");
	p[1].pid = 18542;
	p[1].container_pid = 1;
	snprintf(p[1].user, sizeof(p[1].user), "root");
	snprintf(p[1].command, sizeof(p[1].command), "node app.js");
	p[1].inspector_port = 9229;
	p[1].signal = DISCOVER_SIGNAL_OK;
	strbuf_init(&sb);
	discover_format_table(p, 2, &sb);
	printf("# %s", sb.data);
	ok(strncmp(sb.data, "  PID CTR USER  INSPECTOR      SIGNAL COMMAND\n", 46) == 0,
		"--list: a CTR column after PID when a process runs in a container");
	ok(strstr(sb.data, "\n    7   - alice -              yes    node server.js\n") != NULL,
		"--list: a host process shows '-' in it");
	ok(strstr(sb.data, "\n18542   1 root  127.0.0.1:9229 yes    node app.js\n") != NULL,
		"--list: a containerised process shows its PID in there");
	strbuf_free(&sb);

	grid_init(&g);
	grid_resize(&g, 100, 10);
	picker_draw(&pk, &g);
	row = grid_row_text(&g, 2);
	ok(row && strstr(row, "    PID     CTR USER") == row, "picker: a CTR column (%s)", row);
	free(row);
	row = grid_row_text(&g, 4);
	ok(row && strstr(row, "  18542       1 root") == row && strstr(row, "node app.js"),
		"picker: the PID inside the container (%s)", row);
	free(row);
	row = grid_row_text(&g, 3);
	ok(row && strstr(row, "      7       - alice") == row, "picker: '-' for a host process");
	free(row);
	pk.n = 1;
	picker_draw(&pk, &g);
	row = grid_row_text(&g, 2);
	ok(row && !strstr(row, "CTR"), "picker: no CTR column without containers");
	free(row);
	grid_free(&g);
}

/* A node in its own PID, network and mount namespaces (unshare(1), as root) is listed with
 * its PID in there, and its inspector is looked for in its own namespace. */
static void test_live_container(const char *node)
{
	char log[] = "/tmp/ntop-js-discover-ctr.XXXXXX", marker[64];
	struct node_proc *v = NULL;
	const struct node_proc *p = NULL;
	pid_t pid;
	size_t n;
	int fd;

	if (geteuid() != 0 || system("unshare --net --pid --mount --kill-child --mount-proc true "
		">/dev/null 2>&1") != 0) {
		printf("# skipped: no namespaces here (needs root and unshare)\n");
		return;
	}
	fd = mkstemp(log);
	if (fd < 0) {
		ok(0, "mkstemp");
		return;
	}
	close(fd);
	snprintf(marker, sizeof(marker), "ntop-js-discover-ctr-%d", (int)getpid());
	{
		/* A port for the inspector that the host does not see: 9229 in there. */
		char *a[] = { "unshare", "--net", "--pid", "--mount", "--kill-child", "--mount-proc",
			(char *)node, "--inspect=127.0.0.1:9229", "-e",
			"setInterval(() => {}, 1000); console.log('ready')", marker, NULL };
		pid = spawn(a, log);
	}
	for (int i = 0; i < 500 && !file_has(log, "ready"); i++)
		sleep_ms(20);
	n = discover_node_processes(&v);
	for (size_t i = 0; i < n && !p; i++)
		if (strstr(v[i].command, marker))
			p = &v[i];
	ok(p != NULL, "the containerised node is listed");
	if (p) {
		ok(p->pid != 1 && p->pid != pid, "by its host PID (%d)", (int)p->pid);
		is_int(p->container_pid, 1, "with its PID in the container");
		is_int(p->inspector_port, 9229, "its inspector, found in its own namespace");
	}
	free(v);
	reap(pid);
	unlink(log);
}

int main(void)
{
	const char *node = getenv("NODE");

	if (!node || !*node)
		node = "node";
	if (!node_available(node)) {
		printf("1..0 # SKIP %s not found\n", node);
		return 0;
	}
	test_format_table();
	test_container_column();
	test_live(node);
	test_live_container(node);
	test_node_options_port(node);
	test_signal_states();
	return done_testing();
}
