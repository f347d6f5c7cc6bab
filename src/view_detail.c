/* view_detail.c: the detail screen of one function: where it is, its shares, who calls it,
 * what it calls, its hot lines and V8's deoptimisation reason. Callers and callees can be
 * opened in turn; Esc goes back through a short stack. The detail always reads live data,
 * even while the table is paused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "cumulative.h"
#include "functab.h"
#include "grid.h"
#include "util.h"
#include "view_priv.h"

#define DETAIL_KEYS "Esc back  Up/Down select a caller or callee  Enter open it  w window  " \
	"p pause  ? help  q quit"
#define DETAIL_HOT_LINES 10

void view_detail_open(struct view *v, uint32_t func, bool push)
{
	if (push && v->screen == VS_DETAIL && v->detail != VIEW_NONE) {
		if (v->depth == VIEW_STACK_MAX) {
			memmove(v->stack, v->stack + 1, (VIEW_STACK_MAX - 1) * sizeof(v->stack[0]));
			v->depth--;
		}
		v->stack[v->depth++] = v->detail;
	} else if (!push) {
		v->depth = 0;
	}
	v->detail = func;
	v->detail_sel = 0;
	v->screen = VS_DETAIL;
}

static void detail_refresh(struct view *v, const struct model *m)
{
	size_t n;

	v->n_callers = model_callers(m, v->detail, &v->callers, &v->callers_cap);
	v->n_callees = model_callees(m, v->detail, &v->callees, &v->callees_cap);
	n = v->n_callers + v->n_callees;
	if (v->detail_sel >= n)
		v->detail_sel = n ? n - 1 : 0;
}

/* Back through the stack, then to the table. */
static enum view_action detail_back(struct view *v, const struct model *m, int key)
{
	if (v->depth > 0) {
		v->detail = v->stack[--v->depth];
		v->detail_sel = 0;
	} else {
		v->screen = VS_TABLE;
		v->detail = VIEW_NONE;
	}
	return VA_REDRAW;
}

/* Moves the selection over the callers, then the callees. */
static enum view_action detail_move(struct view *v, const struct model *m, int key)
{
	size_t n, old = v->detail_sel;

	detail_refresh(v, m);
	n = v->n_callers + v->n_callees;
	if (n == 0)
		return VA_NONE;
	if (key == VK_UP && v->detail_sel > 0)
		v->detail_sel--;
	else if (key == VK_DOWN && v->detail_sel + 1 < n)
		v->detail_sel++;
	else if (key == VK_HOME || key == VK_PGUP)
		v->detail_sel = key == VK_HOME || v->detail_sel < 10 ? 0 : v->detail_sel - 10;
	else if (key == VK_END || key == VK_PGDN)
		v->detail_sel = key == VK_END || v->detail_sel + 10 >= n ? n - 1
			: v->detail_sel + 10;
	return v->detail_sel != old ? VA_REDRAW : VA_NONE;
}

static enum view_action detail_open(struct view *v, const struct model *m, int key)
{
	detail_refresh(v, m);
	if (v->n_callers + v->n_callees == 0)
		return VA_NONE;
	view_detail_open(v, v->detail_sel < v->n_callers ? v->callers[v->detail_sel].func
		: v->callees[v->detail_sel - v->n_callers].func, true);
	return VA_REDRAW;
}

/* The arrows and Enter are in help's KEYS under the table's rows (they do the same here). */
static const struct binding detail_bindings[] = {
	{ { VK_ESC, VK_BACKSPACE, 127, 8 }, "Esc, Backspace", "go back from the details or the "
		"memory screen", 14, detail_back },
	{ { VK_UP, VK_DOWN, VK_PGUP, VK_PGDN, VK_HOME, VK_END }, NULL, NULL, 0, detail_move },
	{ { VK_ENTER, '\n', '\r' }, NULL, NULL, 0, detail_open },
	{ { 0 }, "CALLERS", "who calls the function, with the share of its total time that comes "
		"through each, since attach; Enter opens the selected one", 0, NULL },
	{ { 0 }, "CALLEES", "what it calls, with the share of its total time spent in each", 0,
		NULL },
	{ { 0 }, "HOT LINES", "V8's ticks per source line of the function since attach", 0, NULL },
	{ { 0 }, "DEOPTIMISED", "why V8 last deoptimised the function, when it says", 0, NULL },
};

/* The text the model holds for line (V8's) of func, if any. */
static const struct model_line_text *detail_line_text(const struct model *m, uint32_t func,
	uint32_t line)
{
	if (m->line_text_func != func)
		return NULL;
	for (size_t i = 0; i < m->n_line_text; i++)
		if (m->line_text[i].line == line)
			return &m->line_text[i];
	return NULL;
}

/* What a JS function's self time may hold besides its own code. */
static void detail_self_note(const struct model *m, struct grid *g, int y)
{
	char buf[160];

	if (m->inlined_in_callers) {
		snprintf(buf, sizeof(buf), "Self time may include functions V8 inlined into this one "
			"(%s) and regular expressions it runs.",
			m->inlining_caveat[0] ? m->inlining_caveat : "V8 left as it was");
		grid_put(g, 0, y, GA_WARN, buf, 0);
	} else {
		/* V8 names a compiled regular expression only if it compiled it under a profile. */
		grid_put(g, 0, y, GA_DIM, "Self time includes regular expressions this function runs "
			"that V8 compiled before the attach.", 0);
	}
}

static void detail_shares(const struct view *v, const struct model *m, struct grid *g, int y)
{
	struct model_row *rows = NULL, *r = NULL;
	size_t cap = 0, n = model_rows(m, v->s.mode, &rows, &cap);
	char h1[64], h2[64], p1[32], p2[32], t1[32], t2[32], buf[512];

	for (size_t i = 0; i < n; i++)
		if (rows[i].func == v->detail)
			r = &rows[i];
	view_column_heading(v, m, COL_SELF_PCT, h1, sizeof(h1));
	view_column_heading(v, m, COL_TOTAL_PCT, h2, sizeof(h2));
	view_fmt_pct(r ? r->self_pct : 0, p1, sizeof(p1));
	view_fmt_pct(r ? r->total_pct : 0, p2, sizeof(p2));
	view_fmt_time(m->cum ? cumulative_self_us(m->cum, v->detail) : 0, t1, sizeof(t1));
	view_fmt_time(m->cum ? cumulative_total_us(m->cum, v->detail) : 0, t2, sizeof(t2));
	snprintf(buf, sizeof(buf), "%s %s  %s %s  SELF(tot) %s  TOTAL(tot) %s", h1, p1, h2, p2,
		t1, t2);
	grid_put(g, 0, y, GA_NORMAL, buf, 0);
	free(rows);
}

/* A caller or callee: share, time through it, name, location. */
static void detail_relative_row(const struct view *v, const struct model *m, struct grid *g,
	int y, const struct model_row *r, bool selected)
{
	char buf[1024];
	int w = g->width, name_w = (w - 18) * 45 / 100, x;

	if (name_w > 48)
		name_w = 48;
	if (name_w < 8)
		name_w = 8;
	view_fmt_pct(r->self_pct, buf, sizeof(buf));
	view_put_right(g, 0, y, view_heat(r->self_pct), buf, 8);
	view_fmt_time(r->total_us, buf, sizeof(buf));
	view_put_right(g, 9, y, GA_NORMAL, buf, 8);
	x = 18;
	view_put_fit(v, g, x, y, view_func_internal(m, r->func) ? GA_DIM : GA_NORMAL,
		view_func_name(m, r->func), name_w, false);
	x += name_w + 1;
	view_func_location(m, r->func, false, buf, sizeof(buf));
	view_put_fit(v, g, x, y, GA_DIM, buf, w - x, true);
	if (selected)
		grid_fill_attr(g, 0, y, w, GA_SELECTED);
}

/* The function's name, location, shares, deoptimisation and self-time note; returns the row
 * after them (and a blank line). */
static int detail_header(struct view *v, const struct model *m, struct grid *g, int bottom)
{
	const struct func_info *fi = view_func(m, v->detail);
	char buf[1024];
	int y = 0, x;

	x = grid_put(g, 0, y, GA_HEADER, "FUNCTION ", 0);
	view_put_fit(v, g, x, y, GA_NORMAL, view_func_name(m, v->detail), g->width - x, false);
	if (++y >= bottom || g->height < 8)
		return y;
	x = grid_put(g, 0, y, GA_HEADER, "LOCATION ", 0);
	view_func_location(m, v->detail, true, buf, sizeof(buf));
	view_put_fit(v, g, x, y, GA_DIM, buf[0] ? buf : "(none: native or VM code)", g->width - x,
		true);
	if (++y < bottom)
		detail_shares(v, m, g, y);
	if (++y < bottom) {
		if (fi && fi->deopt_reason && fi->deopt_reason[0]) {
			x = grid_put(g, 0, y, GA_WARN, "DEOPTIMISED ", 0);
			grid_put(g, x, y, GA_WARN, fi->deopt_reason, 0);
		} else {
			grid_put(g, 0, y, GA_DIM, "No deoptimisation reported by V8.", 0);
		}
	}
	if (fi && fi->kind == FUNC_JS && ++y < bottom)
		detail_self_note(m, g, y);
	return y + 2; /* a blank line before the sections */
}

/* How many rows each section (callers, callees, hot lines: count[k] items) shows in budget
 * rows: one each, then the rest dealt out in turn; and the first shown, so that the selected
 * caller or callee is visible. */
static void detail_layout(const struct view *v, const size_t count[3], int budget,
	size_t shown[3], size_t first[3])
{
	for (int k = 0; k < 3; k++) {
		shown[k] = 1;
		first[k] = 0;
	}
	for (bool grew = true; grew && budget > 0;) {
		grew = false;
		for (int k = 0; k < 3 && budget > 0; k++)
			if (shown[k] < count[k]) {
				shown[k]++;
				budget--;
				grew = true;
			}
	}
	if (v->detail_sel < v->n_callers) {
		if (v->detail_sel >= shown[0])
			first[0] = v->detail_sel - shown[0] + 1;
	} else if (v->detail_sel - v->n_callers >= shown[1]) {
		first[1] = v->detail_sel - v->n_callers - shown[1] + 1;
	}
}

/* One hot line: its share of the function's ticks, where it is (in the original source when
 * a map gives one, else V8's line) and its text. */
static void detail_line_row(struct view *v, const struct model *m, struct grid *g, int y,
	const struct line_stat *l, uint64_t tick_sum)
{
	double pct = tick_sum ? (double)l->ticks * 100.0 / (double)tick_sum : 0;
	const struct model_line_text *lt = detail_line_text(m, v->detail, l->line);
	char buf[256];
	int tx;

	view_fmt_pct(pct, buf, sizeof(buf));
	view_put_right(g, 0, y, view_heat(pct), buf, 8);
	if (lt && lt->where[0])
		snprintf(buf, sizeof(buf), "%-22s %6llu ticks", lt->where, (unsigned long long)l->ticks);
	else
		snprintf(buf, sizeof(buf), "line %-17u %6llu ticks", l->line,
			(unsigned long long)l->ticks);
	tx = 10 + view_put_fit(v, g, 10, y, GA_NORMAL, buf, g->width - 10, true);
	if (lt && lt->text[0] && tx + 3 < g->width)
		view_put_fit(v, g, tx + 2, y, GA_DIM, lt->text, g->width - tx - 2, false);
}

static void detail_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	static const char *const titles[3] = {
		"CALLERS: % of this function's total time that comes through each (since attach)",
		"CALLEES: % of this function's total time spent in each (since attach)",
		"HOT LINES: V8's ticks per source line since attach",
	};
	struct line_stat *lines;
	uint64_t tick_sum;
	size_t n_lines, count[3], shown[3], first[3];
	int bottom, y;

	detail_refresh(v, m);
	n_lines = model_hot_lines(m, v->detail, &lines, &tick_sum);
	bottom = view_draw_bottom(v, m, g, DETAIL_KEYS);
	y = detail_header(v, m, g, bottom);
	/* Sections: callers, callees, hot lines; each gets a heading and at least one line,
	 * then the lines left are dealt out in turn. */
	count[0] = v->n_callers;
	count[1] = v->n_callees;
	count[2] = n_lines < DETAIL_HOT_LINES ? n_lines : DETAIL_HOT_LINES;
	detail_layout(v, count, bottom - y - 6, shown, first);
	for (int k = 0; k < 3 && y < bottom; k++) {
		grid_fill_attr(g, 0, y, g->width, GA_TITLE);
		grid_put(g, 0, y++, GA_TITLE, titles[k], 0);
		if (k == 2 && m->map_note[0] && m->line_text_func == v->detail && y < bottom)
			grid_put(g, 2, y++, GA_DIM, m->map_note, 0);
		if (count[k] == 0 && y < bottom) {
			const char *none = k == 2 ? "(no line ticks for this function yet)"
				: !m->ct ? "(no call tree is kept in this session)" : "(none)";
			grid_put(g, 2, y++, GA_DIM, none, 0);
			continue;
		}
		for (size_t i = first[k]; i < first[k] + shown[k] && i < count[k] && y < bottom;
		     i++, y++) {
			if (k == 0)
				detail_relative_row(v, m, g, y, &v->callers[i], v->detail_sel == i);
			else if (k == 1)
				detail_relative_row(v, m, g, y, &v->callees[i],
					v->detail_sel == v->n_callers + i);
			else
				detail_line_row(v, m, g, y, &lines[i], tick_sum);
		}
	}
	free(lines);
}

static const char *const detail_key_bars[] = { DETAIL_KEYS, NULL };

const struct screen screen_detail = {
	.name = "detail",
	.key_bars = detail_key_bars,
	.draw = detail_draw,
	.bindings = detail_bindings,
	.n_bindings = sizeof(detail_bindings) / sizeof(detail_bindings[0]),
	.shared_keys = true,
	.help_title = "DETAILS",
	.help_section = 3,
};
