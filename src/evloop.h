/* evloop.h: one reading of the target's event loop, made by the evaluation that the engine runs
 * at every window (engine_evloop.c): the busy share of the loop since the last reading
 * (performance.eventLoopUtilization), the delay of a 10 ms timer over the same time
 * (perf_hooks.monitorEventLoopDelay: p50, p99, max), and the live handles and requests by kind
 * (process.getActiveResourcesInfo), taken at a turn of the loop after the previous reading.
 * The reply is the target's: parsing validates every field. */
#ifndef NTOP_EVLOOP_H
#define NTOP_EVLOOP_H

#include <stdbool.h>
#include <stddef.h>

#define EVLOOP_MAX_KINDS 16
#define EVLOOP_KIND_LEN 40

struct evloop_kind {
	char name[EVLOOP_KIND_LEN];   /* sanitized: printable, cut */
	long count;
};

struct evloop_reading {
	/* Over the time since the previous reading (false at the first, which starts the
	 * measurement): utilization 0..1 and the lag percentiles in ms (NAN without samples). */
	bool have_evloop;
	double span_ms;
	double utilization;
	/* utilization is the CPU profile's share of non-idle samples, not the loop's own count:
	 * V8's sampler interrupts the loop's wait a thousand times a second, and libuv does not
	 * count the idle time of an interrupted wait (an idle loop read 62 % busy while profiled) */
	bool busy_from_profile;
	double lag_p50_ms, lag_p99_ms, lag_max_ms;
	/* The period of the timer whose delays those are (10 ms while the CPU profiler runs, up to
	 * 1 s while it is off), already taken off them (Node counts it in); NAN if not given. */
	double lag_resolution_ms;
	/* When it was taken: µs on the target's monotonic clock (process.hrtime, the CPU
	 * profile's clock); NAN if not given. */
	double end_mono_us;
	/* Handles and requests by kind, the most numerous first (none before Node 17.3). */
	bool have_kinds;
	size_t n_kinds;
	size_t more_kinds;            /* kinds left out beyond EVLOOP_MAX_KINDS */
	struct evloop_kind kinds[EVLOOP_MAX_KINDS];
};

/* Parses the evaluation's value, a JSON text {r: null | {u, s, n, p50, p99, max, t, res}, k: null |
 * {kind: count}} (times in ns as Node gives them, s in ms). Returns 0, or -1 if it is not that
 * shape; out is then cleared. Out-of-range numbers make their field unknown. */
int evloop_parse(const char *json, size_t len, struct evloop_reading *out);

/* While the CPU profiler runs: the busy share from the window's samples (sampled_us of which
 * idle_us idle); nothing if the window has no samples. */
void evloop_busy_from_profile(struct evloop_reading *r, double sampled_us, double idle_us);

/* The loop's series over time (the loop screen's chart), one tseries metric each. */
enum evloop_metric {
	EVLOOP_BUSY,       /* percent of the span the loop was busy, 0..100 */
	EVLOOP_LAG_P50,    /* ms, net of the timer's period */
	EVLOOP_LAG_P99,
	EVLOOP_LAG_MAX,
	EVLOOP_HANDLES,    /* live handles and requests, all kinds kept */
	EVLOOP_METRIC_COUNT
};
/* A reading's values for the series, NAN where it has none. */
void evloop_series_values(const struct evloop_reading *r, double v[EVLOOP_METRIC_COUNT]);

/* The total of kinds whose name is kind ("Timeout", "TCPSocketWrap", ...), or -1 if absent. */
long evloop_kind_count(const struct evloop_reading *r, const char *kind);

#endif
