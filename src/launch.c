/* launch.c: see launch.h. */
#include "config.h"
#include "launch.h"

#include "procfs.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAUNCH_POLL_S 0.02
/* How far below the started process a wrapper's node may be (npm -> sh -> node). */
#define LAUNCH_TREE_DEPTH 4
#define LAUNCH_TREE_MAX 64

struct launch {
	pid_t child;   /* the started program, leader of its own process group */
	pid_t target;  /* the node process to attach to */
	char *log_path;
	bool exited;
	int status;
};

/* What one look at the process tree found. */
struct launch_look {
	pid_t node;     /* the first node process that is not a wrapper, or 0 */
	bool ready;     /* it has Node's SIGUSR1 handler */
	pid_t wrapper;  /* a node wrapper (npm) seen on the way, or 0 */
};

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void launch_child(char *const *argv, int log_fd, int null_fd, int err_fd,
	pid_t parent)
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

/* npm, yarn and friends are Node programs themselves, with Node's SIGUSR1 handler, but the
 * program the user means is their child: they are never signalled. */
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
static void launch_tree(pid_t root, struct procfs_pids *tree)
{
	size_t level_end;
	int d = 0;

	tree->n = 0;
	tree->v = xreallocarray_grow(tree->v, &tree->cap, 1, sizeof(*tree->v));
	tree->v[tree->n++] = root;
	level_end = tree->n;
	for (size_t i = 0; i < tree->n && tree->n < LAUNCH_TREE_MAX; i++) {
		if (i == level_end) {
			d++;
			level_end = tree->n;
		}
		if (d >= LAUNCH_TREE_DEPTH)
			break;
		procfs_children_read(tree->v[i], tree, NULL);
		if (tree->n > LAUNCH_TREE_MAX)
			tree->n = LAUNCH_TREE_MAX;
	}
}

/* Node (by name, executable or argv[0]), alive. */
static bool launch_is_node(pid_t pid, struct procfs_status *st)
{
	if (procfs_status_read(pid, st, NULL) < 0 || st->state == 'Z' || st->state == 'X')
		return false;
	return procfs_looks_like_node(pid, st);
}

/* One look at the process tree, breadth first: the started process if it is Node, else the
 * nearest node below it; wrappers (npm, yarn) are passed over for the program they run. */
static void launch_find(const struct launch *l, struct launch_look *look)
{
	struct procfs_pids tree = { 0 };

	memset(look, 0, sizeof(*look));
	launch_tree(l->child, &tree);
	for (size_t i = 0; i < tree.n; i++) {
		struct procfs_status st;

		if (!launch_is_node(tree.v[i], &st))
			continue;
		if (launch_is_wrapper(tree.v[i])) {
			if (!look->wrapper)
				look->wrapper = tree.v[i];
			continue;
		}
		look->node = tree.v[i];
		look->ready = (st.sig_cgt & PROCFS_SIGUSR1_MASK) != 0;
		break;
	}
	procfs_pids_free(&tree);
}

static char *launch_exit_cause(const char *prog, const char *log_path, int status)
{
	if (WIFSIGNALED(status))
		return xasprintf("%s was killed by signal %d (%s) before ntop-js could attach; its "
			"output is in %s.", prog, WTERMSIG(status), strsignal(WTERMSIG(status)), log_path);
	return xasprintf("%s exited with status %d before ntop-js could attach; its output is "
		"in %s.", prog, WIFEXITED(status) ? WEXITSTATUS(status) : -1, log_path);
}

/* Waits until the node process to attach to has Node's SIGUSR1 handler. Nothing is signalled
 * here: attach opens the inspector as it does for --pid. Returns NULL or the cause. */
static char *launch_wait_ready(struct launch *l, const char *prog, double timeout_s)
{
	double deadline = util_now_mono_s() + timeout_s;
	struct launch_look look = { 0 };
	pid_t wrapper = 0;

	for (;;) {
		bool exited = launch_reap(l);
		pid_t seen = look.ready ? look.node : 0;

		launch_find(l, &look);
		if (!wrapper)
			wrapper = look.wrapper;
		/* Ready on two looks in a row: a program that exits as soon as it starts fails
		 * here, naming its log, rather than in the attach that would follow. */
		if (look.ready && look.node == seen && !exited) {
			l->target = look.node;
			return NULL;
		}
		if (exited)
			return launch_exit_cause(prog, l->log_path, l->status);
		if (util_now_mono_s() >= deadline)
			break;
		util_sleep_s(LAUNCH_POLL_S);
	}
	/* Node without the handler: attach says why (or uses an inspector its own options
	 * opened). */
	if (look.node > 0) {
		l->target = look.node;
		return NULL;
	}
	if (wrapper > 0) {
		struct procfs_status st;
		char name[64] = "the wrapper";

		if (procfs_status_read(wrapper, &st, NULL) == 0)
			snprintf(name, sizeof(name), "%s", st.name);
		return xasprintf("only %s ran within %g s, not the Node program it starts; its "
			"output is in %s.", name, timeout_s, l->log_path);
	}
	return xasprintf("no Node process appeared in %s within %g s (is it a Node program?); "
		"its output is in %s.", prog, timeout_s, l->log_path);
}

struct launch *launch_start(char *const *argv, int log_fd, const char *log_path,
	double timeout_s, char **cause)
{
	struct launch *l;
	char prog[256], *why;
	int null_fd, pfd[2], child_errno = 0;
	sigset_t all, old;
	pid_t parent = getpid();
	ssize_t got;

	*cause = NULL;
	if (!argv || !argv[0] || !argv[0][0]) {
		*cause = xstrdup("no command to run.");
		close(log_fd);
		return NULL;
	}
	util_sanitize(argv[0], strlen(argv[0]), prog, sizeof(prog));
	/* The descriptor the log was created with, never its path again: in a directory others
	 * may write to, the path could be swapped for a link in between. */
	log_fd = launch_fd_high(log_fd);
	if (log_fd < 0) {
		*cause = xasprintf("cannot use the log file %s: %s.", log_path, strerror(errno));
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
	l = xcalloc(1, sizeof(*l));
	l->log_path = xstrdup(log_path);
	/* No handler of ours may run in the child before exec. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	l->child = fork();
	if (l->child == 0)
		launch_child(argv, log_fd, null_fd, pfd[1], parent);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (l->child > 0)
		setpgid(l->child, l->child); /* no race with the child's own setpgid */
	else
		child_errno = errno;
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
	why = launch_wait_ready(l, prog, timeout_s);
	if (why) {
		*cause = why;
		goto fail;
	}
	return l;

fail:
	if (pfd[0] >= 0)
		close(pfd[0]);
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
		util_sleep_s(LAUNCH_POLL_S);
	}
	if (!l->exited || launch_group_alive(l->child))
		kill(-l->child, SIGKILL);
	/* SIGKILL cannot be caught; the bound only guards against a process stuck in the
	 * kernel (an unreachable network file system). */
	deadline = util_now_mono_s() + 5.0;
	while (!launch_reap(l) && util_now_mono_s() < deadline)
		util_sleep_s(LAUNCH_POLL_S / 2);
	free(l->log_path);
	free(l);
}
