/* view_chart.h: a time chart of a tseries (tseries.h) drawn into the grid: lines and bands
 * in braille dots (or one ASCII glyph a cell), a y axis from 0 with labels, and a time axis.
 * The memory screen's chart and sparkline (view_memchart.c) and the loop screen's charts
 * (view_evloop.c) are drawn so. Private to the view. */
#ifndef NTOP_VIEW_CHART_H
#define NTOP_VIEW_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "grid.h"
#include "tseries.h"

struct view;

#define CHART_MAX_SERIES 4

/* How a series' column spans: its lowest to its highest reading (a band: the GC sawtooth),
 * or its highest only (a peak line: the loop's worst delay). */
enum chart_extent { CHART_RANGE, CHART_TOP };
/* Without colour, braille lines are told apart by pattern. */
enum chart_pattern { CHART_SOLID, CHART_DASHED, CHART_DOTTED };

struct chart_series {
	int metric;                  /* index into the tseries */
	enum chart_extent extent;
	enum chart_pattern pattern;
	enum grid_attr attr;
	const char *ascii;           /* the glyph of a cell without braille */
	const char *braille_key;     /* the legend's sample of the pattern in braille */
};

/* One column of a chart (or one slot of a sparkline): the range of each series in it. */
struct chart_col {
	double lo[CHART_MAX_SERIES], hi[CHART_MAX_SERIES];
	bool has[CHART_MAX_SERIES], gap;
};

/* Spreads the buckets of [from_s, to_s] over n columns by time, so that a span only partly
 * covered by readings is drawn where it belongs; a series' range is held over holes of up to
 * hold columns, never across a gap. Returns the columns with data (0 for a NULL series). */
int view_chart_columns(const struct tseries *s, const struct chart_series *ser, int ns,
	double from_s, double to_s, int n, int hold, struct chart_col *cols);

struct chart {
	const struct tseries *s;
	const struct chart_series *ser;
	int ns;                      /* 1 .. CHART_MAX_SERIES; later ones are drawn on top */
	double from_s, to_s;
	bool live;                   /* the right edge is now: labelled so */
	int hold;                    /* hold a series over holes this many cells wide */
	/* The y axis' top for the highest value drawn (a round number at least max), and its
	 * labels. */
	double (*top)(double max);
	void (*label)(double v, char *out, size_t outsz);
	bool time_labels;            /* a row of clock times under the axis */
};

/* Draws the chart at rows y0 .. y0 + rows - 1, its x axis under them and, if asked, the
 * time labels under that, across the grid's width. Returns the columns with data. */
int view_chart_draw(const struct view *v, struct grid *g, int y0, int rows, const struct chart *c);
/* A note in the middle of a chart's plot (nothing to draw yet, and why). */
void view_chart_note(struct grid *g, int y0, int rows, const char *text);

#endif
