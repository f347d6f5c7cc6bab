/* report.h: batch-mode output for one window: a text report like `top -b`, or one JSON
 * object per line. The JSON fields are a public interface documented in ntop-js.1: later
 * versions add fields, never rename them. */
#ifndef NTOP_REPORT_H
#define NTOP_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct window_stats;
struct cumulative;
struct functab;
struct func_info;
struct contention_window;
struct req_window;
struct mem_sample;
struct mem_growth;
struct alloc_table;
struct engine_jit_info;
struct engine_block;

struct report_target {
	int pid;                  /* 0 if unknown (attached with --port to a foreign process) */
	const char *node_version; /* "v20.20.2" */
	const char *title;
	/* A worker thread's report (engine.h's struct engine_worker_info): its name (NULL for the
	 * main thread's report) and threadId (-1: not known). */
	long thread_id;
	const char *thread_name;
	/* A target in a container (another PID or network namespace): its PID in there. */
	bool container;
	int container_pid;
};

struct report_window {
	double time_s;            /* wall clock (unix seconds) at the end of the window */
	double window_ms;         /* wall length of the window on the profile clock */
	double interval_us;       /* sampling interval in force */
	size_t top_n;             /* how many functions to list */
	/* Memory, when read (NULL otherwise): the latest reading, the growth, and an allocation
	 * profile fetched since the last window. */
	const struct mem_sample *mem;
	const struct mem_growth *growth;
	const struct alloc_table *alloc;
	/* What was done to the target's JIT (NULL: not known yet). */
	const struct engine_jit_info *jit;
	/* The CPU profiler is not running (--no-cpu): the window has memory only. */
	bool cpu_off;
	/* ...because the target collects precise coverage (engine_cpu_refused) */
	bool cpu_off_coverage;
	/* The event loop's latest reading (NULL: none, as with --no-eval). */
	const struct evloop_reading *evloop;
	/* Blocked-loop events confirmed since the last window (engine.h), oldest first. */
	const struct engine_block *blocks;
	size_t n_blocks;
	/* ...because it runs in bursts (--cpu-every): seconds to the next one, else NAN. */
	double next_burst_in_s;
	/* HTTP requests and calls finished in the window (requests.h); NULL: not read (--no-eval,
	 * a worker thread): no "requests" key. */
	const struct req_window *requests;
	/* The CPU it could not get in the window (contention.h: run-queue wait, cgroup throttling
	 * and quota); NULL: not read (a worker thread, whose kernel thread is not known). */
	const struct contention_window *contention;
	/* Predicted pauses of the target (pause.h), in seconds; NAN when unknown: the CPU
	 * profiler's start with the JIT step, and a full GC (each allocation-profile fetch). */
	double start_pause_est_s, gc_pause_est_s;
	/* The worker threads' latest windows, as report_json_thread() objects joined by commas
	 * ("" for none yet); NULL when workers are not watched (no "threads" key). */
	const char *threads_json;
	/* The other processes' latest windows (--pid given again, --children, --match), as
	 * report_json_process() objects joined by commas; NULL: one process (no key). */
	const char *processes_json;
};

/* Blocked-loop events as a JSON array of {"time", "ms", "lag_ms", "function", "share_pct",
 * "stack"} (the window's "blocks", an incident's). */
void report_json_block_list(struct strbuf *out, const struct engine_block *blocks, size_t n,
	const struct functab *ft);

/* One window as a JSON object and a newline; with a type, the object starts with
 * "type":TYPE (the --log file's records), else it is the -b --json line. */
void report_json_window(struct strbuf *out, const char *type, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft);
/* A worker thread's window as an object of the main line's "threads" array: the same keys
 * as a window's, with thread_id and thread_name first; no newline. */
void report_json_thread(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft);
/* Another process's window as an object of the main line's "processes" array: the same keys
 * as a window's (its pid in target, its own threads), no newline. */
void report_json_process(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft);
/* "function":NAME,"url":URL,"line":LINE of a function (fi NULL: an unknown one), and
 * "original" where a source map puts it: the fields that name a function in every list of the
 * JSON output (--diff's too). */
void report_json_func_fields(struct strbuf *out, const struct func_info *fi);
/* Text: a worker's report names its thread in the header line. */
void report_text_window(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft);

#endif
