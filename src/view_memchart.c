/* view_memchart.c: drawing the memory series: the memory screen's chart, the header's
 * sparkline, the series' time edges, and the formats of sizes, spans and clock times that the
 * memory screen shares.
 *
 * The chart spreads the series' buckets over its columns by time, so that a span only partly
 * covered by readings (right after attach, or a zoom wider than the history) is drawn where
 * it belongs. Each column is drawn from the minimum to the maximum of each series in it: heap
 * used shows the GC sawtooth as a band whose floor is what survives collections. The y axis
 * starts at 0: sizes are compared honestly, and the growth figures give the slope. */
#include "config.h"

#include <math.h>
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

/* The chart's series, drawn in this order (later ones on top). */
enum { CH_EXT, CH_RSS, CH_TOTAL, CH_USED, CH_COUNT };
static const enum mem_metric ch_metric[CH_COUNT] = { MEM_EXTERNAL, MEM_RSS, MEM_HEAP_TOTAL,
	MEM_HEAP_USED };
static const char *const ch_glyph[CH_COUNT] = { ".", "=", "-", "#" };
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

static int put_at(struct grid *g, int x, int y, enum grid_attr attr, const char *text)
{
	return x + grid_put(g, x, y, attr, text, 0);
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
 * covered by readings is drawn where it belongs. Returns the columns with data. */
static int mem_columns(const struct memseries *s, double from_s, double to_s, int n,
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
	/* A series read less often than a column (external memory) would be dotted: hold its
	 * last range over short holes, but never across a gap. */
	for (int k = 0; k < CH_COUNT; k++)
		for (int c = 0, prev = -1; c < n; c++) {
			if (cols[c].gap)
				prev = -1;
			if (!cols[c].has[k])
				continue;
			if (prev >= 0 && c - prev > 1 && c - prev <= 4)
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
	if (mem_columns(m->mem, end_s - SPARK_SPAN_S, end_s, slots, cols) == 0)
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

static void draw_legend(const struct model *m, struct grid *g, int y)
{
	const struct mem_sample *last = view_mem_last(m);
	int x = 0;

	for (int k = CH_COUNT - 1; k >= 0; k--) {
		char val[32], text[96];
		double b = last ? last->v[ch_metric[k]] : NAN;

		if (k == CH_EXT && m->no_eval)
			snprintf(val, sizeof(val), "not read (--no-eval)");
		else if (isfinite(b))
			view_fmt_bytes(b, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "-");
		snprintf(text, sizeof(text), " %s %s", ch_name[k], val);
		if (x + 1 + grid_text_cols(text) > g->width)
			break;
		x = put_at(g, x, y, ch_attr[k], ch_glyph[k]);
		x = put_at(g, x, y, GA_NORMAL, text) + 2;
	}
}

void view_mem_chart(const struct view *v, const struct model *m, struct grid *g, int y0,
	int plot_rows, double from_s, double to_s, bool live)
{
	int x0 = Y_LABEL_COLS + 1, pw = g->width - x0, filled;
	struct mem_col *cols;
	double max = 0, top;
	char label[32];

	draw_legend(m, g, y0 + plot_rows + 2);
	if (pw < 2 || plot_rows < 1)
		return;
	cols = xcalloc((size_t)pw, sizeof(*cols));
	filled = mem_columns(m->have_memory ? m->mem : NULL, from_s, to_s, pw, cols);
	for (int c = 0; c < pw; c++)
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
	for (int c = 0; c < pw; c++)
		if (cols[c].gap)
			for (int r = 0; r < plot_rows; r++)
				grid_put(g, x0 + c, y0 + r, GA_DIM, v->gap_mark, 1);
	for (int k = 0; k < CH_COUNT; k++)
		for (int c = 0; c < pw; c++) {
			if (!cols[c].has[k])
				continue;
			for (int r = value_row(cols[c].hi[k], top, plot_rows);
			     r <= value_row(cols[c].lo[k], top, plot_rows); r++)
				grid_put(g, x0 + c, y0 + r, ch_attr[k], ch_glyph[k], 1);
		}
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

