/* view_fixture.h: the screen tests' one way to read a grid back: its lines as text, where a
 * text is, the attribute of a cell, and whether everything drawn fits the grid and is clean.
 * row() keeps its last line until the next call; view_fixture_done() frees it. */
#ifndef NTOP_VIEW_FIXTURE_H
#define NTOP_VIEW_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

static char *view_fixture_last;

static inline char *row(const struct grid *g, int y)
{
	free(view_fixture_last);
	view_fixture_last = grid_row_text(g, y);
	return view_fixture_last;
}

static inline void view_fixture_done(void)
{
	free(view_fixture_last);
	view_fixture_last = NULL;
}

/* NTOP_TEST_DUMP=1 prints the screens as TAP comments, to look at them. */
static inline void dump(const struct grid *g)
{
	if (!getenv("NTOP_TEST_DUMP"))
		return;
	for (int y = 0; y < g->height; y++)
		printf("# |%s|\n", row(g, y));
}

/* The first line containing s, or -1. */
static inline int find_line(const struct grid *g, const char *s)
{
	for (int y = 0; y < g->height; y++)
		if (strstr(row(g, y), s))
			return y;
	return -1;
}

static inline bool screen_has(const struct grid *g, const char *s)
{
	return find_line(g, s) >= 0;
}

/* The cell where s starts on line y, or -1. */
static inline int find_cell(const struct grid *g, int y, const char *s)
{
	char *text = grid_row_text(g, y), *hit = strstr(text, s);
	int x = -1;

	if (hit) {
		size_t off = 0, want = (size_t)(hit - text);
		for (x = 0; x < g->width && off < want; x++)
			off += strlen(g->cells[y * g->width + x].ch);
	}
	free(text);
	return x;
}

static inline int attr_at(const struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->width || y >= g->height)
		return -1;
	return g->cells[y * g->width + x].attr;
}

static inline const char *cell(const struct grid *g, int x, int y)
{
	return g->cells[y * g->width + x].ch;
}

static inline int count_in(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The line whose first cell is selected, or -1. */
static inline int selected_line(const struct grid *g)
{
	for (int y = 0; y < g->height; y++)
		if (g->width > 0 && g->cells[y * g->width].attr == GA_SELECTED)
			return y;
	return -1;
}

/* Every line is exactly as wide as the grid. */
static inline bool rows_fit(const struct grid *g)
{
	for (int y = 0; y < g->height; y++)
		if (grid_text_cols(row(g, y)) != g->width)
			return false;
	return true;
}

/* No control byte (and, with ascii, nothing but ASCII) in any cell. */
static inline bool grid_bytes_ok(const struct grid *g, bool ascii)
{
	for (int i = 0; i < g->width * g->height; i++)
		for (const unsigned char *p = (const unsigned char *)g->cells[i].ch; *p; p++)
			if (*p < 0x20 || *p == 0x7f || *p == 0xff || (ascii && *p >= 0x80))
				return false;
	return true;
}

static inline bool grid_clean(const struct grid *g)
{
	return grid_bytes_ok(g, false);
}

#endif
