/* Unit tests for the cell grid: widths, clipping, truncation and sanitising. */
#include "config.h"

#include "grid.h"
#include "tap.h"

#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>

static bool utf8_locale(void)
{
	static const char *names[] = { "C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (setlocale(LC_ALL, names[i]))
			return true;
	return false;
}

static void is_row(const struct grid *g, int y, const char *want, const char *what)
{
	char *s = grid_row_text(g, y);
	is_str(s, want, "%s", what);
	free(s);
}

int main(void)
{
	struct grid g;
	bool utf8 = utf8_locale();
	int w;

	grid_init(&g);
	grid_resize(&g, 10, 3);
	is_row(&g, 0, "          ", "a new grid is blank");

	w = grid_put(&g, 0, 0, GA_NORMAL, "hello", 0);
	is_int(w, 5, "put returns the columns written");
	is_row(&g, 0, "hello     ", "text lands at its position");

	w = grid_put(&g, 5, 1, GA_HEADER, "abcdefghijkl", 0);
	is_int(w, 5, "text is cut at the right edge");
	is_row(&g, 1, "     abcde", "only what fits is written");
	is_int(g.cells[1 * 10 + 5].attr, GA_HEADER, "cells take the attribute");

	grid_clear(&g);
	w = grid_put(&g, 0, 0, GA_NORMAL, "abcdef", 3);
	is_int(w, 3, "max_cols limits the text");
	is_row(&g, 0, "abc       ", "and nothing past it is touched");

	w = grid_put(&g, -2, 1, GA_NORMAL, "abcd", 0);
	is_int(w, 2, "a negative x clips the start");
	is_row(&g, 1, "cd        ", "the visible part is written from column 0");

	is_int(grid_put(&g, 0, 3, GA_NORMAL, "x", 0), 0, "a row below the grid is ignored");
	is_int(grid_put(&g, 0, -1, GA_NORMAL, "x", 0), 0, "a row above the grid is ignored");
	is_int(grid_put(&g, 10, 0, GA_NORMAL, "x", 0), 0, "a column past the edge is ignored");

	/* Sanitising: escapes, C1 controls and invalid UTF-8 from the target. */
	grid_clear(&g);
	grid_put(&g, 0, 0, GA_NORMAL, "\x1b[2Jab", 0);
	is_row(&g, 0, "?[2Jab    ", "ESC becomes ?");
	grid_put(&g, 0, 1, GA_NORMAL, "a\xff\xfe\xc2\x9b" "b\n", 0);
	is_row(&g, 1, "a????b?   ", "invalid UTF-8, C1 controls and newlines become ?");
	is_int(grid_text_cols("\x1b[2J"), 4, "widths count the replacement");
	{
		bool clean = true;
		for (int i = 0; i < g.width * g.height; i++)
			for (const char *p = g.cells[i].ch; *p; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					clean = false;
		ok(clean, "no control byte is left in any cell");
	}

	if (utf8) {
		grid_clear(&g);
		is_int(grid_text_cols("\xe6\x97\xa5\xe6\x9c\xac"), 4, "CJK characters are two columns");
		w = grid_put(&g, 0, 0, GA_NORMAL, "\xe6\x97\xa5\xe6\x9c\xac!", 0);
		is_int(w, 5, "wide characters advance by two");
		is_row(&g, 0, "\xe6\x97\xa5\xe6\x9c\xac!     ", "and read back whole");
		is_str(g.cells[1].ch, "", "the right half of a wide character is empty");
		w = grid_put(&g, 7, 1, GA_NORMAL, "\xe6\x97\xa5\xe6\x9c\xac", 0);
		is_int(w, 2, "a wide character that would cross the edge is not written");
		is_row(&g, 1, "       \xe6\x97\xa5 ", "the last column stays blank");
		w = grid_put(&g, 0, 2, GA_NORMAL, "a\xe6\x97\xa5", 2);
		is_int(w, 1, "a wide character that would cross max_cols is not written");
		grid_put(&g, 1, 0, GA_NORMAL, "x", 0);
		is_row(&g, 0, " x\xe6\x9c\xac!     ", "overwriting a right half blanks the left half");
		grid_put(&g, 2, 0, GA_NORMAL, "y", 0);
		is_row(&g, 0, " xy !     ", "overwriting a left half blanks the right half");
		grid_clear(&g);
		grid_put(&g, -1, 0, GA_NORMAL, "\xe6\x97\xa5z", 0);
		is_row(&g, 0, " z        ", "a wide character cut by the left edge leaves a blank");
		is_int(grid_text_cols("e\xcc\x81"), 1, "combining marks take no column");
		grid_put(&g, 0, 1, GA_NORMAL, "e\xcc\x81\xe2\x80\xaex", 0);
		is_row(&g, 1, "ex        ", "zero-width characters (bidi overrides) are dropped");
		is_int(grid_text_cols("\xc3\xa9t\xc3\xa9"), 3, "accented letters are one column");
	} else {
		ok(1, "# SKIP no UTF-8 locale for the wide-character tests");
	}

	grid_clear(&g);
	w = grid_printf(&g, 1, 2, GA_STATUS, "%d%%", 42);
	is_int(w, 3, "printf writes formatted text");
	is_row(&g, 2, " 42%      ", "at its position");
	grid_fill_attr(&g, -5, 2, 100, GA_SELECTED);
	is_int(g.cells[2 * 10 + 0].attr, GA_SELECTED, "fill clips at the left edge");
	is_int(g.cells[2 * 10 + 9].attr, GA_SELECTED, "and at the right edge");
	is_int(g.cells[1 * 10 + 9].attr, GA_NORMAL, "other rows keep their attributes");
	grid_fill_attr(&g, 0, 7, 3, GA_SELECTED); /* must not write anywhere */
	ok(1, "fill below the grid is harmless");

	{
		char *s = grid_row_text(&g, 9);
		is_str(s, "", "row text of a missing row is empty");
		free(s);
	}

	grid_resize(&g, 0, 0);
	is_int(grid_put(&g, 0, 0, GA_NORMAL, "x", 0), 0, "an empty grid takes nothing");
	grid_resize(&g, 1, 1);
	grid_put(&g, 0, 0, GA_NORMAL, "\xe6\x97\xa5", 0);
	is_row(&g, 0, " ", "a one-column grid never holds half a wide character");
	grid_free(&g);
	grid_free(&g);
	ok(1, "grid_free twice is harmless");
	return done_testing();
}
