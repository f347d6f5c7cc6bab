/* aggregate.h: per-function self and total time of one window (the counters since attach
 * that add windows up are cumulative.h's).
 *
 * Times are weighted by timeDeltas (see profile.h), never by sample count x interval.
 * A function's total time counts each sample once even when the function recurses. The four
 * special nodes are reported apart and are not in the function list: (idle), (program),
 * (garbage collector), and (root) (counted as program). */
#ifndef NTOP_AGGREGATE_H
#define NTOP_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

struct profile;
struct functab;

struct func_stat {
	uint32_t func;   /* function table index */
	double self_us;
	double total_us;
};

struct line_stat {
	uint32_t func;
	uint32_t line;   /* 1-based */
	uint64_t ticks;
};

struct window_stats {
	double start_us;        /* profile clock: the window's first kept sample minus its delta */
	double end_us;          /* profile clock: the last kept sample */
	double last_sample_us;  /* trim point to pass to the next, overlapping window */
	double sampled_us;      /* sum of the kept samples' weights */
	size_t n_samples;
	double js_us, gc_us, program_us, idle_us; /* they add up to sampled_us */
	struct func_stat *funcs; /* functions with any time, sorted by self_us, then total_us, descending */
	size_t n_funcs;
	struct line_stat *lines; /* positionTicks summed per (function, line) */
	size_t n_lines;
};

void window_stats_init(struct window_stats *w);
void window_stats_free(struct window_stats *w);
/* Aggregates the samples of p after trim_until_us (pass -INFINITY for none) into w, which is
 * reset first. Returns 0. */
int aggregate_window(const struct profile *p, const struct functab *ft, double trim_until_us,
	struct window_stats *w);

/* Adds ticks to (func, line) in lines[], indexed by the open-addressing table slots[] (which
 * holds indices into lines[], UINT32_MAX for empty, and is kept under 3/4 full): a window's
 * lines and the cumulative ones (cumulative.h). */
void aggregate_lines_add(struct line_stat **lines, size_t *n, size_t *cap, uint32_t **slots,
	size_t *slots_cap, uint32_t func, uint32_t line, uint64_t ticks);

#endif
