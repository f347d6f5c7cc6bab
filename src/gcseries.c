/* gcseries.c: see gcseries.h. */
#include "config.h"
#include "gcseries.h"

/* gcseries.c: heap used after the target's major collections, in two fixed-size rings.
 *
 * Each bucket keeps the sums that a least-squares line needs (count, and the sums of t, t^2,
 * y, y^2 and t*y, with t measured from the bucket's start so that unix times do not eat the
 * precision), so a fit over any run of buckets is the exact fit over the collections in them,
 * however coarse the buckets. Ten-second buckets cover the last day, ten-minute ones the last
 * 31 days (the longest --growth-window); both are allocated once, at their full size. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define TIER_COUNT 2
#define TIME_LIMIT_S 4294967295.0
/* Above 1 PB a size is not real. */
#define VALUE_LIMIT 1e15
/* A batch longer than this is not one of ours (the detail reading comes every few seconds). */
#define BATCH_MAX_S 3600.0

struct bucket {
	uint32_t idx;      /* bucket number; valid only if it matches and gen is current */
	uint32_t gen;
	uint32_t n;
	float tmin, tmax;  /* first and last collection, from the bucket's start */
	double st, stt, sy, syy, sty;
	double ymin;       /* the smallest heap left by a collection in the bucket */
};

struct tier {
	double width_s;
	uint32_t cap;
	struct bucket *b;
};

static const struct {
	double width_s;
	uint32_t cap;
} tier_spec[TIER_COUNT] = {
	{ 10.0, 24 * 360 + 60 },        /* a day, plus ten minutes */
	{ 600.0, 31 * 24 * 6 + 6 },     /* 31 days, plus an hour */
};

struct gcseries {
	struct tier tier[TIER_COUNT];
	uint32_t gen;       /* bumped at every gap: buckets of an older generation are empty */
	bool have_clock;
	double clock_s;     /* latest time seen */
	double since_s;     /* coverage starts here; NAN when the observer has not reported */
	double last_s;      /* end of the latest batch; NAN if none */
};

struct gcseries *gcseries_create(void)
{
	struct gcseries *g = xcalloc(1, sizeof *g);

	for (int i = 0; i < TIER_COUNT; i++) {
		g->tier[i].width_s = tier_spec[i].width_s;
		g->tier[i].cap = tier_spec[i].cap;
		g->tier[i].b = xcalloc(tier_spec[i].cap, sizeof(struct bucket));
	}
	g->gen = 1;
	g->since_s = NAN;
	g->last_s = NAN;
	return g;
}

void gcseries_free(struct gcseries *g)
{
	if (!g)
		return;
	for (int i = 0; i < TIER_COUNT; i++)
		free(g->tier[i].b);
	free(g);
}

size_t gcseries_bytes(const struct gcseries *g)
{
	size_t n = sizeof *g;

	for (int i = 0; i < TIER_COUNT; i++)
		n += (size_t)g->tier[i].cap * sizeof(struct bucket);
	return n;
}

static bool time_ok(double t_s)
{
	return isfinite(t_s) && t_s >= 0 && t_s < TIME_LIMIT_S;
}

/* Oldest and newest bucket numbers the tier's ring holds. */
static void tier_range(const struct gcseries *g, const struct tier *t, int64_t *lo, int64_t *hi)
{
	*hi = (int64_t)floor(g->clock_s / t->width_s);
	*lo = *hi - (int64_t)t->cap + 1;
}

static const struct bucket *tier_get(const struct gcseries *g, const struct tier *t, int64_t idx)
{
	const struct bucket *b;

	if (idx < 0 || idx > UINT32_MAX)
		return NULL;
	b = &t->b[(uint32_t)idx % t->cap];
	return b->idx == (uint32_t)idx && b->gen == g->gen && b->n ? b : NULL;
}

static void tier_put(struct gcseries *g, struct tier *t, double t_s, double y)
{
	int64_t lo, hi, idx = (int64_t)floor(t_s / t->width_s);
	struct bucket *b;
	double dt;

	tier_range(g, t, &lo, &hi);
	if (idx < lo || idx > hi)
		return;
	b = &t->b[(uint32_t)idx % t->cap];
	if (b->idx != (uint32_t)idx || b->gen != g->gen) {
		*b = (struct bucket){ .idx = (uint32_t)idx, .gen = g->gen };
	}
	dt = t_s - (double)idx * t->width_s;
	if (b->n == 0 || dt < b->tmin)
		b->tmin = (float)dt;
	if (b->n == 0 || dt > b->tmax)
		b->tmax = (float)dt;
	if (b->n == 0 || y < b->ymin)
		b->ymin = y;
	if (b->n < UINT32_MAX)
		b->n++;
	b->st += dt;
	b->stt += dt * dt;
	b->sy += y;
	b->syy += y * y;
	b->sty += dt * y;
}

void gcseries_add(struct gcseries *g, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n)
{
	size_t i, j, k = 0;

	if (!time_ok(end_s) || !isfinite(dur_s) || dur_s < 0 || dur_s > BATCH_MAX_S)
		return;
	if (g->have_clock && end_s < g->clock_s)
		end_s = g->clock_s; /* a late reply: date it now */
	if (dur_s > end_s)
		dur_s = end_s;
	g->have_clock = true;
	g->clock_s = end_s;
	if (isnan(g->since_s))
		g->since_s = end_s - dur_s;
	g->last_s = end_s;
	for (i = 0; i < n; i++)
		if (isfinite(used[i]) && used[i] >= 0 && used[i] <= VALUE_LIMIT)
			k++;
	for (i = 0, j = 0; i < n; i++) {
		double t_s;

		if (!(isfinite(used[i]) && used[i] >= 0 && used[i] <= VALUE_LIMIT))
			continue;
		if (ago_s && isfinite(ago_s[i]) && ago_s[i] >= 0 && ago_s[i] <= dur_s)
			t_s = end_s - ago_s[i];
		else
			t_s = end_s - dur_s + dur_s * ((double)j + 0.5) / (double)k;
		j++;
		for (int m = 0; m < TIER_COUNT; m++)
			tier_put(g, &g->tier[m], t_s, used[i]);
	}
}

void gcseries_restart(struct gcseries *g, double t_s)
{
	if (!time_ok(t_s))
		return;
	if (g->have_clock && t_s < g->clock_s)
		t_s = g->clock_s;
	g->have_clock = true;
	g->clock_s = t_s;
	g->since_s = t_s;
	g->last_s = t_s;
}

void gcseries_mark_gap(struct gcseries *g, double t_s)
{
	if (time_ok(t_s) && (!g->have_clock || t_s > g->clock_s)) {
		g->have_clock = true;
		g->clock_s = t_s;
	}
	g->gen++;
	g->since_s = NAN;
	g->last_s = NAN;
}

/* The finest tier whose ring still reaches back to from_s (the coarsest if none does). */
static const struct tier *tier_covering(const struct gcseries *g, double from_s)
{
	for (int i = 0; i < TIER_COUNT; i++) {
		const struct tier *t = &g->tier[i];
		int64_t lo, hi;

		tier_range(g, t, &lo, &hi);
		if (from_s >= (double)lo * t->width_s)
			return t;
	}
	return &g->tier[TIER_COUNT - 1];
}

bool gcseries_fit(const struct gcseries *g, double start_s, double end_s, struct gc_fit *f)
{
	const struct tier *t;
	int64_t a, b, lo, hi;
	double sn = 0, st = 0, stt = 0, sy = 0, syy = 0, sty = 0, sxx, sxy, syy_c, ss;

	double mid_s, min1 = INFINITY, min2 = INFINITY;

	f->n = 0;
	f->start_s = f->end_s = f->first_s = f->last_s = NAN;
	f->mean = f->slope_per_s = f->slope_se = f->floor_rise = NAN;
	if (isnan(g->since_s) || isnan(g->last_s) || !isfinite(start_s) || !isfinite(end_s) ||
	    g->last_s < end_s - GCSERIES_SILENT_S)
		return false;
	f->start_s = fmax(start_s, g->since_s);
	f->end_s = fmin(end_s, g->last_s);
	if (!(f->end_s > f->start_s))
		return true;
	t = tier_covering(g, f->start_s);
	tier_range(g, t, &lo, &hi);
	a = (int64_t)floor(f->start_s / t->width_s);
	b = (int64_t)floor(f->end_s / t->width_s);
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	mid_s = (f->start_s + f->end_s) / 2;
	/* t is measured from the start of bucket a: the sums stay small */
	for (int64_t idx = a; idx <= b; idx++) {
		const struct bucket *k = tier_get(g, t, idx);
		double off = (double)(idx - a) * t->width_s, n;

		if (!k)
			continue;
		n = (double)k->n;
		if ((double)idx * t->width_s + k->st / n < mid_s)
			min1 = fmin(min1, k->ymin);
		else
			min2 = fmin(min2, k->ymin);
		if (isnan(f->first_s))
			f->first_s = (double)idx * t->width_s + k->tmin;
		f->last_s = (double)idx * t->width_s + k->tmax;
		sn += n;
		st += k->st + n * off;
		stt += k->stt + 2 * off * k->st + n * off * off;
		sy += k->sy;
		syy += k->syy;
		sty += k->sty + off * k->sy;
	}
	f->n = (size_t)sn;
	if (isfinite(min1) && isfinite(min2))
		f->floor_rise = min2 - min1;
	if (sn < 1)
		return true;
	f->mean = sy / sn;
	if (sn < 3)
		return true;
	sxx = stt - st * st / sn;
	sxy = sty - st * sy / sn;
	syy_c = syy - sy * sy / sn;
	if (!(sxx > 0))
		return true;
	f->slope_per_s = sxy / sxx;
	ss = syy_c - f->slope_per_s * sxy; /* residual sum of squares */
	if (!(ss > 0))
		ss = 0;
	f->slope_se = sqrt(ss / (sn - 2) / sxx);
	return true;
}

size_t gcseries_points(const struct gcseries *g, double start_s, double end_s, double *t_s,
	double *used, size_t max)
{
	const struct tier *t;
	int64_t a, b, lo, hi;
	size_t n = 0;

	if (!g->have_clock || !isfinite(start_s) || !isfinite(end_s) || end_s < start_s)
		return 0;
	t = tier_covering(g, start_s);
	tier_range(g, t, &lo, &hi);
	a = (int64_t)floor(fmax(start_s, 0) / t->width_s);
	b = (int64_t)floor(fmin(end_s, TIME_LIMIT_S - 1) / t->width_s);
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	for (int64_t idx = a; idx <= b && n < max; idx++) {
		const struct bucket *k = tier_get(g, t, idx);

		if (!k)
			continue;
		t_s[n] = (double)idx * t->width_s + k->st / (double)k->n;
		used[n] = k->sy / (double)k->n;
		n++;
	}
	return n;
}
