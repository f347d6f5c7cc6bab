/* inbox.c: see inbox.h. */
#include "config.h"

#include "inbox.h"
#include "functab.h"
#include "loop.h"
#include "profile.h"
#include "util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Waiting messages past this many bytes (a peer flooding ntop-js with large messages): wait
 * for the worker and read the rest on the main thread, so memory stays bounded. */
#define INBOX_QUEUE_MAX_BYTES ((size_t)64 << 20)

struct queued {
	struct queued *next;
	char *buf;
	size_t len;
};

/* A large message being read, on the worker or inline. */
struct job {
	char *buf;
	size_t len;
	struct functab *local;  /* the worker's own table; NULL when read inline */
	struct inbox_msg msg;
	struct profile p;
	int prof_rc;
	char *err;
};

struct inbox {
	struct loop *loop;
	struct functab *ft;     /* the session's table: main thread only */
	size_t big;
	inbox_deliver_fn deliver;
	inbox_take_fn take;
	void *ud;
	struct loop_wake *wake; /* the worker signals it when it is done */
	bool watching;
	bool busy;              /* a job runs on the worker */
	atomic_bool job_done;   /* set by the worker as it ends: a stale byte is not a finish */
	pthread_t thread;
	struct job job;         /* written by the main thread before the worker starts, by the
	                           worker until job_done, then by the main thread again */
	struct queued *head, *tail;
	size_t queued_bytes;
	bool inline_only;       /* catching up after a flood */
	unsigned generation;    /* bumped by inbox_drop: a delivery loop in progress stops */
};

/* Checks the envelope and finds the members the receiver asks about (inbox.h). Touches
 * nothing but im, so it can run on the worker. */
static void msg_read(struct inbox_msg *im, const char *data, size_t len)
{
	struct json_span obj = { 0 }, key, v;
	size_t pos = 0;

	im->data = data;
	im->len = len;
	im->valid = json_envelope_parse(data, len, &im->m) == 0;
	if (!im->valid)
		return;
	/* A message with an id is a reply, whatever else it has (session.c reads it so). */
	if (im->m.has_id)
		obj = im->m.result;
	else if (json_string_eq(im->m.method, "Profiler.consoleProfileFinished"))
		obj = im->m.params;
	if (!obj.n || json_span_type(obj) != JSON_T_OBJECT)
		return;
	/* One walk for every member the engine asks about: the title usually comes after a
	 * profile of many MB. The first of duplicate keys counts, as json_object_get() has it. */
	while (json_object_next(obj, &pos, &key, &v) == 1) {
		if (!im->has_profile && json_string_eq(key, "profile")) {
			im->has_profile = true;
			im->profile_json = v;
		} else if (!im->title.n && json_string_eq(key, "title"))
			im->title = v;
		else if (json_string_eq(key, "exceptionDetails"))
			im->has_exception = im->m.has_id;
	}
}

/* Reads a large message and parses the profile it carries. Touches nothing but the job. */
static void job_read(struct job *j, struct functab *ft)
{
	struct inbox_msg *im = &j->msg;

	im->preread = true;
	j->prof_rc = -1;
	msg_read(im, j->buf, j->len);
	if (im->has_profile)
		j->prof_rc = profile_parse(im->profile_json.p, im->profile_json.n, ft, &j->p, &j->err);
}

static void *inbox_thread(void *arg)
{
	struct inbox *ib = arg;
	job_read(&ib->job, ib->job.local);
	atomic_store(&ib->job_done, true);
	loop_wake_signal(ib->wake);
	return NULL;
}

/* Maps the worker's function indices into the session's table. */
static void job_remap(struct job *j, struct functab *ft)
{
	size_t n = functab_count(j->local), i;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof *map);

	for (i = 0; i < n; i++) {
		const struct func_info *fi = functab_get(j->local, (uint32_t)i);
		map[i] = functab_intern(ft, fi->name, strlen(fi->name), fi->url, strlen(fi->url),
			fi->line, fi->column);
		if (fi->deopt_reason)
			functab_set_deopt(ft, map[i], fi->deopt_reason, strlen(fi->deopt_reason));
	}
	for (i = 0; i < j->p.n_nodes; i++)
		j->p.nodes[i].func = map[j->p.nodes[i].func];
	free(map);
}

/* Delivers a read job (unless deliver is false) and frees it. */
static void job_complete(struct inbox *ib, struct job *j, bool deliver)
{
	if (deliver) {
		if (j->msg.has_profile && j->prof_rc == 0) {
			if (j->local)
				job_remap(j, ib->ft);
			j->msg.profile = &j->p;
		} else if (j->msg.has_profile) {
			j->msg.profile_err = j->err ? j->err : "invalid profile";
		}
		ib->deliver(ib->ud, &j->msg);
	}
	if (j->prof_rc == 0)
		profile_release(&j->p);
	free(j->err);
	functab_free(j->local);
	free(j->buf);
}

/* Waits for the worker's job, then delivers it or drops it. */
static void inbox_finish(struct inbox *ib, bool deliver)
{
	struct job j;

	pthread_join(ib->thread, NULL);
	ib->busy = false;
	/* The inbox may be dropped from inside the delivery: the job is no longer its. */
	j = ib->job;
	memset(&ib->job, 0, sizeof ib->job);
	job_complete(ib, &j, deliver);
}

/* Reads a large message (buf is now the inbox's) on the worker, or here if it cannot. */
static void inbox_start(struct inbox *ib, char *buf, size_t len)
{
	struct job j;

	memset(&ib->job, 0, sizeof ib->job);
	ib->job.buf = buf;
	ib->job.len = len;
	if (ib->watching && !ib->inline_only) {
		ib->job.local = functab_create();
		atomic_store(&ib->job_done, false);
		if (pthread_create(&ib->thread, NULL, inbox_thread, ib) == 0) {
			ib->busy = true;
			return;
		}
		functab_free(ib->job.local);
		ib->job.local = NULL;
	}
	j = ib->job;
	memset(&ib->job, 0, sizeof ib->job);
	job_read(&j, ib->ft);
	job_complete(ib, &j, true);
}

static void inbox_deliver_small(struct inbox *ib, const char *data, size_t len)
{
	struct inbox_msg im;

	memset(&im, 0, sizeof im);
	msg_read(&im, data, len);
	ib->deliver(ib->ud, &im);
}

/* Hands on the waiting messages until one needs the worker. */
static void inbox_drain(struct inbox *ib)
{
	unsigned gen = ib->generation;

	while (!ib->busy && ib->head && gen == ib->generation) {
		struct queued *q = ib->head;

		ib->head = q->next;
		if (!ib->head)
			ib->tail = NULL;
		ib->queued_bytes -= q->len;
		if (q->len >= ib->big) {
			inbox_start(ib, q->buf, q->len);
		} else {
			inbox_deliver_small(ib, q->buf, q->len);
			free(q->buf);
		}
		free(q);
	}
}

static void inbox_on_wake(void *ud)
{
	struct inbox *ib = ud;

	if (ib->busy && atomic_load(&ib->job_done)) {
		inbox_finish(ib, true);
		inbox_drain(ib);
	}
}

struct inbox *inbox_create(struct loop *l, struct functab *ft, size_t big_bytes,
	inbox_deliver_fn deliver, inbox_take_fn take, void *ud)
{
	struct inbox *ib = xcalloc(1, sizeof *ib);

	ib->loop = l;
	ib->ft = ft;
	ib->big = big_bytes ? big_bytes : 1;
	ib->deliver = deliver;
	ib->take = take;
	ib->ud = ud;
	atomic_init(&ib->job_done, false);
	ib->wake = loop_wake_create(l, inbox_on_wake, ib);
	ib->watching = ib->wake != NULL;
	return ib;
}

void inbox_drop(struct inbox *ib)
{
	ib->generation++;
	if (ib->busy)
		inbox_finish(ib, false);
	while (ib->head) {
		struct queued *q = ib->head;
		ib->head = q->next;
		free(q->buf);
		free(q);
	}
	ib->tail = NULL;
	ib->queued_bytes = 0;
}

void inbox_free(struct inbox *ib)
{
	if (!ib)
		return;
	inbox_drop(ib); /* joins the worker: nothing signals the wake-up after this */
	loop_wake_free(ib->wake);
	free(ib);
}

bool inbox_busy(const struct inbox *ib)
{
	return ib->busy || ib->head;
}

/* The message being pushed, as a buffer the inbox owns. */
static char *inbox_keep(struct inbox *ib, const char *data, size_t len)
{
	char *buf = ib->take ? ib->take(ib->ud) : NULL;

	if (buf != data) {
		free(buf);
		buf = xmalloc(len + 1);
		memcpy(buf, data, len);
		buf[len] = '\0';
	}
	return buf;
}

void inbox_push(struct inbox *ib, const char *data, size_t len)
{
	if (ib->busy || ib->head) {
		struct queued *q = xmalloc(sizeof *q);

		q->next = NULL;
		q->buf = inbox_keep(ib, data, len);
		q->len = len;
		if (ib->tail)
			ib->tail->next = q;
		else
			ib->head = q;
		ib->tail = q;
		ib->queued_bytes += len;
		if (ib->queued_bytes > INBOX_QUEUE_MAX_BYTES && ib->busy) {
			ib->inline_only = true;
			inbox_finish(ib, true);
			inbox_drain(ib);
			ib->inline_only = false;
		}
		return;
	}
	if (len < ib->big)
		inbox_deliver_small(ib, data, len);
	else
		inbox_start(ib, inbox_keep(ib, data, len), len);
}
