/* tui.h: the live view's controller: it feeds the engine's windows to the model, the keys to
 * the view, and the view's grid to the terminal. */
#ifndef NTOP_TUI_H
#define NTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct engine;
struct attach_result;
struct view_settings;
struct window_stats;
struct tui;

struct tui_actions {
	void (*quit)(void *ud);
	void (*save)(void *ud);   /* the app saves and reports through tui_status() */
	void (*reset)(void *ud);  /* the app resets the engine's cumulative data */
	void (*settings_changed)(void *ud, const struct view_settings *s);
	void (*alloc_toggle)(void *ud);
	void (*snapshot)(void *ud);   /* the user confirmed a heap snapshot */
	void (*start_cpu)(void *ud);  /* the user confirmed starting the CPU profiler */
	void (*thread_next)(void *ud);/* t: the app shows the next thread (tui_show_thread) */
	/* The detail screen's hot lines: the text of line line1 (V8's, 1-based) of function func
	 * of engine e's table, and its place (where: in the original source when a source map
	 * says so, unless generated); note gets a sentence about the function's source map, or "". False when there
	 * is no text. NULL: none shown. */
	bool (*line_text)(void *ud, struct engine *e, uint32_t func, uint32_t line1, bool generated,
		char *where, size_t where_cap, char *text, size_t text_cap, char *note, size_t note_cap);
};

/* Opens the terminal and starts drawing. Returns NULL with *cause on failure. */
struct tui *tui_create(struct loop *l, struct engine *e, const struct attach_result *target,
	double delay_s, long interval_us, bool cpu_off, const struct view_settings *settings,
	const struct tui_actions *actions, void *ud, char **cause);
/* Restores the terminal and frees t (NULL: nothing). */
void tui_free(struct tui *t);
/* Only restores the terminal, if it is in curses mode: for a fatal error's exit path, where
 * no tui may exist and nothing else may be freed. */
void tui_restore_terminal(void);
void tui_on_window(struct tui *t, const struct window_stats *w, double window_ms);
/* --baseline FILE: the main thread's rows are compared with the profile w (aggregated whole,
 * with table ft; both borrowed for the tui's life) from now on, until b drops it; name is the
 * file's, for the status line. */
struct functab;
void tui_set_file_baseline(struct tui *t, const struct window_stats *w,
	const struct functab *ft, const char *name);
/* The CPU the shown engine's thread could not get in the window about to come
 * (tui_on_window); NULL: not known. */
struct contention_window;
void tui_on_contention(struct tui *t, const struct contention_window *k);
/* The HTTP requests and calls of that window (requests.h; NULL: not read). */
struct req_window;
void tui_on_requests(struct tui *t, const struct req_window *w, double window_ms);
struct model_thread;
/* The target's worker threads, for the THREADS line (more: left out beyond the model's room). */
void tui_on_threads(struct tui *t, const struct model_thread *th, size_t n, size_t more);
/* The screens show the thread whose engine is e from now on: thread_id 0 and name NULL for
 * the main thread. The caller feeds that engine's windows (tui_on_window) and keeps it alive
 * while it is shown. */
void tui_show_thread(struct tui *t, struct engine *e, long thread_id, int pid,
	const char *name);
/* The table across threads and processes (T), as model_all_begin/add/end: each one's latest
 * window, named by source ("main", "3 pool", "pid 1240"); drawn with the next redraw. */
void tui_all_begin(struct tui *t, bool processes);
void tui_all_add(struct tui *t, const char *source, const struct window_stats *w,
	const struct functab *ft);
void tui_all_end(struct tui *t);
void tui_status(struct tui *t, bool is_error, const char *msg);
/* An incident was written (or, in --replay, read from the log). */
struct incident_summary;
void tui_on_incident(struct tui *t, const struct incident_summary *s);
/* --replay: how many incidents the log held, when more than the ones given. */
void tui_set_incidents_total(struct tui *t, unsigned long long total);
/* The profiler was held back: its start would pause the target for about pause_s. Shows the
 * memory screen and asks whether to start it. */
void tui_ask_start_cpu(struct tui *t, double pause_s);
void tui_set_connected(struct tui *t, bool connected);
/* The terminal changed size (SIGWINCH). */
void tui_resize(struct tui *t);
/* A memory reading arrived (the series, spaces and allocation tables are read from the
 * engine); growth is over the configured window. Redraws only with the next window. */
struct mem_growth;
void tui_on_memory(struct tui *t, const struct mem_growth *growth, double growth_window_s,
	bool no_eval);
/* Replay: show this series (not the engine's) on the memory screen. */
struct memseries;
void tui_show_replay(struct tui *t, const struct memseries *s);
/* Redraw now (after an allocation profile or a snapshot). */
void tui_redraw(struct tui *t);
/* After the engine's cumulative data was reset. */
void tui_after_reset(struct tui *t);

#endif
