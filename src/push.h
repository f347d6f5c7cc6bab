/* push.h: --push: gzipped pprof profiles sent to Grafana Pyroscope's /ingest, by a small
 * HTTP/1.1 client inside ntop-js's one event loop.
 *
 * Never blocks the loop: one request at a time on a non-blocking socket in an epoll set the
 * loop watches (as serve.c does), each bounded by PUSH_TIMEOUT_S. Profiles wait in a bounded
 * queue (PUSH_QUEUE_MAX profiles or PUSH_QUEUE_MAX_BYTES, the oldest dropped first) while
 * the server is down or busy (no answer, 5xx, 429), retried with a backoff from
 * PUSH_BACKOFF_MIN_S doubling to PUSH_BACKOFF_MAX_S; a 4xx other than 429 drops the profile
 * (the server will not take it later either). The request building, the status line's
 * parsing and the queue's decisions are pure, for the unit tests. */
#ifndef NTOP_PUSH_H
#define NTOP_PUSH_H

#include <stdbool.h>
#include <stddef.h>

#define PUSH_QUEUE_MAX 32
#define PUSH_QUEUE_MAX_BYTES ((size_t)16 << 20)
#define PUSH_TIMEOUT_S 10.0
#define PUSH_BACKOFF_MIN_S 1.0
#define PUSH_BACKOFF_MAX_S 60.0
/* The longest status line and headers read before the status is known. */
#define PUSH_MAX_REPLY_HEAD 1024

struct loop;
struct strbuf;

/* ---- pure parts ---- */

struct push_url {
	char host[64];   /* numeric: localhost is 127.0.0.1 */
	int port;
	char base[256];  /* the path before /ingest, "" or "/prefix" */
	char shown[320]; /* http://HOST:PORT/prefix, for messages: never the credentials */
	char auth[400];  /* "Basic BASE64" from the URL's USER:PASSWORD@, "" for none */
};

/* Reads --push's URL: http:// only, optional USER[:PASSWORD]@ (percent-encoded as in any URL,
 * sent as HTTP basic authentication), a numeric IPv4 or [IPv6] host or localhost (ntop-js
 * resolves no names), an optional port (80) and path prefix. Returns 0, or -1 with *cause,
 * which shows the URL without its credentials. */
int push_parse_url(const char *arg, struct push_url *u, char **cause);
/* arg as it may be shown: the credentials before the last '@' replaced by "***", control
 * bytes sanitized, cut to size. */
void push_redact_url(const char *arg, char *out, size_t size);
/* Whether name is a valid application name or label value for Pyroscope's name syntax:
 * 1 to 128 of A-Z a-z 0-9 . _ - / : */
bool push_name_ok(const char *name);
/* name with every other byte replaced by '_' (NULL or empty: "node"), at most size - 1. */
void push_name_clean(const char *name, char *out, size_t size);
/* Appends s percent-encoded for a query value (RFC 3986 unreserved bytes left as they are). */
void push_query_escape(struct strbuf *b, const char *s);

struct push_meta {
	const char *name;  /* APP{k=v,...}: the application and its labels, checked by the caller */
	const char *tenant; /* X-Scope-OrgID or NULL */
	long long from, until; /* unix seconds */
	long sample_rate;  /* Hz */
};

/* The whole request: POST BASE/ingest?name=..&from=..&until=..&format=pprof&spyName=ntop-js
 * &sampleRate=.. with a multipart/form-data body whose one part, profile (profile.pprof),
 * holds the gzipped profile gz. */
void push_build_request(struct strbuf *b, const struct push_url *u, const struct push_meta *m,
	const void *gz, size_t len);

/* Reads the reply's status line from what arrived: 1 and *status once it is whole, 0 if more
 * is needed, -1 if it is not an HTTP/1.x status line. */
int push_parse_status(const char *buf, size_t len, int *status);

enum push_verdict { PUSH_DELIVERED, PUSH_RETRY, PUSH_REFUSED };
/* What a status means for the profile sent: 2xx delivered; 429, 5xx (and 1xx, 3xx: nothing
 * ntop-js follows) retried; any other 4xx refused for good. */
enum push_verdict push_classify(int status);
/* The next retry's delay after one of cur seconds (0: the first). */
double push_backoff_next(double cur);

/* ---- the client ---- */

struct push;

struct push_handlers {
	/* News worth one line (an outage, refusals, drops), one sentence. */
	void (*notice)(void *ud, const char *msg);
};

/* A client for u (copied). Queues without a loop until push_start. */
struct push *push_create(const struct push_url *u, const char *tenant,
	const struct push_handlers *h, void *ud);
/* Starts sending on the loop. Returns 0, or -1 with *cause. */
int push_start(struct push *p, struct loop *l, char **cause);
/* Queues one profile (gz is copied) for [from, until]; the oldest are dropped past the
 * bounds. */
void push_enqueue(struct push *p, const char *name, long long from, long long until,
	long sample_rate, const void *gz, size_t len);
size_t push_queued(const struct push *p);
size_t push_queued_bytes(const struct push *p);
/* Profiles dropped for the queue's bounds, refused by the server, delivered. */
size_t push_dropped(const struct push *p);
size_t push_refused(const struct push *p);
size_t push_delivered(const struct push *p);
/* The delay before the next retry (0: none pending). */
double push_backoff(const struct push *p);
/* Once the loop has stopped: sends what is queued for at most bound_s seconds, giving up at
 * the first failure (the exit must not wait for a server that is down). */
void push_finish(struct push *p, double bound_s);
/* Closes the connection; the epoll descriptor, once watched, is the loop's to close. Call
 * before the loop is freed. Accepts NULL. */
void push_free(struct push *p);

#endif
