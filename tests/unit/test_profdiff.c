/* test_profdiff.c: two profiles compared (ntop-js --diff): exact shares and changes on
 * profiles written here, matching by line, by name after an edit, new and gone functions, and
 * the real recordings of tests/fixtures/diff (record.js: a program before and after an edit). */
#include "config.h"

#include "profdiff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "fixture.h"
#include "pprof.h"
#include "pprof_read.h"
#include "functab.h"
#include "profile.h"
#include "report_diff.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

struct side {
	struct functab *ft;
	struct profile p;
	struct window_stats w;
};

static bool side_parse(const char *json, size_t len, struct side *s)
{
	char *err = NULL;
	int r;

	s->ft = functab_create();
	window_stats_init(&s->w);
	r = profile_parse(json, len, s->ft, &s->p, &err);
	if (r)
		printf("# parse failed: %s\n", err);
	free(err);
	if (!r)
		aggregate_window(&s->p, s->ft, -INFINITY, &s->w);
	return r == 0;
}

static void side_free(struct side *s)
{
	window_stats_free(&s->w);
	profile_release(&s->p);
	functab_free(s->ft);
}

/* A node: id, name (JSON-escaped), url, 0-based line and column, its children's ids (a JSON
 * array body). */
static char *node_at(int id, const char *name, const char *url, int line, int col, const char *kids)
{
	return xasprintf("{\"id\":%d,\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"1\","
		"\"url\":\"%s\",\"lineNumber\":%d,\"columnNumber\":%d},\"children\":[%s]}",
		id, name, url, line, col, kids);
}

static char *node(int id, const char *name, const char *url, int line, const char *kids)
{
	return node_at(id, name, url, line, 0, kids);
}

/* A profile of the nodes given (a JSON array body) and of counts[i] samples of node i + 1
 * (1 ms apart), in order. */
static char *profile_json(const char *nodes, const int *counts, int n_ids)
{
	struct strbuf s, d;
	int k = 0;

	strbuf_init(&s);
	strbuf_init(&d);
	for (int id = 1; id <= n_ids; id++)
		for (int c = 0; c < counts[id - 1]; c++, k++) {
			strbuf_printf(&s, "%s%d", k ? "," : "", id);
			strbuf_printf(&d, "%s1000", k ? "," : "");
		}
	char *out = xasprintf("{\"nodes\":[%s],\"startTime\":0,\"endTime\":%d000,\"samples\":[%s],"
		"\"timeDeltas\":[%s]}", nodes, k, s.data ? s.data : "", d.data ? d.data : "");
	strbuf_free(&s);
	strbuf_free(&d);
	return out;
}

static const struct profdiff_row *row_named(const struct profdiff *d, const struct side *a,
	const struct side *b, const char *name)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct profdiff_row *r = &d->rows[i];
		const struct func_info *fi = r->fb != PROFDIFF_NONE ? functab_get(b->ft, r->fb) :
			functab_get(a->ft, r->fa);
		if (!strcmp(fi->name, name))
			return r;
	}
	return NULL;
}

static char *join5(char *a, char *b, char *c, char *d, char *e)
{
	char *out = xasprintf("%s,%s,%s,%s%s%s", a, b, c, d, e ? "," : "", e ? e : "");
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	return out;
}

/* A: main -> f1 (line 10) 60 ms, f2 (line 20) 40 ms. B: the file edited: f1 still on line 10
 * with 30 ms, f2 moved to line 25 with 50 ms, a new f3 (its name holds a terminal escape)
 * with 20 ms, and 100 ms of (idle), which is no one's busy time. */
static void test_exact(void)
{
	static const int ca[] = { 0, 0, 60, 40 }, cb[] = { 0, 0, 30, 50, 20, 100 };
	char *na = join5(node(1, "(root)", "", -1, "2"), node(2, "main", "file:///app.js", 0, "3,4"),
		node(3, "f1", "file:///app.js", 9, ""), node(4, "f2", "file:///app.js", 19, ""), NULL);
	char *n5 = node(5, "f3\\u001b[31m", "file:///app.js", 39, ""), *n6 = node(6, "(idle)", "", -1, "");
	char *nb = join5(node(1, "(root)", "", -1, "2,6"), node(2, "main", "file:///app.js", 0, "3,4,5"),
		node(3, "f1", "file:///app.js", 9, ""), node(4, "f2", "file:///app.js", 24, ""),
		xasprintf("%s,%s", n5, n6));
	char *ja = profile_json(na, ca, 4), *jb = profile_json(nb, cb, 6);
	struct side a, b;
	struct profdiff d;
	const struct profdiff_row *r;

	if (!side_parse(ja, strlen(ja), &a) || !side_parse(jb, strlen(jb), &b)) {
		ok(0, "the written profiles parse");
		return;
	}
	profdiff_compute(&a.w, a.ft, &b.w, b.ft, 0.05, &d);
	is_num(d.busy_ms_a, 100, 1e-9, "A: 100 ms busy");
	is_num(d.busy_ms_b, 100, 1e-9, "B: 100 ms busy, its (idle) left out");
	r = row_named(&d, &a, &b, "f1");
	ok(r && r->match == PROFDIFF_SAME && r->self_a == 60 && r->self_b == 30 && r->total_a == 60,
		"f1: the same line, self 60 %% then 30 %%");
	r = row_named(&d, &a, &b, "f2");
	ok(r && r->match == PROFDIFF_MOVED && r->self_a == 40 && r->self_b == 50 &&
		r->self_ms_a == 40 && r->self_ms_b == 50, "f2: moved from line 20 to 25, 40 %% then 50 %%");
	r = row_named(&d, &a, &b, "f3\x1b[31m");
	ok(r && r->match == PROFDIFF_NEW && r->fa == PROFDIFF_NONE && r->self_b == 20,
		"f3: new in B, 20 %%");
	r = row_named(&d, &a, &b, "main");
	ok(r && r->self_a == 0 && r->self_b == 0 && r->total_a == 100 && r->total_b == 100,
		"main: no self time, 100 %% total on both sides");
	ok(!row_named(&d, &a, &b, "(idle)") && !row_named(&d, &a, &b, "(root)"),
		"(idle) and (root) are not rows");
	ok(d.n >= 3 && fabs(d.rows[0].self_b - d.rows[0].self_a) == 30 &&
		fabs(d.rows[1].self_b - d.rows[1].self_a) == 20, "the largest change first: f1, then f3");
	{
		struct strbuf out;
		struct report_diff rd = {"a.cpuprofile", "b\x1b]0;x\a.cpuprofile", &d, a.ft, b.ft};
		strbuf_init(&out);
		report_diff_text(&out, &rd, 0);
		ok(out.data && !strchr(out.data, '\x1b') && !strchr(out.data, '\a'),
			"text: the escapes in a name and a file name are not printed");
		ok(out.data && strstr(out.data, "   40.0%   50.0%   +10.0") &&
			strstr(out.data, "f2  /app.js:25 (line 20 in A)"),
			"text: f2's shares, change and both lines");
		strbuf_reset(&out);
		report_diff_json(&out, &rd);
		ok(out.data && strstr(out.data, "\"function\":\"f2\",\"url\":\"/app.js\",\"line\":25,"
			"\"line_a\":20,\"match\":\"moved\",\"self_pct_a\":40,\"self_pct_b\":50,"
			"\"delta_self_pct\":10,") && strstr(out.data, "\"match\":\"new\""),
			"JSON: f2's row, and a new one");
		strbuf_free(&out);
	}
	profdiff_free(&d);
	side_free(&a);
	side_free(&b);
	free(n5);
	free(n6);
	free(na);
	free(nb);
	free(ja);
	free(jb);
}

/* Two arrows on one line are told apart by column; the same program under another directory
 * is "moved", and the text names where it was. */
static void test_columns_and_dirs(void)
{
	static const int ca[] = { 0, 0, 70, 30 }, cb[] = { 0, 0, 20, 80 };
	char *na = join5(node(1, "(root)", "", -1, "2"), node(2, "main", "file:///x/app.js", 0, "3,4"),
		node_at(3, "", "file:///x/app.js", 4, 10, ""), node_at(4, "", "file:///x/app.js", 4, 40, ""),
		NULL);
	char *nb = join5(node(1, "(root)", "", -1, "2"), node(2, "main", "file:///y/app.js", 0, "3,4"),
		node_at(3, "", "file:///y/app.js", 4, 10, ""), node_at(4, "", "file:///y/app.js", 4, 40, ""),
		NULL);
	char *ja = profile_json(na, ca, 4), *jb = profile_json(nb, cb, 4), *jc = profile_json(na, cb, 4);
	struct side a, b, c;
	struct profdiff d;

	if (!side_parse(ja, strlen(ja), &a) || !side_parse(jb, strlen(jb), &b) ||
	    !side_parse(jc, strlen(jc), &c)) {
		ok(0, "the written profiles parse");
		return;
	}
	profdiff_compute(&a.w, a.ft, &c.w, c.ft, 0.05, &d);
	{
		bool by_col = d.n >= 2;
		for (size_t i = 0; i < d.n; i++) {
			const struct func_info *fa = functab_get(a.ft, d.rows[i].fa);
			if (!fa->name[0])
				by_col = by_col && d.rows[i].match == PROFDIFF_SAME &&
					(fa->column == 10 ? d.rows[i].self_a == 70 && d.rows[i].self_b == 20 :
					 d.rows[i].self_a == 30 && d.rows[i].self_b == 80);
		}
		ok(by_col, "two arrows on line 5: each paired with its own column (70 -> 20 %%, 30 -> 80 %%)");
	}
	profdiff_free(&d);
	profdiff_compute(&a.w, a.ft, &b.w, b.ft, 0.05, &d);
	{
		const struct profdiff_row *r = row_named(&d, &a, &b, "main");
		struct strbuf out;
		struct report_diff rd = {"a", "b", &d, a.ft, b.ft};
		ok(r && r->match == PROFDIFF_MOVED, "the program under another directory: moved");
		strbuf_init(&out);
		report_diff_text(&out, &rd, 0);
		ok(out.data && strstr(out.data, "main  /y/app.js:1 (in A: /x/app.js:1)"),
			"and the text says where it was");
		strbuf_free(&out);
	}
	profdiff_free(&d);
	side_free(&a);
	side_free(&b);
	side_free(&c);
	free(na);
	free(nb);
	free(ja);
	free(jb);
	free(jc);
}

/* The recordings: app.js before and after an edit that moved every function two lines down,
 * gave hotB the larger share of the loop (30:70 of the work, then 50:30) and added newHelper. */
static void test_recorded(void)
{
	size_t la, lb;
	char *ja = fixture_read("diff/a.cpuprofile", &la), *jb = fixture_read("diff/b.cpuprofile", &lb);
	struct side a, b;
	struct profdiff d;
	const struct profdiff_row *ra, *rb, *rn;

	if (!ja || !jb || !side_parse(ja, la, &a) || !side_parse(jb, lb, &b)) {
		ok(0, "the recordings load");
		free(ja);
		free(jb);
		return;
	}
	profdiff_compute(&a.w, a.ft, &b.w, b.ft, 0.05, &d);
	ra = row_named(&d, &a, &b, "hotA");
	rb = row_named(&d, &a, &b, "hotB");
	rn = row_named(&d, &a, &b, "newHelper");
	ok(ra && ra->match == PROFDIFF_MOVED && rb && rb->match == PROFDIFF_MOVED,
		"hotA and hotB are found again two lines down");
	ok(ra && ra->self_a > 60 && ra->self_b < ra->self_a - 25,
		"hotA: %.1f %% then %.1f %%", ra ? ra->self_a : 0, ra ? ra->self_b : 0);
	ok(rb && rb->self_b > rb->self_a + 15,
		"hotB: %.1f %% then %.1f %%", rb ? rb->self_a : 0, rb ? rb->self_b : 0);
	ok(rn && rn->match == PROFDIFF_NEW && rn->self_b > 10,
		"newHelper is new, %.1f %%", rn ? rn->self_b : 0);
	ok(d.n && d.rows[0].fa == ra->fa, "the largest change is hotA's");
	profdiff_free(&d);
	/* a profile against itself: every row the same, no change */
	profdiff_compute(&a.w, a.ft, &a.w, a.ft, 0.05, &d);
	{
		bool same = d.n > 0;
		for (size_t i = 0; i < d.n; i++)
			same = same && d.rows[i].match == PROFDIFF_SAME && d.rows[i].self_a == d.rows[i].self_b &&
				d.rows[i].total_a == d.rows[i].total_b;
		ok(same, "a profile against itself: %zu rows, all the same, no change", d.n);
	}
	profdiff_free(&d);
	side_free(&a);
	side_free(&b);
	free(ja);
	free(jb);
}

/* Whether another function of s has func's name and file. */
static bool has_namesake(const struct side *s, uint32_t func)
{
	const struct func_info *fi = functab_get(s->ft, func);

	for (size_t i = 0; i < s->w.n_funcs; i++) {
		const struct func_info *g = functab_get(s->ft, s->w.funcs[i].func);
		if (s->w.funcs[i].func != func && !strcmp(functab_display_name(g),
		    functab_display_name(fi)) && !strcmp(g->url, fi->url))
			return true;
	}
	return false;
}

/* The recording written as pprof (pprof.c, as -o x.pb.gz writes it) and read back: the same
 * functions with the same shares. And files that are not pprof, each refused with a reason. */
static void test_pprof(void)
{
	size_t la, gz_len, raw_len;
	char *ja = fixture_read("diff/a.cpuprofile", &la), *err = NULL;
	struct side a, b = {0};
	struct pprof *pp = pprof_create(PPROF_CPU, 1000000);
	unsigned char *gz = NULL, *raw = NULL;
	struct profdiff d;

	if (!ja || !side_parse(ja, la, &a)) {
		ok(0, "the recording loads");
		free(ja);
		pprof_free(pp);
		return;
	}
	pprof_add_profile(pp, &a.p, a.ft, -INFINITY);
	ok(pprof_encode_gzip(pp, &gz, &gz_len, &err) == 0, "(written as pprof, gzipped)");
	pprof_encode(pp, &raw, &raw_len);
	b.ft = functab_create();
	window_stats_init(&b.w);
	ok(pprof_read_cpu(gz, gz_len, b.ft, &b.p, &err) == 0, "read back: %s", err ? err : "ok");
	aggregate_window(&b.p, b.ft, -INFINITY, &b.w);
	profdiff_compute(&a.w, a.ft, &b.w, b.ft, 0.05, &d);
	{
		/* pprof has one Function per (file, name): two anonymous functions of one file are
		 * one there (as pprof-nodejs writes them too), which moves a few tenths of a point */
		bool same = d.n > 0;
		double worst = 0;
		const struct profdiff_row *ha = row_named(&d, &a, &b, "hotA"), *hb = row_named(&d, &a, &b, "hotB");
		for (size_t i = 0; i < d.n; i++) {
			same = same && (d.rows[i].match == PROFDIFF_SAME ||
				(d.rows[i].match == PROFDIFF_GONE && has_namesake(&a, d.rows[i].fa)));
			worst = fmax(worst, fmax(fabs(d.rows[i].self_b - d.rows[i].self_a),
				fabs(d.rows[i].total_b - d.rows[i].total_a)));
		}
		ok(same && worst < 0.5, "every function found by name, file and line, or merged with "
			"its namesake (%zu rows, largest change %.2f points)", d.n, worst);
		ok(ha && hb && fabs(ha->self_b - ha->self_a) < 0.01 && fabs(hb->self_b - hb->self_a) < 0.01 &&
			fabs(ha->total_b - ha->total_a) < 0.01, "hotA and hotB keep their shares exactly");
		is_num(d.busy_ms_b, d.busy_ms_a, 0.01, "and the busy time");
	}
	profdiff_free(&d);
	side_free(&b);
	b.ft = functab_create();
	ok(pprof_read_cpu(raw, raw_len, b.ft, &b.p, &err) == 0, "the plain protobuf reads too");
	profile_release(&b.p);
	/* refusals */
	free(err);
	err = NULL;
	ok(pprof_read_cpu(gz, gz_len / 2, b.ft, &b.p, &err) < 0 && err && strstr(err, "gzip"),
		"half a gzip stream: %s", err ? err : "(accepted)");
	free(err);
	err = NULL;
	ok(pprof_read_cpu(raw, raw_len - 3, b.ft, &b.p, &err) < 0 && err,
		"a message cut short: %s", err ? err : "(accepted)");
	free(err);
	err = NULL;
	{
		/* sample_type {1, 2}, then a sample naming location 7, which is not there */
		static const unsigned char lost[] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
			0x12, 0x04, 0x08, 0x07, 0x10, 0x05, 0x32, 0x00, 0x32, 0x03, 'c', 'p', 'u' };
		ok(pprof_read_cpu(lost, sizeof lost, b.ft, &b.p, &err) < 0 && err &&
			strstr(err, "location the file does not have"), "a sample's missing location: %s",
			err ? err : "(accepted)");
		free(err);
		err = NULL;
	}
	ok(pprof_read_cpu((const unsigned char *)"\xff\xff\xff", 3, b.ft, &b.p, &err) < 0 && err,
		"three bytes of nothing: %s", err ? err : "(accepted)");
	free(err);
	functab_free(b.ft);
	free(gz);
	free(raw);
	pprof_free(pp);
	side_free(&a);
	free(ja);
}

/* A protobuf message written by hand. */
struct pbw {
	unsigned char b[512];
	size_t n;
};

static void pbw_varint(struct pbw *w, uint64_t v)
{
	do {
		w->b[w->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pbw_int(struct pbw *w, unsigned field, uint64_t v)
{
	pbw_varint(w, field << 3);
	pbw_varint(w, v);
}

static void pbw_bytes(struct pbw *w, unsigned field, const void *data, size_t len)
{
	pbw_varint(w, field << 3 | 2);
	pbw_varint(w, len);
	memcpy(w->b + w->n, data, len);
	w->n += len;
}

static void pbw_msg(struct pbw *w, unsigned field, const struct pbw *sub)
{
	pbw_bytes(w, field, sub->b, sub->n);
}

/* What the fuzzer found (fuzz_pprof's round trip): a sample whose only frame is a function
 * named (root), and one of 2e17 ns, are no one's time; a sample of f counts. */
static void test_pprof_edges(void)
{
	static const char *const strs[] = { "", "cpu", "nanoseconds", "(root)", "f", "a.js" };
	struct pbw m = {0}, t = {0}, s1 = {0}, s2 = {0}, s3 = {0}, f1 = {0}, f2 = {0}, l1 = {0},
		l2 = {0}, ln1 = {0}, ln2 = {0};
	struct functab *ft = functab_create();
	struct profile p;
	struct window_stats w;
	char *err = NULL;

	pbw_int(&t, 1, 1);
	pbw_int(&t, 2, 2);
	pbw_msg(&m, 1, &t);                                   /* sample_type cpu/nanoseconds */
	pbw_int(&s1, 1, 1);
	pbw_int(&s1, 2, 1000000);                             /* (root) alone, 1 ms */
	pbw_int(&s2, 1, 2);
	pbw_int(&s2, 2, 2000000);                             /* f, 2 ms */
	pbw_int(&s3, 1, 2);
	pbw_int(&s3, 2, 200000000000000000ull);               /* f, 2e17 ns: 6 CPU years */
	pbw_msg(&m, 2, &s1);
	pbw_msg(&m, 2, &s2);
	pbw_msg(&m, 2, &s3);
	pbw_int(&ln1, 1, 1);
	pbw_int(&l1, 1, 1);
	pbw_msg(&l1, 4, &ln1);
	pbw_int(&ln2, 1, 2);
	pbw_int(&l2, 1, 2);
	pbw_msg(&l2, 4, &ln2);
	pbw_msg(&m, 4, &l1);
	pbw_msg(&m, 4, &l2);
	pbw_int(&f1, 1, 1);
	pbw_int(&f1, 2, 3);                                   /* (root), no file: V8's root */
	pbw_int(&f2, 1, 2);
	pbw_int(&f2, 2, 4);
	pbw_int(&f2, 4, 5);
	pbw_int(&f2, 5, 7);
	pbw_msg(&m, 5, &f1);
	pbw_msg(&m, 5, &f2);
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		pbw_bytes(&m, 6, strs[i], strlen(strs[i]));
	window_stats_init(&w);
	ok(pprof_read_cpu(m.b, m.n, ft, &p, &err) == 0, "a written profile reads: %s", err ? err : "ok");
	aggregate_window(&p, ft, -INFINITY, &w);
	is_int(p.n_samples, 1, "one sample kept: f's 2 ms");
	is_num(w.sampled_us, 2000, 1e-9, "2 ms in all: the (root) frame's and the 2e17 ns left out");
	ok(w.n_funcs >= 1 && !strcmp(functab_get(ft, w.funcs[0].func)->name, "f") &&
		functab_get(ft, w.funcs[0].func)->line == 6, "f at a.js line 7 (its start line)");
	free(err);
	window_stats_free(&w);
	profile_release(&p);
	functab_free(ft);
}

int main(void)
{
	test_exact();
	test_columns_and_dirs();
	test_recorded();
	test_pprof();
	test_pprof_edges();
	return done_testing();
}
