/* app_push.c: --push: every thread's and process's windows (the profiles ntop-js collects
 * anyway, no profiler start of its own) summed into one pprof profile per source and
 * --push-every interval, each handed to the client (push.c) for Grafana Pyroscope's /ingest
 * as its own series: APP{pid=PID,thread=main}, a worker thread's thread=ID. */
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

/* Past this many samples in all the series' intervals (a call-tree node a sample, each
 * window), later windows are left out: memory stays bounded whatever the code and however
 * many threads and processes there are. */
#define APP_PUSH_MAX_SAMPLES 2000000
/* The exit waits this long at most for the last profiles to leave. */
#define APP_PUSH_FINISH_S 2.0

/* One source's series. */
struct series {
	int pid;
	long thread_id;             /* 0: the process's main thread */
	struct pprof *cur;          /* the interval being collected */
	double from, until;         /* its span, unix seconds (from NAN before the first window) */
	char name[300];             /* APP{pid=..,thread=..} */
};

struct app_push {
	struct push *client;
	char app[256];              /* the application name, without labels */
	struct series **series;
	size_t n_series, cap_series;
};

static void on_notice(void *ud, const char *msg)
{
	app_say(ud, false, msg);
}

static const struct push_handlers handlers = { on_notice };

static struct pprof *new_interval(const struct app *a)
{
	return pprof_create(PPROF_CPU, (int64_t)a->settings.interval_us * 1000);
}

/* Hands the series' interval over to the client and starts the next where it ended. */
static void flush(struct app *a, struct series *se)
{
	struct app_push *s = a->push;
	unsigned char *gz = NULL;
	size_t len = 0;
	char *cause = NULL;
	long long from, until;

	if (isnan(se->from) || se->until <= se->from)
		return;
	/* whole seconds, and the next interval's from is this one's until: no gap, no overlap */
	from = (long long)floor(se->from);
	until = (long long)floor(se->until);
	if (until <= from)
		return;
	pprof_set_time(se->cur, (int64_t)from * 1000000000, (int64_t)(until - from) * 1000000000);
	if (pprof_encode_gzip(se->cur, &gz, &len, &cause) < 0) {
		char *msg = xasprintf("--push: %s", cause);
		app_say(a, true, msg);
		free(msg);
		free(cause);
	} else {
		push_enqueue(s->client, se->name, from, until,
			a->settings.interval_us > 0 ? 1000000 / a->settings.interval_us : 1000, gz, len);
	}
	free(gz);
	pprof_free(se->cur);
	se->cur = new_interval(a);
	se->from = (double)until;
	se->until = (double)until;
}

static struct series *series_of(struct app *a, const struct app_source *src)
{
	struct app_push *s = a->push;
	struct series *se;

	for (size_t i = 0; i < s->n_series; i++)
		if (s->series[i]->pid == src->pid && s->series[i]->thread_id == src->thread_id)
			return s->series[i];
	se = xcalloc(1, sizeof *se);
	se->pid = src->pid;
	se->thread_id = src->thread_id;
	se->from = se->until = NAN;
	se->cur = new_interval(a);
	if (src->thread_id > 0)
		snprintf(se->name, sizeof se->name, "%s{pid=%d,thread=%ld}", s->app, src->pid,
			src->thread_id);
	else
		snprintf(se->name, sizeof se->name, "%s{pid=%d,thread=%s}", s->app, src->pid,
			src->thread_id == 0 ? "main" : "worker");
	s->series = xreallocarray_grow(s->series, &s->cap_series, s->n_series + 1,
		sizeof *s->series);
	s->series[s->n_series++] = se;
	return se;
}

void app_push_on_window(struct app *a, const struct app_source *src, double wall_end_s,
	double window_s)
{
	const struct calltree *t;
	struct series *se;

	if (!a->push || !src->e || !engine_cpu_on(src->e))
		return;
	t = engine_window_calltree(src->e);
	if (!t)
		return;
	se = series_of(a, src);
	size_t held = 0;
	for (size_t i = 0; i < a->push->n_series; i++)
		held += pprof_sample_count(a->push->series[i]->cur);
	if (held < APP_PUSH_MAX_SAMPLES)
		pprof_add_calltree(se->cur, t, engine_functab(src->e));
	if (isnan(se->from))
		se->from = wall_end_s - window_s;
	se->until = wall_end_s;
	if (se->until - se->from >= (double)a->opt.push_every_s)
		flush(a, se);
}

void app_push_source_gone(struct app *a, const struct app_source *src)
{
	struct app_push *s = a->push;

	if (!s)
		return;
	for (size_t i = 0; i < s->n_series; i++) {
		struct series *se = s->series[i];

		if (se->pid != src->pid || se->thread_id != src->thread_id)
			continue;
		flush(a, se);
		pprof_free(se->cur);
		free(se);
		s->series[i] = s->series[--s->n_series];
		return;
	}
}

int app_push_start(struct app *a)
{
	struct app_push *s;
	char *cause = NULL, title[130];

	if (!a->opt.push)
		return EXIT_OK;
	s = a->push = xcalloc(1, sizeof *s);
	if (a->opt.push_name) {
		snprintf(s->app, sizeof s->app, "%s", a->opt.push_name);
	} else {
		/* a script's path as title: its file name, the part that tells apps apart */
		const char *t = a->target.title, *slash = strrchr(t, '/');

		push_name_clean(slash && slash[1] ? slash + 1 : t, title, sizeof title);
		snprintf(s->app, sizeof s->app, "ntop-js.%s", title);
	}
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
	for (size_t i = 0; i < a->push->n_series; i++)
		flush(a, a->push->series[i]);
	push_finish(a->push->client, APP_PUSH_FINISH_S);
}

void app_push_free(struct app *a)
{
	if (!a->push)
		return;
	push_free(a->push->client);
	for (size_t i = 0; i < a->push->n_series; i++) {
		pprof_free(a->push->series[i]->cur);
		free(a->push->series[i]);
	}
	free(a->push->series);
	free(a->push);
	a->push = NULL;
}
