/* evloop.c: parsing and validating an event-loop reading (evloop.h). */
#include "config.h"

#include "evloop.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A lag over an hour is no timer's delay: a corrupt or hostile reply. */
#define EVLOOP_MAX_LAG_NS 3.6e12
#define EVLOOP_MAX_SPAN_MS 86400e3
#define EVLOOP_MAX_COUNT 1e9
/* A histogram's timer period: Node takes 1 ms and more; over a minute is no reading of ours. */
#define EVLOOP_MAX_RES_MS 60000.0
/* A monotonic clock past 100 years of uptime is not one. */
#define EVLOOP_MAX_MONO_US 3.2e15

static double lag_ms(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > EVLOOP_MAX_LAG_NS)
		return NAN;
	return v->valuedouble / 1e6;
}

static void parse_loop(const cJSON *r, struct evloop_reading *out)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "u"),
		*s = cJSON_GetObjectItemCaseSensitive(r, "s"),
		*n = cJSON_GetObjectItemCaseSensitive(r, "n"), *t;

	if (!cJSON_IsObject(r) || !cJSON_IsNumber(u) || !isfinite(u->valuedouble) ||
	    u->valuedouble < 0 || u->valuedouble > 1 || !cJSON_IsNumber(s) ||
	    !isfinite(s->valuedouble) || s->valuedouble <= 0 || s->valuedouble > EVLOOP_MAX_SPAN_MS)
		return;
	out->have_evloop = true;
	t = cJSON_GetObjectItemCaseSensitive(r, "res");
	if (cJSON_IsNumber(t) && t->valuedouble >= 1 && t->valuedouble <= EVLOOP_MAX_RES_MS)
		out->lag_resolution_ms = t->valuedouble;
	t = cJSON_GetObjectItemCaseSensitive(r, "t");
	if (cJSON_IsNumber(t) && isfinite(t->valuedouble) && t->valuedouble > 0 &&
	    t->valuedouble < EVLOOP_MAX_MONO_US)
		out->end_mono_us = t->valuedouble;
	out->utilization = u->valuedouble;
	out->span_ms = s->valuedouble;
	/* Without a sample (a loop blocked the whole span) the histogram's figures are noise. */
	if (cJSON_IsNumber(n) && n->valuedouble >= 1) {
		out->lag_p50_ms = lag_ms(cJSON_GetObjectItemCaseSensitive(r, "p50"));
		out->lag_p99_ms = lag_ms(cJSON_GetObjectItemCaseSensitive(r, "p99"));
		out->lag_max_ms = lag_ms(cJSON_GetObjectItemCaseSensitive(r, "max"));
		/* Node records the time between the timer's ticks, its own period included (an idle
		 * loop's p50 reads the period): the lag is what is left over */
		if (isfinite(out->lag_resolution_ms)) {
			out->lag_p50_ms = fmax(0, out->lag_p50_ms - out->lag_resolution_ms);
			out->lag_p99_ms = fmax(0, out->lag_p99_ms - out->lag_resolution_ms);
			out->lag_max_ms = fmax(0, out->lag_max_ms - out->lag_resolution_ms);
		}
	}
}

static int by_count(const void *a, const void *b)
{
	const struct evloop_kind *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void parse_kinds(const cJSON *k, struct evloop_reading *out)
{
	const cJSON *it;

	if (!cJSON_IsObject(k))
		return;
	out->have_kinds = true;
	cJSON_ArrayForEach(it, k) {
		struct evloop_kind kind;
		size_t i, min;

		if (!it->string || !cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
		    it->valuedouble < 0 || it->valuedouble > EVLOOP_MAX_COUNT)
			continue;
		util_sanitize(it->string, strlen(it->string), kind.name, sizeof kind.name);
		kind.count = (long)it->valuedouble;
		if (out->n_kinds < EVLOOP_MAX_KINDS) {
			out->kinds[out->n_kinds++] = kind;
			continue;
		}
		/* Full: keep the most numerous; one kind is left out either way. */
		min = 0;
		for (i = 1; i < out->n_kinds; i++)
			if (out->kinds[i].count < out->kinds[min].count)
				min = i;
		if (kind.count > out->kinds[min].count)
			out->kinds[min] = kind;
		out->more_kinds++;
	}
	qsort(out->kinds, out->n_kinds, sizeof out->kinds[0], by_count);
}

int evloop_parse(const char *json, size_t len, struct evloop_reading *out)
{
	cJSON *root;

	memset(out, 0, sizeof *out);
	out->lag_p50_ms = out->lag_p99_ms = out->lag_max_ms = NAN;
	out->utilization = out->span_ms = out->end_mono_us = out->lag_resolution_ms = NAN;
	root = cJSON_ParseWithLength(json, len);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return -1;
	}
	parse_loop(cJSON_GetObjectItemCaseSensitive(root, "r"), out);
	parse_kinds(cJSON_GetObjectItemCaseSensitive(root, "k"), out);
	cJSON_Delete(root);
	return 0;
}

long evloop_kind_count(const struct evloop_reading *r, const char *kind)
{
	long n = -1;
	size_t i;

	for (i = 0; i < r->n_kinds; i++)
		if (strcmp(r->kinds[i].name, kind) == 0)
			n = (n < 0 ? 0 : n) + r->kinds[i].count;
	return n;
}

void evloop_busy_from_profile(struct evloop_reading *r, double sampled_us, double idle_us)
{
	if (!r->have_evloop || !(sampled_us > 0) || !(idle_us >= 0) || idle_us > sampled_us)
		return;
	r->utilization = 1 - idle_us / sampled_us;
	r->busy_from_profile = true;
}

void evloop_series_values(const struct evloop_reading *r, double v[EVLOOP_METRIC_COUNT])
{
	for (int k = 0; k < EVLOOP_METRIC_COUNT; k++)
		v[k] = NAN;
	if (r->have_evloop) {
		v[EVLOOP_BUSY] = r->utilization * 100;
		v[EVLOOP_LAG_P50] = r->lag_p50_ms;
		v[EVLOOP_LAG_P99] = r->lag_p99_ms;
		v[EVLOOP_LAG_MAX] = r->lag_max_ms;
	}
	if (r->have_kinds) {
		double n = 0;

		for (size_t i = 0; i < r->n_kinds; i++)
			n += (double)r->kinds[i].count;
		v[EVLOOP_HANDLES] = n;
	}
}
