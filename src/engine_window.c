/* engine_window.c: the CPU windows. One profile after another on a fixed cadence (rotated
 * in one evaluation, or Profiler.stop/start with --no-eval); each profile trimmed, repaired,
 * aggregated into a window and merged into the session's counters and call trees; CPU
 * bursts (--cpu-every); the profiler's start. Its state is its own (struct engine_windows). */
#include "config.h"

#include "engine.h"
#include "engine_priv.h"
#include "aggregate.h"
#include "calltree.h"
#include "cumulative.h"
#include "exitcode.h"
#include "inbox.h"
#include "origins.h"
#include "profile.h"
#include "session.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Invalid profiles in a row that end the session. */
#define ENGINE_INVALID_MAX 3
/* Nodes or samples merged into the session's call tree per turn of the event loop (a few
 * milliseconds' work), and the pause between turns, in which keys and the screen are served. */
#define ENGINE_MERGE_SLICE 16384
#define ENGINE_MERGE_PAUSE_S 0.001

struct engine_windows {
	struct engine_timer *window_timer;
	struct engine_timer *profile_timer; /* a window ended: its profile must follow */
	struct engine_timer *merge_timer;   /* merges the last profile into ct, a slice a turn */
	unsigned long long seq;       /* the window whose profile is running */
	bool end_pending;             /* waiting for the profile of window seq - 1 */
	double next_window_s;         /* monotonic time the running window is due to end */
	double trim_until_us;         /* last kept sample of the previous window */
	bool have_trim;
	struct origins origins;       /* which functions the source maps were asked about */
	struct cumulative cum;
	struct calltree *ct;
	struct calltree *window_ct;   /* the last window alone, for saving it: built on demand */
	bool window_ct_stale;         /* from last_profile, when it is asked for */
	struct profile last_profile;
	double last_trim_us;
	size_t windows_late;
	unsigned invalid_in_row;      /* profiles refused one after the other */
	double last_tick_s;           /* monotonic end of the last window without a profile */
	double next_burst_s;          /* cpu_every_s: monotonic time the next burst is due */
};

/* ---- windows ---- */

static void engine_burst_end(struct engine *e);

/* One profile could not be read. One bad profile costs a window; a target that sends
 * nothing else is not profiled at all, which must not go on silently (or forever, with -n). */
static void engine_profile_invalid(struct engine *e, const char *err)
{
	e->win->end_pending = false;
	if (++e->win->invalid_in_row >= ENGINE_INVALID_MAX) {
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target sent %u invalid profiles in "
			"a row; the last one: %s", e->win->invalid_in_row, err ? err : "?"));
	} else if (e->win->invalid_in_row == 1) {
		char *msg = xasprintf("ignored a window whose profile is invalid: %s",
			err ? err : "?");
		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	/* The burst's profile was the bad one: the profiler is stopped all the same. */
	if (e->burst_ending && e->state == ST_RUNNING)
		engine_burst_end(e);
}

/* e->ws holds a finished window: hand it over, and stop after -n of them. */
static void engine_window_done(struct engine *e)
{
	e->windows_done++;
	engine_evloop_window_done(e);
	e->h->on_window(e->ud, &e->ws, engine_wall_s(e));
	if (e->cfg.iterations && e->windows_done >= (size_t)e->cfg.iterations)
		engine_stop(e);
}

/* ---- CPU bursts (cpu_every_s) ----
 * For long runs the profiler runs one window every cpu_every_s and is off in between, so the
 * target pays the sampler and V8's code logging a small share of the time. Each burst pays the
 * profiler's start pause again (and the JIT step's, whose flags are put back after each burst),
 * so a burst whose predicted pause is over --max-pause is skipped. */

/* The burst's profile is in: the profiler goes off until the next one. */
static void engine_burst_end(struct engine *e)
{
	e->burst_ending = false;
	e->cpu_on = false;
	e->win->last_tick_s = engine_mono_s(e);
	engine_jit_pause_profiler(e);
}

/* At a window without a profile: starts a burst when one is due. */
static void engine_burst_due(struct engine *e)
{
	double now = engine_mono_s(e), pause_s;
	char *cause = NULL;

	/* Windows tick on a cadence from the same start: half a window of slack. */
	if (e->cfg.cpu_every_s <= 0 || e->cpu_starting || now + e->cfg.delay_s / 2 < e->win->next_burst_s)
		return;
	e->win->next_burst_s += e->cfg.cpu_every_s;
	if (e->win->next_burst_s <= now)
		e->win->next_burst_s = now + e->cfg.cpu_every_s;
	pause_s = engine_start_pause_s(e);
	if (isfinite(pause_s) && pause_s > e->cfg.max_pause_s) {
		char p[48];
		pause_format(pause_s, p, sizeof p);
		cause = xasprintf("skipped a CPU burst: starting the profiler would pause the target "
			"for %s; --max-pause %.1f allows it.", p, ceil(pause_s * 10) / 10);
	} else {
		engine_start_cpu(e, &cause);
	}
	if (cause) {
		e->h->on_notice(e->ud, cause);
		free(cause);
	}
}

double engine_next_burst_in_s(const struct engine *e)
{
	if (e->cfg.cpu_every_s <= 0 || e->cpu_on || e->state != ST_RUNNING)
		return NAN;
	/* (a start that takes longer than a window: the burst is under way) */
	if (e->cpu_starting)
		return 0;
	return fmax(0, e->win->next_burst_s - engine_mono_s(e));
}

/* A parsed profile becomes a window. */
static void engine_take_profile(struct engine *e, struct profile *p)
{
	double trim = e->win->have_trim ? e->win->trim_until_us : -INFINITY;

	e->win->end_pending = false;
	e->win->invalid_in_row = 0;
	/* A window's first sample also covers the time since the profile started; when the
	 * profiler itself was (re)started for it, that is V8 listing every compiled function
	 * again (up to 200 ms in a large app), not the app's work: leave it out. */
	if (!e->win->have_trim && p->n_samples)
		trim = p->start_time_us + (p->time_deltas[0] > 0 ? (double)p->time_deltas[0] : 0);
	engine_fix_profile(e, p);
	aggregate_window(p, e->ft, trim, &e->ws);
	engine_evloop_take_profile(e, p, trim);
	/* Windows overlap only in eval mode: the next profile starts before this one ends. */
	if (e->eval_mode && e->ws.n_samples) {
		e->win->trim_until_us = e->ws.last_sample_us;
		e->win->have_trim = true;
	}
	if (e->win->ct) {
		/* The profile is kept (taken over, not copied) while it is merged into the session's
		 * tree in slices, and afterwards for the last window's own tree, built only if it is
		 * saved: a 30 MB profile's tree costs tens of milliseconds. */
		calltree_merge_finish(e->win->ct);
		profile_release(&e->win->last_profile);
		e->win->last_profile = *p;
		memset(p, 0, sizeof *p);
		e->win->last_trim_us = trim;
		e->win->window_ct_stale = true;
		calltree_merge_begin(e->win->ct, &e->win->last_profile, trim);
		engine_timer_arm(e, e->win->merge_timer, 0);
	}
	cumulative_add(&e->win->cum, &e->ws);
	/* The window's new functions (and those whose map was loading) get their original
	 * names before anything shows them. */
	if (e->cfg.smap)
		origins_update(&e->win->origins, e->ft, e->cfg.smap);
	engine_window_done(e);
	if (e->burst_ending && e->state == ST_RUNNING)
		engine_burst_end(e);
}

static void engine_on_merge_slice(void *ud)
{
	struct engine *e = ud;

	if (e->win->ct && !calltree_merge_step(e->win->ct, ENGINE_MERGE_SLICE))
		engine_timer_arm(e, e->win->merge_timer, ENGINE_MERGE_PAUSE_S);
}

/* Makes a window of the profile that im carries (im->has_profile). */
static void engine_process_profile(struct engine *e, const struct inbox_msg *im)
{
	struct profile p;
	char *err = NULL;

	engine_timer_cancel(e, e->win->profile_timer);
	/* A large message's profile was parsed on the worker; a small one's is parsed here. */
	if (im->preread) {
		if (im->profile)
			engine_take_profile(e, im->profile);
		else
			engine_profile_invalid(e, im->profile_err);
		return;
	}
	if (profile_parse(im->profile_json.p, im->profile_json.n, e->ft, &p, &err) < 0) {
		engine_profile_invalid(e, err);
		free(err);
		return;
	}
	engine_take_profile(e, &p);
	profile_release(&p);
}

static void engine_arm_window(struct engine *e)
{
	double now = engine_mono_s(e);

	/* Windows keep a fixed cadence; after a stall, skip to the next slot. */
	e->win->next_window_s += e->cfg.delay_s;
	if (e->win->next_window_s < now)
		e->win->next_window_s = now + e->cfg.delay_s;
	engine_timer_arm(e, e->win->window_timer, e->win->next_window_s - now);
}

static void engine_on_rotated(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, "the window rotation (console.profile)"))
		return;
	/* The profile comes (as an event) before this reply; if it has not, wait a little. */
	if (e->state == ST_RUNNING && e->win->end_pending)
		engine_timer_arm(e, e->win->profile_timer, e->cfg.timeout_s);
}

static void engine_on_profile_timeout(void *ud)
{
	struct engine *e = ud;

	if (e->state == ST_RUNNING && e->win->end_pending)
		engine_fail(e, EXIT_TIMEOUT, xasprintf("the target ended a window but did not send "
			"its profile within %g s.", e->cfg.timeout_s));
}

static void engine_on_restarted(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	engine_reply_ok(ud, o, m, "Profiler.start");
}

static void engine_on_stopped(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	const struct inbox_msg *im;

	if (!engine_reply_ok(e, o, m, "Profiler.stop"))
		return;
	im = engine_msg(e, m);
	if (!im->has_profile) {
		engine_fail(e, EXIT_PROTOCOL, xstrdup("the target's Profiler.stop reply has no profile."));
		return;
	}
	if (e->state == ST_RUNNING)
		engine_process_profile(e, im);
}

/* Without the CPU profiler (--no-cpu, or until it has started) a window is a tick with no
 * samples: batch reports, -n and the live view keep their cadence, with memory only. */
static void engine_empty_window(struct engine *e)
{
	double now = engine_mono_s(e);

	window_stats_free(&e->ws);
	e->ws.end_us = (e->win->last_tick_s > 0 ? now - e->win->last_tick_s : e->cfg.delay_s) * 1e6;
	e->win->last_tick_s = now;
	engine_window_done(e);
}

static void engine_on_window_timer(void *ud)
{
	struct engine *e = ud;
	char expr[768];

	if (e->state != ST_RUNNING)
		return;
	engine_door_renew(e);
	if (!e->cpu_on) {
		engine_arm_window(e);
		engine_evloop_read(e);
		engine_requests_read(e);
		engine_empty_window(e);
		if (e->state == ST_RUNNING)
			engine_burst_due(e);
		return;
	}
	if (e->win->end_pending) {
		/* The previous window's profile has not arrived yet: the target is slow to answer.
		 * Let the running window grow rather than pile up requests. */
		e->win->windows_late++;
		engine_arm_window(e);
		return;
	}
	/* Before the rotation: its reply comes before the profile, so the window carries it. */
	engine_evloop_read(e);
	engine_requests_read(e);
	e->win->end_pending = true;
	/* A burst is one window: it ends here, with no next profile (engine_burst_end). */
	e->burst_ending = e->cfg.cpu_every_s > 0;
	if (e->eval_mode && e->burst_ending) {
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profileEnd('%s%llu')})("
			INSPECTOR_MODULE ".console)", e->title_prefix, e->win->seq);
		e->win->seq++;
		engine_evaluate(e, expr, engine_on_rotated);
	} else if (e->eval_mode) {
		char lease[256];
		engine_jit_renewal(e, lease, sizeof lease);
		/* Named: its cost (V8 serializing the ended profile) gets a row of its own. */
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profile('%s%llu');"
			"c.profileEnd('%s%llu')})(" INSPECTOR_MODULE ".console)%s", e->title_prefix,
			e->win->seq + 1, e->title_prefix, e->win->seq, lease);
		e->win->seq++;
		engine_evaluate(e, expr, engine_on_rotated);
		if (e->state == ST_RUNNING)
			engine_second_rotated(e, e->win->seq);
	} else {
		/* Stop and start back to back: the inspector runs them in order, so the gap between
		 * windows is as short as it can be without evaluating code. */
		engine_call(e, "Profiler.stop", NULL, engine_on_stopped);
		if (e->state == ST_RUNNING && !e->burst_ending)
			engine_call(e, "Profiler.start", NULL, engine_on_restarted);
	}
	if (e->state == ST_RUNNING)
		engine_arm_window(e);
}

/* ---- the profiler's start ---- */

static void engine_on_first_started(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, e->eval_mode ? "console.profile" : "Profiler.start"))
		return;
	if (e->state != ST_SETUP && !(e->cpu_starting && e->state == ST_RUNNING))
		return;
	/* The profiler runs now: code optimized from here on keeps its inlined frames. */
	engine_jit_start(e);
}

void engine_running(struct engine *e)
{
	if (e->cpu_starting) {
		/* Started later (--no-cpu, then engine_start_cpu): the windows already tick. A
		 * re-attach (--follow) keeps the profiler the user asked for. */
		e->cpu_starting = false;
		e->cpu_on = true;
		e->cfg.no_cpu = false;
		engine_second_running(e);
		return;
	}
	e->state = ST_RUNNING;
	e->cpu_on = !e->cfg.no_cpu;
	e->win->next_window_s = engine_mono_s(e);
	e->win->last_tick_s = e->win->next_window_s;
	/* The first burst is the first window; the next is due a period after its start. */
	e->win->next_burst_s = e->win->next_window_s + e->cfg.cpu_every_s;
	e->burst_ending = false;
	engine_arm_window(e);
	if (e->cpu_on)
		engine_second_running(e);
	engine_mem_start(e);
	engine_workers_start(e);
}

static void engine_start_first_window(struct engine *e)
{
	char expr[512];

	if (e->eval_mode) {
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profile('%s%llu')})("
			INSPECTOR_MODULE ".console)", e->title_prefix, e->win->seq);
		engine_evaluate(e, expr, engine_on_first_started);
	} else {
		engine_call(e, "Profiler.start", NULL, engine_on_first_started);
	}
}

static void engine_on_enabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, "Profiler.enable"))
		return;
	engine_notify_exit(e);
	if (e->state == ST_SETUP || (e->cpu_starting && e->state == ST_RUNNING))
		engine_start_first_window(e);
}

static void engine_on_interval_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, "Profiler.setSamplingInterval"))
		return;
	engine_call(e, "Profiler.enable", NULL, engine_on_enabled);
}

/* The interval before the enable: V8 refuses to change it once this session's agent has a
 * profiler, and an enabled agent gets one from any console.profile() in the target, such as
 * another ntop-js's rotation. */
static void engine_profiler_begin_first(struct engine *e)
{
	char params[64];

	snprintf(params, sizeof params, "{\"interval\":%ld}", e->cfg.interval_us);
	engine_call(e, "Profiler.setSamplingInterval", params, engine_on_interval_set);
}

/* The coarse sampler's session first, when there is one: its profiler must start with this
 * session's first window (engine_second.c says why). */
void engine_profiler_begin(struct engine *e)
{
	engine_second_open(e, engine_profiler_begin_first);
}

bool engine_cpu_refused(const struct engine *e, char **cause)
{
	if (!e->target_coverage)
		return false;
	if (cause)
		*cause = xstrdup("the CPU profiler stays off: the target collects precise coverage "
			"(NODE_V8_COVERAGE), which V8 would end when ntop-js leaves.");
	return true;
}

int engine_start_cpu(struct engine *e, char **cause)
{
	if (e->state != ST_RUNNING || !e->sess) {
		*cause = xstrdup("no target is connected.");
		return -1;
	}
	if (engine_cpu_refused(e, cause))
		return -1;
	if (e->cpu_on || e->cpu_starting) {
		*cause = xstrdup("the CPU profiler is already running.");
		return -1;
	}
	e->cpu_starting = true;
	/* Started by hand (the live view's c) between bursts: that is a burst, the next a period on. */
	if (e->cfg.cpu_every_s > 0)
		e->win->next_burst_s = engine_mono_s(e) + e->cfg.cpu_every_s;
	/* A fresh profile: its first sample covers the start (V8 listing the code), left out. */
	e->win->have_trim = false;
	engine_profiler_begin(e);
	return 0;
}

bool engine_cpu_on(const struct engine *e)
{
	return e->cpu_on;
}

bool engine_cpu_starting(const struct engine *e)
{
	return e->cpu_starting;
}

/* Profiler.consoleProfileFinished: the profile of the window that just ended (true: the
 * event was this one, whatever became of it). */
bool engine_window_event(struct engine *e, const struct protocol_msg *m)
{
	if (!json_string_eq(m->method, "Profiler.consoleProfileFinished"))
		return false;
	engine_window_profile_event(e, m, false);
	return true;
}

void engine_window_profile_event(struct engine *e, const struct protocol_msg *m, bool second)
{
	const struct inbox_msg *im;
	char want[96];

	if (e->state != ST_RUNNING || !e->win->end_pending || !e->eval_mode)
		return;
	/* Both sessions send every window's profile while both run: one of them is read. */
	if (engine_second_reads(e, e->win->seq - 1) != second)
		return;
	/* Profiles started by the app itself or by another debugger carry other titles. */
	snprintf(want, sizeof want, "%s%llu", e->title_prefix, e->win->seq - 1);
	im = engine_msg(e, m);
	if (!im->title.n || !json_string_eq(im->title, want))
		return;
	if (!im->has_profile) {
		engine_fail(e, EXIT_PROTOCOL, xstrdup("a finished profile came without its data."));
		return;
	}
	engine_process_profile(e, im);
}

/* ---- life cycle ---- */

void engine_window_new(struct engine *e)
{
	e->win = xcalloc(1, sizeof *e->win);
	e->win->window_timer = engine_timer_new(e, engine_on_window_timer);
	e->win->profile_timer = engine_timer_new(e, engine_on_profile_timeout);
	e->win->merge_timer = engine_timer_new(e, engine_on_merge_slice);
	origins_init(&e->win->origins);
	cumulative_init(&e->win->cum);
	if (e->cfg.calltree_max_samples) {
		e->win->ct = calltree_create(e->cfg.calltree_max_samples);
		e->win->window_ct = calltree_create(e->cfg.calltree_max_samples);
	}
}

/* A new session (--follow's re-attach): the counters and trees go on. */
void engine_window_reset(struct engine *e)
{
	e->win->seq = 0;
	e->win->end_pending = false;
	e->win->have_trim = false;
	e->win->invalid_in_row = 0;
	e->win->last_tick_s = 0;
}

void engine_window_stop(struct engine *e)
{
	engine_timer_cancel(e, e->win->window_timer);
	engine_timer_cancel(e, e->win->profile_timer);
}

void engine_window_free(struct engine *e)
{
	struct engine_windows *w = e->win;

	if (!w)
		return;
	engine_timer_free(e, w->window_timer);
	engine_timer_free(e, w->profile_timer);
	engine_timer_free(e, w->merge_timer);
	calltree_free(w->ct);
	calltree_free(w->window_ct);
	profile_release(&w->last_profile);
	cumulative_free(&w->cum);
	origins_free(&w->origins);
	free(w);
	e->win = NULL;
}

const struct functab *engine_functab(const struct engine *e)
{
	return e->ft;
}

/* The window handed over last was window seq - 1 (its profile came after the rotation). */
long engine_interval_us(const struct engine *e)
{
	return e->win->seq && engine_second_reads(e, e->win->seq - 1) ? e->cfg.later_interval_us :
		e->cfg.interval_us;
}

struct functab *engine_functab_names(struct engine *e)
{
	return e->ft;
}

const struct cumulative *engine_cumulative(const struct engine *e)
{
	return &e->win->cum;
}

const struct calltree *engine_calltree(struct engine *e)
{
	if (e->win->ct)
		calltree_merge_finish(e->win->ct);
	return e->win->ct;
}

const struct calltree *engine_window_calltree(struct engine *e)
{
	if (e->win->window_ct && e->win->window_ct_stale) {
		calltree_reset(e->win->window_ct);
		calltree_add(e->win->window_ct, &e->win->last_profile, e->win->last_trim_us);
		e->win->window_ct_stale = false;
	}
	return e->win->window_ct;
}

void engine_reset_cumulative(struct engine *e)
{
	cumulative_reset(&e->win->cum);
	if (e->win->ct)
		calltree_reset(e->win->ct);
}

size_t engine_windows_done(const struct engine *e)
{
	return e->windows_done;
}

size_t engine_windows_late(const struct engine *e)
{
	return e->win->windows_late;
}
