/* view_all.c: the table across every thread and process watched (T): each one's hottest
 * functions in its latest window, side by side, with the thread or process they ran in. The
 * rows come from the model (model_all_*), already sorted and made safe. */
#include "config.h"

#include "view_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ALL_KEYS "T/Esc back  Up/Down scroll  t next thread  i internals  m memory  q quit  ? help"

/* The rows shown: all of them, or those outside Node's own code (i). */
static bool all_shown(const struct view *v, const struct model_all_row *r)
{
	return !(v->s.hide_internals && r->internal);
}

static size_t all_count(const struct view *v, const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_all; i++)
		n += all_shown(v, &m->all[i]);
	return n;
}

static void all_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	int bottom = view_draw_bottom(v, m, g, ALL_KEYS), y = 0, x, src_w = 6, name_w, page;
	double total = 0;
	size_t n = all_count(v, m), skip;
	char buf[160];

	for (size_t i = 0; i < m->n_threads; i++)
		if (!m->threads[i].exited && m->threads[i].have_window &&
		    isfinite(m->threads[i].busy_pct))
			total += m->threads[i].busy_pct;
	x = view_put_at(g, 0, y, GA_HEADER, m->all_processes ? "ALL PROCESSES" : "ALL THREADS");
	snprintf(buf, sizeof buf, "  %zu with a window, busy %.0f%% of a core in all", m->all_sources,
		total);
	view_put_at(g, x, y++, GA_NORMAL, buf);
	if (y < bottom)
		view_put_at(g, 0, y++, GA_DIM, "Each one's hottest functions in its latest window, in "
			"percent of one core; t shows one of them alone.");
	if (y >= bottom)
		return;
	for (size_t i = 0; i < m->n_all; i++) {
		int w = grid_text_cols(m->all[i].source);
		if (w > src_w)
			src_w = w;
	}
	if (src_w > 24)
		src_w = 24;
	name_w = (g->width - 16 - src_w - 2) / 2;
	if (name_w < 8)
		name_w = 8;
	grid_put(g, 0, y, GA_TITLE, "  SELF%  TOTAL%", 0);
	grid_put(g, 16, y, GA_TITLE, m->all_processes ? "PROCESS" : "THREAD", src_w);
	grid_put(g, 16 + src_w + 1, y, GA_TITLE, "FUNCTION", name_w);
	if (16 + src_w + 1 + name_w + 1 < g->width)
		grid_put(g, 16 + src_w + 1 + name_w + 1, y, GA_TITLE, "LOCATION", 0);
	y++;
	page = bottom - y;
	if (page <= 0)
		return;
	if (n == 0) {
		grid_put(g, 0, y, GA_DIM, "No function has samples yet in any thread's latest window.", 0);
		return;
	}
	if (v->all_top + (size_t)page > n)
		v->all_top = n > (size_t)page ? n - (size_t)page : 0;
	skip = v->all_top;
	for (size_t i = 0; i < m->n_all && y < bottom; i++) {
		const struct model_all_row *r = &m->all[i];
		char pct[16];
		int lx;

		if (!all_shown(v, r) || (skip > 0 && skip--))
			continue;
		view_fmt_pct(r->self_pct, pct, sizeof pct);
		view_put_right(g, 0, y, view_heat(r->self_pct), pct, 7);
		view_fmt_pct(r->total_pct, pct, sizeof pct);
		view_put_right(g, 8, y, GA_NORMAL, pct, 7);
		view_put_fit(v, g, 16, y, GA_SORTED, r->source, src_w, false);
		lx = 16 + src_w + 1;
		view_put_fit(v, g, lx, y, r->internal ? GA_DIM : GA_NORMAL, r->name, name_w, false);
		lx += name_w + 1;
		if (lx < g->width)
			view_put_fit(v, g, lx, y, GA_DIM, r->where, g->width - lx, true);
		y++;
	}
}

static enum view_action all_back(struct view *v, const struct model *m, int key)
{
	v->screen = VS_TABLE;
	return VA_REDRAW;
}

static enum view_action all_scroll(struct view *v, const struct model *m, int key)
{
	size_t n = all_count(v, m);

	if (key == VK_UP && v->all_top > 0)
		v->all_top--;
	else if (key == VK_DOWN && v->all_top + 1 < n)
		v->all_top++;
	else if (key == VK_PGUP)
		v->all_top = v->all_top > 10 ? v->all_top - 10 : 0;
	else if (key == VK_PGDN)
		v->all_top = v->all_top + 10 < n ? v->all_top + 10 : v->all_top;
	else if (key == VK_HOME)
		v->all_top = 0;
	return VA_REDRAW;
}

static enum view_action all_internals(struct view *v, const struct model *m, int key)
{
	v->s.hide_internals = !v->s.hide_internals;
	v->all_top = 0;
	return VA_SETTINGS;
}

static enum view_action all_memory(struct view *v, const struct model *m, int key)
{
	v->screen = VS_MEMORY;
	return VA_REDRAW;
}

/* In help's KEYS list under the shared rows (T), the table's and the detail's. */
static const struct binding all_bindings[] = {
	{ { VK_ESC, VK_BACKSPACE, 'T' }, NULL, NULL, 0, all_back },
	{ { VK_UP, VK_DOWN, VK_PGUP, VK_PGDN, VK_HOME }, NULL, NULL, 0, all_scroll },
	{ { 'i' }, NULL, NULL, 0, all_internals },
	{ { 'm' }, NULL, NULL, 0, all_memory },
};

static const char *const all_key_bars[] = { ALL_KEYS, NULL };

const struct screen screen_all = {
	.name = "all",
	.key_bars = all_key_bars,
	.draw = all_draw,
	.bindings = all_bindings,
	.n_bindings = sizeof(all_bindings) / sizeof(all_bindings[0]),
	.shared_keys = true,
};
