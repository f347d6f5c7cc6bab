/* app_push.c: --push: the main thread's windows (the profiles ntop-js collects anyway, no
 * profiler start of its own) summed into one pprof profile per --push-every interval, each
 * handed to the client (push.c) for Grafana Pyroscope's /ingest. */
#include "config.h"

#include "app_priv.h"
#include "engine.h"
#include "exitcode.h"
#include "pprof.h"
#include "push.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past this many samples (a call-tree node a sample, each window), later windows of the
 * interval are left out: its memory stays bounded whatever the code. */
#define APP_PUSH_MAX_SAMPLES 2000000
/* The exit waits this long at most for the last profiles to leave. */
#define APP_PUSH_FINISH_S 2.0

struct app_push {
	struct push *client;
	struct pprof *cur;          /* the interval being collected */
	double from, until;         /* its span, unix seconds (from NAN before the first window) */
	char name[256];             /* APP{pid=..,thread=main} */
};

static void on_notice(void *ud, const char *msg)
{
	app_say(ud, false, msg);
}

static const struct push_handlers handlers = { on_notice };

static void new_interval(struct app *a)
{
	a->push->cur = pprof_create(PPROF_CPU, (int64_t)a->settings.interval_us * 1000);
}

/* Hands the interval over to the client and starts the next where it ended. */
static void flush(struct app *a)
{
	struct app_push *s = a->push;
	unsigned char *gz = NULL;
	size_t len = 0;
	char *cause = NULL;
	long long from, until;

	if (isnan(s->from) || s->until <= s->from)
		return;
	/* whole seconds, and the next interval's from is this one's until: no gap, no overlap */
	from = (long long)floor(s->from);
	until = (long long)floor(s->until);
	if (until <= from)
		return;
	pprof_set_time(s->cur, (int64_t)from * 1000000000, (int64_t)(until - from) * 1000000000);
	if (pprof_encode_gzip(s->cur, &gz, &len, &cause) < 0) {
		char *msg = xasprintf("--push: %s", cause);
		app_say(a, true, msg);
		free(msg);
		free(cause);
	} else {
		push_enqueue(s->client, s->name, from, until,
			a->settings.interval_us > 0 ? 1000000 / a->settings.interval_us : 1000, gz, len);
	}
	free(gz);
	pprof_free(s->cur);
	new_interval(a);
	s->from = (double)until;
	s->until = (double)until;
}

void app_push_on_window(struct app *a, double wall_end_s, double window_s)
{
	struct app_push *s = a->push;
	const struct calltree *t;

	if (!s || !engine_cpu_on(a->engine))
		return;
	t = engine_window_calltree(a->engine);
	if (!t)
		return;
	if (pprof_sample_count(s->cur) < APP_PUSH_MAX_SAMPLES)
		pprof_add_calltree(s->cur, t, engine_functab(a->engine));
	if (isnan(s->from))
		s->from = wall_end_s - window_s;
	s->until = wall_end_s;
	if (s->until - s->from >= (double)a->opt.push_every_s)
		flush(a);
}

int app_push_start(struct app *a)
{
	struct app_push *s;
	char *cause = NULL, title[130];

	if (!a->opt.push)
		return EXIT_OK;
	s = a->push = xcalloc(1, sizeof *s);
	s->from = s->until = NAN;
	if (a->opt.push_name) {
		snprintf(s->name, sizeof s->name, "%s{pid=%d,thread=main}", a->opt.push_name,
			(int)a->target.pid);
	} else {
		/* a script's path as title: its file name, the part that tells apps apart */
		const char *t = a->target.title, *slash = strrchr(t, '/');

		push_name_clean(slash && slash[1] ? slash + 1 : t, title, sizeof title);
		snprintf(s->name, sizeof s->name, "ntop-js.%s{pid=%d,thread=main}", title,
			(int)a->target.pid);
	}
	new_interval(a);
	s->client = push_create(&a->opt.push_url, a->opt.push_tenant, &handlers, a);
	if (push_start(s->client, a->loop, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

void app_push_finish(struct app *a)
{
	if (!a->push)
		return;
	flush(a);
	push_finish(a->push->client, APP_PUSH_FINISH_S);
}

void app_push_free(struct app *a)
{
	if (!a->push)
		return;
	push_free(a->push->client);
	pprof_free(a->push->cur);
	free(a->push);
	a->push = NULL;
}
