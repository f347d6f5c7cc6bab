/* app_priv.h: the program's state, shared by app.c (options, attach, the session, output),
 * app_follow.c (--follow) and app_replay.c (--replay). Private to them. */
#ifndef NTOP_APP_PRIV_H
#define NTOP_APP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "attach.h"
#include "engine.h"
#include "memseries.h"
#include "options.h"
#include "settings.h"
#include "strbuf.h"

struct launch;
struct loop;
struct loop_timer;
struct engine;
struct tui;
struct memlog;

struct app {
	struct options opt;
	struct settings settings;
	char *settings_path;       /* NULL with --no-config */
	struct attach_result target;
	struct launch *launch;
	struct loop *loop;
	struct engine *engine;
	struct tui *tui;
	struct strbuf out;
	int status;
	char *why;
	bool finished;
	int signals;
	bool output_broken;
	/* Memory. */
	struct memlog *log;
	struct mem_growth growth;
	bool have_growth;
	uint64_t blocks_reported;     /* blocked-loop events already in a window's report */
	struct strbuf line;        /* a log record being built */
	/* --follow: the command line (or port) to find the target by when it comes back. */
	struct loop_timer *follow_timer;
	char *follow_cmdline;
	size_t follow_cmdline_len;
	unsigned long long follow_start_ticks; /* the old process's start time */
	bool following;
	/* Worker threads (app_workers.c): an engine each, with the main engine's configuration
	 * and clock; stopping: they leave first, then the main engine. */
	struct engine_config engine_cfg;
	struct engine_clock engine_clock;
	struct app_thread **threads;
	size_t n_threads, cap_threads;
	struct loop_timer *threads_reap, *threads_grace;
	bool stopping;
	size_t windows;               /* the main thread's, for -n */
	struct strbuf threads_out;    /* the workers' part of a report */
	/* --replay */
	struct memseries *replay;
	struct attach_result replay_target;
};

extern const struct engine_handlers app_engine_handlers;
extern const struct tui_actions app_tui_actions;

/* app.c */
void app_say(struct app *a, bool is_error, const char *msg);
void app_log(struct app *a, const char *json, size_t len);
void app_log_attach(struct app *a);
void app_log_exit(struct app *a, const char *why);
void app_on_signal(void *ud, int sig);

/* app_workers.c */
struct model_thread;
/* engine.h's on_worker: starts an engine on the worker. */
void app_on_worker(void *ud, const struct engine_worker_info *w, const struct engine_transport *tp);
/* Leaves the target: the workers' engines first, then the main one (a second call does not
 * wait for the workers). */
void app_stop(struct app *a);
/* Its timers (the loop exists); app_threads_free() frees them and every worker's engine. */
void app_threads_init(struct app *a);
/* The workers' windows since the last report (and their exits), as JSON objects joined by
 * commas, or as text reports; each is reported once. */
void app_threads_json(struct app *a, struct strbuf *out);
void app_threads_text(struct app *a, struct strbuf *out);
/* The threads for the live view's THREADS line. */
size_t app_threads_summary(const struct app *a, struct model_thread *out, size_t max);
void app_threads_free(struct app *a);

/* app_follow.c */
void app_follow_remember(struct app *a);
void app_follow_start(struct app *a, const char *why);
void app_on_follow_timer(void *ud);

/* app_replay.c */
int app_replay(struct app *a);

#endif
