/* fuzz_pprof: --diff's pprof reader on hostile input.
 *
 * The input is a pprof file (gzipped or plain protobuf). It goes through pprof_read_cpu();
 * a profile read goes through what --diff does with it: aggregate_window() and
 * profdiff_compute() against itself. Then it is written again as pprof (pprof.c, as -o x.pb.gz
 * does) and read back: what ntop-js writes, it must read, with the same time. Besides the
 * sanitizers, the harness checks: a failure gives one sentence and an empty profile; a profile
 * read is laid out as profile.h says (root first, depth-first preorder, samples in range,
 * non-negative weights); against itself every function is the same, with no change. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "functab.h"
#include "pprof.h"
#include "pprof_read.h"
#include "profdiff.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_pprof"
#include "fuzz_check.h"

static void check_layout(const struct profile *p)
{
	CHECK(p->n_nodes >= 1 && p->nodes[0].parent == -1, "root first");
	uint32_t *path = malloc(p->n_nodes * sizeof(*path));
	size_t depth = 1;

	path[0] = 0;
	for (size_t i = 1; i < p->n_nodes; i++) {
		CHECK(p->nodes[i].parent >= 0 && (size_t)p->nodes[i].parent < i, "parent of %zu", i);
		/* preorder: the parent is on the path from the root to the node before */
		while (depth && path[depth - 1] != (uint32_t)p->nodes[i].parent)
			depth--;
		CHECK(depth > 0, "node %zu out of preorder", i);
		path[depth++] = (uint32_t)i;
	}
	free(path);
	for (size_t s = 0; s < p->n_samples; s++) {
		CHECK(p->samples[s] < p->n_nodes, "sample %zu", s);
		CHECK(p->time_deltas[s] >= 0, "weight of sample %zu", s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct functab *ft = functab_create(), *ft2;
	struct profile p, q;
	struct window_stats w, w2;
	struct profdiff d;
	char *err = NULL;
	struct pprof *pp;
	unsigned char *gz = NULL;
	size_t gz_len;

	if (pprof_read_cpu(data, size, ft, &p, &err) < 0) {
		CHECK(err && *err && err[strlen(err) - 1] == '.', "a sentence: %s", err ? err : "NULL");
		CHECK(p.n_nodes == 0 && p.n_samples == 0 && !p.nodes, "an empty profile on failure");
		free(err);
		functab_free(ft);
		return 0;
	}
	check_layout(&p);
	window_stats_init(&w);
	CHECK(aggregate_window(&p, ft, -INFINITY, &w) == 0, "aggregate");
	profdiff_compute(&w, ft, &w, ft, 0, &d);
	for (size_t i = 0; i < d.n; i++)
		CHECK(d.rows[i].match == PROFDIFF_SAME && d.rows[i].self_a == d.rows[i].self_b &&
			d.rows[i].total_a == d.rows[i].total_b, "row %zu against itself", i);
	profdiff_free(&d);

	/* written again and read back: the same time (while the writer's nanoseconds, summed
	 * per stack, stay far inside an int64) */
	pp = pprof_create(PPROF_CPU, 1000000);
	if (w.sampled_us < 1e12)
		pprof_add_profile(pp, &p, ft, -INFINITY);
	if (pprof_sample_count(pp) && pprof_encode_gzip(pp, &gz, &gz_len, &err) == 0) {
		ft2 = functab_create();
		CHECK(pprof_read_cpu(gz, gz_len, ft2, &q, &err) == 0, "what was written reads back: %s",
			err ? err : "");
		check_layout(&q);
		window_stats_init(&w2);
		aggregate_window(&q, ft2, -INFINITY, &w2);
		CHECK(fabs((w2.sampled_us - w2.idle_us) - (w.sampled_us - w.idle_us)) <=
			1e-6 * (w.sampled_us + 1) + (double)w.n_samples, "busy %.0f then %.0f",
			w.sampled_us - w.idle_us, w2.sampled_us - w2.idle_us);
		window_stats_free(&w2);
		profile_release(&q);
		functab_free(ft2);
	}
	free(err);
	free(gz);
	pprof_free(pp);
	window_stats_free(&w);
	profile_release(&p);
	functab_free(ft);
	return 0;
}
