/* cumulative.h: the counters since attach (or since the last reset), windows (aggregate.h)
 * added up: per-function self and total time, the CPU split and the lines' ticks. */
#ifndef NTOP_CUMULATIVE_H
#define NTOP_CUMULATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"

struct cumulative {
	size_t n_windows;
	size_t n_samples;
	double sampled_us, js_us, gc_us, program_us, idle_us;
	double *self_us;   /* indexed by function table index; cap entries */
	double *total_us;
	size_t cap;
	struct line_stat *lines; /* summed per (function, line); unsorted */
	size_t n_lines, lines_cap;
	uint32_t *line_slots;    /* private: hash of lines by (function, line) */
	size_t line_slots_cap;
};

void cumulative_init(struct cumulative *c);
void cumulative_free(struct cumulative *c);
void cumulative_reset(struct cumulative *c);
void cumulative_add(struct cumulative *c, const struct window_stats *w);
double cumulative_self_us(const struct cumulative *c, uint32_t func);
double cumulative_total_us(const struct cumulative *c, uint32_t func);

#endif
