/* term.h: the terminal, and the only module that includes curses: start and restore the
 * screen, copy a grid to it, read keys. */
#ifndef NTOP_TERM_H
#define NTOP_TERM_H

#include <stdbool.h>

struct grid;

/* Takes over the terminal. Returns -1 with *cause if standard input and output are not a
 * terminal or curses cannot start. */
int term_open(bool color, char **cause);
/* Restores the terminal (safe to call twice, and from the fatal-error hook). */
void term_close(void);
bool term_is_open(void);
/* The descriptor to watch for keys (a duplicate of standard input). */
int term_key_fd(void);
void term_size(int *width, int *height);
/* The curses library ntop-js runs with ("ncurses 6.4.20221231"), for --version. */
const char *term_library_version(void);
/* Copies the grid to the screen. */
void term_draw(const struct grid *g);
/* Takes the terminal's new size after SIGWINCH. */
void term_resize(void);
/* Ctrl-C arrives as key 3 instead of SIGINT (for screens shown before the event loop runs). */
void term_keys_raw(void);
/* The next key as a view_key code, or -1 when none is waiting. */
int term_read_key(void);

#endif
