/* report.c: see report.h.
 *
 * Both reports describe the same numbers: percentages are shares of the window's sampled
 * time (0-100; 0 when nothing was sampled), the *_ms columns of the text table and the cum_*
 * JSON fields are cumulative since attach (or the last reset). Lines and columns are shown
 * 1-based, as editors count them; V8's 0-based values are converted, unknown ones (-1) are
 * null in JSON and left out of the text. Every string from the target is escaped (JSON) or
 * sanitised (text), because names and urls may hold anything, terminal escapes included. */
#include "config.h"

#include "report.h"
#include "engine.h"
#include "blockscan.h"
#include "evloop.h"
#include "heapprof.h"
#include "memseries.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggregate.h"
#include "contention.h"
#include "cumulative.h"
#include "functab.h"
#include "requests.h"
#include "strbuf.h"
#include "util.h"

#define REPORT_FUNC_COLS 40
#define REPORT_LOC_COLS 60

static double pct_of(double part_us, double whole_us)
{
	if (!(whole_us > 0) || !isfinite(part_us))
		return 0;
	return part_us / whole_us * 100.0;
}

/* A JSON number with a fixed number of decimals, so that a field always looks the same. */
static void json_fixed(struct strbuf *sb, double v, int decimals)
{
	if (!isfinite(v) || v == 0)
		v = 0; /* also turns -0 into 0 */
	strbuf_printf(sb, "%.*f", decimals, v);
}

static void json_str_or_null(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_json_string(sb, s, strlen(s));
	else
		strbuf_puts(sb, "null");
}

/* V8's 0-based line or column as 1-based, or null when unknown. */
static void json_position(struct strbuf *sb, int32_t v)
{
	if (v < 0)
		strbuf_puts(sb, "null");
	else
		strbuf_printf(sb, "%" PRId64, (int64_t)v + 1);
}

/* A count or an id: null when it is not known (negative; for ids, 0 too when zero_unknown). */
static void json_int_or_null(struct strbuf *sb, long v, bool zero_unknown)
{
	if (v < 0 || (zero_unknown && v == 0))
		strbuf_puts(sb, "null");
	else
		strbuf_printf(sb, "%ld", v);
}

static size_t top_count(const struct report_window *rw, const struct window_stats *w)
{
	return rw->top_n < w->n_funcs ? rw->top_n : w->n_funcs;
}

/* A number with that many decimals, or null when it is not known (NAN). */
static void json_num_or_null(struct strbuf *sb, double v, int decimals)
{
	if (isnan(v))
		strbuf_puts(sb, "null");
	else
		json_fixed(sb, v, decimals);
}

/* A byte count, or null when it was not read (NAN). */
static void json_bytes(struct strbuf *sb, double v)
{
	json_num_or_null(sb, v, 0);
}

/* ", heap RATE over SPAN: VERDICT (BASIS)": a rate that is not significant reads ~0. */
static void report_text_growth(struct strbuf *out, const struct mem_growth *g)
{
	if (g->verdict == MEM_UNKNOWN) {
		strbuf_puts(out, ", growth unknown yet");
		if (g->basis != MEM_BASIS_TROUGHS && g->major_gcs >= 0)
			strbuf_printf(out, " (%ld major GCs in %.0f s)", g->major_gcs, g->window_s);
		return;
	}
	if (g->significant)
		strbuf_printf(out, ", heap %+.2f MB/h", g->heap_bytes_per_hour / 1048576.0);
	else
		strbuf_printf(out, ", heap ~0 MB/h (fit %+.2f, not significant)",
			g->heap_bytes_per_hour / 1048576.0);
	strbuf_printf(out, " over %.0f s: %s", g->window_s, mem_verdict_name(g->verdict));
	if (g->basis == MEM_BASIS_POST_GC)
		strbuf_printf(out, " (after %ld major GCs)", g->major_gcs);
	else if (g->basis == MEM_BASIS_TROUGHS_GC)
		strbuf_printf(out, " (troughs; %ld major GCs)", g->major_gcs);
}

void report_json_func_fields(struct strbuf *out, const struct func_info *fi)
{
	const char *name = fi ? functab_display_name(fi) : "(anonymous)";
	const char *url = fi ? util_display_url(fi->url) : "";

	strbuf_puts(out, "\"function\":");
	strbuf_json_string(out, name, strlen(name));
	strbuf_puts(out, ",\"url\":");
	strbuf_json_string(out, url, strlen(url));
	strbuf_puts(out, ",\"line\":");
	json_position(out, fi ? fi->line : -1);
	/* where a source map puts it, beside V8's position */
	if (fi && fi->mapped) {
		const char *oname = fi->orig_name[0] ? fi->orig_name : name;

		strbuf_puts(out, ",\"original\":{\"function\":");
		strbuf_json_string(out, oname, strlen(oname));
		strbuf_puts(out, ",\"url\":");
		strbuf_json_string(out, fi->orig_url, strlen(fi->orig_url));
		strbuf_puts(out, ",\"line\":");
		json_position(out, fi->orig_line);
		strbuf_puts(out, ",\"column\":");
		json_position(out, fi->orig_column);
		strbuf_putc(out, '}');
	}
}

/* A function of a block's stack as {"function", "url", "line"}. */
static void json_frame(struct strbuf *out, const struct functab *ft, uint32_t func)
{
	strbuf_putc(out, '{');
	report_json_func_fields(out, functab_get(ft, func));
	strbuf_putc(out, '}');
}

void report_json_block_list(struct strbuf *out, const struct engine_block *blocks, size_t n,
	const struct functab *ft)
{
	strbuf_putc(out, '[');
	for (size_t i = 0; i < n; i++) {
		const struct evloop_block *b = &blocks[i].b;

		strbuf_puts(out, i ? ",{\"time\":" : "{\"time\":");
		json_fixed(out, blocks[i].wall_s, 3);
		strbuf_puts(out, ",\"ms\":");
		json_fixed(out, evloop_block_ms(b), 1);
		strbuf_puts(out, ",\"lag_ms\":");
		json_num_or_null(out, b->lag_ms, 1);
		strbuf_puts(out, ",\"function\":");
		if (b->depth)
			json_frame(out, ft, b->stack[b->depth - 1]);
		else
			strbuf_puts(out, "null");
		strbuf_puts(out, ",\"share_pct\":");
		json_fixed(out, b->share * 100, 1);
		strbuf_puts(out, ",\"stack\":[");
		for (size_t k = 0; k < b->depth; k++) {
			if (k)
				strbuf_putc(out, ',');
			json_frame(out, ft, b->stack[k]);
		}
		strbuf_puts(out, "]}");
	}
	strbuf_putc(out, ']');
}

/* ,"blocks":[...]: the blocked-loop events confirmed since the last window. */
static void report_json_blocks(struct strbuf *out, const struct report_window *rw,
	const struct functab *ft)
{
	strbuf_puts(out, ",\"blocks\":");
	report_json_block_list(out, rw->blocks, rw->n_blocks, ft);
}

/* "event_loop": the latest reading (evloop.h), or null. */
/* One row of "requests": the key split at its first space into method and route (server),
 * or the destination (client). */
static void json_req_row(struct strbuf *out, const struct req_row *r, bool client,
	bool context)
{
	const char *sp = client ? NULL : strchr(r->key, ' ');

	if (client) {
		strbuf_puts(out, "{\"host\":");
		strbuf_json_string(out, r->key, strlen(r->key));
	} else {
		strbuf_puts(out, "{\"method\":");
		strbuf_json_string(out, r->key, sp ? (size_t)(sp - r->key) : 0);
		strbuf_puts(out, ",\"route\":");
		strbuf_json_string(out, sp ? sp + 1 : r->key, strlen(sp ? sp + 1 : r->key));
	}
	strbuf_printf(out, ",\"count\":%llu,\"in_flight\":%llu,\"p50_ms\":",
		(unsigned long long)r->count, (unsigned long long)r->in_flight);
	json_num_or_null(out, req_row_quantile(r, 0.5), 2);
	strbuf_puts(out, ",\"p99_ms\":");
	json_num_or_null(out, req_row_quantile(r, 0.99), 2);
	strbuf_puts(out, ",\"max_ms\":");
	json_num_or_null(out, r->count ? r->max_ms : NAN, 2);
	strbuf_printf(out, ",\"errors\":%llu", (unsigned long long)r->errors);
	/* where a route's time goes when not on the CPU: per destination, the mean time a
	 * request waited on it and its share of the requests' time */
	if (!client && context) {
		strbuf_puts(out, ",\"waits\":[");
		for (size_t i = 0; i < r->n_waits; i++) {
			strbuf_puts(out, i ? ",{\"host\":" : "{\"host\":");
			strbuf_json_string(out, r->waits[i].host, strlen(r->waits[i].host));
			strbuf_puts(out, ",\"mean_ms\":");
			json_num_or_null(out, req_wait_mean_ms(r, i), 2);
			strbuf_puts(out, ",\"share\":");
			json_num_or_null(out, req_wait_share(r, i), 3);
			strbuf_putc(out, '}');
		}
		strbuf_putc(out, ']');
	}
	strbuf_putc(out, '}');
}

/* "requests": {server: [...], client: [...]}, each the most requests first. */
static void report_json_requests(struct strbuf *out, const struct report_window *rw)
{
	size_t order[REQ_ROWS_MAX], n;

	if (!rw->requests)
		return;
	strbuf_printf(out, ",\"requests\":{\"started\":%llu,\"followed\":%llu,"
		"\"calls_started\":%llu,\"calls_followed\":%llu",
		(unsigned long long)rw->requests->started, (unsigned long long)rw->requests->followed,
		(unsigned long long)rw->requests->calls_started,
		(unsigned long long)rw->requests->calls_followed);
	for (int k = 0; k < 2; k++) {
		n = requests_order(rw->requests, k == 1, order);
		strbuf_puts(out, k == 0 ? ",\"server\":[" : "],\"client\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_putc(out, ',');
			json_req_row(out, k == 0 ? &rw->requests->server[order[i]] :
				&rw->requests->client[order[i]], k == 1, rw->requests->context);
		}
	}
	strbuf_puts(out, "]}");
}

static void report_json_evloop(struct strbuf *out, const struct report_window *rw,
	const struct functab *ft)
{
	const struct evloop_reading *r = rw->evloop;
	size_t i;

	strbuf_puts(out, ",\"event_loop\":");
	if (!r) {
		strbuf_puts(out, "null");
		return;
	}
	strbuf_puts(out, "{\"utilization\":");
	json_num_or_null(out, r->have_evloop ? r->utilization : NAN, 4);
	strbuf_printf(out, ",\"utilization_from\":\"%s\",\"span_ms\":",
		r->busy_from_profile ? "profile" : "loop");
	json_num_or_null(out, r->have_evloop ? r->span_ms : NAN, 2);
	strbuf_puts(out, ",\"lag_ms\":{\"p50\":");
	json_num_or_null(out, r->have_evloop ? r->lag_p50_ms : NAN, 2);
	strbuf_puts(out, ",\"p99\":");
	json_num_or_null(out, r->have_evloop ? r->lag_p99_ms : NAN, 2);
	strbuf_puts(out, ",\"max\":");
	json_num_or_null(out, r->have_evloop ? r->lag_max_ms : NAN, 2);
	strbuf_puts(out, ",\"timer_ms\":");
	json_num_or_null(out, r->have_evloop ? r->lag_resolution_ms : NAN, 0);
	strbuf_puts(out, "},\"resources\":");
	if (r->have_kinds) {
		strbuf_putc(out, '{');
		for (i = 0; i < r->n_kinds; i++) {
			if (i)
				strbuf_putc(out, ',');
			strbuf_json_string(out, r->kinds[i].name, strlen(r->kinds[i].name));
			strbuf_printf(out, ":%ld", r->kinds[i].count);
		}
		strbuf_printf(out, "},\"resource_kinds_left_out\":%zu", r->more_kinds);
	} else {
		strbuf_puts(out, "null");
	}
	report_json_blocks(out, rw, ft);
	strbuf_putc(out, '}');
}

static void text_location(struct strbuf *loc, const struct func_info *fi);
static void text_column(struct strbuf *out, const char *s, size_t cols, bool keep_end, bool pad);

/* "BLOCK: 14:02:03.512, 302 ms in blockHere (loop.js:15), 96 % of it; under listOnTimeout <
 * processTimers" for each blocked-loop event confirmed since the last window. */
static void report_text_blocks(struct strbuf *out, const struct report_window *rw,
	const struct functab *ft)
{
	struct strbuf loc;

	strbuf_init(&loc);
	for (size_t i = 0; i < rw->n_blocks; i++) {
		const struct evloop_block *b = &rw->blocks[i].b;
		time_t secs = (time_t)rw->blocks[i].wall_s;
		char when[32] = "?";
		struct tm tm;

		if (isfinite(rw->blocks[i].wall_s) && localtime_r(&secs, &tm))
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		strbuf_printf(out, "BLOCK: %s.%03d, %.0f ms", when,
			(int)fmod(fmax(rw->blocks[i].wall_s, 0) * 1e3, 1e3), evloop_block_ms(b));
		if (!b->depth) {
			strbuf_puts(out, ", no one stack held half of it\n");
			continue;
		}
		strbuf_puts(out, " in ");
		text_column(out, functab_shown_name(functab_get(ft, b->stack[b->depth - 1])), 60,
			false, false);
		text_location(&loc, functab_get(ft, b->stack[b->depth - 1]));
		strbuf_puts(out, " (");
		text_column(out, loc.data, 60, true, false);
		strbuf_printf(out, "), %.0f %% of it", b->share * 100);
		for (size_t k = b->depth - 1; k-- > 0;) {
			strbuf_puts(out, k == b->depth - 2 ? "; under " : " < ");
			text_column(out, functab_shown_name(functab_get(ft, b->stack[k])), 40, false,
				false);
		}
		strbuf_putc(out, '\n');
	}
	strbuf_free(&loc);
}

/* "LOOP: ..." for batch text, when there is a reading. */
static void report_text_evloop(struct strbuf *out, const struct report_window *rw,
	const struct functab *ft)
{
	const struct evloop_reading *r = rw->evloop;
	size_t i;

	if (!r)
		return;
	strbuf_puts(out, "LOOP:");
	if (r->have_evloop) {
		strbuf_printf(out, " %.1f %% busy%s", r->utilization * 100,
			r->busy_from_profile ? " (CPU profile)" : "");
		if (isnan(r->lag_max_ms))
			strbuf_puts(out, ", lag unknown (no timer fired)");
		else
		{
			char timer[48] = "";

			/* while the CPU profiler is off the timer ticks seldom (engine_evloop.c) */
			if (r->lag_resolution_ms > 10)
				snprintf(timer, sizeof timer, " of a %.0f ms timer", r->lag_resolution_ms);
			strbuf_printf(out, ", lag%s p50 %.1f ms, p99 %.1f ms, max %.1f ms", timer,
				r->lag_p50_ms, r->lag_p99_ms, r->lag_max_ms);
		}
	} else {
		strbuf_puts(out, " measuring");
	}
	if (r->have_kinds) {
		strbuf_puts(out, "; handles and requests:");
		for (i = 0; i < r->n_kinds; i++)
			strbuf_printf(out, "%s %s %ld", i ? "," : "", r->kinds[i].name, r->kinds[i].count);
		if (!r->n_kinds)
			strbuf_puts(out, " none");
		if (r->more_kinds)
			strbuf_printf(out, " and %zu more kinds", r->more_kinds);
	}
	strbuf_putc(out, '\n');
	report_text_blocks(out, rw, ft);
}

/* The memory fields: mem, growth, and alloc in windows where a profile was fetched. */
static void report_json_memory(struct strbuf *out, const struct report_window *rw,
	const struct functab *ft)
{
	static const char *const names[MEM_METRIC_COUNT] = {
		[MEM_RSS] = "rss_bytes", [MEM_HEAP_USED] = "heap_used_bytes",
		[MEM_HEAP_TOTAL] = "heap_total_bytes", [MEM_EXTERNAL] = "external_bytes",
		[MEM_ARRAY_BUFFERS] = "array_buffers_bytes",
	};
	size_t i, n;

	if (rw->mem) {
		strbuf_puts(out, ",\"mem\":{");
		for (i = 0; i < MEM_METRIC_COUNT; i++) {
			strbuf_printf(out, "%s\"%s\":", i ? "," : "", names[i]);
			json_bytes(out, rw->mem->v[i]);
		}
		strbuf_putc(out, '}');
	}
	if (rw->growth) {
		strbuf_puts(out, ",\"growth\":{\"heap_bytes_per_hour\":");
		json_bytes(out, rw->growth->verdict == MEM_UNKNOWN ? NAN : rw->growth->heap_bytes_per_hour);
		strbuf_puts(out, ",\"rss_bytes_per_hour\":");
		json_bytes(out, rw->growth->verdict == MEM_UNKNOWN ? NAN : rw->growth->rss_bytes_per_hour);
		strbuf_puts(out, ",\"window_s\":");
		json_fixed(out, rw->growth->window_s, 1);
		strbuf_puts(out, ",\"verdict\":");
		strbuf_json_string(out, mem_verdict_name(rw->growth->verdict),
			strlen(mem_verdict_name(rw->growth->verdict)));
		strbuf_printf(out, ",\"significant\":%s,\"basis\":",
			rw->growth->significant ? "true" : "false");
		strbuf_json_string(out, mem_growth_basis_name(rw->growth->basis),
			strlen(mem_growth_basis_name(rw->growth->basis)));
		strbuf_puts(out, ",\"major_gcs\":");
		json_int_or_null(out, rw->growth->major_gcs, false);
		strbuf_putc(out, '}');
	}
	if (rw->alloc) {
		n = rw->alloc->n < rw->top_n ? rw->alloc->n : rw->top_n;
		strbuf_puts(out, ",\"alloc\":[");
		for (i = 0; i < n; i++) {
			const struct alloc_site *s = &rw->alloc->sites[i];

			strbuf_puts(out, i ? ",{" : "{");
			report_json_func_fields(out, functab_get(ft, s->func));
			strbuf_puts(out, ",\"live_bytes\":");
			json_fixed(out, s->live_bytes, 0);
			strbuf_puts(out, ",\"growth_bytes\":");
			json_fixed(out, s->growth_bytes, 0);
			strbuf_putc(out, '}');
		}
		strbuf_putc(out, ']');
	}
}

static void json_ms_or_null(struct strbuf *out, double s)
{
	if (isfinite(s))
		json_fixed(out, s * 1e3, 0);
	else
		strbuf_puts(out, "null");
}

/* ,"inlining":{...}: whether inlined functions have their own rows, and what it took. */
static void report_json_jit(struct strbuf *out, const struct engine_jit_info *j)
{
	if (!j)
		return;
	strbuf_printf(out, ",\"inlining\":{\"exact\":%s,\"why_not\":", j->exact ? "true" : "false");
	json_str_or_null(out, j->exact ? NULL : j->caveat);
	strbuf_puts(out, ",\"v8_flags\":");
	strbuf_json_string(out, j->flags ? j->flags : "", j->flags ? strlen(j->flags) : 0);
	strbuf_printf(out, ",\"repaired\":%s", j->repaired ? "true" : "false");
	strbuf_printf(out, ",\"deoptimized\":%s,\"deopt_ms\":", j->deopt ? "true" : "false");
	if (j->deopt)
		json_fixed(out, j->pause_ms, 1);
	else
		strbuf_puts(out, "null");
	strbuf_putc(out, '}');
}

/* One line on what was done for inlined functions; the rows marked "+" may include them. */
static void report_text_jit(struct strbuf *out, const struct engine_jit_info *j)
{
	if (!j)
		return;
	if (!j->exact) {
		strbuf_printf(out, "Inlining: V8 left as it was (%s): SELF of rows marked + may include "
			"functions V8 inlined into them\n", j->caveat ? j->caveat : "?");
		return;
	}
	if (!j->deopt && !j->repaired && !(j->flags && j->flags[0]))
		return; /* nothing was needed: nothing to say */
	strbuf_puts(out, "Inlining: inlined functions have their own rows");
	if (j->repaired)
		strbuf_puts(out, ", given back from the profile's lines (V8's inlining kept)");
	if (j->flags && j->flags[0])
		strbuf_printf(out, "; V8 runs with %s while ntop-js is attached", j->flags);
	if (j->deopt)
		strbuf_printf(out, "; all code was deoptimized once at attach (%.0f ms)", j->pause_ms);
	strbuf_putc(out, '\n');
}

/* The end of a window's object: the workers' windows, the brace, and the line's end. */
/* What a window's object is: a line of its own (the main thread of the main process), or an
 * element of that line's "threads" or "processes" array. */
enum json_kind { JSON_LINE, JSON_THREAD, JSON_PROCESS };

static void json_window_end(struct strbuf *out, const struct report_window *rw,
	enum json_kind kind)
{
	if (rw->threads_json && kind != JSON_THREAD) {
		strbuf_puts(out, ",\"threads\":[");
		strbuf_puts(out, rw->threads_json);
		strbuf_putc(out, ']');
	}
	if (rw->processes_json && kind == JSON_LINE) {
		strbuf_puts(out, ",\"processes\":[");
		strbuf_puts(out, rw->processes_json);
		strbuf_putc(out, ']');
	}
	strbuf_puts(out, kind != JSON_LINE ? "}" : "}\n");
}

/* The window's head: its type, thread, time, target and pause estimates. */
static void json_window_head(struct strbuf *out, const char *type, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w, enum json_kind kind)
{
	strbuf_putc(out, '{');
	if (type) {
		strbuf_puts(out, "\"type\":");
		json_str_or_null(out, type);
		strbuf_putc(out, ',');
	}
	if (kind == JSON_THREAD) {
		strbuf_puts(out, "\"thread_id\":");
		json_int_or_null(out, t ? t->thread_id : -1, true);
		strbuf_puts(out, ",\"thread_name\":");
		json_str_or_null(out, t ? t->thread_name : NULL);
		strbuf_putc(out, ',');
	}
	strbuf_puts(out, "\"time\":");
	json_fixed(out, rw->time_s, 3);
	strbuf_puts(out, ",\"window_ms\":");
	json_fixed(out, rw->window_ms, 3);
	strbuf_printf(out, ",\"samples\":%zu,\"interval_us\":", w->n_samples);
	json_fixed(out, rw->interval_us, 0);
	strbuf_puts(out, ",\"target\":{\"pid\":");
	json_int_or_null(out, t ? t->pid : -1, true);
	strbuf_puts(out, ",\"node_version\":");
	json_str_or_null(out, t ? t->node_version : NULL);
	strbuf_puts(out, ",\"title\":");
	json_str_or_null(out, t ? t->title : NULL);
	if (t && t->container && t->container_pid > 0)
		strbuf_printf(out, ",\"container\":true,\"container_pid\":%d", t->container_pid);
	strbuf_printf(out, "},\"cpu_profiling\":%s,\"pause_estimate\":{\"profiler_start_ms\":",
		rw->cpu_off ? "false" : "true");
	json_ms_or_null(out, rw->start_pause_est_s);
	strbuf_puts(out, ",\"full_gc_ms\":");
	json_ms_or_null(out, rw->gc_pause_est_s);
	strbuf_putc(out, '}');
}

/* One row of "top". */
static void json_top_row(struct strbuf *out, const struct report_window *rw,
	const struct func_stat *fs, const struct func_info *fi, const struct cumulative *c,
	double sampled)
{
	report_json_func_fields(out, fi);
	strbuf_puts(out, ",\"column\":");
	json_position(out, fi->column);
	if (rw->jit && !rw->jit->exact && fi->kind == FUNC_JS)
		strbuf_puts(out, ",\"self_may_include_inlined\":true");
	strbuf_puts(out, ",\"self_pct\":");
	json_fixed(out, pct_of(fs->self_us, sampled), 2);
	strbuf_puts(out, ",\"total_pct\":");
	json_fixed(out, pct_of(fs->total_us, sampled), 2);
	strbuf_puts(out, ",\"self_ms\":");
	json_fixed(out, fs->self_us / 1000.0, 3);
	strbuf_puts(out, ",\"total_ms\":");
	json_fixed(out, fs->total_us / 1000.0, 3);
	strbuf_puts(out, ",\"cum_self_ms\":");
	if (c)
		json_fixed(out, cumulative_self_us(c, fs->func) / 1000.0, 3);
	else
		strbuf_puts(out, "null");
	strbuf_puts(out, ",\"cum_total_ms\":");
	if (c)
		json_fixed(out, cumulative_total_us(c, fs->func) / 1000.0, 3);
	else
		strbuf_puts(out, "null");
}

/* "cpu_contention": what the kernel says the thread waited for a CPU and its cgroup's quota
 * held it back, in the window (null: unknown; quota_cores null: no quota or unknown); and
 * "gc": the window's sampled garbage-collection time (null while the profiler is off). */
static void report_json_contention(struct strbuf *out, const struct report_window *rw,
	const struct window_stats *w)
{
	const struct contention_window *k = rw->contention;

	if (k) {
		strbuf_puts(out, ",\"cpu_contention\":{\"runqueue_wait_ms\":");
		json_num_or_null(out, k->runqueue_wait_ms, 1);
		strbuf_puts(out, ",\"throttled_ms\":");
		json_num_or_null(out, k->throttled_ms, 1);
		strbuf_puts(out, ",\"throttled_periods_pct\":");
		json_num_or_null(out, k->throttled_periods_pct, 1);
		strbuf_puts(out, ",\"quota_cores\":");
		json_num_or_null(out, isinf(k->quota_cores) ? NAN : k->quota_cores, 2);
		strbuf_putc(out, '}');
	}
	strbuf_puts(out, ",\"gc\":{\"pause_ms\":");
	json_num_or_null(out, rw->cpu_off ? NAN : w->gc_us / 1000.0, 1);
	strbuf_putc(out, '}');
}

/* The CPU split and the top functions ("cpu" null and no rows while the profiler is off). */
static void json_cpu_top(struct strbuf *out, const struct report_window *rw,
	const struct window_stats *w, const struct cumulative *c, const struct functab *ft)
{
	double sampled = w->sampled_us;
	size_t n = top_count(rw, w);
	bool first = true;

	if (rw->cpu_off) {
		strbuf_puts(out, ",\"cpu\":null,\"top\":[]");
		return;
	}
	strbuf_puts(out, ",\"cpu\":{\"js_pct\":");
	json_fixed(out, pct_of(w->js_us, sampled), 2);
	strbuf_puts(out, ",\"gc_pct\":");
	json_fixed(out, pct_of(w->gc_us, sampled), 2);
	strbuf_puts(out, ",\"program_pct\":");
	json_fixed(out, pct_of(w->program_us, sampled), 2);
	strbuf_puts(out, ",\"idle_pct\":");
	json_fixed(out, pct_of(w->idle_us, sampled), 2);
	strbuf_putc(out, '}');
	report_json_jit(out, rw->jit);
	strbuf_puts(out, ",\"top\":[");
	for (size_t i = 0; i < n; i++) {
		const struct func_info *fi = functab_get(ft, w->funcs[i].func);

		if (!fi)
			continue;
		strbuf_puts(out, first ? "{" : ",{");
		first = false;
		json_top_row(out, rw, &w->funcs[i], fi, c, sampled);
		strbuf_putc(out, '}');
	}
	strbuf_putc(out, ']');
}

static void json_window(struct strbuf *out, const char *type, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft, enum json_kind kind)
{
	json_window_head(out, type, t, rw, w, kind);
	if (isfinite(rw->next_burst_in_s)) {
		strbuf_puts(out, ",\"next_cpu_burst_s\":");
		json_fixed(out, rw->next_burst_in_s, 1);
	}
	json_cpu_top(out, rw, w, c, ft);
	report_json_contention(out, rw, w);
	report_json_requests(out, rw);
	report_json_evloop(out, rw, ft);
	report_json_memory(out, rw, ft);
	json_window_end(out, rw, kind);
}

void report_json_window(struct strbuf *out, const char *type, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft)
{
	json_window(out, type, t, rw, w, c, ft, JSON_LINE);
}

void report_json_thread(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft)
{
	json_window(out, NULL, t, rw, w, c, ft, JSON_THREAD);
}

void report_json_process(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft)
{
	json_window(out, NULL, t, rw, w, c, ft, JSON_PROCESS);
}

/* Number of UTF-8 code points in s (sanitised text: every sequence is valid). */
static size_t text_cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Byte offset of code point number k in s. */
static size_t text_offset(const char *s, size_t k)
{
	size_t i = 0;

	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && k-- == 0)
			break;
	return i;
}

/* Appends sanitised text padded (or cut) to cols columns. Names keep their start and are cut
 * at the end; locations keep their end (file name and line) and lose their start. */
static void text_column(struct strbuf *out, const char *s, size_t cols, bool keep_end, bool pad)
{
	size_t len = strlen(s), w;
	char *clean = xmalloc(len + 1);

	util_sanitize(s, len, clean, len + 1);
	w = text_cols(clean);
	if (w > cols && cols > 3) {
		if (keep_end) {
			strbuf_puts(out, "...");
			strbuf_puts(out, clean + text_offset(clean, w - (cols - 3)));
		} else {
			strbuf_append(out, clean, text_offset(clean, cols - 3));
			strbuf_puts(out, "...");
		}
		w = cols;
	} else {
		strbuf_puts(out, clean);
	}
	for (; pad && w < cols; w++)
		strbuf_putc(out, ' ');
	free(clean);
}

/* Where the function is: in its original source when a source map says so. */
static void text_location(struct strbuf *loc, const struct func_info *fi)
{
	int32_t line = fi->mapped ? fi->orig_line : fi->line;
	int32_t col = fi->mapped ? fi->orig_column : fi->column;

	strbuf_reset(loc);
	if (!fi->url[0]) {
		strbuf_puts(loc, "-");
		return;
	}
	strbuf_puts(loc, util_display_url(fi->mapped ? fi->orig_url : fi->url));
	if (line >= 0)
		strbuf_printf(loc, ":%" PRId64, (int64_t)line + 1);
	if (line >= 0 && col >= 0)
		strbuf_printf(loc, ":%" PRId64, (int64_t)col + 1);
}

static void report_text_mem(struct strbuf *out, const struct report_window *rw)
{
	const double *v;

	if (!rw->mem)
		return;
	v = rw->mem->v;
	strbuf_printf(out, "MEM: rss %.1f MB, heap %.1f/%.1f MB used/total", v[MEM_RSS] / 1048576.0,
		v[MEM_HEAP_USED] / 1048576.0, v[MEM_HEAP_TOTAL] / 1048576.0);
	if (rw->growth)
		report_text_growth(out, rw->growth);
	strbuf_putc(out, '\n');
}

/* "CPU WAIT: run queue 12 ms, throttled 300 ms in 80% of periods (quota 0.50 cores)": what
 * the thread could not get in the window, when the kernel said. */
static void report_text_contention(struct strbuf *out, const struct report_window *rw)
{
	const struct contention_window *k = rw->contention;

	if (!k || (!isfinite(k->runqueue_wait_ms) && !isfinite(k->throttled_ms)))
		return;
	strbuf_puts(out, "CPU WAIT: run queue ");
	if (isfinite(k->runqueue_wait_ms))
		strbuf_printf(out, "%.0f ms", k->runqueue_wait_ms);
	else
		strbuf_puts(out, "unknown");
	if (isfinite(k->throttled_ms))
		strbuf_printf(out, ", throttled %.0f ms", k->throttled_ms);
	if (isfinite(k->throttled_ms) && isfinite(k->throttled_periods_pct))
		strbuf_printf(out, " in %.0f%% of periods", k->throttled_periods_pct);
	if (isinf(k->quota_cores))
		strbuf_puts(out, " (no CPU quota)");
	else if (isfinite(k->quota_cores))
		strbuf_printf(out, " (quota %.2f cores)", k->quota_cores);
	strbuf_putc(out, '\n');
}

/* Rows of one kind of requests, the most first (at most REQ_TEXT_ROWS):
 * "  GET /api/items/:id          12  p50 25 ms  p99 31 ms  max 31 ms  errors 0  in flight 1". */
#define REQ_TEXT_ROWS 10
static void report_text_req_rows(struct strbuf *out, const struct req_window *w, bool client)
{
	size_t order[REQ_ROWS_MAX], n = requests_order(w, client, order);

	for (size_t i = 0; i < n && i < REQ_TEXT_ROWS; i++) {
		const struct req_row *r = client ? &w->client[order[i]] : &w->server[order[i]];
		double p50 = req_row_quantile(r, 0.5), p99 = req_row_quantile(r, 0.99);

		strbuf_puts(out, "  ");
		text_column(out, r->key, 40, false, true);
		strbuf_printf(out, " %6llu", (unsigned long long)r->count);
		if (isfinite(p50))
			strbuf_printf(out, "  p50 %.1f ms  p99 %.1f ms  max %.1f ms", p50, p99, r->max_ms);
		strbuf_printf(out, "  errors %llu  in flight %llu\n", (unsigned long long)r->errors,
			(unsigned long long)r->in_flight);
		/* "    waiting on 10.0.0.7:8080: 98.2 ms a request (93 % of its time)" */
		for (size_t k = 0; !client && k < r->n_waits && k < 2 && r->sampled; k++) {
			strbuf_puts(out, "    waiting on ");
			text_column(out, r->waits[k].host, 0, false, false);
			strbuf_printf(out, ": %.1f ms a request (%.0f %% of its time)\n",
				req_wait_mean_ms(r, k), 100 * req_wait_share(r, k));
		}
	}
	if (n > REQ_TEXT_ROWS)
		strbuf_printf(out, "  (%zu more)\n", n - REQ_TEXT_ROWS);
}

/* "REQUESTS: 120 finished, 1 error" and its routes, then "CALLS: ..." and their destinations,
 * when there were any in the window. */
static void report_text_requests(struct strbuf *out, const struct report_window *rw)
{
	const struct req_window *w = rw->requests;

	if (!w)
		return;
	for (int k = 0; k < 2; k++) {
		const struct req_row *rows = k ? w->client : w->server;
		size_t n = k ? w->n_client : w->n_server;
		unsigned long long count = 0, errors = 0, flying = 0;

		for (size_t i = 0; i < n; i++) {
			count += rows[i].count;
			errors += rows[i].errors;
			flying += rows[i].in_flight;
		}
		if (n == 0)
			continue;
		strbuf_printf(out, "%s: %llu finished, %llu error%s, %llu in flight",
			k ? "CALLS" : "REQUESTS", count, errors, errors == 1 ? "" : "s", flying);
		/* counted from the requests followed, each standing for this many */
		if (req_follow_ratio(w, k == 1) >= 1.5)
			strbuf_printf(out, " (estimated: 1 in %.0f followed)", req_follow_ratio(w, k == 1));
		strbuf_putc(out, '\n');
		report_text_req_rows(out, w, k == 1);
	}
}

void report_text_window(struct strbuf *out, const struct report_target *t,
	const struct report_window *rw, const struct window_stats *w,
	const struct cumulative *c, const struct functab *ft)
{
	double sampled = w->sampled_us;
	size_t n = top_count(rw, w);
	struct strbuf loc;
	char when[64] = "?";
	time_t secs = isfinite(rw->time_s) ? (time_t)rw->time_s : 0;
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	strbuf_printf(out, "ntop-js - %s", when);
	if (t && t->pid > 0)
		strbuf_printf(out, "  pid %d", t->pid);
	if (t && t->container && t->container_pid > 0)
		strbuf_printf(out, " (container pid %d)", t->container_pid);
	if (t && t->node_version) {
		strbuf_puts(out, "  node ");
		text_column(out, t->node_version, 32, false, false);
	}
	if (t && t->thread_name) {
		strbuf_puts(out, "  thread ");
		if (t->thread_id > 0)
			strbuf_printf(out, "%ld", t->thread_id);
		else
			strbuf_putc(out, '?');
		if (t->thread_name[0]) {
			strbuf_putc(out, ' ');
			text_column(out, t->thread_name, 40, false, false);
		}
	} else if (t && t->title) {
		strbuf_puts(out, "  title ");
		text_column(out, t->title, 60, false, false);
	}
	if (rw->cpu_off && isfinite(rw->next_burst_in_s)) {
		strbuf_printf(out, "\nWindow: %.0f ms, CPU not profiled (between bursts: the next in "
			"%.0f s)\n", isfinite(rw->window_ms) ? rw->window_ms : 0, ceil(rw->next_burst_in_s));
		report_text_contention(out, rw);
		report_text_requests(out, rw);
		report_text_evloop(out, rw, ft);
		report_text_mem(out, rw);
		strbuf_putc(out, '\n');
		return;
	}
	if (rw->cpu_off) {
		strbuf_printf(out, "\nWindow: %.0f ms, CPU not profiled (%s: memory only)\n",
			isfinite(rw->window_ms) ? rw->window_ms : 0, rw->cpu_off_coverage ?
			"the target collects precise coverage" : "--no-cpu");
		report_text_contention(out, rw);
		report_text_requests(out, rw);
		report_text_evloop(out, rw, ft);
		report_text_mem(out, rw);
		strbuf_putc(out, '\n');
		return;
	}
	strbuf_printf(out, "\nWindow: %.0f ms, %zu samples (interval %.0f us), %.1f ms sampled\n",
		isfinite(rw->window_ms) ? rw->window_ms : 0, w->n_samples,
		isfinite(rw->interval_us) ? rw->interval_us : 0, isfinite(sampled) ? sampled / 1000.0 : 0);
	strbuf_printf(out, "CPU: %5.1f%% JS, %5.1f%% GC, %5.1f%% program, %5.1f%% idle\n",
		pct_of(w->js_us, sampled), pct_of(w->gc_us, sampled),
		pct_of(w->program_us, sampled), pct_of(w->idle_us, sampled));
	report_text_contention(out, rw);
	report_text_requests(out, rw);
	report_text_evloop(out, rw, ft);
	report_text_mem(out, rw);
	report_text_jit(out, rw->jit);
	strbuf_puts(out, "SELF% and TOTAL%: share of this window; SELF(ms) and TOTAL(ms): cumulative\n\n");
	strbuf_printf(out, "%6s %6s %11s %11s  %-*s  %s\n", "SELF%", "TOTAL%", "SELF(ms)",
		"TOTAL(ms)", REPORT_FUNC_COLS, "FUNCTION", "LOCATION");
	if (n == 0)
		strbuf_puts(out, "  (no JavaScript functions sampled in this window)\n");
	strbuf_init(&loc);
	for (size_t i = 0; i < n; i++) {
		const struct func_stat *fs = &w->funcs[i];
		const struct func_info *fi = functab_get(ft, fs->func);

		if (!fi)
			continue;
		strbuf_printf(out, "%6.1f %6.1f %11.1f %11.1f  ", pct_of(fs->self_us, sampled),
			pct_of(fs->total_us, sampled),
			c ? cumulative_self_us(c, fs->func) / 1000.0 : fs->self_us / 1000.0,
			c ? cumulative_total_us(c, fs->func) / 1000.0 : fs->total_us / 1000.0);
		text_column(out, functab_shown_name(fi), REPORT_FUNC_COLS, false, true);
		strbuf_puts(out, rw->jit && !rw->jit->exact && fi->kind == FUNC_JS ? "+ " : "  ");
		text_location(&loc, fi);
		text_column(out, loc.data, REPORT_LOC_COLS, true, false);
		strbuf_putc(out, '\n');
	}
	strbuf_free(&loc);
	strbuf_putc(out, '\n'); /* a blank line separates consecutive reports */
}
