/* smapcache.c: see smapcache.h. The hand-over is inbox.c's: the main thread writes the job
 * before pthread_create, the worker sets job_done and calls notify, the main thread reads the
 * job only after pthread_join, which it calls only once job_done is set (so it never waits
 * for a read). No mutex. The job owns what it reads through (a copy of the reader, the path),
 * so a job dropped by smapcache_set_reader runs on to its end, unseen. */
#include "config.h"

#include "smapcache.h"
#include "asuser.h"
#include "smapfind.h"
#include "util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMAPCACHE_BUCKETS 1024 /* a power of two */

enum entry_state { E_QUEUED, E_LOADING, E_MAPPED, E_FAILED };
/* What an entry holds: a script's map, or a file's text (the hot lines'). */
enum entry_kind { K_MAP, K_TEXT };

struct entry {
	struct entry *hnext;           /* hash chain */
	struct entry *newer, *older;   /* the recency list */
	struct entry *qnext;           /* the load queue */
	char *url;
	enum entry_kind kind;
	enum entry_state state;
	struct sourcemap *map;
	char *text;                    /* K_TEXT, once loaded */
	size_t text_len;
	size_t bytes;
	char *reason;
};

/* A load on the worker: it touches nothing else. */
struct job {
	struct asuser *reader;       /* a copy of the cache's, or NULL */
	enum entry_kind kind;
	char *url;                   /* a copy of the entry's */
	struct sourcemap *map;
	char *text;
	size_t text_len;
	char *err;
};

struct smapcache {
	const struct asuser *reader;
	size_t max_bytes;
	void (*notify)(void *ud);
	void *ud;
	struct entry *buckets[SMAPCACHE_BUCKETS];
	struct entry *newest, *oldest;
	size_t entries;
	struct entry *qhead, *qtail;
	struct entry *loading;       /* the entry the worker loads, or NULL (none, or dropped) */
	bool running;                /* a worker was started and is not joined yet */
	pthread_t thread;
	atomic_bool job_done;
	struct job job;
	struct smapcache_stats st;
};

static const char NOT_MAPPED[] = "the position is not in the source map.";

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void lru_unlink(struct smapcache *c, struct entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void lru_touch(struct smapcache *c, struct entry *e)
{
	if (c->newest == e)
		return;
	if (e->newer || e->older || c->oldest == e)
		lru_unlink(c, e);
	e->older = c->newest;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (!c->oldest)
		c->oldest = e;
}

static void entry_remove(struct smapcache *c, struct entry *e)
{
	struct entry **pp = &c->buckets[hash(e->url) & (SMAPCACHE_BUCKETS - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	lru_unlink(c, e);
	if (e->state == E_MAPPED) {
		c->st.maps -= e->kind == K_MAP;
		c->st.bytes -= e->bytes;
	} else if (e->state == E_FAILED) {
		c->st.failures--;
	}
	c->entries--;
	sourcemap_free(e->map);
	free(e->text);
	free(e->reason);
	free(e->url);
	free(e);
}

/* Drops the least recently used settled entries until the maps fit the budget and the entries
 * their count; in-flight ones (queued, loading) and keep stay. */
static void evict(struct smapcache *c, const struct entry *keep)
{
	struct entry *e = c->oldest, *newer;

	while (e && (c->st.bytes > c->max_bytes || c->entries > SMAPCACHE_MAX_ENTRIES)) {
		newer = e->newer;
		if (e != keep && (e->state == E_MAPPED ||
				(e->state == E_FAILED && c->entries > SMAPCACHE_MAX_ENTRIES))) {
			if (e->state == E_MAPPED)
				c->st.evictions++;
			entry_remove(c, e);
		}
		e = newer;
	}
}

static void *load_thread(void *arg)
{
	struct smapcache *c = arg;
	struct job *j = &c->job;

	if (j->err)
		; /* the reader could not be copied */
	else if (!j->reader)
		j->err = xstrdup("the target's files cannot be read: its root and user were not "
			"taken at attach.");
	else if (j->kind == K_TEXT)
		asuser_read(j->reader, j->url, SMAPCACHE_TEXT_MAX_BYTES, false, ASUSER_TIMEOUT_S,
			&j->text, &j->text_len, &j->err);
	else
		j->map = smapfind_load(j->reader, j->url, &j->err);
	atomic_store(&c->job_done, true);
	if (c->notify)
		c->notify(c->ud);
	return NULL;
}

/* Frees what a joined job holds. */
static void job_clear(struct job *j)
{
	asuser_free(j->reader);
	free(j->url);
	sourcemap_free(j->map);
	free(j->text);
	free(j->err);
	memset(j, 0, sizeof *j);
}

static void start_next(struct smapcache *c)
{
	struct entry *e;

	while (!c->running && (e = c->qhead)) {
		c->qhead = e->qnext;
		if (!c->qhead)
			c->qtail = NULL;
		e->qnext = NULL;
		memset(&c->job, 0, sizeof c->job);
		if (c->reader)
			c->job.reader = asuser_dup(c->reader, &c->job.err);
		c->job.kind = e->kind;
		c->job.url = xstrdup(e->url);
		atomic_store(&c->job_done, false);
		e->state = E_LOADING;
		c->loading = e;
		c->running = true;
		c->st.loads++;
		if (pthread_create(&c->thread, NULL, load_thread, c) != 0) {
			job_clear(&c->job);
			c->loading = NULL;
			c->running = false;
			e->state = E_FAILED;
			e->reason = xstrdup("cannot start a thread to read the target's files.");
			c->st.failures++;
		}
	}
}

/* "41.8 MB", "5 KB": for messages. */
static const char *size_text(size_t n, char *buf, size_t cap)
{
	if (n >= ((size_t)1 << 20))
		snprintf(buf, cap, "%.1f MB", (double)n / (1 << 20));
	else
		snprintf(buf, cap, "%zu KB", (n + 1023) / 1024);
	return buf;
}

bool smapcache_poll(struct smapcache *c)
{
	struct entry *e = c->loading;

	if (!c->running || !atomic_load(&c->job_done))
		return false;
	/* the worker only returns after job_done: this does not wait for a read */
	pthread_join(c->thread, NULL);
	c->running = false;
	c->loading = NULL;
	if (!e) {
		/* dropped by smapcache_set_reader: read as another process */
		job_clear(&c->job);
		start_next(c);
		return true;
	}
	if (c->job.map && sourcemap_bytes(c->job.map) > c->max_bytes) {
		char a[32], b[32];
		e->reason = xasprintf("the source map takes %s, more than the %s allowed.",
			size_text(sourcemap_bytes(c->job.map), a, sizeof a),
			size_text(c->max_bytes, b, sizeof b));
		sourcemap_free(c->job.map);
		c->job.map = NULL;
		free(c->job.err);
	} else if (!c->job.map && !c->job.text) {
		e->reason = c->job.err ? c->job.err : xstrdup("the file cannot be read.");
	}
	c->job.err = NULL;
	if (c->job.map || c->job.text) {
		e->state = E_MAPPED;
		e->map = c->job.map;
		e->text = c->job.text;
		e->text_len = c->job.text_len;
		e->bytes = e->map ? sourcemap_bytes(e->map) : e->text_len + sizeof *e;
		c->st.maps += e->kind == K_MAP;
		c->st.bytes += e->bytes;
		evict(c, e);
	} else {
		e->state = E_FAILED;
		c->st.failures++;
	}
	c->job.map = NULL;
	c->job.text = NULL;
	job_clear(&c->job);
	start_next(c);
	return true;
}

struct smapcache *smapcache_create(const struct asuser *reader, size_t max_bytes,
	void (*notify)(void *ud), void *ud)
{
	struct smapcache *c = xcalloc(1, sizeof *c);

	c->reader = reader;
	c->max_bytes = max_bytes;
	c->notify = notify;
	c->ud = ud;
	atomic_init(&c->job_done, false);
	return c;
}

void smapcache_free(struct smapcache *c)
{
	if (!c)
		return;
	if (c->running) {
		pthread_join(c->thread, NULL);
		job_clear(&c->job);
	}
	while (c->oldest)
		entry_remove(c, c->oldest);
	free(c);
}

static struct entry *find(struct smapcache *c, const char *url, enum entry_kind kind)
{
	struct entry *e = c->buckets[hash(url) & (SMAPCACHE_BUCKETS - 1)];
	while (e && (e->kind != kind || strcmp(e->url, url)))
		e = e->hnext;
	return e;
}

/* A new entry for key: failed at once with why, or queued for the worker. */
static struct entry *entry_add(struct smapcache *c, const char *key, enum entry_kind kind,
	char *why)
{
	uint32_t b = hash(key) & (SMAPCACHE_BUCKETS - 1);
	struct entry *e = xcalloc(1, sizeof *e);

	e->url = xstrdup(key);
	e->kind = kind;
	e->hnext = c->buckets[b];
	c->buckets[b] = e;
	c->entries++;
	if (why) {
		e->state = E_FAILED;
		e->reason = why;
		c->st.failures++;
	} else {
		e->state = E_QUEUED;
		if (c->qtail)
			c->qtail->qnext = e;
		else
			c->qhead = e;
		c->qtail = e;
	}
	lru_touch(c, e);
	evict(c, e);
	start_next(c);
	return e;
}

enum smapcache_status smapcache_lookup(struct smapcache *c, const char *url, uint32_t line0,
	uint32_t col0, struct smapcache_result *out)
{
	struct entry *e;

	memset(out, 0, sizeof *out);
	/* one entry per file, whichever way a frame names it (file:///x or /x): keyed by the
	 * path (a normalised one is found as it is, without the work) */
	char *path = NULL, *why = NULL;
	int known = 1;
	const char *key = url;
	e = find(c, url, K_MAP);
	if (!e) {
		known = smapfind_url_path(url, &path, &why) == 0;
		key = known ? path : url;
		e = find(c, key, K_MAP);
	}
	if (!e) {
		/* node:internal/..., eval code: no file to read, known at once */
		e = entry_add(c, key, K_MAP, known ? NULL : why);
		why = NULL;
	} else {
		lru_touch(c, e);
	}
	free(path);
	free(why);
	switch (e->state) {
	case E_QUEUED:
	case E_LOADING:
		return SMAPCACHE_PENDING;
	case E_FAILED:
		out->reason = e->reason;
		return SMAPCACHE_NONE;
	case E_MAPPED:
		break;
	}
	if (!sourcemap_lookup(e->map, line0, col0, &out->pos)) {
		out->reason = NOT_MAPPED;
		return SMAPCACHE_NONE;
	}
	out->map = e->map;
	return SMAPCACHE_MAPPED;
}

bool smapcache_busy(const struct smapcache *c)
{
	return c->running || c->qhead;
}

void smapcache_get_stats(const struct smapcache *c, struct smapcache_stats *st)
{
	*st = c->st;
}

enum smapcache_status smapcache_text(struct smapcache *c, const char *path, const char **text,
	size_t *len, const char **reason)
{
	struct entry *e = find(c, path, K_TEXT);

	*text = *reason = NULL;
	*len = 0;
	if (!e)
		e = entry_add(c, path, K_TEXT, NULL);
	else
		lru_touch(c, e);
	switch (e->state) {
	case E_QUEUED:
	case E_LOADING:
		return SMAPCACHE_PENDING;
	case E_FAILED:
		*reason = e->reason;
		return SMAPCACHE_NONE;
	case E_MAPPED:
		break;
	}
	*text = e->text;
	*len = e->text_len;
	return SMAPCACHE_MAPPED;
}

void smapcache_set_reader(struct smapcache *c, const struct asuser *reader)
{
	struct entry *e, *older, *loading = c->loading;

	/* a load in progress reads as the last process: its answer is not this one's. It is not
	 * waited for (a hung mount would hold the loop): it runs on with its own copy of the
	 * last reader, and smapcache_poll drops its answer; its entry waits for the next load. */
	c->loading = NULL;
	c->reader = reader;
	for (e = c->newest; e; e = older) {
		older = e->older;
		if (e != loading && (e->state == E_MAPPED || e->state == E_FAILED))
			entry_remove(c, e);
	}
	if (loading) {
		loading->state = E_QUEUED;
		loading->qnext = c->qhead;
		c->qhead = loading;
		if (!c->qtail)
			c->qtail = loading;
	}
	start_next(c);
}
