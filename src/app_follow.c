/* app_follow.c: --follow: when the target exits, wait for it to come back (the same command
 * line, or the same inspector port) and attach again, keeping what was collected. */
#include "config.h"

#include "app_priv.h"
#include "attach.h"
#include "discover.h"
#include "engine.h"
#include "exitcode.h"
#include "loop.h"
#include "procfs.h"
#include "tui.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What --follow knows of the target it waits for. */
struct app_follow {
	struct loop_timer *timer;
	char *cmdline;                /* the command line to find it by */
	size_t cmdline_len;
	unsigned long long start_ticks; /* the old process's start time */
	pid_t signalled;              /* a try that timed out signalled it: its inspector is ours */
};

static void app_on_follow_timer(void *ud);

void app_follow_init(struct app *a)
{
	a->follow = xcalloc(1, sizeof *a->follow);
	a->follow->timer = loop_timer_create(a->loop, app_on_follow_timer, a);
}

void app_follow_free(struct app *a)
{
	if (!a->follow)
		return;
	loop_timer_free(a->follow->timer);
	free(a->follow->cmdline);
	free(a->follow);
	a->follow = NULL;
}

/* The target's command line, to recognise it when it comes back with another PID. */
void app_follow_remember(struct app *a)
{
	char path[64];
	size_t len = 0;

	free(a->follow->cmdline);
	a->follow->cmdline = NULL;
	if (!a->target.pid)
		return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)a->target.pid);
	if (procfs_file_read(path, 65536, &a->follow->cmdline, &len, NULL) == 0)
		a->follow->cmdline_len = len;
	if (procfs_start_time(a->target.pid, &a->follow->start_ticks) < 0)
		a->follow->start_ticks = 0;
}

/* The newest process with the same command line that started after the old one: another
 * copy that was already running (a second worker, say) is not the target coming back. */
static pid_t app_follow_find(struct app *a)
{
	struct node_proc *procs = NULL;
	size_t n = discover_node_processes(&procs), i;
	unsigned long long best = 0, t;
	pid_t found = 0;

	for (i = 0; i < n; i++) {
		char path[64], *buf = NULL;
		size_t len = 0;

		if (procs[i].pid == a->target.pid || procfs_start_time(procs[i].pid, &t) < 0 ||
		    t <= a->follow->start_ticks || t < best)
			continue;
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)procs[i].pid);
		if (procfs_file_read(path, 65536, &buf, &len, NULL) == 0 &&
		    len == a->follow->cmdline_len && memcmp(buf, a->follow->cmdline, len) == 0) {
			found = procs[i].pid;
			best = t;
		}
		free(buf);
	}
	free(procs);
	return found;
}

static void app_on_follow_timer(void *ud)
{
	struct app *a = ud;
	struct attach_opts ao;
	struct attach_result r;
	char *cause = NULL;
	pid_t pid = 0;
	int rc;

	if (!a->following)
		return;
	memset(&ao, 0, sizeof ao);
	if (a->opt.port) {
		ao.host = a->opt.host;
		ao.port = a->opt.port;
		ao.allow_remote = a->opt.allow_remote;
	} else {
		pid = a->follow->cmdline ? app_follow_find(a) : 0;
		if (!pid) {
			loop_timer_arm(a->follow->timer, 1.0);
			return;
		}
		ao.pid = pid;
		/* before the signal: what its descendants had open then stays open */
		app_note_kin(a, pid);
	}
	/* Short waits: the event loop (and the keyboard) waits while attach runs. */
	ao.timeout_s = 2.0;
	ao.no_eval = a->opt.no_eval;
	rc = attach_target(&ao, &r, &cause);
	if (rc != EXIT_OK) {
		free(cause);
		/* it was signalled and may open its inspector after the wait */
		a->follow->signalled = rc == EXIT_TIMEOUT ? pid : 0;
		loop_timer_arm(a->follow->timer, 1.0);
		return;
	}
	/* an earlier try found it closed and signalled it: what is open now is ntop-js's,
	 * unless its own options open one */
	if (pid && pid == a->follow->signalled && !r.opened_by_us) {
		struct procfs_inspect_addr opts;

		procfs_inspect_addr_read(pid, &opts);
		r.opened_by_us = !opts.opens;
	}
	a->follow->signalled = 0;
	if (engine_restart(a->engine, &r, &cause) < 0) {
		free(cause);
		/* Closed now: the next try would take it for one that was open before ntop-js came,
		 * and leave it open at the end. */
		if (r.opened_by_us)
			app_close_opened(a, &r, false);
		loop_timer_arm(a->follow->timer, 1.0);
		return;
	}
	/* the next process's files are read with its rights, through its root */
	app_smap_retarget(a->smap, r.pid);
	a->following = false;
	a->target = r;
	a->status = EXIT_OK;
	free(a->why);
	a->why = NULL;
	app_follow_remember(a);
	app_log_attach(a);
	{
		char *msg = xasprintf("re-attached to PID %d", (int)r.pid);
		app_say(a, false, msg);
		free(msg);
	}
	if (a->tui)
		tui_set_connected(a->tui, true);
}

void app_follow_start(struct app *a, const char *why)
{
	char *msg = xasprintf("%s Waiting for it to come back (--follow).", why ? why :
		"the target went away.");

	a->following = true;
	a->status = EXIT_TARGET_GONE;
	free(a->why);
	a->why = why ? xstrdup(why) : NULL;
	app_say(a, false, msg);
	free(msg);
	if (a->tui)
		tui_set_connected(a->tui, false);
	loop_timer_arm(a->follow->timer, 1.0);
}

