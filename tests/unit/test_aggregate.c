/* test_aggregate.c: self/total per function, weights, special nodes, trimming, cumulative. */
#include "config.h"

#include "aggregate.h"
#include "cumulative.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "functab.h"
#include "profile.h"
#include "tap.h"

static int parse(const char *json, struct functab *ft, struct profile *p)
{
	char *err = NULL;
	int r = profile_parse(json, strlen(json), ft, p, &err);
	if (r)
		printf("# parse failed: %s\n", err);
	free(err);
	return r;
}

static const struct func_stat *find(const struct window_stats *w, const struct functab *ft,
	const char *name)
{
	for (size_t i = 0; i < w->n_funcs; i++)
		if (strcmp(functab_get(ft, w->funcs[i].func)->name, name) == 0)
			return &w->funcs[i];
	return NULL;
}

#define NODE(id, name, kids) "{\"id\":" #id ",\"callFrame\":{\"functionName\":\"" name "\"," \
	"\"url\":\"" URL(name) "\",\"lineNumber\":1,\"columnNumber\":1},\"children\":[" kids "]}"
/* special names keep an empty url; others get one */
#define URL(name) "%s"

static char *make(const char *fmt)
{
	/* replaces every %s with a url unless the node name starts with '(' */
	size_t n = strlen(fmt);
	char *out = malloc(n * 4 + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (fmt[i] == '%' && fmt[i + 1] == 's') {
			/* look back for the function name's first character */
			const char *q = fmt + i;
			while (q > fmt && strncmp(q, "\"functionName\":\"", 16) != 0)
				q--;
			if (q[16] != '(') {
				memcpy(o, "file:///t.js", 12);
				o += 12;
			}
			i++;
			continue;
		}
		*o++ = fmt[i];
	}
	*o = '\0';
	return out;
}

static void test_recursion(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct window_stats w;
	/* root -> main -> a -> b -> a -> a ; main -> b */
	char *json = make("{\"nodes\":["
		NODE(1, "(root)", "2") "," NODE(2, "main", "3,7") "," NODE(3, "a", "4") ","
		NODE(4, "b", "5") "," NODE(5, "a", "6") "," NODE(6, "a", "") "," NODE(7, "b", "")
		"],\"startTime\":1000,\"endTime\":2000,"
		"\"samples\":[6,6,4,5,7,3],\"timeDeltas\":[10,10,5,3,100,1]}");

	window_stats_init(&w);
	ok(parse(json, ft, &p) == 0, "recursive profile parses");
	ok(aggregate_window(&p, ft, -INFINITY, &w) == 0, "aggregates");
	const struct func_stat *a = find(&w, ft, "a"), *b = find(&w, ft, "b"), *m = find(&w, ft, "main");
	ok(a && b && m, "a, b and main listed");
	if (a && b && m) {
		is_num(a->self_us, 10 + 10 + 3 + 1, 1e-9, "a self: weights of its own samples");
		is_num(a->total_us, 10 + 10 + 5 + 3 + 1, 1e-9, "a total: each sample once despite recursion");
		is_num(b->self_us, 5 + 100, 1e-9, "b self");
		is_num(b->total_us, 10 + 10 + 5 + 3 + 100, 1e-9, "b total once per sample");
		is_num(m->self_us, 0, 1e-9, "main self 0");
		is_num(m->total_us, 129, 1e-9, "main total = all samples");
	}
	is_int(w.n_funcs, 3, "(root) not in the list");
	ok(w.n_funcs == 3 && w.funcs[0].func == b->func && w.funcs[1].func == a->func,
		"sorted by self time");
	is_num(w.sampled_us, 129, 1e-9, "sampled time");
	is_num(w.js_us, 129, 1e-9, "all js");
	is_int(w.n_samples, 6, "six samples");
	is_num(w.start_us, 1000, 1e-9, "window starts at the first sample minus its delta");
	is_num(w.end_us, 1129, 1e-9, "window ends at the last sample");
	is_num(w.last_sample_us, 1129, 1e-9, "trim point");
	window_stats_free(&w);
	profile_release(&p);
	free(json);
	functab_free(ft);
}

static void test_weights_and_specials(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct window_stats w;
	char *json = make("{\"nodes\":["
		NODE(1, "(root)", "2,3,4,5") "," NODE(2, "(idle)", "") "," NODE(3, "(program)", "") ","
		NODE(4, "(garbage collector)", "") "," NODE(5, "x", "6") "," NODE(6, "y", "")
		"],\"startTime\":0,\"endTime\":1,"
		"\"samples\":[5,6,6,6,2,3,4,1,6],\"timeDeltas\":[1000,1,1,1,50,20,30,7,-5]}");

	window_stats_init(&w);
	ok(parse(json, ft, &p) == 0 && aggregate_window(&p, ft, -INFINITY, &w) == 0, "parses, aggregates");
	const struct func_stat *x = find(&w, ft, "x"), *y = find(&w, ft, "y");
	ok(x && y && w.funcs[0].func == x->func, "x first: one heavy sample beats three light ones");
	if (x && y) {
		is_num(x->self_us, 1000, 1e-9, "x weighted by its delta");
		is_num(y->self_us, 3, 1e-9, "y: three samples, 1 µs each, negative delta counts 0");
		is_num(x->total_us, 1003, 1e-9, "x total");
	}
	is_int(w.n_funcs, 2, "special nodes not in the list");
	is_num(w.idle_us, 50, 1e-9, "idle");
	is_num(w.program_us, 27, 1e-9, "program includes (root)");
	is_num(w.gc_us, 30, 1e-9, "gc");
	is_num(w.js_us, 1003, 1e-9, "js");
	is_num(w.js_us + w.idle_us + w.program_us + w.gc_us, w.sampled_us, 1e-9, "parts add up");
	is_int(w.n_samples, 9, "zero-weight sample still counted");
	is_num(w.end_us, 1105, 1e-9, "negative delta moves the clock back");
	window_stats_free(&w);
	profile_release(&p);
	free(json);
	functab_free(ft);
}

static void test_trim_and_cumulative(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct window_stats w1, w2;
	struct cumulative c;
	char *json = make("{\"nodes\":["
		"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\"},\"children\":[2]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"url\":\"%s\",\"lineNumber\":0},\"children\":[3],"
		"\"positionTicks\":[{\"line\":1,\"ticks\":2},{\"line\":5,\"ticks\":1}]},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"g\",\"url\":\"%s\",\"lineNumber\":9},"
		"\"positionTicks\":[{\"line\":10,\"ticks\":4}]}"
		"],\"startTime\":100,\"endTime\":200,"
		"\"samples\":[2,3,3,2],\"timeDeltas\":[10,10,10,10]}");

	window_stats_init(&w1);
	window_stats_init(&w2);
	cumulative_init(&c);
	ok(parse(json, ft, &p) == 0, "parses");
	ok(aggregate_window(&p, ft, 120, &w1) == 0, "trimmed window");
	is_int(w1.n_samples, 2, "samples at or before the trim point skipped");
	is_num(w1.sampled_us, 20, 1e-9, "only kept weights");
	is_num(w1.start_us, 120, 1e-9, "start = first kept sample minus its delta");
	is_num(w1.end_us, 140, 1e-9, "end");
	const struct func_stat *f = find(&w1, ft, "f"), *g = find(&w1, ft, "g");
	ok(f && g && f->self_us == 10 && g->self_us == 10 && f->total_us == 20, "trimmed self/total");
	ok(aggregate_window(&p, ft, 1000, &w2) == 0 && w2.n_samples == 0 && w2.n_funcs == 0 &&
		w2.sampled_us == 0, "everything trimmed");
	is_num(w2.last_sample_us, 1000, 1e-9, "trim point never goes backwards");
	is_int(w1.n_lines, 3, "three (function, line) pairs");
	ok(w1.n_lines == 3 && w1.lines[0].ticks == 4 && w1.lines[0].line == 10, "lines by ticks");

	cumulative_add(&c, &w1);
	ok(aggregate_window(&p, ft, -INFINITY, &w2) == 0, "untrimmed window");
	cumulative_add(&c, &w2);
	uint32_t ff = f ? f->func : 0, gf = g ? g->func : 0;
	is_int(c.n_windows, 2, "two windows");
	is_int(c.n_samples, 6, "2 + 4 samples");
	is_num(c.sampled_us, 60, 1e-9, "cumulative sampled");
	is_num(cumulative_self_us(&c, ff), 30, 1e-9, "cumulative self f");
	is_num(cumulative_total_us(&c, ff), 60, 1e-9, "cumulative total f");
	is_num(cumulative_self_us(&c, gf), 30, 1e-9, "cumulative self g");
	is_num(cumulative_self_us(&c, 100000), 0, 0, "unknown function reads 0");
	is_int(c.n_lines, 3, "lines merged per (function, line)");
	uint64_t l10 = 0;
	for (size_t i = 0; i < c.n_lines; i++)
		if (c.lines[i].func == gf && c.lines[i].line == 10)
			l10 = c.lines[i].ticks;
	is_int(l10, 8, "ticks summed across windows");

	/* many functions and lines force the counters and the line hash to grow */
	struct window_stats big;
	window_stats_init(&big);
	big.funcs = calloc(5000, sizeof(*big.funcs));
	big.lines = calloc(5000, sizeof(*big.lines));
	for (uint32_t i = 0; i < 5000; i++) {
		big.funcs[i] = (struct func_stat){i * 3, 1, 2};
		big.lines[i] = (struct line_stat){i, 1000 + i % 7, 1};
	}
	big.n_funcs = big.n_lines = 5000;
	cumulative_add(&c, &big);
	cumulative_add(&c, &big);
	is_num(cumulative_total_us(&c, 3 * 4999), 4, 1e-9, "counters grown for a large function id");
	is_int(c.n_lines, 5000 + 3, "5000 new pairs added to the 3");
	uint64_t sum = 0;
	for (size_t i = 0; i < c.n_lines; i++)
		sum += c.lines[i].ticks;
	is_int(sum, 2 * (2 + 1 + 4) + 2 * 5000, "no ticks lost while the hash grew");
	free(big.funcs);
	free(big.lines);

	cumulative_reset(&c);
	ok(c.n_windows == 0 && c.n_samples == 0 && c.sampled_us == 0 && c.n_lines == 0 &&
		cumulative_self_us(&c, ff) == 0 && cumulative_total_us(&c, 3 * 4999) == 0, "reset clears");
	cumulative_add(&c, &w1);
	ok(c.n_lines == 3 && cumulative_self_us(&c, ff) == 10, "usable after reset");

	cumulative_free(&c);
	window_stats_free(&w1);
	window_stats_free(&w2);
	profile_release(&p);
	free(json);
	functab_free(ft);
}

static void test_layout_checks(void)
{
	struct functab *ft = functab_create();
	uint32_t r = functab_intern(ft, "(root)", 6, "", 0, -1, -1);
	uint32_t a = functab_intern(ft, "a", 1, "u", 1, 0, 0);
	uint32_t b = functab_intern(ft, "b", 1, "u", 1, 0, 0);
	/* breadth-first (parent < child, but not preorder): root, a1, a2, b(under a1), a(under b) */
	struct profile_node nodes[] = {
		{r, -1, 0, 0, 0}, {a, 0, 0, 0, 0}, {b, 0, 0, 0, 0}, {b, 1, 0, 0, 0}, {a, 3, 0, 0, 0},
	};
	uint32_t samples[] = {4, 2, 3};
	int64_t deltas[] = {5, 7, 11};
	struct profile p = {.nodes = nodes, .n_nodes = 5, .samples = samples, .time_deltas = deltas,
		.n_samples = 3};
	struct window_stats w;

	window_stats_init(&w);
	ok(aggregate_window(&p, ft, -INFINITY, &w) == 0, "breadth-first layout accepted");
	const struct func_stat *fa = find(&w, ft, "a"), *fb = find(&w, ft, "b");
	ok(fa && fb && fa->total_us == 16 && fb->total_us == 23 && fa->self_us == 5 && fb->self_us == 18,
		"totals right without preorder");
	nodes[2].parent = 3;
	ok(aggregate_window(&p, ft, -INFINITY, &w) < 0, "parent after child refused");
	nodes[2].parent = 0;
	samples[1] = 9;
	ok(aggregate_window(&p, ft, -INFINITY, &w) < 0, "sample out of range refused");
	samples[1] = 2;
	nodes[1].func = 999;
	ok(aggregate_window(&p, ft, -INFINITY, &w) < 0, "function out of range refused");
	window_stats_free(&w);
	functab_free(ft);
}

static void test_fixture(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct window_stats w;
	size_t len;
	char *buf = fixture_read("profile-fib.json", &len);

	window_stats_init(&w);
	ok(buf && profile_parse(buf, len, ft, &p, NULL) == 0, "fixture parses");
	if (!buf) {
		functab_free(ft);
		return;
	}
	ok(aggregate_window(&p, ft, -INFINITY, &w) == 0, "fixture aggregates");
	/* expected values computed independently by bench/ingest-node.js --naive */
	ok(w.n_funcs > 0 && strcmp(functab_get(ft, w.funcs[0].func)->name, "fibHot") == 0, "fibHot on top");
	const struct func_stat *fib = find(&w, ft, "fibHot"), *wl = find(&w, ft, "workload");
	ok(fib && fib->self_us == 247671 && fib->total_us == 247671,
		"fibHot self = total (nested recursion counted once)");
	ok(wl && wl->self_us == 18372 && wl->total_us == 366074, "workload self and total");
	ok(w.n_funcs > 1 && strcmp(functab_get(ft, w.funcs[1].func)->name, "spinBusyLoop") == 0,
		"spinBusyLoop second");
	is_num(w.sampled_us, 435194, 0, "sampled time = sum of deltas");
	is_num(w.js_us, 371063, 0, "js time");
	is_num(w.gc_us, 33958, 0, "gc time");
	is_num(w.idle_us, 30173, 0, "idle time");
	is_num(w.program_us, 0, 0, "program time");
	is_int(w.n_samples, 376, "all samples");
	ok(w.n_lines > 0, "position ticks present");

	ok(aggregate_window(&p, ft, 1104861712, &w) == 0, "trimmed at the 188th sample");
	is_int(w.n_samples, 188, "188 later samples");
	is_num(w.sampled_us, 219162, 0, "their weight");
	fib = find(&w, ft, "fibHot");
	ok(fib && fib->self_us == 133188, "fibHot self in the trimmed window");
	window_stats_free(&w);
	profile_release(&p);
	free(buf);
	functab_free(ft);
}

int main(void)
{
	test_recursion();
	test_weights_and_specials();
	test_trim_and_cumulative();
	test_layout_checks();
	test_fixture();
	return done_testing();
}
