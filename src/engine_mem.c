/* engine_mem.c: the engine's memory side: a reading every tick (RSS from /proc, which costs
 * the target nothing, and Runtime.getHeapUsage, which forces no GC), a detailed one now and
 * then (process.memoryUsage() and the V8 heap spaces, which need an evaluation), allocation
 * sampling (each profile fetch forces a full GC in the target, so it is rare), and heap
 * snapshots on request. */
#include "config.h"

#include "engine.h"
#include "engine_priv.h"
#include "exitcode.h"
#include "functab.h"
#include "heapprof.h"
#include "heapsnap.h"
#include "jsonpull.h"
#include "memseries.h"
#include "procfs.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Until the first allocation profile (the baseline), wait at most this long. */
#define ALLOC_BASELINE_DELAY_S 30.0
#define SNAPSHOT_TIMEOUT_S 900.0

/* Reads process.memoryUsage() and the heap spaces in one evaluation, as a JSON string, and
 * collects the heap used after the target's major collections since the last reading: g is
 * null where perf_hooks cannot observe collections, {d:-1} when the observer was just
 * installed, else {d: ms covered, u: [heap used after each major collection], a: [how many ms
 * before the reading each came]}. A
 * PerformanceObserver of 'gc' entries reads v8.getHeapStatistics() when a major one is
 * delivered (a turn of the loop after the collection). It lives in an object on a Symbol.for
 * key of globalThis, under this session's nonce (two ntop-js on one target keep one each),
 * and a watchdog timer (unref'd: it never keeps the target alive) disconnects and removes it
 * if ntop-js stops reading, as after a kill -9.
 *
 * Not v8.GCProfiler, which this used before: a stopped GCProfiler keeps recording every
 * collection, young ones included, into its buffer until its object is garbage collected,
 * which in a small, steady heap never happens. Restarted every 10 s, ten sessions of 20 s
 * took a 5 MB-heap target from 80 to 340 MB of RSS and 78 to 107 ms of CPU a second, for good
 * (Node 18 to 26; doc/benchmarks.md section 13). An observer that is disconnected is gone, and
 * costs a collection a fraction of what the profiler did. */
#define GC_KEY "Symbol.for('ntop-js.gc-profilers')"
#define GC_WATCHDOG_MS "60000"
/* At most this many sizes per reading (a few per second would already be extreme). */
#define GC_MAX_MAJORS MEMSERIES_POST_GC_BATCH_MAX
#define GC_MAX_MAJORS_JS "512" /* the same, in the target's code */
static const char mem_detail_head[] =
	"(function ntopJsMemory(){"
	"var v=process.getBuiltinModule?process.getBuiltinModule('v8'):require('v8');"
	"var ph=process.getBuiltinModule?process.getBuiltinModule('perf_hooks'):require('perf_hooks');"
	"var m=process.memoryUsage(),g=null;"
	"if(ph&&typeof ph.PerformanceObserver==='function'&&ph.constants&&"
	"ph.constants.NODE_PERFORMANCE_GC_MAJOR)try{var K=" GC_KEY ",all=globalThis[K],id='";
static const char mem_detail_tail[] =
	"';if(!all||typeof all!=='object'){all=Object.create(null);"
	"Object.defineProperty(globalThis,K,{value:all,configurable:true,writable:true});}"
	"var h=all[id],now=Date.now();if(h){g={d:now-h.s,u:h.u,"
	"a:h.w.map(function(w){return now-w})};h.u=[];h.w=[];h.s=now;}"
	"else{var M=ph.constants.NODE_PERFORMANCE_GC_MAJOR,H={u:[],w:[],s:now};"
	"H.o=new ph.PerformanceObserver(function(l){var x=l.getEntries();for(var i=0;i<x.length;"
	"i++)if((x[i].detail||x[i]).kind===M&&H.u.length<" GC_MAX_MAJORS_JS "){"
	"H.u.push(v.getHeapStatistics().used_heap_size);H.w.push(Date.now())}});"
	"H.f=1;h=all[id]=H;g={d:-1,u:[]};}"
	JS_LATER_HEAD "if(all[id]!==h)return;if(h.f){h.f=0;"
	"h.o.observe({entryTypes:['gc']})}clearTimeout(h.t);"
	"h.t=setTimeout(function(){if(all[id]!==h)return;try{h.o.disconnect()}catch(x){}"
	"delete all[id];if(globalThis[K]===all&&!Object.keys(all).length)delete globalThis[K];},"
	GC_WATCHDOG_MS ");if(h.t.unref)h.t.unref();" JS_LATER_TAIL "}catch(x){g=null}"
	"return JSON.stringify({e:m.external,a:m.arrayBuffers,g:g,"
	"s:v.getHeapSpaceStatistics().map(function(x){return [x.space_name,x.space_used_size,"
	"x.space_size]})})})()";
/* Disconnects and removes this session's observer, and the key when no other session has one. */
static const char mem_leave_head[] =
	"(function(){var K=" GC_KEY ",all=globalThis[K],id='";
static const char mem_leave_tail[] =
	"',h=all&&all[id];if(h){delete all[id];" JS_LATER_HEAD "clearTimeout(h.t);h.o.disconnect();"
	JS_LATER_TAIL "}"
	"if(all&&typeof all==='object'&&!Object.keys(all).length)delete globalThis[K];})()";

static void mem_on_tick(void *ud);
static void mem_on_alloc_timer(void *ud);

void engine_mem_init(struct engine *e)
{
	e->mem.series = memseries_create();
	e->mem.tick_timer = engine_timer_new(e, mem_on_tick);
	e->mem.alloc_timer = engine_timer_new(e, mem_on_alloc_timer);
	alloc_table_init(&e->mem.baseline);
	alloc_table_init(&e->mem.latest);
	alloc_table_init(&e->mem.by_growth);
	e->mem.alloc_on = e->cfg.alloc; /* started with the session (engine_mem_start) */
	/* the nonce is letters, digits and '-': safe inside the quotes */
	e->mem.detail_expr = xasprintf("%s%s%s", mem_detail_head, e->title_prefix, mem_detail_tail);
}

void engine_mem_free(struct engine *e)
{
	engine_timer_free(e, e->mem.tick_timer);
	engine_timer_free(e, e->mem.alloc_timer);
	memseries_free(e->mem.series);
	alloc_table_free(&e->mem.baseline);
	alloc_table_free(&e->mem.latest);
	alloc_table_free(&e->mem.by_growth);
	if (e->mem.snap)
		heapsnap_abort(e->mem.snap);
	free(e->mem.snap_path);
	free(e->mem.alloc_raw);
	free(e->mem.detail_expr);
}

static bool mem_running(const struct engine *e)
{
	return e->state == ST_RUNNING;
}

/* ---- readings ---- */

/* Dates the pending reading now, with the RSS of now (from /proc: free for the target). */
static void mem_stamp(struct engine *e)
{
	e->mem.pending.t_s = engine_wall_s(e);
	if (e->target.pid && procfs_rss_read(e->target.pid, &e->mem.pending.v[MEM_RSS]) < 0)
		e->mem.pending.v[MEM_RSS] = NAN;
}

static void mem_deliver(struct engine *e)
{
	const struct mem_sample *last = memseries_last(e->mem.series);

	/* A reply that came after a newer RSS-only reading (the target was slow) would be dropped
	 * by the series and logged out of order: its heap figures are from now, so is the reading. */
	if (last && e->mem.pending.t_s < last->t_s)
		mem_stamp(e);
	memseries_add(e->mem.series, &e->mem.pending);
	if (e->h->on_memory)
		e->h->on_memory(e->ud, &e->mem.pending);
}

static void mem_begin_sample(struct engine *e)
{
	int i;

	for (i = 0; i < MEM_METRIC_COUNT; i++)
		e->mem.pending.v[i] = NAN;
	mem_stamp(e);
}

static void mem_store_space(struct engine *e, const char *name, double used, double size)
{
	size_t i;

	for (i = 0; i < e->mem.n_spaces; i++)
		if (strcmp(e->mem.spaces[i].name, name) == 0)
			break;
	if (i == e->mem.n_spaces) {
		if (i == sizeof e->mem.spaces / sizeof e->mem.spaces[0])
			return;
		e->mem.n_spaces++;
		util_sanitize(name, strlen(name), e->mem.spaces[i].name, sizeof e->mem.spaces[i].name);
		e->mem.spaces[i].first_used_bytes = used;
	}
	e->mem.spaces[i].used_bytes = used;
	e->mem.spaces[i].size_bytes = size;
}

/* The collections' part of the detail reading: {d, u} (see mem_detail_head). Anything else
 * is ignored; a target whose observer went away (its watchdog fired) starts coverage again. */
static void mem_parse_gc(struct engine *e, const cJSON *g)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(g, "d"),
		*u = cJSON_GetObjectItemCaseSensitive(g, "u"),
		*a = cJSON_GetObjectItemCaseSensitive(g, "a"), *it;
	double used[GC_MAX_MAJORS], ago[GC_MAX_MAJORS], now = engine_wall_s(e);
	size_t n = 0, n_ago = 0;

	if (!cJSON_IsObject(g) || !cJSON_IsNumber(d) || !cJSON_IsArray(u) || !isfinite(d->valuedouble))
		return;
	if (d->valuedouble == -1) {
		memseries_post_gc_restart(e->mem.series, now);
		if (e->h->on_post_gc)
			e->h->on_post_gc(e->ud, now, -1, NULL, NULL, 0);
		return;
	}
	/* a batch covers the seconds since the last reading: a day is already absurd */
	if (d->valuedouble < 0 || d->valuedouble > 86400e3)
		return;
	cJSON_ArrayForEach(it, u) {
		if (n == GC_MAX_MAJORS)
			break;
		/* memseries drops sizes that are not finite and in range */
		used[n++] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
	}
	/* when each came, if told for each (gcseries checks the range) */
	if (cJSON_IsArray(a) && (size_t)cJSON_GetArraySize(a) == n) {
		cJSON_ArrayForEach(it, a)
			ago[n_ago++] = cJSON_IsNumber(it) ? it->valuedouble / 1000.0 : NAN;
	}
	memseries_add_post_gc(e->mem.series, now, d->valuedouble / 1000.0, used,
		n_ago == n ? ago : NULL, n);
	if (e->h->on_post_gc)
		e->h->on_post_gc(e->ud, now, d->valuedouble / 1000.0, used, n_ago == n ? ago : NULL, n);
}

/* The detail reading's value: a JSON string holding {e, a, s:[[name, used, size]...]}. */
static void mem_parse_detail(struct engine *e, struct json_span value)
{
	char *text = NULL;
	size_t len;
	cJSON *root, *spaces, *it;

	if (json_string_decode(value, &text, &len) < 0)
		return;
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!root)
		return;
	it = cJSON_GetObjectItemCaseSensitive(root, "e");
	if (cJSON_IsNumber(it) && it->valuedouble >= 0)
		e->mem.pending.v[MEM_EXTERNAL] = it->valuedouble;
	it = cJSON_GetObjectItemCaseSensitive(root, "a");
	if (cJSON_IsNumber(it) && it->valuedouble >= 0)
		e->mem.pending.v[MEM_ARRAY_BUFFERS] = it->valuedouble;
	mem_parse_gc(e, cJSON_GetObjectItemCaseSensitive(root, "g"));
	spaces = cJSON_GetObjectItemCaseSensitive(root, "s");
	cJSON_ArrayForEach(it, spaces) {
		cJSON *n = cJSON_GetArrayItem(it, 0), *u = cJSON_GetArrayItem(it, 1),
			*z = cJSON_GetArrayItem(it, 2);
		if (cJSON_IsString(n) && cJSON_IsNumber(u) && cJSON_IsNumber(z) &&
		    u->valuedouble >= 0 && z->valuedouble >= 0)
			mem_store_space(e, n->valuestring, u->valuedouble, z->valuedouble);
	}
	cJSON_Delete(root);
}

static void mem_on_detail(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, value;

	e->mem.heap_pending = false;
	if (o == SESSION_CLOSED)
		return;
	/* A failed detail reading costs only the detail: the tick is still recorded. */
	if (o == SESSION_REPLY && !m->error.n &&
	    json_object_get(m->result, "result", &res) == 1 &&
	    json_object_get(res, "value", &value) == 1 && json_span_type(value) == JSON_T_STRING)
		mem_parse_detail(e, value);
	if (mem_running(e))
		mem_deliver(e);
}

static void mem_on_heap_usage(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span v;
	double used, total;

	if (o == SESSION_CLOSED) {
		e->mem.heap_pending = false;
		return;
	}
	if (!engine_reply_ok(e, o, m, "Runtime.getHeapUsage")) {
		e->mem.heap_pending = false;
		return;
	}
	if (json_object_get(m->result, "usedSize", &v) == 1 && json_number(v, &used) == 0 &&
	    used >= 0)
		e->mem.pending.v[MEM_HEAP_USED] = used;
	if (json_object_get(m->result, "totalSize", &v) == 1 && json_number(v, &total) == 0 &&
	    total >= 0)
		e->mem.pending.v[MEM_HEAP_TOTAL] = total;
	if (e->eval_mode && engine_mono_s(e) >= e->mem.next_detail_s && mem_running(e)) {
		e->mem.next_detail_s = engine_mono_s(e) + e->cfg.mem_detail_interval_s;
		e->mem.gc_installed = true; /* perhaps: engine_mem_leave removes it if so */
		engine_evaluate(e, e->mem.detail_expr, mem_on_detail);
		return;
	}
	e->mem.heap_pending = false;
	if (mem_running(e))
		mem_deliver(e);
}

static void mem_on_tick(void *ud)
{
	struct engine *e = ud;

	if (!mem_running(e))
		return;
	engine_timer_arm(e, e->mem.tick_timer, e->cfg.mem_interval_s);
	if (e->mem.heap_pending) {
		/* The target is slow to answer: record what costs it nothing. */
		struct mem_sample keep = e->mem.pending;
		mem_begin_sample(e);
		memseries_add(e->mem.series, &e->mem.pending);
		if (e->h->on_memory)
			e->h->on_memory(e->ud, &e->mem.pending);
		e->mem.pending = keep;
		return;
	}
	mem_begin_sample(e);
	e->mem.heap_pending = true;
	engine_call(e, "Runtime.getHeapUsage", NULL, mem_on_heap_usage);
}

/* ---- allocation sampling ---- */

static void mem_table_copy(struct alloc_table *dst, const struct alloc_table *src)
{
	alloc_table_free(dst);
	alloc_table_init(dst);
	dst->sites = xmalloc((src->n ? src->n : 1) * sizeof *dst->sites);
	if (src->n) /* an empty profile has no array at all */
		memcpy(dst->sites, src->sites, src->n * sizeof *src->sites);
	dst->n = dst->cap = src->n;
	dst->total_live_bytes = src->total_live_bytes;
	dst->time_s = src->time_s;
}

static void mem_on_sampling_profile(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span prof;
	char *err = NULL;

	e->mem.alloc_pending = false;
	if (!engine_reply_ok(e, o, m, "HeapProfiler.getSamplingProfile"))
		return;
	if (json_object_get(m->result, "profile", &prof) != 1 ||
	    heapprof_parse(prof.p, prof.n, e->ft, &e->mem.latest, &err) < 0) {
		char *msg = xasprintf("ignored an invalid allocation profile: %s", err ? err : "no profile");
		e->h->on_notice(e->ud, msg);
		free(msg);
		free(err);
		return;
	}
	e->mem.latest.time_s = engine_wall_s(e);
	free(e->mem.alloc_raw);
	e->mem.alloc_raw = xstrndup(prof.p, prof.n);
	e->mem.alloc_raw_len = prof.n;
	if (!e->mem.have_baseline) {
		/* The first profile is the baseline that growth is measured against. */
		mem_table_copy(&e->mem.baseline, &e->mem.latest);
		e->mem.have_baseline = true;
	}
	alloc_table_diff(&e->mem.latest, &e->mem.baseline);
	mem_table_copy(&e->mem.by_growth, &e->mem.latest);
	alloc_table_sort_growth(&e->mem.by_growth);
	e->mem.alloc_fresh = true;
	if (e->h->on_alloc)
		e->h->on_alloc(e->ud);
}

static void mem_schedule_alloc(struct engine *e, double delay_s)
{
	e->mem.alloc_next_wall_s = engine_wall_s(e) + delay_s;
	engine_timer_arm(e, e->mem.alloc_timer, delay_s);
}

static void mem_on_alloc_timer(void *ud)
{
	struct engine *e = ud;

	if (!mem_running(e) || !e->mem.alloc_on)
		return;
	mem_schedule_alloc(e, e->cfg.alloc_interval_s);
	if (e->mem.alloc_pending)
		return;
	e->mem.alloc_pending = true;
	/* Forces a full GC in the target: this is why the interval is minutes. */
	engine_call(e, "HeapProfiler.getSamplingProfile", NULL, mem_on_sampling_profile);
}

static void mem_on_sampling_started(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, "HeapProfiler.startSampling"))
		return;
	if (!e->mem.alloc_on || !mem_running(e))
		return;
	mem_schedule_alloc(e, e->cfg.alloc_interval_s < ALLOC_BASELINE_DELAY_S ?
		e->cfg.alloc_interval_s : ALLOC_BASELINE_DELAY_S);
}

static void mem_on_heap_ignore(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
}

static void mem_enable_heap(struct engine *e)
{
	if (e->mem.heap_enabled)
		return;
	e->mem.heap_enabled = true;
	engine_call(e, "HeapProfiler.enable", NULL, mem_on_heap_ignore);
}

void engine_set_alloc(struct engine *e, bool on)
{
	if (on == e->mem.alloc_on)
		return;
	e->mem.alloc_on = on;
	if (!mem_running(e))
		return; /* engine_mem_start() starts it */
	if (on) {
		mem_enable_heap(e);
		engine_call(e, "HeapProfiler.startSampling", "{\"samplingInterval\":32768}",
			mem_on_sampling_started);
	} else {
		engine_timer_cancel(e, e->mem.alloc_timer);
		/* stopSampling forces one full GC (it builds a last profile); the sampler would
		 * otherwise go on costing the target until ntop-js leaves. */
		engine_call(e, "HeapProfiler.stopSampling", NULL, mem_on_heap_ignore);
	}
}

/* ---- heap snapshots ---- */

static void mem_on_snapshot_done(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	double paused_s = engine_mono_s(e) - e->mem.snap_started_s;
	char *cause = NULL, *msg;
	size_t bytes = 0;

	if (!e->mem.snap)
		return;
	if (o != SESSION_REPLY || m->error.n) {
		heapsnap_abort(e->mem.snap);
		e->mem.snap = NULL;
		msg = xstrdup(o == SESSION_TIMEOUT ? "the heap snapshot did not finish in time; "
			"nothing was written." : "the target could not take the heap snapshot.");
		if (e->h->on_snapshot)
			e->h->on_snapshot(e->ud, false, msg);
		free(msg);
		return;
	}
	if (heapsnap_finish(e->mem.snap, &bytes, &cause) < 0) {
		e->mem.snap = NULL;
		if (e->h->on_snapshot)
			e->h->on_snapshot(e->ud, false, cause);
		free(cause);
		return;
	}
	e->mem.snap = NULL;
	msg = xasprintf("heap snapshot saved to %s (%.1f MB); the target paused about %.1f s",
		e->mem.snap_path, (double)bytes / 1048576.0, paused_s);
	if (e->h->on_snapshot)
		e->h->on_snapshot(e->ud, true, msg);
	free(msg);
}

int engine_heap_snapshot(struct engine *e, const char *path, char **cause)
{
	if (!mem_running(e)) {
		*cause = xstrdup("not connected to the target.");
		return -1;
	}
	if (e->mem.snap) {
		*cause = xstrdup("a heap snapshot is already being written.");
		return -1;
	}
	e->mem.snap = heapsnap_open(path, cause);
	if (!e->mem.snap)
		return -1;
	free(e->mem.snap_path);
	e->mem.snap_path = xstrdup(path);
	mem_enable_heap(e);
	e->mem.snap_started_s = engine_mono_s(e);
	engine_call_timeout(e, "HeapProfiler.takeHeapSnapshot", "{\"reportProgress\":false}",
		SNAPSHOT_TIMEOUT_S, mem_on_snapshot_done);
	return 0;
}

bool engine_snapshot_running(const struct engine *e)
{
	return e->mem.snap != NULL;
}

bool engine_mem_event(struct engine *e, const struct protocol_msg *m)
{
	struct json_span chunk;
	char *cause = NULL;

	if (!json_string_eq(m->method, "HeapProfiler.addHeapSnapshotChunk"))
		return false;
	if (!e->mem.snap)
		return true;
	if (json_object_get(m->params, "chunk", &chunk) != 1 ||
	    heapsnap_chunk(e->mem.snap, chunk.p, chunk.n, &cause) < 0) {
		/* Keep the reply handler from finishing a broken file. */
		heapsnap_abort(e->mem.snap);
		e->mem.snap = NULL;
		if (e->h->on_snapshot)
			e->h->on_snapshot(e->ud, false, cause ? cause : "a heap snapshot chunk was invalid.");
		free(cause);
	}
	return true;
}

/* ---- life cycle ---- */

void engine_mem_start(struct engine *e)
{
	if (e->mem.started || e->cfg.mem_interval_s <= 0)
		return;
	e->mem.started = true;
	e->mem.next_detail_s = 0; /* the first reading is a detailed one */
	mem_on_tick(e);
	if (e->mem.alloc_on) {
		e->mem.alloc_on = false;
		engine_set_alloc(e, true);
	}
}

static void mem_on_leave(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
}

void engine_mem_leave(struct engine *e)
{
	char *expr;

	if (!e->mem.gc_installed || !e->eval_mode || !e->sess)
		return;
	e->mem.gc_installed = false;
	expr = xasprintf("%s%s%s", mem_leave_head, e->title_prefix, mem_leave_tail);
	engine_evaluate(e, expr, mem_on_leave);
	free(expr);
}

void engine_mem_stop(struct engine *e)
{
	engine_timer_cancel(e, e->mem.tick_timer);
	engine_timer_cancel(e, e->mem.alloc_timer);
	e->mem.started = false;
}

const struct memseries *engine_memseries(const struct engine *e)
{
	return e->mem.series;
}

const struct engine_heap_space *engine_heap_spaces(const struct engine *e, size_t *n)
{
	*n = e->mem.n_spaces;
	return e->mem.spaces;
}

bool engine_alloc_on(const struct engine *e)
{
	return e->mem.alloc_on;
}

double engine_alloc_next_wall_s(const struct engine *e)
{
	return e->mem.alloc_on ? e->mem.alloc_next_wall_s : 0;
}

double engine_alloc_interval_s(const struct engine *e)
{
	return e->cfg.alloc_interval_s;
}

const struct alloc_table *engine_alloc_latest(const struct engine *e)
{
	return e->mem.have_baseline ? &e->mem.latest : NULL;
}

const struct alloc_table *engine_alloc_by_growth(const struct engine *e)
{
	return e->mem.have_baseline ? &e->mem.by_growth : NULL;
}

bool engine_alloc_take_fresh(struct engine *e)
{
	bool fresh = e->mem.alloc_fresh;

	e->mem.alloc_fresh = false;
	return fresh;
}

const char *engine_alloc_raw(const struct engine *e, size_t *len)
{
	*len = e->mem.alloc_raw_len;
	return e->mem.alloc_raw;
}

void engine_mem_reset_session(struct engine *e)
{
	engine_mem_stop(e);
	if (e->mem.snap) {
		heapsnap_abort(e->mem.snap);
		e->mem.snap = NULL;
	}
	e->mem.heap_pending = false;
	e->mem.heap_enabled = false;
	e->mem.alloc_pending = false;
	e->mem.gc_installed = false;
	/* A new process has new allocation sites: its first profile is the new baseline. */
	e->mem.have_baseline = false;
}
