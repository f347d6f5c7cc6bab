/* test_asuser.c: the ids of /proc/PID/status, and reads with another user's rights: as root,
 * a reader for uid 65534 cannot read a root-only file that root itself can, inside the
 * reader's root whatever links say, and within its time bound (a FUSE mount that holds its
 * reads plays a hung one); a non-root ntop-js with capabilities reads without them; the child
 * holds none of ntop-js's descriptors, even without close_range; a read that ends early is a
 * failure, even when SIGCHLD is ignored. */
#include "config.h"

#include "asuser.h"

#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/fuse.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char STATUS[] =
	"Name:\tnode\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t42\n"
	"Uid:\t1000\t1001\t1002\t1003\nGid:\t2000\t2001\t2002\t2003\n"
	"FDSize:\t256\nGroups:\t4 24 27 \nCapInh:\t0000000000000000\n"
	"CapPrm:\t0000000000000000\nCapEff:\t000001ffffffffff\n";

static void test_parse(void)
{
	struct asuser_ids ids;
	char *err = NULL, buf[8192];

	ok(asuser_status_parse(STATUS, strlen(STATUS), &ids, &err) == 0, "a status is parsed%s%s",
		err ? ": " : "", err ? err : "");
	is_int(ids.uid, 1003, "the filesystem uid (the fourth)");
	is_int(ids.gid, 2003, "the filesystem gid");
	ok(ids.n_groups == 3 && ids.groups[0] == 4 && ids.groups[1] == 24 && ids.groups[2] == 27,
		"its groups");
	ok(ids.cap_eff == 0x1ffffffffffULL, "its effective capabilities");
	free(err), err = NULL;

	const char *no_groups = "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t \nCapEff:\t0\n";
	ok(asuser_status_parse(no_groups, strlen(no_groups), &ids, &err) == 0 &&
		ids.n_groups == 0 && ids.uid == 0 && ids.cap_eff == 0, "no groups");
	free(err), err = NULL;

	const char *bad[][2] = {
		{ "Gid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n", "Uid" },
		{ "Uid:\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n", "Uid" },
		{ "Uid:\t0\t0\t0\tx\nGid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n", "Uid" },
		{ "Uid:\t0\t0\t0\t99999999999\nGid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n", "Uid" },
		{ "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\nGroups:\t\nCapEff:\t0\n", "Gid" },
		{ "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nCapEff:\t0\n", "Groups" },
		{ "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t1 x\nCapEff:\t0\n", "Groups" },
		{ "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\n", "CapEff" },
		{ "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\tzz\n", "CapEff" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ok(asuser_status_parse(bad[i][0], strlen(bad[i][0]), &ids, &err) < 0 && err &&
			strstr(err, bad[i][1]) && err[strlen(err) - 1] == '.',
			"refused (%s): %s", bad[i][1], err ? err : "(parsed)");
		free(err), err = NULL;
	}
	/* more groups than kept */
	size_t n = (size_t)snprintf(buf, sizeof buf, "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:");
	for (int i = 0; i <= ASUSER_MAX_GROUPS; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " %d", i);
	n += (size_t)snprintf(buf + n, sizeof buf - n, "\nCapEff:\t0\n");
	ok(asuser_status_parse(buf, n, &ids, &err) < 0 && err && strstr(err, "groups"),
		"too many groups refused: %s", err ? err : "(parsed)");
	free(err);
}

static void write_file(const char *path, const char *text, mode_t mode, uid_t owner)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		if (fchown(fd, owner, 0) < 0)
			perror("fchown");
		if (fchmod(fd, mode) < 0)
			perror("fchmod");
		close(fd);
	}
}

/* Reads path with u; returns the text (caller frees) or NULL with *err. */
static char *read_as(const struct asuser *u, const char *path, char **err)
{
	char *buf = NULL;
	size_t len;

	free(*err);
	*err = NULL;
	if (asuser_read(u, path, 1 << 20, false, ASUSER_TIMEOUT_S, &buf, &len, err) < 0)
		return NULL;
	return buf;
}

static void test_reads(const char *dir)
{
	struct asuser_ids nobody = { .uid = 65534, .gid = 65534 };
	struct asuser_ids capless_root = { .uid = 0, .gid = 0, .cap_eff = 0 };
	struct asuser_ids full_root;
	struct asuser *me, *as_nobody, *as_capless, *as_root;
	char path[512], *err = NULL, *t;

	snprintf(path, sizeof path, "%s/public.js", dir);
	write_file(path, "public text\n", 0644, 0);
	snprintf(path, sizeof path, "%s/secret.js", dir);
	write_file(path, "secretFunctionName\n", 0600, 0);
	snprintf(path, sizeof path, "%s/theirs.js", dir);
	write_file(path, "another user's\n", 0600, 1234);
	snprintf(path, sizeof path, "%s/link.js", dir);
	ok(symlink("/secret.js", path) == 0, "a link to /secret.js (inside the root)");
	snprintf(path, sizeof path, "%s/out.js", dir);
	ok(symlink("/etc/passwd", path) == 0, "a link to /etc/passwd");

	/* root with the capabilities this test has (a container may have fewer than all) */
	char *st = NULL;
	size_t st_len = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (f) {
		st = calloc(1, 65536);
		st_len = fread(st, 1, 65535, f);
		fclose(f);
	}
	ok(st && asuser_status_parse(st, st_len, &full_root, &err) == 0, "this process's ids");
	free(st);
	free(err), err = NULL;
	me = asuser_open_dir(dir, NULL, &err);
	as_nobody = asuser_open_dir(dir, &nobody, &err);
	as_capless = asuser_open_dir(dir, &capless_root, &err);
	as_root = asuser_open_dir(dir, &full_root, &err);
	ok(me && as_nobody && as_capless && as_root, "readers of the directory");
	if (!me || !as_nobody || !as_capless || !as_root)
		return;
	is_int(asuser_uid(me), -1, "ntop-js's own rights");
	is_int(asuser_uid(as_nobody), 65534, "uid 65534's");

	t = read_as(me, "/secret.js", &err);
	is_str(t, "secretFunctionName\n", "with root's rights, the root-only file is read");
	free(t);
	t = read_as(as_nobody, "/public.js", &err);
	is_str(t, "public text\n", "as uid 65534, a file it can read is read");
	free(t);
	t = read_as(as_nobody, "/secret.js", &err);
	ok(!t && err && strstr(err, "/secret.js is not readable by the target's user (uid 65534)."),
		"as uid 65534, the root-only file is not: %s", err ? err : "(read)");
	free(t);
	t = read_as(as_nobody, "/link.js", &err);
	ok(!t && err && strstr(err, "not readable by the target's user"),
		"nor through a link: %s", err ? err : "(read)");
	free(t);
	/* with another user's ids (here root's), the reader is chrooted: links stay inside */
	t = read_as(as_root, "/link.js", &err);
	is_str(t, "secretFunctionName\n", "a link to an absolute path resolves inside the root");
	free(t);
	t = read_as(as_root, "/out.js", &err);
	ok(!t && err && strstr(err, "cannot open /out.js"),
		"so /etc/passwd is not this system's: %s", err ? err : "(read)");
	free(t);
	/* with ntop-js's own: openat2 does the same; without it, such a link is refused */
	t = read_as(me, "/link.js", &err);
	ok((t && !strcmp(t, "secretFunctionName\n")) ||
		(err && (strstr(err, "leads out") || strstr(err, "cannot open"))),
		"with ntop-js's own rights, inside the root too (%s)", t ? "read" : err);
	free(t);
	t = read_as(me, "/out.js", &err);
	ok(!t && err && (strstr(err, "cannot open /out.js") || strstr(err, "leads out")),
		"and never this system's /etc/passwd: %s", err ? err : "(read)");
	free(t);
	t = read_as(me, "/theirs.js", &err);
	is_str(t, "another user's\n", "root reads another user's 0600 file");
	free(t);
	t = read_as(as_capless, "/theirs.js", &err);
	ok(!t && err && strstr(err, "not readable by the target's user (uid 0)"),
		"a uid 0 target without capabilities does not: %s", err ? err : "(read)");
	free(t);

	/* a supplementary group: the target reads a 0640 file of a group it is in, but not its
	 * primary one */
	struct asuser_ids grouped = { .uid = 65534, .gid = 65534, .n_groups = 2,
		.groups = { 65533, 4242 } };
	struct asuser *as_grouped = asuser_open_dir(dir, &grouped, &err);
	snprintf(path, sizeof path, "%s/group.js", dir);
	write_file(path, "for group 4242\n", 0640, 0);
	ok(chown(path, 0, 4242) == 0, "a 0640 file of group 4242");
	t = as_grouped ? read_as(as_grouped, "/group.js", &err) : NULL;
	is_str(t, "for group 4242\n", "a target with group 4242 in its Groups reads it");
	free(t);
	t = read_as(as_nobody, "/group.js", &err);
	ok(!t && err && strstr(err, "not readable by the target's user (uid 65534)"),
		"one without it does not: %s", err ? err : "(read)");
	free(t);
	asuser_free(as_grouped);
	free(err), err = NULL;

	/* bounds: size, tail, time */
	char big[10001];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	big[sizeof big - 2] = 'y';
	snprintf(path, sizeof path, "%s/big.js", dir);
	write_file(path, big, 0644, 0);
	char *buf = NULL;
	size_t len = 0;
	ok(asuser_read(as_nobody, "/big.js", 100, false, 5, &buf, &len, &err) < 0 && err &&
		strstr(err, "larger"), "a file over the cap is refused: %s", err ? err : "(read)");
	free(err), err = NULL;
	ok(asuser_read(as_nobody, "/big.js", 100, true, 5, &buf, &len, &err) == 0 &&
		len == ASUSER_TAIL_BYTES && buf[len - 1] == 'y', "a tail is its last %d bytes",
		ASUSER_TAIL_BYTES);
	free(buf), buf = NULL;
	ok(asuser_read(as_nobody, "/a/../big.js", 1 << 20, false, 5, &buf, &len, &err) < 0 &&
		err && strstr(err, "normalised"), "a path with .. is refused");
	free(err), err = NULL;
	snprintf(path, sizeof path, "%s/fifo.js", dir);
	mkfifo(path, 0666);
	ok(asuser_read(me, "/fifo.js", 1 << 20, false, 5, &buf, &len, &err) < 0 && err &&
		strstr(err, "not a regular file"), "a FIFO is refused, without waiting for a writer");
	free(err), err = NULL;

	asuser_free(me);
	asuser_free(as_nobody);
	asuser_free(as_capless);
	asuser_free(as_root);
}

/* A real process of uid 65534: its reader takes its ids from /proc, and its root. */
static void test_process(const char *dir)
{
	char *err = NULL, *t;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		char c;
		close(fds[1]);
		if (syscall(SYS_setgroups, 0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(1);
		if (read(fds[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[0]);
	struct asuser *u = NULL;
	/* the child has dropped its ids once /proc says so */
	for (int i = 0; i < 200; i++) {
		asuser_free(u);
		free(err), err = NULL;
		u = asuser_open(pid, &err);
		if (u && asuser_uid(u) == 65534)
			break;
		usleep(10000);
	}
	ok(u && asuser_uid(u) == 65534, "a process of uid 65534: its reader takes uid 65534%s%s",
		err ? ": " : "", err ? err : "");
	if (u) {
		char path[512];
		snprintf(path, sizeof path, "%s/secret.js", dir);
		t = read_as(u, path, &err);
		ok(!t && err && strstr(err, "not readable by the target's user (uid 65534)"),
			"it cannot read the root-only file: %s", err ? err : "(read)");
		free(t);
		snprintf(path, sizeof path, "%s/public.js", dir);
		t = read_as(u, path, &err);
		is_str(t, "public text\n", "it reads a file it can read, through its root");
		free(t);
	}
	close(fds[1]);
	waitpid(pid, NULL, 0);
	/* its root stays the one taken: the process is gone, the reader still answers */
	if (u) {
		char path[512];
		snprintf(path, sizeof path, "%s/public.js", dir);
		t = read_as(u, path, &err);
		is_str(t, "public text\n", "after the process ended, the root taken at attach");
		free(t);
	}
	asuser_free(u);
	free(err), err = NULL;
	ok(asuser_open(pid, &err) == NULL && err, "a process gone has no reader: %s",
		err ? err : "");
	free(err);
}


/* ---- a hung mount: FUSE that holds every read ------------------------------------------ */

struct fuse_hang {
	int fd, stop[2];
	pthread_t thread;
	uint64_t held;          /* the READ held, or 0 */
	int reads, interrupts;  /* seen (read after join) */
};

static void fuse_reply(int fd, uint64_t unique, int error, const void *arg, size_t n)
{
	char buf[512];
	struct fuse_out_header h = { .len = (uint32_t)(sizeof h + n), .error = error,
		.unique = unique };

	memcpy(buf, &h, sizeof h);
	if (n)
		memcpy(buf + sizeof h, arg, n);
	if (write(fd, buf, sizeof h + n) < 0 && errno != ENOENT)
		perror("fuse reply");
}

static void fuse_attr_of(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof *a);
	a->ino = node;
	a->mode = node == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = node == FUSE_ROOT_ID ? 2 : 1;
	a->size = node == FUSE_ROOT_ID ? 0 : 100;
	a->blksize = 4096;
}

/* Answers the kernel: one file, /slow.js, whose reads are held until interrupted (then they
 * fail with EINTR, as a FUSE server that honours interrupts does). */
static void *fuse_serve(void *arg)
{
	struct fuse_hang *f = arg;
	static char buf[FUSE_MIN_READ_BUFFER + 65536];

	for (;;) {
		struct pollfd p[2] = { { .fd = f->fd, .events = POLLIN },
			{ .fd = f->stop[0], .events = POLLIN } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		ssize_t n = read(f->fd, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			break;
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		void *a = buf + sizeof *in;
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = a;
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION, .max_readahead = ii->max_readahead,
				.max_background = 16, .congestion_threshold = 12, .max_write = 65536,
				.time_gran = 1 };
			fuse_reply(f->fd, in->unique, 0, &o, sizeof o);
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .nodeid = 2, .entry_valid = 3600,
				.attr_valid = 3600 };
			if (in->nodeid != FUSE_ROOT_ID || strcmp(a, "slow.js")) {
				fuse_reply(f->fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_attr_of(2, &o.attr);
			fuse_reply(f->fd, in->unique, 0, &o, sizeof o);
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 3600 };
			fuse_attr_of(in->nodeid, &o.attr);
			fuse_reply(f->fd, in->unique, 0, &o, sizeof o);
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out o = { .fh = 1 };
			fuse_reply(f->fd, in->unique, 0, &o, sizeof o);
			break;
		}
		case FUSE_READ:
			f->held = in->unique; /* never answered, unless interrupted */
			f->reads++;
			break;
		case FUSE_INTERRUPT: {
			struct fuse_interrupt_in *ii = a;
			f->interrupts++;
			if (f->held && ii->unique == f->held)
				fuse_reply(f->fd, f->held, -EINTR, NULL, 0);
			f->held = 0;
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			fuse_reply(f->fd, in->unique, 0, NULL, 0);
			break;
		default:
			fuse_reply(f->fd, in->unique, -ENOSYS, NULL, 0);
		}
	}
	return NULL;
}

/* Mounts the hanging file system on mnt; false (with why) where FUSE cannot be mounted. */
static bool fuse_hang_mount(struct fuse_hang *f, const char *mnt, char *why, size_t cap)
{
	char opts[128];

	memset(f, 0, sizeof *f);
	f->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return snprintf(why, cap, "/dev/fuse: %s", strerror(errno)), false;
	snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		f->fd);
	if (mount("ntop-js-test", mnt, "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
		snprintf(why, cap, "mount fuse: %s", strerror(errno));
		close(f->fd);
		return false;
	}
	if (pipe(f->stop) < 0 || pthread_create(&f->thread, NULL, fuse_serve, f) != 0) {
		snprintf(why, cap, "a thread: %s", strerror(errno));
		umount2(mnt, MNT_DETACH);
		close(f->fd);
		return false;
	}
	return true;
}

static void fuse_hang_unmount(struct fuse_hang *f, const char *mnt)
{
	char b = 1;

	if (write(f->stop[1], &b, 1) < 0)
		perror("write");
	pthread_join(f->thread, NULL);
	close(f->fd); /* aborts the connection: anything still waiting fails */
	umount2(mnt, MNT_DETACH);
	close(f->stop[0]);
	close(f->stop[1]);
}

/* This process's children (alive or zombies), from /proc: their count. */
static int count_children(void)
{
	char path[300], text[512];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t r = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
		if (fd >= 0)
			close(fd);
		if (r <= 0)
			continue;
		text[r] = '\0';
		const char *p = strrchr(text, ')');
		int ppid;
		char state;
		if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == getpid())
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A read that the file system holds is abandoned at its time bound; the child is killed and
 * reaped: no zombie, nothing left running. */
static void test_hung(const char *dir)
{
	struct asuser_ids nobody = { .uid = 65534, .gid = 65534 };
	char mnt[512], why[256], *err = NULL, *buf = NULL;
	struct fuse_hang f;
	size_t len;

	snprintf(mnt, sizeof mnt, "%s/hung", dir);
	if (mkdir(mnt, 0755) < 0 || !fuse_hang_mount(&f, mnt, why, sizeof why)) {
		ok(1, "a read on a hung mount # SKIP %s", why);
		return;
	}
	struct asuser *u = asuser_open_dir(dir, &nobody, &err);
	int before = count_children();
	double t0 = mono_s();
	int rc = u ? asuser_read(u, "/hung/slow.js", 1 << 20, false, 0.5, &buf, &len, &err) : -1;
	double took = mono_s() - t0;
	ok(rc < 0 && err && strstr(err, "took more than 0.5 s") && strstr(err, "abandoned"),
		"a read that a hung mount holds is abandoned: %s", err ? err : "(read)");
	ok(took >= 0.5 && took < 2.0, "at its time bound (%.2f s)", took);
	is_int(count_children(), before, "its child was killed and reaped: no zombie is left");
	free(buf);
	free(err);
	asuser_free(u);
	fuse_hang_unmount(&f, mnt);
	ok(f.reads >= 1 && f.interrupts >= 1,
		"the child was in the file system's read when it was killed (%d reads, %d "
		"interrupts)", f.reads, f.interrupts);
	rmdir(mnt);
}

/* ---- checks in a child process, reported to the parent's TAP -------------------------- */

static void sub_ok(int fd, bool cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void sub_ok(int fd, bool cond, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n = snprintf(line, sizeof line, "%d ", cond ? 1 : 0);

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof line - 1)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(fd, line, (size_t)n) < 0)
		_exit(2);
}

/* Runs fn(dir, fd) in a child process and turns its lines into the parent's tests. */
static void in_child(void (*fn)(const char *, int), const char *dir, const char *what)
{
	char text[8192];
	size_t got = 0;
	int fds[2], st = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		ok(0, "%s: a child process", what);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		fn(dir, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	for (ssize_t r; got < sizeof text - 1 &&
			(r = read(fds[0], text + got, sizeof text - 1 - got)) != 0;)
		if (r > 0)
			got += (size_t)r;
		else if (errno != EINTR)
			break;
	text[got] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the child process ran", what);
	for (char *line = text, *nl; *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		ok(line[0] == '1', "%s", line + 2);
	}
}

static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
		{ .effective = (uint32_t)(caps >> 32), .permitted = (uint32_t)(caps >> 32) },
	};

	return (int)syscall(SYS_capset, &h, d);
}

#define CAP(c) ((uint64_t)1 << (c))

/* ntop-js as uid 4321 with capabilities: a reader for uid 65534 drops them. */
static void caps_child(const char *dir, int fd)
{
	struct asuser_ids nobody = { .uid = 65534, .gid = 65534 };
	char *err = NULL, *t;
	struct asuser *u;

	if (syscall(SYS_setgroups, 0, NULL) < 0 || setresgid(4321, 4321, 4321) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setresuid(4321, 4321, 4321) < 0 ||
	    set_caps(CAP(CAP_DAC_OVERRIDE) | CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_SETUID) |
		CAP(CAP_SETGID) | CAP(CAP_SYS_CHROOT)) < 0) {
		sub_ok(fd, false, "uid 4321 with CAP_DAC_OVERRIDE: %s", strerror(errno));
		return;
	}
	u = asuser_open_dir(dir, &nobody, &err);
	sub_ok(fd, u && asuser_uid(u) == 65534,
		"ntop-js as uid 4321 with CAP_DAC_OVERRIDE: reads take uid 65534 (%ld)",
		u ? asuser_uid(u) : -2);
	t = u ? read_as(u, "/secret.js", &err) : NULL;
	sub_ok(fd, !t && err && strstr(err, "not readable by the target's user (uid 65534)"),
		"so the root-only file is not read with CAP_DAC_OVERRIDE: %s", err ? err : "(read)");
	free(t);
	t = u ? read_as(u, "/public.js", &err) : NULL;
	sub_ok(fd, t && !strcmp(t, "public text\n"), "a file uid 65534 can read is read");
	free(t);
	asuser_free(u);

	/* capabilities that read but cannot switch: nothing is read */
	set_caps(CAP(CAP_DAC_READ_SEARCH));
	u = asuser_open_dir(dir, &nobody, &err);
	t = u ? read_as(u, "/secret.js", &err) : NULL;
	sub_ok(fd, !t && err && (strstr(err, "cannot take the rights of the target's user") ||
		strstr(err, "cannot enter the target's root")),
		"with CAP_DAC_READ_SEARCH alone, which cannot take uid 65534, nothing is read: %s",
		err ? err : "(read)");
	free(t);
	t = u ? read_as(u, "/public.js", &err) : NULL;
	sub_ok(fd, !t && err, "not even a public file");
	free(t);
	asuser_free(u);

	/* no capabilities: ntop-js's own rights */
	set_caps(0);
	u = asuser_open_dir(dir, &nobody, &err);
	sub_ok(fd, u && asuser_uid(u) == -1, "without capabilities, reads have uid 4321's rights");
	t = u ? read_as(u, "/public.js", &err) : NULL;
	sub_ok(fd, t && !strcmp(t, "public text\n"), "and read what it can: %s",
		t ? "read" : err);
	free(t);
	asuser_free(u);
	free(err);
}

/* close_range refused (as on Linux before 5.9), a descriptor above the lowered limit: the
 * reading child holds none of this process's descriptors. */
static void fds_child(const char *dir, int fd)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof filter / sizeof *filter, .filter = filter };
	struct rlimit rl = { 64, 64 };
	char *err = NULL, *t, path[64];
	int high = fcntl(fd, F_DUPFD, 900);
	struct asuser *u = asuser_open_dir("/", NULL, &err);

	(void)dir;
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", high);
	t = u ? read_as(u, path, &err) : NULL;
	sub_ok(fd, u && high >= 900 && !t && err && strstr(err, "cannot open"),
		"the reading child does not hold descriptor %d: %s", high, err ? err : "(read)");
	free(t);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		sub_ok(fd, true, "without close_range # SKIP %s", strerror(errno));
		return;
	}
	sub_ok(fd, syscall(SYS_close_range, 1000u, 1000u, 0u) < 0 && errno == ENOSYS,
		"close_range refused here");
	t = u ? read_as(u, path, &err) : NULL;
	sub_ok(fd, !t && err && strstr(err, "cannot open"),
		"without close_range, the child does not hold descriptor %d either (limit 64): %s",
		high, err ? err : "(read)");
	free(t);
	t = u ? read_as(u, "/proc/self/fdinfo/0", &err) : NULL;
	sub_ok(fd, !t && err && strstr(err, "cannot open"), "nor descriptor 0: %s",
		err ? err : "(read)");
	free(t);
	asuser_free(u);
	free(err);
}

/* A file that ends before its size (sysfs: 4096 bytes, a few written) or fails mid-read is
 * not read, even when SIGCHLD is ignored (no exit status to tell). */
static void test_partial(void)
{
	const char *shortf = "/sys/devices/system/cpu/online";
	const char *eio = "/sys/devices/system/cpu/power/autosuspend_delay_ms";
	struct asuser *u;
	struct stat st;
	char *err = NULL, *t, b[16];
	int fd;

	u = asuser_open_dir("/", NULL, &err);
	if (!u || stat(shortf, &st) < 0 || st.st_size != 4096) {
		ok(1, "a file shorter than its size # SKIP no %s of 4096 bytes", shortf);
	} else {
		t = read_as(u, shortf, &err);
		ok(!t && err && strstr(err, "before the whole file came"),
			"a file that ends before its size is not read: %s", err ? err : "(read)");
		free(t);
	}
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGCHLD, &ign, &old);
	t = u ? read_as(u, "/etc/passwd", &err) : NULL;
	ok(t && strlen(t) > 0, "with SIGCHLD ignored, a file is read (%s)", t ? "read" : err);
	free(t);
	fd = open(eio, O_RDONLY | O_CLOEXEC);
	if (!u || fd < 0 || pread(fd, b, sizeof b, 0) >= 0 || errno != EIO) {
		ok(1, "a read error with SIGCHLD ignored # SKIP %s gives no EIO here", eio);
	} else {
		t = read_as(u, eio, &err);
		ok(!t && err && strstr(err, "before the whole file came"),
			"with SIGCHLD ignored, a read that fails is not a success: %s",
			err ? err : "(read)");
		free(t);
	}
	if (fd >= 0)
		close(fd);
	sigaction(SIGCHLD, &old, NULL);
	asuser_free(u);
	free(err);
}

int main(void)
{
	char dir[] = "/tmp/ntop-asuser-XXXXXX", cmd[600];

	test_parse();
	if (geteuid() != 0) {
		ok(1, "reads as another user # SKIP not root");
		return done_testing();
	}
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) {
		ok(0, "a temporary directory");
		return done_testing();
	}
	test_reads(dir);
	test_process(dir);
	test_hung(dir);
	test_partial();
	in_child(caps_child, dir, "a non-root ntop-js with capabilities");
	in_child(fds_child, dir, "the reading child's descriptors");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ok(0, "%s", cmd);
	return done_testing();
}
