/* grid.h: a terminal-independent grid of cells that views draw into. The terminal layer
 * copies it to the screen; tests read it back as text. Text put into the grid is always
 * sanitised first (it may come from the target) and measured in display columns. */
#ifndef NTOP_GRID_H
#define NTOP_GRID_H

#include <stddef.h>
#include <stdint.h>

enum grid_attr {
	GA_NORMAL = 0,
	GA_HEADER,      /* the header block's labels */
	GA_TITLE,       /* column headings */
	GA_SORTED,      /* the active sort column's heading */
	GA_SELECTED,    /* the selected row */
	GA_KEYBAR,      /* the key bar at the bottom */
	GA_STATUS,      /* status messages */
	GA_WARN,        /* warnings: late windows, a lost connection */
	GA_DIM,         /* de-emphasised text (Node internals, locations) */
	GA_MATCH,       /* a search match */
	GA_HEAT1,       /* percentage heat, coolest to hottest */
	GA_HEAT2,
	GA_HEAT3,
	GA_HEAT4,
	GA_COUNT
};

struct grid_cell {
	char ch[5];        /* one UTF-8 character, NUL-terminated; "" for the right half of a wide one */
	uint8_t attr;      /* enum grid_attr */
};

struct grid {
	int width, height;
	struct grid_cell *cells; /* width * height, row-major */
};

void grid_init(struct grid *g);
void grid_free(struct grid *g);
/* Resizes and clears to spaces. */
void grid_resize(struct grid *g, int width, int height);
void grid_clear(struct grid *g);
/* Writes text (raw bytes, sanitised here) at (x, y) in at most max_cols columns (<= 0: to the
 * right edge). Returns the number of columns written. */
int grid_put(struct grid *g, int x, int y, enum grid_attr attr, const char *text, int max_cols);
int grid_printf(struct grid *g, int x, int y, enum grid_attr attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Sets the attribute of a run of cells (e.g. a whole selected row). */
void grid_fill_attr(struct grid *g, int x, int y, int cols, enum grid_attr attr);
/* Display columns of sanitised text. */
int grid_text_cols(const char *text);
/* Row y as a NUL-terminated UTF-8 string (trailing spaces kept); caller frees. For tests. */
char *grid_row_text(const struct grid *g, int y);

#endif
