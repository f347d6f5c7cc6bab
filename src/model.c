/* model.c: see model.h.
 *
 * The decayed averages are decayed sums: at every window each value is multiplied by
 * f = 0.5^(window length / half-life) and the window's value is added. A percentage is the
 * ratio of two such sums (a function's time over the sampled time), which is a weighted
 * average of the windows' percentages with weights that halve every half-life. */
#include "config.h"

#include "model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "calltree.h"
#include "cumulative.h"
#include "functab.h"
#include "requests.h"
#include "util.h"

#define MODEL_HALF_LIFE_S 5.0
/* Decayed values below this (µs) are dropped, so functions that stopped running leave the
 * decayed view after about 40 half-lives instead of lingering forever. */
#define MODEL_DECAY_FLOOR_US 1e-6

void model_init(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->half_life_s = MODEL_HALF_LIFE_S;
	m->cpu_pause_s = NAN;
	m->next_burst_in_s = NAN;
	m->gc_pause_s = NAN;
	m->max_pause_s = INFINITY;
	m->runqueue_wait_ms = m->throttled_ms = m->throttled_periods_pct = m->quota_cores = NAN;
	m->req_per_s = m->req_p99_ms = m->req_errors_pct = m->calls_per_s = m->calls_p99_ms = NAN;
	m->req_slowest_p99_ms = NAN;
}

void model_free(struct model *m)
{
	free(m->dec_self_us);
	free(m->dec_total_us);
	m->dec_self_us = m->dec_total_us = NULL;
	m->dec_cap = 0;
	free(m->all);
	m->all = NULL;
	m->n_all = m->all_cap = 0;
	model_drop_baseline(m);
}

static int cmp_lines(const void *pa, const void *pb)
{
	const struct line_stat *a = pa, *b = pb;

	if (a->ticks != b->ticks)
		return a->ticks > b->ticks ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

size_t model_hot_lines(const struct model *m, uint32_t func, struct line_stat **out,
	uint64_t *sum)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	*sum = 0;
	if (!m->cum)
		return 0;
	for (size_t i = 0; i < m->cum->n_lines; i++) {
		const struct line_stat *l = &m->cum->lines[i];
		if (l->func != func || l->ticks == 0)
			continue;
		*out = xreallocarray_grow(*out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = *l;
		*sum += l->ticks;
	}
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_lines);
	return n;
}

void model_all_begin(struct model *m, bool processes)
{
	m->n_all = 0;
	m->all_sources = 0;
	m->all_processes = processes;
}

void model_all_add(struct model *m, const char *source, const struct window_stats *w,
	const struct functab *ft)
{
	size_t taken = 0;

	if (!w || !ft || !(w->sampled_us > 0))
		return;
	m->all_sources++;
	/* w->funcs is sorted by self time: a source's first rows are its heaviest */
	for (size_t i = 0; i < w->n_funcs && taken < MODEL_ALL_ROWS_MAX; i++) {
		const struct func_stat *fs = &w->funcs[i];
		const struct func_info *fi = functab_get(ft, fs->func);
		struct model_all_row *r;
		const char *name;

		if (!fi || fi->kind != FUNC_JS || !(fs->self_us > 0))
			continue;
		if (m->n_all == m->all_cap) {
			m->all_cap = m->all_cap ? 2 * m->all_cap : 64;
			m->all = xrealloc(m->all, m->all_cap * sizeof *m->all);
		}
		r = &m->all[m->n_all++];
		taken++;
		util_sanitize(source, strlen(source), r->source, sizeof r->source);
		name = fi->name && fi->name[0] ? fi->name : "(anonymous)";
		util_sanitize(name, strlen(name), r->name, sizeof r->name);
		r->where[0] = '\0';
		if (fi->url && fi->url[0]) {
			char loc[512];
			const char *url = util_display_url(fi->url);

			if (fi->line >= 0)
				snprintf(loc, sizeof loc, "%s:%ld", url, (long)fi->line + 1);
			else
				snprintf(loc, sizeof loc, "%s", url);
			util_sanitize(loc, strlen(loc), r->where, sizeof r->where);
		}
		r->self_pct = 100.0 * fs->self_us / w->sampled_us;
		r->total_pct = 100.0 * fs->total_us / w->sampled_us;
		r->internal = functab_is_internal(fi);
	}
}

static int model_all_cmp(const void *a, const void *b)
{
	const struct model_all_row *x = a, *y = b;

	if (x->self_pct != y->self_pct)
		return x->self_pct < y->self_pct ? 1 : -1;
	if (x->total_pct != y->total_pct)
		return x->total_pct < y->total_pct ? 1 : -1;
	return strcmp(x->source, y->source);
}

void model_all_end(struct model *m)
{
	if (m->n_all > 1)
		qsort(m->all, m->n_all, sizeof *m->all, model_all_cmp);
	if (m->n_all > MODEL_ALL_ROWS_MAX)
		m->n_all = MODEL_ALL_ROWS_MAX;
}

static void model_dec_grow(struct model *m, size_t need)
{
	size_t old = m->dec_cap, cap = old;

	if (need <= old)
		return;
	m->dec_self_us = xreallocarray_grow(m->dec_self_us, &cap, need, sizeof(double));
	cap = old;
	m->dec_total_us = xreallocarray_grow(m->dec_total_us, &cap, need, sizeof(double));
	memset(m->dec_self_us + old, 0, (cap - old) * sizeof(double));
	memset(m->dec_total_us + old, 0, (cap - old) * sizeof(double));
	m->dec_cap = cap;
}

void model_on_window(struct model *m, const struct window_stats *w, double window_ms)
{
	double hl = m->half_life_s > 0 && isfinite(m->half_life_s) ? m->half_life_s
		: MODEL_HALF_LIFE_S;
	double f = window_ms > 0 && isfinite(window_ms) ? pow(0.5, window_ms / 1000.0 / hl) : 1.0;
	size_t need = 0;

	m->window = w;
	m->last_window_ms = window_ms;
	m->last_samples = w ? w->n_samples : 0;
	m->windows++;
	if (!w)
		return;

	for (size_t i = 0; i < w->n_funcs; i++)
		if ((size_t)w->funcs[i].func + 1 > need)
			need = (size_t)w->funcs[i].func + 1;
	model_dec_grow(m, need);
	for (size_t i = 0; i < m->dec_cap; i++) {
		m->dec_self_us[i] *= f;
		m->dec_total_us[i] *= f;
		if (m->dec_total_us[i] < MODEL_DECAY_FLOOR_US &&
		    m->dec_self_us[i] < MODEL_DECAY_FLOOR_US)
			m->dec_self_us[i] = m->dec_total_us[i] = 0;
	}
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct func_stat *fs = &w->funcs[i];
		m->dec_self_us[fs->func] += fs->self_us;
		m->dec_total_us[fs->func] += fs->total_us;
	}
	m->dec_sampled_us = m->dec_sampled_us * f + w->sampled_us;
	m->dec_js_us = m->dec_js_us * f + w->js_us;
	m->dec_gc_us = m->dec_gc_us * f + w->gc_us;
	m->dec_program_us = m->dec_program_us * f + w->program_us;
	m->dec_idle_us = m->dec_idle_us * f + w->idle_us;
}

void model_forget_window(struct model *m)
{
	m->window = NULL;
	m->last_window_ms = 0;
	m->last_samples = 0;
}

void model_reset_decay(struct model *m)
{
	if (m->dec_cap) {
		memset(m->dec_self_us, 0, m->dec_cap * sizeof(double));
		memset(m->dec_total_us, 0, m->dec_cap * sizeof(double));
	}
	m->dec_sampled_us = m->dec_js_us = m->dec_gc_us = m->dec_program_us = m->dec_idle_us = 0;
}

void model_set_status(struct model *m, bool is_error, double now_wall_s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->status, sizeof(m->status), fmt, ap);
	va_end(ap);
	m->status_is_error = is_error;
	m->status_wall_s = now_wall_s;
}

static double model_pct(double part, double whole)
{
	return whole > 0 ? part / whole * 100.0 : 0;
}

/* Only ordinary functions are rows; the special nodes are in the split. */
static bool model_is_js(const struct model *m, uint32_t func)
{
	const struct func_info *fi;

	if (!m->ft)
		return true;
	if (func >= functab_count(m->ft))
		return false;
	fi = functab_get(m->ft, func);
	return fi && fi->kind == FUNC_JS;
}

static void model_row_push(const struct model *m, struct model_row **rows, size_t *cap,
	size_t *n, uint32_t func, double self_pct, double total_pct)
{
	struct model_row *r;

	*rows = xreallocarray_grow(*rows, cap, *n + 1, sizeof(**rows));
	r = &(*rows)[(*n)++];
	r->func = func;
	r->self_pct = self_pct;
	r->total_pct = total_pct;
	r->self_us = m->cum ? cumulative_self_us(m->cum, func) : 0;
	r->total_us = m->cum ? cumulative_total_us(m->cum, func) : 0;
	r->dself_pct = r->dtotal_pct = NAN;
}

bool model_pin_baseline(struct model *m, double now_wall_s)
{
	struct model_row *rows = NULL;
	size_t cap = 0, n, top = 0;
	double *self, *total;

	if (!m->cum || m->cum->sampled_us - m->cum->idle_us <= 0)
		return false;
	model_drop_baseline(m);
	n = model_rows(m, MODE_CUMULATIVE, &rows, &cap);
	for (size_t i = 0; i < n; i++)
		if (rows[i].func >= top)
			top = rows[i].func + 1;
	self = xcalloc(top ? top : 1, sizeof(double));
	total = xcalloc(top ? top : 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		self[rows[i].func] = rows[i].self_pct;
		total[rows[i].func] = rows[i].total_pct;
	}
	free(rows);
	model_set_baseline(m, self, total, top, (m->cum->sampled_us - m->cum->idle_us) / 1e6);
	m->baseline_wall_s = now_wall_s;
	return true;
}

void model_set_baseline(struct model *m, double *self_pct, double *total_pct, size_t n,
	double busy_s)
{
	free(m->base_self_pct);
	free(m->base_total_pct);
	m->base_self_pct = self_pct;
	m->base_total_pct = total_pct;
	m->base_n = n;
	m->have_baseline = true;
	m->baseline_busy_s = busy_s;
}

void model_drop_baseline(struct model *m)
{
	free(m->base_self_pct);
	free(m->base_total_pct);
	m->base_self_pct = m->base_total_pct = NULL;
	m->base_n = 0;
	m->have_baseline = false;
}

/* The rows' changes against the baseline, and a row for each function of the baseline that
 * has no time now. */
static void model_rows_against_baseline(const struct model *m, struct model_row **rows,
	size_t *cap, size_t *n)
{
	bool *seen = xcalloc(m->base_n ? m->base_n : 1, sizeof(bool));
	size_t have = *n;

	for (size_t i = 0; i < have; i++) {
		struct model_row *r = &(*rows)[i];
		bool in = r->func < m->base_n;

		r->dself_pct = r->self_pct - (in ? m->base_self_pct[r->func] : 0);
		r->dtotal_pct = r->total_pct - (in ? m->base_total_pct[r->func] : 0);
		if (in)
			seen[r->func] = true;
	}
	for (size_t f = 0; f < m->base_n; f++) {
		struct model_row *r;

		if (seen[f] || (m->base_self_pct[f] < MODEL_BASELINE_GONE_PCT &&
		    m->base_total_pct[f] < MODEL_BASELINE_GONE_PCT) || !model_is_js(m, (uint32_t)f))
			continue;
		model_row_push(m, rows, cap, n, (uint32_t)f, 0, 0);
		r = &(*rows)[*n - 1];
		r->dself_pct = -m->base_self_pct[f];
		r->dtotal_pct = -m->base_total_pct[f];
	}
	free(seen);
}

size_t model_rows(const struct model *m, enum model_mode mode, struct model_row **rows,
	size_t *cap)
{
	size_t n = 0, limit;

	switch (mode) {
	case MODE_WINDOW:
		if (!m->window)
			break;
		for (size_t i = 0; i < m->window->n_funcs; i++) {
			const struct func_stat *fs = &m->window->funcs[i];
			if (!model_is_js(m, fs->func))
				continue;
			model_row_push(m, rows, cap, &n, fs->func,
				model_pct(fs->self_us, m->window->sampled_us),
				model_pct(fs->total_us, m->window->sampled_us));
		}
		break;
	case MODE_CUMULATIVE:
		if (!m->cum)
			break;
		limit = m->cum->cap;
		if (m->ft && functab_count(m->ft) < limit)
			limit = functab_count(m->ft);
		for (size_t f = 0; f < limit; f++) {
			double s = m->cum->self_us[f], t = m->cum->total_us[f];
			if ((s > 0 || t > 0) && model_is_js(m, (uint32_t)f))
				model_row_push(m, rows, cap, &n, (uint32_t)f,
					model_pct(s, m->cum->sampled_us),
					model_pct(t, m->cum->sampled_us));
		}
		break;
	case MODE_DECAYED:
		limit = m->dec_cap;
		if (m->ft && functab_count(m->ft) < limit)
			limit = functab_count(m->ft);
		for (size_t f = 0; f < limit; f++) {
			double s = m->dec_self_us[f], t = m->dec_total_us[f];
			if ((s > 0 || t > 0) && model_is_js(m, (uint32_t)f))
				model_row_push(m, rows, cap, &n, (uint32_t)f,
					model_pct(s, m->dec_sampled_us),
					model_pct(t, m->dec_sampled_us));
		}
		break;
	default:
		break;
	}
	if (m->have_baseline)
		model_rows_against_baseline(m, rows, cap, &n);
	return n;
}

struct model_split model_split(const struct model *m, enum model_mode mode)
{
	struct model_split s = {0, 0, 0, 0};
	double all, js, gc, prog, idle;

	switch (mode) {
	case MODE_WINDOW:
		if (!m->window)
			return s;
		all = m->window->sampled_us, js = m->window->js_us, gc = m->window->gc_us;
		prog = m->window->program_us, idle = m->window->idle_us;
		break;
	case MODE_CUMULATIVE:
		if (!m->cum)
			return s;
		all = m->cum->sampled_us, js = m->cum->js_us, gc = m->cum->gc_us;
		prog = m->cum->program_us, idle = m->cum->idle_us;
		break;
	case MODE_DECAYED:
		all = m->dec_sampled_us, js = m->dec_js_us, gc = m->dec_gc_us;
		prog = m->dec_program_us, idle = m->dec_idle_us;
		break;
	default:
		return s;
	}
	s.js_pct = model_pct(js, all);
	s.gc_pct = model_pct(gc, all);
	s.program_pct = model_pct(prog, all);
	s.idle_pct = model_pct(idle, all);
	return s;
}

static int model_cmp_share(const void *a, const void *b)
{
	const struct model_row *x = a, *y = b;

	if (x->self_pct != y->self_pct)
		return x->self_pct > y->self_pct ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Callers (or callees) of func in O(nodes): node totals bottom-up, then for every node of func
 * that has no func above it (so that recursion counts once), its total goes to its parent's
 * function, or each child's total to the child's function. */
static size_t model_relatives(const struct model *m, uint32_t func, bool callers,
	struct model_row **rows, size_t *cap)
{
	size_t n_nodes, n_funcs = 0, n = 0;
	uint32_t *nf;
	int32_t *np;
	double *tot, *acc, f_total = 0;
	unsigned char *below; /* below[i]: func is a strict ancestor of node i */

	if (!m->ct || (n_nodes = calltree_node_count(m->ct)) == 0)
		return 0;
	nf = xmalloc(n_nodes * sizeof(*nf));
	np = xmalloc(n_nodes * sizeof(*np));
	tot = xmalloc(n_nodes * sizeof(*tot));
	below = xcalloc(n_nodes, 1);
	for (size_t i = 0; i < n_nodes; i++) {
		calltree_node(m->ct, i, &nf[i], &np[i], &tot[i]);
		/* The tree promises parent < child; a node that breaks it is left out. */
		if (np[i] >= (int32_t)i || (i > 0 && np[i] < 0))
			np[i] = -1, nf[i] = UINT32_MAX, tot[i] = 0;
		if (m->ft && nf[i] >= functab_count(m->ft))
			nf[i] = UINT32_MAX;
		if (nf[i] != UINT32_MAX && (size_t)nf[i] + 1 > n_funcs)
			n_funcs = (size_t)nf[i] + 1;
		if (!(tot[i] > 0) || !isfinite(tot[i]))
			tot[i] = 0;
	}
	for (size_t i = n_nodes; i-- > 1;)
		if (np[i] >= 0)
			tot[np[i]] += tot[i];
	for (size_t i = 1; i < n_nodes; i++)
		if (np[i] >= 0)
			below[i] = below[np[i]] || nf[np[i]] == func;

	acc = xcalloc(n_funcs ? n_funcs : 1, sizeof(*acc));
	for (size_t i = 0; i < n_nodes; i++) {
		int32_t p = np[i];

		if (nf[i] == func && !below[i]) {
			f_total += tot[i];
			if (callers && p >= 0 && nf[p] != UINT32_MAX)
				acc[nf[p]] += tot[i];
		}
		if (!callers && p >= 0 && nf[p] == func && !below[p] && nf[i] != UINT32_MAX)
			acc[nf[i]] += tot[i];
	}
	for (size_t f = 0; f < n_funcs; f++) {
		struct model_row *r;

		if (!(acc[f] > 0))
			continue;
		*rows = xreallocarray_grow(*rows, cap, n + 1, sizeof(**rows));
		r = &(*rows)[n++];
		r->func = (uint32_t)f;
		r->self_pct = r->total_pct = model_pct(acc[f], f_total);
		r->self_us = r->total_us = acc[f];
	}
	if (n > 1)
		qsort(*rows, n, sizeof(**rows), model_cmp_share);
	free(nf);
	free(np);
	free(tot);
	free(below);
	free(acc);
	return n;
}

size_t model_callers(const struct model *m, uint32_t func, struct model_row **rows, size_t *cap)
{
	return model_relatives(m, func, true, rows, cap);
}

size_t model_callees(const struct model *m, uint32_t func, struct model_row **rows, size_t *cap)
{
	return model_relatives(m, func, false, rows, cap);
}

/* All rows of one kind as one: their count, errors and p99. */
static void req_sum(const struct req_row *rows, size_t n, uint64_t *count, uint64_t *errors,
	double *p99)
{
	struct req_row all;

	memset(&all, 0, sizeof all);
	for (size_t i = 0; i < n; i++) {
		all.count += rows[i].count;
		all.errors += rows[i].errors;
		if (rows[i].max_ms > all.max_ms)
			all.max_ms = rows[i].max_ms;
		for (size_t k = 0; k < REQ_BUCKETS; k++)
			all.hist[k] += rows[i].hist[k];
	}
	*count = all.count;
	*errors = all.errors;
	*p99 = req_row_quantile(&all, 0.99);
}

/* In place: text that may come from the target (function names, files) or from a log file. */
static void model_safe(char *text, size_t size)
{
	char out[256];

	util_sanitize(text, strnlen(text, size), out, sizeof out < size ? sizeof out : size);
	memcpy(text, out, strlen(out) + 1);
}

void model_add_incident(struct model *m, const struct incident_summary *s)
{
	struct incident_summary *c;

	if (m->n_incidents == MODEL_INCIDENTS_MAX) {
		memmove(&m->incidents[0], &m->incidents[1], (MODEL_INCIDENTS_MAX - 1) * sizeof *c);
		m->n_incidents--;
	}
	c = &m->incidents[m->n_incidents++];
	*c = *s;
	if (c->n_top > INCIDENT_TOP_MAX)
		c->n_top = INCIDENT_TOP_MAX;
	model_safe(c->name, sizeof c->name);
	model_safe(c->dir, sizeof c->dir);
	model_safe(c->trigger, sizeof c->trigger);
	model_safe(c->unit, sizeof c->unit);
	for (size_t i = 0; i < c->n_top; i++) {
		model_safe(c->top[i].function, sizeof c->top[i].function);
		model_safe(c->top[i].where, sizeof c->top[i].where);
	}
	m->incidents_total++;
}

void model_on_requests(struct model *m, const struct req_window *w, double window_ms)
{
	uint64_t n = 0, e = 0, cn = 0, ce = 0;
	double s = window_ms / 1000.0, p99 = NAN, cp99 = NAN;

	const struct req_row *slow = NULL;

	m->req_slowest[0] = m->req_slowest_wait[0] = '\0';
	m->req_slowest_p99_ms = m->req_slowest_wait_pct = NAN;
	if (w && s > 0) {
		req_sum(w->server, w->n_server, &n, &e, &p99);
		req_sum(w->client, w->n_client, &cn, &ce, &cp99);
		for (size_t i = 0; i < w->n_server; i++) {
			double q = req_row_quantile(&w->server[i], 0.99);

			if (isfinite(q) && !(q <= m->req_slowest_p99_ms)) {
				m->req_slowest_p99_ms = q;
				slow = &w->server[i];
			}
		}
	}
	if (slow) {
		/* cut to the line's room */
		snprintf(m->req_slowest, sizeof m->req_slowest, "%.*s",
			(int)sizeof m->req_slowest - 1, slow->key);
		if (isfinite(req_wait_share(slow, 0))) {
			snprintf(m->req_slowest_wait, sizeof m->req_slowest_wait, "%.*s",
				(int)sizeof m->req_slowest_wait - 1, slow->waits[0].host);
			m->req_slowest_wait_pct = 100 * req_wait_share(slow, 0);
		}
	}
	m->req_last = w;
	m->req_window_ms = window_ms;
	m->have_requests |= n > 0 || cn > 0;
	m->req_per_s = w && s > 0 ? (double)n / s : NAN;
	m->req_p99_ms = p99;
	m->req_errors_pct = n ? 100.0 * (double)e / (double)n : NAN;
	m->calls_per_s = w && s > 0 ? (double)cn / s : NAN;
	m->calls_p99_ms = cp99;
}
