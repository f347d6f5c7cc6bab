/* test_flightrec.c: windows' call trees added up (calltree_add_tree) give what merging their
 * profiles gives, on a recorded profile (tests/fixtures/profile-graph.json, made by
 * tests/fixtures/record-profile.js) cut into windows; the flight recorder keeps the last
 * keep_s seconds within its bytes, and hands back the windows after a time. */
#include "config.h"

#include "flightrec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "fixture.h"
#include "functab.h"
#include "profile.h"
#include "tap.h"

static char *cpuprofile_of(const struct calltree *t, const struct functab *ft)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = calltree_write_cpuprofile(t, ft, f);

	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Window i of n of p: its samples [i*m, (i+1)*m) as a profile that starts at the one before. */
static struct profile window_of(const struct profile *p, size_t i, size_t n, double *trim_us)
{
	struct profile w = *p;
	size_t m = p->n_samples / n, first = i * m;
	double ts = p->start_time_us;

	for (size_t k = 0; k < first; k++)
		ts += (double)p->time_deltas[k];
	w.samples = p->samples + first;
	w.time_deltas = p->time_deltas + first;
	w.n_samples = i == n - 1 ? p->n_samples - first : m;
	w.start_time_us = ts;
	*trim_us = i ? ts : -INFINITY;
	return w;
}

static void test_add_tree(const struct profile *p, const struct functab *ft, size_t cap)
{
	struct calltree *direct = calltree_create(cap), *summed = calltree_create(cap);
	char *a, *b;
	double trim;

	for (size_t i = 0; i < 4; i++) {
		struct profile w = window_of(p, i, 4, &trim);
		struct calltree *one = calltree_create(cap);

		calltree_add(direct, &w, trim);
		calltree_add(one, &w, trim);
		calltree_add_tree(summed, one);
		calltree_free(one);
	}
	is_int(calltree_sample_count(summed), calltree_sample_count(direct),
		"cap %zu: the windows' trees hold every sample (%zu)", cap, calltree_sample_count(direct));
	is_int(calltree_node_count(summed), calltree_node_count(direct), "cap %zu: the same nodes",
		cap);
	is_num(calltree_span_us(summed), calltree_span_us(direct), 0.5, "cap %zu: the same span", cap);
	a = cpuprofile_of(direct, ft);
	b = cpuprofile_of(summed, ft);
	ok(a && b && !strcmp(a, b), "cap %zu: the same .cpuprofile, byte for byte (%zu bytes)", cap,
		a ? strlen(a) : 0);
	free(a);
	free(b);
	calltree_free(direct);
	calltree_free(summed);
}

static void test_recorder(const struct profile *p)
{
	struct calltree *win = calltree_create(100000), *out;
	struct flightrec *r;
	size_t n, bytes_one;
	double first;

	calltree_add(win, p, -INFINITY);
	bytes_one = calltree_bytes(win);
	ok(bytes_one > 1000, "a window's tree holds %zu bytes", bytes_one);

	/* 1 s windows ending at 1..100, 10 s kept */
	r = flightrec_create(10, 1u << 30, 100000);
	for (int s = 1; s <= 100; s++)
		flightrec_add(r, win, s - 1, s);
	is_int(flightrec_windows(r), 11, "10 s kept: the windows that ended at 90 to 100");
	ok(flightrec_bytes(r) < 12 * bytes_one + 4096, "its bytes, %zu, are those of 11 windows",
		flightrec_bytes(r));
	out = calltree_create(1000000);
	n = flightrec_collect(r, 95, out, &first);
	is_int(n, 5, "the windows that end after 95: 96 to 100");
	is_num(first, 95, 0, "the first one starts at 95");
	is_int(calltree_sample_count(out), 5 * calltree_sample_count(win), "their samples");
	calltree_free(out);
	out = calltree_create(1000);
	n = flightrec_collect(r, 200, out, &first);
	ok(n == 0 && isnan(first) && calltree_sample_count(out) == 0, "none after the newest");
	calltree_free(out);
	flightrec_free(r);

	/* a byte cap of three windows: three are kept whatever keep_s says */
	r = flightrec_create(3600, 3 * bytes_one + bytes_one / 2, 100000);
	for (int s = 1; s <= 20; s++)
		flightrec_add(r, win, s - 1, s);
	is_int(flightrec_windows(r), 3, "a cap of 3.5 windows' bytes keeps 3");
	flightrec_free(r);
	/* a cap under one window: the newest is kept anyway */
	r = flightrec_create(3600, 10, 100000);
	flightrec_add(r, win, 0, 1);
	flightrec_add(r, win, 1, 2);
	is_int(flightrec_windows(r), 1, "a cap under one window keeps the newest");
	flightrec_free(r);
	calltree_free(win);
}

int main(void)
{
	size_t len;
	char *json = fixture_read("profile-graph.json", &len), *err = NULL;
	struct functab *ft = functab_create();
	struct profile p;

	if (!json || profile_parse(json, len, ft, &p, &err) < 0) {
		ok(0, "profile-graph.json parsed (%s)", err ? err : "unreadable");
		return done_testing();
	}
	ok(p.n_samples > 400, "a recorded profile of %zu samples", p.n_samples);
	test_add_tree(&p, ft, 1000000);
	/* a timeline cap under one window's samples: the synthetic samples of both agree */
	test_add_tree(&p, ft, p.n_samples / 8);
	test_recorder(&p);
	profile_release(&p);
	functab_free(ft);
	free(json);
	return done_testing();
}
