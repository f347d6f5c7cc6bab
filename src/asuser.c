/* asuser.c: see asuser.h.
 *
 * Why a child process: setfsuid() would change one thread only, but glibc's setgroups()
 * changes every thread of the process, and a read on a hung mount cannot be interrupted from
 * another thread. A child has its own credentials and can be killed. Between fork() and
 * _exit() the child calls only system calls (the parent may have other threads, whose locks
 * the child inherits held): everything it needs is prepared before the fork. */
#include "config.h"

#include "asuser.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* -DASUSER_NO_OPENAT2 builds the fallback alone, to test it on a newer kernel. */
#if defined(SYS_openat2) && defined(__has_include) && !defined(ASUSER_NO_OPENAT2)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

struct asuser {
	int rootfd;         /* the target's root, O_PATH */
	char *root_path;    /* the same, as a path (the fallback without openat2 resolves it) */
	bool drop;          /* reads take ids' rights (ntop-js is root or has capabilities) */
	bool openat2;       /* the kernel has openat2 and lets us use it */
	struct asuser_ids ids;
};

/* What the child answers first. */
enum reply_kind {
	REPLY_OK, REPLY_ROOT, REPLY_CREDS, REPLY_OPEN, REPLY_NOTREG, REPLY_BIG, REPLY_READ
};

struct reply_head {
	int32_t kind;
	int32_t err;   /* errno */
	uint64_t size; /* the file's size */
	uint64_t len;  /* bytes that follow */
};

/* What the child writes after the whole file: without it, what came is not the file (the
 * child died or met an error or the file's end early), whatever its exit status says (an
 * inherited SIGCHLD=SIG_IGN leaves no status to read). */
struct reply_tail {
	uint64_t len;   /* the bytes sent, h.len */
	uint64_t magic; /* REPLY_MAGIC */
};
#define REPLY_MAGIC 0x6e746f702d6a7321ULL /* "ntop-js!" */

/* Everything the child needs, ready before the fork. */
struct request {
	const struct asuser *u;
	const char *path; /* inside the root */
	const char *real; /* the fallback's path in ours, or NULL */
	int wfd;
	size_t max;
	bool tail_only;
	unsigned fd_bound; /* above every descriptor ntop-js may hold (without close_range) */
	uint32_t caps[2];  /* what the child keeps: the target's CapEff within ntop-js's own */
};

/* ---- /proc/PID/status ---------------------------------------------------------------- */

/* The value of "Name:\t..." in text, up to its newline; NULL if absent. */
static const char *status_line(const char *text, size_t len, const char *name, size_t *n)
{
	size_t nl = strlen(name);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > nl && !memcmp(p, name, nl) && p[nl] == ':') {
			*n = (size_t)(eol - p) - nl - 1;
			return p + nl + 1;
		}
		p = eol + 1;
	}
	return NULL;
}

/* The next decimal number in [*p, end), at most max; its end in *p. */
static int next_dec(const char **p, const char *end, unsigned long max, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (unsigned long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (s < end && *s != ' ' && *s != '\t')
		return -1;
	*p = s;
	*out = v;
	return 0;
}

/* The fourth of the four ids of a Uid or Gid line: the filesystem id the kernel checks. */
static int fs_id(const char *v, size_t n, unsigned long *id)
{
	const char *p = v, *end = v + n;

	for (int i = 0; i < 4; i++)
		if (next_dec(&p, end, UINT32_MAX - 1, id) < 0)
			return -1;
	return 0;
}

int asuser_status_parse(const char *text, size_t len, struct asuser_ids *ids, char **err)
{
	const char *v, *p, *end;
	unsigned long id;
	size_t n;

	memset(ids, 0, sizeof *ids);
	if (!(v = status_line(text, len, "Uid", &n)) || fs_id(v, n, &id) < 0)
		return *err = xstrdup("the process's status has no valid Uid line."), -1;
	ids->uid = (uid_t)id;
	if (!(v = status_line(text, len, "Gid", &n)) || fs_id(v, n, &id) < 0)
		return *err = xstrdup("the process's status has no valid Gid line."), -1;
	ids->gid = (gid_t)id;
	if (!(v = status_line(text, len, "Groups", &n)))
		return *err = xstrdup("the process's status has no Groups line."), -1;
	for (p = v, end = v + n;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		if (ids->n_groups == ASUSER_MAX_GROUPS)
			return *err = xasprintf("the process is in more than %d groups.",
				ASUSER_MAX_GROUPS), -1;
		if (next_dec(&p, end, UINT32_MAX - 1, &id) < 0)
			return *err = xstrdup("the process's status has an invalid Groups line."), -1;
		ids->groups[ids->n_groups++] = (gid_t)id;
	}
	if (!(v = status_line(text, len, "CapEff", &n)))
		return *err = xstrdup("the process's status has no CapEff line."), -1;
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	if (n == 0 || n > 16)
		return *err = xstrdup("the process's status has an invalid CapEff line."), -1;
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return *err = xstrdup("the process's status has an invalid CapEff line."), -1;
		ids->cap_eff = ids->cap_eff << 4 | (uint64_t)d;
	}
	return 0;
}

/* ---- readers ------------------------------------------------------------------------- */

static const char *shown(const char *s, char *buf, size_t cap)
{
	return util_sanitize(s, strnlen(s, 200), buf, cap);
}

/* Whether openat2 works here (a kernel before 5.6 or a seccomp filter may refuse it). */
static bool probe_openat2(int rootfd)
{
#ifdef HAVE_OPENAT2
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, rootfd, ".", &how, sizeof how);

	if (fd >= 0) {
		close(fd);
		return true;
	}
#else
	(void)rootfd;
#endif
	return false;
}

/* ntop-js's own capabilities (effective, permitted), from the kernel. */
static int own_caps(uint64_t *eff, uint64_t *prm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = (uint64_t)d[1].effective << 32 | d[0].effective;
	*prm = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	return 0;
}

/* Whether reads must take the target's ids: whenever ntop-js's own rights could reach more
 * than its uid's (root, or any effective capability such as CAP_DAC_READ_SEARCH). If they
 * cannot be known, they are taken (and a read fails if the child cannot take them). */
static bool must_drop(void)
{
	uint64_t eff, prm;

	return geteuid() == 0 || own_caps(&eff, &prm) < 0 || eff != 0;
}

static struct asuser *reader_new(int rootfd, char *root_path, const struct asuser_ids *ids)
{
	struct asuser *u = xcalloc(1, sizeof *u);

	u->rootfd = rootfd;
	u->root_path = root_path;
	u->drop = ids && must_drop();
	if (ids)
		u->ids = *ids;
	u->openat2 = probe_openat2(rootfd);
	return u;
}

struct asuser *asuser_open(pid_t pid, char **err)
{
	struct asuser_ids ids;
	char path[64], text[4096];
	int dfd, rootfd, sfd;
	ssize_t n;

	/* one directory for both: a PID used again by another process cannot mix them */
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return *err = xasprintf("cannot open %s: %s.", path, strerror(errno)), NULL;
	rootfd = openat(dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		*err = xasprintf("cannot open %s/root: %s.", path, strerror(errno));
		close(dfd);
		return NULL;
	}
	sfd = openat(dfd, "status", O_RDONLY | O_CLOEXEC);
	n = sfd < 0 ? -1 : read(sfd, text, sizeof text - 1);
	if (n <= 0) {
		*err = xasprintf("cannot read %s/status: %s.", path,
			n == 0 ? "it is empty" : strerror(errno));
		if (sfd >= 0)
			close(sfd);
		close(rootfd);
		close(dfd);
		return NULL;
	}
	close(sfd);
	close(dfd);
	text[n] = '\0';
	if (asuser_status_parse(text, (size_t)n, &ids, err) < 0) {
		close(rootfd);
		return NULL;
	}
	return reader_new(rootfd, xasprintf("/proc/self/fd/%d", rootfd), &ids);
}

struct asuser *asuser_open_dir(const char *root, const struct asuser_ids *ids, char **err)
{
	char sb[256];
	int rootfd;

	if (!root || !*root)
		root = "/";
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return *err = xasprintf("cannot open %s: %s.", shown(root, sb, sizeof sb),
			strerror(errno)), NULL;
	return reader_new(rootfd, xstrdup(root), ids);
}

struct asuser *asuser_dup(const struct asuser *u, char **err)
{
	struct asuser *c;
	int fd = fcntl(u->rootfd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return *err = xasprintf("cannot copy the target's root: %s.", strerror(errno)), NULL;
	c = xcalloc(1, sizeof *c);
	*c = *u;
	c->rootfd = fd;
	/* the fallback's path names the descriptor, which is another one now */
	c->root_path = strncmp(u->root_path, "/proc/self/fd/", 14) ? xstrdup(u->root_path) :
		xasprintf("/proc/self/fd/%d", fd);
	return c;
}

void asuser_free(struct asuser *u)
{
	if (!u)
		return;
	close(u->rootfd);
	free(u->root_path);
	free(u);
}

long asuser_uid(const struct asuser *u)
{
	return u && u->drop ? (long)u->ids.uid : -1;
}

/* ---- the child ----------------------------------------------------------------------- */

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		n -= (size_t)w;
	}
}

static __attribute__((noreturn)) void child_fail(int wfd, enum reply_kind kind, int e,
	uint64_t size)
{
	struct reply_head h = { .kind = kind, .err = e, .size = size };

	write_all(wfd, &h, sizeof h);
	_exit(0);
}

/* Closes descriptors from..to (to included): close_range where the kernel has it (5.9), else
 * one close per descriptor up to bound, which the parent found before the fork. */
static void close_span(unsigned from, unsigned to, unsigned bound)
{
	if (from > to)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, from, to, 0u) == 0)
		return;
#endif
	for (unsigned fd = from; fd <= to && fd < bound; fd++)
		close((int)fd);
}

/* Closes every descriptor but a and b: the child holds nothing of ntop-js's. */
static void close_others(int a, int b, unsigned bound)
{
	unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);

	if (lo > 0)
		close_span(0, lo - 1, bound);
	close_span(lo + 1, hi - 1, bound);
	close_span(hi + 1, ~0u, bound);
}

/* Becomes the target's user: its root, groups, gid, uid and capabilities (those of its that
 * ntop-js has; none that it lacks). Any step that fails ends the read. */
static void child_become(const struct request *q)
{
	const struct asuser *u = q->u;
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = q->caps[0], .permitted = q->caps[0] },
		{ .effective = q->caps[1], .permitted = q->caps[1] },
	};

	if (fchdir(u->rootfd) < 0 || chroot(".") < 0)
		child_fail(q->wfd, REPLY_ROOT, errno, 0);
	close(u->rootfd);
	/* the capabilities are set whole after the uid changes (a non-root uid keeps its own
	 * across setresuid; root's are kept so that the target's can stay) */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_setgroups, u->ids.n_groups, u->ids.groups) < 0 ||
	    syscall(SYS_setresgid, u->ids.gid, u->ids.gid, u->ids.gid) < 0 ||
	    syscall(SYS_setresuid, u->ids.uid, u->ids.uid, u->ids.uid) < 0 ||
	    syscall(SYS_capset, &h, d) < 0)
		child_fail(q->wfd, REPLY_CREDS, errno, 0);
}

static int child_open(const struct request *q)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	const struct asuser *u = q->u;

#ifdef HAVE_OPENAT2
	if (u->openat2) {
		struct open_how how = { .flags = flags,
			.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
		/* after the chroot, "/" is the target's root and the working directory */
		if (u->drop)
			return (int)syscall(SYS_openat2, AT_FDCWD, q->path, &how, sizeof how);
		return (int)syscall(SYS_openat2, u->rootfd, q->path + 1, &how, sizeof how);
	}
#endif
	if (u->drop)
		return open(q->path, flags); /* inside the chroot, links resolve inside too */
	return open(q->real, flags | O_NOFOLLOW);
}

static __attribute__((noreturn)) void child_run(const struct request *q)
{
	struct reply_head h = { .kind = REPLY_OK };
	struct reply_tail t = { .magic = REPLY_MAGIC };
	char chunk[16384];
	struct stat st;
	sigset_t all;
	off_t at = 0;
	int fd;

	/* first: the child holds a copy of ntop-js's memory, which no one may trace into, even
	 * for the moment it has the target's uid (fs.suid_dumpable=1) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(3);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	close_others(q->u->rootfd, q->wfd, q->fd_bound);
	if (q->u->drop)
		child_become(q);
	fd = child_open(q);
	if (fd < 0)
		child_fail(q->wfd, REPLY_OPEN, errno, 0);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		child_fail(q->wfd, REPLY_NOTREG, 0, 0);
	h.size = (uint64_t)st.st_size;
	h.len = h.size;
	if (q->tail_only && h.size > ASUSER_TAIL_BYTES) {
		at = st.st_size - ASUSER_TAIL_BYTES;
		h.len = ASUSER_TAIL_BYTES;
	} else if (!q->tail_only && h.size > q->max) {
		child_fail(q->wfd, REPLY_BIG, 0, h.size);
	}
	write_all(q->wfd, &h, sizeof h);
	for (uint64_t sent = 0; sent < h.len;) {
		size_t want = h.len - sent < sizeof chunk ? (size_t)(h.len - sent) : sizeof chunk;
		ssize_t r = pread(fd, chunk, want, at + (off_t)sent);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(2); /* an error, or shrunk meanwhile: no tail, so the parent fails */
		write_all(q->wfd, chunk, (size_t)r);
		sent += (uint64_t)r;
	}
	t.len = h.len;
	write_all(q->wfd, &t, sizeof t);
	_exit(0);
}

/* ---- the parent ---------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads up to n bytes before the deadline: returns what came (less at EOF), or -1 with errno
 * (ETIMEDOUT when the deadline passed). */
static ssize_t read_until(int fd, void *buf, size_t n, double deadline)
{
	size_t got = 0;

	while (got < n) {
		double left = deadline - now_s();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int rc;

		if (left <= 0)
			return errno = ETIMEDOUT, -1;
		rc = poll(&p, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* A descriptor of the child just forked (Linux 5.3), so that a kill can never reach another
 * process that took its PID; -1 without one. */
static int child_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0u);
#else
	(void)pid;
	return -1;
#endif
}

static void child_kill(pid_t pid, int pidfd)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0u) == 0)
		return;
	if (pidfd >= 0)
		return; /* it is gone: its PID may be another process's */
#else
	(void)pidfd;
#endif
	kill(pid, SIGKILL);
}

enum reaped {
	REAPED_OK,     /* it exited with status 0 */
	REAPED_FAILED, /* with another status, or by a signal */
	REAPED_NONE    /* gone without a status, or left running */
};

/* Reaps the child, killed first if kill_it. A child that waitid does not find (SIGCHLD
 * ignored: the kernel reaped it) is not ours any more: it is never killed (its PID may be
 * another process's) and its status is unknown. One that a hung mount holds even after
 * SIGKILL is left after a second. */
static enum reaped reap(pid_t pid, int pidfd, bool kill_it)
{
	for (int i = 0; i < 1000; i++) {
		siginfo_t si;

		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			return REAPED_NONE;
		}
		if (si.si_pid == pid)
			return si.si_code == CLD_EXITED && si.si_status == 0 ? REAPED_OK :
				REAPED_FAILED;
		/* still running and not reaped: its PID is still its own */
		if (kill_it)
			child_kill(pid, pidfd);
		kill_it = false;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return REAPED_NONE;
}

/* Above every descriptor this process holds: its limit, or its highest descriptor if one was
 * opened before the limit was lowered. Found before the fork, for a child without
 * close_range (Linux before 5.9). */
static unsigned fd_bound(void)
{
	struct rlimit rl;
	unsigned bound = 1024;
	struct dirent *de;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		bound = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX ? (unsigned)INT_MAX :
			(unsigned)rl.rlim_cur;
	long sc = sysconf(_SC_OPEN_MAX);
	if (sc > 0 && (unsigned long)sc > bound && sc <= INT_MAX)
		bound = (unsigned)sc;
	if ((d = opendir("/proc/self/fd"))) {
		while ((de = readdir(d))) {
			unsigned long fd = strtoul(de->d_name, NULL, 10);
			if (fd < INT_MAX && fd + 1 > bound)
				bound = (unsigned)fd + 1;
		}
		closedir(d);
	}
	return bound;
}

/* The fallback without openat2 (and without root's chroot): the real path must stay under
 * the root. Returns it, or NULL with *err. */
static char *fallback_path(const struct asuser *u, const char *path, char **err)
{
	char sb[256];
	char *full = xasprintf("%s%s", strcmp(u->root_path, "/") ? u->root_path : "", path);
	char *real = realpath(full, NULL);
	int real_errno = errno;
	char *rroot = realpath(u->root_path, NULL);
	size_t rl = rroot ? strlen(rroot) : 0;
	struct stat rs, ss;

	if (!real || !rroot)
		*err = xasprintf("cannot open %s: %s.", shown(path, sb, sizeof sb),
			strerror(real ? errno : real_errno));
	else if (!strcmp(rroot, "/") && (fstat(u->rootfd, &rs) < 0 || stat("/", &ss) < 0 ||
			rs.st_dev != ss.st_dev || rs.st_ino != ss.st_ino))
		/* /proc/PID/root of a container: realpath() would give this system's paths */
		*err = xasprintf("reading %s under another root needs openat2 (Linux 5.6).",
			shown(path, sb, sizeof sb));
	else if (strcmp(rroot, "/") && (strncmp(real, rroot, rl) || real[rl] != '/'))
		*err = xasprintf("%s leads out of the root.", shown(path, sb, sizeof sb));
	else {
		free(full);
		free(rroot);
		return real;
	}
	free(full);
	free(real);
	free(rroot);
	return NULL;
}

/* One sentence for the child's answer. */
static char *reply_error(const struct asuser *u, const struct reply_head *h, const char *path,
	size_t max)
{
	char sb[256];
	const char *p = shown(path, sb, sizeof sb);

	switch ((enum reply_kind)h->kind) {
	case REPLY_ROOT:
		return xasprintf("cannot enter the target's root directory to read %s: %s.", p,
			strerror(h->err));
	case REPLY_CREDS:
		return xasprintf("cannot take the rights of the target's user (uid %u) to read %s: "
			"%s.", (unsigned)u->ids.uid, p, strerror(h->err));
	case REPLY_OPEN:
		if (u->drop && (h->err == EACCES || h->err == EPERM))
			return xasprintf("%s is not readable by the target's user (uid %u).", p,
				(unsigned)u->ids.uid);
		return xasprintf("cannot open %s: %s.", p, strerror(h->err));
	case REPLY_NOTREG:
		return xasprintf("%s is not a regular file.", p);
	case REPLY_BIG:
		if (max >= ((size_t)1 << 20))
			return xasprintf("%s is larger than %zu MB.", p, max >> 20);
		return xasprintf("%s is larger than %zu bytes.", p, max);
	case REPLY_READ:
	case REPLY_OK:
		break;
	}
	return xasprintf("cannot read %s: %s.", p, strerror(h->err ? h->err : EIO));
}

/* The request's capabilities: the target's effective ones that ntop-js has. Returns -1 when
 * ntop-js's are unknown. */
static int request_caps(struct request *q)
{
	uint64_t eff, prm, keep;

	if (own_caps(&eff, &prm) < 0)
		return -1;
	keep = q->u->ids.cap_eff & prm;
	q->caps[0] = (uint32_t)keep;
	q->caps[1] = (uint32_t)(keep >> 32);
	return 0;
}

/* Reads the child's answer into *buf and *len: 0, -1 with errno (ETIMEDOUT: the deadline
 * passed), -2 with *err (the child's refusal), -3 (the child ended before its tail). */
static int take_answer(const struct asuser *u, int fd, const char *path, size_t max,
	bool tail_only, double deadline, char **buf, size_t *len, char **err)
{
	struct reply_head h;
	struct reply_tail t;
	ssize_t r = read_until(fd, &h, sizeof h, deadline);

	if (r < 0)
		return -1;
	if (r != (ssize_t)sizeof h)
		return -3;
	if (h.kind != REPLY_OK)
		return *err = reply_error(u, &h, path, max), -2;
	if (h.len > (tail_only ? ASUSER_TAIL_BYTES : max))
		return -3;
	*buf = xmalloc((size_t)h.len + 1);
	r = read_until(fd, *buf, (size_t)h.len, deadline);
	if (r < 0)
		return -1;
	if (r != (ssize_t)h.len)
		return -3;
	(*buf)[r] = '\0';
	*len = (size_t)r;
	/* the tail: the child read the whole file (its exit status may not be there to say so) */
	r = read_until(fd, &t, sizeof t, deadline);
	if (r < 0)
		return -1;
	if (r != (ssize_t)sizeof t || t.magic != REPLY_MAGIC || t.len != h.len)
		return -3;
	return 0;
}

int asuser_read(const struct asuser *u, const char *path, size_t max, bool tail_only,
	double timeout_s, char **buf, size_t *len, char **err)
{
	struct request q = { .u = u, .path = path, .max = max, .tail_only = tail_only };
	double deadline = now_s() + timeout_s;
	char *real = NULL, sb[256];
	int fds[2], pidfd, rc;
	pid_t pid;

	*buf = NULL;
	*len = 0;
	if (path[0] != '/' || strstr(path, "/../") || strstr(path, "/./"))
		return *err = xasprintf("%s is not a normalised absolute path.",
			shown(path, sb, sizeof sb)), -1;
	if (u->drop && request_caps(&q) < 0)
		return *err = xasprintf("cannot read %s: ntop-js's capabilities cannot be read: %s.",
			shown(path, sb, sizeof sb), strerror(errno)), -1;
	if (!u->openat2 && !u->drop && !(real = fallback_path(u, path, err)))
		return -1;
	q.real = real;
	q.fd_bound = fd_bound();
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(real);
		return *err = xasprintf("cannot read %s: %s.", shown(path, sb, sizeof sb),
			strerror(errno)), -1;
	}
	q.wfd = fds[1];
	pid = fork();
	if (pid == 0)
		child_run(&q);
	close(fds[1]);
	free(real);
	if (pid < 0) {
		close(fds[0]);
		return *err = xasprintf("cannot start a process to read %s: %s.",
			shown(path, sb, sizeof sb), strerror(errno)), -1;
	}
	pidfd = child_pidfd(pid);
	rc = take_answer(u, fds[0], path, max, tail_only, deadline, buf, len, err);
	if (rc == -1 && errno != ETIMEDOUT)
		rc = -4; /* the pipe failed: errno is said now, before reap changes it */
	if (rc == -4)
		*err = xasprintf("cannot read %s: %s.", shown(path, sb, sizeof sb),
			strerror(errno));
	close(fds[0]);
	/* the tail says the file came whole; a status, when there is one, must agree */
	if (reap(pid, pidfd, rc != 0) == REAPED_FAILED && rc == 0)
		rc = -3;
	if (pidfd >= 0)
		close(pidfd);
	if (rc == 0)
		return 0;
	free(*buf);
	*buf = NULL;
	*len = 0;
	if (rc == -1)
		*err = xasprintf("reading %s took more than %g s (a hung mount?), so it was "
			"abandoned.", shown(path, sb, sizeof sb), timeout_s);
	else if (rc == -3)
		*err = xasprintf("cannot read %s: the reading process ended before the whole "
			"file came.", shown(path, sb, sizeof sb));
	return -1;
}
