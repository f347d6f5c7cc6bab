/* app_replay.c: --replay FILE: the memory charts of a --log file, on the terminal, and the
 * incidents it recorded. */
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

/* What the log gave. */
struct app_replay {
	struct memseries *series;
	struct attach_result target;      /* the latest attach's target */
	struct incident_summary *incidents; /* the log's latest MODEL_INCIDENTS_MAX */
	size_t n_incidents;
	unsigned long long incidents_total; /* ...of how many */
};

static void replay_on_mem(void *ud, const struct mem_sample *m)
{
	struct app *a = ud;

	memseries_add(a->replay->series, m);
}

static void replay_on_attach(void *ud, double t_s, int pid, const char *node_version,
	const char *title)
{
	struct app *a = ud;

	/* A later run appended to the same log: its readings must not be fitted with the
	 * earlier run's. */
	if (memseries_last(a->replay->series))
		memseries_mark_gap(a->replay->series, t_s);
	a->replay->target.pid = pid;
	snprintf(a->replay->target.node_version, sizeof a->replay->target.node_version, "%.*s",
		(int)sizeof a->replay->target.node_version - 1, node_version ? node_version : "");
	snprintf(a->replay->target.title, sizeof a->replay->target.title, "replay: %.*s",
		(int)sizeof a->replay->target.title - 16, title ? title : "");
}

static void replay_on_gap(void *ud, double t_s)
{
	struct app *a = ud;

	memseries_mark_gap(a->replay->series, t_s);
}

/* The live run's collections, so that the growth rule fits what it fitted. */
static void replay_on_post_gc(void *ud, double t_s, double span_s, const double *used,
	const double *ago_s, size_t n)
{
	struct app *a = ud;

	if (span_s < 0)
		memseries_post_gc_restart(a->replay->series, t_s);
	else
		memseries_add_post_gc(a->replay->series, t_s, span_s, used, ago_s, n);
}

/* Kept until the screen exists: the latest MODEL_INCIDENTS_MAX, as the model keeps them. */
static void replay_on_incident(void *ud, const struct incident_summary *s)
{
	struct app *a = ud;

	if (!a->replay->incidents)
		a->replay->incidents = xcalloc(MODEL_INCIDENTS_MAX, sizeof *a->replay->incidents);
	if (a->replay->n_incidents == MODEL_INCIDENTS_MAX) {
		memmove(&a->replay->incidents[0], &a->replay->incidents[1],
			(MODEL_INCIDENTS_MAX - 1) * sizeof *a->replay->incidents);
		a->replay->n_incidents--;
	}
	a->replay->incidents[a->replay->n_incidents++] = *s;
	a->replay->incidents_total++;
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

	a->replay = xcalloc(1, sizeof *a->replay);
	a->replay->series = memseries_create();
	if (memlog_replay(a->opt.replay_path, &replay_handlers, a, &bad, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	last = memseries_last(a->replay->series);
	if (!last && !a->replay->n_incidents) {
		fprintf(stderr, "ntop-js: %s has no memory readings or incidents to show.\n",
			a->opt.replay_path);
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
	a->engine = watch_main(a, &tp, &clock, &a->replay->target, &cfg);
	a->tui = tui_create(a->loop, a->engine, &a->replay->target, cfg.delay_s, 0, false,
		&a->settings.view, &app_tui_actions, a, &cause);
	if (!a->tui) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	if (last) {
		memseries_growth(a->replay->series, a->opt.growth_window_s, last->t_s, &g);
		tui_on_memory(a->tui, &g, a->opt.growth_window_s, false);
	}
	for (size_t i = 0; i < a->replay->n_incidents; i++)
		tui_on_incident(a->tui, &a->replay->incidents[i]);
	if (a->replay->incidents_total > a->replay->n_incidents)
		tui_set_incidents_total(a->tui, a->replay->incidents_total);
	tui_show_replay(a->tui, a->replay->series);
	{
		char from[32], to[32], *msg;
		/* the readings' span, or without any the incidents' */
		time_t t0 = (time_t)(last ? memseries_first_time(a->replay->series) :
			a->replay->incidents[0].fired_s);
		time_t t1 = (time_t)(last ? last->t_s :
			a->replay->incidents[a->replay->n_incidents - 1].fired_s);
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

void app_replay_free(struct app *a)
{
	if (!a->replay)
		return;
	memseries_free(a->replay->series);
	free(a->replay->incidents);
	free(a->replay);
	a->replay = NULL;
}
