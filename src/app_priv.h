/* app_priv.h: the program's state, shared by app.c (options, attach, the session, output),
 * app_follow.c (--follow) and app_replay.c (--replay). Private to them. */
#ifndef NTOP_APP_PRIV_H
#define NTOP_APP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "attach.h"
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

/* app_follow.c */
void app_follow_remember(struct app *a);
void app_follow_start(struct app *a, const char *why);
void app_on_follow_timer(void *ud);

/* app_replay.c */
int app_replay(struct app *a);

#endif
