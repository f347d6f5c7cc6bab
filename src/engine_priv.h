/* engine_priv.h: the engine's state, shared by the engine*.c files: engine.c (connection,
 * dispatch, leaving), engine_window.c (CPU windows), engine_mem.c (memory readings, allocation
 * sampling, heap snapshots) and the others. Private to them. */
#ifndef NTOP_ENGINE_PRIV_H
#define NTOP_ENGINE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "attach.h"
#include "engine.h"
#include "jsonpull.h"
#include "evloop.h"
#include "tseries.h"
#include "heapprof.h"
#include "pause.h"
#include "memseries.h"
#include "profile.h"
#include "session.h"

struct engine_timer;
struct heapsnap;
struct inbox;
struct inbox_msg;
struct inlinefix;

struct engine_mem {
	struct memseries *series;
	struct engine_timer *tick_timer, *alloc_timer;
	bool started;
	bool heap_pending;            /* a getHeapUsage (and detail) round trip is under way */
	double next_detail_s;         /* monotonic time the next detailed reading is due */
	struct mem_sample pending;    /* the reading being completed */
	struct engine_heap_space spaces[16];
	size_t n_spaces;
	bool heap_enabled;            /* HeapProfiler.enable was sent */
	bool alloc_on;
	bool alloc_pending;
	double alloc_next_wall_s;
	bool have_baseline;
	struct alloc_table baseline, latest, by_growth;
	bool alloc_fresh;             /* a profile arrived since the last window */
	char *alloc_raw;              /* the latest profile's JSON, for saving as .heapprofile */
	size_t alloc_raw_len;
	struct heapsnap *snap;
	char *snap_path;
	double snap_started_s;
	char *detail_expr;            /* the detail evaluation, with this session's nonce */
	bool gc_installed;            /* a detail evaluation (which installs a GC observer) was sent */
};


/* What an evaluation changes in Node's own state (timers, diagnostics channels, observers) is
 * done later, in a microtask: the inspector runs an evaluation through an interrupt, in the
 * middle of whatever JavaScript the target is running, and Node's timer lists and priority
 * queue are not made to be changed half-way through one of their own operations (a list left
 * in the queue and no longer in the map made processTimers spin for good). A microtask
 * queued there runs where the application's own callbacks may run, when the task in progress
 * ends (at once on an idle target); an async function's, so that a Promise the application
 * replaced is not used; an exception there would be an unhandled rejection: none may leave. */
#define JS_LATER_HEAD "(async function(){await null;try{"
#define JS_LATER_TAIL "}catch(x){}})();"

/* The v8 module in an evaluation, without touching the app's globals (older Node: the command
 * line API's require). */
#define V8_MODULE "(process.getBuiltinModule ? process.getBuiltinModule('v8') : require('v8'))"

/* The inspector this session is to close (engine_door.c). */
struct engine_door {
	bool adopted;                 /* an earlier ntop-js's lease was there: ours to close too */
	bool leased;                  /* the target holds this session's lease */
	bool close_sent;              /* inspector.close() was sent */
	bool close_answered;          /* ...and answered, so it did not close */
	bool closed;                  /* the connection ended after it: the inspector is closed */
	double next_renew_s;
};

/* Messages at least this large are read on a worker thread (inbox.h): about 3 ms of work.
 * The same for both sessions' inboxes (engine.c, engine_second.c). */
#define ENGINE_BIG_MESSAGE_BYTES ((size_t)1 << 20)

enum engine_state { ST_IDLE, ST_CONNECTING, ST_SETUP, ST_RUNNING, ST_LEAVING, ST_DONE };

struct engine {
	struct loop *loop;
	struct attach_result target;
	struct engine_config cfg;
	const struct engine_handlers *h;
	void *ud;
	enum engine_state state;
	struct engine_transport tp;   /* how the target is reached (engine.h) */
	struct engine_clock clock;    /* every time and timer the engine uses */
	void *conn;                   /* the connection tp made, or NULL */
	struct session *sess;
	struct engine_timer *expiry_timer, *leave_timer;
	bool eval_mode;
	char title_prefix[64];        /* the windows' profile titles: this session's own */
	struct functab *ft;
	struct engine_windows *win;   /* the CPU windows' rotation: engine_window.c's own */
	struct window_stats ws;       /* the window being handed over */
	size_t windows_done;
	int fail_status;
	char *fail_why;
	struct engine_mem mem;
	struct engine_evl *evl;       /* event-loop readings: engine_evloop.c's own */
	struct engine_req *req;       /* HTTP requests: engine_requests.c's own */
	struct engine_workers *workers; /* worker threads: engine_workers.c's own */
	struct inbox *inbox;          /* messages on their way in; large ones read on a worker */
	struct inbox_msg *cur;        /* the message being dispatched */
	struct engine_jit *jit;       /* the JIT step's state: engine_jit.c's own */
	bool notify_sent;             /* NodeRuntime.notifyWhenWaitingForDisconnect */
	bool close_when_answered;     /* the leave's end: drop the connection at the last answer */
	bool peer_broken;             /* the peer broke the protocol: nothing more is awaited */
	bool cpu_on;                  /* windows carry profiles (false with --no-cpu) */
	bool cpu_starting;            /* engine_start_cpu() was called: the profiler is starting */
	bool burst_ending;            /* the profile that ends the burst is on its way */
	struct pause_inputs pause_in; /* the heap and code readings taken before the profiler */
	/* The target collects precise coverage (NODE_V8_COVERAGE): a session that enables the
	 * Profiler domain switches V8's coverage back to best effort when it disables it (or
	 * closes), wiping the counts, and console.profile() reaches Node's coverage session too,
	 * which prints every profile to the target's stderr. So no CPU profiler for it. */
	bool target_coverage;
	bool cpu_off_for_coverage;    /* cfg.no_cpu was set for it (a re-attach undoes it) */
	struct engine_door door;
	struct engine_fix *fix;       /* the repair, while it runs: engine_fix.c's own */
	struct engine_second *sec;    /* the coarse sampler's session: engine_second.c's own */
};

/* The injected clock and timers (engine.h's struct engine_clock). */
double engine_mono_s(const struct engine *e);
double engine_wall_s(const struct engine *e);
struct engine_timer *engine_timer_new(struct engine *e, void (*cb)(void *ud));
void engine_timer_arm(struct engine *e, struct engine_timer *t, double delay_s);
void engine_timer_cancel(struct engine *e, struct engine_timer *t);
void engine_timer_free(struct engine *e, struct engine_timer *t);

void engine_fail(struct engine *e, int status, char *why);
/* Fails the calls past their deadline and arms the timer for the next. */
void engine_arm_expiry(struct engine *e);
/* Copies the string member key of obj (data from the target) into out, sanitized and cut to
 * outsz; "" when it is missing or not a string. */
void engine_member_text(struct json_span obj, const char *key, char *out, size_t outsz);
bool engine_reply_ok(struct engine *e, enum session_outcome o, const struct protocol_msg *m,
	const char *what);
void engine_call(struct engine *e, const char *method, const char *params, session_reply_fn cb);
void engine_call_timeout(struct engine *e, const char *method, const char *params,
	double timeout_s, session_reply_fn cb);
void engine_evaluate(struct engine *e, const char *expr, session_reply_fn cb);

/* The message being dispatched, of which m is the envelope: with the profile it carries,
 * parsed already when it was large. */
const struct inbox_msg *engine_msg(const struct engine *e, const struct protocol_msg *m);
/* Asks the target not to wait for ntop-js to disconnect before it exits (once). */
void engine_notify_exit(struct engine *e);
/* Leaving: Profiler.disable, then the JIT's flags put back (engine_jit_leave), then the
 * inspector closed if ntop-js opened it (engine_close_inspector). */
void engine_disable_profiler(struct engine *e);
void engine_close_inspector(struct engine *e);

/* engine_window.c */
void engine_window_new(struct engine *e);
/* A new session of the same engine (--follow): the profiles' titles number from 0 again, no
 * profile is awaited; the counters and call trees go on. */
void engine_window_reset(struct engine *e);
/* No window ends from here on (the session is leaving or over). */
void engine_window_stop(struct engine *e);
void engine_window_free(struct engine *e);
/* The set-up is over: windows and memory readings start (or, after engine_start_cpu(), the
 * windows start carrying profiles). */
void engine_running(struct engine *e);
/* Starts the CPU profiler's set-up (Profiler.enable, the interval, the first window). */
void engine_profiler_begin(struct engine *e);
/* Profiler.consoleProfileFinished (true: m was that event, taken or ignored). */
bool engine_window_event(struct engine *e, const struct protocol_msg *m);
/* The same event from the first session or (second) the coarse sampler's: a window's profile
 * when the window is that session's to read (engine_second_reads). */
void engine_window_profile_event(struct engine *e, const struct protocol_msg *m, bool second);

/* engine_second.c: the coarse sampler's session */
void engine_second_new(struct engine *e);
void engine_second_free(struct engine *e);
/* Forgets the session before a re-attach (--follow). */
void engine_second_reset(struct engine *e);
/* Whether this session opens one: a later interval coarser than the first, a main thread in
 * eval mode without bursts, and a second code listing within --max-pause. */
bool engine_second_wanted(const struct engine *e);
/* Opens it when wanted (its interval set, its profiler enabled), then calls then(e): at once
 * when not wanted, or after a failure (said as a notice: the first interval stays). */
void engine_second_open(struct engine *e, void (*then)(struct engine *e));
/* The windows run: the switch is due after later_after_s. */
void engine_second_running(struct engine *e);
/* A rotation was sent that started window next: the switch, if it is due. */
void engine_second_rotated(struct engine *e, unsigned long long next);
/* True if window's profile is to be read from the second session. */
bool engine_second_reads(const struct engine *e, unsigned long long window);
/* Leaving: its profiler off first. True while that is under way (engine_disable_profiler is
 * called again when it is done). */
bool engine_second_leave(struct engine *e);
/* Closes it at once (a failure, the end). */
void engine_second_close(struct engine *e);
/* Its calls' deadlines (session_expire), for engine_arm_expiry. */
double engine_second_expire(struct engine *e, double now);

/* engine_pause.c */
/* The profiler's start as engine_start_pause_s without a second session, and the code
 * listing a second profiler adds. */
double engine_start_pause_one_s(const struct engine *e);
double engine_listing_pause_s(const struct engine *e);
/* Reads what predicts the profiler's pause, then starts it, holds it back (the live view
 * asks) or refuses (batch), by --max-pause. With no_cpu it only takes the readings. */
void engine_pause_check(struct engine *e);

/* engine_jit.c */
/* Carries out the JIT plan once the first profile runs, then calls engine_running(). */
void engine_jit_start(struct engine *e);
/* True if this session can read the target's scripts for the repair (engine_fix.c). */
bool engine_jit_can_repair(const struct engine *e);
/* At detach, with the profiler off: puts back the flags the plan switched off (and
 * deoptimizes, so that V8 optimizes again with them), then closes the inspector. */
void engine_jit_leave(struct engine *e);
/* At the end of a CPU burst: the same, with the session going on. */
void engine_jit_pause_profiler(struct engine *e);
/* The code that renews the lease on the flags (engine_lease_s), for the window rotation to
 * append to its evaluation ("" when no flags were set). */
void engine_jit_renewal(const struct engine *e, char *out, size_t outsz);
/* The JIT step's state: made with the engine, freed with it. */
void engine_jit_new(struct engine *e);
void engine_jit_free(struct engine *e);
/* Forgets the plan before a re-attach (--follow). */
void engine_jit_reset(struct engine *e);
/* The repair met minified code holding pct % of a window's samples: switches inlining off
 * where the plan allows, else says that inlined functions there stay in their callers. */
void engine_jit_minified(struct engine *e, double pct);

/* --repair-inlining (engine_fix.c): starts repairing (asks for the functions' ranges), repairs
 * a window's profile before it is aggregated, frees what it holds. */
void engine_fix_start(struct engine *e);
void engine_fix_profile(struct engine *e, struct profile *p);
void engine_fix_free(struct engine *e);
/* The pause a best-effort coverage costs (a heap walk), estimated (engine_pause.c). */
double engine_coverage_pause_s(const struct engine *e);

/* engine_door.c */
/* How long a lease in the target (the door's, the JIT flags') outlives its last renewal. */
double engine_lease_s(const struct engine *e);
/* True if this session is to close the inspector: it opened it, or took over its lease. */
bool engine_door_ours(const struct engine *e);
/* The session is set up: install the lease that closes the inspector if ntop-js vanishes. */
void engine_door_open(struct engine *e);
/* At a window: renews the lease when a quarter of it has gone by. */
void engine_door_renew(struct engine *e);
/* Sends inspector.close() if the inspector is ours (a reply, meaning it stayed open, closes
 * the connection). False if not sent. */
bool engine_door_close(struct engine *e);
/* A failure with status ends the session: the close is sent before the connection drops.
 * True while a close is under way (sent now or before, not answered): the target then ends
 * the connection itself, and ntop-js must not end it first (engine_fail says why). */
bool engine_door_close_on_failure(struct engine *e, int status);
/* The connection has ended: after a close that was not answered, the inspector is closed. */
void engine_door_connection_ended(struct engine *e);
/* Forgets the door before a re-attach (--follow). */
void engine_door_reset(struct engine *e);

/* engine_mem.c */
void engine_mem_init(struct engine *e);
void engine_mem_free(struct engine *e);
/* The session is running: start reading memory (and sampling allocations if asked). */
void engine_mem_start(struct engine *e);
/* The session is ending: stop the timers. */
void engine_mem_stop(struct engine *e);
/* ntop-js is leaving politely: removes what the detail evaluation installed in the target (its
 * observer of collections). Call before the last requests of the session, while it still answers. */
void engine_mem_leave(struct engine *e);
/* Forgets the per-connection state before a re-attach (--follow). */
void engine_mem_reset_session(struct engine *e);
/* Events of the HeapProfiler domain. Returns true if the event was one. */
bool engine_mem_event(struct engine *e, const struct protocol_msg *m);

/* engine_workers.c */
void engine_workers_init(struct engine *e);
/* Events of the NodeWorker domain. Returns true if the event was one. */
bool engine_workers_event(struct engine *e, const struct protocol_msg *m);
/* The session runs: ask for the worker threads (cfg.workers). */
void engine_workers_start(struct engine *e);
/* The session ended: every worker's engine hears that its channel closed. */
void engine_workers_session_ended(struct engine *e, const char *why);
void engine_workers_free(struct engine *e);

/* engine_evloop.c */
void engine_evloop_init(struct engine *e);
void engine_evloop_free(struct engine *e);
void engine_evloop_reset_session(struct engine *e);
/* A window's profile: its samples are searched for blocks (trim as for the window). */
void engine_evloop_take_profile(struct engine *e, const struct profile *p, double trim_until_us);
/* Asks for a reading if loop readings are on (eval mode) and none is on its way. */
void engine_evloop_read(struct engine *e);
/* A window is done (e->ws): a reading waiting for its samples goes into the series. */
void engine_evloop_window_done(struct engine *e);
/* At detach: removes what the readings installed in the target. */
void engine_evloop_leave(struct engine *e);

/* engine_requests.c: the same life as engine_evloop.c's, for HTTP requests and calls. */
void engine_requests_init(struct engine *e);
void engine_requests_free(struct engine *e);
void engine_requests_reset_session(struct engine *e);
void engine_requests_read(struct engine *e);
void engine_requests_leave(struct engine *e);

#endif
