/* view_priv.h: the state shared by the view's screens (view.c: keys, common drawing;
 * view_table.c: the table of hot functions; view_detail.c: one function; view_help.c: help;
 * view_memory.c and view_memchart.c: the memory screen and the header's memory line;
 * view_evloop.c: the loop screen and the header's LOOP line; view_all.c: every thread side by
 * side; view_requests.c: the HTTP routes and destinations).
 * Private to those files. */
#ifndef NTOP_VIEW_PRIV_H
#define NTOP_VIEW_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "model.h"
#include "view.h"

struct func_info;
struct mem_sample;

#define VIEW_STACK_MAX 16
#define VIEW_INPUT_MAX 128
#define VIEW_NONE UINT32_MAX

/* A screen of the view (as tmux's window modes): each one's file defines its struct screen,
 * and view.c's table view_screens[] maps these numbers to them; nothing else dispatches on
 * the screen. */
enum view_screen { VS_TABLE, VS_DETAIL, VS_HELP, VS_MEMORY, VS_EVLOOP, VS_ALL, VS_REQUESTS,
	VS_INCIDENTS };
enum view_prompt { VP_NONE, VP_SEARCH, VP_FILTER, VP_SNAPSHOT, VP_START_CPU, VP_ALLOC };
/* The memory chart's time spans. */
enum view_zoom { VZ_5MIN, VZ_1H, VZ_24H, VZ_ALL, VZ_COUNT };

struct view {
	struct view_settings s;
	enum view_screen screen, help_from;
	/* Characters that depend on the locale being able to show them. */
	const char *ellipsis, *arrow_down, *arrow_up, *delta;
	/* Sparkline blocks (lowest to highest), the gap mark and the chart's axis lines. */
	const char *blocks[8], *gap_mark, *axis_v, *axis_h, *axis_corner;
	/* The chart plots braille dots (2 by 4 a cell) rather than an ASCII glyph a cell. */
	bool braille;

	/* Table: all rows of the mode, then the visible ones (filtered, sorted). */
	struct model_row *all, *rows;
	size_t n_all, all_cap, n_rows, rows_cap;
	uint32_t sel_func;  /* the selected function, VIEW_NONE until the user moves */
	size_t sel, top;    /* selected and first shown row of rows[] */
	int page_rows;      /* table rows in the last drawing */
	size_t all_top;     /* the first row shown of the table across threads (T) */

	/* Pause: a snapshot of every mode's rows and split. */
	bool paused;
	struct model_row *frozen[MODE_COUNT];
	size_t n_frozen[MODE_COUNT], frozen_cap[MODE_COUNT];
	struct model_split frozen_split[MODE_COUNT];

	/* The one-line prompt, and the active search. */
	enum view_prompt prompt;
	char input[VIEW_INPUT_MAX];
	size_t input_len;
	char search[VIEW_INPUT_MAX];
	/* The view's own message (no match...), shown in the status line until the next key. */
	char msg[256];

	/* Detail: the function shown, the ones to go back to, and the selected caller/callee. */
	uint32_t detail;
	uint32_t stack[VIEW_STACK_MAX];
	size_t depth;
	size_t detail_sel;
	struct model_row *callers, *callees;
	size_t n_callers, n_callees, callers_cap, callees_cap;

	int help_top, help_lines, help_page;

	/* Memory screen: the zoom, and the chart's right edge frozen by a pause (0: live). */
	enum view_zoom zoom;
	double mem_frozen_end_s;

	/* Loop screen: the selected block (its number since attach; UINT64_MAX: the newest),
	 * the first row shown, and whether its stack is open. */
	uint64_t blk_sel;
	long blk_top;
	bool blk_stack;

	/* Requests screen: the selected route (in the shown order) and the first shown, the sort
	 * (0 requests, 1 p99, 2 errors, 3 route), and whether the selected route is open. */
	size_t req_sel, req_top;
	int req_sort;
	bool req_open;

	/* Incidents screen: the selected incident (0: the newest), the first shown, whether the
	 * selected one is open. */
	size_t inc_sel, inc_top;
	bool inc_open;
	uint64_t inc_seen_total;       /* incidents_total when the screen was last drawn */
};

/* What an action returns for a key it does not take after all (the shared T on the screen
 * it opens): the screen's own keys get it next, then nothing; distinct from VA_NONE, "taken,
 * nothing changed". */
#define VIEW_UNHANDLED ((enum view_action)-1)
#define VIEW_BINDING_KEYS 12

/* One row of a key table: the codes it binds, what help's KEYS list says of them and where,
 * and what they do. The view dispatches and help lists from the same rows, so that the two
 * cannot disagree. */
struct binding {
	int keys[VIEW_BINDING_KEYS]; /* the codes (0 ends them): unlisted alternatives too */
	const char *label;           /* as help shows it; NULL: not listed */
	const char *help;
	/* Its place in help's KEYS list, from 1; 0: a line of the screen's own help section (a
	 * row without keys is only that: a part of the screen explained). */
	int rank;
	enum view_action (*act)(struct view *v, const struct model *m, int key);
};

struct screen {
	const char *name;
	/* Draws the screen into g (cleared, at least 1x1). */
	void (*draw)(struct view *v, const struct model *m, struct grid *g, double now_wall_s);
	/* A key the prompt did not take (nor, with shared_keys, view.c's keys shared by every
	 * screen) goes to the row of bindings[] that lists it; none: VA_NONE. */
	const struct binding *bindings;
	size_t n_bindings;
	bool shared_keys;
	/* The title of its section in help (its rows of rank 0), and the section's place after
	 * KEYS, from 1; 0: none. */
	const char *help_title;
	int help_section;
	/* The key bars it draws at the bottom (NULL-terminated): every key they name is one of
	 * its bindings or the shared ones (test_view.c reads them). */
	const char *const *key_bars;
};

extern const struct screen screen_table, screen_detail, screen_help, screen_memory, screen_evloop,
	screen_all, screen_requests, screen_incidents;

/* view.c: the keys every screen with shared_keys takes, and the screens in order (NULL
 * past the last). */
extern const struct binding view_shared_bindings[];
extern const size_t view_n_shared_bindings;
const struct screen *view_screen_at(size_t i);
/* The row of b[0..n) that lists key, or NULL. */
const struct binding *view_binding_find(const struct binding *b, size_t n, int key);

/* view.c: shared helpers. */
const struct func_info *view_func(const struct model *m, uint32_t func);
const char *view_func_name(const struct model *m, uint32_t func);
/* "path:line" (1-based line), or "path:line:col" with with_column; "" for none. */
void view_func_location(const struct model *m, uint32_t func, bool with_column, char *out,
	size_t outsz);
/* Node's or V8's own code (functab_is_internal()): dimmed, and hidden by i. */
bool view_func_internal(const struct model *m, uint32_t func);
bool view_contains_ci(const char *hay, const char *needle);
bool view_row_matches(const struct model *m, uint32_t func, const char *needle);
void view_fmt_time(double us, char *out, size_t outsz);
void view_fmt_pct(double pct, char *out, size_t outsz);
enum grid_attr view_heat(double pct);
/* The label of a mode's window for headings: "1s", "avg 5s", "all". */
void view_mode_label(const struct model *m, enum model_mode mode, char *out, size_t outsz);
/* Puts text in cols columns; too long text ends (or, with from_left, starts) with an
 * ellipsis. Returns the columns written. */
int view_put_fit(const struct view *v, struct grid *g, int x, int y, enum grid_attr attr,
	const char *text, int cols, bool from_left);
/* Puts text at (x, y); returns the column after it. */
int view_put_at(struct grid *g, int x, int y, enum grid_attr attr, const char *text);
/* Right-aligns text in cols columns. */
void view_put_right(struct grid *g, int x, int y, enum grid_attr attr, const char *text, int cols);
/* The two bottom lines: status (the prompt, the view's message or the model's status) and
 * the key bar. Returns the first line they use. */
int view_draw_bottom(struct view *v, const struct model *m, struct grid *g, const char *keys);
/* Where the status line goes for a grid height (-1: none). */
int view_status_line(int height);

/* view_table.c */
void view_table_build(struct view *v, const struct model *m);
void view_table_freeze(struct view *v, const struct model *m);
bool view_search_next(struct view *v, const struct model *m, bool backwards);
void view_column_heading(const struct view *v, const struct model *m, enum view_column c,
	char *out, size_t outsz);

/* view_detail.c */
void view_detail_open(struct view *v, uint32_t func, bool push);

/* view_memchart.c */
/* "812.3M": bytes with one decimal in K, M, G, T (1024-based); "?" when not finite. */
void view_fmt_bytes(double bytes, char *out, size_t outsz);
/* "+12.3M" or "-1.0K": a signed amount of bytes. */
void view_fmt_bytes_signed(double bytes, char *out, size_t outsz);
/* A span of time for labels: "45s", "5m", "4m12s", "1h", "2h30m", "3d02h". */
void view_fmt_span(double s, char *out, size_t outsz);
/* Local time, with seconds when span_s is short and the date when it is long. */
void view_fmt_clock(double t, double span_s, char *out, size_t outsz);
/* The latest reading (NULL before the first, or without memory data). */
const struct mem_sample *view_mem_last(const struct model *m);
/* The right edge of what is drawn: now, the last reading of a series that stopped, or the
 * moment of a pause (v may be NULL: never paused). */
double view_mem_end_s(struct view *v, const struct model *m, double now_wall_s);
/* Heap used over the five minutes before end_s, one block per slot (20 at most). */
void view_mem_sparkline(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int slots, double end_s);
/* The chart in rows y0 .. y0 + plot_rows + 2: the plot, the time axis, its labels and the
 * legend; live puts "now" at the right end. */
void view_mem_chart(const struct view *v, const struct model *m, struct grid *g, int y0,
	int plot_rows, double from_s, double to_s, bool live);

/* view_memory.c */
#define VIEW_ZOOM_KEYS "  1 5m  2 1h  3 24h  4 all  +/- zoom"
/* The charts' zoom, shared by the memory and loop screens: 1-4 pick a span, + (=) and - (_)
 * step. */
#define VIEW_ZOOM_CODES '1', '2', '3', '4', '+', '=', '-', '_'
enum view_action view_zoom_key(struct view *v, const struct model *m, int key);
double view_zoom_from(const struct view *v, double end_s, double first_s);
int view_zoom_title(const struct view *v, struct grid *g, int x, int y, double from_s,
	double to_s);
/* The header's memory line (table screen). */
void view_memory_line(const struct view *v, const struct model *m, struct grid *g, int y,
	double now_wall_s);
/* Opens the heap snapshot confirmation (or says why not). */
enum view_action view_snapshot_ask(struct view *v, const struct model *m);
/* The confirmation's text. */
void view_snapshot_question(const struct model *m, char *out, size_t outsz);
/* The CPU profiler start confirmation (c, with --no-cpu). */
enum view_action view_start_cpu_ask(struct view *v, const struct model *m);
/* a: allocation sampling on or off; on asks first when a full GC would pause over the limit. */
enum view_action view_alloc_ask(struct view *v, const struct model *m);
/* "No target is connected", or a replay's sentence for it (a message's first half). */
const char *view_no_target(const struct model *m);
/* The word for a target that is not there: REPLAY or DISCONNECTED (NULL: connected), and its
 * attribute. view_put_link puts it after a title, two spaces before it; the next x. */
const char *view_link_badge(const struct model *m, enum grid_attr *attr);
int view_put_link(const struct model *m, struct grid *g, int x, int y);
/* "INCIDENTS 3 (I)" at (x, y) when --trigger caught any; returns the column after it. */
int view_put_incidents(const struct model *m, struct grid *g, int x, int y);
void view_alloc_question(const struct model *m, char *out, size_t outsz);
void view_start_cpu_question(const struct model *m, char *out, size_t outsz);

/* view_evloop.c */
/* The header's LOOP line (table screen), when there is a reading. */
void view_evloop_line(const struct model *m, struct grid *g, int y);

#endif
