/* gcseries.h: heap used after each major (mark-compact) collection of the target, kept for
 * weeks in bounded memory, and the straight line through it.
 *
 * The sizes come from a PerformanceObserver of collections that ntop-js keeps in the target
 * (eval mode, engine_mem.c): it reports its collections in batches, each covering the seconds
 * since the previous one. A batch with no major collection still counts: it says the observer
 * was running and V8 did none. */
#ifndef NTOP_GCSERIES_H
#define NTOP_GCSERIES_H

#include <stdbool.h>
#include <stddef.h>

struct gcseries;

struct gc_fit {
	double start_s;       /* the span actually fitted: the asked one, cut to what the */
	double end_s;         /* profiler covered */
	size_t n;             /* major collections in it */
	double first_s, last_s; /* times of the first and last of them (approximate: see add) */
	double mean;          /* mean heap used after them, bytes */
	double slope_per_s;   /* least-squares slope, bytes per second; NAN when n < 3 */
	double slope_se;      /* its standard error; NAN when n < 3 */
	/* The smallest heap left in the second half of the span less the smallest in the first
	 * (NAN when a half has none): what a leak raises and a program's own waves do not. */
	double floor_rise;
};

struct gcseries *gcseries_create(void);
void gcseries_free(struct gcseries *g);
/* A batch reported at end_s covering the dur_s seconds before it; used[0..n-1] are the heap
 * sizes after its major collections, in order, and ago_s[i] (NULL: none) how many seconds
 * before end_s each came; one without a time in [0, dur_s] is placed as if the batch's were
 * spread evenly over it. Invalid sizes are skipped. n may be 0. */
void gcseries_add(struct gcseries *g, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n);
/* The observer was (re)installed at t_s: coverage starts again there. */
void gcseries_restart(struct gcseries *g, double t_s);
/* The target went away and came back (or ntop-js re-attached): forget the coverage. */
void gcseries_mark_gap(struct gcseries *g, double t_s);
/* Fits the majors inside [start_s, end_s]. Returns false when the profiler did not report
 * over that span (not installed, or silent for the last GCSERIES_SILENT_S seconds). */
bool gcseries_fit(const struct gcseries *g, double start_s, double end_s, struct gc_fit *f);
/* The collections of [start_s, end_s] one bucket at a time, oldest first: mean time and mean
 * heap used of each bucket (ten seconds wide for the last day), at most max of them. Returns
 * how many were written. */
size_t gcseries_points(const struct gcseries *g, double start_s, double end_s, double *t_s,
	double *used, size_t max);
size_t gcseries_bytes(const struct gcseries *g);

/* A profiler that has not reported for this long is taken as gone. */
#define GCSERIES_SILENT_S 60.0

#endif
