/* memlog.c: see memlog.h. */
#include "config.h"
#include "memlog.h"

/* memlog.c: the --log file and its --replay reader.
 *
 * Each record is one write() of "json\n" to a file opened with O_APPEND, so a kill -9 of
 * ntop-js can at worst tear the one record being written; the kernel keeps what write()
 * accepted even when the process dies, and the fsync at least once a minute covers a crash of
 * the machine. The reader streams the file a chunk at a time (a log can be days long) and
 * never holds more than one line, capped at MEMLOG_LINE_MAX. */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcode.h"
#include "incident.h"
#include "jsonpull.h"
#include "memseries.h"
#include "strbuf.h"
#include "userfile.h"
#include "util.h"

#define MEMLOG_FSYNC_INTERVAL_S 60.0
/* A "window" record lists at most a few hundred functions; anything longer is not ours.
 * Both can be set smaller at build time, as fuzz/Makefile does so that short inputs reach
 * the over-long-line and chunk-boundary paths. */
#ifndef MEMLOG_LINE_MAX
#define MEMLOG_LINE_MAX (4u * 1024 * 1024)
#endif
#ifndef MEMLOG_READ_CHUNK
#define MEMLOG_READ_CHUNK (64u * 1024)
#endif

struct memlog {
	int fd;
	char *path;
	struct strbuf line;
	double last_fsync_s;    /* NAN before the first write */
	bool dirty;
	bool torn;              /* a failed write left part of a line: end it first */
};

static const char *const mem_field[MEM_METRIC_COUNT] = {
	[MEM_RSS] = "rss_bytes",
	[MEM_HEAP_USED] = "heap_used_bytes",
	[MEM_HEAP_TOTAL] = "heap_total_bytes",
	[MEM_EXTERNAL] = "external_bytes",
	[MEM_ARRAY_BUFFERS] = "array_buffers_bytes",
};

/* Writes all of buf, retrying after signals and short writes; *done (if not NULL) counts
 * the bytes that made it. */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	if (done)
		*done = 0;
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
		if (done)
			*done += (size_t)n;
	}
	return 0;
}

/* A previous run killed mid-record leaves a line without its newline; end it, so that only
 * that torn line is lost and not the first record appended after it. */
static int terminate_torn_line(int fd)
{
	struct stat st;
	char c;
	ssize_t n;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	/* read from the descriptor written, never by the name again */
	do
		n = pread(fd, &c, 1, st.st_size - 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c != '\n')
		return write_all(fd, "\n", 1, NULL);
	return 0;     /* write-only file: nothing to check, nothing lost by trying */
}

struct memlog *memlog_open(const char *path, int *status, char **cause)
{
	struct memlog *l;
	int fd, st = EXIT_INTERNAL;

	fd = userfile_open_append(path, "--log", &st, cause);
	if (status)
		*status = st;
	if (fd < 0)
		return NULL;
	if (terminate_torn_line(fd) < 0) {
		*cause = xasprintf("cannot write log %s: %s", path, strerror(errno));
		if (status)
			*status = EXIT_INTERNAL;
		close(fd);
		return NULL;
	}
	l = xcalloc(1, sizeof *l);
	l->fd = fd;
	l->path = xstrdup(path);
	strbuf_init(&l->line);
	l->last_fsync_s = NAN;
	return l;
}

static int memlog_sync(struct memlog *l, char **cause)
{
	if (fsync(l->fd) < 0 && errno != EINVAL && errno != EROFS) {
		/* EINVAL: a pipe or terminal, which cannot be synced and need not be */
		if (cause)
			*cause = xasprintf("cannot sync log %s: %s", l->path, strerror(errno));
		return -1;
	}
	l->dirty = false;
	return 0;
}

int memlog_write(struct memlog *l, const char *json, size_t len, double now_s, char **cause)
{
	size_t done;

	strbuf_reset(&l->line);
	if (l->torn)
		strbuf_putc(&l->line, '\n');
	strbuf_append(&l->line, json, len);
	/* Raw newlines can only be whitespace in valid JSON; they would split the record. */
	for (size_t i = l->torn ? 1 : 0; i < l->line.len; i++)
		if (l->line.data[i] == '\n' || l->line.data[i] == '\r')
			l->line.data[i] = ' ';
	strbuf_putc(&l->line, '\n');
	if (write_all(l->fd, l->line.data, l->line.len, &done) < 0) {
		*cause = xasprintf("cannot write log %s: %s", l->path, strerror(errno));
		/* a disk that filled mid-record: the next record must not be glued to this one */
		if (done > 0)
			l->torn = true;
		return -1;
	}
	l->torn = false;
	l->dirty = true;
	/* The first record is synced at once (the file exists on disk), then once a minute; a
	 * clock that went backwards restarts the minute. */
	if (isnan(l->last_fsync_s) || !isfinite(now_s) || now_s < l->last_fsync_s ||
		now_s - l->last_fsync_s >= MEMLOG_FSYNC_INTERVAL_S) {
		l->last_fsync_s = isfinite(now_s) ? now_s : l->last_fsync_s;
		return memlog_sync(l, cause);
	}
	return 0;
}

char *memlog_mem_record(const struct mem_sample *m)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"type\":\"mem\",\"time\":");
	strbuf_json_double(&sb, m->t_s);
	for (int k = 0; k < MEM_METRIC_COUNT; k++) {
		if (!isfinite(m->v[k]))
			continue;
		strbuf_printf(&sb, ",\"%s\":", mem_field[k]);
		strbuf_json_double(&sb, m->v[k]);
	}
	strbuf_putc(&sb, '}');
	return sb.data;
}

/* ,"key":[v...] */
static void put_numbers(struct strbuf *sb, const char *key, const double *v, size_t n)
{
	strbuf_printf(sb, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_putc(sb, ',');
		strbuf_json_double(sb, v[i]);
	}
	strbuf_putc(sb, ']');
}

char *memlog_post_gc_record(double t_s, double span_s, const double *used, const double *ago_s,
	size_t n)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"type\":\"post_gc\",\"time\":");
	strbuf_json_double(&sb, t_s);
	strbuf_puts(&sb, ",\"span_s\":");
	strbuf_json_double(&sb, span_s < 0 ? -1 : span_s);
	put_numbers(&sb, "used_bytes", used, n);
	if (ago_s)
		put_numbers(&sb, "ago_s", ago_s, n);
	strbuf_putc(&sb, '}');
	return sb.data;
}

static void put_string(struct strbuf *sb, const char *key, const char *v)
{
	strbuf_printf(sb, ",\"%s\":", key);
	strbuf_json_string(sb, v, strlen(v));
}

char *memlog_incident_record(const struct incident_summary *s, size_t removed)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"type\":\"incident\",\"time\":");
	strbuf_json_double(&sb, s->fired_s);
	put_string(&sb, "name", s->name);
	put_string(&sb, "dir", s->dir);
	put_string(&sb, "trigger", s->trigger);
	put_string(&sb, "unit", s->unit);
	strbuf_puts(&sb, ",\"value\":");
	if (isfinite(s->value))
		strbuf_json_double(&sb, s->value);
	else
		strbuf_puts(&sb, "null");
	strbuf_puts(&sb, ",\"from\":");
	strbuf_json_double(&sb, s->from_s);
	strbuf_puts(&sb, ",\"to\":");
	strbuf_json_double(&sb, s->to_s);
	strbuf_printf(&sb, ",\"removed\":%zu,\"top\":[", removed);
	for (size_t i = 0; i < s->n_top && i < INCIDENT_TOP_MAX; i++) {
		strbuf_puts(&sb, i ? ",{\"function\":" : "{\"function\":");
		strbuf_json_string(&sb, s->top[i].function, strlen(s->top[i].function));
		put_string(&sb, "where", s->top[i].where);
		strbuf_puts(&sb, ",\"self_pct\":");
		strbuf_json_double(&sb, s->top[i].self_pct);
		strbuf_putc(&sb, '}');
	}
	strbuf_puts(&sb, "]}");
	return sb.data;
}

void memlog_close(struct memlog *l)
{
	if (!l)
		return;
	if (l->dirty)
		memlog_sync(l, NULL);
	close(l->fd);
	strbuf_free(&l->line);
	free(l->path);
	free(l);
}

/* Replay. */

/* A number member: 1 read, 0 absent (or null), -1 not a number. */
/* Member key of obj: 1 present, 0 absent or null, -1 obj unreadable. The common first step
 * of get_number and get_string. */
static int get_member(struct json_span obj, const char *key, struct json_span *v)
{
	int r = json_object_get(obj, key, v);

	if (r <= 0)
		return r;
	return json_span_type(*v) == JSON_T_NULL ? 0 : 1;
}

static int get_number(struct json_span obj, const char *key, double *out)
{
	struct json_span v;
	int r = get_member(obj, key, &v);

	if (r <= 0)
		return r;
	if (json_number(v, out) < 0 || !isfinite(*out))
		return -1;
	return 1;
}

/* A string member decoded into *out (NULL when absent or null): 0, or -1 if not a string. */
static int get_string(struct json_span obj, const char *key, char **out)
{
	struct json_span v;
	int r = get_member(obj, key, &v);

	*out = NULL;
	if (r <= 0)
		return r;
	if (json_span_type(v) != JSON_T_STRING)
		return -1;
	return json_string_decode(v, out, NULL);
}

static int replay_time(struct json_span obj, double *t_s)
{
	return get_number(obj, "time", t_s) == 1 && *t_s >= 0 ? 0 : -1;
}

static int replay_mem(struct json_span obj, const struct memlog_replay_handlers *h, void *ud)
{
	struct mem_sample m;

	if (replay_time(obj, &m.t_s) < 0)
		return -1;
	for (int k = 0; k < MEM_METRIC_COUNT; k++) {
		int r = get_number(obj, mem_field[k], &m.v[k]);

		if (r < 0 || (r == 1 && m.v[k] < 0))
			return -1;
		if (r == 0)
			m.v[k] = NAN;
	}
	if (h->on_mem)
		h->on_mem(ud, &m);
	return 0;
}

static int replay_attach(struct json_span obj, const struct memlog_replay_handlers *h, void *ud)
{
	struct json_span target;
	char *version = NULL, *title = NULL;
	double t_s, pid = 0;
	int r;

	if (replay_time(obj, &t_s) < 0)
		return -1;
	r = json_object_get(obj, "target", &target);
	if (r < 0 || (r == 1 && json_span_type(target) != JSON_T_OBJECT))
		return -1;
	if (r == 1) {
		if (get_number(target, "pid", &pid) < 0 || pid < 0 || pid > 4194304 ||
			pid != floor(pid) || get_string(target, "node_version", &version) < 0 ||
			get_string(target, "title", &title) < 0) {
			free(version);
			free(title);
			return -1;
		}
	}
	if (h->on_attach)
		h->on_attach(ud, t_s, (int)pid, version ? version : "", title ? title : "");
	free(version);
	free(title);
	return 0;
}

/* An array of numbers into out[0..max-1] (null elements NAN): how many, or -1 if not an array
 * of numbers or longer than max. */
static int get_numbers(struct json_span obj, const char *key, double *out, size_t max)
{
	struct json_span arr, v;
	size_t pos = 0, n = 0;
	int r;

	if (json_object_get(obj, key, &arr) != 1 || json_span_type(arr) != JSON_T_ARRAY)
		return -1;
	while ((r = json_array_next(arr, &pos, &v)) == 1) {
		if (n == max)
			return -1;
		if (json_span_type(v) == JSON_T_NULL)
			out[n] = NAN;
		else if (json_number(v, &out[n]) < 0)
			return -1;
		n++;
	}
	return r < 0 ? -1 : (int)n;
}

static int replay_post_gc(struct json_span obj, const struct memlog_replay_handlers *h, void *ud)
{
	double t_s, span_s, used[MEMSERIES_POST_GC_BATCH_MAX], ago[MEMSERIES_POST_GC_BATCH_MAX];
	int n, n_ago = -1;
	struct json_span v;

	if (replay_time(obj, &t_s) < 0 || get_number(obj, "span_s", &span_s) != 1 ||
	    (span_s < 0 && span_s != -1) || span_s > 86400)
		return -1;
	n = get_numbers(obj, "used_bytes", used, MEMSERIES_POST_GC_BATCH_MAX);
	if (n < 0)
		return -1;
	if (json_object_get(obj, "ago_s", &v) == 1 &&
	    ((n_ago = get_numbers(obj, "ago_s", ago, MEMSERIES_POST_GC_BATCH_MAX)) != n))
		return -1;
	/* sizes and times are checked where they are used (gcseries), as live */
	if (h->on_post_gc)
		h->on_post_gc(ud, t_s, span_s, used, n_ago == n ? ago : NULL, (size_t)n);
	return 0;
}

/* A string member into out (cut to fit): 1 read, 0 absent, -1 not a string. */
static int get_text(struct json_span obj, const char *key, char *out, size_t outsz)
{
	char *v = NULL;

	out[0] = '\0';
	if (get_string(obj, key, &v) < 0)
		return -1;
	if (!v)
		return 0;
	snprintf(out, outsz, "%s", v);
	free(v);
	return 1;
}

static int replay_incident(struct json_span obj, const struct memlog_replay_handlers *h, void *ud)
{
	struct incident_summary s;
	struct json_span top, f;
	size_t pos = 0;
	int r;

	memset(&s, 0, sizeof s);
	if (replay_time(obj, &s.fired_s) < 0 || get_number(obj, "from", &s.from_s) != 1 ||
	    get_number(obj, "to", &s.to_s) != 1 || get_text(obj, "name", s.name, sizeof s.name) < 0 ||
	    get_text(obj, "dir", s.dir, sizeof s.dir) < 0 ||
	    get_text(obj, "trigger", s.trigger, sizeof s.trigger) != 1 || !s.trigger[0] ||
	    get_text(obj, "unit", s.unit, sizeof s.unit) < 0)
		return -1;
	r = get_number(obj, "value", &s.value);
	if (r < 0 || (r == 1 && !isfinite(s.value)) || !isfinite(s.fired_s) ||
	    !isfinite(s.from_s) || !isfinite(s.to_s))
		return -1;
	/* heap=growing reads no number: null, or in records older than the unit, 1 */
	if (r == 0 || (!s.unit[0] && strncasecmp(s.trigger, "heap=", 5) == 0))
		s.value = NAN;
	/* "top" came later: a record without it is an incident with no functions named */
	if (json_object_get(obj, "top", &top) == 1) {
		if (json_span_type(top) != JSON_T_ARRAY)
			return -1;
		while ((r = json_array_next(top, &pos, &f)) == 1) {
			struct incident_top *t = &s.top[s.n_top];

			if (s.n_top == INCIDENT_TOP_MAX)
				break;
			if (json_span_type(f) != JSON_T_OBJECT ||
			    get_text(f, "function", t->function, sizeof t->function) != 1 ||
			    get_text(f, "where", t->where, sizeof t->where) < 0 ||
			    get_number(f, "self_pct", &t->self_pct) != 1 || !(t->self_pct >= 0) ||
			    t->self_pct > 100)
				return -1;
			s.n_top++;
		}
		if (r < 0)
			return -1;
	}
	if (h->on_incident)
		h->on_incident(ud, &s);
	return 0;
}

/* One line without its newline: 0 handled (or a type this version does not know), -1 bad. */
static int replay_line(const char *p, size_t n, const struct memlog_replay_handlers *h, void *ud)
{
	struct json_span obj, type;
	double t_s;

	if (json_validate(p, n, &obj) < 0 || json_span_type(obj) != JSON_T_OBJECT)
		return -1;
	if (json_object_get(obj, "type", &type) != 1 || json_span_type(type) != JSON_T_STRING)
		return -1;
	if (json_string_eq(type, "mem"))
		return replay_mem(obj, h, ud);
	if (json_string_eq(type, "attach"))
		return replay_attach(obj, h, ud);
	if (json_string_eq(type, "post_gc"))
		return replay_post_gc(obj, h, ud);
	if (json_string_eq(type, "incident"))
		return replay_incident(obj, h, ud);
	if (json_string_eq(type, "gap") || json_string_eq(type, "target_exit")) {
		if (replay_time(obj, &t_s) < 0)
			return -1;
		if (h->on_gap)
			h->on_gap(ud, t_s);
		return 0;
	}
	if (json_string_eq(type, "window")) {
		if (h->on_window)
			h->on_window(ud, p, n);
		return 0;
	}
	return 0;   /* a record type from a newer ntop-js: skipped, not an error */
}

static bool only_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

int memlog_replay(const char *path, const struct memlog_replay_handlers *h, void *ud,
	size_t *bad, char **cause)
{
	char *buf;
	size_t cap = MEMLOG_LINE_MAX + MEMLOG_READ_CHUNK, len = 0, nbad = 0;
	bool skipping = false;     /* inside a line longer than the cap: drop up to its newline */
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*cause = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	/* one buffer for the longest line plus a chunk; malloc'd pages stay untouched until a
	 * line that long shows up */
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;
		size_t start = 0;

		n = read(fd, buf + len, cap - len < MEMLOG_READ_CHUNK ? cap - len : MEMLOG_READ_CHUNK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		for (;;) {
			char *nl = memchr(buf + start, '\n', len - start);
			size_t ln;

			if (!nl)
				break;
			ln = (size_t)(nl - (buf + start));
			if (skipping)
				skipping = false;
			else if (ln > MEMLOG_LINE_MAX)
				nbad++;
			else if (!only_space(buf + start, ln) && replay_line(buf + start, ln, h, ud) < 0)
				nbad++;
			start += ln + 1;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len > MEMLOG_LINE_MAX) {
			/* no newline within the cap: count the line once and drop the rest of it */
			if (!skipping)
				nbad++;
			skipping = true;
			len = 0;
		}
	}
	close(fd);
	/* the last line without a newline: a complete record is kept; a torn one (a crash
	 * mid-write) is dropped without complaint */
	if (!skipping && len > 0 && !only_space(buf, len)) {
		struct json_span v;

		if (json_validate(buf, len, &v) == 0)
			nbad += replay_line(buf, len, h, ud) < 0;
	}
	free(buf);
	if (bad)
		*bad = nbad;
	return 0;
}
