/* Unit tests for the protocol session, driven through a fake transport: replies matched by
 * id, events dispatched, timeouts, late and unknown replies, and non-protocol input. */
#include "config.h"

#include "jsonpull.h"
#include "session.h"
#include "strbuf.h"
#include "tap.h"

#include <stdlib.h>

struct fake {
	struct strbuf sent;
	int fail_send;
	int replies, timeouts, closed, events;
	long long last_id;
	int last_had_error;
};

static int fake_send(void *tp, const char *data, size_t len)
{
	struct fake *f = tp;

	if (f->fail_send)
		return -1;
	strbuf_reset(&f->sent);
	strbuf_append(&f->sent, data, len);
	return 0;
}

static void on_reply(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct fake *f = ud;

	if (o == SESSION_REPLY) {
		f->replies++;
		f->last_id = m->id;
		f->last_had_error = m->error.n > 0;
	} else if (o == SESSION_TIMEOUT) {
		f->timeouts++;
	} else {
		f->closed++;
	}
}

static void on_event(void *ud, const struct protocol_msg *m)
{
	struct fake *f = ud;

	if (json_string_eq(m->method, "Profiler.consoleProfileStarted"))
		f->events++;
}

#define FEED(s, text) session_feed((s), (text), sizeof(text) - 1)

int main(void)
{
	struct fake f = { 0 };
	struct session *s;
	long long id1, id2;

	strbuf_init(&f.sent);
	s = session_create(fake_send, &f);
	session_set_event_handler(s, on_event, &f);

	id1 = session_call(s, "Profiler.enable", NULL, 100.0, 5.0, on_reply, &f);
	is_int(id1, 1, "first call gets id 1");
	is_str(f.sent.data, "{\"id\":1,\"method\":\"Profiler.enable\"}", "request without params");
	id2 = session_call(s, "Profiler.setSamplingInterval", "{\"interval\":1000}", 100.0, 5.0,
		on_reply, &f);
	is_str(f.sent.data, "{\"id\":2,\"method\":\"Profiler.setSamplingInterval\",\"params\":"
		"{\"interval\":1000}}", "request with params");
	is_int(session_pending(s), 2, "two calls pending");

	is_int(FEED(s, "{\"id\":2,\"result\":{}}"), 0, "reply accepted");
	is_int(f.replies, 1, "reply delivered");
	is_int(f.last_id, id2, "out-of-order reply matched by id");
	is_int(FEED(s, "{\"id\":2,\"result\":{}}"), 0, "duplicate reply is not an error");
	is_int(f.replies, 1, "duplicate reply not delivered twice");
	is_int(session_unmatched_replies(s), 1, "duplicate counted as unmatched");
	is_int(FEED(s, "{\"id\":99,\"result\":{}}"), 0, "unknown id ignored");
	is_int(session_unmatched_replies(s), 2, "unknown id counted");

	is_int(FEED(s, "{\"method\":\"Profiler.consoleProfileStarted\",\"params\":{\"id\":\"1\"}}"), 0,
		"event accepted");
	is_int(f.events, 1, "event dispatched");

	is_int(FEED(s, "not json"), -1, "non-JSON rejected");
	is_int(FEED(s, "{\"id\":1,\"result\":"), -1, "truncated JSON rejected");
	is_int(FEED(s, "[1,2]"), -1, "non-object rejected");
	is_int(FEED(s, "{\"params\":{}}"), -1, "neither reply nor event rejected");
	is_int(f.replies, 1, "no reply delivered from bad input");

	is_num(session_expire(s, 104.0), 105.0, 1e-9, "earliest deadline reported");
	is_int(f.timeouts, 0, "nothing expired yet");
	session_expire(s, 105.5);
	is_int(f.timeouts, 1, "call 1 timed out");
	is_int(session_pending(s), 0, "nothing pending after the timeout");
	is_int(FEED(s, "{\"id\":1,\"error\":{\"code\":-1,\"message\":\"late\"}}"), 0,
		"late reply after a timeout tolerated");
	is_int(f.replies, 1, "late reply not delivered");

	session_call(s, "Runtime.evaluate", "{}", 200.0, 5.0, on_reply, &f);
	is_int(FEED(s, "{\"id\":3,\"error\":{\"code\":-32601,\"message\":\"nope\"}}"), 0,
		"error reply accepted");
	ok(f.last_had_error, "error reply delivered as an error");

	session_call(s, "Profiler.stop", NULL, 200.0, 5.0, on_reply, &f);
	session_close(s);
	is_int(f.closed, 1, "pending call failed on close");

	f.fail_send = 1;
	is_int(session_call(s, "Profiler.start", NULL, 0, 1, on_reply, &f), -1,
		"a call that cannot be sent reports -1");
	is_int(session_pending(s), 0, "and is not left pending");

	session_free(s);
	strbuf_free(&f.sent);
	return done_testing();
}
