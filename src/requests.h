/* requests.h: the target's HTTP requests, as the evaluation that the engine runs at every
 * window reports them (engine_requests.c: Node's diagnostics_channel, no flag): inbound
 * requests per route (method and the framework's pattern, else the path with ids collapsed)
 * and outbound calls per destination (host:port, http, https and fetch), each with a count,
 * errors, the longest, and a histogram of durations in buckets a quarter of an octave wide,
 * from which the percentiles come (within 10 %). The reply is the target's: parsing validates
 * every field, and the number of rows is bounded whatever the traffic. */
#ifndef NTOP_REQUESTS_H
#define NTOP_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Buckets: 0 holds up to 0.05 ms, bucket i >= 1 [0.05 * 2^((i-1)/4), 0.05 * 2^(i/4)) ms; the
 * last holds the rest (from about 10 minutes). */
#define REQ_BUCKETS 96
#define REQ_BUCKET_BASE_MS 0.05
/* Rows kept per kind, in a window and since attach: the target folds the rest into "other",
 * and so do the totals. */
#define REQ_ROWS_MAX 50
#define REQ_KEY_LEN 160
/* Destinations a route's waits are kept for (the target folds the rest into "other"). */
#define REQ_WAITS_MAX 4
#define REQ_HOST_LEN 80
/* Inbound requests the target follows a second, at most: above that rate, one in N is
 * followed (N from the rate since the last reading) and counted N times. Following a request,
 * from its start to its finish, is what costs the target (doc/benchmarks.md section 21: 5 to
 * 9 % of an express server's CPU at its full rate when every one was followed); a request
 * that is only counted costs a few tens of nanoseconds. */
#define REQ_FOLLOW_PER_S 200

/* A route's time waiting on one destination: for each request, the time in which at least
 * one of its calls there was open, summed over the requests. */
struct req_wait {
	char host[REQ_HOST_LEN];
	double ms;
};

struct req_row {
	char key[REQ_KEY_LEN];   /* "GET /api/items/:id", or "10.0.0.7:8080"; sanitized */
	uint64_t count;          /* finished in the span (aborted ones included) */
	uint64_t errors;         /* 5xx, aborted, failed */
	uint64_t in_flight;      /* started, not finished, at the reading */
	double max_ms;
	double sum_ms;           /* of the durations of the finished ones */
	uint32_t hist[REQ_BUCKETS];
	/* Server rows: what the requests followed (sampled of them, sampled_ms in all) waited
	 * on, the longest first. */
	struct req_wait waits[REQ_WAITS_MAX];
	size_t n_waits;
	uint64_t sampled;
	double sampled_ms;
};

struct req_window {
	/* The target can tell which request a call is made for (an AsyncLocalStorage on
	 * AsyncContextFrame: Node 24 and later), so that the waits are known. */
	bool context;
	/* Inbound requests started in the span, and how many of them were followed to their
	 * end: above REQ_FOLLOW_PER_S a second the target follows one in N, and the server rows
	 * count each followed request N times (their counts, errors and percentiles are then
	 * estimates). */
	uint64_t started, followed;
	uint64_t calls_started, calls_followed; /* the same for outbound calls */
	struct req_row server[REQ_ROWS_MAX];
	size_t n_server;
	struct req_row client[REQ_ROWS_MAX];
	size_t n_client;
};

/* Parses the evaluation's value, {s: [[key, count, errors, max_ms, {bucket: n}, in_flight,
 * sum_ms, {host: waited_ms}, sampled, sampled_ms]], c: [the same], ctx: whether waits are
 * followed, st: inbound requests started, fo: followed of them, cst and cfo: the same for
 * calls}. Rows that are not that shape are
 * left out; more than REQ_ROWS_MAX are folded into the last. Returns 0, or -1 (out cleared)
 * if the value is not an object. */
int requests_parse(const char *json, size_t len, struct req_window *out);

/* How many inbound requests (or calls, client) each followed one stands for (started /
 * followed): 1 when every one was followed or none started. */
double req_follow_ratio(const struct req_window *w, bool client);

/* The q-quantile (0..1) of a row's durations in ms, from its histogram (the geometric middle
 * of the bucket it falls in, at most max_ms); NAN without any. */
double req_row_quantile(const struct req_row *r, double q);

/* Wait i of a row: the mean time a followed request waited on its host, in ms, and that
 * time's share of their durations (0..1); NAN when no request was followed. */
double req_wait_mean_ms(const struct req_row *r, size_t i);
double req_wait_share(const struct req_row *r, size_t i);

/* Adds a window's rows into totals (since attach), matched by key; beyond REQ_ROWS_MAX keys
 * they go to a row "other". in_flight is the latest window's. */
void requests_add(struct req_window *totals, const struct req_window *w);

/* Indices of w's server (or client) rows, the most requests first, into order (room for
 * REQ_ROWS_MAX); returns how many. */
size_t requests_order(const struct req_window *w, bool client, size_t *order);

#endif
