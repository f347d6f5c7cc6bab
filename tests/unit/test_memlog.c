/* Unit tests for memlog: records written and replayed, torn and malformed lines, a writer
 * killed with SIGKILL mid-run, the file mode, and a log longer than the reader's buffer. */
#include "config.h"

#include "exitcode.h"
#include "incident.h"
#include "memlog.h"
#include "memseries.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct seen {
	size_t mem, attach, gap, window;
	double mem_sum_rss, last_t;
	bool last_has_external;
	int pid;
	char version[32], title[64];
	struct strbuf window_json;
	bool in_order;
};

static void on_mem(void *ud, const struct mem_sample *m)
{
	struct seen *s = ud;

	if (m->t_s < s->last_t)
		s->in_order = false;
	s->last_t = m->t_s;
	s->mem++;
	if (!isnan(m->v[MEM_RSS]))
		s->mem_sum_rss += m->v[MEM_RSS];
	s->last_has_external = !isnan(m->v[MEM_EXTERNAL]);
}

static void on_attach(void *ud, double t_s, int pid, const char *node_version, const char *title)
{
	struct seen *s = ud;

	(void)t_s;
	s->attach++;
	s->pid = pid;
	snprintf(s->version, sizeof s->version, "%s", node_version);
	snprintf(s->title, sizeof s->title, "%s", title);
}

static void on_gap(void *ud, double t_s)
{
	struct seen *s = ud;

	s->gap++;
	s->last_t = t_s;
}

static void on_window(void *ud, const char *json, size_t len)
{
	struct seen *s = ud;

	s->window++;
	strbuf_reset(&s->window_json);
	strbuf_append(&s->window_json, json, len);
}

static const struct memlog_replay_handlers handlers = { on_mem, on_attach, on_gap, on_window, NULL, NULL };

static int replay(const char *path, struct seen *s, size_t *bad)
{
	char *cause = NULL;
	int r;

	strbuf_free(&s->window_json);
	memset(s, 0, sizeof *s);
	s->in_order = true;
	strbuf_init(&s->window_json);
	*bad = 99;
	r = memlog_replay(path, &handlers, s, bad, &cause);
	if (r < 0) {
		printf("# replay: %s\n", cause);
		free(cause);
	}
	return r;
}

static void append_raw(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ssize_t n = fd >= 0 ? write(fd, text, len) : -1;

	ok(n == (ssize_t)len, "appended %zu raw bytes", len);
	if (fd >= 0)
		close(fd);
}

static void append_str(const char *path, const char *text)
{
	append_raw(path, text, strlen(text));
}

static int write_rec(struct memlog *l, const char *json, double now)
{
	char *cause = NULL;
	int r = memlog_write(l, json, strlen(json), now, &cause);

	if (r < 0) {
		printf("# write: %s\n", cause);
		free(cause);
	}
	return r;
}

static void test_roundtrip(const char *dir)
{
	char *path = xasprintf("%s/a.log", dir), *cause = NULL, *rec;
	struct mem_sample m = { .t_s = 1700000000.25 };
	struct memlog *l;
	struct seen s = { 0 };
	struct stat st;
	size_t bad;
	mode_t old = umask(0);

	l = memlog_open(path, NULL, &cause);
	umask(old);
	ok(l != NULL, "open creates the log");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600 even with umask 0 (%o)",
		(unsigned)(st.st_mode & 0777));

	m.v[MEM_RSS] = 1000;
	m.v[MEM_HEAP_USED] = 500.5;
	m.v[MEM_HEAP_TOTAL] = 800;
	m.v[MEM_EXTERNAL] = NAN;
	m.v[MEM_ARRAY_BUFFERS] = NAN;
	rec = memlog_mem_record(&m);
	is_str(rec, "{\"type\":\"mem\",\"time\":1700000000.250,\"rss_bytes\":1000,"
		"\"heap_used_bytes\":500.500,\"heap_total_bytes\":800}", "mem record leaves out NAN fields");

	is_int(write_rec(l, "{\"type\":\"attach\",\"time\":1700000000,\"target\":{\"pid\":4242,"
		"\"node_version\":\"v20.20.2\",\"title\":\"caf\\u00e9 \\\"app\\\"\"}}", 1700000000), 0,
		"attach record written");
	is_int(write_rec(l, rec, 1700000000.25), 0, "mem record written");
	free(rec);
	m.t_s += 1;
	m.v[MEM_EXTERNAL] = 42;
	rec = memlog_mem_record(&m);
	is_int(write_rec(l, rec, 1700000001.25), 0, "mem record with external written");
	free(rec);
	is_int(write_rec(l, "{\"type\":\"window\",\"time\":1700000002,\n\"functions\":[{\"name\":\"f\"}]}",
		1700000002), 0, "window record with a raw newline written");
	is_int(write_rec(l, "{\"type\":\"target_exit\",\"time\":1700000003,\"reason\":\"exited\"}",
		1700000003), 0, "target_exit written");
	is_int(write_rec(l, "{\"type\":\"gap\",\"time\":1700000004}", 1700000100), 0, "gap written");
	is_int(write_rec(l, "{\"type\":\"heap_profile\",\"time\":1700000005}", 1700000101), 0,
		"a record of a type the reader does not know");
	memlog_close(l);

	is_int(replay(path, &s, &bad), 0, "replay reads the log");
	is_int(bad, 0, "no bad lines");
	is_int(s.attach, 1, "one attach");
	is_int(s.pid, 4242, "attach pid");
	is_str(s.version, "v20.20.2", "attach node version");
	is_str(s.title, "caf\xc3\xa9 \"app\"", "attach title, escapes decoded");
	is_int(s.mem, 2, "two mem records");
	is_num(s.mem_sum_rss, 2000, 0, "mem values read back");
	ok(s.last_has_external, "external read back when present");
	is_int(s.gap, 2, "gap and target_exit both call on_gap");
	is_int(s.window, 1, "one window");
	is_str(s.window_json.data, "{\"type\":\"window\",\"time\":1700000002, \"functions\":[{\"name\":\"f\"}]}",
		"window passed raw, its newline made a space");

	/* torn last line: a record cut mid-write */
	append_str(path, "{\"type\":\"mem\",\"time\":1700000009,\"rss_by");
	is_int(replay(path, &s, &bad), 0, "replay with a torn last line");
	is_int(bad, 0, "the torn last line is not counted as bad");
	is_int(s.mem, 2, "and not delivered");

	/* a new run appending to that log ends the torn line first */
	l = memlog_open(path, NULL, &cause);
	ok(l && write_rec(l, "{\"type\":\"gap\",\"time\":1700000010}", 1700000010) == 0,
		"reopened and appended");
	memlog_close(l);
	is_int(replay(path, &s, &bad), 0, "replay after the reopen");
	is_int(s.gap, 3, "the record after the torn one is intact");
	is_int(bad, 1, "the torn line, now in the middle, counts as one bad line");

	/* a complete last record without its newline is kept */
	append_str(path, "{\"type\":\"gap\",\"time\":1700000011}");
	is_int(replay(path, &s, &bad), 0, "replay with an unterminated complete record");
	is_int(s.gap, 4, "an unterminated but complete last record is read");
	free(path);
	strbuf_free(&s.window_json);
}

static void test_bad_lines(const char *dir)
{
	char *path = xasprintf("%s/bad.log", dir), *cause = NULL;
	static const char text[] =
		"{\"type\":\"mem\",\"time\":1,\"rss_bytes\":10}\n"
		"not json\n"
		"[1,2,3]\n"
		"{\"type\":5,\"time\":1}\n"
		"{\"time\":1}\n"
		"{\"type\":\"mem\"}\n"
		"{\"type\":\"mem\",\"time\":2,\"rss_bytes\":\"10\"}\n"
		"{\"type\":\"mem\",\"time\":2,\"rss_bytes\":-10}\n"
		"{\"type\":\"mem\",\"time\":2,\"rss_bytes\":1e999}\n"
		"{\"type\":\"attach\",\"time\":3,\"target\":{\"pid\":\"x\"}}\n"
		"{\"type\":\"attach\",\"time\":3,\"target\":[]}\n"
		"{\"type\":\"gap\",\"time\":\"now\"}\n"
		"{\"type\":\"mem\",\"time\":3,\"rss_bytes\":10} trailing\n"
		"\n"
		"   \n"
		"{\"type\":\"attach\",\"time\":4}\n"
		"{\"type\":\"mem\",\"time\":5,\"rss_bytes\":null}\n";
	struct seen s = { 0 };
	size_t bad;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ok(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "wrote bad.log");
	if (fd >= 0)
		close(fd);
	is_int(replay(path, &s, &bad), 0, "replay of a log with bad lines");
	is_int(bad, 12, "every malformed line counted, blank lines not");
	is_int(s.mem, 2, "good mem lines still read (null means not read)");
	is_int(s.attach, 1, "attach without a target is fine");

	/* a line longer than the 4 MB cap, between two good ones */
	{
		size_t big = 5u * 1024 * 1024;
		char *line = xmalloc(big + 1);

		memset(line, ' ', big);
		memcpy(line, "{\"type\":\"window\",\"x\":\"", 22);
		line[big - 2] = '"';
		line[big - 1] = '}';
		line[big] = '\n';
		append_raw(path, line, big + 1);
		append_str(path, "{\"type\":\"gap\",\"time\":9}\n");
		free(line);
	}
	is_int(replay(path, &s, &bad), 0, "replay with an over-long line");
	is_int(bad, 13, "the over-long line counts as bad");
	is_int(s.window, 0, "and is not delivered");
	is_int(s.gap, 1, "the line after it is read");

	ok(memlog_replay("/nonexistent/ntop-js.log", &handlers, &s, &bad, &cause) == -1 && cause,
		"a missing file is an error with a cause");
	free(cause);
	cause = NULL;
	ok(memlog_open("/nonexistent/dir/ntop-js.log", NULL, &cause) == NULL && cause,
		"open in a missing directory fails with a cause");
	free(cause);
	free(path);
	strbuf_free(&s.window_json);
}

/* A log longer than the reader's 4 MB buffer, read in chunks. */
static void test_long_log(const char *dir)
{
	char *path = xasprintf("%s/long.log", dir), *cause = NULL;
	struct memlog *l = memlog_open(path, NULL, &cause);
	struct mem_sample m = { 0 };
	struct seen s = { 0 };
	size_t bad, n = 60000, failed = 0;
	double want = 0;
	struct stat st;

	for (size_t i = 0; l && i < n; i++) {
		char *rec;

		m.t_s = 1700000000.0 + (double)i;
		for (int k = 0; k < MEM_METRIC_COUNT; k++)
			m.v[k] = 1e8 + (double)(i * 7 + (size_t)k);
		want += m.v[MEM_RSS];
		rec = memlog_mem_record(&m);
		failed += write_rec(l, rec, m.t_s) != 0;
		free(rec);
	}
	memlog_close(l);
	ok(stat(path, &st) == 0 && st.st_size > 4 * 1024 * 1024, "long log is %lld bytes",
		(long long)st.st_size);
	is_int(failed, 0, "every write succeeded");
	is_int(replay(path, &s, &bad), 0, "long log replayed");
	is_int(s.mem, n, "every record read");
	is_num(s.mem_sum_rss, want, 0, "values intact across chunk boundaries");
	ok(s.in_order, "records in order");
	is_int(bad, 0, "no bad lines");
	free(path);
	strbuf_free(&s.window_json);
}

/* A write cut short (here by a file size limit, as by a full disk): the record after it
 * still gets a line of its own. Runs in a child so the limit does not outlive it. */
static void test_short_write(const char *dir)
{
	char *path = xasprintf("%s/short.log", dir);
	struct seen s = { 0 };
	size_t bad;
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *cause = NULL;
		struct memlog *l = memlog_open(path, NULL, &cause);
		struct rlimit rl;
		int r1, r2, r3;

		signal(SIGXFSZ, SIG_IGN);
		if (!l || getrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		r1 = write_rec(l, "{\"type\":\"gap\",\"time\":1}", 1);
		rl.rlim_cur = 40;
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(3);
		r2 = write_rec(l, "{\"type\":\"gap\",\"time\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxx\"}", 2);
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(4);
		r3 = write_rec(l, "{\"type\":\"gap\",\"time\":3}", 3);
		memlog_close(l);
		_exit(r1 == 0 && r2 == -1 && r3 == 0 ? 0 : 5);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "a write cut short fails, the next succeeds (status %d)",
		WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	is_int(replay(path, &s, &bad), 0, "replay after a short write");
	is_int(s.gap, 2, "records before and after the short write are read");
	is_int(bad, 1, "the cut record is one bad line");
	free(path);
	strbuf_free(&s.window_json);
}

static void child_writer(const char *path)
{
	char *cause = NULL, pad[3000];
	struct memlog *l = memlog_open(path, NULL, &cause);
	struct mem_sample m = { 0 };
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	if (!l)
		_exit(2);
	memset(pad, 'x', sizeof pad - 1);
	pad[sizeof pad - 1] = 0;
	for (unsigned i = 0;; i++) {
		char *rec;

		m.t_s = 1700000000.0 + i;
		m.v[MEM_RSS] = 1e8 + i;
		m.v[MEM_HEAP_USED] = 5e7 + i;
		m.v[MEM_HEAP_TOTAL] = 6e7;
		m.v[MEM_EXTERNAL] = m.v[MEM_ARRAY_BUFFERS] = NAN;
		rec = i % 3 ? memlog_mem_record(&m) :
			xasprintf("{\"type\":\"window\",\"time\":%u,\"pad\":\"%s\"}", i, pad);
		if (memlog_write(l, rec, strlen(rec), m.t_s, &cause) < 0)
			_exit(3);
		free(rec);
		if (i % 2)
			nanosleep(&ts, NULL);
	}
}

static void test_sigkill(const char *dir)
{
	char *path = xasprintf("%s/killed.log", dir), *data;
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	struct seen s = { 0 };
	size_t bad, lines = 0, len = 0, cap = 0;
	int status = 0, fd;
	pid_t pid;
	bool torn;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child_writer(path);
	ok(pid > 0, "forked the writer");
	if (pid < 0)
		return;
	nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the writer was killed by SIGKILL");

	data = NULL;
	fd = open(path, O_RDONLY);
	for (;;) {
		ssize_t n;

		data = xreallocarray_grow(data, &cap, len + 65536, 1);
		n = fd >= 0 ? read(fd, data + len, 65536) : 0;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < len; i++)
		lines += data[i] == '\n';
	torn = len > 0 && data[len - 1] != '\n';
	ok(lines > 20, "the writer got %zu records out before the kill", lines);
	is_int(replay(path, &s, &bad), 0, "the killed writer's log replays");
	is_int(bad, 0, "no bad lines");
	is_int(s.mem + s.window, lines, "every complete line is a readable record%s",
		torn ? " (one torn line skipped)" : "");
	ok(s.in_order, "records in order");
	free(data);
	free(path);
	strbuf_free(&s.window_json);
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# cannot write %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

static bool file_is(const char *path, const char *text)
{
	char data[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, data, sizeof data);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) && memcmp(data, text, (size_t)n) == 0;
}

/* log_refused(PATH, WHY): memlog_open refuses PATH with EXIT_USAGE and a cause saying WHY. */
static void log_refused(const char *path, const char *why, const char *what)
{
	char *cause = NULL;
	int status = -1;
	struct memlog *l = memlog_open(path, &status, &cause);

	ok(!l && status == EXIT_USAGE && cause && strstr(cause, why) && strstr(cause, "--log"),
		"%s: refused with status 2 (%s)", what, cause ? cause : "opened");
	if (l)
		memlog_close(l);
	free(cause);
}

/* The --log path as an attacker prepares it: nothing followed, nothing of theirs taken. */
static void test_unsafe_paths(const char *dir)
{
	char *secret = xasprintf("%s/secret", dir), *slink = xasprintf("%s/link.log", dir);
	char *dangling = xasprintf("%s/dangling.log", dir), *gone = xasprintf("%s/gone", dir);
	char *open644 = xasprintf("%s/open.log", dir), *own = xasprintf("%s/own.log", dir);
	char *fresh = xasprintf("%s/fresh.log", dir), *hard = xasprintf("%s/hard.log", dir);
	char *fifo = xasprintf("%s/fifo.log", dir), *theirs = xasprintf("%s/theirs.log", dir);
	char *cause = NULL;
	struct memlog *l;
	struct stat st;
	mode_t old_mask;
	int status = -1;

	put_file(secret, "root only\n", 0600);
	ok(symlink(secret, slink) == 0, "a symlink planted to a file of ours");
	log_refused(slink, "symbolic link", "a symlink to an existing file");
	ok(file_is(secret, "root only\n"), "the link's target is unchanged");
	ok(symlink(gone, dangling) == 0, "a dangling symlink planted");
	log_refused(dangling, "symbolic link", "a dangling symlink");
	ok(lstat(gone, &st) < 0 && errno == ENOENT, "nothing created where it points");

	put_file(open644, "theirs to read\n", 0644);
	log_refused(open644, "other users", "an existing file others can read (0644)");
	ok(file_is(open644, "theirs to read\n"), "left unchanged");
	chmod(open644, 0620);
	log_refused(open644, "other users", "an existing file its group can write (0620)");

	ok(link(secret, hard) == 0, "a hard link to a file of ours");
	log_refused(hard, "hard links", "a file with two names");
	ok(file_is(secret, "root only\n"), "the other name's content is unchanged");

	ok(mkfifo(fifo, 0600) == 0, "a FIFO of ours");
	log_refused(fifo, "not a regular file", "a FIFO (without hanging on its reader)");

	put_file(theirs, "nobody's\n", 0600);
	if (geteuid() != 0) {
		ok(1, "# SKIP a file of another user needs root to make");
	} else if (chown(theirs, 65534, 65534) == 0) {
		log_refused(theirs, "another user", "a file of another user (mode 0600)");
		ok(file_is(theirs, "nobody's\n"), "left unchanged");
	} else {
		ok(0, "chown to 65534: %s", strerror(errno));
	}

	put_file(own, "{\"type\":\"gap\",\"time\":1}\n", 0600);
	l = memlog_open(own, &status, &cause);
	ok(l != NULL, "our own file with mode 0600 is appended to (%s)", cause ? cause : "ok");
	if (l) {
		write_rec(l, "{\"type\":\"gap\",\"time\":2}", 2);
		memlog_close(l);
	}
	ok(file_is(own, "{\"type\":\"gap\",\"time\":1}\n{\"type\":\"gap\",\"time\":2}\n"),
		"after what it held");
	free(cause);
	cause = NULL;

	old_mask = umask(0);
	l = memlog_open(fresh, &status, &cause);
	umask(old_mask);
	ok(l != NULL && stat(fresh, &st) == 0 && (st.st_mode & 0777) == 0600,
		"a new file is created with mode 0600 under umask 0 (%o)", (unsigned)(st.st_mode & 0777));
	memlog_close(l);
	free(cause);
	cause = NULL;
	status = -1;
	ok(memlog_open("/nonexistent/dir/x.log", &status, &cause) == NULL &&
		status == EXIT_INTERNAL, "a directory that does not exist: status 1 (%s)", cause);
	free(cause);

	free(secret); free(slink); free(dangling); free(gone); free(open644); free(own);
	free(fresh); free(hard); free(fifo); free(theirs);
}

/* --- "post_gc": the live run's collections, so that a replay's growth rule is the live one --- */

struct gc_seen {
	struct memseries *s;
	size_t records, restarts, sizes, with_ago;
};

static void gc_on_mem(void *ud, const struct mem_sample *m)
{
	struct gc_seen *g = ud;

	memseries_add(g->s, m);
}

static void gc_on_post_gc(void *ud, double t_s, double span_s, const double *used,
	const double *ago_s, size_t n)
{
	struct gc_seen *g = ud;

	g->records++;
	g->sizes += n;
	g->with_ago += ago_s != NULL;
	if (span_s < 0) {
		g->restarts++;
		memseries_post_gc_restart(g->s, t_s);
	} else {
		memseries_add_post_gc(g->s, t_s, span_s, used, ago_s, n);
	}
}

static void test_post_gc(const char *dir)
{
	static const struct memlog_replay_handlers h = { .on_mem = gc_on_mem,
		.on_post_gc = gc_on_post_gc };
	char *path = xasprintf("%s/post-gc.log", dir), *cause = NULL, *rec;
	struct memseries *live = memseries_create(), *readings_only = memseries_create();
	struct gc_seen seen = { .s = memseries_create() };
	struct mem_growth gl, gr, go;
	struct memlog *l = memlog_open(path, NULL, &cause);
	const double t0 = 1.7e9;
	size_t bad = 99;

	ok(l != NULL, "post_gc: log opened");
	/* Two hours of a heap whose readings swing widely (allocation bursts) while what survives
	 * each major collection rises slowly: 40 MB -> 46 MB. The readings alone see noise. */
	rec = memlog_post_gc_record(t0, -1, NULL, NULL, 0);
	write_rec(l, rec, t0);
	free(rec);
	memseries_post_gc_restart(live, t0);
	for (int i = 1; i <= 720; i++) {
		double t = t0 + 10.0 * i, floor = 40e6 + 6e6 * (t - t0) / 7200.0;
		double used[1] = { floor }, ago[1] = { 3.0 };
		struct mem_sample m = { .t_s = t };
		char *mrec;

		for (int k = 0; k < MEM_METRIC_COUNT; k++)
			m.v[k] = NAN;
		m.v[MEM_RSS] = 200e6;
		m.v[MEM_HEAP_TOTAL] = 160e6;
		m.v[MEM_HEAP_USED] = floor + ((i * 7919) % 97) * 1e6;
		memseries_add(live, &m);
		memseries_add(readings_only, &m);
		mrec = memlog_mem_record(&m);
		write_rec(l, mrec, t);
		free(mrec);
		memseries_add_post_gc(live, t, 10.0, used, i % 2 ? ago : NULL, 1);
		rec = memlog_post_gc_record(t, 10.0, used, i % 2 ? ago : NULL, 1);
		write_rec(l, rec, t);
		free(rec);
	}
	memlog_close(l);
	append_str(path, "{\"type\":\"post_gc\",\"time\":1,\"span_s\":10,\"used_bytes\":[1,2],"
		"\"ago_s\":[1]}\n");
	append_str(path, "{\"type\":\"post_gc\",\"time\":1,\"span_s\":-5,\"used_bytes\":[]}\n");
	append_str(path, "{\"type\":\"post_gc\",\"time\":1,\"span_s\":10,\"used_bytes\":[\"x\"]}\n");
	append_str(path, "{\"type\":\"post_gc\",\"time\":1,\"span_s\":10}\n");

	ok(memlog_replay(path, &h, &seen, &bad, &cause) == 0, "post_gc: replayed");
	is_int((int)seen.records, 721, "post_gc: every record back (the restart and 720 batches)");
	is_int((int)seen.restarts, 1, "post_gc: the observer's start as a restart");
	is_int((int)seen.sizes, 720, "post_gc: one size a batch");
	is_int((int)seen.with_ago, 360, "post_gc: times where they were told");
	is_int((int)bad, 4, "post_gc: a length mismatch, a negative span, a string size and no "
		"sizes are bad lines");

	memseries_growth(live, 3600, t0 + 7200, &gl);
	memseries_growth(seen.s, 3600, t0 + 7200, &gr);
	memseries_growth(readings_only, 3600, t0 + 7200, &go);
	ok(gl.verdict == gr.verdict && gl.basis == gr.basis && gl.major_gcs == gr.major_gcs &&
		fabs(gl.heap_bytes_per_hour - gr.heap_bytes_per_hour) < 1,
		"post_gc: the replay's growth is the live one (%.0f B/h, verdict %d, basis %d; "
		"replay %.0f B/h, %d, %d)", gl.heap_bytes_per_hour, (int)gl.verdict, (int)gl.basis,
		gr.heap_bytes_per_hour, (int)gr.verdict, (int)gr.basis);
	ok(gl.verdict == MEM_GROWING && gl.major_gcs > 0,
		"post_gc: which is growing, from the collections (%ld of them)", gl.major_gcs);
	ok(go.basis != gl.basis, "post_gc: the readings alone fit otherwise (basis %d, verdict %d)",
		(int)go.basis, (int)go.verdict);
	memseries_free(live);
	memseries_free(readings_only);
	memseries_free(seen.s);
	free(path);
}

/* --- "incident": what --trigger caught, for --replay's incidents screen --- */

struct inc_seen {
	struct incident_summary s[4];
	size_t n;
};

static void inc_on_incident(void *ud, const struct incident_summary *s)
{
	struct inc_seen *seen = ud;

	if (seen->n < 4)
		seen->s[seen->n] = *s;
	seen->n++;
}

static void test_incident(const char *dir)
{
	static const struct memlog_replay_handlers h = { .on_incident = inc_on_incident };
	char *path = xasprintf("%s/incident.log", dir), *cause = NULL, *rec;
	struct incident_summary a = { .fired_s = 1795900000.25, .from_s = 1795899990,
		.to_s = 1795900003, .value = 93.5, .n_top = 2 }, g = a;
	struct memlog *l = memlog_open(path, NULL, &cause);
	struct inc_seen seen = { .n = 0 };
	size_t bad = 0;

	ok(l != NULL, "incident: log opened");
	snprintf(a.name, sizeof a.name, "incident-20261128T031245Z-42-000001");
	snprintf(a.dir, sizeof a.dir, "/var/lib/ntop-js/\"quoted\"");
	snprintf(a.trigger, sizeof a.trigger, "cpu>80%%:5s");
	snprintf(a.unit, sizeof a.unit, "%%");
	snprintf(a.top[0].function, sizeof a.top[0].function, "spikeHash");
	snprintf(a.top[0].where, sizeof a.top[0].where, "server.ts:12");
	a.top[0].self_pct = 61.5;
	snprintf(a.top[1].function, sizeof a.top[1].function, "n\u00e4me \x01");
	a.top[1].self_pct = 3;
	rec = memlog_incident_record(&a, 2);
	ok(write_rec(l, rec, 1) == 0, "incident: record written");
	free(rec);
	/* heap=growing: no number */
	g.value = NAN;
	g.n_top = 0;
	snprintf(g.trigger, sizeof g.trigger, "heap=growing");
	rec = memlog_incident_record(&g, 0);
	ok(strstr(rec, "\"value\":null") != NULL, "incident: growing's value is null (%s)", rec);
	ok(write_rec(l, rec, 2) == 0, "incident: second record written");
	free(rec);
	memlog_close(l);
	/* an older ntop-js's record (no top, no dir, no unit) and bad ones */
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"name\":\"x\",\"trigger\":\"block>300ms\","
		"\"value\":512,\"from\":1,\"to\":9,\"removed\":0}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":6,\"name\":\"y\",\"trigger\":\"heap=growing\","
		"\"value\":1,\"from\":1,\"to\":9,\"removed\":0}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"name\":\"x\",\"value\":1,\"from\":1,"
		"\"to\":9}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"trigger\":\"t\",\"value\":1,\"from\":1,"
		"\"to\":9,\"top\":[{\"function\":\"f\",\"self_pct\":101}]}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"trigger\":\"t\",\"value\":\"big\","
		"\"from\":1,\"to\":9}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"trigger\":\"t\",\"value\":1,\"from\":1,"
		"\"to\":9,\"top\":{}}\n");
	append_str(path, "{\"type\":\"incident\",\"time\":5,\"trigger\":\"\",\"value\":1,\"from\":1,"
		"\"to\":9}\n");
	ok(memlog_replay(path, &h, &seen, &bad, &cause) == 0, "incident: replayed");
	is_int((int)seen.n, 4, "incident: the two written and the two old ones are read");
	is_int((int)bad, 5, "incident: no trigger, a share over 100, a string value, a top that "
		"is not an array and an empty trigger are bad lines");
	ok(seen.s[0].fired_s == a.fired_s && seen.s[0].from_s == a.from_s &&
		seen.s[0].to_s == a.to_s && seen.s[0].value == a.value &&
		strcmp(seen.s[0].name, a.name) == 0 && strcmp(seen.s[0].dir, a.dir) == 0 &&
		strcmp(seen.s[0].trigger, a.trigger) == 0 && strcmp(seen.s[0].unit, "%") == 0,
		"incident: times, value, name, dir, trigger and unit back as written");
	ok(seen.s[0].n_top == 2 && strcmp(seen.s[0].top[0].function, "spikeHash") == 0 &&
		strcmp(seen.s[0].top[0].where, "server.ts:12") == 0 && seen.s[0].top[0].self_pct == 61.5 &&
		strcmp(seen.s[0].top[1].function, a.top[1].function) == 0 &&
		seen.s[0].top[1].where[0] == '\0',
		"incident: its top functions back, names with any byte");
	ok(isnan(seen.s[1].value) && seen.s[1].n_top == 0 && strcmp(seen.s[1].trigger,
		"heap=growing") == 0, "incident: growing back with no value");
	ok(seen.s[2].value == 512 && seen.s[2].n_top == 0 && seen.s[2].dir[0] == '\0' &&
		seen.s[2].unit[0] == '\0', "incident: a record without top, dir and unit is read");
	ok(isnan(seen.s[3].value) && strcmp(seen.s[3].trigger, "heap=growing") == 0,
		"incident: an old heap=growing record's 1 (no unit) is read as no value");
	free(path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/ntop-memlog-XXXXXX", tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_roundtrip(dir);
	test_bad_lines(dir);
	test_long_log(dir);
	test_short_write(dir);
	test_sigkill(dir);
	test_unsafe_paths(dir);
	test_post_gc(dir);
	test_incident(dir);
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);

		ok(system(cmd) == 0, "temporary directory removed");
		free(cmd);
	}
	free(dir);
	return done_testing();
}
