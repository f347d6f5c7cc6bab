/* app.c: see app.h. */
#include "config.h"

#include "app.h"
#include "aggregate.h"
#include "attach.h"
#include "calltree.h"
#include "engine.h"
#include "exitcode.h"
#include "loop.h"
#include "options.h"
#include "report.h"
#include "strbuf.h"
#include "transport.h"
#include "util.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APP_MAX_MESSAGE_BYTES ((size_t)512 << 20)
/* About 8 bytes a sample: 2,000,000 samples (33 min at 1 ms) keep the real timeline. */
#define APP_CALLTREE_MAX_SAMPLES 2000000

struct app {
	struct options opt;
	struct attach_result target;
	struct loop *loop;
	struct engine *engine;
	struct strbuf out;
	int status;
	char *why;
	int signals;
	bool output_broken;
};

static void app_on_window(void *ud, const struct window_stats *w, double wall_time_s)
{
	struct app *a = ud;
	struct report_target rt = { (int)a->target.pid, a->target.node_version, a->target.title };
	struct report_window rw;

	rw.time_s = wall_time_s;
	rw.window_ms = (w->end_us - w->start_us) / 1000.0;
	rw.interval_us = (double)a->opt.interval_us;
	rw.top_n = a->opt.top_n;
	strbuf_reset(&a->out);
	if (a->opt.json)
		report_json_window(&a->out, &rt, &rw, w, engine_cumulative(a->engine),
			engine_functab(a->engine));
	else
		report_text_window(&a->out, &rt, &rw, w, engine_cumulative(a->engine),
			engine_functab(a->engine));
	if (a->output_broken)
		return;
	if (fwrite(a->out.data, 1, a->out.len, stdout) != a->out.len || fflush(stdout) != 0) {
		/* The reader went away (ntop-js -b | head): leave the target and stop quietly. */
		a->output_broken = true;
		engine_stop(a->engine);
	}
}

static void app_on_notice(void *ud, const char *msg)
{
	fprintf(stderr, "ntop-js: %s\n", msg);
}

static void app_on_finished(void *ud, int status, const char *why)
{
	struct app *a = ud;

	a->status = status;
	a->why = why ? xstrdup(why) : NULL;
	loop_stop(a->loop);
}

static void app_on_signal(void *ud, int sig)
{
	struct app *a = ud;

	/* The first signal leaves the target cleanly; a second one does not wait for it. */
	if (a->signals++ == 0)
		engine_stop(a->engine);
	else
		loop_stop(a->loop);
}

static const struct engine_handlers app_engine_handlers = {
	.on_window = app_on_window,
	.on_notice = app_on_notice,
	.on_finished = app_on_finished,
};

/* Writes the exports asked for on the command line. Returns 0, or EXIT_INTERNAL. */
static int app_write_exports(struct app *a)
{
	const struct calltree *ct = engine_calltree(a->engine);
	char *cause = NULL;
	int rc = 0;

	if (!ct)
		return 0;
	if (a->opt.output) {
		if (calltree_save(ct, engine_functab(a->engine), a->opt.output, false, &cause) < 0) {
			fprintf(stderr, "ntop-js: %s\n", cause);
			free(cause);
			rc = EXIT_INTERNAL;
		}
	}
	if (a->opt.folded) {
		if (calltree_save(ct, engine_functab(a->engine), a->opt.folded, true, &cause) < 0) {
			fprintf(stderr, "ntop-js: %s\n", cause);
			free(cause);
			rc = EXIT_INTERNAL;
		}
	}
	return rc;
}

static int app_run(struct app *a)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct attach_opts ao;
	struct engine_config cfg;
	char *cause = NULL;
	int rc;

	memset(&ao, 0, sizeof ao);
	ao.pid = a->opt.pid;
	ao.host = a->opt.host;
	ao.port = a->opt.port;
	ao.allow_remote = a->opt.allow_remote;
	ao.timeout_s = a->opt.timeout_s;
	rc = attach_target(&ao, &a->target, &cause);
	if (rc != EXIT_OK) {
		fprintf(stderr, "ntop-js: %s\n", cause ? cause : "cannot attach.");
		free(cause);
		return rc;
	}

	a->loop = loop_create(transport_protocol(), &cause);
	if (!a->loop) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_INTERNAL;
	}
	if (loop_catch_signals(a->loop, sigs, 3, app_on_signal, a) < 0) {
		fprintf(stderr, "ntop-js: cannot install signal handlers: %s.\n", strerror(errno));
		return EXIT_INTERNAL;
	}

	memset(&cfg, 0, sizeof cfg);
	cfg.delay_s = a->opt.delay_s;
	cfg.interval_us = a->opt.interval_us;
	cfg.no_eval = a->opt.no_eval;
	cfg.timeout_s = a->opt.timeout_s;
	cfg.iterations = a->opt.iterations;
	cfg.max_message_bytes = APP_MAX_MESSAGE_BYTES;
	cfg.calltree_max_samples = (a->opt.output || a->opt.folded) ? APP_CALLTREE_MAX_SAMPLES : 0;
	a->engine = engine_create(a->loop, &a->target, &cfg, &app_engine_handlers, a);
	if (engine_start(a->engine, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_UNREACHABLE;
	}
	if (a->opt.no_eval)
		fprintf(stderr, "ntop-js: --no-eval: V8's profiler restarts at every window, which "
			"pauses a large app for the time it takes to list its functions again.\n");
	loop_run(a->loop);

	/* Whatever ended the session, what was collected is written. */
	rc = app_write_exports(a);
	if (a->why)
		fprintf(stderr, "ntop-js: %s\n", a->why);
	return a->status != EXIT_OK ? a->status : rc;
}

int app_main(int argc, char **argv)
{
	struct app a;
	char *msg = NULL;
	size_t i;
	int rc;

	memset(&a, 0, sizeof a);
	setlocale(LC_CTYPE, "");
	/* A closed stdout reader must not kill ntop-js before it has left the target. */
	signal(SIGPIPE, SIG_IGN);
	rc = options_parse(argc, argv, &a.opt, &msg);
	if (rc != 0) {
		fprintf(stderr, "ntop-js: %s\n", msg);
		free(msg);
		return rc;
	}
	if (a.opt.help) {
		fputs(options_usage(), stdout);
		return 0;
	}
	if (a.opt.version) {
		printf("ntop-js %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; i < a.opt.n_notices; i++)
		fprintf(stderr, "ntop-js: %s\n", a.opt.notices[i]);
	strbuf_init(&a.out);
	rc = app_run(&a);
	engine_free(a.engine);
	loop_free(a.loop);
	strbuf_free(&a.out);
	free(a.why);
	options_free(&a.opt);
	return rc;
}
