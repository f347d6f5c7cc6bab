/* fuzz_profile: the CPU profile pipeline on hostile input.
 *
 * The input is the JSON text of a Profiler.Profile. It goes through profile_parse(); a parsed
 * profile goes through what the engine does with every window: aggregate_window() (once whole,
 * once trimmed as the next, overlapping window would be), cumulative_add(), calltree_add() and
 * both export writers. Besides the sanitizers, the harness checks the promises the headers
 * make: a failed parse gives a message, a parsed profile is laid out as profile.h says, the
 * aggregate's categories add up, the aggregate and the call tree count the same samples and
 * the same time (profile.h: every consumer weighs samples alike), and a .cpuprofile written by
 * calltree_write_cpuprofile() is itself accepted by profile_parse().
 *
 * An input whose first byte is 0 (never the start of JSON) is instead decoded as a raw struct
 * profile, with arbitrary parents, functions, ticks and samples: aggregate_window() must refuse
 * a layout that profile_parse() would never produce, and calltree_add() must survive it. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "calltree.h"
#include "cumulative.h"
#include "functab.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_profile"
#include "fuzz_check.h"

static void check_layout(const struct profile *p, const struct functab *ft)
{
	size_t nf = functab_count(ft);

	CHECK(p->n_nodes > 0, "a parsed profile has no nodes");
	CHECK(p->nodes[0].parent == -1, "node 0 is not the root");
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct profile_node *n = &p->nodes[i];

		CHECK(n->func < nf, "node %zu func %u of %zu", i, n->func, nf);
		CHECK(i == 0 || (n->parent >= 0 && (size_t)n->parent < i),
			"node %zu parent %d", i, n->parent);
		CHECK(n->ticks_first <= p->n_ticks && n->ticks_count <= p->n_ticks - n->ticks_first,
			"node %zu ticks %u+%u of %zu", i, n->ticks_first, n->ticks_count, p->n_ticks);
	}
	for (size_t s = 0; s < p->n_samples; s++)
		CHECK(p->samples[s] < p->n_nodes, "sample %zu -> %u", s, p->samples[s]);
	CHECK(p->n_samples == 0 || (p->samples && p->time_deltas), "samples without arrays");
}

static bool near(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
		return true; /* sums of hostile 64-bit deltas may overflow a double's range: no claim */
	return fabs(a - b) <= 1e-6 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void check_window(const struct window_stats *w, const struct profile *p,
	const struct functab *ft)
{
	size_t nf = functab_count(ft);
	double sum = w->js_us + w->gc_us + w->program_us + w->idle_us;

	CHECK(w->n_samples <= p->n_samples, "%zu kept of %zu", w->n_samples, p->n_samples);
	CHECK(near(sum, w->sampled_us), "categories %g != sampled %g", sum, w->sampled_us);
	CHECK(w->sampled_us >= 0 && w->js_us >= 0 && w->gc_us >= 0 && w->program_us >= 0 &&
		w->idle_us >= 0, "negative time");
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct func_stat *f = &w->funcs[i];

		CHECK(f->func < nf, "func %u of %zu", f->func, nf);
		CHECK(f->self_us <= f->total_us || near(f->self_us, f->total_us),
			"func %u self %g > total %g", f->func, f->self_us, f->total_us);
		CHECK(i == 0 || w->funcs[i - 1].self_us >= f->self_us, "funcs not sorted at %zu", i);
	}
	for (size_t i = 0; i < w->n_lines; i++)
		CHECK(w->lines[i].func < nf, "line func %u", w->lines[i].func);
}

/* The call tree's read access: node 0 the root, parents before children; with funcs_known,
 * every function in the table (a raw profile may name unknown ones, which the tree keeps and
 * exports as "(unknown)"). */
static double check_tree(const struct calltree *t, const struct functab *ft, bool funcs_known)
{
	size_t n = calltree_node_count(t);
	double sum = 0, self;
	uint32_t func;
	int32_t parent;

	for (size_t i = 0; i < n; i++) {
		calltree_node(t, i, &func, &parent, &self);
		CHECK(i == 0 ? parent == -1 : parent >= 0 && (size_t)parent < i,
			"calltree node %zu has parent %d", i, parent);
		CHECK(i == 0 || !funcs_known || func < functab_count(ft), "calltree node %zu func %u",
			i, func);
		CHECK(self >= 0, "calltree node %zu self %g", i, self);
		sum += self;
	}
	calltree_node(t, n, &func, &parent, &self);
	CHECK(func == UINT32_MAX && parent == -1 && self == 0, "calltree node past the end");
	return sum;
}

/* Writes the export to memory and parses it back: what ntop-js saves must load again. */
static void check_export(const struct calltree *t, const struct functab *ft)
{
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct functab *ft2;
	struct profile p2;
	int r;

	CHECK(f != NULL, "open_memstream");
	CHECK(calltree_write_cpuprofile(t, ft, f) == 0, "cpuprofile write");
	fclose(f);
	ft2 = functab_create();
	r = profile_parse(buf, len, ft2, &p2, &err);
	CHECK(r == 0, "the exported .cpuprofile does not parse: %s", err ? err : "?");
	check_layout(&p2, ft2);
	CHECK(p2.end_time_us >= p2.start_time_us, "exported endTime %.17g before startTime %.17g",
		p2.end_time_us, p2.start_time_us);
	profile_release(&p2);
	functab_free(ft2);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK(f != NULL, "open_memstream");
	CHECK(calltree_write_folded(t, ft, f) == 0, "folded write");
	fclose(f);
	free(buf);
}

/* Bytes of the input, then zeros. */
struct reader {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct reader *r, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = v << 8 | (r->n ? *r->p : 0);
		if (r->n) {
			r->p++;
			r->n--;
		}
	}
	return v;
}

/* A raw struct profile: whatever the bytes say, in range or not. */
static void fuzz_struct(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "(root)", "(program)", "(idle)",
		"(garbage collector)", "a", "b", "c", "d" };
	struct reader r = { data, size };
	struct functab *ft = functab_create();
	struct window_stats w;
	struct calltree *t;
	struct profile p;
	int64_t scale;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		functab_intern(ft, names[i], strlen(names[i]), "", 0, -1, -1);
	memset(&p, 0, sizeof p);
	p.n_nodes = take(&r, 1) % 24;
	p.nodes = calloc(p.n_nodes + 1, sizeof *p.nodes);
	for (size_t i = 0; i < p.n_nodes; i++) {
		p.nodes[i].func = (uint32_t)(take(&r, 1) % 10);          /* 8 and 9 are unknown */
		p.nodes[i].parent = (int32_t)(int8_t)take(&r, 1);
		p.nodes[i].hit_count = (uint32_t)take(&r, 1);
		p.nodes[i].ticks_first = (uint32_t)take(&r, 1) % 20;
		p.nodes[i].ticks_count = (uint32_t)take(&r, 1) % 20;
	}
	p.n_ticks = take(&r, 1) % 16;
	p.ticks = calloc(p.n_ticks + 1, sizeof *p.ticks);
	for (size_t i = 0; i < p.n_ticks; i++) {
		p.ticks[i].line = (uint32_t)take(&r, 2);
		p.ticks[i].ticks = (uint32_t)take(&r, 2);
	}
	p.n_samples = take(&r, 1) % 64;
	p.samples = calloc(p.n_samples + 1, sizeof *p.samples);
	p.time_deltas = calloc(p.n_samples + 1, sizeof *p.time_deltas);
	scale = (int64_t)1 << (take(&r, 1) % 48); /* |delta| < 2^63 */
	for (size_t i = 0; i < p.n_samples; i++) {
		p.samples[i] = (uint32_t)(take(&r, 1) % (p.n_nodes + 2));
		p.time_deltas[i] = (int64_t)(int16_t)take(&r, 2) * scale;
	}
	p.start_time_us = (double)(int64_t)take(&r, 8);
	p.end_time_us = p.start_time_us;

	window_stats_init(&w);
	if (aggregate_window(&p, ft, -INFINITY, &w) == 0)
		check_window(&w, &p, ft);
	window_stats_free(&w);
	t = calltree_create(take(&r, 1) % 2 ? 4 : 1000);
	calltree_add(t, &p, -INFINITY);
	calltree_add(t, &p, p.start_time_us);
	(void)check_tree(t, ft, false);
	check_export(t, ft);
	calltree_free(t);
	free(p.nodes);
	free(p.ticks);
	free(p.samples);
	free(p.time_deltas);
	functab_free(ft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct functab *ft;
	struct window_stats w, w2;
	struct cumulative cum;
	struct calltree *t;
	struct profile p;
	char *err = NULL;
	double trim, tree_us, window_us;

	if (size > 0 && data[0] == 0) {
		fuzz_struct(data + 1, size - 1);
		return 0;
	}
	ft = functab_create();
	if (profile_parse((const char *)data, size, ft, &p, &err) < 0) {
		CHECK(err != NULL && *err, "a rejected profile has no message");
		CHECK(p.n_nodes == 0 && p.nodes == NULL && p.n_samples == 0,
			"a rejected profile is not empty");
		free(err);
		functab_free(ft);
		return 0;
	}
	CHECK(err == NULL, "an accepted profile has a message");
	check_layout(&p, ft);

	window_stats_init(&w);
	window_stats_init(&w2);
	cumulative_init(&cum);
	CHECK(aggregate_window(&p, ft, -INFINITY, &w) == 0, "aggregate");
	check_window(&w, &p, ft);
	cumulative_add(&cum, &w);
	/* the next window overlaps this one: trim half-way, as a real overlap would */
	trim = isfinite(w.start_us) && isfinite(w.last_sample_us) ?
		w.start_us + (w.last_sample_us - w.start_us) / 2 : w.last_sample_us;
	CHECK(aggregate_window(&p, ft, trim, &w2) == 0, "aggregate trimmed");
	check_window(&w2, &p, ft);
	CHECK(w2.n_samples <= w.n_samples, "trimming kept more samples");
	cumulative_add(&cum, &w2);
	for (size_t i = 0; i < functab_count(ft); i++)
		(void)cumulative_self_us(&cum, (uint32_t)i);
	CHECK(cum.n_samples == w.n_samples + w2.n_samples, "cumulative samples");

	/* a small sample cap sends longer inputs down the synthetic-samples path */
	t = calltree_create(size & 1 ? 8 : 100000);
	calltree_add(t, &p, -INFINITY);
	calltree_add(t, &p, trim);
	CHECK(calltree_node_count(t) >= 1, "calltree without a root");
	/* the consumers agree on which samples count and what they weigh */
	CHECK(calltree_sample_count(t) == w.n_samples + w2.n_samples,
		"calltree merged %zu samples, the windows kept %zu + %zu", calltree_sample_count(t),
		w.n_samples, w2.n_samples);
	tree_us = check_tree(t, ft, true);
	window_us = w.sampled_us + w2.sampled_us;
	if (window_us < 1e15)  /* below that both sums are exact integers */
		CHECK(tree_us == window_us, "calltree holds %.17g us, the windows %.17g us", tree_us,
			window_us);
	(void)cumulative_total_us(&cum, 0);
	cumulative_reset(&cum);
	CHECK(cum.n_samples == 0 && cum.sampled_us == 0, "cumulative_reset");
	/* a later window whose clock jumped (a restarted or hostile target) */
	p.start_time_us = p.start_time_us > 0 ? -p.start_time_us : 1e300;
	calltree_add(t, &p, -INFINITY);
	check_export(t, ft);

	calltree_free(t);
	cumulative_free(&cum);
	window_stats_free(&w);
	window_stats_free(&w2);
	profile_release(&p);
	functab_free(ft);
	return 0;
}
