/* term.c: see term.h. */
#include "config.h"

#include "term.h"
#include "grid.h"
#include "keys.h"
#include "util.h"

#include <curses.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool term_open_now;
static int term_fd = -1;
static int term_saved_flags = -1;
static attr_t term_attr_map[GA_COUNT];

static void term_setup_attrs(bool color)
{
	int i;

	for (i = 0; i < GA_COUNT; i++)
		term_attr_map[i] = A_NORMAL;
	term_attr_map[GA_HEADER] = A_BOLD;
	term_attr_map[GA_TITLE] = A_REVERSE;
	term_attr_map[GA_SORTED] = A_REVERSE | A_BOLD;
	term_attr_map[GA_SELECTED] = A_REVERSE;
	term_attr_map[GA_KEYBAR] = A_REVERSE;
	term_attr_map[GA_STATUS] = A_BOLD;
	term_attr_map[GA_WARN] = A_BOLD;
	term_attr_map[GA_DIM] = A_DIM;
	term_attr_map[GA_MATCH] = A_UNDERLINE;
	term_attr_map[GA_HEAT4] = A_BOLD;
	if (!color || !has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	init_pair(1, COLOR_BLACK, COLOR_CYAN);   /* titles, key bar */
	init_pair(2, COLOR_BLACK, COLOR_GREEN);  /* the sorted column */
	init_pair(3, COLOR_RED, -1);             /* warnings, the hottest */
	init_pair(4, COLOR_YELLOW, -1);
	init_pair(5, COLOR_GREEN, -1);
	init_pair(6, COLOR_CYAN, -1);
	init_pair(7, COLOR_BLUE, -1);
	term_attr_map[GA_TITLE] = COLOR_PAIR(1);
	term_attr_map[GA_KEYBAR] = COLOR_PAIR(1);
	term_attr_map[GA_SORTED] = COLOR_PAIR(2) | A_BOLD;
	term_attr_map[GA_WARN] = COLOR_PAIR(3) | A_BOLD;
	term_attr_map[GA_HEADER] = COLOR_PAIR(6) | A_BOLD;
	term_attr_map[GA_HEAT1] = COLOR_PAIR(7);
	term_attr_map[GA_HEAT2] = COLOR_PAIR(5);
	term_attr_map[GA_HEAT3] = COLOR_PAIR(4) | A_BOLD;
	term_attr_map[GA_HEAT4] = COLOR_PAIR(3) | A_BOLD;
}

int term_open(bool color, char **cause)
{
	if (term_open_now)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*cause = xstrdup("the live view needs a terminal; use -b for batch output.");
		return -1;
	}
	/* The event loop sets O_NONBLOCK on the key descriptor, and the flag is shared with the
	 * shell through the terminal's open file: remember it to restore it. */
	term_saved_flags = fcntl(STDIN_FILENO, F_GETFL);
	term_fd = dup(STDIN_FILENO);
	if (term_fd < 0) {
		*cause = xstrdup("cannot duplicate standard input.");
		return -1;
	}
	fcntl(term_fd, F_SETFD, FD_CLOEXEC);
	if (!newterm(NULL, stdout, stdin)) {
		close(term_fd);
		term_fd = -1;
		*cause = xstrdup("cannot start the terminal (is TERM set?).");
		return -1;
	}
	term_open_now = true;
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	term_setup_attrs(color);
	return 0;
}

void term_close(void)
{
	if (!term_open_now)
		return;
	term_open_now = false;
	curs_set(1);
	endwin();
	if (term_saved_flags >= 0)
		fcntl(STDIN_FILENO, F_SETFL, term_saved_flags);
	if (term_fd >= 0)
		close(term_fd);
	term_fd = -1;
}

bool term_is_open(void)
{
	return term_open_now;
}

int term_key_fd(void)
{
	return term_fd;
}

void term_size(int *width, int *height)
{
	*width = COLS;
	*height = LINES;
}

void term_draw(const struct grid *g)
{
	char run[1024];
	int x, y;

	if (!term_open_now)
		return;
	for (y = 0; y < g->height && y < LINES; y++) {
		x = 0;
		while (x < g->width && x < COLS) {
			const struct grid_cell *c = &g->cells[y * g->width + x];
			uint8_t attr = c->attr;
			int start = x;
			size_t len = 0;

			/* One run of cells with the same attribute. */
			while (x < g->width && x < COLS && g->cells[y * g->width + x].attr == attr) {
				const char *ch = g->cells[y * g->width + x].ch;
				size_t n = strlen(ch);
				if (len + n + 1 >= sizeof run)
					break;
				memcpy(run + len, ch, n);
				len += n;
				x++;
			}
			run[len] = '\0';
			/* The cells are UTF-8 (chart braille, blocks, sanitised names): ncursesw
			 * decodes them in the locale set at start, the one whose wcwidth let the
			 * grid hold them, so the screen and the grid agree on every width. */
			attrset(term_attr_map[attr < GA_COUNT ? attr : GA_NORMAL]);
			/* Writing the screen's last cell returns ERR (the cursor cannot move on),
			 * but the text is drawn. */
			mvaddstr(y, start, run);
		}
	}
	attrset(A_NORMAL);
	wnoutrefresh(stdscr);
	doupdate();
}

int term_read_key(void)
{
	int c;

	if (!term_open_now)
		return -1;
	c = getch();
	switch (c) {
	case ERR: return -1;
	case KEY_UP: return VK_UP;
	case KEY_DOWN: return VK_DOWN;
	case KEY_LEFT: return VK_LEFT;
	case KEY_RIGHT: return VK_RIGHT;
	case KEY_PPAGE: return VK_PGUP;
	case KEY_NPAGE: return VK_PGDN;
	case KEY_HOME: return VK_HOME;
	case KEY_END: return VK_END;
	case KEY_ENTER: case '\n': case '\r': return VK_ENTER;
	case 27: return VK_ESC;
	case KEY_BACKSPACE: case 127: case 8: return VK_BACKSPACE;
	case KEY_F(1): return VK_F1;
	case KEY_RESIZE: return VK_RESIZE;
	default:
		return c >= 0 && c < 0x10000 ? c : -1;
	}
}

void term_resize(void)
{
	struct winsize ws;

	if (!term_open_now)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

void term_keys_raw(void)
{
	if (term_open_now)
		raw();
}

const char *term_library_version(void)
{
	return curses_version();
}
