/* promfill.c: see promfill.h. */
#include "config.h"

#include "promfill.h"
#include "aggregate.h"
#include "contention.h"
#include "cumulative.h"
#include "engine.h"
#include "functab.h"
#include "memseries.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The top_n functions by self time since attach: one pass over the function table with a
 * small sorted array (a few thousand functions: microseconds, fine on the loop). */
static size_t top_functions(const struct promfill_source *src, struct prom_function *out,
	size_t max)
{
	const struct cumulative *c = src->cum;
	size_t n_ft = functab_count(src->ft), n = 0;
	uint32_t idx[PROMFILL_TOP_MAX];
	double self[PROMFILL_TOP_MAX];

	if (max > PROMFILL_TOP_MAX)
		max = PROMFILL_TOP_MAX;
	for (size_t f = 0; f < n_ft && f < c->cap; f++) {
		const struct func_info *fi;
		double v = c->self_us[f];
		size_t k;

		if (!(v > 0) || (n == max && v <= self[n - 1]))
			continue;
		fi = functab_get(src->ft, (uint32_t)f);
		/* (program), (idle), (garbage collector) are the CPU split's */
		if (!fi || fi->kind != FUNC_JS)
			continue;
		k = n < max ? n++ : n - 1;
		while (k > 0 && self[k - 1] < v) {
			self[k] = self[k - 1];
			idx[k] = idx[k - 1];
			k--;
		}
		self[k] = v;
		idx[k] = (uint32_t)f;
	}
	for (size_t k = 0; k < n; k++) {
		const struct func_info *fi = functab_get(src->ft, idx[k]);
		out[k].function = functab_display_name(fi);
		out[k].url = util_display_url(fi->url);
		out[k].line = fi->line >= 0 ? (long)fi->line + 1 : 0;
		out[k].self_s = self[k] / 1e6;
	}
	return n;
}

/* A row's key as two labels: "GET /route" (server) at its first space, "host:port" (client)
 * at its last colon; "other" (the rows beyond the bound) is method _OTHER, as OpenTelemetry
 * names an unknown method. */
static void http_labels(const char *key, bool client, char a[REQ_KEY_LEN], char b[REQ_KEY_LEN])
{
	const char *cut = client ? strrchr(key, ':') : strchr(key, ' ');

	if (!cut) {
		snprintf(a, REQ_KEY_LEN, "%s", client ? key : "_OTHER");
		snprintf(b, REQ_KEY_LEN, "%s", client ? "" : key);
		return;
	}
	snprintf(a, REQ_KEY_LEN, "%.*s", (int)(cut - key), key);
	snprintf(b, REQ_KEY_LEN, "%s", cut + 1);
}

/* The rows of one kind since attach, with their histograms at promtext's bounds. */
static size_t http_rows(const struct req_row *rows, size_t n, bool client,
	struct prom_http *out, char (*labels)[2][REQ_KEY_LEN])
{
	for (size_t k = 0; k < n && k < REQ_ROWS_MAX; k++) {
		const struct req_row *r = &rows[k];
		double below = 0;
		size_t i = 0;

		http_labels(r->key, client, labels[k][0], labels[k][1]);
		out[k] = (struct prom_http){ .a = labels[k][0], .b = labels[k][1],
			.count = (double)r->count, .errors = (double)r->errors,
			.in_flight = (double)r->in_flight, .sum_s = r->sum_ms / 1e3 };
		for (size_t j = 0; j < PROM_HTTP_BOUNDS; j++) {
			/* the bucket whose upper bound this is: i with BASE * 2^(i/4) == bound */
			double top = 4 * log2(prom_http_bounds_s[j] * 1e3 / REQ_BUCKET_BASE_MS);
			size_t last = (size_t)lround(top);

			for (; i <= last && i < REQ_BUCKETS; i++)
				below += r->hist[i];
			out[k].le[j] = below < out[k].count ? below : out[k].count;
		}
	}
	return n < REQ_ROWS_MAX ? n : REQ_ROWS_MAX;
}

void promfill_target(const struct promfill_source *src, struct promfill_store *st,
	struct prom_target *t)
{
	const struct evloop_reading *l = src->evloop;

	memset(t, 0, sizeof *t);
	t->pid = src->pid;
	t->title = src->title;
	t->thread = src->thread;
	t->node_version = src->node_version;
	t->attached = src->attached;
	t->process_cpu_s = src->process_cpu_s;
	t->runqueue_wait_s = src->kernel ? src->kernel->runqueue_wait_s : NAN;
	t->throttled_s = src->kernel ? src->kernel->throttled_s : NAN;
	t->quota_cores = src->kernel && isfinite(src->kernel->quota_cores) ?
		src->kernel->quota_cores : NAN;
	t->periods = src->kernel ? src->kernel->periods : NAN;
	t->throttled_periods = src->kernel ? src->kernel->throttled_periods : NAN;
	t->rss_bytes = src->mem ? src->mem->v[MEM_RSS] : NAN;
	t->heap_used_bytes = src->mem ? src->mem->v[MEM_HEAP_USED] : NAN;
	t->heap_total_bytes = src->mem ? src->mem->v[MEM_HEAP_TOTAL] : NAN;
	t->external_bytes = src->mem ? src->mem->v[MEM_EXTERNAL] : NAN;

	for (size_t i = 0; i < src->n_spaces && i < PROMFILL_SPACES_MAX; i++) {
		st->spaces[i].name = src->spaces[i].name;
		st->spaces[i].used_bytes = src->spaces[i].used_bytes;
		st->spaces[i].size_bytes = src->spaces[i].size_bytes;
		t->n_spaces++;
	}
	t->spaces = st->spaces;

	/* as the JSON's growth: a verdict, and a rate only once it is known */
	t->growth_verdict = src->growth ? mem_verdict_name(src->growth->verdict) : NULL;
	t->heap_growth_bytes_per_hour = src->growth && src->growth->verdict != MEM_UNKNOWN ?
		src->growth->heap_bytes_per_hour : NAN;

	t->evloop_utilization = t->lag_s = t->lag_p50_s = t->lag_p99_s = t->lag_max_s = NAN;
	if (l && l->have_evloop) {
		t->evloop_utilization = l->utilization;
		t->lag_p50_s = l->lag_p50_ms / 1e3;
		t->lag_p99_s = l->lag_p99_ms / 1e3;
		t->lag_max_s = l->lag_max_ms / 1e3;
		t->lag_s = t->lag_p50_s;
	}
	if (l && l->have_kinds)
		for (size_t i = 0; i < l->n_kinds && i < EVLOOP_MAX_KINDS; i++) {
			st->resources[i].type = l->kinds[i].name;
			st->resources[i].count = l->kinds[i].count;
			t->n_resources++;
		}
	t->resources = st->resources;

	t->cpu_js_s = t->cpu_gc_s = t->cpu_program_s = t->cpu_idle_s = NAN;
	if (src->cum && src->cum->n_windows > 0) {
		t->cpu_known = true;
		t->cpu_js_s = src->cum->js_us / 1e6;
		t->cpu_gc_s = src->cum->gc_us / 1e6;
		t->cpu_program_s = src->cum->program_us / 1e6;
		t->cpu_idle_s = src->cum->idle_us / 1e6;
		if (src->ft)
			t->n_top = top_functions(src, st->top, src->top_n);
	}
	t->top = st->top;

	if (src->requests) {
		t->n_http_server = http_rows(src->requests->server, src->requests->n_server, false,
			st->http[0], st->http_labels[0]);
		t->n_http_client = http_rows(src->requests->client, src->requests->n_client, true,
			st->http[1], st->http_labels[1]);
	}
	t->http_server = st->http[0];
	t->http_client = st->http[1];
}
