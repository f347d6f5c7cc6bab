/* calledges.c: see calledges.h. Two open-addressing tables over one array of edges: one by
 * (from, to) to keep each edge once, one by from to the first of its edges (the rest are
 * chained through next). */
#include "config.h"

#include "calledges.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define EMPTY UINT32_MAX

struct edge {
	uint64_t from, to;
	uint32_t next;          /* the next edge with the same from, or EMPTY */
};

struct calledges {
	struct edge *e;
	size_t n, max;
	uint32_t *by_pair, *by_from; /* edge indices, EMPTY for a free slot */
	size_t mask;
};

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	return k ^ (k >> 33);
}

struct calledges *calledges_new(size_t max_edges)
{
	struct calledges *g = xcalloc(1, sizeof(*g));
	size_t slots = 16;

	while (slots < 2 * max_edges)
		slots *= 2;
	g->max = max_edges;
	g->mask = slots - 1;
	g->e = xmalloc((max_edges ? max_edges : 1) * sizeof(*g->e));
	g->by_pair = xmalloc(slots * sizeof(*g->by_pair));
	g->by_from = xmalloc(slots * sizeof(*g->by_from));
	memset(g->by_pair, 0xff, slots * sizeof(*g->by_pair));
	memset(g->by_from, 0xff, slots * sizeof(*g->by_from));
	return g;
}

void calledges_free(struct calledges *g)
{
	if (!g)
		return;
	free(g->e);
	free(g->by_pair);
	free(g->by_from);
	free(g);
}

/* The by_pair slot of from -> to: the edge's, or the free one where it would go. */
static size_t pair_slot(const struct calledges *g, uint64_t from, uint64_t to)
{
	size_t k = (size_t)mix64(from * 31 + mix64(to)) & g->mask;

	for (;; k = (k + 1) & g->mask) {
		uint32_t i = g->by_pair[k];
		if (i == EMPTY || (g->e[i].from == from && g->e[i].to == to))
			return k;
	}
}

static size_t from_slot(const struct calledges *g, uint64_t from)
{
	size_t k = (size_t)mix64(from) & g->mask;

	for (;; k = (k + 1) & g->mask) {
		uint32_t i = g->by_from[k];
		if (i == EMPTY || g->e[i].from == from)
			return k;
	}
}

bool calledges_add(struct calledges *g, uint64_t from, uint64_t to)
{
	size_t ps, fs;
	uint32_t i;

	if (g->n >= g->max)
		return false;
	ps = pair_slot(g, from, to);
	if (g->by_pair[ps] != EMPTY)
		return false;
	fs = from_slot(g, from);
	i = (uint32_t)g->n++;
	g->e[i] = (struct edge){from, to, g->by_from[fs]};
	g->by_pair[ps] = i;
	g->by_from[fs] = i;
	return true;
}

bool calledges_has(const struct calledges *g, uint64_t from, uint64_t to)
{
	return g->by_pair[pair_slot(g, from, to)] != EMPTY;
}

static bool listed(const uint64_t *out, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++)
		if (out[i] == k)
			return true;
	return false;
}

size_t calledges_reach(const struct calledges *g, uint64_t from, unsigned max_depth,
	uint64_t *out, size_t max_out)
{
	size_t n = 0, level_start = 0;

	/* breadth first: out[level_start .. level_end) are the keys found at the last depth */
	for (unsigned d = 0; d < max_depth && n < max_out; d++) {
		size_t level_end = n;
		for (size_t q = d ? level_start : 0; q < (d ? level_end : 1) && n < max_out; q++) {
			uint64_t k = d ? out[q] : from;
			for (uint32_t i = g->by_from[from_slot(g, k)]; i != EMPTY && n < max_out;
			     i = g->e[i].next)
				if (g->e[i].to != from && !listed(out, n, g->e[i].to))
					out[n++] = g->e[i].to;
		}
		if (n == level_end)
			break;
		level_start = level_end;
	}
	return n;
}

size_t calledges_count(const struct calledges *g)
{
	return g->n;
}
