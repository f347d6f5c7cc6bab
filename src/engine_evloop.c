/* engine_evloop.c: the engine's event-loop readings (evloop.h). At every window, one evaluation
 * (ntopJsLoop) reads how busy the target's loop was since the last one and how late a 10 ms
 * timer fired, and counts its live handles and requests by kind. What it needs in the target
 * (an event-loop delay histogram and the last utilization snapshot) lives in an object on a
 * Symbol.for key of globalThis, under this session's nonce, with a watchdog timer (unref'd)
 * that removes it if ntop-js stops reading, as after a kill -9; engine_evloop_leave removes it
 * at detach. Eval mode only: --no-eval has no readings. */
#include "config.h"

#include "engine_priv.h"
#include "jsonpull.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Event-loop readings: the evaluation, the latest reading, its series and the blocks. */
struct engine_evl {
	char *expr_fine, *expr_coarse; /* the reading's evaluation (this session's nonce): the
	                              * histogram's timer every fine_ms (CPU profiling), or slower */
	int fine_ms;                  /* EVLOOP_FINE_MIN_MS to EVLOOP_FINE_MAX_MS */
	bool pending;                 /* a reading is on its way */
	bool installed;               /* a reading was sent (which installs the histogram) */
	bool have_last;
	struct evloop_reading last;
	/* The readings over time (the loop screen's chart). While the CPU profiler runs, a reading
	 * waits for its window's profile (fresh), whose samples give the busy share (evloop.h). */
	struct tseries *series;
	bool fresh;
	double fresh_wall_s;
	/* blocked-loop events: candidates from the profiles, confirmed by the readings */
	struct blockscan *blocks;     /* NULL: off */
	struct engine_block kept[ENGINE_BLOCKS_KEPT];
	uint64_t n_blocks;            /* confirmed so far; number i is kept[i % ENGINE_BLOCKS_KEPT] */
};

#define EVLOOP_KEY "Symbol.for('ntop-js.loop')"
/* A reading dated further than this from our monotonic clock was taken on another clock. */
#define MONO_SAME_CLOCK_S 3600.0
/* The delay histogram's timer while the CPU profiler runs: its sampling interval, from 10 ms
 * to a fifth of the block threshold (a block is seen as a delay of up to one period less than
 * it lasted, and must read as 80 % of the threshold: blockscan.c) and 50 ms at most. A block's
 * samples time it no finer than the sampling does, so a finer timer buys nothing; each tick
 * wakes the target's loop (at 10 ms about 100 wakes a second, 3 to 5 ms of an idle Node 20's
 * CPU a second on the 2-core VM of doc/benchmarks.md, sections 13 and 23). While the profiler
 * is off, three times a window, every 100 ms to 1 s. */
#define EVLOOP_FINE_MIN_MS 10
#define EVLOOP_FINE_MAX_MS 50
/* How many 1 ms timers a reading waits, at most, for the histogram's next tick (below). */
#define EVLOOP_TICK_WAITS 50
#define EVLOOP_STR(x) #x
#define EVLOOP_TEXT(x) EVLOOP_STR(x)
#define EVLOOP_COARSE_MIN_MS 100
#define EVLOOP_COARSE_MAX_MS 1000
/* The watchdog: a minute, or three windows and twice the timeout if longer. */
#define EVLOOP_WATCHDOG_MIN_S 60.0

/* The reading is taken at a turn of the loop, not when the evaluation runs: the inspector runs
 * it through an interrupt, possibly in the middle of a long task, and a histogram reset there
 * loses the delay that task is causing (the timer's next tick measures from the reset). The
 * turn is a timer's (an unref'd setTimeout 0), not setImmediate's: after a long timer task the
 * check phase comes before the histogram's own late timer, and a reading taken there lost the
 * delay of two blocks in three on Node 26 (its timer ran after the reset); in the timers phase
 * the histogram's timer, due earlier, runs first. So each evaluation returns the reading taken
 * after the previous one, and asks for the next: a reading covers the window before the one it
 * is reported with, and the first comes with the third evaluation (the first installs, the
 * second asks). It carries the time it was taken (process.hrtime, the CPU profile's clock),
 * which dates the blocked-loop events it confirms (blockscan.h). A new timer period (the CPU
 * profiler started or stopped) takes effect when a reading is taken, so that each reading
 * comes whole from one histogram: swapped in the evaluation, the data since the last reading
 * was lost with the old one, and with it the blocks at the end of a --cpu-every burst.
 * At the fine period the reading also waits (1 ms timers, 50 at most) until the histogram's
 * timer has ticked once more: Node's reset() forgets when it last ticked, so a tick after a
 * reset records no delay, and a reading that ran between a block and that tick (its timer due
 * first, as when it was set during the block) lost the block's delay whole. Measured with
 * bench/eld-reset.js on Node 18 to 26, a 300 ms block in a timer callback: lost in 16 of 25
 * trials with the reading's timer set during the block and in 25 of 25 with it due right
 * after the block; with the wait, in none of 75 (doc/benchmarks.md section 26). For the same
 * reason a block that begins after the reset, before the histogram's next tick, leaves no
 * delay in it (the tick after the block only notes its time): a timer of the reading's own,
 * due one histogram period after the reset, measures how late it runs, and the next reading's
 * longest delay is the larger of that and the histogram's (block_phases.sh met one in CI, on
 * Node 26). One timer, not a chain of 1 ms ones (30 ms of them, until 2026-11-29): each wakes
 * an idle loop, and a wake is most of what the readings cost an idle target (bench/
 * recorder-parts.sh, doc/benchmarks.md section 23). It keeps the time from the reset to its
 * run, as the histogram keeps the time between its ticks, and evloop.c takes the period off
 * both: a block's length less up to one period. And a wait that ran more than a period late
 * was held by a task that the histogram has not measured yet (its tick is as late, and may
 * come after ours in the same turn): the tick it saw was from before that task, so it waits
 * for the next one. Without that, a reading taken just after a block reset the histogram
 * before its tick, which then recorded nothing: 450 ms blocks confirmed by the next block's
 * 300 ms delay, in 3 of 5 runs of block_phases.sh's target on Node 18 at -i 20000 beside four
 * busy loops (the target's own log of the histogram: reset right at the block's end, its
 * longest delay 24 ms). */
static const char evloop_head[] =
	"(function ntopJsLoop(R,F){var ph=process.getBuiltinModule?process.getBuiltinModule('perf_hooks')"
	":require('perf_hooks'),P=ph.performance,K=" EVLOOP_KEY ",all=globalThis[K],id='";
static const char evloop_mid[] =
	"';if(!all||typeof all!=='object'){all=Object.create(null);"
	"Object.defineProperty(globalThis,K,{value:all,configurable:true,writable:true});}"
	"var o=all[id],fresh=!o;if(fresh){o=all[id]={h:ph.monitorEventLoopDelay({resolution:R}),"
	"res:R,r:null};o.h.enable();o.e=P.eventLoopUtilization();o.w=P.now();}"
	"o.want=R;"
	"var out=JSON.stringify({r:o.r,k:o.k||null});o.r=null;o.k=null;"
	JS_LATER_HEAD "if(all[id]!==o)return;clearTimeout(o.t);"
	"if(!fresh&&!o.i){var c0=-1,n=0,due=P.now()+1,take=function(){o.i=null;if(all[id]!==o)return;"
	"if(o.res<=F&&typeof o.h.count==='number'&&n++<" EVLOOP_TEXT(EVLOOP_TICK_WAITS)
	"&&(c0<0||o.h.count===c0||P.now()-due>o.res)){c0=o.h.count;due=P.now()+1;o.i=setTimeout(take,1);"
	"if(o.i.unref)o.i.unref();return}var now=P.now(),"
	"e=P.eventLoopUtilization(o.e),h=o.h,hr=process.hrtime();o.r={u:e.utilization,s:now-o.w,"
	"n:h.count,p50:h.percentile(50),p99:h.percentile(99),max:Math.max(h.max,(o.x||0)*1e6),"
	"t:hr[0]*1e6+hr[1]/1e3,"
	"res:o.res};"
	"h.reset();o.x=0;if(o.want!==o.res){h.disable();o.h=ph.monitorEventLoopDelay({resolution:o.want});"
	"o.h.enable();o.res=o.want;}"
	"if(o.res<=F){var last=P.now(),gap=function(){o.g=null;"
	"var d=P.now()-last;if(d>o.x)o.x=d;};if(o.g)clearTimeout(o.g);o.g=setTimeout(gap,o.res);if(o.g.unref)o.g.unref();}"
	"o.e=P.eventLoopUtilization();o.w=now;if(typeof process.getActiveResourcesInfo==='function'){"
	"var k=Object.create(null);process.getActiveResourcesInfo().forEach(function(x){"
	"k[x]=(k[x]||0)+1});o.k=k}};o.i=setTimeout(take,0);if(o.i.unref)o.i.unref();}"
	"o.t=setTimeout(function(){if(all[id]!==o)return;o.h.disable();delete all[id];"
	"if(globalThis[K]===all&&!Object.keys(all).length)delete globalThis[K];},";
static const char evloop_tail[] =
	");if(o.t.unref)o.t.unref();" JS_LATER_TAIL "return out})(";
static const char leave_head[] = "(function(){var K=" EVLOOP_KEY ",all=globalThis[K],id='";
static const char leave_tail[] =
	"',o=all&&all[id];if(o){try{o.h.disable()}catch(x){}delete all[id];"
	JS_LATER_HEAD "clearTimeout(o.t);if(o.i)clearTimeout(o.i);if(o.g)clearTimeout(o.g);"
	JS_LATER_TAIL "}"
	"if(all&&typeof all==='object'&&!Object.keys(all).length)delete globalThis[K];})()";

/* The fine period for a sampling interval and a block threshold (0: no blocks). */
static int evloop_fine_ms(long interval_us, double block_ms)
{
	double most = block_ms > 0 ? fmin(EVLOOP_FINE_MAX_MS, block_ms / 5) : EVLOOP_FINE_MAX_MS;

	return (int)fmax(EVLOOP_FINE_MIN_MS, fmin(most, floor(interval_us / 1e3)));
}

void engine_evloop_init(struct engine *e)
{
	double watchdog_s = 3 * e->cfg.delay_s + 2 * e->cfg.timeout_s;

	e->evl = xcalloc(1, sizeof *e->evl);
	if (e->cfg.evloop && e->cfg.block_ms > 0)
		e->evl->blocks = blockscan_create(e->cfg.block_ms,
			fmax(e->cfg.interval_us, e->cfg.later_interval_us));
	if (e->cfg.evloop)
		e->evl->series = tseries_create(EVLOOP_METRIC_COUNT);

	if (watchdog_s < EVLOOP_WATCHDOG_MIN_S)
		watchdog_s = EVLOOP_WATCHDOG_MIN_S;
	e->evl->fine_ms = evloop_fine_ms(e->cfg.interval_us, e->cfg.block_ms);
	/* the nonce is letters, digits and '-': safe inside the quotes */
	e->evl->expr_fine = xasprintf("%s%s%s%.0f%s%d,%d)", evloop_head, e->title_prefix, evloop_mid,
		watchdog_s * 1e3, evloop_tail, e->evl->fine_ms, e->evl->fine_ms);
	e->evl->expr_coarse = xasprintf("%s%s%s%.0f%s%.0f,%d)", evloop_head, e->title_prefix,
		evloop_mid, watchdog_s * 1e3, evloop_tail, fmin(EVLOOP_COARSE_MAX_MS,
		fmax(EVLOOP_COARSE_MIN_MS, floor(e->cfg.delay_s * 1e3 / 3))), e->evl->fine_ms);
}

void engine_evloop_free(struct engine *e)
{
	free(e->evl->expr_fine);
	free(e->evl->expr_coarse);
	blockscan_free(e->evl->blocks);
	tseries_free(e->evl->series);
	free(e->evl);
	e->evl = NULL;
}

void engine_evloop_reset_session(struct engine *e)
{
	e->evl->pending = false;
	e->evl->installed = false;
	e->evl->have_last = false;
	e->evl->fresh = false;
	if (e->evl->blocks)
		blockscan_reset(e->evl->blocks);
	/* what the chart shows next is another process, or the same after a break */
	if (e->evl->series)
		tseries_mark_gap(e->evl->series, engine_wall_s(e));
}

/* What to add to a time on the target's monotonic clock (a reading's end_mono_us, in s) for
 * unix time. The profile's clock is the target's CLOCK_MONOTONIC, and so is ours on one
 * machine. A target on another clock (a time namespace) is dated as if the reading were taken
 * now. */
static double evloop_wall_minus_mono_s(struct engine *e, const struct evloop_reading *r)
{
	if (isfinite(r->end_mono_us) &&
	    fabs(r->end_mono_us / 1e6 - engine_mono_s(e)) > MONO_SAME_CLOCK_S)
		return engine_wall_s(e) - r->end_mono_us / 1e6;
	return engine_wall_s(e) - engine_mono_s(e);
}

/* When a reading was taken, unix time (now if it does not say). */
static double evloop_reading_wall_s(struct engine *e, const struct evloop_reading *r)
{
	return isfinite(r->end_mono_us) ? r->end_mono_us / 1e6 + evloop_wall_minus_mono_s(e, r)
		: engine_wall_s(e);
}

static void evloop_series_add(struct engine *e, const struct evloop_reading *r, double wall_s)
{
	double v[EVLOOP_METRIC_COUNT];

	evloop_series_values(r, v);
	tseries_add(e->evl->series, wall_s, v);
}

void engine_evloop_window_done(struct engine *e)
{
	struct evloop_reading r;

	if (!e->evl->fresh || !e->evl->series)
		return;
	e->evl->fresh = false;
	r = e->evl->last;
	if (e->cpu_on)
		evloop_busy_from_profile(&r, e->ws.sampled_us, e->ws.idle_us);
	evloop_series_add(e, &r, e->evl->fresh_wall_s);
}

/* Keeps confirmed blocks, dated. */
static void evloop_keep_blocks(struct engine *e, const struct evloop_block *out, size_t n,
	double wall_minus_mono_s)
{
	for (size_t i = 0; i < n; i++) {
		struct engine_block *k = &e->evl->kept[e->evl->n_blocks++ % ENGINE_BLOCKS_KEPT];

		k->b = out[i];
		k->wall_s = out[i].start_us / 1e6 + wall_minus_mono_s;
	}
}

void engine_evloop_take_profile(struct engine *e, const struct profile *p, double trim_until_us)
{
	struct evloop_block out[BLOCKS_PENDING_MAX];
	size_t n;

	/* without readings nothing could confirm a candidate (blockscan.h) */
	if (!e->evl->blocks || !e->eval_mode)
		return;
	blockscan_feed(e->evl->blocks, p, e->ft, trim_until_us);
	/* those whose delay a reading saw before their profile came in */
	n = blockscan_take(e->evl->blocks, out, sizeof out / sizeof *out);
	evloop_keep_blocks(e, out, n, e->evl->have_last ? evloop_wall_minus_mono_s(e, &e->evl->last) :
		engine_wall_s(e) - engine_mono_s(e));
}

/* Confirms the candidates that the reading's longest delay covers, and keeps them dated. */
static void evloop_confirm_blocks(struct engine *e, const struct evloop_reading *r)
{
	struct evloop_block out[BLOCKS_PENDING_MAX];
	size_t n;
	double late;

	if (!e->evl->blocks || !r->have_evloop || !isfinite(r->end_mono_us))
		return;
	/* A slow timer's (CPU profiler off) delay is only known to within its period: it
	 * confirms nothing, but its span still retires candidates. */
	late = r->lag_max_ms;
	if (!(r->lag_resolution_ms <= e->evl->fine_ms))
		late = NAN;
	n = blockscan_confirm(e->evl->blocks, r->end_mono_us - r->span_ms * 1e3, r->end_mono_us,
		late, r->lag_resolution_ms, out, sizeof out / sizeof *out);
	evloop_keep_blocks(e, out, n, evloop_wall_minus_mono_s(e, r));
}

double engine_block_threshold_ms(const struct engine *e)
{
	return e->evl->blocks && e->eval_mode ? e->cfg.block_ms : 0;
}

uint64_t engine_blocks_count(const struct engine *e)
{
	return e->evl->n_blocks;
}

const struct engine_block *engine_block_get(const struct engine *e, uint64_t i)
{
	if (i >= e->evl->n_blocks || e->evl->n_blocks - i > ENGINE_BLOCKS_KEPT)
		return NULL;
	return &e->evl->kept[i % ENGINE_BLOCKS_KEPT];
}

static void evloop_on_reading(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, value;
	char *text = NULL;
	size_t len;

	e->evl->pending = false;
	if (o == SESSION_CLOSED)
		return;
	/* A failed reading costs only the reading. */
	if (o == SESSION_REPLY && !m->error.n && json_object_get(m->result, "result", &res) == 1 &&
	    json_object_get(res, "value", &value) == 1 && json_span_type(value) == JSON_T_STRING &&
	    json_string_decode(value, &text, &len) == 0) {
		struct evloop_reading r;
		if (evloop_parse(text, len, &r) == 0) {
			/* one not yet charted (its window's profile never came) goes in as it is */
			if (e->evl->fresh && e->evl->series)
				evloop_series_add(e, &e->evl->last, e->evl->fresh_wall_s);
			e->evl->last = r;
			e->evl->have_last = true;
			e->evl->fresh = false;
			if (e->evl->series && (r.have_evloop || r.have_kinds)) {
				/* its busy share waits for the window's samples while the profiler runs */
				e->evl->fresh_wall_s = evloop_reading_wall_s(e, &r);
				if (e->cpu_on)
					e->evl->fresh = true;
				else
					evloop_series_add(e, &r, e->evl->fresh_wall_s);
			}
			evloop_confirm_blocks(e, &r);
		}
		free(text);
	}
}

void engine_evloop_read(struct engine *e)
{
	if (!e->cfg.evloop || !e->eval_mode || !e->sess || e->state != ST_RUNNING)
		return;
	/* The target has not answered the last one: no pile of requests. */
	if (e->evl->pending)
		return;
	e->evl->pending = true;
	e->evl->installed = true; /* perhaps: engine_evloop_leave removes it if so */
	engine_evaluate(e, e->cpu_on ? e->evl->expr_fine : e->evl->expr_coarse, evloop_on_reading);
}

static void evloop_on_left(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Nothing to do: if it failed, the watchdog in the target removes it. */
}

void engine_evloop_leave(struct engine *e)
{
	char *expr;

	if (!e->evl->installed || !e->eval_mode || !e->sess)
		return;
	e->evl->installed = false;
	expr = xasprintf("%s%s%s", leave_head, e->title_prefix, leave_tail);
	engine_evaluate(e, expr, evloop_on_left);
	free(expr);
}

const struct evloop_reading *engine_evloop_last(const struct engine *e)
{
	return e->evl->have_last ? &e->evl->last : NULL;
}

const struct tseries *engine_evloop_series(const struct engine *e)
{
	return e->evl->series && tseries_has_data(e->evl->series) ? e->evl->series : NULL;
}
