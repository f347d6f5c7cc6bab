/* view_memchart.c: drawing the memory series: the memory screen's chart (view_chart.c draws
 * it), the header's sparkline, the series' time edges, and the formats of sizes, spans and
 * clock times that the screens share.
 *
 * The chart's lines: heap used a band (the GC sawtooth: its floor is what survives
 * collections), rss solid, heap total dashed (the capacity heap used fills) and external
 * dotted; the y axis starts at 0, so sizes are compared honestly, and the growth figures give
 * the slope. */
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
#include "view_chart.h"
#include "view_priv.h"

/* The header's sparkline: heap used over the last five minutes. */
#define SPARK_SPAN_S 300.0
#define SPARK_SLOTS 20
/* A series that stopped longer ago than this (a replayed log, a target gone) is drawn up to
 * its last reading instead of up to now. */
#define MEM_STALE_S 120.0
/* A series read less often than the chart has columns (external memory) would be dotted: its
 * last range is held over holes up to this many cells wide. */
#define HOLD_COLS 4

/* The chart's series, drawn in this order (later ones on top). */
enum { CH_EXT, CH_RSS, CH_TOTAL, CH_USED, CH_COUNT };
static const struct chart_series mem_series[CH_COUNT] = {
	{ MEM_EXTERNAL, CHART_RANGE, CHART_DOTTED, GA_DIM, ".", "\xe2\xa0\x82\xe2\xa0\x82" },
	{ MEM_RSS, CHART_RANGE, CHART_SOLID, GA_HEAT1, "=", "\xe2\xa0\x92\xe2\xa0\x92" },
	{ MEM_HEAP_TOTAL, CHART_RANGE, CHART_DASHED, GA_HEAT2, "-", "\xe2\xa0\x92\xe2\xa0\x82" },
	{ MEM_HEAP_USED, CHART_RANGE, CHART_SOLID, GA_HEAT3, "#", "\xe2\xa3\xbf\xe2\xa3\xbf" },
};
static const char *const ch_name[CH_COUNT] = { "external", "rss", "heap total", "heap used" };

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

	/* a replay ends where its log ends, however recent */
	if (last && isfinite(last->t_s) && (m->replay ||
	    now_wall_s - last->t_s > MEM_STALE_S || now_wall_s < last->t_s))
		end = last->t_s;
	if (v && v->paused) {
		if (v->mem_frozen_end_s <= 0)
			v->mem_frozen_end_s = end;
		end = v->mem_frozen_end_s;
	}
	return end;
}

void view_mem_sparkline(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int slots, double end_s)
{
	struct chart_col cols[SPARK_SLOTS];
	double lo = INFINITY, hi = -INFINITY, range;

	if (slots > SPARK_SLOTS)
		slots = SPARK_SLOTS;
	if (!m->mem || view_chart_columns(memseries_tseries(m->mem), &mem_series[CH_USED], 1,
		end_s - SPARK_SPAN_S, end_s, slots, HOLD_COLS, cols) == 0)
		return;
	/* The post-GC floor of each slot: the sawtooth's minima show the trend. */
	for (int i = 0; i < slots; i++)
		if (cols[i].has[0]) {
			lo = fmin(lo, cols[i].lo[0]);
			hi = fmax(hi, cols[i].lo[0]);
		}
	/* Noise under 2% of the heap stays flat. */
	range = fmax(hi - lo, 0.02 * fabs(hi));
	for (int i = 0; i < slots; i++) {
		if (cols[i].has[0]) {
			int level = range > 0 ? (int)((cols[i].lo[0] - lo) / range * 7.999) : 0;
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

static void draw_legend(const struct view *v, const struct model *m, struct grid *g, int y)
{
	const struct mem_sample *last = view_mem_last(m);
	int x = 0;

	for (int k = CH_COUNT - 1; k >= 0; k--) {
		const char *mark = v->braille ? mem_series[k].braille_key : mem_series[k].ascii;
		char val[32], text[96];
		double b = last ? last->v[mem_series[k].metric] : NAN;

		if (k == CH_EXT && m->no_eval)
			snprintf(val, sizeof(val), "not read (--no-eval)");
		else if (isfinite(b))
			view_fmt_bytes(b, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "-");
		snprintf(text, sizeof(text), " %s %s", ch_name[k], val);
		if (x + grid_text_cols(mark) + grid_text_cols(text) > g->width)
			break;
		x = view_put_at(g, x, y, mem_series[k].attr, mark);
		x = view_put_at(g, x, y, GA_NORMAL, text) + 2;
	}
}

void view_mem_chart(const struct view *v, const struct model *m, struct grid *g, int y0,
	int plot_rows, double from_s, double to_s, bool live)
{
	struct chart c = { m->have_memory && m->mem ? memseries_tseries(m->mem) : NULL, mem_series,
		CH_COUNT, from_s, to_s, live, HOLD_COLS, nice_top, fmt_axis, true };

	draw_legend(v, m, g, y0 + plot_rows + 2);
	if (view_chart_draw(v, g, y0, plot_rows, &c) == 0)
		view_chart_note(g, y0, plot_rows, m->have_memory ? "no memory reading in this span"
			: m->mem ? "waiting for the first memory reading"
			: "memory is not read in this session");
}
