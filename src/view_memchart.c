/* view_memchart.c: drawing the memory series: the memory screen's chart, the header's
 * sparkline, the series' time edges, and the formats of sizes, spans and clock times that the
 * memory screen shares.
 *
 * The chart spreads the series' buckets over its columns by time, so that a span only partly
 * covered by readings (right after attach, or a zoom wider than the history) is drawn where
 * it belongs. Each column is drawn from the minimum to the maximum of each series in it: heap
 * used shows the GC sawtooth as a band whose floor is what survives collections. The y axis
 * starts at 0: sizes are compared honestly, and the growth figures give the slope.
 *
 * The plot is drawn in dots. Where the locale can show them, each cell is a braille
 * character of 2 by 4 dots: the lines get twice the columns and four times the rows of one
 * glyph per cell, and lines of dots can cross and still be followed. Block elements
 * (U+2581..U+2588) give eight levels too, but always filled up from the cell's bottom: right
 * for one series as bars (the header's sparkline), wrong for four lines on one plot, where
 * each would bury the lines under it. A cell has one colour, so the dots of every series in
 * it take the colour of the one drawn last; without colour the lines are told apart by their
 * pattern: heap used a band, rss solid, heap total dashed (the capacity heap used fills) and
 * external dotted. Where braille cannot be shown, a cell is the ASCII glyph of the last
 * series drawn in it. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grid.h"
#include "memseries.h"
#include "util.h"
#include "view_priv.h"

/* The header's sparkline: heap used over the last five minutes. */
#define SPARK_SPAN_S 300.0
#define SPARK_SLOTS 20
/* A series that stopped longer ago than this (a replayed log, a target gone) is drawn up to
 * its last reading instead of up to now. */
#define MEM_STALE_S 120.0
#define Y_LABEL_COLS 7
/* A series read less often than the chart has columns (external memory) would be dotted: its
 * last range is held over holes up to this many cells wide. */
#define HOLD_COLS 4

/* The chart's series, drawn in this order (later ones on top). */
enum { CH_EXT, CH_RSS, CH_TOTAL, CH_USED, CH_COUNT };
static const enum mem_metric ch_metric[CH_COUNT] = { MEM_EXTERNAL, MEM_RSS, MEM_HEAP_TOTAL,
	MEM_HEAP_USED };
static const char *const ch_ascii[CH_COUNT] = { ".", "=", "-", "#" };
/* The legend's samples of the braille patterns (see ch_dot_on). */
static const char *const ch_braille_key[CH_COUNT] = { "\xe2\xa0\x82\xe2\xa0\x82",
	"\xe2\xa0\x92\xe2\xa0\x92", "\xe2\xa0\x92\xe2\xa0\x82", "\xe2\xa3\xbf\xe2\xa3\xbf" };
static const char *const ch_name[CH_COUNT] = { "external", "rss", "heap total", "heap used" };
static const enum grid_attr ch_attr[CH_COUNT] = { GA_DIM, GA_HEAT1, GA_HEAT2, GA_HEAT3 };

/* --- formats --- */

void view_fmt_bytes(double bytes, char *out, size_t outsz)
{
	static const char units[] = "BKMGTP";
	double a = fabs(bytes);
	int u = 0;

	if (!isfinite(bytes)) {
		snprintf(out, outsz, "?");
		return;
	}
	/* Move up before the rounding would print 1024 of a unit. */
	while (u < 5 && a >= (u == 0 ? 1023.5 : 1023.95)) {
		a /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, outsz, "%s%.0fB", bytes < 0 ? "-" : "", a);
	else
		snprintf(out, outsz, "%s%.1f%c", bytes < 0 ? "-" : "", a, units[u]);
}

void view_fmt_bytes_signed(double bytes, char *out, size_t outsz)
{
	char b[24];

	view_fmt_bytes(fabs(bytes), b, sizeof(b));
	snprintf(out, outsz, "%s%s", !isfinite(bytes) ? "" : bytes > 0 ? "+" : bytes < 0 ? "-" : "",
		b);
}

void view_fmt_span(double s, char *out, size_t outsz)
{
	long t;

	if (!isfinite(s) || s < 0) {
		snprintf(out, outsz, "?");
		return;
	}
	t = lround(s);
	if (t < 60)
		snprintf(out, outsz, "%lds", t);
	else if (t < 3600)
		snprintf(out, outsz, t % 60 ? "%ldm%02lds" : "%ldm", t / 60, t % 60);
	else if (t < 2 * 86400 && (t = lround(s / 60)) < 48 * 60)
		snprintf(out, outsz, t % 60 ? "%ldh%02ldm" : "%ldh", t / 60, t % 60);
	else if ((t = lround(s / 3600)) < 1000 * 24)
		snprintf(out, outsz, t % 24 ? "%ldd%02ldh" : "%ldd", t / 24, t % 24);
	else
		snprintf(out, outsz, "%.0fd", s / 86400);
}

/* Short axis labels: "250M", "62.5M", "1.5G". */
static void fmt_axis(double bytes, char *out, size_t outsz)
{
	if (bytes >= 1024.0 * 1024 * 1024)
		snprintf(out, outsz, "%.3gG", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024.0 * 1024)
		snprintf(out, outsz, "%.3gM", bytes / (1024.0 * 1024));
	else if (bytes >= 1024)
		snprintf(out, outsz, "%.3gK", bytes / 1024);
	else
		snprintf(out, outsz, "%.0f", bytes);
}

void view_fmt_clock(double t, double span_s, char *out, size_t outsz)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!isfinite(t) || !localtime_r(&tt, &tm) ||
	    !strftime(out, outsz, span_s <= 900 ? "%H:%M:%S" : span_s <= 36 * 3600 ? "%H:%M"
		: "%m-%d %H:%M", &tm))
		snprintf(out, outsz, "?");
}

/* --- the series --- */

const struct mem_sample *view_mem_last(const struct model *m)
{
	return m->have_memory && m->mem ? memseries_last(m->mem) : NULL;
}

/* The right edge of what is drawn: now, the last reading of a series that stopped, or the
 * moment of a pause (v may be NULL: never paused). */
double view_mem_end_s(struct view *v, const struct model *m, double now_wall_s)
{
	const struct mem_sample *last = view_mem_last(m);
	double end = now_wall_s;

	if (last && isfinite(last->t_s) &&
	    (now_wall_s - last->t_s > MEM_STALE_S || now_wall_s < last->t_s))
		end = last->t_s;
	if (v && v->paused) {
		if (v->mem_frozen_end_s <= 0)
			v->mem_frozen_end_s = end;
		end = v->mem_frozen_end_s;
	}
	return end;
}

/* One column of a chart (or one slot of a sparkline): the range of each series in it. */
struct mem_col {
	double lo[CH_COUNT], hi[CH_COUNT];
	bool has[CH_COUNT], gap;
};

static double first_finite(double a, double b, double c)
{
	return isfinite(a) ? a : isfinite(b) ? b : c;
}

/* Spreads the buckets of [from_s, to_s] over n columns by time, so that a span only partly
 * covered by readings is drawn where it belongs; a series' range is held over holes of up to
 * hold columns. Returns the columns with data. */
static int mem_columns(const struct memseries *s, double from_s, double to_s, int n, int hold,
	struct mem_col *cols)
{
	double span = to_s - from_s, width = INFINITY;
	struct mem_bucket *b;
	size_t nb;
	int filled = 0;

	for (int c = 0; c < n; c++) {
		memset(&cols[c], 0, sizeof(cols[c]));
		for (int k = 0; k < CH_COUNT; k++) {
			cols[c].lo[k] = INFINITY;
			cols[c].hi[k] = -INFINITY;
		}
	}
	if (!s || n <= 0 || !(span > 0) || !isfinite(span))
		return 0;
	b = xcalloc((size_t)n, sizeof(*b));
	nb = memseries_query(s, from_s, to_s, (size_t)n, b);
	if (nb > (size_t)n)
		nb = (size_t)n;
	/* A bucket's width: the smallest step between buckets (there may be holes). */
	for (size_t i = 0; i + 1 < nb; i++)
		if (b[i + 1].t_s - b[i].t_s > 0 && b[i + 1].t_s - b[i].t_s < width)
			width = b[i + 1].t_s - b[i].t_s;
	if (!isfinite(width))
		width = span / n;
	for (size_t i = 0; i < nb; i++) {
		double t0 = b[i].t_s, t1 = t0 + width, f0, f1;
		int c0, c1;

		if (!isfinite(t0) || t1 <= from_s || t0 > to_s)
			continue;
		if (i + 1 < nb && b[i + 1].t_s < t1 && b[i + 1].t_s > t0)
			t1 = b[i + 1].t_s;
		f0 = (t0 - from_s) / span * n;
		f1 = (t1 - from_s) / span * n;
		c0 = f0 < 0 ? 0 : f0 >= n ? n - 1 : (int)floor(f0);
		c1 = f1 <= 0 ? 0 : f1 > n ? n - 1 : (int)ceil(f1) - 1;
		if (c1 < c0)
			c1 = c0;
		if (b[i].gap)
			cols[c0].gap = true;
		for (int c = c0; c <= c1; c++)
			for (int k = 0; k < CH_COUNT; k++) {
				enum mem_metric mm = ch_metric[k];
				double lo = first_finite(b[i].min[mm], b[i].mean[mm], b[i].last[mm]);
				double hi = first_finite(b[i].max[mm], b[i].mean[mm], b[i].last[mm]);
				if (!isfinite(lo) || !isfinite(hi))
					continue;
				if (!cols[c].has[0] && !cols[c].has[1] && !cols[c].has[2] &&
				    !cols[c].has[3])
					filled++;
				cols[c].has[k] = true;
				cols[c].lo[k] = fmin(cols[c].lo[k], fmin(lo, hi));
				cols[c].hi[k] = fmax(cols[c].hi[k], fmax(lo, hi));
			}
	}
	free(b);
	/* Each series' last range is held over short holes, never across a gap: what came before
	 * it was another process. */
	for (int k = 0; k < CH_COUNT; k++)
		for (int c = 0, prev = -1; c < n; c++) {
			if (cols[c].gap)
				prev = -1;
			if (!cols[c].has[k])
				continue;
			if (prev >= 0 && c - prev > 1 && c - prev <= hold)
				for (int h = prev + 1; h < c; h++) {
					cols[h].has[k] = true;
					cols[h].lo[k] = cols[prev].lo[k];
					cols[h].hi[k] = cols[prev].hi[k];
				}
			prev = c;
		}
	return filled;
}

void view_mem_sparkline(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int slots, double end_s)
{
	struct mem_col cols[SPARK_SLOTS];
	double lo = INFINITY, hi = -INFINITY, range;

	if (slots > SPARK_SLOTS)
		slots = SPARK_SLOTS;
	if (mem_columns(m->mem, end_s - SPARK_SPAN_S, end_s, slots, HOLD_COLS, cols) == 0)
		return;
	/* The post-GC floor of each slot: the sawtooth's minima show the trend. */
	for (int i = 0; i < slots; i++)
		if (cols[i].has[CH_USED]) {
			lo = fmin(lo, cols[i].lo[CH_USED]);
			hi = fmax(hi, cols[i].lo[CH_USED]);
		}
	/* Noise under 2% of the heap stays flat. */
	range = fmax(hi - lo, 0.02 * fabs(hi));
	for (int i = 0; i < slots; i++) {
		if (cols[i].has[CH_USED]) {
			int level = range > 0 ? (int)((cols[i].lo[CH_USED] - lo) / range * 7.999) : 0;
			level = level < 0 ? 0 : level > 7 ? 7 : level;
			grid_put(g, x + i, y, GA_HEAT3, v->blocks[level], 1);
		} else if (cols[i].gap) {
			grid_put(g, x + i, y, GA_DIM, v->gap_mark, 1);
		}
	}
}

/* --- the chart --- */

/* A round top for the y axis, at least max: a few steps per power of ten of KiB, MiB or GiB,
 * so that halves and quarters make short labels. */
static double nice_top(double max)
{
	static const double steps[] = { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	double unit = max >= 1024.0 * 1024 * 1024 ? 1024.0 * 1024 * 1024 : max >= 1024.0 * 1024
		? 1024.0 * 1024 : 1024, x = max / unit, p;

	if (!(x > 0))
		return unit;
	p = pow(10, floor(log10(x)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= x * (1 - 1e-12))
			return steps[i] * p * unit;
	return 10 * p * unit;
}

static int value_row(double val, double top, int rows)
{
	int r = rows - 1 - (int)floor(val / top * rows);

	return r < 0 ? 0 : r >= rows ? rows - 1 : r;
}

static void draw_time_labels(struct grid *g, int x0, int pw, int y, double from_s, double to_s,
	bool live)
{
	int n = pw >= 60 ? 5 : pw >= 30 ? 3 : pw >= 16 ? 2 : 1, next_free = x0;
	double span = to_s - from_s;

	for (int i = 0; i < n; i++) {
		double frac = n > 1 ? (double)i / (n - 1) : 1;
		char label[32];
		int lw, x;

		if (frac >= 1 && live)
			snprintf(label, sizeof(label), "now");
		else
			view_fmt_clock(from_s + frac * span, span, label, sizeof(label));
		lw = grid_text_cols(label);
		x = frac <= 0 ? x0 : frac >= 1 ? x0 + pw - lw : x0 + (int)(frac * (pw - 1)) - lw / 2;
		if (x < next_free || x + lw > x0 + pw)
			continue;
		grid_put(g, x, y, GA_DIM, label, lw);
		next_free = x + lw + 2;
	}
}

static void draw_legend(const struct view *v, const struct model *m, struct grid *g, int y)
{
	const struct mem_sample *last = view_mem_last(m);
	int x = 0;

	for (int k = CH_COUNT - 1; k >= 0; k--) {
		const char *mark = v->braille ? ch_braille_key[k] : ch_ascii[k];
		char val[32], text[96];
		double b = last ? last->v[ch_metric[k]] : NAN;

		if (k == CH_EXT && m->no_eval)
			snprintf(val, sizeof(val), "not read (--no-eval)");
		else if (isfinite(b))
			view_fmt_bytes(b, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "-");
		snprintf(text, sizeof(text), " %s %s", ch_name[k], val);
		if (x + grid_text_cols(mark) + grid_text_cols(text) > g->width)
			break;
		x = view_put_at(g, x, y, ch_attr[k], mark);
		x = view_put_at(g, x, y, GA_NORMAL, text) + 2;
	}
}

/* The plot as dots: a cell holds dx by dy of them (2 by 4 in braille, 1 by 1 in ASCII), and
 * a dot holds a bit per series. */
struct plot {
	int dx, dy, w, h;  /* dots per cell; dots across and down */
	uint8_t *dot;      /* h rows of w */
};

/* Without colour, braille lines are told apart by pattern: heap total is dashed (three dot
 * columns on, one off), external dotted (every other dot column). ASCII has a glyph each. */
static bool ch_dot_on(bool braille, int k, int c)
{
	if (!braille)
		return true;
	return k == CH_TOTAL ? c % 4 != 3 : k == CH_EXT ? c % 2 == 0 : true;
}

/* Series k: each dot column from its highest to its lowest reading. A column that does not
 * meet the one before it reaches out to it, so that a steep rise reads as one line rather
 * than scattered dots; never across a gap, which must stay visible. */
static void plot_series(struct plot *p, const struct mem_col *cols, int k, double top,
	bool braille)
{
	int prev_top = -1, prev_bot = -1;

	for (int c = 0; c < p->w; c++) {
		int t, b, from, to;

		if (!cols[c].has[k]) {
			prev_top = -1;
			continue;
		}
		t = value_row(cols[c].hi[k], top, p->h);
		b = value_row(cols[c].lo[k], top, p->h);
		from = t;
		to = b;
		if (prev_top >= 0 && !cols[c].gap) {
			if (prev_top > b + 1)
				to = prev_top - 1;
			if (prev_bot < t - 1)
				from = prev_bot + 1;
		}
		prev_top = t;
		prev_bot = b;
		if (ch_dot_on(braille, k, c))
			for (int r = from; r <= to; r++)
				p->dot[(size_t)r * (size_t)p->w + (size_t)c] |= (uint8_t)(1u << k);
	}
}

/* The braille character U+2800 + bits, in UTF-8. */
static void braille_utf8(unsigned bits, char out[4])
{
	out[0] = (char)0xe2;
	out[1] = (char)(0xa0 | (bits >> 6));
	out[2] = (char)(0x80 | (bits & 0x3f));
	out[3] = '\0';
}

/* Cell (cx, cy) of the plot: its glyph and the attribute of the last series drawn in it;
 * false when it has no dot. */
static bool plot_cell(const struct plot *p, int cx, int cy, char glyph[5], enum grid_attr *attr)
{
	/* Braille's dot bits, by dot column and row within the cell. */
	static const uint8_t bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };
	unsigned series = 0, bits = 0;
	int k = CH_COUNT - 1;

	for (int i = 0; i < p->dx; i++)
		for (int j = 0; j < p->dy; j++) {
			uint8_t d = p->dot[(size_t)(cy * p->dy + j) * (size_t)p->w +
				(size_t)(cx * p->dx + i)];
			if (d) {
				series |= d;
				bits |= bit[i][j];
			}
		}
	if (!series)
		return false;
	while (!(series & (1u << k)))
		k--;
	*attr = ch_attr[k];
	if (p->dx * p->dy > 1)
		braille_utf8(bits, glyph);
	else
		strcpy(glyph, ch_ascii[k]);
	return true;
}

/* Draws the series into the plot's pw cells from cols, one per dot column (two a cell in
 * braille); a cell of a gap's column without dots shows the gap mark. */
static void draw_plot(const struct view *v, struct grid *g, int x0, int y0, int pw, int rows,
	const struct mem_col *cols, double top)
{
	struct plot p = { v->braille ? 2 : 1, v->braille ? 4 : 1, 0, 0, NULL };

	p.w = pw * p.dx;
	p.h = rows * p.dy;
	p.dot = xcalloc((size_t)p.w * (size_t)p.h, 1);
	for (int k = 0; k < CH_COUNT; k++)
		plot_series(&p, cols, k, top, v->braille);
	for (int cx = 0; cx < pw; cx++) {
		bool gap = false;

		for (int i = 0; i < p.dx; i++)
			gap = gap || cols[cx * p.dx + i].gap;
		for (int cy = 0; cy < rows; cy++) {
			char glyph[5];
			enum grid_attr attr;

			if (plot_cell(&p, cx, cy, glyph, &attr))
				grid_put(g, x0 + cx, y0 + cy, attr, glyph, 1);
			else if (gap)
				grid_put(g, x0 + cx, y0 + cy, GA_DIM, v->gap_mark, 1);
		}
	}
	free(p.dot);
}

void view_mem_chart(const struct view *v, const struct model *m, struct grid *g, int y0,
	int plot_rows, double from_s, double to_s, bool live)
{
	int x0 = Y_LABEL_COLS + 1, pw = g->width - x0, dx = v->braille ? 2 : 1, n, filled;
	struct mem_col *cols;
	double max = 0, top;
	char label[32];

	draw_legend(v, m, g, y0 + plot_rows + 2);
	if (pw < 2 || plot_rows < 1)
		return;
	n = pw * dx;
	cols = xcalloc((size_t)n, sizeof(*cols));
	filled = mem_columns(m->have_memory ? m->mem : NULL, from_s, to_s, n, HOLD_COLS * dx,
		cols);
	for (int c = 0; c < n; c++)
		for (int k = 0; k < CH_COUNT; k++)
			if (cols[c].has[k] && cols[c].hi[k] > max)
				max = cols[c].hi[k];
	top = nice_top(max);
	for (int r = 0; r < plot_rows; r++)
		grid_put(g, Y_LABEL_COLS, y0 + r, GA_DIM, v->axis_v, 1);
	grid_put(g, Y_LABEL_COLS, y0 + plot_rows, GA_DIM, v->axis_corner, 1);
	for (int c = 0; c < pw; c++)
		grid_put(g, x0 + c, y0 + plot_rows, GA_DIM, v->axis_h, 1);
	/* Labels are round fractions of the top (quarters, or the half on short charts), each
	 * on the row whose upper edge is nearest to it. */
	for (int j = 0, parts = plot_rows >= 12 ? 4 : plot_rows >= 4 ? 2 : 1; j < parts; j++) {
		int r = (int)lround((double)plot_rows * j / parts);
		fmt_axis(top * (parts - j) / parts, label, sizeof(label));
		view_put_right(g, 0, y0 + r, GA_DIM, label, Y_LABEL_COLS);
	}
	view_put_right(g, 0, y0 + plot_rows, GA_DIM, "0", Y_LABEL_COLS);
	draw_time_labels(g, x0, pw, y0 + plot_rows + 1, from_s, to_s, live);
	draw_plot(v, g, x0, y0, pw, plot_rows, cols, top);
	if (filled == 0) {
		const char *why = m->have_memory ? "no memory reading in this span"
			: m->mem ? "waiting for the first memory reading"
			: "memory is not read in this session";
		int w = grid_text_cols(why);
		grid_put(g, x0 + (pw > w ? (pw - w) / 2 : 0), y0 + (plot_rows - 1) / 2, GA_DIM, why,
			pw);
	}
	free(cols);
}
