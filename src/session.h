/* session.h: the inspector protocol session: message ids, pending replies with deadlines, and
 * event dispatch. Its transport is a send function, so tests can drive it with recorded or
 * hostile messages and no socket. */
#ifndef NTOP_SESSION_H
#define NTOP_SESSION_H

#include <stddef.h>

struct protocol_msg;
struct session;

enum session_outcome {
	SESSION_REPLY,   /* msg holds the reply: check msg->error */
	SESSION_TIMEOUT, /* no reply before the deadline; msg is NULL */
	SESSION_CLOSED,  /* the session ended first; msg is NULL */
};

typedef void (*session_reply_fn)(void *ud, enum session_outcome outcome,
	const struct protocol_msg *msg);
typedef void (*session_event_fn)(void *ud, const struct protocol_msg *msg);
typedef int (*session_send_fn)(void *transport, const char *data, size_t len);

struct session *session_create(session_send_fn send, void *transport);
void session_free(struct session *s);
void session_set_event_handler(struct session *s, session_event_fn fn, void *ud);

/* Sends method with params (a JSON object text, or NULL). The reply, a timeout or the end of
 * the session calls cb exactly once. Returns the message id, or -1 if it could not be sent
 * (cb is then not called). */
long long session_call(struct session *s, const char *method, const char *params_json,
	double now_s, double timeout_s, session_reply_fn cb, void *ud);

/* Feeds one whole message from the transport. Returns 0, or -1 if it is not a protocol
 * message (not JSON, or neither a reply nor an event); the caller decides what that costs. */
int session_feed(struct session *s, const char *data, size_t len);
/* The same for a message whose envelope is already read (json_envelope_parse()); the
 * callbacks get m itself. */
int session_dispatch(struct session *s, const struct protocol_msg *m);

/* Fails every call whose deadline is past. Returns the earliest deadline still pending, or 0. */
double session_expire(struct session *s, double now_s);

/* Fails every pending call with SESSION_CLOSED. */
void session_close(struct session *s);

size_t session_pending(const struct session *s);
/* Counters for the status line and the tests. */
size_t session_unmatched_replies(const struct session *s);
/* Replies whose id was never sent (a subset of the unmatched ones): only a peer that does not
 * speak the protocol sends them. */
size_t session_forged_replies(const struct session *s);

#endif
