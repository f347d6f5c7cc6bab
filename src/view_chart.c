/* view_chart.c: a time chart of a tseries (view_chart.h).
 *
 * The chart spreads the series' buckets over its columns by time, so that a span only partly
 * covered by readings (right after attach, or a zoom wider than the history) is drawn where
 * it belongs. Each column is drawn from the minimum to the maximum of a series in it (a band:
 * heap used shows the GC sawtooth, whose floor is what survives collections), or at its
 * maximum only. The y axis starts at 0: values are compared honestly.
 *
 * The plot is drawn in dots. Where the locale can show them, each cell is a braille
 * character of 2 by 4 dots: the lines get twice the columns and four times the rows of one
 * glyph per cell, and lines of dots can cross and still be followed. Block elements
 * (U+2581..U+2588) give eight levels too, but always filled up from the cell's bottom: right
 * for one series as bars (the header's sparkline), wrong for several lines on one plot, where
 * each would bury the lines under it. A cell has one colour, so the dots of every series in
 * it take the colour of the one drawn last; without colour the lines are told apart by their
 * pattern (solid, dashed, dotted). Where braille cannot be shown, a cell is the ASCII glyph of
 * the last series drawn in it. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_chart.h"
#include "view_priv.h"

#define Y_LABEL_COLS 7

static double first_finite(double a, double b, double c)
{
	return isfinite(a) ? a : isfinite(b) ? b : c;
}

int view_chart_columns(const struct tseries *s, const struct chart_series *ser, int ns,
	double from_s, double to_s, int n, int hold, struct chart_col *cols)
{
	double span = to_s - from_s, width = INFINITY;
	struct ts_bucket *b;
	size_t nb;
	int filled = 0;

	if (ns > CHART_MAX_SERIES)
		ns = CHART_MAX_SERIES;
	for (int c = 0; c < n; c++) {
		memset(&cols[c], 0, sizeof(cols[c]));
		for (int k = 0; k < CHART_MAX_SERIES; k++) {
			cols[c].lo[k] = INFINITY;
			cols[c].hi[k] = -INFINITY;
		}
	}
	if (!s || n <= 0 || !(span > 0) || !isfinite(span))
		return 0;
	b = xcalloc((size_t)n, sizeof(*b));
	nb = tseries_query(s, from_s, to_s, (size_t)n, b);
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
			for (int k = 0; k < ns; k++) {
				int mm = ser[k].metric;
				double hi = first_finite(b[i].max[mm], b[i].mean[mm], b[i].last[mm]);
				double lo = ser[k].extent == CHART_TOP ? hi
					: first_finite(b[i].min[mm], b[i].mean[mm], b[i].last[mm]);
				bool any = false;

				if (!isfinite(lo) || !isfinite(hi))
					continue;
				for (int j = 0; j < ns; j++)
					any = any || cols[c].has[j];
				if (!any)
					filled++;
				cols[c].has[k] = true;
				cols[c].lo[k] = fmin(cols[c].lo[k], fmin(lo, hi));
				cols[c].hi[k] = fmax(cols[c].hi[k], fmax(lo, hi));
			}
	}
	free(b);
	/* Each series' last range is held over short holes, never across a gap: what came before
	 * it was another process. */
	for (int k = 0; k < ns; k++)
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

/* The plot as dots: a cell holds dx by dy of them (2 by 4 in braille, 1 by 1 in ASCII), and
 * a dot holds a bit per series. */
struct plot {
	int dx, dy, w, h;  /* dots per cell; dots across and down */
	uint8_t *dot;      /* h rows of w */
};

static bool dot_on(bool braille, enum chart_pattern pat, int c)
{
	if (!braille)
		return true;
	return pat == CHART_DASHED ? c % 4 != 3 : pat == CHART_DOTTED ? c % 2 == 0 : true;
}

/* Series k: each dot column from its highest to its lowest reading. A column that does not
 * meet the one before it reaches out to it, so that a steep rise reads as one line rather
 * than scattered dots; never across a gap, which must stay visible. */
static void plot_series(struct plot *p, const struct chart_col *cols, int k,
	enum chart_pattern pat, double top, bool braille)
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
		if (dot_on(braille, pat, c))
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
static bool plot_cell(const struct plot *p, const struct chart_series *ser, int ns, int cx,
	int cy, char glyph[5], enum grid_attr *attr)
{
	/* Braille's dot bits, by dot column and row within the cell. */
	static const uint8_t bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };
	unsigned series = 0, bits = 0;
	int k = ns - 1;

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
	while (k > 0 && !(series & (1u << k)))
		k--;
	*attr = ser[k].attr;
	if (p->dx * p->dy > 1)
		braille_utf8(bits, glyph);
	else
		snprintf(glyph, 5, "%s", ser[k].ascii);
	return true;
}

/* Draws the series into the plot's pw cells from cols, one per dot column (two a cell in
 * braille); a cell of a gap's column without dots shows the gap mark. */
static void draw_plot(const struct view *v, struct grid *g, int x0, int y0, int pw, int rows,
	const struct chart *c, const struct chart_col *cols, double top)
{
	struct plot p = { v->braille ? 2 : 1, v->braille ? 4 : 1, 0, 0, NULL };

	p.w = pw * p.dx;
	p.h = rows * p.dy;
	p.dot = xcalloc((size_t)p.w * (size_t)p.h, 1);
	for (int k = 0; k < c->ns; k++)
		plot_series(&p, cols, k, c->ser[k].pattern, top, v->braille);
	for (int cx = 0; cx < pw; cx++) {
		bool gap = false;

		for (int i = 0; i < p.dx; i++)
			gap = gap || cols[cx * p.dx + i].gap;
		for (int cy = 0; cy < rows; cy++) {
			char glyph[5];
			enum grid_attr attr;

			if (plot_cell(&p, c->ser, c->ns, cx, cy, glyph, &attr))
				grid_put(g, x0 + cx, y0 + cy, attr, glyph, 1);
			else if (gap)
				grid_put(g, x0 + cx, y0 + cy, GA_DIM, v->gap_mark, 1);
		}
	}
	free(p.dot);
}

int view_chart_draw(const struct view *v, struct grid *g, int y0, int rows, const struct chart *c)
{
	int x0 = Y_LABEL_COLS + 1, pw = g->width - x0, dx = v->braille ? 2 : 1, n, filled;
	int ns = c->ns > CHART_MAX_SERIES ? CHART_MAX_SERIES : c->ns;
	struct chart_col *cols;
	struct chart cc = *c;
	double max = 0, top;
	char label[32];

	if (pw < 2 || rows < 1 || ns < 1)
		return 0;
	cc.ns = ns;
	n = pw * dx;
	cols = xcalloc((size_t)n, sizeof(*cols));
	filled = view_chart_columns(c->s, c->ser, ns, c->from_s, c->to_s, n, c->hold * dx, cols);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < ns; k++)
			if (cols[i].has[k] && cols[i].hi[k] > max)
				max = cols[i].hi[k];
	top = c->top(max);
	if (!(top > 0) || !isfinite(top))
		top = 1;
	for (int r = 0; r < rows; r++)
		grid_put(g, Y_LABEL_COLS, y0 + r, GA_DIM, v->axis_v, 1);
	grid_put(g, Y_LABEL_COLS, y0 + rows, GA_DIM, v->axis_corner, 1);
	for (int i = 0; i < pw; i++)
		grid_put(g, x0 + i, y0 + rows, GA_DIM, v->axis_h, 1);
	/* Labels are round fractions of the top (quarters, or the half on short charts), each
	 * on the row whose upper edge is nearest to it. */
	for (int j = 0, parts = rows >= 12 ? 4 : rows >= 4 ? 2 : 1; j < parts; j++) {
		int r = (int)lround((double)rows * j / parts);
		c->label(top * (parts - j) / parts, label, sizeof(label));
		view_put_right(g, 0, y0 + r, GA_DIM, label, Y_LABEL_COLS);
	}
	view_put_right(g, 0, y0 + rows, GA_DIM, "0", Y_LABEL_COLS);
	if (c->time_labels)
		draw_time_labels(g, x0, pw, y0 + rows + 1, c->from_s, c->to_s, c->live);
	draw_plot(v, g, x0, y0, pw, rows, &cc, cols, top);
	free(cols);
	return filled;
}

void view_chart_note(struct grid *g, int y0, int rows, const char *text)
{
	int x0 = Y_LABEL_COLS + 1, pw = g->width - x0, w = grid_text_cols(text);

	if (pw < 1 || rows < 1)
		return;
	grid_put(g, x0 + (pw > w ? (pw - w) / 2 : 0), y0 + (rows - 1) / 2, GA_DIM, text, pw);
}
