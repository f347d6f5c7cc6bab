/* promtext.h: the Prometheus text exposition format (version 0.0.4), and ntop-js's metrics
 * in it.
 *
 * The writer checks names and escapes label values, so that nothing a target names (a
 * function, a title) can break the exposition: label values are made valid UTF-8, and
 * backslash, double quote and newline are escaped. Values are written as Go's
 * strconv.FormatFloat(v, 'g', -1, 64) writes them, as Prometheus' own clients do, with NaN,
 * +Inf and -Inf.
 *
 * The metrics take prom-client's names where it has one (nodejs_*, process_*), so that
 * dashboards made for prom-client read them; the rest are ntopjs_*. They are rendered from
 * plain structs, filled by the caller from the engine, so that this module needs none. */
#ifndef NTOP_PROMTEXT_H
#define NTOP_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* ---- the format ---- */

enum prom_type { PROM_GAUGE, PROM_COUNTER, PROM_HISTOGRAM };

struct prom_label {
	const char *name;
	const char *value; /* any bytes; NULL is written as "" */
};

/* [a-zA-Z_:][a-zA-Z0-9_:]* */
bool prom_metric_name_ok(const char *name);
/* [a-zA-Z_][a-zA-Z0-9_]*, and not __-prefixed (Prometheus keeps those for itself). */
bool prom_label_name_ok(const char *name);
/* A value as Go writes it: 1, 0.25, 1e+06, 1.5e-07, NaN, +Inf, -Inf. */
void prom_value(struct strbuf *out, double v);
/* The # HELP and # TYPE lines of a family. A counter's name must end in _total (the 0.0.4
 * format names the family by its samples' name). Returns 0, or -1 (nothing written) for a
 * bad name. */
int prom_family(struct strbuf *out, const char *name, enum prom_type type, const char *help);
/* One sample line. Returns 0, or -1 (nothing written) for a bad metric or label name or a
 * label given twice. */
int prom_sample(struct strbuf *out, const char *name, const struct prom_label *labels,
	size_t n_labels, double value);

/* ---- ntop-js's metrics ---- */

struct prom_heap_space {
	const char *name;            /* V8's: new_space, old_space, ... */
	double used_bytes, size_bytes;
};

struct prom_resource {
	const char *type;            /* Timeout, TCPSocketWrap, FSReqCallback, ... */
	long count;
};

struct prom_function {
	const char *function;        /* the display name */
	const char *url;             /* as shown: a path, node:..., or "" */
	long line;                   /* 1-based; 0 when unknown */
	double self_s;               /* self time since attach */
};

/* The upper bounds (le) of the request-duration histograms, in seconds: octaves from 0.8 ms
 * to 52 s, which fall on bounds of the target's own buckets (requests.h), so that each count
 * is exact. */
#define PROM_HTTP_BOUNDS 17
extern const double prom_http_bounds_s[PROM_HTTP_BOUNDS];

/* One route's (method, route) or destination's (address, port) requests since attach. */
struct prom_http {
	const char *a, *b;           /* http_request_method, http_route; server_address, _port */
	double count, errors, in_flight, sum_s;
	double le[PROM_HTTP_BOUNDS]; /* finished within prom_http_bounds_s[i], cumulative */
};

/* One watched thread of one target; NAN (or NULL, 0) where not known. The fields follow the
 * JSON window (report.c, ntop-js.1's JSON OUTPUT) one for one. */
struct prom_target {
	int pid;                     /* labels of every series: pid, title, thread */
	const char *title;
	const char *thread;          /* "main", or the worker's name */
	const char *node_version;    /* "v20.11.1" */
	bool attached;               /* ntopjs_attached */
	double process_cpu_s;        /* process_cpu_seconds_total (/proc/PID/stat) */
	/* The CPU it could not get (contention.h), the main thread's and its cgroup's since
	 * they started, and the cgroup's quota (NAN: none or unknown). */
	double runqueue_wait_s, throttled_s, quota_cores;
	double periods, throttled_periods; /* the quota's enforcement periods, and throttled ones */
	double rss_bytes;            /* mem.rss_bytes */
	double heap_used_bytes, heap_total_bytes, external_bytes;
	const struct prom_heap_space *spaces;
	size_t n_spaces;
	const char *growth_verdict;  /* growth.verdict: unknown, stable, growing, shrinking */
	double heap_growth_bytes_per_hour;
	double evloop_utilization;     /* event_loop.utilization, 0..1 */
	double lag_s;                /* nodejs_eventloop_lag_seconds: the latest lag (the p50) */
	double lag_p50_s, lag_p99_s, lag_max_s;
	const struct prom_resource *resources;
	size_t n_resources;
	bool cpu_known;              /* the cumulative CPU split below is measured */
	double cpu_js_s, cpu_gc_s, cpu_program_s, cpu_idle_s;
	const struct prom_function *top; /* by self time, the most first */
	size_t n_top;
	/* HTTP requests (inbound, per route) and calls (outbound, per destination) */
	const struct prom_http *http_server, *http_client;
	size_t n_http_server, n_http_client;
};

/* Every family once, with a series per target that knows it. Functions: the first top_n of
 * each target's top (a bounded number of series whatever the application). */
void promtext_render(struct strbuf *out, const struct prom_target *targets, size_t n,
	size_t top_n);

#endif
