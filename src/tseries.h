/* tseries.h: readings of a few metrics over time, kept for days in bounded memory.
 *
 * Readings go into tiers of decreasing resolution: 1 s buckets for the last hour, 1 min
 * buckets for the last week, 1 h buckets for the last year; each bucket keeps the minimum,
 * maximum, mean and last value of every metric, so that a chart can draw a band (the GC
 * sawtooth, a loop's lag) and a rule can read its troughs. Older data falls off the coarsest
 * tier. The memory series (memseries.h) and the event loop's (the loop screen's chart) are
 * stored so. */
#ifndef NTOP_TSERIES_H
#define NTOP_TSERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TS_MAX_METRICS 5
#define TS_TIER_COUNT 3

/* Buckets merged for a chart (tseries_query). NAN where a metric has no reading. */
struct ts_bucket {
	double t_s;                      /* start of the bucket */
	double min[TS_MAX_METRICS], max[TS_MAX_METRICS], mean[TS_MAX_METRICS],
		last[TS_MAX_METRICS];
	bool gap;                        /* the target restarted (or ntop-js re-attached) here */
};

/* One stored bucket of one tier, as rules that read the tiers directly see it. */
struct ts_slot {
	uint32_t idx;                    /* bucket number: floor(t / width); valid only if it matches */
	uint16_t n[TS_MAX_METRICS];      /* readings per metric (saturates; only weights merges) */
	uint8_t gap;
	float min[TS_MAX_METRICS], max[TS_MAX_METRICS], mean[TS_MAX_METRICS],
		last[TS_MAX_METRICS];
};

struct tseries;

/* n_metrics: 1 .. TS_MAX_METRICS. */
struct tseries *tseries_create(int n_metrics);
void tseries_free(struct tseries *s);
/* Adds a reading at t_s of v[0 .. n_metrics-1] (NAN: not read). A time earlier than the latest
 * seen, or outside 1970-2106, is dropped (false). Values are the caller's to validate. */
bool tseries_add(struct tseries *s, double t_s, const double *v);
/* Marks a gap at t_s (moved up to the latest time seen); false if t_s is not a usable time. */
bool tseries_mark_gap(struct tseries *s, double t_s);
/* Time of the first reading still kept (0 if none). */
double tseries_first_time(const struct tseries *s);
/* Whether any reading was added. */
bool tseries_has_data(const struct tseries *s);
/* Buckets covering [from_s, to_s] from the finest tier that still covers from_s, merged down
 * to at most max_out buckets of equal width. Returns how many were written to out. */
size_t tseries_query(const struct tseries *s, double from_s, double to_s, size_t max_out,
	struct ts_bucket *out);
/* Bytes of memory the series holds: constant once every tier is full. */
size_t tseries_bytes(const struct tseries *s);

/* The tiers, for rules that read buckets one by one (memseries' growth rule). */
/* The finest tier whose ring still reaches back to from_s (the coarsest if none does). */
int tseries_tier_covering(const struct tseries *s, double from_s);
double tseries_tier_width(const struct tseries *s, int tier);
/* Number of the newest bucket and of the oldest one tier's ring still holds. */
void tseries_tier_range(const struct tseries *s, int tier, int64_t *lo, int64_t *hi);
/* Bucket idx of a tier, or NULL when the ring does not hold it (or it holds nothing). */
const struct ts_slot *tseries_slot(const struct tseries *s, int tier, int64_t idx);

#endif
