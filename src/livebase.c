/* livebase.c: see livebase.h. */
#include "config.h"

#include "livebase.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "cumulative.h"
#include "functab.h"
#include "model.h"
#include "profdiff.h"
#include "util.h"

struct livebase {
	const struct window_stats *w;
	const struct functab *ft;
	/* The session function each of the file's functions was named as, or PROFDIFF_NONE;
	 * indexed by the file's table; valid for the table with serial ft_serial only. */
	uint32_t *named;
	size_t n_named;
	unsigned long long ft_serial;
};

struct livebase *livebase_create(const struct window_stats *w, const struct functab *ft)
{
	struct livebase *lb = xcalloc(1, sizeof(*lb));

	lb->w = w;
	lb->ft = ft;
	lb->n_named = functab_count(ft);
	lb->named = xmalloc((lb->n_named ? lb->n_named : 1) * sizeof(*lb->named));
	for (size_t i = 0; i < lb->n_named; i++)
		lb->named[i] = PROFDIFF_NONE;
	return lb;
}

void livebase_free(struct livebase *lb)
{
	if (!lb)
		return;
	free(lb->named);
	free(lb);
}

/* The session's cumulative counters as a profile of their own, for profdiff to match. */
static void session_side(const struct cumulative *cum, const struct functab *ft,
	struct window_stats *out)
{
	size_t limit = cum->cap < functab_count(ft) ? cum->cap : functab_count(ft);

	window_stats_init(out);
	out->funcs = xmalloc((limit ? limit : 1) * sizeof(*out->funcs));
	for (size_t f = 0; f < limit; f++)
		if (cum->self_us[f] > 0 || cum->total_us[f] > 0)
			out->funcs[out->n_funcs++] = (struct func_stat){(uint32_t)f, cum->self_us[f],
				cum->total_us[f]};
	out->sampled_us = cum->sampled_us;
	out->idle_us = cum->idle_us;
	out->js_us = cum->js_us;
	out->gc_us = cum->gc_us;
	out->program_us = cum->program_us;
	out->n_samples = cum->n_samples;
}

/* The session's index for the file's function fa, named in the session's table if need be. */
static uint32_t session_func(struct livebase *lb, uint32_t fa, struct functab *session_ft)
{
	const struct func_info *fi;

	if (fa >= lb->n_named)
		return PROFDIFF_NONE;
	if (lb->named[fa] == PROFDIFF_NONE) {
		fi = functab_get(lb->ft, fa);
		lb->named[fa] = functab_intern(session_ft, fi->name, strlen(fi->name), fi->url,
			strlen(fi->url), fi->line, fi->column);
	}
	return lb->named[fa];
}

void livebase_apply(struct livebase *lb, struct model *m, const struct cumulative *cum,
	struct functab *session_ft)
{
	struct window_stats now;
	struct profdiff d;
	double *self, *total, file_ms = lb->w->sampled_us / 1e3;
	size_t n;

	if (lb->ft_serial != functab_serial(session_ft)) {
		for (size_t i = 0; i < lb->n_named; i++)
			lb->named[i] = PROFDIFF_NONE;
		lb->ft_serial = functab_serial(session_ft);
	}
	session_side(cum, session_ft, &now);
	profdiff_compute(lb->w, lb->ft, &now, session_ft, 0, &d);
	/* every row's session function first, so that the arrays cover the ones named now */
	for (size_t i = 0; i < d.n; i++)
		if (d.rows[i].fa != PROFDIFF_NONE && d.rows[i].fb == PROFDIFF_NONE)
			d.rows[i].fb = session_func(lb, d.rows[i].fa, session_ft);
	n = functab_count(session_ft);
	self = xcalloc(n ? n : 1, sizeof(*self));
	total = xcalloc(n ? n : 1, sizeof(*total));
	for (size_t i = 0; i < d.n; i++) {
		const struct profdiff_row *r = &d.rows[i];
		if (r->fa == PROFDIFF_NONE || r->fb >= n || file_ms <= 0)
			continue;
		/* profdiff's shares are of busy time; the live columns' of every sample */
		self[r->fb] = 100.0 * r->self_ms_a / file_ms;
		total[r->fb] = r->total_a * d.busy_ms_a / file_ms;
	}
	model_set_baseline(m, self, total, n, d.busy_ms_a / 1e3);
	profdiff_free(&d);
	free(now.funcs);
}
