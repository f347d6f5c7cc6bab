/* engine.h: the profiling engine. It owns the websocket and the protocol session to one
 * target, runs back-to-back CPU windows, turns each window's profile into statistics, and
 * leaves the target as it found it.
 *
 * Windows do not stall the target: Profiler.start makes V8 re-log every compiled function on
 * the main thread (~100 ms on a 20,000-function app), but only when no profile is running.
 * So the engine starts window k+1's profile before it ends window k's, through the inspector's
 * own console (console.profile, unreachable to the app's overrides), and V8's profiler stays
 * alive for the whole session. The overlap is trimmed by sample timestamps, so windows are
 * gapless and disjoint. With --no-eval it falls back to Profiler.start/stop per window. */
#ifndef NTOP_ENGINE_H
#define NTOP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blockscan.h"
#include "jitplan.h"

struct loop;
struct attach_result;
struct window_stats;
struct cumulative;
struct functab;
struct calltree;
struct engine;
struct smapcache;
struct memseries;
struct mem_sample;
struct alloc_table;
struct transport_handlers;
struct engine_timer;
struct evloop_reading;
struct tseries;
struct engine_transport;

struct engine_config {
	double delay_s;
	long interval_us;
	long later_interval_us;   /* > interval_us: the sampling interval after later_after_s
	                           * (a second session, engine_second.c); 0: interval_us always */
	double later_after_s;
	bool no_eval;
	bool no_cpu;              /* never start the CPU profiler unless engine_start_cpu() */
	enum jit_method jit_method; /* how inlined functions get their time (jitplan.h) */
	double max_pause_s;       /* the longest pause the profiler's start may cause unasked */
	bool ask_pause;           /* over it: hold the profiler back (on_cpu_held), else refuse */
	double cpu_every_s;       /* > 0: the profiler runs one window (a burst) every so often */
	double timeout_s;
	long iterations;          /* 0: until engine_stop() */
	size_t max_message_bytes;
	size_t calltree_max_samples; /* 0: keep no call tree */
	double mem_interval_s;       /* memory reading every so often; 0: none */
	double mem_detail_interval_s;/* external memory and heap spaces (needs eval) */
	bool evloop;                 /* event-loop readings every window (eval mode only) */
	bool requests;               /* HTTP requests and calls every window (eval mode only) */
	double block_ms;             /* a task that holds the loop this long is a block (0: off) */
	bool workers;                /* report the target's worker threads (on_worker) */
	bool worker;                 /* a worker thread's engine (engine_workers.c): V8's flags are
	                              * the process's, set by the main thread's engine, so only
	                              * this isolate's code is deoptimized; and the worker is not
	                              * asked to wait for ntop-js when it exits */
	bool alloc;                  /* start allocation sampling at once */
	double alloc_interval_s;     /* between allocation profile fetches */
	struct smapcache *smap;      /* the target's source maps (borrowed; NULL: none): every
	                              * function is looked up once (origins.h) */
};

struct engine_heap_space {
	char name[48];
	double used_bytes, size_bytes;
	double first_used_bytes;     /* at the first reading of this space */
};

/* What the session did to the target's JIT so that inlined functions keep their own rows. */
struct engine_jit_info {
	bool exact;           /* inlined functions have their own rows (else: may be in callers) */
	const char *caveat;   /* when not exact: why ("--leave-jit", "--no-eval", ...) */
	const char *flags;    /* V8 flags set for the session ("" for none) */
	bool deopt;           /* all code was deoptimized once at attach */
	double pause_ms;      /* how long that took, as seen from ntop-js */
	bool repaired;        /* exact by the repair of the profiles (no flag set: jitplan.h) */
};

/* A worker thread of the target (engine_workers.c). */
struct engine_worker_info {
	long thread_id;              /* worker_threads' threadId; -1 if Node's title lacks it */
	char name[128];              /* the Worker's name option (sanitized; may be "") */
	char url[512];               /* its script */
};

struct engine_handlers {
	/* A window is complete: w is valid until the next window. */
	void (*on_window)(void *ud, const struct window_stats *w, double wall_time_s);
	/* Something worth telling the user that does not end the session. */
	void (*on_notice)(void *ud, const char *msg);
	/* The session is over and the target has been left; status is an enum ntop_exit and why
	 * is NULL on a clean end. */
	void (*on_finished)(void *ud, int status, const char *why);
	/* A memory reading was added to the series (may be NULL). */
	void (*on_memory)(void *ud, const struct mem_sample *m);
	/* The target's major collections since the last memory detail reading (eval mode): the
	 * heap used after each, ago_s[i] seconds before end_s (ago_s NULL: not told), over the
	 * dur_s seconds before end_s; dur_s < 0: the observer was (re)installed at end_s. What the
	 * growth rule fits (memseries_add_post_gc); --log keeps it for --replay (may be NULL). */
	void (*on_post_gc)(void *ud, double end_s, double dur_s, const double *used,
		const double *ago_s, size_t n);
	/* An allocation profile arrived (may be NULL). */
	void (*on_alloc)(void *ud);
	/* A heap snapshot ended; msg says where it went and how long the target paused. */
	void (*on_snapshot)(void *ud, bool ok, const char *msg);
	/* The profiler's start would pause the target for about pause_s, over max_pause_s: the
	 * session runs with memory only until engine_start_cpu() (may be NULL). */
	void (*on_cpu_held)(void *ud, double pause_s);
	/* With cfg.workers: a worker thread started (or was running at attach); tp reaches it
	 * through this engine's session, for an engine of its own (engine_create, engine_start)
	 * until it exits (that engine then finishes, status EXIT_TARGET_GONE). The transport
	 * needs this engine alive: free the workers' engines first. May be NULL. */
	void (*on_worker)(void *ud, const struct engine_worker_info *w,
		const struct engine_transport *tp);
};

/* How the engine reaches its target: one connection at a time, conn being what connect
 * returned. engine_io_websocket() gives the real one (transport.h); tests script their own. */
struct engine_transport {
	/* Starts connecting; the outcome comes through h (transport.h), on_closed at most once.
	 * Returns NULL with *cause if the attempt cannot even start. */
	void *(*connect)(void *ctx, const struct attach_result *target, size_t max_message_bytes,
		const struct transport_handlers *h, void *ud, char **cause);
	/* Queues one text message. Returns -1 if the connection is not open. */
	int (*send)(void *conn, const char *data, size_t len);
	/* Only inside on_message: the message's malloc'd buffer, or NULL (the inbox copies it). */
	char *(*take_message)(void *conn);
	/* True if the connection was ended for a message over max_message_bytes. */
	bool (*too_large)(const void *conn);
	/* Asks for a clean close; on_closed follows. */
	void (*close)(void *conn);
	void (*free)(void *conn);
	void *ctx;
};

/* The engine's time: the monotonic and wall clocks, and one-shot timers with loop.h's
 * semantics (arming again re-arms). Injected so that tests move time themselves. */
struct engine_clock {
	double (*mono_s)(void *ctx);
	double (*wall_s)(void *ctx);
	struct engine_timer *(*timer_create)(void *ctx, void (*cb)(void *ud), void *ud);
	void (*timer_arm)(struct engine_timer *t, double delay_s);
	void (*timer_cancel)(struct engine_timer *t);
	void (*timer_free)(struct engine_timer *t);
	void *ctx;
};

/* The real ones (engine_io.c): transport.h's websocket, and loop.h's timers with util.h's
 * clocks, on the loop l (created with transport_protocol()). */
void engine_io_websocket(struct loop *l, struct engine_transport *tp, struct engine_clock *clock);

/* l serves the inbox's worker; tp and clock are copied. */
struct engine *engine_create(struct loop *l, const struct engine_transport *tp,
	const struct engine_clock *clock, const struct attach_result *target,
	const struct engine_config *cfg, const struct engine_handlers *h, void *ud);
void engine_free(struct engine *e);
/* Connects and starts profiling. Returns -1 with *cause if the connection cannot start. */
int engine_start(struct engine *e, char **cause);
/* After the session ended (on_finished), attaches to a new target while keeping everything
 * collected so far (--follow). Returns -1 with *cause if the connection cannot start. */
int engine_restart(struct engine *e, const struct attach_result *target, char **cause);
/* With no_cpu: starts the CPU profiler now (its attach pause included); the windows carry
 * profiles once it runs. Returns -1 with *cause if it cannot start. */
int engine_start_cpu(struct engine *e, char **cause);
/* Once the session has ended: true if the inspector this session was to close (it opened
 * it, or took over the lease of an earlier ntop-js) may still be open, because no close
 * reached the target over a working connection. NULL: false. */
bool engine_inspector_left_open(const struct engine *e);
/* True, with the sentence in *cause (the caller frees it; cause may be NULL), where the CPU
 * profiler must not run for this target: it collects precise coverage (NODE_V8_COVERAGE),
 * which V8 ends when a session that enabled its profiler leaves. */
bool engine_cpu_refused(const struct engine *e, char **cause);
/* Windows carry profiles; the profiler is starting (after engine_start_cpu()). */
bool engine_cpu_on(const struct engine *e);
bool engine_cpu_starting(const struct engine *e);
/* With cpu_every_s: seconds until the next burst is due (0 while one starts), NAN while one
 * runs or without bursts. */
double engine_next_burst_in_s(const struct engine *e);
/* Predicted pauses (pause.h) with the latest heap reading: the profiler's start (with the
 * JIT step's deoptimization when it will do one), and a full GC. NAN when unknown. */
double engine_start_pause_s(const struct engine *e);
double engine_gc_pause_s(const struct engine *e);
double engine_max_pause_s(const struct engine *e);
/* Leaves the target cleanly (stops profiling, closes an inspector ntop-js opened); on_finished
 * follows. Safe to call more than once. */
void engine_stop(struct engine *e);

const struct functab *engine_functab(const struct engine *e);
/* The sampling interval of the windows now (cfg.interval_us, later cfg.later_interval_us). */
long engine_interval_us(const struct engine *e);
/* The same table, to name functions the session has not met yet (a saved baseline's, that
 * the view shows as lost): main thread only, as the engine's own interning is. */
struct functab *engine_functab_names(struct engine *e);
const struct cumulative *engine_cumulative(const struct engine *e);
/* The call tree since attach (NULL when none is kept), with the last window merged in. */
const struct calltree *engine_calltree(struct engine *e);
/* The last window's call tree alone (NULL when no call tree is kept), built when first asked
 * for after each window. */
const struct calltree *engine_window_calltree(struct engine *e);
/* Forgets the cumulative counters and call tree ("since attach" becomes "since now"). */
void engine_reset_cumulative(struct engine *e);
size_t engine_windows_done(const struct engine *e);

/* The latest event-loop reading (evloop.h), or NULL before the first. */
const struct evloop_reading *engine_evloop_last(const struct engine *e);
/* The readings over time (evloop.h's enum evloop_metric), or NULL before the first. */
const struct tseries *engine_evloop_series(const struct engine *e);

/* HTTP requests and calls (requests.h): the latest reading's, once; NULL when no new one came
 * since the last call (or requests are not read). And since attach (NULL: none yet). */
struct req_window;
bool engine_requests_on(const struct engine *e);
const struct req_window *engine_requests_take(struct engine *e);
const struct req_window *engine_requests_totals(const struct engine *e);

/* Blocked-loop events (blockscan.h), numbered from 0 in the order they were confirmed; the
 * latest ENGINE_BLOCKS_KEPT are kept. */
#define ENGINE_BLOCKS_KEPT 64
struct engine_block {
	struct evloop_block b;
	double wall_s;               /* when it began, unix time */
};
/* How many were confirmed since the engine was created. */
uint64_t engine_blocks_count(const struct engine *e);
/* Block number i, or NULL if it is no longer kept (or not yet confirmed). */
const struct engine_block *engine_block_get(const struct engine *e, uint64_t i);
/* The threshold blocks are looked for with, in ms; 0 when they are not (--no-eval, or
 * --block-threshold 0). */
double engine_block_threshold_ms(const struct engine *e);

/* Memory (engine_mem.c). */
const struct memseries *engine_memseries(const struct engine *e);
const struct engine_heap_space *engine_heap_spaces(const struct engine *e, size_t *n);
void engine_set_alloc(struct engine *e, bool on);
bool engine_alloc_on(const struct engine *e);
double engine_alloc_next_wall_s(const struct engine *e);
double engine_alloc_interval_s(const struct engine *e);
/* The latest allocation profile (growth against the first), by live bytes and by growth;
 * NULL before the first. */
const struct alloc_table *engine_alloc_latest(const struct engine *e);
const struct alloc_table *engine_alloc_by_growth(const struct engine *e);
/* True once, after an allocation profile arrived (for batch output of that window). */
bool engine_alloc_take_fresh(struct engine *e);
/* The latest allocation profile as V8 sent it (a .heapprofile), or NULL. */
const char *engine_alloc_raw(const struct engine *e, size_t *len);
/* Starts a heap snapshot into path. Returns -1 with *cause if it cannot start. */
int engine_heap_snapshot(struct engine *e, const char *path, char **cause);
bool engine_snapshot_running(const struct engine *e);
size_t engine_windows_late(const struct engine *e);
/* What was done to the target's JIT (valid once the first window is under way). */
void engine_jit_info(const struct engine *e, struct engine_jit_info *out);

#endif
