/* engine_workers.c: the target's worker threads, reached through the main thread's session.
 *
 * Node's inspector reports every worker of the process (nested ones too, all to the main
 * thread's session) once NodeWorker.enable is sent with waitForDebuggerOnStart false (true
 * would hold every new worker at its start): attachedToWorker names each, with a session id;
 * a message for a worker goes in NodeWorker.sendMessageToWorker, its replies and events come
 * back in receivedMessageFromWorker, and detachedFromWorker says it exited. A worker's
 * session has the whole protocol (Profiler, HeapProfiler, Runtime) on its own isolate, but
 * not NodeWorker (Node 18-26 answer "wasn't found").
 *
 * So each worker is a transport (engine.h's struct engine_transport) over the main engine's
 * session: the application runs a whole engine on it, unchanged, and the worker's profiles,
 * memory and loop are read as the main thread's are. The main engine only routes. */
#include "config.h"

#include "engine_priv.h"
#include "jsonpull.h"
#include "strbuf.h"
#include "transport.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The target's worker threads: a channel each. */
struct engine_workers {
	struct worker_chan **chans;
	size_t n, cap;
	bool enabled;                 /* NodeWorker.enable was sent in this session */
	bool over_limit_said;
};

/* More than any real pool; beyond it workers are left alone (a notice says so). */
#define WORKERS_MAX 1024

struct worker_chan {
	struct engine *parent;            /* NULL once the main engine is freed */
	char session_id[64];
	struct engine_worker_info info;
	const struct transport_handlers *h;  /* the worker's engine, once it connects */
	void *ud;
	bool connected;
	bool closed;                      /* on_closed was (or is about to be) delivered */
	char *close_why;
	struct engine_timer *timer;       /* delivers on_open and on_closed outside the caller */
	char *msg;                        /* the message being delivered, for take_message */
};

/* ---- the channel as a transport ---- */

static void chan_on_timer(void *ud)
{
	struct worker_chan *c = ud;

	if (!c->h)
		return;
	if (c->closed)
		c->h->on_closed(c->ud, c->close_why ? c->close_why : "the worker's session ended");
	else
		c->h->on_open(c->ud);
}

static void chan_timer_arm(struct worker_chan *c)
{
	if (c->timer)
		c->parent->clock.timer_arm(c->timer, 0);
}

/* The worker is gone (or the main session is): its engine hears it once. */
static void chan_close(struct worker_chan *c, const char *why)
{
	if (c->closed)
		return;
	c->closed = true;
	free(c->close_why);
	c->close_why = xstrdup(why);
	if (c->connected && c->parent)
		chan_timer_arm(c);
}

static void *chan_connect(void *ctx, const struct attach_result *target, size_t max_message_bytes,
	const struct transport_handlers *h, void *ud, char **cause)
{
	struct worker_chan *c = ctx;

	(void)target;
	(void)max_message_bytes;
	if (c->connected) {
		*cause = xstrdup("the worker thread already has a session.");
		return NULL;
	}
	if (!c->parent || c->closed) {
		*cause = xstrdup("the worker thread exited.");
		return NULL;
	}
	c->h = h;
	c->ud = ud;
	c->connected = true;
	chan_timer_arm(c); /* on_open, once engine_start has the connection */
	return c;
}

static void chan_on_sent(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* A worker that exited meanwhile makes the main session answer with an error; its own
	 * engine learns of the exit from detachedFromWorker. */
	(void)ud;
	(void)o;
	(void)m;
}

static int chan_call(struct worker_chan *c, const char *method, const char *data, size_t len)
{
	struct engine *p = c->parent;
	struct strbuf params;
	long long id;

	if (!p || !p->sess || p->state == ST_DONE)
		return -1;
	strbuf_init(&params);
	strbuf_puts(&params, "{\"sessionId\":");
	strbuf_json_string(&params, c->session_id, strlen(c->session_id));
	if (data) {
		strbuf_puts(&params, ",\"message\":");
		strbuf_json_string(&params, data, len);
	}
	strbuf_putc(&params, '}');
	id = session_call(p->sess, method, params.data, engine_mono_s(p), p->cfg.timeout_s,
		chan_on_sent, NULL);
	strbuf_free(&params);
	if (id < 0)
		return -1;
	engine_arm_expiry(p);
	return 0;
}

static int chan_send(void *conn, const char *data, size_t len)
{
	struct worker_chan *c = conn;

	if (c->closed)
		return -1;
	return chan_call(c, "NodeWorker.sendMessageToWorker", data, len);
}

static char *chan_take_message(void *conn)
{
	struct worker_chan *c = conn;
	char *m = c->msg;

	c->msg = NULL;
	return m;
}

static bool chan_too_large(const void *conn)
{
	(void)conn;
	return false; /* the main session's own limit applies to the wrapped message */
}

static void chan_close_request(void *conn)
{
	struct worker_chan *c = conn;

	if (c->closed)
		return;
	/* Detaching ends the worker's session, and with it what the session had started. */
	chan_call(c, "NodeWorker.detach", NULL, 0);
	chan_close(c, "closed by ntop-js");
}

static void chan_unlink(struct worker_chan *c)
{
	struct engine_workers *w;

	if (!c->parent)
		return;
	w = c->parent->workers;
	for (size_t i = 0; i < w->n; i++)
		if (w->chans[i] == c) {
			w->chans[i] = w->chans[--w->n];
			break;
		}
}

static void chan_free(void *conn)
{
	struct worker_chan *c = conn;

	chan_unlink(c);
	if (c->timer && c->parent)
		c->parent->clock.timer_free(c->timer);
	free(c->close_why);
	free(c->msg);
	free(c);
}

/* ---- the main engine's side ---- */

static struct worker_chan *chan_find(struct engine *e, struct json_span params)
{
	struct json_span sid;
	char id[64];
	long n;

	if (json_object_get(params, "sessionId", &sid) != 1 || json_span_type(sid) != JSON_T_STRING ||
	    sid.n > sizeof id)
		return NULL;
	n = json_string_decode_into(sid, id);
	if (n < 0 || (size_t)n >= sizeof id)
		return NULL;
	id[n] = '\0';
	/* A closed channel's id may come back: Node numbers a session's workers from 1, and a
	 * new session (--follow) starts again. */
	for (size_t i = 0; i < e->workers->n; i++)
		if (!e->workers->chans[i]->closed && strcmp(e->workers->chans[i]->session_id, id) == 0)
			return e->workers->chans[i];
	return NULL;
}

/* "[worker 3] pool" (Node's title for a worker): thread id 3, name "pool". */
static void worker_title(const char *title, struct engine_worker_info *info)
{
	const char *p = title;
	long id = 0;

	info->thread_id = -1;
	util_sanitize(title, strlen(title), info->name, sizeof info->name);
	if (strncmp(p, "[worker ", 8) != 0)
		return;
	p += 8;
	if (!isdigit((unsigned char)*p))
		return;
	while (isdigit((unsigned char)*p) && id < 100000000)
		id = id * 10 + (*p++ - '0');
	if (*p != ']')
		return;
	p++;
	while (*p == ' ')
		p++;
	info->thread_id = id;
	util_sanitize(p, strlen(p), info->name, sizeof info->name);
}

static void workers_attached(struct engine *e, struct json_span params)
{
	struct engine_workers *w = e->workers;
	struct json_span sid, info;
	struct worker_chan *c;
	struct engine_transport tp;
	char type[32], title[300];
	long n;

	if (!e->h->on_worker || e->state == ST_LEAVING || e->state == ST_DONE)
		return;
	if (json_object_get(params, "sessionId", &sid) != 1 || json_span_type(sid) != JSON_T_STRING ||
	    json_object_get(params, "workerInfo", &info) != 1 || json_span_type(info) != JSON_T_OBJECT)
		return;
	if (chan_find(e, params))
		return; /* reported twice */
	engine_member_text(info, "type", type, sizeof type);
	if (strcmp(type, "worker") != 0)
		return;
	if (w->n >= WORKERS_MAX) {
		if (!w->over_limit_said) {
			char *msg = xasprintf("the target has more than %d worker threads: the others "
				"are not profiled.", WORKERS_MAX);
			w->over_limit_said = true;
			e->h->on_notice(e->ud, msg);
			free(msg);
		}
		return;
	}
	c = xcalloc(1, sizeof *c);
	if (sid.n > sizeof c->session_id || (n = json_string_decode_into(sid, c->session_id)) < 0 ||
	    (size_t)n >= sizeof c->session_id || !n) {
		free(c);
		return;
	}
	c->session_id[n] = '\0';
	c->parent = e;
	engine_member_text(info, "title", title, sizeof title);
	worker_title(title, &c->info);
	engine_member_text(info, "url", c->info.url, sizeof c->info.url);
	c->timer = e->clock.timer_create(e->clock.ctx, chan_on_timer, c);
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 8;
		w->chans = xrealloc(w->chans, w->cap * sizeof *w->chans);
	}
	w->chans[w->n++] = c;
	tp.connect = chan_connect;
	tp.send = chan_send;
	tp.take_message = chan_take_message;
	tp.too_large = chan_too_large;
	tp.close = chan_close_request;
	tp.free = chan_free;
	tp.ctx = c;
	e->h->on_worker(e->ud, &c->info, &tp);
}

static void workers_detached(struct engine *e, struct json_span params)
{
	struct worker_chan *c = chan_find(e, params);

	if (!c)
		return;
	if (!c->connected) {
		chan_free(c);
		return;
	}
	chan_close(c, "the worker thread exited");
}

static void workers_message(struct engine *e, struct json_span params)
{
	struct worker_chan *c = chan_find(e, params);
	struct json_span msg;
	char *text = NULL;
	size_t len = 0;

	if (!c || !c->connected || c->closed)
		return;
	if (json_object_get(params, "message", &msg) != 1 || json_span_type(msg) != JSON_T_STRING ||
	    json_string_decode(msg, &text, &len) != 0)
		return;
	c->msg = text;
	c->h->on_message(c->ud, text, len);
	free(c->msg); /* unless the worker's engine took it */
	c->msg = NULL;
}

bool engine_workers_event(struct engine *e, const struct protocol_msg *m)
{
	if (json_string_eq(m->method, "NodeWorker.receivedMessageFromWorker"))
		workers_message(e, m->params);
	else if (json_string_eq(m->method, "NodeWorker.attachedToWorker"))
		workers_attached(e, m->params);
	else if (json_string_eq(m->method, "NodeWorker.detachedFromWorker"))
		workers_detached(e, m->params);
	else
		return false;
	return true;
}

static void workers_on_enabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Every Node since 12 has NodeWorker; an inspector without it (not Node's) simply has
	 * no workers to report: nothing worth a notice on every run. */
	(void)ud;
	(void)o;
	(void)m;
}

void engine_workers_init(struct engine *e)
{
	e->workers = xcalloc(1, sizeof *e->workers);
}

void engine_workers_start(struct engine *e)
{
	if (!e->cfg.workers || !e->h->on_worker || e->workers->enabled || !e->sess)
		return;
	e->workers->enabled = true;
	engine_call_timeout(e, "NodeWorker.enable", "{\"waitForDebuggerOnStart\":false}",
		e->cfg.timeout_s, workers_on_enabled);
}

void engine_workers_session_ended(struct engine *e, const char *why)
{
	struct engine_workers *w = e->workers;

	w->enabled = false;
	w->over_limit_said = false;
	for (size_t i = w->n; i-- > 0;) {
		struct worker_chan *c = w->chans[i];

		if (!c->connected)
			chan_free(c);
		else
			chan_close(c, why);
	}
}

void engine_workers_free(struct engine *e)
{
	struct engine_workers *w = e->workers;

	/* Channels still held by a worker's engine outlive the main one: they only say closed. */
	for (size_t i = 0; i < w->n; i++) {
		struct worker_chan *c = w->chans[i];

		if (c->timer)
			e->clock.timer_free(c->timer);
		c->timer = NULL;
		c->closed = true;
		c->parent = NULL;
		if (!c->connected)
			chan_free(c);
	}
	free(w->chans);
	free(w);
	e->workers = NULL;
}

