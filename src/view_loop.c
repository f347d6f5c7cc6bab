/* view_loop.c: the event loop in the live view: the header's LOOP line (drawn on the table)
 * and the loop screen (l): the latest reading, then the blocked-loop events since attach,
 * newest first, and, on Enter, the stack of the selected one. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grid.h"
#include "view_priv.h"

#define LOOP_KEYS "l/Esc back  Up/Down select  Enter stack  m memory  p pause  ? help  q quit"
#define LOOP_TIME_COLS 12
#define LOOP_MS_COLS 9
#define LOOP_SHARE_COLS 6

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

/* "LOOP busy 37.1%  lag p50 1.0ms p99 12ms max 40ms  2 blocks (l)  handles TCPSocketWrap 12" */
void view_loop_line(const struct model *m, struct grid *g, int y)
{
	const struct evloop_reading *r = &m->loop;
	char buf[256], a[32], b[32], c[32], timer[32] = "";
	int x = view_put_at(g, 0, y, GA_HEADER, "LOOP");
	size_t i;

	if (!r->have_loop) {
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
			/* while the CPU profiler is off the timer ticks seldom (engine_loop.c) */
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
static long loop_selected(const struct view *v, const struct model *m)
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
static const char *loop_empty_text(const struct model *m, char *buf, size_t bufsz)
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
static void loop_put_frame(const struct view *v, const struct model *m, struct grid *g, int x,
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
static void loop_row(const struct view *v, const struct model *m, struct grid *g, int y,
	const struct model_block *k, bool selected)
{
	const struct loop_block *b = &k->b;
	char when[32], buf[64];
	enum grid_attr attr = selected ? GA_SELECTED : GA_NORMAL;
	int x = 0, w = g->width;

	view_fmt_clock(k->wall_s, 60, when, sizeof when);
	if (selected)
		grid_fill_attr(g, 0, y, w, GA_SELECTED);
	view_put_fit(v, g, x, y, attr, when, LOOP_TIME_COLS, false);
	x += LOOP_TIME_COLS;
	snprintf(buf, sizeof buf, "%.0f ms", loop_block_ms(b));
	view_put_right(g, x, y, attr, buf, LOOP_MS_COLS - 1);
	x += LOOP_MS_COLS;
	snprintf(buf, sizeof buf, "%.0f%%", b->share * 100);
	view_put_right(g, x, y, attr, buf, LOOP_SHARE_COLS - 1);
	x += LOOP_SHARE_COLS + 1;
	if (!b->depth) {
		view_put_fit(v, g, x, y, selected ? attr : GA_DIM, "(no one stack held half of it)",
			w - x, false);
		return;
	}
	loop_put_frame(v, m, g, x, y, b->stack[b->depth - 1], attr, selected ? attr : GA_DIM);
}

/* The stack of block k from row y to last, innermost frame first. */
static void loop_stack(const struct view *v, const struct model *m, struct grid *g, int y,
	int last, const struct model_block *k)
{
	const struct loop_block *b = &k->b;
	char when[32], buf[128];

	view_fmt_clock(k->wall_s, 60, when, sizeof when);
	snprintf(buf, sizeof buf, "Stack of the block at %s (%.0f ms; the loop's timer was %.0f ms "
		"late), innermost first", when, loop_block_ms(b), b->lag_ms);
	view_put_fit(v, g, 0, y++, GA_TITLE, buf, g->width, false);
	for (size_t i = b->depth; i-- > 0 && y <= last; y++)
		loop_put_frame(v, m, g, 2, y, b->stack[i],
			view_func_internal(m, b->stack[i]) ? GA_DIM : GA_NORMAL, GA_DIM);
}

void view_loop_draw(struct view *v, const struct model *m, struct grid *g)
{
	char buf[256];
	int bottom = view_draw_bottom(v, m, g, LOOP_KEYS), y = 0, list_last, n_shown;
	long sel = loop_selected(v, m);

	if (m->block_threshold_ms > 0)
		snprintf(buf, sizeof buf, "Event loop: blocks of %.0f ms or more, newest first "
			"(%llu since attach)", m->block_threshold_ms,
			(unsigned long long)m->blocks_total);
	else
		snprintf(buf, sizeof buf, "Event loop");
	view_put_fit(v, g, 0, y++, GA_HEADER, buf, g->width, false);
	if (y < bottom && m->have_loop)
		view_loop_line(m, g, y++);
	y++;
	if (y >= bottom)
		return;
	if (!m->n_blocks) {
		view_put_fit(v, g, 0, y, GA_DIM, loop_empty_text(m, buf, sizeof buf), g->width, false);
		return;
	}
	snprintf(buf, sizeof buf, "%-*s%*s %*s  %s", LOOP_TIME_COLS, "TIME", LOOP_MS_COLS - 1,
		"HELD", LOOP_SHARE_COLS - 1, "SHARE", "FUNCTION AND LOCATION");
	grid_fill_attr(g, 0, y, g->width, GA_TITLE);
	view_put_fit(v, g, 0, y++, GA_TITLE, buf, g->width, false);
	/* the list takes what the stack leaves (half the screen when the stack is open) */
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
			loop_row(v, m, g, y, &m->blocks[m->n_blocks - 1 - (size_t)d], d == d_sel);
	}
	if (v->blk_stack && sel >= 0 && list_last + 2 < bottom)
		loop_stack(v, m, g, list_last + 2, bottom - 1, &m->blocks[sel]);
}

enum view_action view_loop_key(struct view *v, const struct model *m, int key)
{
	long sel = loop_selected(v, m), n = (long)m->n_blocks;
	uint64_t first = m->blocks_total - m->n_blocks;

	switch (key) {
	case VK_ESC:
	case VK_BACKSPACE:
		if (v->blk_stack) {
			v->blk_stack = false;
			return VA_REDRAW;
		}
		v->screen = VS_TABLE;
		return VA_REDRAW;
	case VK_ENTER:
		if (sel < 0) {
			snprintf(v->msg, sizeof v->msg, "no block to show");
			return VA_REDRAW;
		}
		v->blk_stack = !v->blk_stack;
		return VA_REDRAW;
	case VK_UP:   /* newer */
	case VK_DOWN: /* older */
	case VK_PGUP:
	case VK_PGDN:
	case VK_HOME:
	case VK_END:
		if (sel < 0)
			return VA_NONE;
		if (key == VK_UP)
			sel++;
		else if (key == VK_DOWN)
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
	case 'm':
		v->screen = VS_MEMORY;
		return VA_REDRAW;
	default:
		return VA_NONE;
	}
}
