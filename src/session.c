/* session.c: see session.h. */
#include "config.h"

#include "session.h"
#include "jsonpull.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct pending {
	long long id;
	double deadline_s;
	session_reply_fn cb;
	void *ud;
};

struct session {
	session_send_fn send;
	void *transport;
	session_event_fn on_event;
	void *event_ud;
	long long next_id;
	struct pending *pending; /* few at a time: a linear search is the right structure */
	size_t n_pending, cap_pending;
	size_t unmatched, forged;
	struct strbuf out;
};

struct session *session_create(session_send_fn send, void *transport)
{
	struct session *s = xcalloc(1, sizeof *s);

	s->send = send;
	s->transport = transport;
	s->next_id = 1;
	strbuf_init(&s->out);
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	free(s->pending);
	strbuf_free(&s->out);
	free(s);
}

void session_set_event_handler(struct session *s, session_event_fn fn, void *ud)
{
	s->on_event = fn;
	s->event_ud = ud;
}

long long session_call(struct session *s, const char *method, const char *params_json,
	double now_s, double timeout_s, session_reply_fn cb, void *ud)
{
	long long id = s->next_id++;
	struct pending *p;

	strbuf_reset(&s->out);
	strbuf_printf(&s->out, "{\"id\":%lld,\"method\":", id);
	strbuf_json_string(&s->out, method, strlen(method));
	if (params_json) {
		strbuf_puts(&s->out, ",\"params\":");
		strbuf_puts(&s->out, params_json);
	}
	strbuf_putc(&s->out, '}');
	if (s->send(s->transport, s->out.data, s->out.len) < 0)
		return -1;
	s->pending = xreallocarray_grow(s->pending, &s->cap_pending, s->n_pending + 1,
		sizeof *s->pending);
	p = &s->pending[s->n_pending++];
	p->id = id;
	p->deadline_s = now_s + timeout_s;
	p->cb = cb;
	p->ud = ud;
	return id;
}

/* Removes pending entry i and returns it (its callback is the caller's to run: a callback
 * may issue new calls, which may move the array). */
static struct pending session_take(struct session *s, size_t i)
{
	struct pending p = s->pending[i];

	memmove(&s->pending[i], &s->pending[i + 1], (s->n_pending - i - 1) * sizeof *s->pending);
	s->n_pending--;
	return p;
}

int session_feed(struct session *s, const char *data, size_t len)
{
	struct protocol_msg m;

	if (json_envelope_parse(data, len, &m) < 0)
		return -1;
	return session_dispatch(s, &m);
}

int session_dispatch(struct session *s, const struct protocol_msg *m)
{
	size_t i;

	if (m->has_id) {
		for (i = 0; i < s->n_pending; i++) {
			if (s->pending[i].id == m->id) {
				struct pending p = session_take(s, i);
				p.cb(p.ud, SESSION_REPLY, m);
				return 0;
			}
		}
		/* A reply to nothing we asked (late after a timeout, duplicated, or forged). */
		s->unmatched++;
		if (m->id < 1 || m->id >= s->next_id)
			s->forged++;
		return 0;
	}
	if (m->method.n == 0)
		return -1;
	if (s->on_event)
		s->on_event(s->event_ud, m);
	return 0;
}

double session_expire(struct session *s, double now_s)
{
	double earliest = 0;
	size_t i = 0;

	while (i < s->n_pending) {
		if (s->pending[i].deadline_s <= now_s) {
			struct pending p = session_take(s, i);
			p.cb(p.ud, SESSION_TIMEOUT, NULL);
			i = 0; /* the callback may have changed the list */
			earliest = 0;
			continue;
		}
		if (earliest == 0 || s->pending[i].deadline_s < earliest)
			earliest = s->pending[i].deadline_s;
		i++;
	}
	return earliest;
}

void session_close(struct session *s)
{
	while (s->n_pending) {
		struct pending p = session_take(s, 0);
		p.cb(p.ud, SESSION_CLOSED, NULL);
	}
}

size_t session_pending(const struct session *s)
{
	return s->n_pending;
}

size_t session_unmatched_replies(const struct session *s)
{
	return s->unmatched;
}

size_t session_forged_replies(const struct session *s)
{
	return s->forged;
}
