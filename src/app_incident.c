/* app_incident.c: --trigger. Each window of the main thread is copied into the flight recorder
 * (flightrec.h) and read by the triggers (trigger.h); when one fires (and the cool-down since
 * the last incident is over) an incident starts with the recorder's last --keep seconds and
 * takes every window until --after seconds past the firing, then its bundle is written into
 * --incident-dir (incident.h): incident.json (what fired, when, the numbers, the memory and
 * event-loop series around it, the blocked-loop events with their stacks), profile.cpuprofile
 * and profile.pb.gz, and allocations.heapprofile with --alloc. A session that ends while an
 * incident is under way writes it with what it has. Each incident is also a line in --log. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "app.h"
#include "app_priv.h"
#include "atomicfile.h"
#include "calltree.h"
#include "engine.h"
#include "evloop.h"
#include "exitcode.h"
#include "flightrec.h"
#include "functab.h"
#include "incident.h"
#include "memlog.h"
#include "memseries.h"
#include "pprof.h"
#include "report.h"
#include "requests.h"
#include "strbuf.h"
#include "trigger.h"
#include "tseries.h"
#include "tui.h"
#include "util.h"

/* What the recorder may hold, whatever --keep asks: the man page states it. */
#define INCIDENT_RECORDER_MAX_BYTES (64u * 1024 * 1024)
/* Each window's timeline (the samples in order) is kept up to this many samples; an
 * incident's profile keeps its timeline up to APP_CALLTREE_MAX_SAMPLES. */
#define INCIDENT_WINDOW_MAX_SAMPLES 20000
/* The memory and event-loop series in incident.json: at most this many points each. */
#define INCIDENT_SERIES_MAX 720

struct app_incident {
	struct flightrec *rec;
	struct incident_store *store;
	/* the incident under way */
	bool pending;
	struct calltree *tree;
	double fired_s, from_s, until_s;
	size_t trigger;            /* which one fired */
	double value;              /* what it measured */
	size_t windows;
	size_t rec_windows, rec_bytes; /* the recorder at the firing */
	double last_fired_s;       /* NAN: none yet (the cool-down) */
};

int app_incident_open(struct app *a)
{
	struct app_incident *inc;
	char *cause = NULL;
	int status = EXIT_INTERNAL;

	if (!a->opt.n_triggers)
		return EXIT_OK;
	inc = xcalloc(1, sizeof(*inc));
	inc->store = incident_store_open(a->opt.incident_dir, (size_t)a->opt.incident_max,
		a->opt.incident_bytes, &status, &cause);
	if (!inc->store) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		free(inc);
		return status;
	}
	inc->rec = flightrec_create(a->opt.keep_s, INCIDENT_RECORDER_MAX_BYTES,
		INCIDENT_WINDOW_MAX_SAMPLES);
	inc->last_fired_s = NAN;
	a->incident = inc;
	return EXIT_OK;
}

void app_incident_free(struct app *a)
{
	struct app_incident *inc = a->incident;

	if (!inc)
		return;
	calltree_free(inc->tree);
	flightrec_free(inc->rec);
	incident_store_close(inc->store);
	free(inc);
	a->incident = NULL;
}

/* A route's key fits in p99[...] whole, so that every route the requests screen names can be. */
_Static_assert(TRIGGER_ROUTE_MAX >= REQ_KEY_LEN, "a route key fits a trigger's route");

/* p99[ROUTE]: that route's 99th percentile in the window (ctx: its requests, or NULL). */
static double incident_route_p99(const void *ctx, const char *route)
{
	const struct req_window *rq = ctx;

	for (size_t i = 0; rq && i < rq->n_server; i++)
		if (!strcmp(rq->server[i].key, route))
			return req_row_quantile(&rq->server[i], 0.99);
	return NAN;
}

/* What the triggers read of one window. */
static void incident_input(const struct window_stats *w, const struct report_window *rw,
	struct trigger_input *in)
{
	in->time_s = rw->time_s;
	in->busy_pct = !rw->cpu_off && w->sampled_us > 0 ? 100.0 * (1 - w->idle_us / w->sampled_us) :
		NAN;
	in->block_ms = rw->evloop ? 0 : NAN;
	for (size_t i = 0; i < rw->n_blocks; i++) {
		double ms = evloop_block_ms(&rw->blocks[i].b);

		if (ms > in->block_ms)
			in->block_ms = ms;
	}
	in->lag_p99_ms = rw->evloop && rw->evloop->have_evloop ? rw->evloop->lag_p99_ms : NAN;
	in->p99_ms = NAN;
	for (size_t i = 0; rw->requests && i < rw->requests->n_server; i++) {
		double q = req_row_quantile(&rw->requests->server[i], 0.99);

		if (!isnan(q) && (isnan(in->p99_ms) || q > in->p99_ms))
			in->p99_ms = q;
	}
	in->route_p99_ms = incident_route_p99;
	in->route_ctx = rw->requests;
	in->rss_bytes = rw->mem ? rw->mem->v[MEM_RSS] : NAN;
	in->heap_used_bytes = rw->mem ? rw->mem->v[MEM_HEAP_USED] : NAN;
	in->growing = !rw->growth || rw->growth->verdict == MEM_UNKNOWN ? -1 :
		rw->growth->verdict == MEM_GROWING;
}

/* A number in incident.json: null when not measured. */
static void json_num(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_json_double(sb, v);
	else
		strbuf_puts(sb, "null");
}

/* "NAME":[{"t":..,"KEY":..,...}] from a series' buckets over [from_s, to_s]. */
static void json_series(struct strbuf *sb, const char *name, const struct tseries *s,
	double from_s, double to_s, const char *const *keys, size_t n_keys)
{
	struct ts_bucket *b = xcalloc(INCIDENT_SERIES_MAX, sizeof(*b));
	size_t n = s ? tseries_query(s, from_s, to_s, INCIDENT_SERIES_MAX, b) : 0;

	strbuf_printf(sb, ",\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		strbuf_printf(sb, "%s{\"t\":%.3f", i ? "," : "", b[i].t_s);
		for (size_t k = 0; k < n_keys; k++) {
			if (!keys[k])
				continue;
			strbuf_printf(sb, ",\"%s\":", keys[k]);
			json_num(sb, b[i].max[k]);
		}
		strbuf_putc(sb, '}');
	}
	strbuf_putc(sb, ']');
	free(b);
}

/* The blocked-loop events that began in [from_s, to_s]. */
static void json_blocks(struct strbuf *sb, struct engine *e, double from_s, double to_s)
{
	uint64_t n = engine_blocks_count(e);
	uint64_t first = n > ENGINE_BLOCKS_KEPT ? n - ENGINE_BLOCKS_KEPT : 0;
	struct engine_block kept[ENGINE_BLOCKS_KEPT];
	size_t m = 0;

	for (uint64_t i = first; i < n; i++) {
		const struct engine_block *k = engine_block_get(e, i);

		if (k && k->wall_s >= from_s && k->wall_s <= to_s && m < ENGINE_BLOCKS_KEPT)
			kept[m++] = *k;
	}
	report_json_block_list(sb, kept, m, engine_functab(e));
}

/* incident.json's top: the tree's ten functions of most self time. */
#define INCIDENT_JSON_TOP 10

/* The profile's hottest functions by self time (a function's nodes added up, (idle) left
 * out): up to max ids into top, in order; *self_out (indexed by function; caller frees) and
 * *total their self and the busy time, whose shares are the samples that were not idle.
 * Returns how many. */
static size_t incident_top(const struct calltree *t, const struct functab *ft, uint32_t *top,
	size_t max, double **self_out, double *total)
{
	size_t n = calltree_node_count(t), nf = functab_count(ft), n_top = 0;
	double *self = xcalloc(nf ? nf : 1, sizeof(*self));

	*total = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		double s;

		calltree_node(t, i, &f, NULL, &s);
		if (f >= nf || functab_get(ft, f)->kind == FUNC_IDLE)
			continue;
		*total += s;
		self[f] += s;
	}
	for (uint32_t f = 0; f < nf && max > 0; f++) {
		size_t k;

		if (self[f] <= 0)
			continue;
		for (k = n_top; k > 0 && self[top[k - 1]] < self[f]; k--)
			;
		if (k >= max)
			continue;
		memmove(&top[k + 1], &top[k], ((n_top < max ? n_top : max - 1) - k) * sizeof(top[0]));
		top[k] = f;
		if (n_top < max)
			n_top++;
	}
	*self_out = self;
	return n_top;
}

static void incident_json_top(struct strbuf *sb, const struct calltree *t, const struct functab *ft)
{
	uint32_t top[INCIDENT_JSON_TOP];
	double *self, total;
	size_t n_top = incident_top(t, ft, top, INCIDENT_JSON_TOP, &self, &total);

	for (size_t k = 0; k < n_top; k++) {
		strbuf_puts(sb, k ? ",{" : "{");
		report_json_func_fields(sb, functab_get(ft, top[k]));
		strbuf_printf(sb, ",\"self_pct\":%.1f,\"self_ms\":%.1f}",
			total > 0 ? 100.0 * self[top[k]] / total : 0, self[top[k]] / 1000.0);
	}
	free(self);
}

/* The incident in short, for --log and the views: names as the source maps give them. */
static void incident_summarize(struct app *a, const char *name, double to_s,
	struct incident_summary *out)
{
	struct app_incident *inc = a->incident;
	const struct trigger *t = &a->opt.triggers[inc->trigger];
	const struct functab *ft = engine_functab(a->engine);
	uint32_t top[INCIDENT_TOP_MAX];
	double *self, total;
	size_t n_top = incident_top(inc->tree, ft, top, INCIDENT_TOP_MAX, &self, &total);

	memset(out, 0, sizeof *out);
	out->fired_s = inc->fired_s;
	out->from_s = inc->from_s;
	out->to_s = to_s;
	out->value = t->metric == TRIG_GROWING ? NAN : inc->value;
	snprintf(out->name, sizeof out->name, "%s", name);
	snprintf(out->dir, sizeof out->dir, "%s", a->opt.incident_dir);
	snprintf(out->trigger, sizeof out->trigger, "%s", t->text);
	snprintf(out->unit, sizeof out->unit, "%s", t->metric == TRIG_GROWING ? "" :
		trigger_metric_unit(t->metric));
	for (size_t k = 0; k < n_top; k++) {
		const struct func_info *fi = functab_get(ft, top[k]);
		struct incident_top *o = &out->top[out->n_top++];
		const char *url = functab_shown_url(fi);
		int32_t line = functab_shown_line(fi);

		snprintf(o->function, sizeof o->function, "%s", functab_shown_name(fi));
		if (url && url[0] && line >= 0)
			snprintf(o->where, sizeof o->where, "%s:%ld", util_display_url(url), (long)line + 1);
		else if (url && url[0])
			snprintf(o->where, sizeof o->where, "%s", util_display_url(url));
		o->self_pct = total > 0 ? 100.0 * self[top[k]] / total : 0;
	}
	free(self);
}

/* incident.json's text. */
static void incident_json(struct app *a, struct strbuf *sb, const char *name, double to_s,
	bool cut_short)
{
	struct app_incident *inc = a->incident;
	const struct trigger *t = &a->opt.triggers[inc->trigger];
	struct engine *e = a->engine;
	static const char *const mem_keys[MEM_METRIC_COUNT] = {
		[MEM_RSS] = "rss_bytes", [MEM_HEAP_USED] = "heap_used_bytes",
		[MEM_HEAP_TOTAL] = "heap_total_bytes", [MEM_EXTERNAL] = "external_bytes",
		[MEM_ARRAY_BUFFERS] = "array_buffers_bytes",
	};
	static const char *const loop_keys[EVLOOP_METRIC_COUNT] = {
		[EVLOOP_BUSY] = "busy_pct", [EVLOOP_LAG_P50] = "lag_p50_ms",
		[EVLOOP_LAG_P99] = "lag_p99_ms", [EVLOOP_LAG_MAX] = "lag_max_ms",
		[EVLOOP_HANDLES] = "handles",
	};

	strbuf_puts(sb, "{\"incident\":");
	strbuf_json_string(sb, name, strlen(name));
	strbuf_puts(sb, ",\"trigger\":");
	strbuf_json_string(sb, t->text, strlen(t->text));
	strbuf_printf(sb, ",\"measure\":\"%s\",\"unit\":\"%s\",\"threshold\":",
		trigger_metric_name(t->metric), trigger_metric_unit(t->metric));
	if (t->metric == TRIG_GROWING)
		strbuf_puts(sb, "\"growing\"");
	else
		json_num(sb, t->threshold);
	strbuf_printf(sb, ",\"hold_s\":%g,\"value\":", t->hold_s);
	if (t->metric == TRIG_GROWING)
		strbuf_puts(sb, "\"growing\"");
	else
		json_num(sb, inc->value);
	strbuf_printf(sb, ",\"fired\":%.3f,\"from\":%.3f,\"to\":%.3f,\"windows\":%zu",
		inc->fired_s, inc->from_s, to_s, inc->windows);
	/* the session ended before --after was over */
	strbuf_printf(sb, ",\"cut_short\":%s", cut_short ? "true" : "false");
	strbuf_printf(sb, ",\"target\":{\"pid\":%d,\"node_version\":", (int)a->target.pid);
	strbuf_json_string(sb, a->target.node_version, strlen(a->target.node_version));
	strbuf_puts(sb, ",\"title\":");
	strbuf_json_string(sb, a->target.title, strlen(a->target.title));
	strbuf_printf(sb, "},\"sampling_interval_us\":%ld", a->settings.interval_us);
	/* what the flight recorder held when it fired: its bound is measured from this */
	strbuf_printf(sb, ",\"recorder\":{\"windows\":%zu,\"bytes\":%zu}", inc->rec_windows,
		inc->rec_bytes);
	/* the profile's top functions by self time, so that the file alone says what ran */
	strbuf_puts(sb, ",\"top\":[");
	incident_json_top(sb, inc->tree, engine_functab(e));
	strbuf_putc(sb, ']');
	json_series(sb, "memory", memseries_tseries(engine_memseries(e)), inc->from_s, to_s,
		mem_keys, MEM_METRIC_COUNT);
	json_series(sb, "event_loop", engine_evloop_series(e), inc->from_s, to_s, loop_keys,
		EVLOOP_METRIC_COUNT);
	strbuf_puts(sb, ",\"blocks\":");
	json_blocks(sb, e, inc->from_s, to_s);
	strbuf_puts(sb, "}\n");
}

/* One file of a bundle; its failure is said in *cause (the first one only). */
static void bundle_file(const char *dir, const char *file, const void *data, size_t len,
	char **cause)
{
	char *path = xasprintf("%s/%s", dir, file);
	char *c = NULL;

	if (atomic_file_save(path, data, len, &c) < 0) {
		if (!*cause)
			*cause = c;
		else
			free(c);
	}
	free(path);
}

/* Writes the incident under way and ends it; cut_short: the session ended before --after. */
static void incident_write(struct app *a, double to_s, bool cut_short)
{
	struct app_incident *inc = a->incident;
	const struct functab *ft = engine_functab(a->engine);
	char *dir = NULL, *name = NULL, *cause = NULL, *c = NULL;
	size_t removed = 0;
	struct strbuf sb;

	inc->pending = false;
	if (incident_store_new(inc->store, inc->fired_s, (int)a->target.pid, &dir, &name,
			&removed, &cause) < 0) {
		app_say(a, true, cause);
		free(cause);
		calltree_free(inc->tree);
		inc->tree = NULL;
		return;
	}
	strbuf_init(&sb);
	incident_json(a, &sb, name, to_s, cut_short);
	bundle_file(dir, "incident.json", sb.data, sb.len, &cause);
	if (calltree_sample_count(inc->tree) > 0) {
		char *path = xasprintf("%s/profile.cpuprofile", dir);

		if (calltree_save(inc->tree, ft, path, false, &c) < 0 && !cause)
			cause = c, c = NULL;
		free(c);
		c = NULL;
		free(path);
		path = xasprintf("%s/profile.pb.gz", dir);
		if (pprof_save_calltree(inc->tree, ft, a->settings.interval_us,
				(int64_t)(to_s * 1e9), path, &c) < 0 && !cause)
			cause = c, c = NULL;
		free(c);
		free(path);
	}
	if (engine_alloc_on(a->engine)) {
		size_t len = 0;
		const char *raw = engine_alloc_raw(a->engine, &len);

		if (raw)
			bundle_file(dir, "allocations.heapprofile", raw, len, &cause);
	}
	removed += incident_store_trim(inc->store, name);
	{
		const struct trigger *t = &a->opt.triggers[inc->trigger];
		char *msg = cause ?
			xasprintf("incident %s (%s) written in part: %s", name, t->text, cause) :
			xasprintf("incident %s: %s, written to %s/%s%s.", name, t->text,
				a->opt.incident_dir, name, removed ? " (older incidents removed to stay "
				"within --incident-max and --incident-bytes)" : "");
		app_say(a, cause != NULL, msg);
		free(msg);
	}
	/* the --log line and the views: what fired, where it went, what ran */
	{
		struct incident_summary sum;
		char *rec;

		incident_summarize(a, name, to_s, &sum);
		rec = memlog_incident_record(&sum, removed);
		app_log(a, rec, strlen(rec));
		free(rec);
		if (a->tui)
			tui_on_incident(a->tui, &sum);
	}
	strbuf_free(&sb);
	calltree_free(inc->tree);
	inc->tree = NULL;
	free(cause);
	free(dir);
	free(name);
}

void app_incident_on_window(struct app *a, const struct window_stats *w,
	const struct report_window *rw)
{
	struct app_incident *inc = a->incident;
	const struct calltree *wt;
	struct trigger_input in;
	double start_s = rw->time_s - rw->window_ms / 1000.0;
	ssize_t fired = -1;

	if (!inc)
		return;
	wt = rw->cpu_off ? NULL : engine_window_calltree(a->engine);
	if (wt)
		flightrec_add(inc->rec, wt, start_s, rw->time_s);
	/* every trigger is fed at every window, so that each one's hold is true whichever fires
	 * and while an incident is under way (one that fires meanwhile starts its hold again) */
	incident_input(w, rw, &in);
	for (size_t i = 0; i < a->opt.n_triggers; i++)
		if (trigger_feed(&a->opt.triggers[i], &in, rw->window_ms / 1000.0) && fired < 0)
			fired = (ssize_t)i;
	if (inc->pending) {
		if (wt)
			calltree_add_tree(inc->tree, wt);
		inc->windows++;
		if (rw->time_s + 0.01 >= inc->until_s)
			incident_write(a, rw->time_s, false);
		return;
	}
	if (fired < 0)
		return;
	if (isfinite(inc->last_fired_s) && rw->time_s - inc->last_fired_s < a->opt.cooldown_s)
		return;
	inc->pending = true;
	inc->trigger = (size_t)fired;
	inc->value = trigger_value(&a->opt.triggers[fired], &in);
	inc->fired_s = inc->last_fired_s = rw->time_s;
	inc->until_s = rw->time_s + a->opt.after_s;
	inc->tree = calltree_create(APP_CALLTREE_MAX_SAMPLES);
	inc->windows = flightrec_collect(inc->rec, rw->time_s - a->opt.keep_s, inc->tree,
		&inc->from_s);
	inc->rec_windows = flightrec_windows(inc->rec);
	inc->rec_bytes = flightrec_bytes(inc->rec);
	if (isnan(inc->from_s))
		inc->from_s = start_s;
	if (a->opt.after_s <= 0)
		incident_write(a, rw->time_s, false);
}

void app_incident_end(struct app *a)
{
	struct app_incident *inc = a->incident;

	if (inc && inc->pending)
		incident_write(a, util_now_wall_s(), true);
}
