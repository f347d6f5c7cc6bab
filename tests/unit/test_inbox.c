/* Unit tests for the inbox: small messages are handed on at once; a large one is read on the
 * worker thread and comes back on the event loop with its profile exactly as profile_parse()
 * makes it (functions in the session's table), and the messages that came meanwhile follow it
 * in order; invalid messages and profiles are reported, not dropped; a flood is read inline;
 * dropping or freeing the inbox discards what it holds. */
#include "config.h"

#include "fixture.h"
#include "functab.h"
#include "inbox.h"
#include "loop.h"
#include "profile.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 4096

struct result {
	struct loop *loop;
	struct functab *ft;
	int calls;
	char order[64];          /* one letter a delivery: see tag() */
	bool valid, preread, has_profile, profile_ok, has_exception;
	size_t n_nodes, n_samples;
	uint32_t func_of_node5;
	char title[64];
	char err[200];
	const char *data;
	int stop_after;          /* loop_stop() after this many deliveries */
	char *taken;             /* what take() gave away */
	char *offer;             /* what take() gives */
};

/* A delivery's letter: the method's first letter after the dot, 'r' for a reply, '!' for an
 * invalid message. */
static char tag(const struct inbox_msg *im)
{
	const char *dot;

	if (!im->valid)
		return '!';
	if (im->m.has_id)
		return 'r';
	dot = memchr(im->m.method.p, '.', im->m.method.n);
	return dot ? dot[1] : '?';
}

static void on_deliver(void *ud, struct inbox_msg *im)
{
	struct result *r = ud;
	char *t = NULL;

	if ((size_t)r->calls + 1 < sizeof r->order)
		r->order[r->calls] = tag(im);
	r->calls++;
	r->valid = im->valid;
	r->preread = im->preread;
	r->has_profile = im->has_profile;
	r->profile_ok = im->profile != NULL;
	r->has_exception = im->has_exception;
	r->data = im->data;
	r->title[0] = r->err[0] = '\0';
	if (im->title.n && json_string_decode(im->title, &t, NULL) == 0)
		snprintf(r->title, sizeof r->title, "%s", t);
	free(t);
	if (im->profile) {
		r->n_nodes = im->profile->n_nodes;
		r->n_samples = im->profile->n_samples;
		r->func_of_node5 = im->profile->n_nodes > 5 ? im->profile->nodes[5].func : 0;
	}
	if (im->profile_err)
		snprintf(r->err, sizeof r->err, "%s", im->profile_err);
	if (r->stop_after && r->calls >= r->stop_after)
		loop_stop(r->loop);
}

static char *on_take(void *ud)
{
	struct result *r = ud;
	char *b = r->offer;

	r->offer = NULL;
	r->taken = b;
	return b;
}

/* A consoleProfileFinished event around profile (its title after it, as V8 sends it). */
static char *finished_event(const char *profile, const char *title)
{
	return xasprintf("{\"method\":\"Profiler.consoleProfileFinished\",\"params\":{\"id\":\"1\","
		"\"location\":{\"scriptId\":\"0\",\"lineNumber\":0,\"columnNumber\":0},"
		"\"profile\":%s,\"title\":\"%s\"}}", profile, title);
}

/* An event whose params hold a string of n bytes. */
static char *padded_event(const char *method, size_t n)
{
	char *pad = xmalloc(n + 1), *msg;

	memset(pad, 'a', n);
	pad[n] = '\0';
	msg = xasprintf("{\"method\":\"%s\",\"params\":{\"s\":\"%s\"}}", method, pad);
	free(pad);
	return msg;
}

static void push(struct inbox *ib, const char *msg)
{
	inbox_push(ib, msg, strlen(msg));
}

static void run_until(struct result *r, int calls)
{
	if (r->calls >= calls)
		return;
	r->stop_after = calls;
	loop_run(r->loop);
	r->stop_after = 0;
}

int main(void)
{
	struct result r = { 0 };
	char *cause = NULL, *json, *ev, *bad_ev, *reply, *notjson, *other, *owned;
	size_t len = 0;
	struct functab *ft_inline = functab_create(), *ft = functab_create();
	struct profile p;
	struct inbox *ib;
	int i;

	r.loop = loop_create(NULL, &cause);
	ok(r.loop != NULL, "event loop");
	json = fixture_read_text("profile-graph.json", &len);
	ok(json != NULL && len > BIG, "fixture read (%zu bytes)", len);
	if (!r.loop || !json)
		return done_testing();
	ok(profile_parse(json, len, ft_inline, &p, NULL) == 0, "inline parse");

	/* Some functions already in the session's table: the worker's must be mapped onto them. */
	functab_intern(ft, "already", 7, "file:///x.js", 12, 1, 2);
	ib = inbox_create(r.loop, ft, BIG, on_deliver, on_take, &r);

	push(ib, "{\"method\":\"Runtime.small\",\"params\":{}}");
	is_int(r.calls, 1, "a small message is handed on at once");
	ok(r.valid && !r.preread, "checked here, not on the worker");
	push(ib, "{\"method\":");
	ok(r.calls == 2 && !r.valid, "a small message that is not JSON is handed on as invalid");

	/* A large profile, then two small messages while it is read: they wait behind it. */
	ev = finished_event(json, "ntop-js-1");
	push(ib, ev);
	is_int(r.calls, 2, "a large message is not handed on at once");
	ok(inbox_busy(ib), "busy while the worker reads it");
	push(ib, "{\"method\":\"Runtime.after\",\"params\":{}}");
	push(ib, "{\"id\":3,\"result\":{}}");
	is_int(r.calls, 2, "messages behind it wait");
	run_until(&r, 5);
	is_str(r.order, "s!car", "delivered in the order they came");
	ok(!inbox_busy(ib), "idle again");

	r.calls = 0;
	memset(r.order, 0, sizeof r.order);
	r.stop_after = 0;
	push(ib, ev);
	run_until(&r, 1);
	ok(r.valid && r.preread && r.has_profile && r.profile_ok, "the event's profile was parsed on the worker");
	is_str(r.title, "ntop-js-1", "its title, found after the profile");
	is_int(r.n_nodes, p.n_nodes, "same nodes as inline");
	is_int(r.n_samples, p.n_samples, "same samples as inline");
	{
		const struct func_info *a = functab_get(ft, r.func_of_node5);
		const struct func_info *b = functab_get(ft_inline, p.nodes[5].func);
		ok(a && b && strcmp(a->name, b->name) == 0 && strcmp(a->url, b->url) == 0 &&
			a->line == b->line, "node 5's function mapped into the session's table");
	}
	is_str(functab_get(ft, 0)->name, "already", "the table's earlier entries are kept");

	/* A reply carrying a profile (Profiler.stop), with the buffer handed over, not copied. */
	reply = xasprintf("{\"id\":9,\"result\":{\"profile\":%s}}", json);
	owned = xstrdup(reply);
	r.offer = owned;
	push(ib, owned);
	ok(r.taken == owned, "the inbox took the transport's buffer");
	run_until(&r, 2);
	ok(r.data == owned, "and handed on that buffer, not a copy");
	ok(r.preread && r.has_profile && r.profile_ok && r.n_nodes == p.n_nodes,
		"a reply's result.profile is parsed on the worker too");

	/* An invalid profile comes back as an error; a large non-JSON message as invalid. */
	bad_ev = xstrdup(ev);
	memcpy(strstr(bad_ev, "\"nodes\""), "\"nodez\"", 7);
	push(ib, bad_ev);
	run_until(&r, 3);
	ok(r.valid && r.has_profile && !r.profile_ok && r.err[0],
		"an invalid profile is reported: %s", r.err);
	notjson = xstrdup(ev);
	notjson[strlen(notjson) - 1] = ',';
	push(ib, notjson);
	run_until(&r, 4);
	ok(!r.valid && r.preread, "a large message that is not JSON is handed on as invalid");
	other = padded_event("Other.big", 2 * BIG);
	push(ib, other);
	run_until(&r, 5);
	ok(r.valid && r.preread && !r.has_profile, "a large message without a profile");
	ok(!r.has_exception, "and without an exception");
	free(other);
	other = padded_event("Ignored.x", 2 * BIG);
	owned = xasprintf("{\"id\":4,\"result\":{\"exceptionDetails\":{},\"x\":%s}}", other);
	free(other);
	other = owned;
	push(ib, other);
	run_until(&r, 6);
	ok(r.valid && r.preread && r.has_exception, "a large reply's exceptionDetails are noted: %.45s", other);

	/* Dropping forgets the job and the waiting messages. */
	push(ib, ev);
	push(ib, "{\"method\":\"Runtime.x\",\"params\":{}}");
	inbox_drop(ib);
	ok(!inbox_busy(ib), "dropped");
	push(ib, "{\"method\":\"Runtime.y\",\"params\":{}}");
	is_int(r.calls, 7, "the next message is handed on at once");
	is_int(r.order[6], 'y', "and nothing dropped came back");

	/* A flood: past 64 MB waiting, the worker is waited for and the rest read here. */
	r.calls = 0;
	memset(r.order, 0, sizeof r.order);
	free(other);
	other = padded_event("Flood.big", (size_t)3 << 20);
	push(ib, ev);
	for (i = 0; i < 22; i++)
		push(ib, other);
	is_int(r.calls, 23, "a flood of 66 MB is read at once, inline");
	ok(!inbox_busy(ib), "nothing left waiting");
	ok(r.preread && r.valid, "the last one was read");

	/* Freeing with a job running and messages waiting delivers nothing. */
	push(ib, ev);
	push(ib, "{\"method\":\"Runtime.z\",\"params\":{}}");
	r.calls = 0;
	inbox_free(ib);
	is_int(r.calls, 0, "freeing the inbox drops what it held");

	free(other);
	free(notjson);
	free(bad_ev);
	free(reply); /* owned went to the inbox */
	free(ev);
	profile_release(&p);
	free(json);
	functab_free(ft);
	functab_free(ft_inline);
	loop_free(r.loop);
	return done_testing();
}
