/* cumulative.c: see cumulative.h. */
#include "config.h"

#include "cumulative.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void cumulative_init(struct cumulative *c)
{
	memset(c, 0, sizeof(*c));
}

void cumulative_free(struct cumulative *c)
{
	free(c->self_us);
	free(c->total_us);
	free(c->lines);
	free(c->line_slots);
	cumulative_init(c);
}

void cumulative_reset(struct cumulative *c)
{
	if (c->cap) {
		memset(c->self_us, 0, c->cap * sizeof(*c->self_us));
		memset(c->total_us, 0, c->cap * sizeof(*c->total_us));
	}
	if (c->line_slots_cap)
		memset(c->line_slots, 0xff, c->line_slots_cap * sizeof(*c->line_slots));
	c->n_lines = 0;
	c->n_windows = c->n_samples = 0;
	c->sampled_us = c->js_us = c->gc_us = c->program_us = c->idle_us = 0;
}

static void cumulative_grow(struct cumulative *c, size_t need)
{
	size_t old = c->cap, cap = c->cap;

	if (need <= old)
		return;
	c->self_us = xreallocarray_grow(c->self_us, &cap, need, sizeof(*c->self_us));
	cap = old;
	c->total_us = xreallocarray_grow(c->total_us, &cap, need, sizeof(*c->total_us));
	memset(c->self_us + old, 0, (cap - old) * sizeof(*c->self_us));
	memset(c->total_us + old, 0, (cap - old) * sizeof(*c->total_us));
	c->cap = cap;
}

void cumulative_add(struct cumulative *c, const struct window_stats *w)
{
	c->n_windows++;
	c->n_samples += w->n_samples;
	c->sampled_us += w->sampled_us;
	c->js_us += w->js_us;
	c->gc_us += w->gc_us;
	c->program_us += w->program_us;
	c->idle_us += w->idle_us;
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct func_stat *fs = &w->funcs[i];
		cumulative_grow(c, (size_t)fs->func + 1);
		c->self_us[fs->func] += fs->self_us;
		c->total_us[fs->func] += fs->total_us;
	}
	for (size_t i = 0; i < w->n_lines; i++)
		aggregate_lines_add(&c->lines, &c->n_lines, &c->lines_cap, &c->line_slots, &c->line_slots_cap,
			w->lines[i].func, w->lines[i].line, w->lines[i].ticks);
}

double cumulative_self_us(const struct cumulative *c, uint32_t func)
{
	return func < c->cap ? c->self_us[func] : 0;
}

double cumulative_total_us(const struct cumulative *c, uint32_t func)
{
	return func < c->cap ? c->total_us[func] : 0;
}
