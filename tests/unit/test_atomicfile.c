/* Unit tests for atomic files: whole content and mode 0600 whatever the umask, streaming,
 * abandoning, and failures (a missing or read-only directory, a directory in the way, a write
 * error) that give one sentence and leave neither a temporary file nor a damaged target. */
#include "config.h"

#include "atomicfile.h"
#include "fixture.h"
#include "util.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

static bool file_is(const char *path, const char *want)
{
	size_t len;
	char *got = fixture_read_file(path, &len);
	bool same = got && len == strlen(want) && memcmp(got, want, len) == 0;

	free(got);
	return same;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 0777 : (mode_t)-1;
}

/* One sentence: it names what, gives the system's reason, ends with a period, one line. */
static bool one_sentence(const char *cause, const char *what, const char *reason)
{
	size_t n = cause ? strlen(cause) : 0;

	return n && strstr(cause, what) && (!reason || strstr(cause, reason)) &&
		cause[n - 1] == '.' && !strchr(cause, '\n');
}

static void test_save(const char *dir)
{
	char *path = xasprintf("%s/settings", dir), *cause = NULL;
	mode_t old_mask = umask(0);

	is_int(atomic_file_save(path, "a=1\n", 4, &cause), 0, "save: succeeds under umask 0");
	umask(old_mask);
	ok(file_is(path, "a=1\n"), "the file holds the content");
	is_int(mode_of(path), 0600, "mode 0600 even when the umask would allow more");
	put_file(path, "old", 0644);
	is_int(atomic_file_save(path, "b=2\n", 4, &cause), 0, "save over an existing file");
	ok(file_is(path, "b=2\n") && mode_of(path) == 0600, "replaced, and the mode is 0600 again");
	is_int(atomic_file_save(path, "", 0, &cause), 0, "an empty content is a file too");
	ok(file_is(path, ""), "now empty");
	is_int(fixture_count_entries(dir), 1, "no temporary file left");
	unlink(path);
	free(path);
}

static void test_stream(const char *dir)
{
	char *path = xasprintf("%s/out.folded", dir), *cause = NULL;
	struct atomic_file *f;

	put_file(path, "previous", 0600);
	f = atomic_file_open(path, &cause);
	ok(f != NULL, "stream: open");
	if (!f)
		return;
	is_int(atomic_file_write(f, "main;foo ", 9, &cause), 0, "raw bytes written");
	fprintf(atomic_file_stream(f), "%d\n", 900);
	for (int i = 0; i < 20000; i++)
		fputs("main;bar 1\n", atomic_file_stream(f));
	ok(file_is(path, "previous") && fixture_count_entries(dir) == 2,
		"while writing: the old file intact, one temporary file beside it");
	is_int(atomic_file_commit(f, &cause), 0, "commit");
	{
		size_t len = 0;
		char *got = fixture_read_file(path, &len);
		ok(got && len == 13 + 20000 * 11 && memcmp(got, "main;foo 900\nmain;bar 1\n", 24) == 0,
			"the file is the bytes and the formatted text, in order (%zu bytes)", len);
		free(got);
	}
	is_int(fixture_count_entries(dir), 1, "only the target left");

	f = atomic_file_open(path, &cause);
	ok(f && atomic_file_write(f, "half", 4, &cause) == 0, "a second write, abandoned");
	atomic_file_abort(f);
	{
		size_t len = 0;
		char *got = fixture_read_file(path, &len);
		ok(fixture_count_entries(dir) == 1 && got && len > 12 && memcmp(got, "main;foo 900", 12) == 0,
			"abort: the temporary file gone, the target untouched");
		free(got);
	}
	atomic_file_abort(NULL);
	unlink(path);
	free(path);
}

/* atomic_file_save in a child that is not root (root drops to nobody, as root writes
 * anywhere). Returns its result with *cause, or -2 if the child could not run so. */
static int save_unprivileged(const char *path, char **cause)
{
	char buf[1024];
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	*cause = NULL;
	if (pipe(fds) < 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		char *why = NULL;
		int rc;

		close(fds[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
			setuid(65534) < 0))
			_exit(2);
		rc = atomic_file_save(path, "x", 1, &why);
		if (why && write(fds[1], why, strlen(why)) < 0)
			_exit(2);
		_exit(rc == 0 ? 0 : 1);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], buf, sizeof(buf) - 1) : -1;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		WEXITSTATUS(status) == 2)
		return -2;
	if (n > 0) {
		buf[n] = '\0';
		*cause = xstrdup(buf);
	}
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void test_refusals(const char *dir)
{
	char *missing = xasprintf("%s/no-such-dir/x.cpuprofile", dir);
	char *slash = xasprintf("%s/", dir), *sub = xasprintf("%s/sub", dir);
	char *cause = NULL;

	ok(atomic_file_open(missing, &cause) == NULL, "a missing directory: refused");
	ok(one_sentence(cause, missing, strerror(ENOENT)), "with one sentence: %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	is_int(atomic_file_save(missing, "x", 1, &cause), -1, "save there fails too");
	free(cause);
	cause = NULL;

	ok(atomic_file_open(slash, &cause) == NULL &&
		one_sentence(cause, "names a directory", NULL), "a path ending in '/': %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	ok(atomic_file_open("", &cause) == NULL && cause, "an empty path: %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;

	/* The rename is the step that fails when a directory holds the name. */
	mkdir(sub, 0700);
	is_int(atomic_file_save(sub, "x", 1, &cause), -1, "a directory in the way");
	ok(one_sentence(cause, sub, strerror(EISDIR)), "with one sentence: %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	ok(fixture_count_entries(dir) == 1 && fixture_count_entries(sub) == 0,
		"nothing left beside it, nothing put in it");
	rmdir(sub);

	/* Read-only for the test's user; root, who writes anywhere, tries as nobody. */
	mkdir(sub, 0555);
	chmod(dir, 0755);
	{
		char *ro = xasprintf("%s/x.heapsnapshot", sub);
		int rc = save_unprivileged(ro, &cause);

		if (rc == -2) {
			printf("ok %d # SKIP cannot drop root to test a read-only directory\n", ++tap_n);
			printf("ok %d # SKIP\n", ++tap_n);
		} else {
			is_int(rc, -1, "a read-only directory: refused");
			ok(one_sentence(cause, ro, strerror(EACCES)) && fixture_count_entries(sub) == 0,
				"with one sentence, nothing left: %s", cause ? cause : "(none)");
		}
		free(cause);
		cause = NULL;
		free(ro);
	}
	chmod(dir, 0700);
	rmdir(sub);
	free(missing);
	free(slash);
	free(sub);
}

/* A write that fails (the file size limit, which binds root too): the reason comes from the
 * failed write itself, whichever way the bytes went in. */
static void test_write_error(const char *dir)
{
	char *path = xasprintf("%s/big.cpuprofile", dir), *cause = NULL, block[4096];
	struct rlimit old, small = { 8192, 0 };
	struct atomic_file *f;
	int rc = 0;

	memset(block, 'x', sizeof(block));
	put_file(path, "kept", 0600);
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &small) < 0) {
		printf("ok %d # SKIP setrlimit: %s\n", ++tap_n, strerror(errno));
		free(path);
		return;
	}

	f = atomic_file_open(path, &cause);
	for (int i = 0; f && i < 64 && rc == 0; i++)
		rc = atomic_file_write(f, block, sizeof(block), &cause);
	ok(rc == -1 && one_sentence(cause, path, strerror(EFBIG)), "write: refused with the "
		"reason: %s", cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	atomic_file_abort(f);

	f = atomic_file_open(path, &cause);
	for (int i = 0; f && i < 64; i++)
		fwrite(block, 1, sizeof(block), atomic_file_stream(f));
	ok(f && atomic_file_commit(f, &cause) == -1 && one_sentence(cause, path, strerror(EFBIG)),
		"stream: the commit reports the failed write's reason: %s", cause ? cause : "(none)");
	free(cause);
	cause = NULL;

	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	ok(fixture_count_entries(dir) == 1 && file_is(path, "kept"),
		"no temporary file left, the old file kept");
	unlink(path);
	free(path);
}

int main(void)
{
	char dir[] = "/tmp/ntop-atomicfile-XXXXXX";

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return done_testing();
	}
	test_save(dir);
	test_stream(dir);
	test_refusals(dir);
	test_write_error(dir);
	is_int(fixture_count_entries(dir), 0, "the directory is empty at the end");
	rmdir(dir);
	return done_testing();
}
