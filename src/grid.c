/* grid.c: see grid.h.
 *
 * Every character is checked on its way in, with the same rules as util_sanitize(): control
 * characters (C0, DEL, C1) and invalid UTF-8 become '?'. Widths come from wcwidth(), as the
 * terminal library measures them, so the grid and the screen agree: characters the locale
 * cannot print become '?', zero-width ones (combining marks, bidi overrides) are dropped, and
 * wide ones take two cells, the second holding "". A wide character is never split: writing
 * over either half blanks the other. */
#include "config.h"

#include "grid.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util.h"

void grid_init(struct grid *g)
{
	memset(g, 0, sizeof(*g));
}

void grid_free(struct grid *g)
{
	free(g->cells);
	grid_init(g);
}

void grid_resize(struct grid *g, int width, int height)
{
	size_t n;

	if (width < 0)
		width = 0;
	if (height < 0)
		height = 0;
	n = (size_t)width * (size_t)height;
	free(g->cells);
	g->cells = xcalloc(n ? n : 1, sizeof(*g->cells));
	g->width = width;
	g->height = height;
	grid_clear(g);
}

void grid_clear(struct grid *g)
{
	size_t n = (size_t)g->width * (size_t)g->height;

	for (size_t i = 0; i < n; i++) {
		g->cells[i].ch[0] = ' ';
		g->cells[i].ch[1] = '\0';
		g->cells[i].attr = GA_NORMAL;
	}
}

/* Reads the character at s (len bytes left): sets *used to the bytes it takes and out to what
 * the grid stores for it. Returns its display columns: 0 to drop it, 1 or 2. */
static int grid_next_char(const char *s, size_t len, size_t *used, char out[5])
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = util_utf8_seq(s, len);
	unsigned cp;
	int w;

	if (n == 1 && (u[0] < 0x20 || u[0] == 0x7f))
		n = 0;
	if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0)
		n = 0; /* C1 controls */
	if (n == 0) {
		*used = 1;
		strcpy(out, "?");
		return 1;
	}
	*used = n;
	if (n == 1) {
		out[0] = s[0];
		out[1] = '\0';
		return 1;
	}
	cp = u[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (u[i] & 0x3f);
	w = wcwidth((wchar_t)cp);
	if (w < 0) {
		strcpy(out, "?");
		return 1;
	}
	if (w == 0)
		return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return w > 2 ? 2 : w;
}

static inline struct grid_cell *grid_cell_at(struct grid *g, int x, int y)
{
	return &g->cells[(size_t)y * (size_t)g->width + (size_t)x];
}

/* Before cell x is overwritten: blank the other half of a wide character it belongs to. */
static void grid_unsplit(struct grid *g, int x, int y)
{
	struct grid_cell *c = grid_cell_at(g, x, y);

	if (c->ch[0] == '\0' && x > 0)
		strcpy(grid_cell_at(g, x - 1, y)->ch, " ");
	if (x + 1 < g->width && grid_cell_at(g, x + 1, y)->ch[0] == '\0')
		strcpy(grid_cell_at(g, x + 1, y)->ch, " ");
}

static void grid_set(struct grid *g, int x, int y, const char *ch, int w, enum grid_attr attr)
{
	struct grid_cell *c;

	grid_unsplit(g, x, y);
	if (w == 2)
		grid_unsplit(g, x + 1, y);
	c = grid_cell_at(g, x, y);
	strcpy(c->ch, ch);
	c->attr = (uint8_t)attr;
	if (w == 2) {
		c = grid_cell_at(g, x + 1, y);
		c->ch[0] = '\0';
		c->attr = (uint8_t)attr;
	}
}

int grid_put(struct grid *g, int x, int y, enum grid_attr attr, const char *text, int max_cols)
{
	long col = x, end, start = x < 0 ? 0 : x;
	size_t len, i = 0;

	if (!g->cells || !text || y < 0 || y >= g->height || x >= g->width)
		return 0;
	if ((unsigned)attr >= GA_COUNT)
		attr = GA_NORMAL;
	end = max_cols <= 0 ? g->width : (long)x + max_cols;
	if (end > g->width)
		end = g->width;
	len = strlen(text);
	while (i < len && col < end) {
		char ch[5];
		size_t used;
		int w = grid_next_char(text + i, len - i, &used, ch);

		i += used;
		if (w == 0)
			continue;
		if (col + w > end)
			break;
		if (col >= 0)
			grid_set(g, (int)col, y, ch, w, attr);
		else if (col + w > 0)
			grid_set(g, 0, y, " ", 1, attr); /* the right half of a clipped wide char */
		col += w;
	}
	return col > start ? (int)(col - start) : 0;
}

int grid_printf(struct grid *g, int x, int y, enum grid_attr attr, const char *fmt, ...)
{
	char buf[512], *p = buf;
	va_list ap;
	int n, w;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(buf)) {
		p = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	w = grid_put(g, x, y, attr, p, 0);
	if (p != buf)
		free(p);
	return w;
}

void grid_fill_attr(struct grid *g, int x, int y, int cols, enum grid_attr attr)
{
	long end = (long)x + cols;

	if (!g->cells || y < 0 || y >= g->height || cols <= 0)
		return;
	if ((unsigned)attr >= GA_COUNT)
		attr = GA_NORMAL;
	if (end > g->width)
		end = g->width;
	for (long i = x < 0 ? 0 : x; i < end; i++)
		grid_cell_at(g, (int)i, y)->attr = (uint8_t)attr;
}

int grid_text_cols(const char *text)
{
	size_t len = text ? strlen(text) : 0, i = 0;
	int cols = 0;

	while (i < len) {
		char ch[5];
		size_t used;

		cols += grid_next_char(text + i, len - i, &used, ch);
		i += used;
	}
	return cols;
}

char *grid_row_text(const struct grid *g, int y)
{
	char *s, *p;

	if (!g->cells || y < 0 || y >= g->height)
		return xstrdup("");
	s = p = xmalloc((size_t)g->width * 4 + 1);
	for (int x = 0; x < g->width; x++) {
		const char *ch = g->cells[(size_t)y * (size_t)g->width + (size_t)x].ch;
		size_t n = strlen(ch);
		memcpy(p, ch, n);
		p += n;
	}
	*p = '\0';
	return s;
}
