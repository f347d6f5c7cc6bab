#include "config.h"
#include "launch.h"

#include "procfs.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LAUNCH_POLL_S 0.02
/* How far below the started process a wrapper's node may be (npm -> sh -> node). */
#define LAUNCH_TREE_DEPTH 4
#define LAUNCH_TREE_MAX 64
#define LAUNCH_MAX_PORTS 16
/* Log bytes read per poll, and the longest unfinished line kept between polls. */
#define LAUNCH_LOG_CHUNK (64u * 1024)
#define LAUNCH_LOG_LINE_MAX 4096
#define LAUNCH_INSPECT_OPTION "--inspect=127.0.0.1:0"
#define LAUNCH_READY_TEXT "Debugger listening on ws://"

struct launch {
	pid_t child;   /* the started program, leader of its own process group */
	pid_t target;  /* the node process whose inspector listens */
	int port;
	char *log_path;
	bool exited;
	int status;
};

/* What the parent learns while waiting for the inspector. */
struct launch_wait {
	int log_fd;
	struct strbuf line;   /* an unfinished log line */
	int ports[LAUNCH_MAX_PORTS];
	size_t n_ports;
};

static void launch_sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* NODE_OPTIONS for the child: the user's options, then ours. Later options win in Node, but
 * an --inspect on the program's own command line still wins over NODE_OPTIONS: the port is
 * found from the log and /proc either way, never assumed. */
static char **launch_build_env(void)
{
	const char *old = getenv("NODE_OPTIONS");
	size_t n = 0, k = 0;
	char **envp;

	while (environ && environ[n])
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "NODE_OPTIONS=", 13) != 0)
			envp[k++] = environ[i];
	if (old && *old)
		envp[k++] = xasprintf("NODE_OPTIONS=%s " LAUNCH_INSPECT_OPTION, old);
	else
		envp[k++] = xstrdup("NODE_OPTIONS=" LAUNCH_INSPECT_OPTION);
	envp[k] = NULL;
	return envp;
}

static void launch_free_env(char **envp)
{
	size_t i = 0;

	/* Only the last entry was allocated here; the rest belong to environ. */
	while (envp[i])
		i++;
	if (i)
		free(envp[i - 1]);
	free(envp);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void launch_child(char *const *argv, char **envp, int log_fd, int null_fd,
	int err_fd, pid_t parent)
{
	sigset_t none;
	int e;

	setpgid(0, 0);
	/* If ntop-js dies without ending the program, the program ends too. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	/* Handlers do not survive exec, but ignored signals and the mask would. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	if (dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		goto fail;
#ifdef SYS_close_range
	/* CLOSE_RANGE_CLOEXEC (4): the program inherits none of ntop-js's files. */
	syscall(SYS_close_range, 3u, ~0u, 4u);
#endif
	environ = envp;
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
fail:
	e = errno;
	while (write(err_fd, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* Returns an fd >= 3 (so dup2 onto 0-2 always copies) with FD_CLOEXEC, closing fd. */
static int launch_fd_high(int fd)
{
	int h;

	if (fd < 0 || fd >= 3)
		return fd;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return h;
}

/* Reaps the child if it has exited. */
static bool launch_reap(struct launch *l)
{
	int st;
	pid_t r;

	if (l->exited)
		return true;
	do
		r = waitpid(l->child, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == l->child) {
		l->exited = true;
		l->status = st;
	} else if (r < 0 && errno == ECHILD) {
		/* Someone else reaped it (SIGCHLD ignored): it is gone all the same. */
		l->exited = true;
		l->status = 0;
	}
	return l->exited;
}

/* Records the port of each "Debugger listening on ws://HOST:PORT/..." line. */
static void launch_log_line(struct launch_wait *w, const char *s, size_t n)
{
	const char *p = memmem(s, n, LAUNCH_READY_TEXT, strlen(LAUNCH_READY_TEXT));
	const char *end = s + n, *slash, *colon = NULL;
	int port = 0;

	if (!p)
		return;
	p += strlen(LAUNCH_READY_TEXT);
	slash = memchr(p, '/', (size_t)(end - p));
	if (!slash)
		return;
	for (const char *q = p; q < slash; q++)
		if (*q == ':')
			colon = q;
	if (!colon || colon + 1 == slash || slash - colon > 6)
		return;
	for (const char *q = colon + 1; q < slash; q++) {
		if (*q < '0' || *q > '9')
			return;
		port = port * 10 + (*q - '0');
	}
	if (port <= 0 || port > 65535)
		return;
	for (size_t i = 0; i < w->n_ports; i++)
		if (w->ports[i] == port)
			return;
	if (w->n_ports < LAUNCH_MAX_PORTS)
		w->ports[w->n_ports++] = port;
}

static void launch_log_poll(struct launch_wait *w)
{
	char buf[8192];
	size_t total = 0;

	while (w->log_fd >= 0 && total < LAUNCH_LOG_CHUNK) {
		ssize_t got = read(w->log_fd, buf, sizeof(buf));
		size_t start = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		total += (size_t)got;
		for (size_t i = 0; i < (size_t)got; i++) {
			if (buf[i] != '\n')
				continue;
			strbuf_append(&w->line, buf + start, i - start);
			launch_log_line(w, w->line.data ? w->line.data : "", w->line.len);
			strbuf_reset(&w->line);
			start = i + 1;
		}
		strbuf_append(&w->line, buf + start, (size_t)got - start);
		/* A program printing without newlines: keep only the tail. */
		if (w->line.len > LAUNCH_LOG_LINE_MAX) {
			size_t keep = 256;
			memmove(w->line.data, w->line.data + w->line.len - keep, keep);
			w->line.len = keep;
		}
	}
}

/* npm, yarn and friends are Node programs themselves: they get an inspector from
 * NODE_OPTIONS too, but the program the user means is their child. */
static bool launch_name_is_wrapper(const char *name, size_t n)
{
	static const char *const wrappers[] = {
		"npm", "npx", "npm-cli", "npx-cli", "yarn", "yarnpkg", "pnpm", "pnpx", "corepack",
		"nodemon",
	};
	const char *base = name;

	for (size_t i = 0; i < n; i++)
		if (name[i] == '/')
			base = name + i + 1;
	n -= (size_t)(base - name);
	for (size_t i = 0; i < n; i++)
		if (base[i] == ' ') {
			n = i;
			break;
		}
	if (n > 3 && memcmp(base + n - 3, ".js", 3) == 0)
		n -= 3;
	else if (n > 4 && (memcmp(base + n - 4, ".cjs", 4) == 0 || memcmp(base + n - 4, ".mjs", 4) == 0))
		n -= 4;
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (strlen(wrappers[i]) == n && memcmp(base, wrappers[i], n) == 0)
			return true;
	return false;
}

/* Wrapper by its title ("npm start") or by its script (node .../npm-cli.js). */
static bool launch_is_wrapper(pid_t pid)
{
	char path[64], *buf;
	size_t len, i = 0, arg = 0;
	bool yes = false;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (procfs_file_read(path, 64 * 1024, &buf, &len, NULL) < 0)
		return false;
	while (i < len && !yes) {
		size_t n = strnlen(buf + i, len - i);

		if (arg == 0)
			yes = launch_name_is_wrapper(buf + i, n);
		else if (n && buf[i] != '-') {
			/* The first non-option argument is the script. */
			yes = launch_name_is_wrapper(buf + i, n);
			break;
		}
		arg++;
		i += n + 1;
	}
	free(buf);
	return yes;
}

/* The started process and its descendants, breadth first (so by depth). */
static void launch_tree(pid_t root, struct procfs_pids *tree, int *depth)
{
	size_t level_end;
	int d = 0;

	tree->n = 0;
	tree->v = xreallocarray_grow(tree->v, &tree->cap, 1, sizeof(*tree->v));
	tree->v[tree->n++] = root;
	depth[0] = 0;
	level_end = tree->n;
	for (size_t i = 0; i < tree->n && tree->n < LAUNCH_TREE_MAX; i++) {
		size_t before;

		if (i == level_end) {
			d++;
			level_end = tree->n;
		}
		if (d >= LAUNCH_TREE_DEPTH)
			break;
		before = tree->n;
		procfs_children_read(tree->v[i], tree, NULL);
		if (tree->n > LAUNCH_TREE_MAX)
			tree->n = LAUNCH_TREE_MAX;
		for (size_t k = before; k < tree->n; k++)
			depth[k] = d + 1;
	}
}

static bool launch_port_logged(const struct launch_wait *w, int port)
{
	for (size_t i = 0; i < w->n_ports; i++)
		if (w->ports[i] == port)
			return true;
	return false;
}

/* The loopback listener of pid that is its inspector, or 0. With no log line to go by, a
 * node process with exactly one loopback listener on the port its options ask for counts. */
static int launch_inspector_of(pid_t pid, const struct procfs_listeners *ls,
	const struct launch_wait *w, bool use_log)
{
	struct procfs_inodes fds = { 0 };
	struct procfs_inspect_addr want;
	struct procfs_status st;
	int port = 0, count = 0;

	if (procfs_socket_inodes_read(pid, &fds, NULL) < 0 || fds.n == 0) {
		procfs_inodes_free(&fds);
		return 0;
	}
	for (size_t i = 0; i < ls->n; i++) {
		const struct procfs_listener *l = &ls->v[i];

		if (!procfs_inodes_has(&fds, l->inode))
			continue;
		if (!procfs_listener_is_loopback(l) && !procfs_listener_is_wildcard(l))
			continue;
		if (use_log) {
			if (launch_port_logged(w, l->port)) {
				port = l->port;
				break;
			}
			continue;
		}
		port = l->port;
		count++;
	}
	procfs_inodes_free(&fds);
	if (use_log || port == 0)
		return port;
	if (count != 1 || procfs_status_read(pid, &st, NULL) < 0 || !procfs_looks_like_node(pid, &st))
		return 0;
	procfs_inspect_addr_read(pid, &want);
	return want.port == 0 || want.port == port ? port : 0;
}

/* One look at the process tree. Returns the target's PID (port in *port), or 0. Sets
 * *wrapper_pid when only a wrapper's inspector listens so far. */
static pid_t launch_find(const struct launch *l, const struct launch_wait *w, bool use_log,
	int *port, pid_t *wrapper_pid)
{
	struct procfs_listeners ls = { 0 };
	struct procfs_pids tree = { 0 };
	int depth[LAUNCH_TREE_MAX + 1];
	pid_t found = 0;

	if (procfs_listeners_read(l->child, &ls, NULL) < 0) {
		procfs_listeners_free(&ls);
		return 0;
	}
	launch_tree(l->child, &tree, depth);
	for (size_t i = 0; i < tree.n && !found; i++) {
		int p = launch_inspector_of(tree.v[i], &ls, w, use_log);

		if (p == 0)
			continue;
		if (launch_is_wrapper(tree.v[i])) {
			if (!*wrapper_pid)
				*wrapper_pid = tree.v[i];
			continue;
		}
		found = tree.v[i];
		*port = p;
	}
	procfs_pids_free(&tree);
	procfs_listeners_free(&ls);
	return found;
}

static char *launch_exit_cause(const char *prog, const char *log_path, int status)
{
	if (WIFSIGNALED(status))
		return xasprintf("%s was killed by signal %d (%s) before ntop-js could attach; its "
			"output is in %s.", prog, WTERMSIG(status), strsignal(WTERMSIG(status)), log_path);
	return xasprintf("%s exited with status %d before ntop-js could attach; its output is "
		"in %s.", prog, WIFEXITED(status) ? WEXITSTATUS(status) : -1, log_path);
}

/* Waits for the inspector; returns NULL on success or the cause. */
static char *launch_wait_ready(struct launch *l, struct launch_wait *w, const char *prog,
	double timeout_s)
{
	double start = util_now_mono_s(), deadline = start + timeout_s;
	pid_t wrapper = 0;

	for (;;) {
		bool exited = launch_reap(l), use_log;
		int port = 0;
		pid_t pid;

		launch_log_poll(w);
		/* The log names the port; /proc names its owner. Without a log line for a
		 * second (the program hides its stderr), /proc alone has to do. */
		use_log = w->n_ports > 0 || util_now_mono_s() - start < 1.0;
		pid = launch_find(l, w, use_log, &port, &wrapper);
		/* Seen on two looks in a row: a program that exits as soon as it starts (its
		 * inspector opens before its first line runs) fails here, naming its log, rather
		 * than in the attach that would follow. */
		if (pid > 0 && pid == l->target && port == l->port && !exited)
			return NULL;
		l->target = pid;
		l->port = port;
		if (exited)
			return launch_exit_cause(prog, l->log_path, l->status);
		if (util_now_mono_s() >= deadline)
			break;
		launch_sleep_s(LAUNCH_POLL_S);
	}
	if (wrapper > 0) {
		struct procfs_status st;
		char name[64] = "the wrapper";

		if (procfs_status_read(wrapper, &st, NULL) == 0)
			snprintf(name, sizeof(name), "%s", st.name);
		return xasprintf("only %s's own inspector appeared within %g s, not the one of the "
			"program it runs; its output is in %s.", name, timeout_s, l->log_path);
	}
	return xasprintf("no Node inspector appeared in %s within %g s (is it a Node program?); "
		"its output is in %s.", prog, timeout_s, l->log_path);
}

struct launch *launch_start(char *const *argv, const char *log_path, double timeout_s,
	char **cause)
{
	struct launch_wait w = { .log_fd = -1 };
	struct launch *l;
	char prog[256], **envp, *why;
	int log_fd, null_fd, pfd[2], child_errno = 0;
	sigset_t all, old;
	pid_t parent = getpid();
	ssize_t got;
	struct stat sb;

	*cause = NULL;
	if (!argv || !argv[0] || !argv[0][0]) {
		*cause = xstrdup("no command to run.");
		return NULL;
	}
	util_sanitize(argv[0], strlen(argv[0]), prog, sizeof(prog));
	log_fd = launch_fd_high(open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
	if (log_fd < 0) {
		*cause = xasprintf("cannot open the log file %s: %s.", log_path, strerror(errno));
		return NULL;
	}
	null_fd = launch_fd_high(open("/dev/null", O_RDONLY | O_CLOEXEC));
	if (null_fd < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		*cause = xasprintf("cannot start %s: %s.", prog, strerror(errno));
		close(log_fd);
		if (null_fd >= 0)
			close(null_fd);
		return NULL;
	}
	/* Only what the program writes from now on is read back. */
	w.log_fd = open(log_path, O_RDONLY | O_CLOEXEC);
	if (w.log_fd >= 0 && fstat(log_fd, &sb) == 0)
		lseek(w.log_fd, sb.st_size, SEEK_SET);
	strbuf_init(&w.line);

	l = xcalloc(1, sizeof(*l));
	l->log_path = xstrdup(log_path);
	envp = launch_build_env();
	/* No handler of ours may run in the child before exec. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	l->child = fork();
	if (l->child == 0)
		launch_child(argv, envp, log_fd, null_fd, pfd[1], parent);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (l->child > 0)
		setpgid(l->child, l->child); /* no race with the child's own setpgid */
	else
		child_errno = errno;
	launch_free_env(envp);
	close(pfd[1]);
	close(log_fd);
	close(null_fd);
	if (l->child < 0) {
		*cause = xasprintf("cannot start %s: %s.", prog, strerror(child_errno));
		goto fail;
	}
	/* The pipe closes at exec; a write means exec failed. */
	do
		got = read(pfd[0], &child_errno, sizeof(child_errno));
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	pfd[0] = -1;
	if (got == (ssize_t)sizeof(child_errno)) {
		while (waitpid(l->child, NULL, 0) < 0 && errno == EINTR)
			;
		l->exited = true;
		*cause = xasprintf("cannot run %s: %s.", prog, strerror(child_errno));
		goto fail;
	}
	why = launch_wait_ready(l, &w, prog, timeout_s);
	if (why) {
		*cause = why;
		goto fail;
	}
	if (w.log_fd >= 0)
		close(w.log_fd);
	strbuf_free(&w.line);
	return l;

fail:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (w.log_fd >= 0)
		close(w.log_fd);
	strbuf_free(&w.line);
	if (l->child > 0)
		launch_stop(l, 1.0);
	else {
		free(l->log_path);
		free(l);
	}
	return NULL;
}

pid_t launch_target_pid(const struct launch *l)
{
	return l->target;
}

pid_t launch_child_pid(const struct launch *l)
{
	return l->child;
}

const char *launch_log_path(const struct launch *l)
{
	return l->log_path;
}

bool launch_exited(struct launch *l, int *status)
{
	if (!launch_reap(l))
		return false;
	if (status)
		*status = l->status;
	return true;
}

/* True while a live (not zombie) process is left in the program's group. Orphans that died
 * stay zombies until init reaps them, which some inits do only every second or two, and
 * kill(-pgid, 0) counts them; so /proc decides. */
static bool launch_group_alive(pid_t pgid)
{
	DIR *d;
	struct dirent *e;
	bool alive = false;

	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return false;
	d = opendir("/proc");
	if (!d)
		return true;
	while (!alive && (e = readdir(d)) != NULL) {
		char path[300], buf[512], *rp, state;
		long pgrp;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything, so from the last ')'. */
		rp = strrchr(buf, ')');
		if (rp && sscanf(rp + 1, " %c %*d %ld", &state, &pgrp) == 2 && pgrp == (long)pgid &&
			state != 'Z' && state != 'X')
			alive = true;
	}
	closedir(d);
	return alive;
}

void launch_stop(struct launch *l, double grace_s)
{
	double deadline;

	if (!l)
		return;
	if (!launch_reap(l) || launch_group_alive(l->child)) {
		kill(-l->child, SIGTERM);
		/* A stopped program could not act on SIGTERM. */
		kill(-l->child, SIGCONT);
	}
	deadline = util_now_mono_s() + (grace_s > 0 ? grace_s : 0);
	while (util_now_mono_s() < deadline) {
		/* Done once the child is reaped and the rest of its group is gone. */
		if (launch_reap(l) && !launch_group_alive(l->child))
			break;
		launch_sleep_s(LAUNCH_POLL_S);
	}
	if (!l->exited || launch_group_alive(l->child))
		kill(-l->child, SIGKILL);
	/* SIGKILL cannot be caught; the bound only guards against a process stuck in the
	 * kernel (an unreachable network file system). */
	deadline = util_now_mono_s() + 5.0;
	while (!launch_reap(l) && util_now_mono_s() < deadline)
		launch_sleep_s(LAUNCH_POLL_S / 2);
	free(l->log_path);
	free(l);
}
