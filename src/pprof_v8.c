/* pprof_v8.c: pprof profiles (pprof.h) from what ntop-js collects: the session's call tree,
 * a window's parsed CPU profile, a sampling heap profile. */
#include "config.h"

#include "pprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "heapprof.h"
#include "util.h"

/* Every stack of the tree, leaf first, built by walking up from each node: call trees are a
 * few hundred frames deep at most (V8 keeps 128 in a heap profile, a few hundred in a CPU
 * one), so this is cheap next to encoding. */
void pprof_add_calltree(struct pprof *p, const struct calltree *t, const struct functab *ft)
{
	pprof_add_calltree_labeled(p, t, ft, NULL, 0);
}

void pprof_add_calltree_labeled(struct pprof *p, const struct calltree *t,
	const struct functab *ft, const struct pprof_label *labels, size_t n_labels)
{
	size_t n = calltree_node_count(t), cap = 0;
	uint32_t *stack = NULL;

	for (size_t i = 1; i < n; i++) {
		uint64_t hits = calltree_node_hits(t, i);
		double self_us;
		size_t depth = 0;
		int32_t up;
		uint32_t func;

		calltree_node(t, i, NULL, NULL, &self_us);
		if (hits == 0 && !(self_us > 0))
			continue;
		/* node 0 is the root, which pprof does not show */
		for (size_t j = i; j != 0; j = (size_t)up) {
			calltree_node(t, j, &func, &up, NULL);
			stack = xreallocarray_grow(stack, &cap, depth + 1, sizeof(*stack));
			stack[depth++] = func;
			if (up < 0)
				break;
		}
		pprof_add_sample(p, ft, stack, depth, (int64_t)(hits > INT64_MAX ? INT64_MAX : hits),
			(int64_t)fmin(self_us * 1000.0, 9.2e18), labels, n_labels);
	}
	free(stack);
}

void pprof_add_profile(struct pprof *p, const struct profile *prof, const struct functab *ft,
	double trim_until_us)
{
	/* The tree merges the samples as every other consumer weighs them (profile.h); it keeps
	 * none of their timeline (max_samples 0), which pprof has no use for. */
	struct calltree *t = calltree_create(0);

	calltree_add(t, prof, trim_until_us);
	pprof_add_calltree(p, t, ft);
	calltree_free(t);
}

/* A heap profile's nodes and samples, kept until the walk succeeds. */
struct heap_site {
	double id;
	size_t stack_first, depth;
	double bytes;
	int64_t objects;
};

struct heap_walk {
	struct heap_site *sites;
	size_t n_sites, sites_cap;
	uint32_t *stacks;           /* head first, as the walk gives them */
	size_t n_stack, stack_cap;
	double *sample_nodes;
	size_t n_samples, samples_cap;
};

static void heap_on_node(void *ud, double id, const uint32_t *stack, size_t depth, double bytes)
{
	struct heap_walk *w = ud;

	w->sites = xreallocarray_grow(w->sites, &w->sites_cap, w->n_sites + 1, sizeof(*w->sites));
	w->sites[w->n_sites++] = (struct heap_site){ .id = id, .stack_first = w->n_stack,
		.depth = depth, .bytes = bytes };
	w->stacks = xreallocarray_grow(w->stacks, &w->stack_cap, w->n_stack + depth,
		sizeof(*w->stacks));
	memcpy(w->stacks + w->n_stack, stack, depth * sizeof(*stack));
	w->n_stack += depth;
}

static void heap_on_sample(void *ud, double node_id, double size)
{
	struct heap_walk *w = ud;

	(void)size;
	w->sample_nodes = xreallocarray_grow(w->sample_nodes, &w->samples_cap, w->n_samples + 1,
		sizeof(*w->sample_nodes));
	w->sample_nodes[w->n_samples++] = node_id;
}

static int cmp_site_id(const void *a, const void *b)
{
	const struct heap_site *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_double(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

int pprof_add_heap_json(struct pprof *p, const char *json, size_t len, struct functab *ft,
	char **err)
{
	struct heapprof_visitor v = { heap_on_node, heap_on_sample, NULL };
	struct heap_walk w;
	uint32_t *leaf_first = NULL;
	size_t cap = 0, j = 0;
	int rc;

	memset(&w, 0, sizeof(w));
	v.ud = &w;
	rc = heapprof_walk(json, len, ft, &v, err);
	if (rc == 0) {
		/* each sample's object counted at its node: both sorted by node id, one merge */
		if (w.n_sites > 1)
			qsort(w.sites, w.n_sites, sizeof(*w.sites), cmp_site_id);
		if (w.n_samples > 1)
			qsort(w.sample_nodes, w.n_samples, sizeof(*w.sample_nodes), cmp_double);
		for (size_t i = 0; i < w.n_sites; i++) {
			while (j < w.n_samples && w.sample_nodes[j] < w.sites[i].id)
				j++;
			for (; j < w.n_samples && w.sample_nodes[j] == w.sites[i].id; j++)
				w.sites[i].objects++;
		}
		for (size_t i = 0; i < w.n_sites; i++) {
			const struct heap_site *s = &w.sites[i];
			leaf_first = xreallocarray_grow(leaf_first, &cap, s->depth + 1,
				sizeof(*leaf_first));
			for (size_t k = 0; k < s->depth; k++)
				leaf_first[k] = w.stacks[s->stack_first + s->depth - 1 - k];
			pprof_add_sample(p, ft, leaf_first, s->depth, s->objects,
				(int64_t)llround(s->bytes), NULL, 0);
		}
	}
	free(leaf_first);
	free(w.sites);
	free(w.stacks);
	free(w.sample_nodes);
	return rc;
}

int pprof_save_calltree(const struct calltree *t, const struct functab *ft, long interval_us,
	int64_t end_unix_ns, const char *path, char **cause)
{
	size_t n = calltree_node_count(t);
	uint64_t samples = 0;
	double self_us = 0, span_ns = calltree_span_us(t) * 1000.0;
	struct pprof *p;
	int rc;

	for (size_t i = 0; i < n; i++) {
		double s;
		calltree_node(t, i, NULL, NULL, &s);
		self_us += s;
		samples += calltree_node_hits(t, i);
	}
	if (interval_us <= 0)
		interval_us = samples ? (long)llround(self_us / (double)samples) : 0;
	p = pprof_create(PPROF_CPU, (int64_t)interval_us * 1000);
	pprof_set_time(p, end_unix_ns - (int64_t)span_ns, (int64_t)span_ns);
	pprof_add_calltree(p, t, ft);
	rc = pprof_save(p, path, cause);
	pprof_free(p);
	return rc;
}
