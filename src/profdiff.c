/* profdiff.c: see profdiff.h. */
#include "config.h"

#include "profdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "functab.h"
#include "util.h"

/* A function of one side, as matching sees it. */
struct side_fn {
	uint32_t func;
	const char *name, *url, *base; /* base: the url's last component */
	int32_t line, column;          /* -1: unknown (pprof has no column) */
	double self_ms, total_ms;
	uint32_t pair;                 /* index into the other side, or PROFDIFF_NONE */
	enum profdiff_match match;
};

struct side {
	struct side_fn *v;
	size_t n;
};

static const char *url_base(const char *url)
{
	const char *s = strrchr(url, '/');

	return s ? s + 1 : url;
}

static void side_load(const struct window_stats *w, const struct functab *ft, struct side *s)
{
	s->v = xmalloc((w->n_funcs ? w->n_funcs : 1) * sizeof(*s->v));
	s->n = 0;
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct func_info *fi = functab_get(ft, w->funcs[i].func);
		if (fi->kind == FUNC_IDLE || fi->kind == FUNC_ROOT)
			continue;
		/* by the name shown: an anonymous function is "(anonymous)" in pprof files */
		s->v[s->n++] = (struct side_fn){w->funcs[i].func, functab_display_name(fi), fi->url,
			url_base(fi->url),
			fi->line, fi->column, w->funcs[i].self_us / 1e3, w->funcs[i].total_us / 1e3, PROFDIFF_NONE,
			PROFDIFF_GONE};
	}
}

/* The keys of the three passes: name, url and line; name and url; name and the url's base.
 * Within a key, by line, so that an edited file's functions pair in order. */
enum key { K_EXACT, K_URL, K_BASE };

static int key_cmp(const struct side_fn *a, const struct side_fn *b, enum key k)
{
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	c = strcmp(k == K_BASE ? a->base : a->url, k == K_BASE ? b->base : b->url);
	if (c || k != K_EXACT)
		return c;
	c = (a->line > b->line) - (a->line < b->line);
	/* two functions on one line (arrows, a bundle) differ by column where both sides have one */
	if (c || a->column < 0 || b->column < 0)
		return c;
	return (a->column > b->column) - (a->column < b->column);
}

/* Within a key: by line, then column, so that pairs follow the file's order. */
static int by_line(const struct side_fn *a, const struct side_fn *b)
{
	int c = (a->line > b->line) - (a->line < b->line);

	return c ? c : (a->column > b->column) - (a->column < b->column);
}

#define KEY_SORT(name, k) \
	static int name(const void *x, const void *y) \
	{ \
		int c = key_cmp(*(struct side_fn *const *)x, *(struct side_fn *const *)y, k); \
		return c ? c : by_line(*(struct side_fn *const *)x, *(struct side_fn *const *)y); \
	}
KEY_SORT(sort_exact, K_EXACT)
KEY_SORT(sort_url, K_URL)
KEY_SORT(sort_base, K_BASE)

/* The unpaired functions of s, sorted for pass k. */
static struct side_fn **unpaired(struct side *s, enum key k, size_t *n)
{
	struct side_fn **v = xmalloc((s->n ? s->n : 1) * sizeof(*v));
	int (*cmp)(const void *, const void *) = k == K_EXACT ? sort_exact : k == K_URL ? sort_url :
		sort_base;

	*n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pair == PROFDIFF_NONE)
			v[(*n)++] = &s->v[i];
	qsort(v, *n, sizeof(*v), cmp);
	return v;
}

/* One pass: walks both sorted lists; within a key, pairs them in order (line order). */
static void pair_pass(struct side *a, struct side *b, enum key k)
{
	size_t na, nb, i = 0, j = 0;
	struct side_fn **va = unpaired(a, k, &na), **vb = unpaired(b, k, &nb);

	while (i < na && j < nb) {
		int c = key_cmp(va[i], vb[j], k);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			/* another directory is a move whatever the line; an unknown line (pprof without
			 * start lines) is no evidence of one */
			enum profdiff_match m = k == K_EXACT || (k == K_URL && (va[i]->line == vb[j]->line ||
				va[i]->line < 0 || vb[j]->line < 0)) ? PROFDIFF_SAME : PROFDIFF_MOVED;
			va[i]->pair = (uint32_t)(vb[j] - b->v);
			vb[j]->pair = (uint32_t)(va[i] - a->v);
			va[i]->match = vb[j]->match = m;
			i++;
			j++;
		}
	}
	free(va);
	free(vb);
}

static double pct(double ms, double busy_ms)
{
	return busy_ms > 0 ? 100.0 * ms / busy_ms : 0;
}

static int by_change(const void *x, const void *y)
{
	const struct profdiff_row *a = x, *b = y;
	double da = fabs(a->self_b - a->self_a), db = fabs(b->self_b - b->self_a);

	if (da != db)
		return da < db ? 1 : -1;
	return (a->self_b + a->self_a < b->self_b + b->self_a) -
		(a->self_b + a->self_a > b->self_b + b->self_a);
}

void profdiff_compute(const struct window_stats *a, const struct functab *fta,
	const struct window_stats *b, const struct functab *ftb, double min_pct,
	struct profdiff *out)
{
	struct side sa, sb;

	memset(out, 0, sizeof(*out));
	out->busy_ms_a = (a->sampled_us - a->idle_us) / 1e3;
	out->busy_ms_b = (b->sampled_us - b->idle_us) / 1e3;
	out->samples_a = a->n_samples;
	out->samples_b = b->n_samples;
	side_load(a, fta, &sa);
	side_load(b, ftb, &sb);
	pair_pass(&sa, &sb, K_EXACT);
	pair_pass(&sa, &sb, K_URL);
	pair_pass(&sa, &sb, K_BASE);
	out->rows = xmalloc((sa.n + sb.n ? sa.n + sb.n : 1) * sizeof(*out->rows));
	for (size_t i = 0; i < sa.n; i++) {
		const struct side_fn *f = &sa.v[i], *g = f->pair != PROFDIFF_NONE ? &sb.v[f->pair] : NULL;
		struct profdiff_row r = {f->func, g ? g->func : PROFDIFF_NONE, f->match,
			pct(f->self_ms, out->busy_ms_a), g ? pct(g->self_ms, out->busy_ms_b) : 0,
			pct(f->total_ms, out->busy_ms_a), g ? pct(g->total_ms, out->busy_ms_b) : 0,
			f->self_ms, g ? g->self_ms : 0};
		if (fmax(fmax(r.self_a, r.self_b), fmax(r.total_a, r.total_b)) >= min_pct)
			out->rows[out->n++] = r;
	}
	for (size_t j = 0; j < sb.n; j++) {
		const struct side_fn *g = &sb.v[j];
		struct profdiff_row r = {PROFDIFF_NONE, g->func, PROFDIFF_NEW, 0,
			pct(g->self_ms, out->busy_ms_b), 0, pct(g->total_ms, out->busy_ms_b), 0, g->self_ms};
		if (g->pair == PROFDIFF_NONE && fmax(r.self_b, r.total_b) >= min_pct)
			out->rows[out->n++] = r;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), by_change);
	free(sa.v);
	free(sb.v);
}

void profdiff_free(struct profdiff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->n = 0;
}
