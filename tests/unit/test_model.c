/* Unit tests for the model: decayed averages, the rows of each mode, the CPU split, and
 * callers/callees from a hand-built call tree (with recursion). */
#include "config.h"

#include "model.h"
#include "aggregate.h"
#include "cumulative.h"
#include "calltree.h"
#include "functab.h"
#include "livebase.h"
#include "profile.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fn(struct functab *ft, const char *name, const char *url, int line)
{
	return functab_intern(ft, name, strlen(name), url, strlen(url), line, 0);
}

static const struct model_row *find(const struct model_row *rows, size_t n, uint32_t func)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].func == func)
			return &rows[i];
	return NULL;
}

/* A profile from parallel arrays: node functions and parents (preorder), then samples with
 * their weights (time deltas). */
static void make_profile(struct profile *p, size_t n_nodes, const uint32_t *funcs,
	const int32_t *parents, size_t n_samples, const uint32_t *samples, const int64_t *deltas)
{
	memset(p, 0, sizeof(*p));
	p->nodes = calloc(n_nodes, sizeof(*p->nodes));
	for (size_t i = 0; i < n_nodes; i++) {
		p->nodes[i].func = funcs[i];
		p->nodes[i].parent = parents[i];
	}
	p->n_nodes = n_nodes;
	p->samples = calloc(n_samples, sizeof(*p->samples));
	p->time_deltas = calloc(n_samples, sizeof(*p->time_deltas));
	memcpy(p->samples, samples, n_samples * sizeof(*samples));
	memcpy(p->time_deltas, deltas, n_samples * sizeof(*deltas));
	p->n_samples = n_samples;
	p->start_time_us = 0;
	for (size_t i = 0; i < n_samples; i++)
		p->end_time_us += (double)deltas[i];
}

static void free_profile(struct profile *p)
{
	free(p->nodes);
	free(p->samples);
	free(p->time_deltas);
}

static void test_decay_and_rows(void)
{
	struct functab *ft = functab_create();
	uint32_t a = fn(ft, "a", "file:///app/a.js", 0);
	uint32_t b = fn(ft, "b", "file:///app/b.js", 4);
	uint32_t gc = fn(ft, "(garbage collector)", "", -1);
	struct func_stat f1[] = { { a, 500, 800 } };
	struct func_stat f2[] = { { b, 300, 300 }, { gc, 100, 100 } };
	struct window_stats w1, w2;
	struct cumulative cum;
	struct model m;
	struct model_row *rows = NULL;
	const struct model_row *r;
	struct model_split s;
	size_t cap = 0, n;

	model_init(&m);
	is_num(m.half_life_s, 5, 1e-12, "the default half-life is 5 s");
	m.ft = ft;
	m.half_life_s = 1;

	window_stats_init(&w1);
	w1.sampled_us = 1000, w1.js_us = 800, w1.idle_us = 200, w1.n_samples = 10;
	w1.funcs = f1, w1.n_funcs = 1;
	window_stats_init(&w2);
	w2.sampled_us = 1000, w2.js_us = 300, w2.gc_us = 100, w2.program_us = 100;
	w2.idle_us = 500, w2.n_samples = 7;
	w2.funcs = f2, w2.n_funcs = 2;
	cumulative_init(&cum);
	cumulative_add(&cum, &w1);
	cumulative_add(&cum, &w2);
	m.cum = &cum;

	model_on_window(&m, &w1, 1000);
	is_num(m.dec_self_us[a], 500, 1e-9, "the first window goes in whole");
	is_num(m.dec_sampled_us, 1000, 1e-9, "and so does its sampled time");
	model_on_window(&m, &w2, 1000);
	is_num(m.dec_self_us[a], 250, 1e-9, "one half-life later a value has halved");
	is_num(m.dec_total_us[a], 400, 1e-9, "totals decay the same way");
	is_num(m.dec_self_us[b], 300, 1e-9, "the new window adds in full");
	is_num(m.dec_sampled_us, 1500, 1e-9, "sampled time: 1000 * 0.5 + 1000");
	is_num(m.dec_idle_us, 600, 1e-9, "idle time: 200 * 0.5 + 500");
	is_int(m.windows, 2, "windows are counted");
	is_int(m.last_samples, 7, "the last window's samples are kept");
	ok(m.window == &w2, "the model points at the last window");

	n = model_rows(&m, MODE_DECAYED, &rows, &cap);
	is_int(n, 2, "decayed rows: a and b (the GC node is not a row)");
	r = find(rows, n, a);
	ok(r != NULL, "a has a decayed row");
	if (r) {
		is_num(r->self_pct, 250.0 / 1500 * 100, 1e-9, "decayed self%% = 250 / 1500");
		is_num(r->total_pct, 400.0 / 1500 * 100, 1e-9, "decayed total%% = 400 / 1500");
		is_num(r->self_us, 500, 1e-9, "times are cumulative whatever the mode");
	}
	ok(find(rows, n, gc) == NULL, "special nodes are never rows");

	n = model_rows(&m, MODE_WINDOW, &rows, &cap);
	is_int(n, 1, "window rows: only the last window's functions");
	if (n == 1) {
		is_int(rows[0].func, b, "the last window has b");
		is_num(rows[0].self_pct, 30, 1e-9, "window self%% = 300 / 1000");
		is_num(rows[0].total_us, 300, 1e-9, "with its cumulative total time");
	}

	n = model_rows(&m, MODE_CUMULATIVE, &rows, &cap);
	is_int(n, 2, "cumulative rows: a and b");
	r = find(rows, n, a);
	ok(r && fabs(r->self_pct - 25) < 1e-9, "cumulative self%% = 500 / 2000");
	r = find(rows, n, b);
	ok(r && fabs(r->total_pct - 15) < 1e-9, "cumulative total%% = 300 / 2000");

	s = model_split(&m, MODE_WINDOW);
	is_num(s.js_pct, 30, 1e-9, "window split: JS");
	is_num(s.gc_pct, 10, 1e-9, "window split: GC");
	is_num(s.program_pct, 10, 1e-9, "window split: program");
	is_num(s.idle_pct, 50, 1e-9, "window split: idle");
	s = model_split(&m, MODE_CUMULATIVE);
	is_num(s.js_pct, 55, 1e-9, "cumulative split: JS (1100 / 2000)");
	s = model_split(&m, MODE_DECAYED);
	is_num(s.idle_pct, 40, 1e-9, "decayed split: idle (600 / 1500)");

	/* A 5 s half-life and a 2.5 s window: f = 2^-0.5. */
	model_reset_decay(&m);
	is_num(m.dec_self_us[a], 0, 0, "reset forgets the decayed values");
	is_int(model_rows(&m, MODE_DECAYED, &rows, &cap), 0, "and the decayed rows");
	m.half_life_s = 5;
	model_on_window(&m, &w1, 2500);
	model_on_window(&m, &w1, 2500);
	is_num(m.dec_self_us[a], 500 * (1 + pow(0.5, 0.5)), 1e-9, "decay factor 0.5^(window/half-life)");

	model_set_status(&m, true, 12.5, "saved %d files", 2);
	is_str(m.status, "saved 2 files", "status is formatted");
	ok(m.status_is_error && m.status_wall_s == 12.5, "with its kind and time");

	/* No data: nothing to show, nothing to crash on. */
	{
		struct model e;
		model_init(&e);
		is_int(model_rows(&e, MODE_WINDOW, &rows, &cap), 0, "an empty model has no rows");
		is_int(model_rows(&e, MODE_CUMULATIVE, &rows, &cap), 0, "in any mode");
		s = model_split(&e, MODE_DECAYED);
		is_num(s.js_pct + s.idle_pct, 0, 0, "and a zero split");
		is_int(model_callers(&e, 0, &rows, &cap), 0, "and no callers without a call tree");
		model_free(&e);
	}

	free(rows);
	cumulative_free(&cum);
	model_free(&m);
	functab_free(ft);
}

static void test_callers_callees(void)
{
	struct functab *ft = functab_create();
	uint32_t root = fn(ft, "(root)", "", -1);
	uint32_t prog = fn(ft, "(program)", "", -1);
	uint32_t mainf = fn(ft, "main", "file:///app/main.js", 0);
	uint32_t f = fn(ft, "f", "file:///app/f.js", 1);
	uint32_t g = fn(ft, "g", "file:///app/g.js", 2);
	uint32_t h = fn(ft, "h", "file:///app/h.js", 3);
	uint32_t other = fn(ft, "other", "file:///app/o.js", 4);
	uint32_t fib = fn(ft, "fib", "file:///app/fib.js", 5);
	/* root -> main -> f -> g -> f -> h; root -> other -> f; root -> (program) */
	uint32_t funcs[] = { root, mainf, f, g, f, h, other, f, prog };
	int32_t parents[] = { -1, 0, 1, 2, 3, 4, 0, 6, 0 };
	uint32_t samples[] = { 2, 3, 4, 5, 7, 8 };
	int64_t deltas[] = { 10, 20, 5, 40, 25, 100 };
	/* root -> fib -> fib -> fib */
	uint32_t funcs2[] = { root, fib, fib, fib };
	int32_t parents2[] = { -1, 0, 1, 2 };
	uint32_t samples2[] = { 3, 1, 3 };
	int64_t deltas2[] = { 10, 10, 20 };
	struct profile p, p2;
	struct calltree *ct = calltree_create(1000);
	struct model m;
	struct model_row *rows = NULL;
	const struct model_row *r;
	size_t cap = 0, n;

	make_profile(&p, 9, funcs, parents, 6, samples, deltas);
	make_profile(&p2, 4, funcs2, parents2, 3, samples2, deltas2);
	calltree_add(ct, &p, -INFINITY);
	calltree_add(ct, &p2, -INFINITY);
	model_init(&m);
	m.ft = ft;
	m.ct = ct;

	/* f's total, counting the inner f once: 75 (under main) + 25 (under other). */
	n = model_callers(&m, f, &rows, &cap);
	is_int(n, 2, "f has two callers (g is inside f, so it does not count)");
	if (n == 2) {
		is_int(rows[0].func, mainf, "main first: callers are sorted by share");
		is_num(rows[0].self_pct, 75, 1e-9, "75%% of f's time comes through main");
		is_num(rows[0].total_us, 75, 1e-9, "with the time through it");
		is_int(rows[1].func, other, "then other");
		is_num(rows[1].self_pct, 25, 1e-9, "25%% through other");
	}
	n = model_callees(&m, f, &rows, &cap);
	is_int(n, 1, "f calls g directly (h only from the inner f)");
	if (n == 1) {
		is_int(rows[0].func, g, "the callee is g");
		is_num(rows[0].self_pct, 65, 1e-9, "65 of f's 100 us go into g");
	}
	n = model_callers(&m, g, &rows, &cap);
	ok(n == 1 && rows[0].func == f && fabs(rows[0].self_pct - 100) < 1e-9,
		"g is called only by f");
	n = model_callees(&m, g, &rows, &cap);
	ok(n == 1 && rows[0].func == f && fabs(rows[0].self_pct - 45.0 / 65 * 100) < 1e-9,
		"g calls f with 45 of its 65 us");
	n = model_callers(&m, mainf, &rows, &cap);
	ok(n == 1 && rows[0].func == root && fabs(rows[0].self_pct - 100) < 1e-9,
		"a top-level function's caller is (root)");
	n = model_callers(&m, h, &rows, &cap);
	ok(n == 1 && rows[0].func == f, "h's caller is the inner f");
	is_int(model_callees(&m, h, &rows, &cap), 0, "a leaf calls nothing");

	/* Direct recursion: fib's total is 40, 30 of it below its own first call. */
	n = model_callers(&m, fib, &rows, &cap);
	ok(n == 1 && rows[0].func == root && fabs(rows[0].self_pct - 100) < 1e-9,
		"recursion: fib's only caller is (root), counted once");
	n = model_callees(&m, fib, &rows, &cap);
	ok(n == 1 && rows[0].func == fib && fabs(rows[0].self_pct - 75) < 1e-9,
		"recursion: fib calls itself with 75%% of its time");
	r = NULL;
	n = model_callees(&m, root, &rows, &cap);
	r = find(rows, n, prog);
	ok(r && fabs(r->total_us - 100) < 1e-9, "(root)'s callees include (program)");
	is_int(model_callers(&m, 9999, &rows, &cap), 0, "an unknown function has no callers");

	free(rows);
	free_profile(&p);
	free_profile(&p2);
	calltree_free(ct);
	model_free(&m);
	functab_free(ft);
}

/* The table across threads and processes: each source's window, rows in percent of that
 * window, special nodes left out, names made safe, sorted across sources. */
static void test_all(void)
{
	struct functab *fa = functab_create(), *fb = functab_create();
	struct window_stats a, b;
	struct model m;
	struct func_stat fsa[3], fsb[2];

	model_init(&m);
	window_stats_init(&a);
	window_stats_init(&b);
	fsa[0] = (struct func_stat){ fn(fa, "(idle)", "", -1), 500000, 500000 };
	fsa[1] = (struct func_stat){ fn(fa, "priceOrder", "file:///srv/app/server.js", 11), 300000,
		400000 };
	fsa[2] = (struct func_stat){ fn(fa, "evil\x1b[2Jname", "node:internal/timers", 4), 100000,
		100000 };
	a.funcs = fsa;
	a.n_funcs = 3;
	a.sampled_us = 1000000;
	fsb[0] = (struct func_stat){ fn(fb, "priceOrder", "file:///srv/app/server.js", 11), 800000,
		900000 };
	fsb[1] = (struct func_stat){ fn(fb, "", "file:///srv/app/server.js", 40), 50000, 50000 };
	b.funcs = fsb;
	b.n_funcs = 2;
	b.sampled_us = 1000000;
	model_all_begin(&m, true);
	model_all_add(&m, "pid 101", &a, fa);
	model_all_add(&m, "pid 102", &b, fb);
	model_all_add(&m, "pid 103", NULL, fb);
	model_all_end(&m);
	ok(m.all_processes && m.all_sources == 2, "two sources with a window (a third had none)");
	is_int((int)m.n_all, 4, "their functions, without (idle)");
	ok(m.n_all == 4 && strcmp(m.all[0].source, "pid 102") == 0 &&
		strcmp(m.all[0].name, "priceOrder") == 0 && fabs(m.all[0].self_pct - 80) < 1e-9 &&
		fabs(m.all[0].total_pct - 90) < 1e-9, "the hottest first, in percent of its window");
	ok(m.n_all == 4 && strcmp(m.all[1].source, "pid 101") == 0 &&
		strcmp(m.all[1].where, "/srv/app/server.js:12") == 0, "then the other process's own "
		"(lines from 1): %s", m.n_all == 4 ? m.all[1].where : "");
	ok(m.n_all == 4 && m.all[2].internal && !strchr(m.all[2].name, '\x1b'),
		"Node's own code marked, a hostile name made safe");
	ok(m.n_all == 4 && strcmp(m.all[3].name, "(anonymous)") == 0, "an anonymous function named so");
	model_all_begin(&m, false);
	model_all_end(&m);
	ok(m.n_all == 0 && m.all_sources == 0 && !m.all_processes, "begin empties it");
	a.funcs = b.funcs = NULL;
	window_stats_free(&a);
	window_stats_free(&b);
	model_free(&m);
	functab_free(fa);
	functab_free(fb);
}

/* b: the cumulative profile pinned, then each row's change against it: a function that grew, one
 * that shrank, one new since, one gone (a row of its own), one too small in the baseline to
 * get a row when gone; dropped, the rows have no change. */
static void test_baseline(void)
{
	struct functab *ft = functab_create();
	uint32_t grew = fn(ft, "grew", "file:///app/a.js", 1);
	uint32_t shrank = fn(ft, "shrank", "file:///app/a.js", 9);
	uint32_t gone = fn(ft, "gone", "file:///app/b.js", 2);
	uint32_t tiny = fn(ft, "tiny", "file:///app/b.js", 7);
	uint32_t fresh = fn(ft, "fresh", "file:///app/c.js", 3);
	struct func_stat before[] = { { grew, 100, 100 }, { shrank, 400, 600 }, { gone, 200, 200 },
		{ tiny, 0.5, 0.5 } };
	struct func_stat after[] = { { grew, 300, 300 }, { shrank, 100, 150 }, { fresh, 50, 50 } };
	struct window_stats w1, w2;
	struct cumulative cum;
	struct model m;
	struct model_row *rows = NULL;
	const struct model_row *r;
	size_t cap = 0, n;

	model_init(&m);
	m.ft = ft;
	window_stats_init(&w1);
	w1.sampled_us = 1000, w1.js_us = 700.5, w1.idle_us = 299.5, w1.n_samples = 100;
	w1.funcs = before, w1.n_funcs = 4;
	window_stats_init(&w2);
	w2.sampled_us = 1000, w2.js_us = 450, w2.idle_us = 550, w2.n_samples = 100;
	w2.funcs = after, w2.n_funcs = 3;
	cumulative_init(&cum);
	m.cum = &cum;
	ok(!model_pin_baseline(&m, 100), "nothing to pin before any busy sample");
	ok(!m.have_baseline, "and no baseline");
	cumulative_add(&cum, &w1);
	model_on_window(&m, &w1, 1000);
	n = model_rows(&m, MODE_WINDOW, &rows, &cap);
	ok(n && isnan(rows[0].dself_pct) && isnan(rows[0].dtotal_pct), "no baseline: no change");
	ok(model_pin_baseline(&m, 100), "the cumulative profile pinned");
	ok(m.have_baseline && m.baseline_wall_s == 100, "the baseline is there, with its time");
	is_num(m.baseline_busy_s, 700.5e-6, 1e-12, "it covers the busy time so far");
	/* nothing is reset at the pin: the cumulative counters go on */
	cumulative_add(&cum, &w2);
	model_on_window(&m, &w2, 1000);
	n = model_rows(&m, MODE_WINDOW, &rows, &cap);
	is_int(n, 4, "window rows: the three now, and the one gone (the tiny one left out)");
	r = find(rows, n, grew);
	ok(r && fabs(r->dself_pct - 20) < 1e-9 && fabs(r->dtotal_pct - 20) < 1e-9,
		"grew: 10%% -> 30%%, +20 points self and total");
	r = find(rows, n, shrank);
	ok(r && fabs(r->dself_pct + 30) < 1e-9 && fabs(r->dtotal_pct + 45) < 1e-9,
		"shrank: self 40%% -> 10%%, total 60%% -> 15%%");
	r = find(rows, n, fresh);
	ok(r && fabs(r->dself_pct - 5) < 1e-9, "new since: its whole share, +5");
	r = find(rows, n, gone);
	ok(r && r->self_pct == 0 && r->total_pct == 0 && fabs(r->dself_pct + 20) < 1e-9,
		"gone: a row with no time now and -20 points");
	ok(find(rows, n, tiny) == NULL, "a function under 0.1%% of the baseline gets no row gone");
	n = model_rows(&m, MODE_CUMULATIVE, &rows, &cap);
	r = find(rows, n, grew);
	ok(r && fabs(r->dself_pct - 10) < 1e-9, "every mode compares with it: the whole session's "
		"20%% against 10%%");
	r = find(rows, n, gone);
	ok(n == 5 && r && fabs(r->self_pct - 10) < 1e-9 && fabs(r->dself_pct + 10) < 1e-9,
		"gone since, still in the session's counters: -10");
	model_drop_baseline(&m);
	ok(!m.have_baseline && m.base_n == 0, "dropped");
	n = model_rows(&m, MODE_WINDOW, &rows, &cap);
	ok(n == 3 && isnan(rows[0].dself_pct), "no change once dropped, and no row for the gone");
	ok(model_pin_baseline(&m, 200) && model_pin_baseline(&m, 300) && m.baseline_wall_s == 300,
		"pinned again, twice: the latest counts");
	free(rows);
	w1.funcs = w2.funcs = NULL;
	window_stats_free(&w1);
	window_stats_free(&w2);
	cumulative_free(&cum);
	model_free(&m);
	functab_free(ft);
}

/* --baseline FILE in the live view (livebase.h): a saved profile's functions matched with the
 * session's as --diff matches them: the same key; an edited file's function at another line;
 * one the session has not run, named in its table so that its loss has a row; one the file
 * does not have. Shares are of every sample, idle included, as the live columns are. */
static void test_file_baseline(void)
{
	struct functab *file = functab_create(), *sess = functab_create();
	/* the file: 2000 us sampled, 1000 of them idle */
	uint32_t fa_same = fn(file, "same", "file:///app/a.js", 4);
	uint32_t fa_moved = fn(file, "moved", "file:///app/a.js", 10);
	uint32_t fa_gone = fn(file, "gone", "file:///app/b.js", 2);
	uint32_t fa_idle = functab_intern(file, "(idle)", 6, "", 0, -1, -1);
	struct func_stat fstats[] = { { fa_idle, 1000, 1000 }, { fa_same, 400, 600 },
		{ fa_moved, 200, 200 }, { fa_gone, 400, 400 } };
	/* the session: moved two lines down (an edit above it), and a new one */
	uint32_t same = fn(sess, "same", "file:///app/a.js", 4);
	uint32_t moved = fn(sess, "moved", "file:///app/a.js", 12);
	uint32_t fresh = fn(sess, "fresh", "file:///app/c.js", 1);
	struct func_stat now[] = { { same, 300, 300 }, { moved, 500, 500 }, { fresh, 100, 100 } };
	struct window_stats fw, w;
	struct cumulative cum;
	struct model m;
	struct model_row *rows = NULL;
	const struct model_row *r;
	struct livebase *lb;
	size_t cap = 0, n, before;
	uint32_t gone;

	window_stats_init(&fw);
	fw.sampled_us = 2000, fw.idle_us = 1000, fw.js_us = 1000, fw.n_samples = 200;
	fw.funcs = fstats, fw.n_funcs = 4;
	window_stats_init(&w);
	w.sampled_us = 1000, w.js_us = 900, w.idle_us = 100, w.n_samples = 100;
	w.funcs = now, w.n_funcs = 3;
	cumulative_init(&cum);
	model_init(&m);
	m.ft = sess;
	m.cum = &cum;
	lb = livebase_create(&fw, file);
	before = functab_count(sess);
	livebase_apply(lb, &m, &cum, sess);
	ok(m.have_baseline, "a saved profile is a baseline before the session has a sample");
	is_num(m.baseline_busy_s, 1000e-6, 1e-12, "it covers the file's busy time");
	is_int(functab_count(sess), before + 2, "the functions the session has not met are named in "
		"its table: gone, and moved at its old line (nothing matches it yet)");
	cumulative_add(&cum, &w);
	model_on_window(&m, &w, 1000);
	livebase_apply(lb, &m, &cum, sess);
	livebase_apply(lb, &m, &cum, sess);
	is_int(functab_count(sess), before + 2, "and not again at the next windows");
	gone = functab_intern(sess, "gone", 4, "file:///app/b.js", 16, 2, 0);
	n = model_rows(&m, MODE_CUMULATIVE, &rows, &cap);
	r = find(rows, n, same);
	ok(r && fabs(r->dself_pct - 10) < 1e-9 && fabs(r->dtotal_pct) < 1e-9,
		"the same function: self 20%% -> 30%%, total 30%% -> 30%% (shares of every sample)");
	r = find(rows, n, moved);
	ok(r && fabs(r->dself_pct - 40) < 1e-9, "moved two lines by an edit: still matched, "
		"10%% -> 50%%");
	r = find(rows, n, fresh);
	ok(r && fabs(r->dself_pct - 10) < 1e-9, "new since the file: its whole share");
	r = find(rows, n, gone);
	ok(r && r->self_pct == 0 && fabs(r->dself_pct + 20) < 1e-9,
		"in the file only: a row with its loss, -20");
	is_int(n, 4, "four rows: (idle) is none");
	model_drop_baseline(&m);
	livebase_free(lb);
	free(rows);
	fw.funcs = w.funcs = NULL;
	window_stats_free(&fw);
	window_stats_free(&w);
	cumulative_free(&cum);
	model_free(&m);
	functab_free(file);
	functab_free(sess);
}

int main(void)
{
	test_decay_and_rows();
	test_baseline();
	test_file_baseline();
	test_callers_callees();
	test_all();
	return done_testing();
}
