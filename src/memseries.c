/* memseries.c: see memseries.h. */
#include "config.h"
#include "memseries.h"

/* memseries.c: the target's memory over time, and its growth rate.
 *
 * Storage. The readings are a tseries (tseries.c: 1 s buckets for the last hour, 1 min for
 * the last week, 1 h for the last year, each with the minimum, maximum, mean and last value
 * of every metric), about 2.2 MB for a year, plus 0.7 MB for the post-GC sizes (gcseries.c).
 * This file adds what memory needs on top: sizes from the target validated, the latest
 * reading carried forward, and the growth rule.
 *
 * Growth rule. Heap used follows the GC sawtooth: it climbs while the program allocates and
 * drops at each collection. The tops say how busy the program is; the troughs (what survives
 * a collection) say whether it keeps memory. So the rate is read from the troughs:
 *   1. The span is the last window_s seconds (300 by default), cut short at the first
 *      reading after the last gap (a restart or re-attach: the fit never bridges a gap) and
 *      ending at the last reading.
 *   2. The span is split into k = 10 equal sub-intervals (fewer when a sub-interval would be
 *      shorter than 3 s); the lowest heap_used reading of each, placed at the time of the
 *      bucket holding it, is that sub-interval's floor (read from the finest tier that still
 *      holds the whole span). A GC cycle shorter than a sub-interval therefore always shows
 *      its trough; slower cycles show as noise on the floors (use a longer span).
 *   3. A least-squares line through the floors gives the slope, reported in bytes per hour,
 *      and R^2 says how well a line explains them.
 *   4. A reading taken just after a collection sits above the true trough by up to what the
 *      program allocates between two readings, and when the GC period drifts slowly
 *      against the reading interval that offset drifts too, which draws a ramp through a
 *      flat floor. So the step, the median rise of heap_used between consecutive readings
 *      (over the span, or over the last hour when the span is longer), is an allowance.
 *   5. Verdict: UNKNOWN when the span is under 30 s or there are fewer than 5 floors;
 *      GROWING when the fitted rise over the span (slope x span) exceeds
 *      max(1 MiB, 2 % of the mean floor) + step and R^2 >= 0.5; SHRINKING when the fall
 *      exceeds the same amount with R^2 >= 0.5; STABLE otherwise.
 * RSS gets the same fit on its own floors (rate only; the verdict is the heap's).
 *
 * Post-GC rule. Troughs can be garbage that V8 has not collected yet (it puts major
 * collections off). When the target's observer of collections reports (gcseries.c), the heap used after
 * each major collection is the live heap, and takes precedence: with at least 5 of them in
 * a span of at least 60 s, the first and last at least half the span apart, the rate is their least-squares
 * slope and the verdict is GROWING (SHRINKING) when the rise (fall) over the span exceeds
 * max(1 MiB, 2 % of their mean) and the slope is at least 4 standard errors from 0, and the
 * majors of the span's second half move the same way by half that on their own (else STABLE
 * when they lie flat, UNKNOWN when they do not); STABLE otherwise. With fewer, the trough rule runs, but its GROWING (SHRINKING) stands only over
 * 60 s with at least 3 majors, each higher (lower) than the one before and the last above
 * (below) the first by more than the limit, none below the troughs' line by more than
 * max(limit, a quarter of the rise): otherwise STABLE when two or more majors, spread over
 * half the span, lie so close that their range drawn out to the span stays under
 * max(1 MiB, 2 % of the mean floor), else UNKNOWN for a rise (STABLE for a fall).
 * doc/growth-rule.txt says it in prose. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "gcseries.h"
#include "tseries.h"
#include "util.h"

#define M MEM_METRIC_COUNT
_Static_assert(MEM_METRIC_COUNT <= TS_MAX_METRICS, "memory metrics fit a tseries");
/* A reading above this (1 PB) is not a real size: treated as not read. */
#define VALUE_LIMIT 1e15

#define GROWTH_DEFAULT_WINDOW_S 300.0
#define GROWTH_MIN_SPAN_S 30.0
#define GROWTH_MIN_FLOORS 5
#define GROWTH_SUBINTERVALS 10
#define GROWTH_MIN_SUB_S 3.0
#define GROWTH_MIN_RISE_BYTES (1024.0 * 1024.0)
#define GROWTH_MIN_RISE_FRACTION 0.02
#define GROWTH_MIN_R2 0.5
/* Post-GC rule: at least this many major collections, spread over half the span, and a slope
 * at least this many standard errors from 0. */
#define GROWTH_MIN_MAJORS 5
#define GROWTH_MAJORS_SPREAD 0.5
#define GROWTH_MIN_T 4.0
/* ...over a span of at least a minute: the first seconds after a program starts can raise
 * its live heap (compiled code, caches) and a few collections do not tell that from a leak */
#define GROWTH_POST_GC_MIN_SPAN_S 60.0
/* Too few majors: the troughs stand for the live heap only if no major collection left the
 * heap more than this share of the troughs' rise (or the rise limit) below their line. */
#define GROWTH_TROUGH_GC_TOLERANCE 0.25
/* Major collections that must confirm climbing troughs. */
#define GROWTH_TROUGH_MIN_MAJORS 3
/* ...each rising (falling) from the one before at within this factor of their mean rate */
#define GROWTH_TROUGH_RATE_FACTOR 2.0

struct memseries {
	struct tseries *ts;
	struct mem_sample last;     /* latest reading, metrics carried forward */
	bool have_last;
	double seg_first_s;         /* first reading since the last gap; NAN if none yet */
	double gap_s;               /* the last gap; NAN if none */
	struct gcseries *gc;        /* heap used after major collections, when the target says */
};

struct memseries *memseries_create(void)
{
	struct memseries *s = xcalloc(1, sizeof *s);

	s->ts = tseries_create(M);
	s->last.t_s = 0;
	for (int k = 0; k < M; k++)
		s->last.v[k] = NAN;
	s->seg_first_s = NAN;
	s->gap_s = NAN;
	s->gc = gcseries_create();
	return s;
}

void memseries_free(struct memseries *s)
{
	if (!s)
		return;
	tseries_free(s->ts);
	gcseries_free(s->gc);
	free(s);
}

size_t memseries_bytes(const struct memseries *s)
{
	return sizeof *s + tseries_bytes(s->ts) + gcseries_bytes(s->gc);
}

void memseries_add(struct memseries *s, const struct mem_sample *m)
{
	double v[M];

	if (!m)
		return;
	for (int k = 0; k < M; k++) {
		double x = m->v[k];
		/* sizes from the target: anything that is not a plausible byte count is "not read" */
		v[k] = isfinite(x) && x >= 0 && x <= VALUE_LIMIT ? x : NAN;
	}
	if (!tseries_add(s->ts, m->t_s, v))
		return;
	if (isnan(s->seg_first_s))
		s->seg_first_s = m->t_s;
	s->have_last = true;
	s->last.t_s = m->t_s;
	for (int k = 0; k < M; k++)
		if (!isnan(v[k]))
			s->last.v[k] = v[k];
}

void memseries_mark_gap(struct memseries *s, double t_s)
{
	if (!tseries_mark_gap(s->ts, t_s))
		return;
	/* a gap cannot reach back before data already stored */
	if (s->have_last && t_s < s->last.t_s)
		t_s = s->last.t_s;
	if (!isnan(s->gap_s) && t_s < s->gap_s)
		t_s = s->gap_s;
	s->gap_s = t_s;
	s->seg_first_s = NAN;
	gcseries_mark_gap(s->gc, t_s);
	/* values carried forward belonged to the process before the gap */
	for (int k = 0; k < M; k++)
		s->last.v[k] = NAN;
}

void memseries_add_post_gc(struct memseries *s, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n)
{
	gcseries_add(s->gc, end_s, dur_s, used, ago_s, n);
}

void memseries_post_gc_restart(struct memseries *s, double t_s)
{
	gcseries_restart(s->gc, t_s);
}

const struct mem_sample *memseries_last(const struct memseries *s)
{
	return s->have_last ? &s->last : NULL;
}

double memseries_first_time(const struct memseries *s)
{
	return tseries_first_time(s->ts);
}

size_t memseries_query(const struct memseries *s, double from_s, double to_s, size_t max_out,
	struct ts_bucket *out)
{
	return tseries_query(s->ts, from_s, to_s, max_out, out);
}

const struct tseries *memseries_tseries(const struct memseries *s)
{
	return s->ts;
}

struct fit {
	size_t n;
	double slope_per_s;
	double r2;
	double mean_x;
	double mean_y;
};

/* Least squares through (x, y); x is centred first so that unix times do not eat the
 * precision. */
static void fit_line(const double *x, const double *y, size_t n, struct fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;

	f->n = n;
	f->slope_per_s = NAN;
	f->r2 = NAN;
	f->mean_x = NAN;
	f->mean_y = NAN;
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	f->mean_x = mx;
	f->mean_y = my;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;

		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (n < 2 || !(sxx > 0))
		return;
	f->slope_per_s = sxy / sxx;
	/* all floors equal: a flat line explains them perfectly */
	f->r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
}

/* Floors of metric k over buckets [a, b] of tier t, fitted. */
static void floors_fit(const struct tseries *ts, int t, int64_t a, int64_t b, int k,
	struct fit *f)
{
	double x[GROWTH_SUBINTERVALS], y[GROWTH_SUBINTERVALS];
	double width = tseries_tier_width(ts, t);
	int64_t nb = b - a + 1, per = width < GROWTH_MIN_SUB_S ?
		(int64_t)ceil(GROWTH_MIN_SUB_S / width) : 1;
	int64_t nsub = nb / per;
	size_t n = 0;

	if (nsub > GROWTH_SUBINTERVALS)
		nsub = GROWTH_SUBINTERVALS;
	for (int64_t j = 0; j < nsub; j++) {
		int64_t sa = a + j * nb / nsub, sb = a + (j + 1) * nb / nsub - 1;
		double best = NAN, best_t = 0;

		for (int64_t idx = sa; idx <= sb; idx++) {
			const struct ts_slot *sl = tseries_slot(ts, t, idx);

			if (sl && sl->n[k] && (isnan(best) || sl->min[k] < best)) {
				best = sl->min[k];
				best_t = ((double)idx + 0.5) * width;
			}
		}
		if (!isnan(best)) {
			x[n] = best_t;
			y[n] = best;
			n++;
		}
	}
	fit_line(x, y, n, f);
}

static bool fit_usable(const struct fit *f, double span_s)
{
	return span_s >= GROWTH_MIN_SPAN_S && f->n >= GROWTH_MIN_FLOORS && isfinite(f->slope_per_s);
}

/* Buckets [*a, *b] of tier t that cover [start_s, end_s], are still held, and come after the
 * last gap: the bucket holding the gap may hold readings from before it too, so it is out. */
static bool span_buckets(const struct memseries *s, int t, double start_s, double end_s,
	int64_t *a, int64_t *b)
{
	double width = tseries_tier_width(s->ts, t);
	int64_t lo, hi;

	tseries_tier_range(s->ts, t, &lo, &hi);
	*a = (int64_t)floor(start_s / width);
	*b = (int64_t)floor(end_s / width);
	if (!isnan(s->gap_s) && (int64_t)floor(s->gap_s / width) >= *a)
		*a = (int64_t)floor(s->gap_s / width) + 1;
	if (*a < lo)
		*a = lo;
	if (*b > hi)
		*b = hi;
	return *b >= *a;
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;

	return (x > y) - (x < y);
}

/* The median rise of metric k from one reading to the next, from the 1 s tier (so over the
 * last hour at most); 0 when it never rises. */
static double reading_step(const struct memseries *s, double start_s, double end_s, int k)
{
	const int t = 0;
	int64_t a, b, prev = -1;
	double *d, prev_v = 0, med = 0;
	size_t n = 0;

	if (!span_buckets(s, t, start_s, end_s, &a, &b))
		return 0;
	d = xmalloc((size_t)(b - a + 1) * sizeof *d);
	for (int64_t idx = a; idx <= b; idx++) {
		const struct ts_slot *sl = tseries_slot(s->ts, t, idx);

		if (!sl || !sl->n[k])
			continue;
		/* a pause of more than a minute is not "the next reading" */
		if (prev >= 0 && idx - prev <= 60 && sl->last[k] > prev_v)
			d[n++] = sl->last[k] - prev_v;
		prev = idx;
		prev_v = sl->last[k];
	}
	if (n > 0) {
		qsort(d, n, sizeof *d, cmp_double);
		med = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
	}
	free(d);
	return med;
}

/* How many standard errors a slope fitted through n points must be from 0 to be told apart
 * from chance (one-sided, Student's t with n - 2 degrees of freedom) at the 0.01 % level
 * (strict: a run makes a verdict every window, each a new chance) or the 1 % level (the
 * troughs' rule, where the collections' order and rate are checked too), and never less than
 * GROWTH_MIN_T. A fixed 4 let through 1 to 3 runs in 100 of a simulated wave program (majors
 * left at random sizes) as growing, and CI met one (test_memseries, doc/growth-rule.txt). */
static double slope_t_needed(size_t n, bool strict)
{
	static const double t0001[] = { 0, 3183.1, 70.70, 22.20, 13.03, 9.68, 8.02, 7.06, 6.44,
		6.01, 5.69, 5.45, 5.26, 5.11, 4.99, 4.88, 4.79, 4.71, 4.65, 4.59, 4.54, 4.49, 4.45,
		4.42, 4.38, 4.35, 4.32, 4.30, 4.28, 4.25, 4.23 };
	static const double t01[] = { 0, 31.82, 6.96, 4.54 };
	size_t df = n > 2 ? n - 2 : 0;

	if (df == 0)
		return INFINITY;
	if (strict && df < sizeof t0001 / sizeof t0001[0])
		return fmax(GROWTH_MIN_T, t0001[df]);
	if (!strict && df < sizeof t01 / sizeof t01[0])
		return fmax(GROWTH_MIN_T, t01[df]);
	return GROWTH_MIN_T;
}

/* Enough major collections: the rate and verdict are theirs. A rise or fall beyond the limit
 * that is 4 standard errors out but not yet at the 0.01 % level for so few collections is
 * UNKNOWN, not STABLE: a leak whose collections scatter is not told stable while they gather. */
static void post_gc_verdict(const struct gc_fit *g, struct mem_growth *out)
{
	double span = g->end_s - g->start_s, rise = g->slope_per_s * span,
		limit = fmax(GROWTH_MIN_RISE_BYTES, GROWTH_MIN_RISE_FRACTION * g->mean);
	double t = g->slope_se > 0 ? fabs(g->slope_per_s) / g->slope_se : INFINITY;
	/* Seen in the smallest heaps too: a program whose live heap swings (a batch built up,
	 * then dropped) leaves collections high or low by chance, and a run of high ones late in
	 * the span tilts the line without raising the floor. */
	bool floor = isfinite(g->floor_rise) && fabs(g->floor_rise) > limit &&
		(g->floor_rise > 0) == (g->slope_per_s > 0);
	bool moved = fabs(rise) > limit && floor && t >= GROWTH_MIN_T;

	out->basis = MEM_BASIS_POST_GC;
	out->window_s = span;
	out->heap_bytes_per_hour = g->slope_per_s * 3600.0;
	if (moved && t >= slope_t_needed(g->n, true))
		out->verdict = rise > 0 ? MEM_GROWING : MEM_SHRINKING;
	else if (moved)
		out->verdict = MEM_UNKNOWN;
	else
		out->verdict = MEM_STABLE;
}

/* The span's second half on its own: the sizes after its majors (ten-second buckets) must move
 * the way the whole span's line does, by at least half the limit over the half, or the verdict
 * does not stand: they lie flat (drawn out to the span, under the limit) and it is STABLE, else
 * UNKNOWN. A program whose live heap grew while it started and then stayed level is not growing
 * now: Node 26's wave program went from 10.8 MB to 30.0 MB in its first 27 s, then left 30.0 MB
 * at every collection, and the line over its first minute and a half read growing (CI). */
static enum mem_verdict recent_half(const struct gcseries *gc, const struct gc_fit *g,
	double limit, enum mem_verdict v)
{
	double pt[64], pu[64], mid = (g->start_s + g->end_s) / 2, half = g->end_s - mid;
	double mt = 0, mu = 0, sxx = 0, sxy = 0, lo, hi, rise, pace;
	size_t n, i;

	n = gcseries_points(gc, mid, g->end_s, pt, pu, 64);
	/* One collection in the second half (a starved machine put them off: Node 18's leak in
	 * CI had four in the first half of its span and one in the second): it and the last one
	 * before it tell the recent pace. None at all tell nothing, whatever the troughs do. */
	if (n == 1) {
		double bt[64], bu[64];
		size_t m = gcseries_points(gc, g->start_s, mid, bt, bu, 64);

		while (m > 0 && !(bt[m - 1] < pt[0]))
			m--;
		if (m == 0)
			return MEM_UNKNOWN;
		pt[1] = pt[0];
		pu[1] = pu[0];
		pt[0] = bt[m - 1];
		pu[0] = bu[m - 1];
		n = 2;
	}
	if (n < 2)
		return MEM_UNKNOWN;
	for (i = 0; i < n; i++) {
		mt += pt[i] / (double)n;
		mu += pu[i] / (double)n;
	}
	lo = hi = pu[0];
	for (i = 0; i < n; i++) {
		sxx += (pt[i] - mt) * (pt[i] - mt);
		sxy += (pt[i] - mt) * (pu[i] - mu);
		lo = fmin(lo, pu[i]);
		hi = fmax(hi, pu[i]);
	}
	if (!(sxx > 0))
		return MEM_UNKNOWN;
	rise = sxy / sxx * half;
	/* ...and at a third of the whole line's pace at least: a start that levelled off slowly
	 * (Node 26's wave program in a loaded CI: the post-GC sizes climbed through the first
	 * 50 s, and the line to 75 s read growing for five windows) rises in the second half,
	 * but far slower than over the span; a leak keeps its pace */
	pace = g->slope_per_s * half / 3;
	if (v == MEM_GROWING ? rise > fmax(limit / 2, pace) : rise < fmin(-limit / 2, pace))
		return v;
	if ((hi - lo) * (g->end_s - g->start_s) / (pt[n - 1] - pt[0]) <= limit)
		return MEM_STABLE;
	return MEM_UNKNOWN;
}

/* Too few major collections for their own line. The troughs may be garbage V8 put off
 * collecting, and they fall when it finally does; they stand for the live heap only over a
 * span as long as the post-GC rule's (a program's heap grows while it warms up), if at least
 * three major collections in it left the heap not far below the troughs' line, and the sizes after
 * them move one to the next the way the troughs do (rise for a rise, fall for a fall), and by
 * as much as a verdict needs first to last: majors a few hundred KB apart, each a little
 * lower, are a stable heap whatever the troughs do (a sawtooth read "shrinking" in CI). */
static bool troughs_confirmed(const struct gcseries *gc, const struct gc_fit *g,
	const struct fit *heap, double rise, double limit, double span_s)
{
	double tol = fmax(limit, GROWTH_TROUGH_GC_TOLERANCE * fabs(rise));
	double pt[64], pu[64];
	size_t n;

	if (g->n < GROWTH_TROUGH_MIN_MAJORS || span_s < GROWTH_POST_GC_MIN_SPAN_S)
		return false;
	n = gcseries_points(gc, g->start_s, g->end_s, pt, pu, 64);
	if (n < 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		double line = heap->mean_y + heap->slope_per_s * (pt[i] - heap->mean_x);

		if (line - pu[i] > tol)
			return false;
		if (i > 0 && !(rise > 0 ? pu[i] > pu[i - 1] : pu[i] < pu[i - 1]))
			return false;
	}
	/* ...at a steady rate, on a line that is not chance: a leak raises each collection by
	 * about its rate times the time since the one before; majors at random sizes that happen
	 * to come in rising order (1 time in 6 for three) seldom keep to a rate or a line. */
	if (!(fabs(g->slope_per_s) >= slope_t_needed(g->n, false) * g->slope_se) ||
	    (g->slope_per_s > 0) != (rise > 0))
		return false;
	if (pt[n - 1] > pt[0]) {
		double r = (pu[n - 1] - pu[0]) / (pt[n - 1] - pt[0]);

		for (size_t i = 1; i < n; i++) {
			double q = (pu[i] - pu[i - 1]) / (pt[i] - pt[i - 1]) / r;

			if (!(q >= 1 / GROWTH_TROUGH_RATE_FACTOR && q <= GROWTH_TROUGH_RATE_FACTOR))
				return false;
		}
	}
	return rise > 0 ? pu[n - 1] - pu[0] > limit : pu[0] - pu[n - 1] > limit;
}

/* Two or more major collections, spread over half a span of a minute or more, whose sizes
 * after them differ so little that, drawn out to the whole span, the live heap rose by less
 * than the limit: whatever the troughs do, it did not grow (a leak raises every collection
 * after it). Under load, the sawtooth target sees two or three in its minute. */
static bool majors_flat(const struct gcseries *gc, const struct gc_fit *g, double limit,
	double span_s)
{
	double pt[64], pu[64], lo, hi;
	size_t n;

	if (g->n < 2 || span_s < GROWTH_POST_GC_MIN_SPAN_S)
		return false;
	n = gcseries_points(gc, g->start_s, g->end_s, pt, pu, 64);
	if (n < 2 || pt[n - 1] - pt[0] < GROWTH_MAJORS_SPREAD * span_s)
		return false;
	lo = hi = pu[0];
	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, pu[i]);
		hi = fmax(hi, pu[i]);
	}
	return (hi - lo) * span_s / (pt[n - 1] - pt[0]) <= limit;
}

void memseries_growth(const struct memseries *s, double window_s, double now_s,
	struct mem_growth *out)
{
	int t;
	double start_s, end_s, span_s, rise, limit, base_limit;
	int64_t a, b;
	struct fit heap, rss;
	struct gc_fit g;
	bool covered;

	out->heap_bytes_per_hour = NAN;
	out->rss_bytes_per_hour = NAN;
	out->window_s = 0;
	out->verdict = MEM_UNKNOWN;
	out->n_floors = 0;
	out->basis = MEM_BASIS_TROUGHS;
	out->major_gcs = -1;
	out->significant = false;
	if (!(window_s > 0) || !isfinite(window_s))
		window_s = GROWTH_DEFAULT_WINDOW_S;
	if (!s->have_last || isnan(s->seg_first_s) || !isfinite(now_s))
		return;
	end_s = fmin(now_s, s->last.t_s);
	start_s = fmax(now_s - window_s, s->seg_first_s);
	if (end_s < start_s)
		return;
	span_s = end_s - start_s;
	out->window_s = span_s;

	t = tseries_tier_covering(s->ts, start_s);
	if (!span_buckets(s, t, start_s, end_s, &a, &b))
		return;
	floors_fit(s->ts, t, a, b, MEM_HEAP_USED, &heap);
	floors_fit(s->ts, t, a, b, MEM_RSS, &rss);
	out->n_floors = heap.n;
	if (fit_usable(&rss, span_s))
		out->rss_bytes_per_hour = rss.slope_per_s * 3600.0;

	covered = gcseries_fit(s->gc, start_s, end_s, &g);
	if (covered)
		out->major_gcs = (long)g.n;
	/* The span the observer covered ends at its latest batch, seconds before now. Measured to
	 * now instead, the rule started 10 s sooner, still in the first minute after the attach,
	 * and read Node 18's wave program as growing in CI: the full minute of batches is kept. */
	if (covered && g.end_s - g.start_s >= GROWTH_POST_GC_MIN_SPAN_S && g.n >= GROWTH_MIN_MAJORS &&
	    isfinite(g.slope_per_s) && isfinite(g.slope_se) &&
	    g.last_s - g.first_s >= GROWTH_MAJORS_SPREAD * (g.end_s - g.start_s)) {
		post_gc_verdict(&g, out);
		if (out->verdict == MEM_GROWING || out->verdict == MEM_SHRINKING)
			out->verdict = recent_half(s->gc, &g, fmax(GROWTH_MIN_RISE_BYTES,
				GROWTH_MIN_RISE_FRACTION * g.mean), out->verdict);
		out->significant = out->verdict == MEM_GROWING || out->verdict == MEM_SHRINKING;
		return;
	}

	if (!fit_usable(&heap, span_s))
		return;
	out->heap_bytes_per_hour = heap.slope_per_s * 3600.0;
	rise = heap.slope_per_s * span_s;
	limit = fmax(GROWTH_MIN_RISE_BYTES, GROWTH_MIN_RISE_FRACTION * heap.mean_y);
	base_limit = limit;
	if (fabs(rise) > limit && heap.r2 >= GROWTH_MIN_R2)
		limit += reading_step(s, start_s, end_s, MEM_HEAP_USED);
	if (rise > limit && heap.r2 >= GROWTH_MIN_R2)
		out->verdict = MEM_GROWING;
	else if (rise < -limit && heap.r2 >= GROWTH_MIN_R2)
		out->verdict = MEM_SHRINKING;
	else
		out->verdict = MEM_STABLE;
	if (covered) {
		/* The observer reported over the span, but too few major collections for their own
		 * line: a rise or fall of the troughs is believed only if the collections confirm it. */
		out->basis = MEM_BASIS_TROUGHS_GC;
		if (out->verdict == MEM_GROWING &&
		    !troughs_confirmed(s->gc, &g, &heap, rise, limit, span_s))
			out->verdict = majors_flat(s->gc, &g, base_limit, span_s) ? MEM_STABLE : MEM_UNKNOWN;
		/* Falling troughs may be garbage V8 finally collected: without majors that fall
		 * too, they show only that the heap did not grow. */
		else if (out->verdict == MEM_SHRINKING &&
		    !troughs_confirmed(s->gc, &g, &heap, rise, limit, span_s))
			out->verdict = MEM_STABLE;
	}
	out->significant = out->verdict == MEM_GROWING || out->verdict == MEM_SHRINKING;
}

const char *mem_verdict_name(enum mem_verdict v)
{
	switch (v) {
	case MEM_STABLE:
		return "stable";
	case MEM_GROWING:
		return "growing";
	case MEM_SHRINKING:
		return "shrinking";
	case MEM_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *mem_growth_basis_name(enum mem_growth_basis b)
{
	switch (b) {
	case MEM_BASIS_POST_GC:
		return "post-gc";
	case MEM_BASIS_TROUGHS_GC:
		return "troughs+gc";
	case MEM_BASIS_TROUGHS:
		break;
	}
	return "troughs";
}
