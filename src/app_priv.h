/* app_priv.h: the program's state, shared by app.c (options, attach, the session, output),
 * app_watch.c (every watched engine) and the app_*.c files beside them. Private to them. */
#ifndef NTOP_APP_PRIV_H
#define NTOP_APP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "app_smap.h"
#include "attach.h"
#include "contention.h"
#include "engine.h"
#include "evloop.h"
#include "memseries.h"
#include "options.h"
#include "report.h"
#include "service.h"
#include "settings.h"
#include "strbuf.h"

struct app_kin;
struct launch;
struct loop;
struct loop_timer;
struct engine;
struct tui;
struct memlog;

/* A call tree's timeline cap: about 12 bytes a sample, 500,000 samples (8 minutes at 1 ms)
 * keep the real timeline (the session's tree, an incident's). */
#define APP_CALLTREE_MAX_SAMPLES 500000

struct app_incident;
struct app_baseline;
struct app_replay;
struct app_watch;

struct app {
	struct options opt;
	struct settings settings;
	char *settings_path;       /* NULL with --no-config */
	struct attach_result target;
	struct launch *launch;
	struct loop *loop;
	struct app_thread *main;   /* the main target's main thread (app_watch.c) */
	struct engine *engine;     /* ...its engine, a->main's */
	struct tui *tui;
	struct strbuf out;
	int status;
	char *why;
	bool finished;
	int signals;
	bool output_broken;
	/* Memory. */
	struct memlog *log;
	struct strbuf line;        /* a log record being built */
	/* --follow (app_follow.c): waiting for the target to come back. */
	struct app_follow *follow;
	bool following;
	/* Worker threads and other processes (app_watch.c): an engine each, with the main engine's
	 * configuration and clock; stopping: they leave first, then the main engine. */
	struct app_smap *smap;        /* the main process's source maps (NULL: --no-source-maps) */
	struct engine_config engine_cfg;
	struct engine_clock engine_clock;
	struct app_watch *watch;      /* their engines: app_watch.c's own */
	bool stopping;
	size_t windows;               /* the main thread's, for -n */
	struct service_member *members; /* several processes: attached, not yet started */
	size_t n_members, main_member;
	struct app_serve *serve;      /* --serve (app_serve.c) */
	struct app_push *push;        /* --push (app_push.c) */
	struct app_rescan *rescan;    /* a service's new processes (app_rescan.c) */
	bool engine_started;          /* engine_start() succeeded */
	bool door_checked;            /* app_close_left_open() ran */
	struct app_kin *kin;          /* the watched processes' descendants at attach (app_door.c) */
	struct app_incident *incident; /* --trigger (app_incident.c) */
	struct app_baseline *baseline; /* --baseline's profile (app_diff.c) */
	struct app_replay *replay;    /* --replay's log (app_replay.c); NULL: a live session */
};

extern const struct tui_actions app_tui_actions;

/* app.c */
struct window_stats;
/* A target in a container is named by its PID in there too (report.h's container keys). */
void app_container_of(const struct attach_result *t, struct report_target *rt);
/* One window of a watched engine as the report sees it (app_watch.c fills it the same way for
 * every engine); rw points into the rest. */
struct app_window {
	struct report_window rw;
	struct evloop_reading evloop;
	struct engine_block blocks[ENGINE_BLOCKS_KEPT];
	struct engine_jit_info jit;
	struct contention_window contention;
};
/* The main thread's engine, as app_watch.c passes it on: its window (the root of the batch
 * report and the log), a memory reading (the log's record), the end of its session. */
void app_main_window(struct app *a, const struct window_stats *w, struct app_window *win);
void app_main_memory(struct app *a, const struct mem_sample *m);
void app_main_post_gc(struct app *a, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n);
void app_main_finished(struct app *a, int status, const char *why);
void app_say(struct app *a, bool is_error, const char *msg);
void app_log(struct app *a, const char *json, size_t len);
void app_log_attach(struct app *a);
void app_log_exit(struct app *a, const char *why);
void app_on_signal(void *ud, int sig);

/* app_incident.c: --trigger. open: the store opened (a refused --incident-dir:
 * the exit status); on_window: the main thread's windows; end: an
 * incident under way written with what it has (the session ends). */
struct report_window;
int app_incident_open(struct app *a);
void app_incident_on_window(struct app *a, const struct window_stats *w,
	const struct report_window *rw);
void app_incident_end(struct app *a);
void app_incident_free(struct app *a);

/* app_diff.c: --baseline FILE. open: read and checked before the attach (a file that is not
 * a profile: status 2); report: at the end of a batch run, the session's profile against it on
 * stdout (an exit status). */
int app_baseline_open(struct app *a);
int app_baseline_report(struct app *a);
/* The live view compares the main thread with --baseline's profile from its first window. */
void app_baseline_show(struct app *a);
void app_baseline_free(struct app *a);

struct attach_opts;
/* app_rescan.c: with --children, --match or --user, the service is listed again every few
 * seconds and the Node processes that started since are attached and watched (ao: how the
 * first were attached). Call before watch_start_service (it takes the first listing as seen).
 * Free after the loop: an attach still under way is waited for and undone. */
void app_rescan_start(struct app *a, const struct attach_opts *ao);
void app_rescan_free(struct app *a);

/* app_watch.c: every watched engine (the main thread, its workers, other processes and
 * theirs) has the same handlers and report builder. */
struct model_thread;
/* The main target's engine (a->main), created with those handlers; freed after the others. */
struct engine *watch_main(struct app *a, const struct engine_transport *tp,
	const struct engine_clock *clock, const struct attach_result *target,
	const struct engine_config *cfg);
void watch_main_free(struct app *a);
/* The heap growth of engine e's readings (NULL: none yet, or e is not watched). */
const struct mem_growth *watch_growth_of(const struct app *a, const struct engine *e);
/* Several processes (--pid again, --children, --match, --user): attaches them all; the first
 * that attached becomes a->target, the others wait in a->members. Returns EXIT_OK, or the
 * first one's failure (with *cause) when none attached. */
int watch_attach_service(struct app *a, const struct attach_opts *ao, char **cause);
/* Once the main engine has started: the others' engines (watch_add_process), and what failed
 * said once. */
void watch_start_service(struct app *a);
/* Watches another process of the service through its inspector (r from attach_target). */
void watch_add_process(struct app *a, const struct attach_result *r);
/* The other processes watched now (not gone). */
size_t watch_processes_live(const struct app *a);
/* Leaves the target: the workers' engines first, then the main one (a second call does not
 * wait for the workers). */
void watch_stop(struct app *a);
/* The main engine has finished: ends the loop once the other engines (other processes, whose
 * inspectors are open) have left, at once if there are none. */
void watch_end(struct app *a);
/* Its state (before anything else of app_watch.c); watch_free() frees it. */
void watch_create(struct app *a);
/* Its timers (the loop exists); watch_free() frees them and every worker's engine. */
void watch_init(struct app *a);
/* Worker threads and other processes watched now, and other processes ever. */
size_t watch_n_threads(const struct app *a);
size_t watch_n_processes(const struct app *a);
/* The live view shows the main thread (not another one, with t). */
bool watch_shows_main(const struct app *a);
/* The main engine has finished: the stop no longer waits for a grace. */
void watch_main_ended(struct app *a);
/* The workers' and other processes' windows since the last report (and their exits), once
 * each, for the main thread's report: with json, rw's threads_json and processes_json (objects
 * joined by commas; NULL without workers or processes); with text, the text reports returned
 * ("" for none). Valid until the next call. */
const char *watch_report_others(struct app *a, struct report_window *rw, bool json, bool text);
/* What -o and --folded write at exit: the main thread's tree, then each worker's and other
 * process's still listed (export.h); the caller frees the array. */
struct export_source;
struct export_source *watch_export_sources(const struct app *a, size_t *n);
/* The live view's table across threads and processes (T): the main thread's window main_w
 * (NULL when its CPU is off) and each other one's latest. */
void watch_table_all(struct app *a, const struct window_stats *main_w);
/* The threads for the live view's THREADS line: main_thread first, then the workers. */
size_t watch_summary(const struct app *a, const struct model_thread *main_thread,
	struct model_thread *out, size_t max);
/* The live view shows thread th (NULL: the main thread); t shows the next one. The shown
 * engine, and its thread id (0 for the main thread, -1 unknown). */
void watch_show(struct app *a, struct app_thread *th);
void watch_show_next(void *ud);
struct engine *watch_shown_engine(const struct app *a);
long watch_shown_thread_id(const struct app *a);
/* The source maps (and scripts) of the process that engine e watches. */
struct app_smap *watch_smap_of(const struct app *a, const struct engine *e);
/* The PID of the process shown (another one of the service's, or the main target). */
int watch_shown_pid(const struct app *a);
void watch_free(struct app *a);
/* Worker thread or other process i (for --serve's /metrics): its engine (NULL once it has
 * finished), target, thread name ("main" for another process's) and which it is. False past
 * the last. */
bool watch_at(const struct app *a, size_t i, struct engine **e,
	const struct attach_result **target, const char **name, bool *process);
/* Once the loop has ended: closes what the other processes' engines left open (a leave cut
 * short by a second signal or the stop's grace). */
void watch_close_left_open(struct app *a);
/* Whether pid is a process watched by an engine of its own (the main target, another
 * process of the service, or one waiting for its engine). */
bool watch_has_pid(const struct app *a, pid_t pid);

/* app_door.c */
/* Closes the inspectors ntop-js opened that the engines could not close themselves (the main
 * target's, and those of the service's processes still waiting for an engine: once), and
 * those that the watched processes' descendants opened because their parent's did (Node's
 * cluster passes SIGUSR1 on to its workers). */
void app_close_left_open(struct app *a);
/* The same once the loop has ended: also the other processes' engines cut short. */
void app_close_at_exit(struct app *a);
/* Closes the inspector ntop-js opened in r->pid if it still listens there, over a
 * connection of its own; one that cannot be closed is named (with --no-eval, unless said:
 * an engine has said so already). */
void app_close_opened(struct app *a, const struct attach_result *r, bool said);
/* Before pid is signalled: which of its Node descendants already have listening sockets
 * (an inspector open then is left open at the end). */
void app_note_kin(struct app *a, pid_t pid);
void app_kin_free(struct app *a);

/* app_follow.c */
void app_follow_init(struct app *a);
void app_follow_free(struct app *a);
void app_follow_remember(struct app *a);
void app_follow_start(struct app *a, const char *why);

/* Whose window it is, for --serve's profiles and --push: a thread's or process's engine, its
 * PID, and its thread id (0: a process's main thread) and name. */
struct app_source {
	struct engine *e;
	int pid;
	long thread_id;
	const char *thread_name;
};

/* app_serve.c: --serve. open binds before the target is attached (a busy port fails
 * first); start serves once the loop exists; on_window (any thread's or process's window:
 * its end, unix seconds, and length) feeds the pending pprof profiles, each sample labelled
 * with its pid and thread; free before the loop is freed. open and start return EXIT_OK or a
 * status, said on stderr. */
int app_serve_open(struct app *a);
int app_serve_start(struct app *a);
void app_serve_on_window(struct app *a, const struct app_source *src, double wall_end_s,
	double window_s);
void app_serve_free(struct app *a);

/* app_push.c: --push. start once the loop exists (EXIT_OK or a status, said on stderr);
 * on_window as app_serve's, a series for each source; source_gone sends what a source that
 * ended still holds; finish after the loop (the last partial intervals, a short bound); free
 * before the loop is freed. */
int app_push_start(struct app *a);
void app_push_on_window(struct app *a, const struct app_source *src, double wall_end_s,
	double window_s);
void app_push_source_gone(struct app *a, const struct app_source *src);
void app_push_finish(struct app *a);
void app_push_free(struct app *a);

/* app_replay.c */
int app_replay(struct app *a);
void app_replay_free(struct app *a);
/* app_diff.c: --diff A B, printed; returns the exit status. */
int app_diff(const struct options *o);

#endif
