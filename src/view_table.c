/* view_table.c: the main screen, a header and the table of hot functions.
 *
 * Layout, top to bottom: up to five header lines (target; sampling state and warnings; the
 * CPU split; memory, drawn by view_memory.c; what the table shows), the column headings, the rows, the status line
 * and the key bar. Short terminals drop header lines first; narrow ones drop the time columns
 * and TOTAL%, and wide ones give the extra width to the location. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "functab.h"
#include "grid.h"
#include "requests.h"
#include "util.h"
#include "view_priv.h"

#define TABLE_KEYS "q quit  ? help  m memory  </> sort  R reverse  w window  p pause  " \
	"/ search  \\ filter  i internals  M node_modules  +/- threshold  Enter detail  " \
	"a alloc sampling  H heap snapshot  b baseline  r reset  s save"
/* --no-cpu, before the profiler is started: c comes first. */
#define TABLE_KEYS_CPU_OFF "c start CPU profiler  m memory  q quit  ? help  " \
	"a alloc sampling  H heap snapshot"

static const double threshold_steps_pct[] = { 0, 0.1, 0.5, 1, 2, 5, 10 };
#define N_STEPS (sizeof(threshold_steps_pct) / sizeof(threshold_steps_pct[0]))

void view_column_heading(const struct view *v, const struct model *m, enum view_column c,
	char *out, size_t outsz)
{
	char label[48];

	view_mode_label(m, v->s.mode, label, sizeof(label));
	switch (c) {
	case COL_SELF_PCT: snprintf(out, outsz, "SELF%%(%s)", label); break;
	case COL_TOTAL_PCT: snprintf(out, outsz, "TOTAL%%(%s)", label); break;
	case COL_SELF_TIME: snprintf(out, outsz, "SELF(tot)"); break;
	case COL_TOTAL_TIME: snprintf(out, outsz, "TOTAL(tot)"); break;
	case COL_NAME: snprintf(out, outsz, "FUNCTION"); break;
	case COL_DSELF_PCT: snprintf(out, outsz, "%sSELF", v->delta ? v->delta : "d"); break;
	case COL_DTOTAL_PCT: snprintf(out, outsz, "%sTOTAL", v->delta ? v->delta : "d"); break;
	default: snprintf(out, outsz, "LOCATION"); break;
	}
}

/* Numbers: right-aligned, and sorted larger first unless reversed. */
static bool col_numeric(enum view_column c)
{
	return c <= COL_TOTAL_TIME || c == COL_DSELF_PCT || c == COL_DTOTAL_PCT;
}

/* The columns as drawn, left to right: a change beside the share it changes. */
static const enum view_column col_order[COL_COUNT] = { COL_SELF_PCT, COL_TOTAL_PCT,
	COL_DSELF_PCT, COL_DTOTAL_PCT, COL_SELF_TIME, COL_TOTAL_TIME, COL_NAME, COL_LOCATION };

/* --- building the visible rows --- */

struct sort_ctx {
	const struct model *m;
	enum view_column col;
};

static int cmp_num(double a, double b)
{
	return a > b ? -1 : a < b ? 1 : 0; /* larger first */
}

static int cmp_rows(const void *pa, const void *pb, void *pc)
{
	const struct model_row *a = pa, *b = pb;
	const struct sort_ctx *c = pc;
	const struct func_info *fa, *fb;
	int r = 0;

	switch (c->col) {
	case COL_SELF_PCT: r = cmp_num(a->self_pct, b->self_pct); break;
	case COL_TOTAL_PCT: r = cmp_num(a->total_pct, b->total_pct); break;
	case COL_SELF_TIME: r = cmp_num(a->self_us, b->self_us); break;
	case COL_TOTAL_TIME: r = cmp_num(a->total_us, b->total_us); break;
	case COL_DSELF_PCT: r = cmp_num(a->dself_pct, b->dself_pct); break;
	case COL_DTOTAL_PCT: r = cmp_num(a->dtotal_pct, b->dtotal_pct); break;
	case COL_NAME:
		r = strcmp(view_func_name(c->m, a->func), view_func_name(c->m, b->func));
		break;
	default:
		fa = view_func(c->m, a->func);
		fb = view_func(c->m, b->func);
		if (fa && fb) {
			r = strcmp(util_display_url(fa->url ? fa->url : ""),
				util_display_url(fb->url ? fb->url : ""));
			if (r == 0)
				r = fa->line < fb->line ? -1 : fa->line > fb->line;
		}
		break;
	}
	if (r == 0)
		r = cmp_num(a->self_pct, b->self_pct);
	if (r == 0)
		r = cmp_num(a->total_pct, b->total_pct);
	if (r == 0)
		r = a->func < b->func ? -1 : a->func > b->func;
	return r;
}

static int cmp_rows_reverse(const void *pa, const void *pb, void *pc)
{
	return -cmp_rows(pa, pb, pc);
}

static bool row_visible(const struct view *v, const struct model *m, const struct model_row *r)
{
	const struct func_info *fi = view_func(m, r->func);
	double t = v->s.threshold_pct;

	if (v->s.hide_internals && view_func_internal(m, r->func))
		return false;
	if (v->s.hide_node_modules && fi && fi->url && strstr(fi->url, "/node_modules/"))
		return false;
	if (t > 0 && r->self_pct < t && r->total_pct < t &&
	    !(fabs(r->dself_pct) >= t || fabs(r->dtotal_pct) >= t))
		return false;
	if (v->s.filter[0] && !view_row_matches(m, r->func, v->s.filter))
		return false;
	return true;
}

void view_table_build(struct view *v, const struct model *m)
{
	const struct model_row *src;
	size_t n;
	struct sort_ctx ctx = { m, v->s.sort };

	if (v->paused) {
		src = v->frozen[v->s.mode];
		n = v->n_frozen[v->s.mode];
	} else {
		n = model_rows(m, v->s.mode, &v->all, &v->all_cap);
		src = v->all;
	}
	v->n_all = n;
	v->n_rows = 0;
	v->rows = xreallocarray_grow(v->rows, &v->rows_cap, n ? n : 1, sizeof(*v->rows));
	for (size_t i = 0; i < n; i++)
		if (row_visible(v, m, &src[i]))
			v->rows[v->n_rows++] = src[i];
	/* A change against a baseline that is no longer pinned: back to the self share. */
	if ((unsigned)ctx.col >= COL_COUNT || (!m->have_baseline && ctx.col >= COL_DSELF_PCT))
		v->s.sort = ctx.col = COL_SELF_PCT;
	qsort_r(v->rows, v->n_rows, sizeof(*v->rows), v->s.reverse ? cmp_rows_reverse : cmp_rows,
		&ctx);
	/* The selection follows its function; while that is not shown, it keeps its place. */
	if (v->sel_func != VIEW_NONE)
		for (size_t i = 0; i < v->n_rows; i++)
			if (v->rows[i].func == v->sel_func) {
				v->sel = i;
				break;
			}
	if (v->sel >= v->n_rows)
		v->sel = v->n_rows ? v->n_rows - 1 : 0;
}

bool view_search_next(struct view *v, const struct model *m, bool backwards)
{
	size_t n;

	view_table_build(v, m);
	n = v->n_rows;
	for (size_t k = 1; k <= n; k++) {
		size_t i = backwards ? (v->sel + n - k % n) % n : (v->sel + k) % n;
		if (view_row_matches(m, v->rows[i].func, v->search)) {
			v->sel = i;
			v->sel_func = v->rows[i].func;
			return true;
		}
	}
	return false;
}

/* --- keys --- */

static enum view_action table_move(struct view *v, const struct model *m, int key)
{
	size_t old = v->sel, n, page = v->page_rows > 1 ? (size_t)v->page_rows : 1;
	uint32_t old_func = v->sel_func;

	view_table_build(v, m);
	n = v->n_rows;
	if (n == 0)
		return VA_NONE;
	switch (key) {
	case VK_UP: if (v->sel > 0) v->sel--; break;
	case VK_DOWN: if (v->sel + 1 < n) v->sel++; break;
	case VK_PGUP: v->sel = v->sel > page ? v->sel - page : 0; break;
	case VK_PGDN: v->sel = v->sel + page < n ? v->sel + page : n - 1; break;
	case VK_HOME: v->sel = 0; break;
	default: v->sel = n - 1; break;
	}
	v->sel_func = v->rows[v->sel].func;
	return v->sel != old || v->sel_func != old_func ? VA_REDRAW : VA_NONE;
}

static enum view_action table_threshold(struct view *v, const struct model *m, int key)
{
	double t = v->s.threshold_pct;
	bool up = key != '-';

	if (up) {
		for (size_t i = 0; i < N_STEPS; i++)
			if (threshold_steps_pct[i] > t + 1e-9) {
				v->s.threshold_pct = threshold_steps_pct[i];
				return VA_SETTINGS;
			}
	} else {
		for (size_t i = N_STEPS; i-- > 0;)
			if (threshold_steps_pct[i] < t - 1e-9) {
				v->s.threshold_pct = threshold_steps_pct[i];
				return VA_SETTINGS;
			}
	}
	return VA_NONE;
}

static enum view_action table_sort(struct view *v, const struct model *m, int key)
{
	/* the changes (7, 8) only while a baseline is pinned */
	int n = m->have_baseline ? COL_COUNT : COL_DSELF_PCT, c = (int)v->s.sort;

	if (key == '<' || key == VK_LEFT)
		v->s.sort = (enum view_column)(c > 0 && c <= n ? c - 1 : n - 1);
	else if (key == '>' || key == VK_RIGHT)
		v->s.sort = (enum view_column)((c + 1) % n);
	else if (key - '1' < n)
		v->s.sort = (enum view_column)(key - '1');
	else
		return VA_NONE;
	return VA_SETTINGS;
}

static enum view_action table_baseline(struct view *v, const struct model *m, int key)
{
	return VA_BASELINE;
}

static enum view_action table_reverse(struct view *v, const struct model *m, int key)
{
	v->s.reverse = !v->s.reverse;
	return VA_SETTINGS;
}

static enum view_action table_internals(struct view *v, const struct model *m, int key)
{
	v->s.hide_internals = !v->s.hide_internals;
	return VA_SETTINGS;
}

static enum view_action table_modules(struct view *v, const struct model *m, int key)
{
	v->s.hide_node_modules = !v->s.hide_node_modules;
	return VA_SETTINGS;
}

/* / opens the search prompt; n and N go to the next and previous match. */
static enum view_action table_search(struct view *v, const struct model *m, int key)
{
	if (key == '/') {
		v->prompt = VP_SEARCH;
		v->input[0] = '\0';
		v->input_len = 0;
	} else if (!v->search[0]) {
		snprintf(v->msg, sizeof(v->msg), "No search yet: press / first.");
	} else if (!view_search_next(v, m, key == 'N')) {
		snprintf(v->msg, sizeof(v->msg), "No function or location contains \"%s\".",
			v->search);
	}
	return VA_REDRAW;
}

static enum view_action table_filter(struct view *v, const struct model *m, int key)
{
	v->prompt = VP_FILTER;
	snprintf(v->input, sizeof(v->input), "%s", v->s.filter);
	v->input_len = strlen(v->input);
	return VA_REDRAW;
}

static enum view_action table_memory(struct view *v, const struct model *m, int key)
{
	v->screen = VS_MEMORY;
	return VA_REDRAW;
}

static enum view_action table_alloc(struct view *v, const struct model *m, int key)
{
	return view_alloc_ask(v, m);
}

static enum view_action table_snapshot(struct view *v, const struct model *m, int key)
{
	return view_snapshot_ask(v, m);
}

/* Esc clears the search. */
static enum view_action table_clear(struct view *v, const struct model *m, int key)
{
	if (!v->search[0])
		return VA_NONE;
	v->search[0] = '\0';
	return VA_REDRAW;
}

static enum view_action table_open(struct view *v, const struct model *m, int key)
{
	view_table_build(v, m);
	if (v->n_rows == 0)
		return VA_NONE;
	v->sel_func = v->rows[v->sel].func;
	view_detail_open(v, v->sel_func, false);
	return VA_REDRAW;
}

static const struct binding table_bindings[] = {
	{ { '<', '>', '1', '2', '3', '4', '5', '6', '7', '8', VK_LEFT, VK_RIGHT }, "<, >, 1-8",
		"sort column: 1 SELF% 2 TOTAL% 3 SELF 4 TOTAL 5 FUNCTION 6 LOCATION, and with a "
		"baseline 7 and 8 its changes; the sorted heading is highlighted, its arrow shows the "
		"direction", 3, table_sort },
	{ { 'R' }, "R", "reverse the sort order", 4, table_reverse },
	{ { '/', 'n', 'N' }, "/, n, N", "search function names and locations; next and previous "
		"match", 7, table_search },
	{ { '\\' }, "\\", "filter: show only rows whose name or location contains the text "
		"(empty clears)", 8, table_filter },
	{ { 'i' }, "i", "hide or show Node internals (node: and internal/ scripts, native code)",
		9, table_internals },
	{ { 'M' }, "M", "hide or show code under node_modules", 10, table_modules },
	{ { '+', '=', '-' }, "+, -", "raise or lower the threshold (0, 0.1, 0.5, 1, 2, 5, 10%): "
		"rows under it in both SELF% and TOTAL% (and, with a baseline, in both changes) are "
		"hidden", 11, table_threshold },
	{ { VK_UP, VK_DOWN, VK_PGUP, VK_PGDN, VK_HOME, VK_END }, "arrows", "Up, Down, PgUp, "
		"PgDn, Home, End move the selection", 12, table_move },
	{ { VK_ENTER, '\n', '\r' }, "Enter", "open the selected function's details", 13,
		table_open },
	{ { 'm' }, "m", "the memory screen (m or Esc comes back)", 17, table_memory },
	{ { 'a' }, "a", "start or stop allocation sampling (V8's sampling heap profiler); each "
		"profile fetch forces a full GC in the target, so starting asks first when that GC "
		"is predicted over --max-pause", 23, table_alloc },
	{ { 'H' }, "H", "take a heap snapshot for Chrome DevTools, after a y/n confirmation that "
		"shows the heap and the free memory: the target pauses while it is written and needs "
		"about twice the heap in memory", 24, table_snapshot },
	{ { 'b' }, "b", "pin the profile so far as a baseline: the table gains the change of each "
		"function's SELF% and TOTAL% against it (points of a core, a point is 10 ms of CPU a "
		"second; nothing is reset, r restarts the cumulative mode); b again drops it", 27,
		table_baseline },
	{ { VK_ESC }, NULL, NULL, 0, table_clear },
};

/* --- drawing --- */

/* Draws pieces left to right on one line; returns the next x. */
static void draw_target_line(const struct model *m, struct grid *g, int y, double now_wall_s)
{
	char buf[512], when[96] = "", ago[32];
	int x = 0, w;

	x = view_put_at(g, x, y, GA_HEADER, "ntop-js");
	snprintf(buf, sizeof(buf), "  PID %d  node %s  ", m->shown_pid ? m->shown_pid : m->pid,
		m->node_version[0] ? m->node_version : "?");
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	if (m->container_pid > 0 && !m->shown_pid) {
		snprintf(buf, sizeof(buf), "container PID %d  ", m->container_pid);
		x = view_put_at(g, x, y, GA_NORMAL, buf);
	}
	if (m->shown_pid && m->shown_thread_id == 0) {
		/* another process of the service (t goes on to the next) */
		x = view_put_at(g, x, y, GA_WARN, "PROCESS");
		x = view_put_at(g, x, y, GA_NORMAL, "  ");
	} else if (m->shown_thread_id != 0) {
		/* a worker's screens: say whose (t goes on to the next) */
		snprintf(buf, sizeof(buf), "THREAD %ld%s%s", m->shown_thread_id,
			m->shown_thread_name[0] ? " " : "", m->shown_thread_name);
		x = view_put_at(g, x, y, GA_WARN, buf);
		x = view_put_at(g, x, y, GA_NORMAL, "  ");
	}
	if (m->attached_wall_s > 0) {
		time_t t = (time_t)m->attached_wall_s;
		struct tm tm;
		view_fmt_time((now_wall_s - m->attached_wall_s) * 1e6, ago, sizeof(ago));
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(buf, sizeof(buf), "  attached %s (%s ago)", when, ago);
	} else {
		buf[0] = '\0';
	}
	w = grid_text_cols(buf);
	/* The title gets what the attach time leaves; when both do not fit, the title goes. */
	if (x + w > g->width)
		w = 0;
	if (g->width - x - w > 0)
		grid_put(g, x, y, GA_DIM, m->shown_pid && m->shown_thread_id == 0 ?
			m->shown_thread_name : m->title, g->width - x - w);
	if (w > 0)
		grid_put(g, g->width - w, y, GA_NORMAL, buf, w);
}

static void draw_sampling_line(const struct view *v, const struct model *m, struct grid *g,
	int y)
{
	char buf[256], itv[32];
	const char *badge;
	enum grid_attr badge_attr;
	int x = 0;

	if (v->paused)
		x = view_put_at(g, x, y, GA_WARN, "PAUSED (sampling goes on)  ");
	if ((badge = view_link_badge(m, &badge_attr)) != NULL) {
		x = view_put_at(g, x, y, badge_attr, badge);
		x = view_put_at(g, x, y, badge_attr, "  ");
	}
	if (m->incidents_total)
		x = view_put_at(g, view_put_incidents(m, g, x, y), y, GA_NORMAL, "  ");
	if (m->windows_late) {
		snprintf(buf, sizeof(buf), "%zu LATE WINDOWS (sampling behind)  ", m->windows_late);
		x = view_put_at(g, x, y, GA_WARN, buf);
	}
	if (m->windows && m->inlined_in_callers && !m->cpu_off) {
		snprintf(buf, sizeof(buf), "SELF MAY INCLUDE INLINED CALLEES (%s)  ",
			m->inlining_caveat[0] ? m->inlining_caveat : "V8 left as it was");
		x = view_put_at(g, x, y, GA_WARN, buf);
	}
	if (m->interval_us > 0 && m->interval_us % 1000 == 0)
		snprintf(itv, sizeof(itv), "%ldms", m->interval_us / 1000);
	else
		snprintf(itv, sizeof(itv), "%ldus", m->interval_us);
	if (m->cpu_starting) {
		snprintf(buf, sizeof(buf), "the CPU profiler is starting (sampling every %s)", itv);
	} else if (m->cpu_off && isfinite(m->next_burst_in_s)) {
		snprintf(buf, sizeof(buf), "between CPU bursts (--cpu-every): the next in %.0f s",
			ceil(m->next_burst_in_s));
	} else if (m->cpu_off && m->cpu_refused[0]) {
		snprintf(buf, sizeof(buf), "CPU not profiled: the target collects precise coverage");
	} else if (m->cpu_off) {
		snprintf(buf, sizeof(buf), "CPU not profiled (--no-cpu): c starts the profiler");
	} else if (m->windows == 0) {
		snprintf(buf, sizeof(buf), "waiting for the first window (sampling every %s)", itv);
	} else {
		char wl[32];
		view_fmt_time(m->last_window_ms * 1000, wl, sizeof(wl));
		snprintf(buf, sizeof(buf), "last window %s, %zu samples  interval %s  windows %zu",
			wl, m->last_samples, itv, m->windows);
	}
	view_put_at(g, x, y, GA_NORMAL, buf);
}

/* What the thread could not get in the last window, from the kernel: its run-queue wait as a
 * share of the window, and the share of its cgroup's quota periods that ran out (with the
 * quota; the throttled time itself is summed over CPUs); red from 10 %. */
static void draw_cpu_wait(const struct model *m, struct grid *g, int x, int y)
{
	double win = m->last_window_ms;
	char buf[96];

	if (!(win > 0))
		return;
	if (isfinite(m->runqueue_wait_ms)) {
		double p = 100.0 * m->runqueue_wait_ms / win;

		snprintf(buf, sizeof(buf), "  waited %.0f%%", p);
		x = view_put_at(g, x, y, p >= 10 ? GA_WARN : GA_NORMAL, buf);
	}
	if (isfinite(m->throttled_periods_pct) && isfinite(m->quota_cores)) {
		double p = m->throttled_periods_pct;

		snprintf(buf, sizeof(buf), "  throttled %.0f%% (quota %.2g cores)", p, m->quota_cores);
		view_put_at(g, x, y, p >= 10 ? GA_WARN : GA_NORMAL, buf);
	}
}

static void draw_cpu_line(const struct view *v, const struct model *m, struct grid *g, int y)
{
	struct model_split s = v->paused ? v->frozen_split[v->s.mode] : model_split(m, v->s.mode);
	char buf[256], label[96], secs[48];
	int x;

	switch (v->s.mode) {
	case MODE_WINDOW:
		view_mode_label(m, MODE_WINDOW, secs, sizeof(secs));
		snprintf(label, sizeof(label), "CPU last %s:", secs);
		break;
	case MODE_DECAYED:
		view_mode_label(m, MODE_DECAYED, secs, sizeof(secs));
		/* the label is "avg <half-life>" */
		snprintf(label, sizeof(label), "CPU decayed avg (half-life %s):", secs + 4);
		break;
	default:
		snprintf(label, sizeof(label), "CPU since attach:");
		break;
	}
	x = view_put_at(g, 0, y, GA_HEADER, label);
	if (m->cpu_off) {
		x = view_put_at(g, x, y, GA_DIM, " not profiled");
		draw_cpu_wait(m, g, x, y);
		return;
	}
	snprintf(buf, sizeof(buf), " JS %.1f%%  GC %.1f%%  program %.1f%%  idle %.1f%%", s.js_pct,
		s.gc_pct, s.program_pct, s.idle_pct);
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	draw_cpu_wait(m, g, x, y);
}

static void draw_settings_line(const struct view *v, const struct model *m, struct grid *g,
	int y)
{
	char buf[512], head[64], pct[32];
	int x;

	view_column_heading(v, m, v->s.sort, head, sizeof(head));
	snprintf(pct, sizeof(pct), "%g%%", v->s.threshold_pct);
	snprintf(buf, sizeof(buf), "%zu of %zu functions  sort %s %s  threshold %s", v->n_rows,
		v->n_all, head, col_numeric(v->s.sort) != v->s.reverse ? "desc" : "asc", pct);
	x = view_put_at(g, 0, y, GA_NORMAL, buf);
	if (v->s.filter[0]) {
		x = view_put_at(g, x, y, GA_NORMAL, "  filter \"");
		x = view_put_at(g, x, y, GA_MATCH, v->s.filter);
		x = view_put_at(g, x, y, GA_NORMAL, "\"");
	}
	if (v->s.hide_internals || v->s.hide_node_modules) {
		snprintf(buf, sizeof(buf), "  hiding %s%s%s",
			v->s.hide_internals ? "node internals" : "",
			v->s.hide_internals && v->s.hide_node_modules ? ", " : "",
			v->s.hide_node_modules ? "node_modules" : "");
		x = view_put_at(g, x, y, GA_NORMAL, buf);
	}
	if (v->search[0]) {
		x = view_put_at(g, x, y, GA_NORMAL, "  search \"");
		x = view_put_at(g, x, y, GA_MATCH, v->search);
		view_put_at(g, x, y, GA_NORMAL, "\"");
	}
}

struct table_layout {
	bool show[COL_COUNT];
	int x[COL_COUNT], w[COL_COUNT];
	char head[COL_COUNT][64];
};

static void table_layout(const struct view *v, const struct model *m, int width,
	struct table_layout *l)
{
	static const enum view_column drop[] = { COL_TOTAL_TIME, COL_SELF_TIME, COL_DTOTAL_PCT,
		COL_TOTAL_PCT };
	int avail = 0, longest = 8, x = 0;

	for (int c = 0; c < COL_COUNT; c++) {
		view_column_heading(v, m, (enum view_column)c, l->head[c], sizeof(l->head[c]));
		l->show[c] = m->have_baseline || (c != COL_DSELF_PCT && c != COL_DTOTAL_PCT);
		l->w[c] = grid_text_cols(l->head[c]);
		if (col_numeric((enum view_column)c) && l->w[c] < 6)
			l->w[c] = 6;
	}
	for (size_t d = 0; d <= sizeof(drop) / sizeof(drop[0]); d++) {
		avail = width;
		for (int c = 0; c < COL_COUNT; c++)
			if (l->show[c] && col_numeric((enum view_column)c))
				avail -= l->w[c] + 1;
		if (avail >= 16 || d == sizeof(drop) / sizeof(drop[0]))
			break;
		l->show[drop[d]] = false;
	}
	for (size_t i = 0; i < v->n_rows; i++) {
		int w = grid_text_cols(view_func_name(m, v->rows[i].func));
		if (w > longest)
			longest = w;
	}
	/* The name gets what it needs up to about half; the location gets the rest. Every
	 * column has a one-cell gap before it, where the sort arrow goes. */
	{
		int room = avail - 1, cap = room * 55 / 100;
		if (cap < 12)
			cap = 12;
		if (cap > 48)
			cap = 48;
		l->w[COL_NAME] = longest < cap ? longest : cap;
		if (l->w[COL_NAME] > room)
			l->w[COL_NAME] = room;
		l->w[COL_LOCATION] = room - l->w[COL_NAME] - 1;
		if (l->w[COL_LOCATION] < 6) {
			l->show[COL_LOCATION] = false;
			l->w[COL_NAME] = room;
		}
		if (l->w[COL_NAME] <= 0)
			l->show[COL_NAME] = false;
	}
	for (int i = 0; i < COL_COUNT; i++) {
		enum view_column c = col_order[i];

		if (l->show[c]) {
			l->x[c] = ++x;
			x += l->w[c];
		}
	}
}

static void draw_headings(const struct view *v, struct grid *g, int y,
	const struct table_layout *l)
{
	bool desc = col_numeric(v->s.sort) != v->s.reverse;

	grid_fill_attr(g, 0, y, g->width, GA_TITLE);
	for (int c = 0; c < COL_COUNT; c++) {
		bool sorted = c == (int)v->s.sort;
		enum grid_attr a = sorted ? GA_SORTED : GA_TITLE;
		int hx = l->x[c], hw = grid_text_cols(l->head[c]);

		if (!l->show[c])
			continue;
		if (col_numeric((enum view_column)c))
			hx = l->x[c] + l->w[c] - hw; /* numbers are right-aligned: so are their headings */
		if (hx < l->x[c])
			hx = l->x[c];
		grid_put(g, hx, y, a, l->head[c], l->w[c]);
		/* The arrow goes just before the heading, in the gap or in the column's padding. */
		if (sorted)
			grid_put(g, hx - 1, y, a, desc ? v->arrow_down : v->arrow_up, 1);
	}
}

/* A change against the baseline, in points: "+12.3", "-4.0"; a gain of 5 points or more stands
 * out. */
static void draw_change(struct grid *g, int x, int y, double d, int w)
{
	char buf[32];

	if (!isfinite(d))
		snprintf(buf, sizeof buf, "?");
	else if (fabs(d) < 0.05)
		snprintf(buf, sizeof buf, "0.0");
	else
		snprintf(buf, sizeof buf, "%+.1f", d);
	view_put_right(g, x, y, d >= 5 ? GA_HEAT3 : fabs(d) < 0.05 ? GA_DIM : GA_NORMAL, buf, w);
}

static void draw_row(const struct view *v, const struct model *m, struct grid *g, int y,
	const struct table_layout *l, const struct model_row *r)
{
	char buf[1024];
	enum grid_attr a;

	if (l->show[COL_SELF_PCT]) {
		view_fmt_pct(r->self_pct, buf, sizeof(buf));
		view_put_right(g, l->x[COL_SELF_PCT], y, view_heat(r->self_pct), buf,
			l->w[COL_SELF_PCT]);
	}
	if (l->show[COL_TOTAL_PCT]) {
		view_fmt_pct(r->total_pct, buf, sizeof(buf));
		view_put_right(g, l->x[COL_TOTAL_PCT], y, view_heat(r->total_pct), buf,
			l->w[COL_TOTAL_PCT]);
	}
	if (l->show[COL_DSELF_PCT])
		draw_change(g, l->x[COL_DSELF_PCT], y, r->dself_pct, l->w[COL_DSELF_PCT]);
	if (l->show[COL_DTOTAL_PCT])
		draw_change(g, l->x[COL_DTOTAL_PCT], y, r->dtotal_pct, l->w[COL_DTOTAL_PCT]);
	if (l->show[COL_SELF_TIME]) {
		view_fmt_time(r->self_us, buf, sizeof(buf));
		view_put_right(g, l->x[COL_SELF_TIME], y, GA_NORMAL, buf, l->w[COL_SELF_TIME]);
	}
	if (l->show[COL_TOTAL_TIME]) {
		view_fmt_time(r->total_us, buf, sizeof(buf));
		view_put_right(g, l->x[COL_TOTAL_TIME], y, GA_NORMAL, buf, l->w[COL_TOTAL_TIME]);
	}
	if (l->show[COL_NAME]) {
		a = view_func_internal(m, r->func) ? GA_DIM : GA_NORMAL;
		if (v->search[0] && view_row_matches(m, r->func, v->search))
			a = GA_MATCH;
		view_put_fit(v, g, l->x[COL_NAME], y, a, view_func_name(m, r->func),
			l->w[COL_NAME], false);
	}
	if (l->show[COL_LOCATION]) {
		view_func_location(m, r->func, false, buf, sizeof(buf));
		view_put_fit(v, g, l->x[COL_LOCATION], y, GA_DIM, buf, l->w[COL_LOCATION], true);
	}
}

/* "THREADS  main 3%  1 97%  2 95%  3 churner exited  (t: next, T: all)": the main thread and the
 * workers, each with how busy its last window was, the one the screens show highlighted.
 * With several processes, "PROCESSES  pid 101 3%  pid 102 97%  1 95%  total 195%": each
 * process's main thread (its workers after it) and their sum, in cores' percent. */
/* "REQ 120/s  p99 45ms  errors 0.8%  slowest GET /api/report 190ms  CALLS 30/s p99 150ms":
 * the last window's HTTP, once the target has served or called any; red errors, and a p99
 * of a second or more. */
/* A duration for the REQ line: "45ms", "1.2s". */
static void req_fmt_ms(double ms, char *out, size_t outsz)
{
	if (ms < 1000)
		snprintf(out, outsz, "%.0fms", ms);
	else
		snprintf(out, outsz, "%.1fs", ms / 1000);
}

static void draw_req_line(const struct model *m, struct grid *g, int y)
{
	char buf[160], t[32];
	int x = view_put_at(g, 0, y, GA_HEADER, "REQ");

	if (!isfinite(m->req_per_s)) {
		view_put_at(g, x, y, GA_DIM, " no reading in the last window");
		return;
	}
	snprintf(buf, sizeof buf, " %.0f/s", m->req_per_s);
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	if (m->req_last && req_follow_ratio(m->req_last, false) >= 1.5) {
		snprintf(buf, sizeof buf, " (1 in %.0f followed)", req_follow_ratio(m->req_last, false));
		x = view_put_at(g, x, y, GA_DIM, buf);
	}
	if (isfinite(m->req_p99_ms)) {
		req_fmt_ms(m->req_p99_ms, t, sizeof t);
		snprintf(buf, sizeof buf, "  p99 %s", t);
		x = view_put_at(g, x, y, m->req_p99_ms >= 1000 ? GA_WARN : GA_NORMAL, buf);
	}
	if (isfinite(m->req_errors_pct)) {
		snprintf(buf, sizeof buf, "  errors %.1f%%", m->req_errors_pct);
		x = view_put_at(g, x, y, m->req_errors_pct > 0 ? GA_WARN : GA_NORMAL, buf);
	}
	if (m->req_slowest[0] && isfinite(m->req_slowest_p99_ms)) {
		req_fmt_ms(m->req_slowest_p99_ms, t, sizeof t);
		x = view_put_at(g, x, y, GA_DIM, "  slowest ");
		x = view_put_at(g, x, y, GA_NORMAL, m->req_slowest);
		snprintf(buf, sizeof buf, " %s", t);
		x = view_put_at(g, x, y, GA_NORMAL, buf);
		if (m->req_slowest_wait[0] && m->req_slowest_wait_pct >= 1) {
			snprintf(buf, sizeof buf, " (%.0f%% on ", m->req_slowest_wait_pct);
			x = view_put_at(g, x, y, GA_DIM, buf);
			x = view_put_at(g, x, y, GA_NORMAL, m->req_slowest_wait);
			x = view_put_at(g, x, y, GA_DIM, ")");
		}
	}
	if (isfinite(m->calls_per_s) && m->calls_per_s > 0) {
		snprintf(buf, sizeof buf, "  CALLS %.0f/s", m->calls_per_s);
		x = view_put_at(g, x, y, GA_HEADER, buf);
		if (isfinite(m->calls_p99_ms)) {
			req_fmt_ms(m->calls_p99_ms, t, sizeof t);
			snprintf(buf, sizeof buf, " p99 %s", t);
			view_put_at(g, x, y, GA_NORMAL, buf);
		}
	}
}

static void draw_threads_line(const struct model *m, struct grid *g, int y)
{
	char buf[160];
	bool procs = false;
	double total = 0;
	int x;

	for (size_t i = 0; i < m->n_threads; i++)
		procs |= m->threads[i].pid > 0;
	x = view_put_at(g, 0, y, GA_HEADER, procs ? "PROCESSES" : "THREADS");
	for (size_t i = 0; i < m->n_threads && x < g->width; i++) {
		const struct model_thread *t = &m->threads[i];
		char id[24];

		if (!t->exited && t->have_window && isfinite(t->busy_pct))
			total += t->busy_pct;
		if (t->pid > 0)
			snprintf(id, sizeof id, "pid %d", t->pid);
		else if (t->thread_id > 0)
			snprintf(id, sizeof id, "%ld", t->thread_id);
		else
			snprintf(id, sizeof id, t->thread_id == 0 ? "" : "?");
		x = view_put_at(g, x, y, GA_NORMAL, "  ");
		snprintf(buf, sizeof buf, "%s%s", id, id[0] && t->name[0] ? " " : "");
		/* cut at a character, not a byte */
		util_sanitize(t->name, strlen(t->name), buf + strlen(buf), 40);
		x = view_put_at(g, x, y, t->shown ? GA_SELECTED : GA_NORMAL, buf);
		if (t->exited)
			snprintf(buf, sizeof buf, " exited");
		else if (t->have_window && isfinite(t->busy_pct))
			snprintf(buf, sizeof buf, " %.0f%%", t->busy_pct);
		else
			snprintf(buf, sizeof buf, " -");
		x = view_put_at(g, x, y, t->exited ? GA_DIM : !t->exited && t->busy_pct >= 90 ?
			GA_WARN : GA_SORTED, buf);
	}
	if (m->threads_more && x < g->width) {
		snprintf(buf, sizeof buf, "  +%zu more", m->threads_more);
		x = view_put_at(g, x, y, GA_DIM, buf);
	}
	if (procs && x < g->width) {
		snprintf(buf, sizeof buf, "  total %.0f%%", total);
		x = view_put_at(g, x, y, GA_HEADER, buf);
	}
	if (x + 20 < g->width)
		view_put_at(g, x, y, GA_DIM, "  (t: next, T: all)");
}

static void table_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	int h = g->height, bottom, hdr, y0, page;
	struct table_layout l;

	view_table_build(v, m);
	bottom = view_draw_bottom(v, m, g, m->cpu_off && !m->cpu_starting ? TABLE_KEYS_CPU_OFF :
		TABLE_KEYS);
	if (h >= 14) {
		/* A line for the event loop once it has been read (never with --no-eval), and one
		 * for the worker threads while there are any, each when there is room. */
		bool loop = h >= 16 && m->have_evloop;
		bool threads = h >= (loop ? 18 : 16) && m->threads_watched && m->n_threads > 1;
		bool req = h >= 16 + 2 * (loop + threads) && m->have_requests;

		hdr = 5 + loop + threads + req;
		draw_target_line(m, g, 0, now_wall_s);
		draw_sampling_line(v, m, g, 1);
		draw_cpu_line(v, m, g, 2);
		if (threads)
			draw_threads_line(m, g, 3);
		if (loop)
			view_evloop_line(m, g, 3 + threads);
		if (req)
			draw_req_line(m, g, 3 + threads + loop);
		view_memory_line(v, m, g, hdr - 2, now_wall_s);
		draw_settings_line(v, m, g, hdr - 1);
	} else if (h >= 10) {
		hdr = 3;
		draw_target_line(m, g, 0, now_wall_s);
		draw_sampling_line(v, m, g, 1);
		draw_settings_line(v, m, g, 2);
	} else if (h >= 7) {
		hdr = 1;
		draw_sampling_line(v, m, g, 0);
	} else {
		hdr = 0;
	}
	if (hdr >= bottom)
		return;
	table_layout(v, m, g->width, &l);
	draw_headings(v, g, hdr, &l);
	y0 = hdr + 1;
	page = bottom - y0;
	v->page_rows = page > 1 ? page : 1;
	if (page <= 0)
		return;
	if (v->n_rows == 0) {
		const char *why = m->cpu_starting && !v->n_all ? "Starting the CPU profiler..." :
			m->cpu_off && !v->n_all && isfinite(m->next_burst_in_s) ? "Between CPU bursts "
			"(--cpu-every): the profiler is off until the next one." :
			m->cpu_off && !v->n_all && m->cpu_refused[0] ? m->cpu_refused :
			m->cpu_off && !v->n_all ? "CPU profiling is off (--no-cpu): press c to start it. "
			"The target pauses while V8 lists its code." :
			v->n_all ? "No function passes the threshold, filter and hiding "
			"(+/-, \\, i, M)." : m->windows == 0 ? "Waiting for the first window..."
			: "No JavaScript function has samples here.";
		grid_put(g, 0, y0, GA_DIM, why, 0);
		return;
	}
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (size_t)page)
		v->top = v->sel - (size_t)page + 1;
	if (v->top + (size_t)page > v->n_rows)
		v->top = v->n_rows > (size_t)page ? v->n_rows - (size_t)page : 0;
	for (int i = 0; i < page && v->top + (size_t)i < v->n_rows; i++) {
		size_t r = v->top + (size_t)i;
		draw_row(v, m, g, y0 + i, &l, &v->rows[r]);
		if (r == v->sel)
			grid_fill_attr(g, 0, y0 + i, g->width, GA_SELECTED);
	}
}

static const char *const table_key_bars[] = { TABLE_KEYS, TABLE_KEYS_CPU_OFF, NULL };

const struct screen screen_table = {
	.name = "table",
	.key_bars = table_key_bars,
	.draw = table_draw,
	.bindings = table_bindings,
	.n_bindings = sizeof(table_bindings) / sizeof(table_bindings[0]),
	.shared_keys = true,
};
