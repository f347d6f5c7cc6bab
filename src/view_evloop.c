/* view_evloop.c: the event loop in the live view: the header's LOOP line (drawn on the table)
 * and the loop screen (l): the latest reading; charts of how busy the loop was, how late its
 * timer fired and how many handles it held, over the memory screen's zoom (the same keys); then
 * the blocked-loop events since attach, newest first, and, on Enter, the stack of the selected
 * one. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "evloop.h"
#include "grid.h"
#include "view_chart.h"
#include "view_priv.h"

#define EVLOOP_KEYS "l/Esc back  1-4 +/- zoom  Up/Down select  Enter stack  m memory  p pause  " \
	"? help  q quit"
#define EVLOOP_TIME_COLS 12
#define EVLOOP_MS_COLS 9
#define EVLOOP_SHARE_COLS 6

/* A timer's delay: "0.4ms", "12ms", "1.25s". */
static void lag_fmt(double ms, char *out, size_t outsz)
{
	if (ms < 10)
		snprintf(out, outsz, "%.1fms", ms);
	else if (ms < 1000)
		snprintf(out, outsz, "%.0fms", ms);
	else
		snprintf(out, outsz, "%.2fs", ms / 1000);
}

/* --- the charts --- */

/* Busy: the band of each column's readings. Lag: the worst delay as a line (solid: a dotted
 * one would lose a one-reading spike in the columns it leaves out), under the band of the
 * 99th percentile. Handles: their count. */
static const struct chart_series busy_series[] = {
	{ EVLOOP_BUSY, CHART_RANGE, CHART_SOLID, GA_HEAT2, "#", "\xe2\xa3\xbf\xe2\xa3\xbf" },
};
static const struct chart_series lag_series[] = {
	{ EVLOOP_LAG_MAX, CHART_TOP, CHART_SOLID, GA_HEAT1, ".", "\xe2\xa0\x92\xe2\xa0\x92" },
	{ EVLOOP_LAG_P99, CHART_RANGE, CHART_SOLID, GA_HEAT3, "#", "\xe2\xa3\xbf\xe2\xa3\xbf" },
};
static const struct chart_series handles_series[] = {
	{ EVLOOP_HANDLES, CHART_RANGE, CHART_SOLID, GA_HEAT2, "#", "\xe2\xa3\xbf\xe2\xa3\xbf" },
};

static double busy_top(double max)
{
	(void)max;
	return 100;
}

static void pct_label(double v, char *out, size_t outsz)
{
	snprintf(out, outsz, "%.0f%%", v);
}

/* A round top at least max: 1, 2, 2.5 or 5 times a power of ten (1 at least). */
static double round_top(double max)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	double p;

	if (!(max > 1) || !isfinite(max))
		return 1;
	p = pow(10, floor(log10(max)));
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (steps[i] * p >= max * (1 - 1e-12))
			return steps[i] * p;
	return 10 * p;
}

/* Lag in ms: a round top of at least 10 ms, so that an idle loop's fraction of a ms stays
 * low on the chart. */
static double lag_top(double max)
{
	return round_top(fmax(max, 10));
}

static void ms_label(double ms, char *out, size_t outsz)
{
	if (ms >= 1000)
		snprintf(out, outsz, "%.3gs", ms / 1000);
	else
		snprintf(out, outsz, "%.3gms", ms);
}

static double handles_top(double max)
{
	return round_top(fmax(max, 10));
}

static void count_label(double n, char *out, size_t outsz)
{
	if (n >= 1e6)
		snprintf(out, outsz, "%.3gM", n / 1e6);
	else if (n >= 1e4)
		snprintf(out, outsz, "%.3gk", n / 1e3);
	else
		snprintf(out, outsz, "%.0f", n);
}

/* The chart's legend: each series' mark and name. */
static void evloop_legend(const struct view *v, struct grid *g, int y, bool busy, bool handles)
{
	static const struct {
		const struct chart_series *s;
		const char *name;
	} items[] = {
		{ &busy_series[0], " busy (top)" },
		{ &lag_series[1], " lag p99" },
		{ &lag_series[0], " lag max" },
		{ &handles_series[0], " handles and requests (bottom)" },
	};
	int x = 0;

	for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
		const char *mark = v->braille ? items[i].s->braille_key : items[i].s->ascii;

		if ((i == 0 && !busy) || (i == 3 && !handles))
			continue;
		if (x + grid_text_cols(mark) + grid_text_cols(items[i].name) > g->width)
			break;
		x = view_put_at(g, x, y, items[i].s->attr, mark);
		x = view_put_at(g, x, y, GA_NORMAL, items[i].name) + 2;
	}
}

/* Why the charts are empty. */
static const char *evloop_chart_empty(const struct model *m)
{
	if (m->no_eval)
		return "the loop is not read with --no-eval";
	return m->evloop_series ? "no loop reading in this span" : "waiting for the first loop reading";
}

/* The charts from row y, in rows rows (axes, labels and legend included): busy, lag and
 * handles, the lag the tallest; when space is short the handles' chart goes first, then the
 * busy one. */
static void evloop_charts(const struct view *v, const struct model *m, struct grid *g, int y,
	int rows, double from_s, double to_s, bool live)
{
	struct chart c = { m->evloop_series, NULL, 0, from_s, to_s, live, 4, NULL, NULL, false };
	/* each chart takes an axis row; the last also its time labels; then the legend */
	int plots = rows - 1 - 1, busy_h = 0, lag_h, hand_h = 0, filled;
	bool handles = m->evloop.have_kinds;

	if (plots - 2 >= 8) {
		busy_h = (plots - 2) / 4;
		plots -= busy_h + 1;
	}
	if (handles && busy_h && plots - 2 >= 6) {
		hand_h = (plots - 2) / 3;
		plots -= hand_h + 1;
	}
	lag_h = plots - 1;
	if (lag_h < 2)
		return;
	if (busy_h) {
		c.ser = busy_series;
		c.ns = 1;
		c.top = busy_top;
		c.label = pct_label;
		view_chart_draw(v, g, y, busy_h, &c);
		y += busy_h + 1;
	}
	c.ser = lag_series;
	c.ns = 2;
	c.top = lag_top;
	c.label = ms_label;
	c.time_labels = !hand_h;
	filled = view_chart_draw(v, g, y, lag_h, &c);
	if (!filled)
		view_chart_note(g, y, lag_h, evloop_chart_empty(m));
	y += lag_h + 1;
	if (hand_h) {
		c.ser = handles_series;
		c.ns = 1;
		c.top = handles_top;
		c.label = count_label;
		c.time_labels = true;
		view_chart_draw(v, g, y, hand_h, &c);
		y += hand_h + 1;
	}
	y++;
	evloop_legend(v, g, y, busy_h > 0, hand_h > 0);
}

/* --- the header's line and the list of blocks --- */

/* "LOOP busy 37.1%  lag p50 1.0ms p99 12ms max 40ms  2 blocks (l)  handles TCPSocketWrap 12" */
void view_evloop_line(const struct model *m, struct grid *g, int y)
{
	const struct evloop_reading *r = &m->evloop;
	char buf[256], a[32], b[32], c[32], timer[32] = "";
	int x = view_put_at(g, 0, y, GA_HEADER, "LOOP");
	size_t i;

	if (!r->have_evloop) {
		x = view_put_at(g, x, y, GA_DIM, " measuring");
	} else {
		double busy = r->utilization;
		/* While profiled, the loop's own count reads too busy (evloop.h): the samples say. */
		if (!m->cpu_off && m->last_samples > 0)
			busy = 1 - model_split(m, MODE_WINDOW).idle_pct / 100;
		snprintf(buf, sizeof(buf), " busy %.1f%%", busy * 100);
		x = view_put_at(g, x, y, busy >= 0.9 ? GA_WARN : GA_NORMAL, buf);
		if (isnan(r->lag_max_ms)) {
			x = view_put_at(g, x, y, GA_WARN, "  lag unknown (no timer fired)");
		} else {
			lag_fmt(r->lag_p50_ms, a, sizeof(a));
			lag_fmt(r->lag_p99_ms, b, sizeof(b));
			lag_fmt(r->lag_max_ms, c, sizeof(c));
			/* while the CPU profiler is off the timer ticks seldom (engine_evloop.c) */
			if (r->lag_resolution_ms > 10)
				snprintf(timer, sizeof timer, "(%.0fms timer)", r->lag_resolution_ms);
			snprintf(buf, sizeof(buf), "  lag%s p50 %s p99 %s max %s", timer, a, b, c);
			x = view_put_at(g, x, y, r->lag_max_ms >= 100 ? GA_WARN : GA_NORMAL, buf);
		}
	}
	if (m->blocks_total) {
		snprintf(buf, sizeof(buf), "  %llu block%s (l)", (unsigned long long)m->blocks_total,
			m->blocks_total == 1 ? "" : "s");
		x = view_put_at(g, x, y, GA_WARN, buf);
	}
	if (!r->have_kinds)
		return;
	x = view_put_at(g, x, y, GA_NORMAL, "  handles");
	for (i = 0; i < r->n_kinds && x < g->width; i++) {
		snprintf(buf, sizeof(buf), "%s %s %ld", i ? "," : "", r->kinds[i].name, r->kinds[i].count);
		x = view_put_at(g, x, y, GA_NORMAL, buf);
	}
	if (!r->n_kinds)
		view_put_at(g, x, y, GA_NORMAL, " none");
}

/* The selected block's index in m->blocks (oldest first), or -1 when there is none. */
static long evloop_selected(const struct view *v, const struct model *m)
{
	uint64_t first = m->blocks_total - m->n_blocks;

	if (!m->n_blocks)
		return -1;
	if (v->blk_sel == UINT64_MAX || v->blk_sel >= m->blocks_total)
		return (long)m->n_blocks - 1; /* the newest */
	if (v->blk_sel < first)
		return 0;
	return (long)(v->blk_sel - first);
}

/* Why the list is empty. */
static const char *evloop_empty_text(const struct model *m, char *buf, size_t bufsz)
{
	if (m->block_threshold_ms <= 0)
		return m->no_eval ? "Blocked-loop events need the loop's own readings, which --no-eval "
			"does not take." : "Blocked-loop events are off (--block-threshold 0).";
	if (m->cpu_off && isfinite(m->next_burst_in_s))
		return "Blocks are found in the CPU profile's samples: between bursts (--cpu-every) "
			"none are looked for.";
	if (m->cpu_off)
		return "Blocks are found in the CPU profile's samples: the CPU profiler is off (c "
			"starts it).";
	snprintf(buf, bufsz, "No task has held the event loop for %.0f ms or more since attach.",
		m->block_threshold_ms);
	return buf;
}

/* A function's name in half the columns left from x, then its location in the rest. */
static void evloop_put_frame(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, uint32_t func, enum grid_attr name_attr, enum grid_attr loc_attr)
{
	char loc[512];

	x += view_put_fit(v, g, x, y, name_attr, view_func_name(m, func), (g->width - x) / 2,
		false) + 2;
	view_func_location(m, func, false, loc, sizeof loc);
	if (x < g->width)
		view_put_fit(v, g, x, y, loc_attr, loc, g->width - x, true);
}

/* One block's row: when, how long, the share of it under the function, the function, where. */
static void evloop_row(const struct view *v, const struct model *m, struct grid *g, int y,
	const struct model_block *k, bool selected)
{
	const struct evloop_block *b = &k->b;
	char when[32], buf[64];
	enum grid_attr attr = selected ? GA_SELECTED : GA_NORMAL;
	int x = 0, w = g->width;

	view_fmt_clock(k->wall_s, 60, when, sizeof when);
	if (selected)
		grid_fill_attr(g, 0, y, w, GA_SELECTED);
	view_put_fit(v, g, x, y, attr, when, EVLOOP_TIME_COLS, false);
	x += EVLOOP_TIME_COLS;
	snprintf(buf, sizeof buf, "%.0f ms", evloop_block_ms(b));
	view_put_right(g, x, y, attr, buf, EVLOOP_MS_COLS - 1);
	x += EVLOOP_MS_COLS;
	snprintf(buf, sizeof buf, "%.0f%%", b->share * 100);
	view_put_right(g, x, y, attr, buf, EVLOOP_SHARE_COLS - 1);
	x += EVLOOP_SHARE_COLS + 1;
	if (!b->depth) {
		view_put_fit(v, g, x, y, selected ? attr : GA_DIM, "(no one stack held half of it)",
			w - x, false);
		return;
	}
	evloop_put_frame(v, m, g, x, y, b->stack[b->depth - 1], attr, selected ? attr : GA_DIM);
}

/* The stack of block k from row y to last, innermost frame first. */
static void evloop_stack(const struct view *v, const struct model *m, struct grid *g, int y,
	int last, const struct model_block *k)
{
	const struct evloop_block *b = &k->b;
	char when[32], buf[128];

	view_fmt_clock(k->wall_s, 60, when, sizeof when);
	snprintf(buf, sizeof buf, "Stack of the block at %s (%.0f ms; the loop's timer was %.0f ms "
		"late), innermost first", when, evloop_block_ms(b), b->lag_ms);
	view_put_fit(v, g, 0, y++, GA_TITLE, buf, g->width, false);
	for (size_t i = b->depth; i-- > 0 && y <= last; y++)
		evloop_put_frame(v, m, g, 2, y, b->stack[i],
			view_func_internal(m, b->stack[i]) ? GA_DIM : GA_NORMAL, GA_DIM);
}

static void evloop_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	char buf[256];
	int bottom = view_draw_bottom(v, m, g, EVLOOP_KEYS), y = 0, list_last, n_shown, charts, x;
	long sel = evloop_selected(v, m);
	double end = view_mem_end_s(v, m, now_wall_s);
	double from = view_zoom_from(v, end, m->evloop_series ? tseries_first_time(m->evloop_series)
		: 0);

	x = view_put_at(g, 0, y, GA_HEADER, "EVENT LOOP");
	x = view_zoom_title(v, g, x, y, from, end);
	x = view_put_link(m, g, x, y);
	view_put_at(g, x, y++, GA_DIM, VIEW_ZOOM_KEYS);
	if (y < bottom && m->have_evloop)
		view_evloop_line(m, g, y++);
	/* The charts take three fifths of what is left, and need room for a lag plot of 2 rows and
	 * its axes; the list of blocks gets the rest. An open stack takes their place: it is read
	 * beside the list, and a deep one needs the rows. */
	charts = v->blk_stack && sel >= 0 ? 0 : (bottom - y) * 3 / 5;
	if (charts >= 6) {
		evloop_charts(v, m, g, y, charts, from, end, end == now_wall_s && !v->paused);
		y += charts;
	}
	y++;
	if (y >= bottom)
		return;
	if (m->block_threshold_ms > 0)
		snprintf(buf, sizeof buf, "Blocks of %.0f ms or more, newest first (%llu since "
			"attach)", m->block_threshold_ms, (unsigned long long)m->blocks_total);
	else
		snprintf(buf, sizeof buf, "Blocks");
	view_put_fit(v, g, 0, y++, GA_HEADER, buf, g->width, false);
	if (y >= bottom)
		return;
	if (!m->n_blocks) {
		view_put_fit(v, g, 0, y, GA_DIM, evloop_empty_text(m, buf, sizeof buf), g->width, false);
		return;
	}
	snprintf(buf, sizeof buf, "%-*s%*s %*s  %s", EVLOOP_TIME_COLS, "TIME", EVLOOP_MS_COLS - 1,
		"HELD", EVLOOP_SHARE_COLS - 1, "SHARE", "FUNCTION AND LOCATION");
	grid_fill_attr(g, 0, y, g->width, GA_TITLE);
	view_put_fit(v, g, 0, y++, GA_TITLE, buf, g->width, false);
	/* the list takes what the stack leaves (half of it when the stack is open) */
	list_last = bottom - 1;
	if (v->blk_stack && sel >= 0)
		list_last = y + (bottom - y) / 2 - 1;
	n_shown = list_last - y + 1;
	if (n_shown < 1)
		return;
	/* newest first: display row d is block n - 1 - d; keep the selection in view */
	{
		long d_sel = (long)m->n_blocks - 1 - sel, top = v->blk_top;

		if (d_sel < top)
			top = d_sel;
		if (d_sel >= top + n_shown)
			top = d_sel - n_shown + 1;
		if (top < 0)
			top = 0;
		v->blk_top = top;
		for (long d = top; d < (long)m->n_blocks && y <= list_last; d++, y++)
			evloop_row(v, m, g, y, &m->blocks[m->n_blocks - 1 - (size_t)d], d == d_sel);
	}
	if (v->blk_stack && sel >= 0 && list_last + 2 < bottom)
		evloop_stack(v, m, g, list_last + 2, bottom - 1, &m->blocks[sel]);
}

/* Esc closes the stack, then goes back to the table. */
static enum view_action evloop_back(struct view *v, const struct model *m, int key)
{
	if (v->blk_stack)
		v->blk_stack = false;
	else
		v->screen = VS_TABLE;
	return VA_REDRAW;
}

static enum view_action evloop_memory(struct view *v, const struct model *m, int key)
{
	v->screen = VS_MEMORY;
	return VA_REDRAW;
}

/* Enter shows or hides the selected block's stack; the arrows select a block. */
static enum view_action evloop_select(struct view *v, const struct model *m, int key)
{
	long sel = evloop_selected(v, m), n = (long)m->n_blocks;
	uint64_t first = m->blocks_total - m->n_blocks;

	if (key == VK_ENTER) {
		if (sel < 0)
			snprintf(v->msg, sizeof v->msg, "no block to show");
		else
			v->blk_stack = !v->blk_stack;
		return VA_REDRAW;
	}
	if (sel < 0)
		return VA_NONE;
	if (key == VK_UP) /* newer */
		sel++;
	else if (key == VK_DOWN) /* older */
		sel--;
	else if (key == VK_PGUP)
		sel += 10;
	else if (key == VK_PGDN)
		sel -= 10;
	else if (key == VK_HOME)
		sel = n - 1;
	else
		sel = 0;
	if (sel >= n)
		sel = n - 1;
	if (sel < 0)
		sel = 0;
	/* the newest stays selected as new ones come, until the user picks an older one */
	v->blk_sel = sel == n - 1 ? UINT64_MAX : first + (uint64_t)sel;
	return VA_REDRAW;
}

/* Esc and m are in help's KEYS list under the detail's and the table's rows. */
static const struct binding evloop_bindings[] = {
	{ { 0 }, "LOOP", "how busy the loop was (the CPU profile's non-idle share while it runs), "
		"how late a 10 ms timer fired (p50, p99, max), and the live handles and requests by "
		"kind", 0, NULL },
	{ { 0 }, "charts", "busy share (top), lag (the p99 band, the max line) and the count of "
		"handles and requests (bottom) over time, as tall as the screen allows; a broken bar "
		"marks a gap", 0, NULL },
	{ { VIEW_ZOOM_CODES }, "1, 2, 3, 4, +, -", "zoom, as on the memory screen (the two share "
		"it)", 0, view_zoom_key },
	{ { 0 }, "blocks", "tasks that held the loop for --block-threshold or more (default "
		"100 ms), newest first: when, how long, the share of it under one function, and where "
		"that function is; found in the CPU profile's samples and confirmed by the loop's "
		"timer", 0, NULL },
	{ { VK_UP, VK_DOWN, VK_ENTER, VK_PGUP, VK_PGDN, VK_HOME, VK_END }, "Up, Down, Enter",
		"select a block; Enter shows or hides its stack, innermost first, in the charts' "
		"place", 0, evloop_select },
	{ { VK_ESC, VK_BACKSPACE }, NULL, NULL, 0, evloop_back },
	{ { 'm' }, NULL, NULL, 0, evloop_memory },
};

static const char *const evloop_key_bars[] = { EVLOOP_KEYS, NULL };

const struct screen screen_evloop = {
	.name = "loop",
	.key_bars = evloop_key_bars,
	.draw = evloop_draw,
	.bindings = evloop_bindings,
	.n_bindings = sizeof(evloop_bindings) / sizeof(evloop_bindings[0]),
	.shared_keys = true,
	.help_title = "EVENT-LOOP SCREEN",
	.help_section = 2,
};
