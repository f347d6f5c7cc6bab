/* model.h: what the views show. The app updates it from the engine; views only read it.
 * No curses, no sockets, no JSON here. */
#ifndef NTOP_MODEL_H
#define NTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blockscan.h"
#include "evloop.h"
#include "incident.h"

struct functab;
struct window_stats;
struct cumulative;
struct calltree;
struct memseries;
struct tseries;
struct alloc_table;

#define MODEL_BLOCKS_MAX 64
#define MODEL_INCIDENTS_MAX 32

enum model_mode {
	MODE_WINDOW,     /* the last window */
	MODE_DECAYED,    /* an exponentially decayed average (half-life model.half_life_s) */
	MODE_CUMULATIVE, /* since attach or the last reset */
	MODE_COUNT
};

struct model_row {
	uint32_t func;
	double self_pct, total_pct; /* of the mode's sampled time, 0-100 */
	double self_us, total_us;   /* cumulative since attach or reset */
	/* With a pinned baseline (b): self_pct and total_pct minus the function's shares in it,
	 * in points (a function new since has its whole share); NAN without one. */
	double dself_pct, dtotal_pct;
};

/* A function of the baseline with at least this self or total share there gets a row when it
 * has no time now (a function that is gone, or that a fix made idle), with its whole share as
 * a loss. */
#define MODEL_BASELINE_GONE_PCT 0.1

/* A worker thread of the target, for the THREADS line (the main thread is the rest of the
 * model). */
#define MODEL_THREADS_MAX 64
struct model_thread {
	long thread_id;             /* 0: the main thread; -1: not known */
	char name[64];
	bool have_window;           /* busy_pct is from a profiled window */
	double busy_pct;            /* of its last window's samples, not idle; NAN before one */
	double heap_used_bytes;     /* NAN before a reading */
	bool exited;
	bool shown;                 /* the table and screens show this thread */
	int pid;                    /* another process's main thread (--pid again, --children,
	                               --match), or the main process's when there are others;
	                               0: a thread of the one process */
};

/* A row of the table across every thread and process watched (T): one function of one of
 * them in its latest window, with the text already made safe. */
#define MODEL_ALL_ROWS_MAX 400
struct model_all_row {
	char source[40];            /* "main", "3 pool", "pid 1240" */
	char name[96];
	char where[128];            /* "server.js:12" */
	double self_pct, total_pct; /* of that thread's window: percent of one core */
	bool internal;              /* Node's or V8's own code */
};

struct model_split {
	double js_pct, gc_pct, program_pct, idle_pct;
};

struct model {
	/* The target. */
	int pid;
	int container_pid;            /* its PID inside its container; 0: not in one */
	char title[256];
	char node_version[32];
	double attached_wall_s;
	/* Sampling state. */
	double delay_s;
	long interval_us;
	size_t windows, windows_late;
	double last_window_ms;
	size_t last_samples;
	/* The CPU the shown thread could not get in its last window (contention.h), in ms: its
	 * run-queue wait and its cgroup's throttled time; the quota in cores (INFINITY: none).
	 * NAN: not known (a worker thread, a target reached by --port). */
	double runqueue_wait_ms, throttled_ms, throttled_periods_pct, quota_cores;
	/* HTTP in the shown engine's last window (requests.h): inbound requests a second, their
	 * p99 and error share, the route with the highest p99, and outbound calls; have_requests
	 * once any request or call was seen (the REQ line stays). NAN: none in the window. */
	bool have_requests;
	double req_per_s, req_p99_ms, req_errors_pct, calls_per_s, calls_p99_ms;
	char req_slowest[96];
	double req_slowest_p99_ms;
	/* what the slowest route waits on most, and the share of its time (NAN: not known) */
	char req_slowest_wait[80];
	double req_slowest_wait_pct;
	/* The requests screen's rows: the last window's (over req_window_ms) and those since
	 * attach (over req_since_s), borrowed from the engine (NULL: none); requests_read: the
	 * shown engine reads them (the main thread, without --no-eval and --no-requests). */
	const struct req_window *req_last, *req_total;
	double req_window_ms, req_since_s;
	bool requests_read;
	bool connected;
	/* --replay: a log shown, no target behind it (never connected, nothing to ask of it) */
	bool replay;
	/* --no-cpu: windows carry no profile until the user starts the profiler (c). */
	bool cpu_off;
	bool cpu_starting;
	/* ...and why c cannot start it for this target ("": it can) */
	char cpu_refused[160];
	/* The event loop's latest reading (eval mode), when have_evloop. */
	bool have_evloop;
	struct evloop_reading evloop;
	/* The target's threads (app_watch.c), when workers are watched: the main thread first,
	 * then each worker; the one the screens show (0: the main thread) and its name. */
	bool threads_watched;
	long shown_thread_id;
	char shown_thread_name[64];    /* ...or, when shown_pid, that process's title */
	int shown_pid;                 /* the screens show another process than pid; 0: not */
	struct model_thread threads[MODEL_THREADS_MAX];
	size_t n_threads, threads_more;  /* more: beyond MODEL_THREADS_MAX */
	/* The table across all of them (T), sorted by self_pct, owned here; all_processes: the
	 * sources are processes (else threads of one), all_sources how many had a window. */
	struct model_all_row *all;
	size_t n_all, all_cap, all_sources;
	bool all_processes;
	/* The readings over time (evloop.h's enum evloop_metric); NULL before the first. */
	const struct tseries *evloop_series;
	/* Blocked-loop events (blockscan.h): the latest MODEL_BLOCKS_MAX, oldest first, and how many
	 * there were since attach; block_threshold_ms 0 when they are not looked for. */
	struct model_block {
		struct evloop_block b;
		double wall_s;             /* when it began */
	} blocks[MODEL_BLOCKS_MAX];
	size_t n_blocks;
	uint64_t blocks_total;
	double block_threshold_ms;
	double next_burst_in_s;        /* --cpu-every, between bursts: when the next starts; NAN */
	double cpu_pause_s;            /* what starting it would pause the target; NAN unknown */
	double gc_pause_s;             /* what a full GC (an allocation-profile fetch) would */
	double max_pause_s;            /* --max-pause: over it, a and c ask first */
	/* Inlined functions may be charged to their callers (the JIT was left as it was). */
	bool inlined_in_callers;
	char inlining_caveat[48];      /* why not: "--leave-jit", "--no-eval", ... */
	/* g: names and places as V8 gives them, not as the source maps trace them back. */
	bool show_generated;
	/* The text of the detail screen's hot lines (tui.c asks the app for it), for detail_func:
	 * each line's place (in the original source when mapped) and text, made safe; and one
	 * sentence on the function's source map ("" when there is nothing to say). */
#define MODEL_LINE_TEXTS 12
	uint32_t line_text_func;
	struct model_line_text {
		uint32_t line;          /* V8's, 1-based */
		char where[96];         /* "pricing.ts:16" */
		char text[240];
	} line_text[MODEL_LINE_TEXTS];
	size_t n_line_text;
	char map_note[200];
	/* Status line: one message, shown until replaced (wall time it was set). */
	char status[256];
	bool status_is_error;
	double status_wall_s;
	/* Data, borrowed from the engine and valid until the next window. */
	const struct functab *ft;
	const struct window_stats *window;
	const struct cumulative *cum;
	const struct calltree *ct;
	/* Decayed averages, owned here: indexed by function. */
	double half_life_s;
	double *dec_self_us, *dec_total_us;
	size_t dec_cap;
	double dec_sampled_us, dec_js_us, dec_gc_us, dec_program_us, dec_idle_us;
	/* Memory. The app fills these; the series and tables are borrowed from the engine. */
	bool have_memory;              /* at least one reading */
	const struct memseries *mem;
	double growth_window_s;        /* --growth-window */
	double growth_heap_bytes_per_hour, growth_rss_bytes_per_hour, growth_span_s;
	int growth_verdict;            /* enum mem_verdict */
	bool growth_significant;       /* the heap rate is told apart from 0 */
	struct model_heap_space {
		char name[48];             /* "old_space", "large_object_space"... */
		double used_bytes, size_bytes;
		double growth_bytes;       /* used now minus used at the first reading of the space */
	} spaces[16];
	size_t n_spaces;
	bool no_eval;                  /* only RSS and heap used/total are read */
	/* Allocation sites (V8's sampling heap profiler). */
	bool alloc_on;
	double alloc_interval_s;
	double alloc_next_wall_s;      /* when the next profile will be fetched */
	const struct alloc_table *alloc;        /* latest, with growth against the first */
	const struct alloc_table *alloc_growth; /* the same sites sorted by growth */
	/* For the heap snapshot confirmation. */
	double sys_mem_available_bytes;
	bool snapshot_running;
	/* Incidents (--trigger live, or the log's records in --replay): the latest
	 * MODEL_INCIDENTS_MAX, oldest first, their text made safe; how many there were. */
	struct incident_summary incidents[MODEL_INCIDENTS_MAX];
	size_t n_incidents;
	uint64_t incidents_total;
	/* A pinned baseline (b): each function's self and total share of the cumulative profile
	 * when it was pinned, indexed by function in the shown thread's table (base_n of them);
	 * what it covered (busy seconds) and when it was pinned. */
	bool have_baseline;
	double *base_self_pct, *base_total_pct;
	size_t base_n;
	double baseline_busy_s, baseline_wall_s;
};

void model_init(struct model *m);
void model_free(struct model *m);
/* Takes a new window (w and the cumulative counters belong to the engine): sets window,
 * last_window_ms and last_samples, counts it in windows, and updates the decayed averages. */
void model_on_window(struct model *m, const struct window_stats *w, double window_ms);
/* Forgets the decayed averages (after a reset of the cumulative counters). */
void model_reset_decay(struct model *m);
/* The last window is no longer valid (the model shows another thread until its next one). */
void model_forget_window(struct model *m);
void model_set_status(struct model *m, bool is_error, double now_wall_s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The table across threads and processes (T): begin, add each one's latest window (source
 * names it: "main", "3 pool", "pid 1240"), end sorts by self share and keeps the top
 * MODEL_ALL_ROWS_MAX. Special nodes ((idle), (program), GC) are left out. */
void model_all_begin(struct model *m, bool processes);
void model_all_add(struct model *m, const char *source, const struct window_stats *w,
	const struct functab *ft);
void model_all_end(struct model *m);

/* func's lines with ticks since attach, hottest first (*out allocated, caller frees); returns
 * the count and the sum of all its ticks. */
struct line_stat;
size_t model_hot_lines(const struct model *m, uint32_t func, struct line_stat **out,
	uint64_t *sum);

/* The rows of a mode: every function with time in it (special nodes excluded), unsorted.
 * Returns the count; *rows is reallocated as needed (caller frees). */
size_t model_rows(const struct model *m, enum model_mode mode, struct model_row **rows,
	size_t *cap);
struct model_split model_split(const struct model *m, enum model_mode mode);

/* Callers and callees of func, from the cumulative call tree: each row's self_pct is the share
 * of func's total time that goes through that caller (or into that callee). */
size_t model_callers(const struct model *m, uint32_t func, struct model_row **rows, size_t *cap);
size_t model_callees(const struct model *m, uint32_t func, struct model_row **rows, size_t *cap);

/* Pins the cumulative profile as the baseline that rows are compared with (false: it has no
 * busy sample to compare with; nothing changes). */
bool model_pin_baseline(struct model *m, double now_wall_s);
/* Sets the baseline from shares of one's own (livebase.h: a saved profile's), indexed by
 * function of the shown thread's table, n of them; takes both arrays (malloc'd). busy_s: the
 * busy CPU it covered. */
void model_set_baseline(struct model *m, double *self_pct, double *total_pct, size_t n,
	double busy_s);
/* Forgets the baseline (b again, or another thread shown: its functions are another table's). */
void model_drop_baseline(struct model *m);
/* An incident: a copy of s, its text made safe, the oldest dropped past MODEL_INCIDENTS_MAX. */
void model_add_incident(struct model *m, const struct incident_summary *s);

/* A window's HTTP requests and calls (requests.h; NULL: none read) into m's REQ figures. */
struct req_window;
void model_on_requests(struct model *m, const struct req_window *w, double window_ms);

#endif
