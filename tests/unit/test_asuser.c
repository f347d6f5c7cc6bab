/* test_asuser.c: the ids of /proc/PID/status, and reads with another user's rights: as root,
 * a reader for uid 65534 cannot read a root-only file that root itself can, inside the
 * reader's root whatever links say, and within its time bound. */
#include "config.h"

#include "asuser.h"

#include "tap.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
	ok(asuser_read(as_nobody, "/big.js", 1 << 20, false, 0, &buf, &len, &err) < 0 && err &&
		strstr(err, "abandoned"), "a read past its time is abandoned: %s",
		err ? err : "(read)");
	free(err), err = NULL;
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
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ok(0, "%s", cmd);
	return done_testing();
}
