/* aggregate.c: see aggregate.h.
 *
 * One window costs O(nodes + samples + functions seen): samples add their weight to their
 * node; node totals are summed bottom-up (children have larger indices than their parent);
 * a node's total goes to its function only when that function is not already on the path
 * from the root, which a per-function "active" counter tracks during one preorder walk. */
#include "config.h"

#include "aggregate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "profile.h"
#include "util.h"

#define NONE UINT32_MAX

void window_stats_init(struct window_stats *w)
{
	memset(w, 0, sizeof(*w));
}

void window_stats_free(struct window_stats *w)
{
	free(w->funcs);
	free(w->lines);
	window_stats_init(w);
}

static int cmp_func_stat(const void *a, const void *b)
{
	const struct func_stat *x = a, *y = b;

	if (x->self_us != y->self_us)
		return x->self_us > y->self_us ? -1 : 1;
	if (x->total_us != y->total_us)
		return x->total_us > y->total_us ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int cmp_line_stat(const void *a, const void *b)
{
	const struct line_stat *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static inline size_t line_hash(uint32_t func, uint32_t line)
{
	uint64_t h = ((uint64_t)func << 32 | line) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 29);
}

void aggregate_lines_add(struct line_stat **lines, size_t *n, size_t *cap, uint32_t **slots,
	size_t *slots_cap, uint32_t func, uint32_t line, uint64_t ticks)
{
	size_t mask, i;

	if ((*n + 1) * 4 > *slots_cap * 3) {
		size_t ncap = *slots_cap ? *slots_cap * 2 : 256;
		free(*slots);
		*slots = xmalloc(ncap * sizeof(**slots));
		memset(*slots, 0xff, ncap * sizeof(**slots));
		*slots_cap = ncap;
		for (size_t k = 0; k < *n; k++) {
			i = line_hash((*lines)[k].func, (*lines)[k].line) & (ncap - 1);
			while ((*slots)[i] != NONE)
				i = (i + 1) & (ncap - 1);
			(*slots)[i] = (uint32_t)k;
		}
	}
	mask = *slots_cap - 1;
	i = line_hash(func, line) & mask;
	while ((*slots)[i] != NONE) {
		struct line_stat *l = &(*lines)[(*slots)[i]];
		if (l->func == func && l->line == line) {
			l->ticks += ticks;
			return;
		}
		i = (i + 1) & mask;
	}
	*lines = xreallocarray_grow(*lines, cap, *n + 1, sizeof(**lines));
	(*lines)[*n] = (struct line_stat){func, line, ticks};
	(*slots)[i] = (uint32_t)(*n)++;
}

/* The profile must be laid out as profile_parse() does (parent index < child index); one
 * that is not is refused rather than trusted. */
static int profile_check_layout(const struct profile *p, size_t n_funcs)
{
	if (p->n_nodes == 0 || p->nodes[0].parent != -1)
		return p->n_nodes == 0 && p->n_samples == 0 ? 0 : -1;
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct profile_node *nd = &p->nodes[i];
		if (nd->func >= n_funcs || (i > 0 && (nd->parent < 0 || (size_t)nd->parent >= i)))
			return -1;
		if (nd->ticks_count && (nd->ticks_first > p->n_ticks ||
			nd->ticks_count > p->n_ticks - nd->ticks_first))
			return -1;
	}
	for (size_t s = 0; s < p->n_samples; s++)
		if (p->samples[s] >= p->n_nodes)
			return -1;
	return 0;
}

/* Each node's self time from the samples after trim_until_us, and the window's span. */
static double *window_node_self(const struct profile *p, double trim_until_us,
	struct window_stats *w)
{
	double *node_self = xcalloc(p->n_nodes, sizeof(*node_self)), t = p->start_time_us;
	bool any = false;

	for (size_t s = 0; s < p->n_samples; s++) {
		double dt = (double)p->time_deltas[s], wt = dt > 0 ? dt : 0;
		t += dt;
		if (t <= trim_until_us)
			continue;
		if (!any) {
			w->start_us = t - wt;
			any = true;
		}
		w->end_us = t;
		node_self[p->samples[s]] += wt;
		w->sampled_us += wt;
		w->n_samples++;
	}
	if (p->n_samples && t > w->last_sample_us)
		w->last_sample_us = t;
	if (!any)
		w->start_us = w->end_us = p->n_samples ? t : p->start_time_us;
	return node_self;
}

/* Rebuilds path (the ancestors of a node whose parent is not on it: a profile not in
 * preorder, but still parent < child) from the root, counting each in active. */
static size_t window_path_rebuild(const struct profile *p, int32_t parent, uint32_t *path,
	uint32_t *active)
{
	size_t top = 0;

	for (int32_t a = parent; a >= 0; a = p->nodes[a].parent)
		path[top++] = (uint32_t)a;
	for (size_t x = 0, y = top - 1; x < y; x++, y--) {
		uint32_t tmp = path[x];
		path[x] = path[y];
		path[y] = tmp;
	}
	for (size_t x = 0; x < top; x++)
		active[p->nodes[path[x]].func]++;
	return top;
}

static void window_kind_add(struct window_stats *w, enum func_kind kind, double us)
{
	switch (kind) {
	case FUNC_IDLE: w->idle_us += us; break;
	case FUNC_GC: w->gc_us += us; break;
	case FUNC_ROOT:
	case FUNC_PROGRAM: w->program_us += us; break;
	default: w->js_us += us; break;
	}
}

/* Per function: self time, and total time counted once per stack however deep it recurses
 * (a function already on the path adds nothing); w->funcs gets the JavaScript ones, sorted. */
static void window_funcs(const struct profile *p, const struct functab *ft,
	const double *node_self, const double *node_total, struct window_stats *w)
{
	size_t n = p->n_nodes, n_funcs = functab_count(ft), top = 0, n_seen = 0;
	double *func_self = xcalloc(n_funcs, sizeof(*func_self));
	double *func_total = xcalloc(n_funcs, sizeof(*func_total));
	uint32_t *active = xcalloc(n_funcs, sizeof(*active));
	uint32_t *seen = xmalloc(n * sizeof(*seen)); /* distinct functions, first seen first */
	uint32_t *path = xmalloc(n * sizeof(*path));

	for (size_t i = 0; i < n; i++) {
		const struct profile_node *nd = &p->nodes[i];
		uint32_t f = nd->func;

		/* pop back to the parent; in preorder it is always on the path */
		while (top && (int32_t)path[top - 1] != nd->parent)
			active[p->nodes[path[--top]].func]--;
		if (top == 0 && nd->parent >= 0)
			top = window_path_rebuild(p, nd->parent, path, active);
		if (func_self[f] == 0 && func_total[f] == 0 && node_total[i] > 0)
			seen[n_seen++] = f; /* first time this function gets any time */
		func_self[f] += node_self[i];
		if (active[f] == 0)
			func_total[f] += node_total[i];
		active[f]++;
		path[top++] = (uint32_t)i;
		window_kind_add(w, functab_get(ft, f)->kind, node_self[i]);
	}
	w->funcs = xmalloc((n_seen ? n_seen : 1) * sizeof(*w->funcs));
	for (size_t k = 0; k < n_seen; k++) {
		uint32_t f = seen[k];
		if (functab_get(ft, f)->kind != FUNC_JS)
			continue;
		w->funcs[w->n_funcs++] = (struct func_stat){f, func_self[f], func_total[f]};
	}
	qsort(w->funcs, w->n_funcs, sizeof(*w->funcs), cmp_func_stat);
	free(func_self);
	free(func_total);
	free(active);
	free(seen);
	free(path);
}

/* positionTicks are per node for the whole profile, not per sample, so they cannot be
 * trimmed: a window that overlaps the previous one counts the overlap's ticks again. They
 * are a guide to the hot lines inside a function, not a measure of time. */
static void window_lines(const struct profile *p, struct window_stats *w)
{
	uint32_t *slots = NULL;
	size_t slots_cap = 0, lines_cap = 0;

	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct profile_node *nd = &p->nodes[i];
		for (uint32_t k = 0; k < nd->ticks_count; k++) {
			const struct position_tick *pt = &p->ticks[nd->ticks_first + k];
			if (pt->ticks)
				aggregate_lines_add(&w->lines, &w->n_lines, &lines_cap, &slots, &slots_cap,
					nd->func, pt->line, pt->ticks);
		}
	}
	free(slots);
	if (w->n_lines)
		qsort(w->lines, w->n_lines, sizeof(*w->lines), cmp_line_stat);
}

int aggregate_window(const struct profile *p, const struct functab *ft, double trim_until_us,
	struct window_stats *w)
{
	size_t n = p->n_nodes;
	double *node_self, *node_total;

	window_stats_free(w);
	if (profile_check_layout(p, functab_count(ft)))
		return -1;
	w->last_sample_us = trim_until_us;
	if (n == 0)
		return 0;
	node_self = window_node_self(p, trim_until_us, w);
	/* bottom-up totals */
	node_total = xmalloc(n * sizeof(*node_total));
	memcpy(node_total, node_self, n * sizeof(*node_total));
	for (size_t i = n; i-- > 1;)
		node_total[p->nodes[i].parent] += node_total[i];
	window_funcs(p, ft, node_self, node_total, w);
	window_lines(p, w);
	free(node_self);
	free(node_total);
	return 0;
}
