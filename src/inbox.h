/* inbox.h: the target's messages on their way to the session, in the order they came, each
 * checked (one JSON object, an integer id or a method) before it is handed on.
 *
 * A large message is checked on a worker thread, and the CPU profile it carries (the params of
 * Profiler.consoleProfileFinished, or a reply's result.profile) is parsed there too; the
 * messages that arrive meanwhile wait behind it, so the session still sees them in order. A
 * 30 MB profile thus costs the event loop a few milliseconds of bookkeeping instead of the
 * ~0.5 s it takes to check, search and parse, and keys and the screen are served meanwhile.
 *
 * The worker interns call frames into a function table of its own; when it is done, the main
 * thread maps them into the session's table (a few thousand lookups), so a delivered profile
 * is exactly what profile_parse() would have made. One job at a time. */
#ifndef NTOP_INBOX_H
#define NTOP_INBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonpull.h"

struct loop;
struct functab;
struct profile;
struct inbox;

/* One message, valid during the delivery call only. */
struct inbox_msg {
	const char *data;
	size_t len;
	bool valid;                /* a protocol message: m is filled in */
	struct protocol_msg m;
	/* The members the receiver asks about, found in one walk of the result of a reply or the
	 * params of a consoleProfileFinished, for every valid message, so that the receiver never
	 * reads a message again (the first of duplicate keys counts). */
	bool has_profile;          /* the message has a profile member */
	struct json_span profile_json; /* that member */
	struct json_span title;    /* params.title of a consoleProfileFinished (n == 0: none) */
	bool has_exception;        /* a reply's result has exceptionDetails */
	/* Large messages: read on the worker, which also parsed the profile; the receiver takes
	 * it from here instead of parsing profile_json. */
	bool preread;
	struct profile *profile;   /* parsed, in the session's table; NULL if it was invalid */
	const char *profile_err;   /* why it was invalid */
};

typedef void (*inbox_deliver_fn)(void *ud, struct inbox_msg *im);
/* Gives the inbox the malloc'd buffer that holds the message being pushed (it starts at the
 * pushed data), or NULL if the caller cannot part with it (the inbox then copies it). */
typedef char *(*inbox_take_fn)(void *ud);

/* Messages of at least big_bytes go to the worker. */
struct inbox *inbox_create(struct loop *l, struct functab *ft, size_t big_bytes,
	inbox_deliver_fn deliver, inbox_take_fn take, void *ud);
/* Waits for a running job, drops it and every waiting message, and frees. */
void inbox_free(struct inbox *ib);
/* Hands on the message in [data, data+len) (followed by a NUL) now, or later in order. */
void inbox_push(struct inbox *ib, const char *data, size_t len);
/* Forgets the job in progress and the waiting messages (the connection they came on is gone). */
void inbox_drop(struct inbox *ib);
/* True while a job runs or messages wait. */
bool inbox_busy(const struct inbox *ib);

#endif
