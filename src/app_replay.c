/* app_replay.c: --replay FILE: the memory charts of a --log file, on the terminal. */
#include "config.h"

#include "app_priv.h"
#include "attach.h"
#include "engine.h"
#include "exitcode.h"
#include "incident.h"
#include "loop.h"
#include "memlog.h"
#include "memseries.h"
#include "model.h"
#include "transport.h"
#include "tui.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static void replay_on_mem(void *ud, const struct mem_sample *m)
{
	struct app *a = ud;

	memseries_add(a->replay, m);
}

static void replay_on_attach(void *ud, double t_s, int pid, const char *node_version,
	const char *title)
{
	struct app *a = ud;

	/* A later run appended to the same log: its readings must not be fitted with the
	 * earlier run's. */
	if (memseries_last(a->replay))
		memseries_mark_gap(a->replay, t_s);
	a->replay_target.pid = pid;
	snprintf(a->replay_target.node_version, sizeof a->replay_target.node_version, "%.*s",
		(int)sizeof a->replay_target.node_version - 1, node_version ? node_version : "");
	snprintf(a->replay_target.title, sizeof a->replay_target.title, "replay: %.*s",
		(int)sizeof a->replay_target.title - 16, title ? title : "");
}

static void replay_on_gap(void *ud, double t_s)
{
	struct app *a = ud;

	memseries_mark_gap(a->replay, t_s);
}

/* The live run's collections, so that the growth rule fits what it fitted. */
static void replay_on_post_gc(void *ud, double t_s, double span_s, const double *used,
	const double *ago_s, size_t n)
{
	struct app *a = ud;

	if (span_s < 0)
		memseries_post_gc_restart(a->replay, t_s);
	else
		memseries_add_post_gc(a->replay, t_s, span_s, used, ago_s, n);
}

/* Kept until the screen exists: the latest MODEL_INCIDENTS_MAX, as the model keeps them. */
static void replay_on_incident(void *ud, const struct incident_summary *s)
{
	struct app *a = ud;

	if (!a->replay_incidents)
		a->replay_incidents = xcalloc(MODEL_INCIDENTS_MAX, sizeof *a->replay_incidents);
	if (a->n_replay_incidents == MODEL_INCIDENTS_MAX) {
		memmove(&a->replay_incidents[0], &a->replay_incidents[1],
			(MODEL_INCIDENTS_MAX - 1) * sizeof *a->replay_incidents);
		a->n_replay_incidents--;
	}
	a->replay_incidents[a->n_replay_incidents++] = *s;
	a->replay_incidents_total++;
}

static const struct memlog_replay_handlers replay_handlers = {
	.on_mem = replay_on_mem,
	.on_incident = replay_on_incident,
	.on_post_gc = replay_on_post_gc,
	.on_attach = replay_on_attach,
	.on_gap = replay_on_gap,
};

int app_replay(struct app *a)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
	struct engine_config cfg;
	struct engine_transport tp;
	struct engine_clock clock;
	char *cause = NULL;
	size_t bad = 0;
	struct mem_growth g;
	const struct mem_sample *last;

	a->replay = memseries_create();
	if (memlog_replay(a->opt.replay_path, &replay_handlers, a, &bad, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	last = memseries_last(a->replay);
	if (!last) {
		fprintf(stderr, "ntop-js: %s has no memory readings to show.\n", a->opt.replay_path);
		return EXIT_USAGE;
	}
	a->loop = loop_create(transport_protocol(), &cause);
	if (!a->loop) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_INTERNAL;
	}
	loop_catch_signals(a->loop, sigs, (int)(sizeof sigs / sizeof sigs[0]), app_on_signal, a);
	/* An engine that never connects: the views read its (empty) CPU data. */
	memset(&cfg, 0, sizeof cfg);
	cfg.delay_s = a->settings.delay_s;
	cfg.timeout_s = a->opt.timeout_s;
	engine_io_websocket(a->loop, &tp, &clock);
	a->engine = watch_main(a, &tp, &clock, &a->replay_target, &cfg);
	a->tui = tui_create(a->loop, a->engine, &a->replay_target, cfg.delay_s, 0, false,
		&a->settings.view, &app_tui_actions, a, &cause);
	if (!a->tui) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	memseries_growth(a->replay, a->opt.growth_window_s, last->t_s, &g);
	tui_on_memory(a->tui, &g, a->opt.growth_window_s, false);
	tui_show_replay(a->tui, a->replay);
	for (size_t i = 0; i < a->n_replay_incidents; i++)
		tui_on_incident(a->tui, &a->replay_incidents[i]);
	if (a->replay_incidents_total > a->n_replay_incidents)
		tui_set_incidents_total(a->tui, a->replay_incidents_total);
	{
		char from[32], to[32], *msg;
		time_t t0 = (time_t)memseries_first_time(a->replay), t1 = (time_t)last->t_s;
		struct tm tm;

		localtime_r(&t0, &tm);
		strftime(from, sizeof from, "%Y-%m-%d %H:%M:%S", &tm);
		localtime_r(&t1, &tm);
		strftime(to, sizeof to, "%Y-%m-%d %H:%M:%S", &tm);
		msg = xasprintf("replay of %s: %s to %s", a->opt.replay_path, from, to);
		tui_status(a->tui, false, msg);
		free(msg);
	}
	if (bad) {
		char *msg = xasprintf("%zu line%s of %s could not be read and were skipped", bad,
			bad == 1 ? "" : "s", a->opt.replay_path);
		tui_status(a->tui, true, msg);
		free(msg);
	}
	loop_run(a->loop);
	tui_free(a->tui);
	a->tui = NULL;
	return EXIT_OK;
}

