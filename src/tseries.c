/* tseries.c: see tseries.h. */
#include "config.h"
#include "tseries.h"

/* tseries.c: readings over time in three fixed-size rings.
 *
 * Three tiers of buckets: 1 s for the last hour, 1 min for the last week, 1 h for the last
 * year (each with a little slack, so that a full hour or week is always inside the tier that
 * is named for it). Every reading goes into all three; a bucket keeps, per metric, the
 * minimum, maximum, mean and last value (as float: 24 bits of mantissa is 8 bytes of
 * resolution at 100 MB, a microsecond at 10 s) and how many readings it holds. The rings are
 * allocated once, at their full size, so tseries_bytes() never changes: about 2.2 MB for a
 * year, of which only what time has reached is ever touched (and resident). */

#include <math.h>
#include <stdlib.h>

#include "util.h"

/* Bucket numbers are 32-bit: times from 1970 to 2106. */
#define TIME_LIMIT_S 4294967295.0
/* More chart columns than any screen has; keeps the arithmetic in range. */
#define QUERY_MAX_OUT ((size_t)1 << 24)

struct tier {
	double width_s;
	uint32_t cap;
	struct ts_slot *slots;
	/* The newest bucket's exact sums, so that its mean does not drift in float. */
	bool open_valid;
	uint32_t open_idx;
	double sum[TS_MAX_METRICS];
	uint64_t cnt[TS_MAX_METRICS];
};

static const struct {
	double width_s;
	uint32_t cap;
} tier_spec[TS_TIER_COUNT] = {
	{ 1.0, 3600 + 60 },             /* an hour, plus a minute */
	{ 60.0, 7 * 24 * 60 + 60 },     /* a week, plus an hour */
	{ 3600.0, 365 * 24 + 24 },      /* a year, plus a day */
};

struct tseries {
	int m;                      /* metrics */
	struct tier tier[TS_TIER_COUNT];
	bool have_clock;
	double clock_s;             /* latest time seen (reading or gap): earlier readings drop */
	bool have_data;
	double first_s;             /* first reading ever */
};

struct tseries *tseries_create(int n_metrics)
{
	struct tseries *s = xcalloc(1, sizeof *s);

	s->m = n_metrics < 1 ? 1 : n_metrics > TS_MAX_METRICS ? TS_MAX_METRICS : n_metrics;
	for (int i = 0; i < TS_TIER_COUNT; i++) {
		s->tier[i].width_s = tier_spec[i].width_s;
		s->tier[i].cap = tier_spec[i].cap;
		/* calloc'd: pages stay untouched (and not resident) until time reaches them */
		s->tier[i].slots = xcalloc(tier_spec[i].cap, sizeof(struct ts_slot));
	}
	s->first_s = NAN;
	return s;
}

void tseries_free(struct tseries *s)
{
	if (!s)
		return;
	for (int i = 0; i < TS_TIER_COUNT; i++)
		free(s->tier[i].slots);
	free(s);
}

size_t tseries_bytes(const struct tseries *s)
{
	size_t n = sizeof *s;

	for (int i = 0; i < TS_TIER_COUNT; i++)
		n += (size_t)s->tier[i].cap * sizeof(struct ts_slot);
	return n;
}

static bool slot_has_data(const struct ts_slot *sl)
{
	if (sl->gap)
		return true;
	for (int k = 0; k < TS_MAX_METRICS; k++)
		if (sl->n[k])
			return true;
	return false;
}

const struct ts_slot *tseries_slot(const struct tseries *s, int tier, int64_t idx)
{
	const struct tier *t;
	const struct ts_slot *sl;

	if (tier < 0 || tier >= TS_TIER_COUNT || idx < 0 || idx > UINT32_MAX)
		return NULL;
	t = &s->tier[tier];
	sl = &t->slots[(uint32_t)idx % t->cap];
	return sl->idx == (uint32_t)idx && slot_has_data(sl) ? sl : NULL;
}

/* The slot for bucket idx, which is the newest bucket or a newer one. */
static struct ts_slot *tier_open(struct tier *t, uint32_t idx)
{
	struct ts_slot *sl = &t->slots[idx % t->cap];

	if (t->open_valid && t->open_idx == idx)
		return sl;
	sl->idx = idx;
	sl->gap = 0;
	for (int k = 0; k < TS_MAX_METRICS; k++) {
		sl->n[k] = 0;
		sl->min[k] = sl->max[k] = sl->mean[k] = sl->last[k] = NAN;
		t->sum[k] = 0;
		t->cnt[k] = 0;
	}
	t->open_valid = true;
	t->open_idx = idx;
	return sl;
}

static uint32_t tier_idx(const struct tier *t, double t_s)
{
	return (uint32_t)floor(t_s / t->width_s);
}

double tseries_tier_width(const struct tseries *s, int tier)
{
	return s->tier[tier < 0 ? 0 : tier >= TS_TIER_COUNT ? TS_TIER_COUNT - 1 : tier].width_s;
}

void tseries_tier_range(const struct tseries *s, int tier, int64_t *lo, int64_t *hi)
{
	const struct tier *t = &s->tier[tier < 0 ? 0 : tier >= TS_TIER_COUNT ? TS_TIER_COUNT - 1
		: tier];

	*hi = (int64_t)floor(s->clock_s / t->width_s);
	*lo = *hi - (int64_t)t->cap + 1;
}

static void tier_add(struct tier *t, int m, double t_s, const double *v)
{
	struct ts_slot *sl = tier_open(t, tier_idx(t, t_s));

	for (int k = 0; k < m; k++) {
		float f;

		if (isnan(v[k]))
			continue;
		f = (float)v[k];
		if (sl->n[k] == 0 || f < sl->min[k])
			sl->min[k] = f;
		if (sl->n[k] == 0 || f > sl->max[k])
			sl->max[k] = f;
		if (sl->n[k] < UINT16_MAX)
			sl->n[k]++;
		t->cnt[k]++;
		t->sum[k] += v[k];
		sl->mean[k] = (float)(t->sum[k] / (double)t->cnt[k]);
		sl->last[k] = f;
	}
}

static bool time_usable(double t_s)
{
	return isfinite(t_s) && t_s >= 0 && t_s < TIME_LIMIT_S;
}

bool tseries_add(struct tseries *s, double t_s, const double *v)
{
	if (!v || !time_usable(t_s) || (s->have_clock && t_s < s->clock_s))
		return false;
	for (int i = 0; i < TS_TIER_COUNT; i++)
		tier_add(&s->tier[i], s->m, t_s, v);
	s->have_clock = true;
	s->clock_s = t_s;
	if (!s->have_data)
		s->first_s = t_s;
	s->have_data = true;
	return true;
}

bool tseries_mark_gap(struct tseries *s, double t_s)
{
	if (!time_usable(t_s))
		return false;
	/* a gap cannot reach back before data already stored */
	if (s->have_clock && t_s < s->clock_s)
		t_s = s->clock_s;
	for (int i = 0; i < TS_TIER_COUNT; i++)
		tier_open(&s->tier[i], tier_idx(&s->tier[i], t_s))->gap = 1;
	s->have_clock = true;
	s->clock_s = t_s;
	return true;
}

bool tseries_has_data(const struct tseries *s)
{
	return s->have_data;
}

double tseries_first_time(const struct tseries *s)
{
	int64_t lo, hi;
	double oldest;

	if (!s->have_data)
		return 0;
	tseries_tier_range(s, TS_TIER_COUNT - 1, &lo, &hi);
	oldest = (double)lo * s->tier[TS_TIER_COUNT - 1].width_s;
	return s->first_s < oldest ? oldest : s->first_s;
}

int tseries_tier_covering(const struct tseries *s, double from_s)
{
	for (int i = 0; i < TS_TIER_COUNT; i++) {
		int64_t lo, hi;

		tseries_tier_range(s, i, &lo, &hi);
		if (from_s >= (double)lo * s->tier[i].width_s)
			return i;
	}
	return TS_TIER_COUNT - 1;
}

static void bucket_clear(struct ts_bucket *b, double t_s)
{
	b->t_s = t_s;
	b->gap = false;
	for (int k = 0; k < TS_MAX_METRICS; k++)
		b->min[k] = b->max[k] = b->mean[k] = b->last[k] = NAN;
}

size_t tseries_query(const struct tseries *s, double from_s, double to_s, size_t max_out,
	struct ts_bucket *out)
{
	int ti;
	double width;
	int64_t i0, i1, g, lo, hi, base;
	size_t n_out;

	if (!s || !s->have_clock || max_out == 0 || !out || !isfinite(from_s) || !isfinite(to_s) ||
	    to_s < from_s)
		return 0;
	if (max_out > QUERY_MAX_OUT)
		max_out = QUERY_MAX_OUT;
	from_s = fmin(fmax(from_s, 0), TIME_LIMIT_S - 1);
	to_s = fmin(fmax(to_s, 0), TIME_LIMIT_S - 1);
	ti = tseries_tier_covering(s, from_s);
	width = s->tier[ti].width_s;
	tseries_tier_range(s, ti, &lo, &hi);
	i0 = (int64_t)floor(from_s / width);
	i1 = (int64_t)floor(to_s / width);
	/* Groups of g buckets aligned to multiples of g, so that a chart redrawn a second later
	 * merges the same buckets and does not shimmer. g depends only on the length of the
	 * range, and is the smallest that fits max_out groups whatever the alignment, so that
	 * the width does not flip as time moves either. */
	if (max_out == 1) {
		g = i1 - i0 + 1;
		base = i0;
	} else {
		g = (i1 - i0 + (int64_t)max_out - 2) / ((int64_t)max_out - 1);
		if (g < 1)
			g = 1;
		while (i1 / g - i0 / g + 1 > (int64_t)max_out)
			g++;
		base = i0 / g * g;
	}
	n_out = (size_t)((i1 - base) / g + 1);

	for (size_t j = 0; j < n_out; j++) {
		struct ts_bucket *b = &out[j];
		int64_t a = base + (int64_t)j * g, e = a + g - 1;
		double wsum[TS_MAX_METRICS] = { 0 }, w[TS_MAX_METRICS] = { 0 };

		bucket_clear(b, (double)a * width);
		if (a < lo)
			a = lo;
		if (e > hi)
			e = hi;
		for (int64_t idx = a; idx <= e; idx++) {
			const struct ts_slot *sl = tseries_slot(s, ti, idx);

			if (!sl)
				continue;
			if (sl->gap)
				b->gap = true;
			for (int k = 0; k < s->m; k++) {
				if (!sl->n[k])
					continue;
				if (isnan(b->min[k]) || sl->min[k] < b->min[k])
					b->min[k] = sl->min[k];
				if (isnan(b->max[k]) || sl->max[k] > b->max[k])
					b->max[k] = sl->max[k];
				b->last[k] = sl->last[k];
				wsum[k] += (double)sl->n[k] * (double)sl->mean[k];
				w[k] += sl->n[k];
			}
		}
		for (int k = 0; k < s->m; k++)
			if (w[k] > 0)
				b->mean[k] = wsum[k] / w[k];
	}
	return n_out;
}
