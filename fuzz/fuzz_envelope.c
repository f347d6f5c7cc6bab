/* fuzz_envelope: inspector protocol messages on hostile input.
 *
 * The input is what the transport hands over: one message, or several separated by newlines
 * (the pieces and then the whole input are fed). It drives:
 *   - session_feed() on a session with calls pending (a fake send records the requests), whose
 *     callbacks walk the reply and may issue new calls from inside the callback;
 *   - json_envelope_parse() on the whole input;
 *   - a full walk with the pull cursor (json_pull_*, including json_pull_int_run()), checked
 *     against json_validate(): the two must agree on whether the input is one JSON value;
 *   - a walk with the span iterators (json_object_next/json_array_next/json_object_get),
 *     decoding every string and number, with json_number() checked against strtod().
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpull.h"
#include "session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_envelope"
#include "fuzz_check.h"

/* Span walk: every member and element, every string decoded, every number converted. */
static void walk_span(struct json_span v, int depth)
{
	struct json_span key, val;
	size_t pos = 0, members = 0;
	int r;

	CHECK(depth <= JSON_MAX_DEPTH + 1, "span walk deeper than the limit: %d", depth);
	switch (json_span_type(v)) {
	case JSON_T_OBJECT:
		while ((r = json_object_next(v, &pos, &key, &val)) == 1) {
			char *s = NULL;
			size_t n = 0;

			CHECK(json_string_decode(key, &s, &n) == 0, "a scanned key does not decode");
			CHECK(strlen(s) <= n, "decoded length");
			/* looking a key up again must find a member (perhaps an earlier duplicate);
			 * only the first few, or a wide object costs quadratic time */
			if (members++ < 8 && !memchr(s, '\0', n)) {
				struct json_span again;
				CHECK(json_object_get(v, s, &again) == 1, "json_object_get misses \"%s\"", s);
				CHECK(json_string_eq(key, s), "json_string_eq on its own decoding");
			}
			free(s);
			walk_span(val, depth + 1);
		}
		CHECK(r == 0, "object walk of a validated object failed");
		break;
	case JSON_T_ARRAY:
		while ((r = json_array_next(v, &pos, &val)) == 1)
			walk_span(val, depth + 1);
		CHECK(r == 0, "array walk of a validated array failed");
		break;
	case JSON_T_STRING: {
		char *s = NULL, *buf = malloc(v.n);
		size_t n = 0;
		long m;

		CHECK(json_string_decode(v, &s, &n) == 0, "a validated string does not decode");
		m = json_string_decode_into(v, buf);
		CHECK(m >= 0 && (size_t)m == n && memcmp(buf, s, n) == 0, "decode_into differs");
		CHECK(n <= v.n, "decoded string longer than raw");
		free(buf);
		free(s);
		break;
	}
	case JSON_T_NUMBER: {
		char tmp[512];
		double d, ref;

		CHECK(json_number(v, &d) == 0, "a validated number does not convert");
		if (v.n < sizeof tmp) {
			memcpy(tmp, v.p, v.n);
			tmp[v.n] = '\0';
			ref = strtod(tmp, NULL);
			CHECK(d == ref || (isnan(d) && isnan(ref)), "json_number(%s) = %.17g, strtod %.17g",
				tmp, d, ref);
		}
		break;
	}
	case JSON_T_TRUE: case JSON_T_FALSE: case JSON_T_NULL:
		break;
	default:
		CHECK(0, "a validated value of no type");
	}
}

/* Pull walk: returns 0 if the whole buffer is one valid value. Iterative, as real callers are;
 * the container kinds live in the cursor. Mixes the paths a caller may take: the integer fast
 * path at array starts and between elements, and json_pull_value() for whole subtrees. */
static int walk_pull(const char *buf, size_t len, unsigned salt)
{
	struct json_pull jp;
	int64_t ints[16];
	bool in_obj[JSON_MAX_DEPTH + 1];
	int depth = 0;
	unsigned step = 0;

	json_pull_init(&jp, buf, len);
	for (;;) {
		/* one value is due at the cursor */
		enum json_type t = json_pull_peek(&jp);

		step++;
		if ((salt >> (step % 8)) & 1 && t != JSON_T_INVALID && depth > 0 && step % 5 == 0) {
			if (json_pull_value(&jp, NULL))
				return -1;
		} else {
			switch (t) {
			case JSON_T_OBJECT:
				if (json_pull_object_begin(&jp))
					return -1;
				in_obj[depth++] = true;
				goto next;
			case JSON_T_ARRAY:
				if (json_pull_array_begin(&jp))
					return -1;
				in_obj[depth++] = false;
				while (json_pull_int_run(&jp, ints, 1 + salt % 16) > 0)
					;
				goto next;
			case JSON_T_STRING: {
				struct json_span s;
				if (json_pull_string(&jp, &s))
					return -1;
				break;
			}
			case JSON_T_NUMBER: {
				double d;
				if (json_pull_number(&jp, &d))
					return -1;
				break;
			}
			case JSON_T_TRUE: case JSON_T_FALSE: case JSON_T_NULL:
				if (json_pull_value(&jp, NULL))
					return -1;
				break;
			default:
				return -1;
			}
		}
		/* a value was consumed: the fast path may take the next integers of an array */
		if (depth > 0 && !in_obj[depth - 1])
			while (json_pull_int_run(&jp, ints, 1 + salt % 16) > 0)
				;
next:
		/* step to the next value, closing containers on the way */
		for (;;) {
			int r;

			if (depth == 0)
				return json_pull_finish(&jp);
			if (in_obj[depth - 1]) {
				struct json_span key;
				r = json_pull_object_next(&jp, &key);
			} else {
				r = json_pull_array_next(&jp);
			}
			if (r < 0)
				return -1;
			if (r == 1)
				break;
			depth--;
			if (depth > 0 && !in_obj[depth - 1])
				while (json_pull_int_run(&jp, ints, 1 + salt % 16) > 0)
					;
		}
	}
}

struct fake {
	struct session *s;
	size_t sent_bytes;
	unsigned calls_left;
	unsigned replies;
};

static int fake_send(void *transport, const char *data, size_t len)
{
	struct fake *f = transport;
	struct json_span v;

	/* what the session sends must be JSON */
	CHECK(json_validate(data, len, &v) == 0, "the session sent invalid JSON: %.*s",
		(int)len, data);
	f->sent_bytes += len;
	return 0;
}

static void on_reply(void *ud, enum session_outcome outcome, const struct protocol_msg *msg)
{
	struct fake *f = ud;

	f->replies++;
	if (outcome != SESSION_REPLY) {
		CHECK(msg == NULL, "a timeout or close with a message");
		return;
	}
	CHECK(msg && msg->has_id, "a reply without an id");
	if (msg->result.n) {
		struct json_span prof;
		walk_span(msg->result, 0);
		if (json_span_type(msg->result) == JSON_T_OBJECT)
			(void)json_object_get(msg->result, "profile", &prof);
	}
	if (msg->error.n)
		walk_span(msg->error, 0);
	/* a callback may issue the next call, as the engine's do */
	if (f->calls_left) {
		f->calls_left--;
		session_call(f->s, "Profiler.start", NULL, 0, 1, on_reply, f);
	}
}

static void on_event(void *ud, const struct protocol_msg *msg)
{
	CHECK(msg->method.n >= 2, "an event without a method");
	CHECK(json_span_type(msg->method) == JSON_T_STRING, "a method that is not a string");
	if (msg->params.n)
		walk_span(msg->params, 0);
}

static void feed(struct session *s, const char *p, size_t n)
{
	struct protocol_msg m;
	int r = session_feed(s, p, n), e = json_envelope_parse(p, n, &m);

	/* the session rejects exactly what the envelope parser rejects, plus id-less non-events */
	if (e < 0)
		CHECK(r < 0, "session accepted what the envelope parser rejected");
	else
		CHECK(r == 0 || (!m.has_id && m.method.n == 0), "session rejected a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct fake f = { .calls_left = 4 };
	struct protocol_msg m;
	struct json_span v;
	int valid, env;

	/* the session, with replies 1..3 pending and the rest unmatched */
	f.s = session_create(fake_send, &f);
	session_set_event_handler(f.s, on_event, &f);
	CHECK(session_call(f.s, "Profiler.enable", NULL, 0, 5, on_reply, &f) == 1, "first id");
	CHECK(session_call(f.s, "Profiler.stop", "{}", 0, 5, on_reply, &f) == 2, "second id");
	CHECK(session_call(f.s, "HeapProfiler.getSamplingProfile", "{\"a\":[1,2]}", 0, 30,
		on_reply, &f) == 3, "third id");
	if (memchr(buf, '\n', size)) {
		size_t start = 0;
		while (start < size) {
			const char *nl = memchr(buf + start, '\n', size - start);
			size_t n = nl ? (size_t)(nl - (buf + start)) : size - start;
			feed(f.s, buf + start, n);
			start += n + 1;
		}
	}
	feed(f.s, buf, size);
	(void)session_expire(f.s, 10);
	session_close(f.s);
	CHECK(session_pending(f.s) == 0, "calls pending after close");
	session_free(f.s);

	/* the envelope, and the two scanners against each other */
	valid = json_validate(buf, size, &v);
	env = json_envelope_parse(buf, size, &m);
	if (env == 0) {
		CHECK(valid == 0 && json_span_type(v) == JSON_T_OBJECT, "envelope of a non-object");
		if (m.method.n)
			CHECK(json_span_type(m.method) == JSON_T_STRING, "method not a string");
	}
	CHECK(walk_pull(buf, size, size ? (unsigned)data[0] : 0) == valid,
		"pull walk and json_validate disagree (validate %d)", valid);
	if (valid == 0) {
		size_t pos = 0;
		struct json_span v2;

		CHECK(json_next_value(buf, size, &pos, &v2) == 0 && v2.p == v.p && v2.n == v.n,
			"json_next_value disagrees");
		walk_span(v, 0);
	}
	return 0;
}
