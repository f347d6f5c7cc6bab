/* engine.c: see engine.h. */
#include "config.h"

#include "engine.h"
#include "engine_priv.h"
#include "aggregate.h"
#include "cumulative.h"
#include "attach.h"
#include "calltree.h"
#include "exitcode.h"
#include "functab.h"
#include "jsonpull.h"
#include "inbox.h"
#include "profile.h"
#include "session.h"
#include "strbuf.h"
#include "transport.h" /* struct transport_handlers only: the calls go through e->tp */
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Invalid profiles in a row that end the session. */
#define ENGINE_INVALID_MAX 3
/* Messages at least this large are read on a worker thread (inbox.h): about 3 ms of work. */
#define ENGINE_BIG_MESSAGE_BYTES ((size_t)1 << 20)
/* Nodes or samples merged into the session's call tree per turn of the event loop (a few
 * milliseconds' work), and the pause between turns, in which keys and the screen are served. */
#define ENGINE_MERGE_SLICE 16384
#define ENGINE_MERGE_PAUSE_S 0.001


double engine_mono_s(const struct engine *e)
{
	return e->clock.mono_s(e->clock.ctx);
}

double engine_wall_s(const struct engine *e)
{
	return e->clock.wall_s(e->clock.ctx);
}

struct engine_timer *engine_timer_new(struct engine *e, void (*cb)(void *ud))
{
	return e->clock.timer_create(e->clock.ctx, cb, e);
}

void engine_timer_arm(struct engine *e, struct engine_timer *t, double delay_s)
{
	e->clock.timer_arm(t, delay_s);
}

void engine_timer_cancel(struct engine *e, struct engine_timer *t)
{
	e->clock.timer_cancel(t);
}

void engine_timer_free(struct engine *e, struct engine_timer *t)
{
	if (t)
		e->clock.timer_free(t);
}

/* Asks the connection, if any, for a clean close; on_closed follows. */
static void engine_close_conn(struct engine *e)
{
	if (e->conn)
		e->tp.close(e->conn);
}

static void engine_finish(struct engine *e)
{
	int status = e->fail_status;

	if (e->state == ST_DONE)
		return;
	e->state = ST_DONE;
	engine_workers_session_ended(e, e->fail_why ? e->fail_why : "the target's session ended");
	engine_mem_stop(e);
	engine_timer_cancel(e, e->window_timer);
	engine_timer_cancel(e, e->expiry_timer);
	engine_timer_cancel(e, e->leave_timer);
	engine_timer_cancel(e, e->profile_timer);
	e->h->on_finished(e->ud, status, e->fail_why);
}

/* Records the first failure and ends the session at once: the connection is closed without
 * the polite leave (a target that stopped answering would not answer that either). Closing
 * the socket still ends the inspector session, and with it every profile it started. */
void engine_fail(struct engine *e, int status, char *why)
{
	if (e->fail_status == EXIT_OK) {
		e->fail_status = status;
		e->fail_why = why;
	} else {
		free(why);
	}
	if (e->state == ST_DONE)
		return;
	e->state = ST_LEAVING;
	engine_mem_stop(e);
	engine_timer_cancel(e, e->window_timer);
	engine_timer_cancel(e, e->profile_timer);
	if (e->conn) {
		/* A peer that never acknowledges the close must not keep ntop-js waiting. */
		engine_timer_arm(e, e->leave_timer, e->cfg.timeout_s);
		engine_door_close_on_failure(e, status);
		engine_close_conn(e);
	} else {
		engine_finish(e);
	}
}

static char *engine_error_text(const struct protocol_msg *m)
{
	struct json_span msg;
	char *text = NULL, safe[200];

	if (json_object_get(m->error, "message", &msg) == 1 && json_string_decode(msg, &text, NULL) == 0) {
		util_sanitize(text, strlen(text), safe, sizeof safe);
		free(text);
		return xstrdup(safe);
	}
	return xstrdup("an error without a message");
}

/* What the inbox found in m (inbox.h): the session hands on only the message being
 * dispatched, so m is e->cur's; anything else has no members worth finding. */
static const struct inbox_msg *engine_msg(const struct engine *e, const struct protocol_msg *m)
{
	static const struct inbox_msg none;

	return e->cur && m == &e->cur->m ? e->cur : &none;
}

void engine_member_text(struct json_span obj, const char *key, char *out, size_t outsz)
{
	struct json_span v;
	char *text = NULL;
	size_t len = 0;

	out[0] = '\0';
	if (json_object_get(obj, key, &v) == 1 && json_string_decode(v, &text, &len) == 0) {
		util_sanitize(text, len, out, outsz);
		free(text);
	}
}

/* Common handling of a reply: true if it is a successful result. */
bool engine_reply_ok(struct engine *e, enum session_outcome o, const struct protocol_msg *m,
	const char *what)
{
	if (o == SESSION_CLOSED)
		return false;
	if (o == SESSION_TIMEOUT) {
		engine_fail(e, EXIT_TIMEOUT, xasprintf("the target did not answer %s within %g s; it may "
			"be stopped or stuck in a long native call.", what, e->cfg.timeout_s));
		return false;
	}
	if (m->error.n) {
		char *text = engine_error_text(m);
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target refused %s: %s.", what, text));
		free(text);
		return false;
	}
	if (m->result.n == 0 || json_span_type(m->result) != JSON_T_OBJECT) {
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target's reply to %s has no result.", what));
		return false;
	}
	/* (The inbox listed the reply's members: a 30 MB result is not scanned again.) */
	if (engine_msg(e, m)->has_exception) {
		engine_fail(e, EXIT_PROTOCOL, xasprintf("%s threw an exception in the target.", what));
		return false;
	}
	return true;
}

void engine_arm_expiry(struct engine *e)
{
	double now = engine_mono_s(e);
	double next = e->sess ? session_expire(e->sess, now) : 0;

	if (e->state == ST_DONE)
		return;
	if (next > 0)
		engine_timer_arm(e, e->expiry_timer, next - now);
	else
		engine_timer_cancel(e, e->expiry_timer);
}

static void engine_on_expiry(void *ud)
{
	struct engine *e = ud;

	/* Before the session exists this timer bounds the websocket handshake. */
	if (e->state == ST_CONNECTING) {
		engine_fail(e, EXIT_TIMEOUT, xasprintf("the inspector at %s did not open its websocket "
			"within %g s.", e->target.host_header, e->cfg.timeout_s));
		return;
	}
	engine_arm_expiry(e);
}

static int engine_send(void *ud, const char *data, size_t len)
{
	struct engine *e = ud;

	return e->conn ? e->tp.send(e->conn, data, len) : -1;
}

void engine_call_timeout(struct engine *e, const char *method, const char *params,
	double timeout_s, session_reply_fn cb)
{
	if (!e->sess || session_call(e->sess, method, params, engine_mono_s(e), timeout_s, cb,
			e) < 0) {
		engine_fail(e, EXIT_TARGET_GONE, xasprintf("the connection to the target was lost "
			"before %s could be sent.", method));
		return;
	}
	engine_arm_expiry(e);
}

void engine_call(struct engine *e, const char *method, const char *params, session_reply_fn cb)
{
	engine_call_timeout(e, method, params, e->cfg.timeout_s, cb);
}

void engine_evaluate(struct engine *e, const char *expr, session_reply_fn cb)
{
	struct strbuf p;

	strbuf_init(&p);
	strbuf_puts(&p, "{\"expression\":");
	strbuf_json_string(&p, expr, strlen(expr));
	strbuf_puts(&p, ",\"includeCommandLineAPI\":true,\"silent\":true,\"returnByValue\":true}");
	engine_call(e, "Runtime.evaluate", p.data, cb);
	strbuf_free(&p);
}

/* ---- windows ---- */

static void engine_burst_end(struct engine *e);

/* One profile could not be read. One bad profile costs a window; a target that sends
 * nothing else is not profiled at all, which must not go on silently (or forever, with -n). */
static void engine_profile_invalid(struct engine *e, const char *err)
{
	e->end_pending = false;
	if (++e->invalid_in_row >= ENGINE_INVALID_MAX) {
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target sent %u invalid profiles in "
			"a row; the last one: %s", e->invalid_in_row, err ? err : "?"));
	} else if (e->invalid_in_row == 1) {
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
	e->last_tick_s = engine_mono_s(e);
	engine_jit_pause_profiler(e);
}

/* At a window without a profile: starts a burst when one is due. */
static void engine_burst_due(struct engine *e)
{
	double now = engine_mono_s(e), pause_s;
	char *cause = NULL;

	/* Windows tick on a cadence from the same start: half a window of slack. */
	if (e->cfg.cpu_every_s <= 0 || e->cpu_starting || now + e->cfg.delay_s / 2 < e->next_burst_s)
		return;
	e->next_burst_s += e->cfg.cpu_every_s;
	if (e->next_burst_s <= now)
		e->next_burst_s = now + e->cfg.cpu_every_s;
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
	return fmax(0, e->next_burst_s - engine_mono_s(e));
}

/* A parsed profile becomes a window. */
static void engine_take_profile(struct engine *e, struct profile *p)
{
	double trim = e->have_trim ? e->trim_until_us : -INFINITY;

	e->end_pending = false;
	e->invalid_in_row = 0;
	/* A window's first sample also covers the time since the profile started; when the
	 * profiler itself was (re)started for it, that is V8 listing every compiled function
	 * again (up to 200 ms in a large app), not the app's work: leave it out. */
	if (!e->have_trim && p->n_samples)
		trim = p->start_time_us + (p->time_deltas[0] > 0 ? (double)p->time_deltas[0] : 0);
	engine_fix_profile(e, p);
	aggregate_window(p, e->ft, trim, &e->ws);
	engine_evloop_take_profile(e, p, trim);
	/* Windows overlap only in eval mode: the next profile starts before this one ends. */
	if (e->eval_mode && e->ws.n_samples) {
		e->trim_until_us = e->ws.last_sample_us;
		e->have_trim = true;
	}
	if (e->ct) {
		/* The profile is kept (taken over, not copied) while it is merged into the session's
		 * tree in slices, and afterwards for the last window's own tree, built only if it is
		 * saved: a 30 MB profile's tree costs tens of milliseconds. */
		calltree_merge_finish(e->ct);
		profile_release(&e->last_profile);
		e->last_profile = *p;
		memset(p, 0, sizeof *p);
		e->last_trim_us = trim;
		e->window_ct_stale = true;
		calltree_merge_begin(e->ct, &e->last_profile, trim);
		engine_timer_arm(e, e->merge_timer, 0);
	}
	cumulative_add(&e->cum, &e->ws);
	/* The window's new functions (and those whose map was loading) get their original
	 * names before anything shows them. */
	if (e->cfg.smap)
		origins_update(&e->origins, e->ft, e->cfg.smap);
	engine_window_done(e);
	if (e->burst_ending && e->state == ST_RUNNING)
		engine_burst_end(e);
}

static void engine_on_merge_slice(void *ud)
{
	struct engine *e = ud;

	if (e->ct && !calltree_merge_step(e->ct, ENGINE_MERGE_SLICE))
		engine_timer_arm(e, e->merge_timer, ENGINE_MERGE_PAUSE_S);
}

/* Makes a window of the profile that im carries (im->has_profile). */
static void engine_process_profile(struct engine *e, const struct inbox_msg *im)
{
	struct profile p;
	char *err = NULL;

	engine_timer_cancel(e, e->profile_timer);
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
	e->next_window_s += e->cfg.delay_s;
	if (e->next_window_s < now)
		e->next_window_s = now + e->cfg.delay_s;
	engine_timer_arm(e, e->window_timer, e->next_window_s - now);
}

static void engine_on_rotated(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!engine_reply_ok(e, o, m, "the window rotation (console.profile)"))
		return;
	/* The profile comes (as an event) before this reply; if it has not, wait a little. */
	if (e->state == ST_RUNNING && e->end_pending)
		engine_timer_arm(e, e->profile_timer, e->cfg.timeout_s);
}

static void engine_on_profile_timeout(void *ud)
{
	struct engine *e = ud;

	if (e->state == ST_RUNNING && e->end_pending)
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
	e->ws.end_us = (e->last_tick_s > 0 ? now - e->last_tick_s : e->cfg.delay_s) * 1e6;
	e->last_tick_s = now;
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
	if (e->end_pending) {
		/* The previous window's profile has not arrived yet: the target is slow to answer.
		 * Let the running window grow rather than pile up requests. */
		e->windows_late++;
		engine_arm_window(e);
		return;
	}
	/* Before the rotation: its reply comes before the profile, so the window carries it. */
	engine_evloop_read(e);
	engine_requests_read(e);
	e->end_pending = true;
	/* A burst is one window: it ends here, with no next profile (engine_burst_end). */
	e->burst_ending = e->cfg.cpu_every_s > 0;
	if (e->eval_mode && e->burst_ending) {
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profileEnd('%s%llu')})("
			INSPECTOR_MODULE ".console)", e->title_prefix, e->seq);
		e->seq++;
		engine_evaluate(e, expr, engine_on_rotated);
	} else if (e->eval_mode) {
		char lease[256];
		engine_jit_renewal(e, lease, sizeof lease);
		/* Named: its cost (V8 serializing the ended profile) gets a row of its own. */
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profile('%s%llu');"
			"c.profileEnd('%s%llu')})(" INSPECTOR_MODULE ".console)%s", e->title_prefix,
			e->seq + 1, e->title_prefix, e->seq, lease);
		e->seq++;
		engine_evaluate(e, expr, engine_on_rotated);
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
		return;
	}
	e->state = ST_RUNNING;
	e->cpu_on = !e->cfg.no_cpu;
	e->next_window_s = engine_mono_s(e);
	e->last_tick_s = e->next_window_s;
	/* The first burst is the first window; the next is due a period after its start. */
	e->next_burst_s = e->next_window_s + e->cfg.cpu_every_s;
	e->burst_ending = false;
	engine_arm_window(e);
	engine_mem_start(e);
	engine_workers_start(e);
}

static void engine_start_first_window(struct engine *e)
{
	char expr[512];

	if (e->eval_mode) {
		snprintf(expr, sizeof expr, "(function ntopJsWindow(c){c.profile('%s%llu')})("
			INSPECTOR_MODULE ".console)", e->title_prefix, e->seq);
		engine_evaluate(e, expr, engine_on_first_started);
	} else {
		engine_call(e, "Profiler.start", NULL, engine_on_first_started);
	}
}

static void engine_on_notify_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Worker sessions and old versions lack NodeRuntime: not worth failing for. */
}

/* Without this the target would wait for ntop-js to disconnect before it can exit. A worker
 * does not wait unless asked to by this very call (it then holds its exit until the session
 * detaches): a worker is never asked. */
static void engine_notify_exit(struct engine *e)
{
	if (e->notify_sent || e->cfg.worker)
		return;
	e->notify_sent = true;
	engine_call(e, "NodeRuntime.notifyWhenWaitingForDisconnect", "{\"enabled\":true}",
		engine_on_notify_set);
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

/* ---- events ---- */

static void engine_on_event(void *ud, const struct protocol_msg *m)
{
	struct engine *e = ud;
	const struct inbox_msg *im = engine_msg(e, m);
	char want[96];

	if (json_string_eq(m->method, "Profiler.consoleProfileFinished")) {
		if (e->state != ST_RUNNING || !e->end_pending || !e->eval_mode)
			return;
		/* Profiles started by the app itself or by another debugger carry other titles. */
		snprintf(want, sizeof want, "%s%llu", e->title_prefix, e->seq - 1);
		if (!im->title.n || !json_string_eq(im->title, want))
			return;
		if (!im->has_profile) {
			engine_fail(e, EXIT_PROTOCOL, xstrdup("a finished profile came without its data."));
			return;
		}
		engine_process_profile(e, im);
	} else if (engine_mem_event(e, m) || engine_workers_event(e, m)) {
		return;
	} else if (json_string_eq(m->method, "NodeRuntime.waitingForDisconnect")) {
		/* The target wants to exit: let it go at once. */
		engine_fail(e, EXIT_TARGET_GONE, e->target.pid ?
			xasprintf("the target (PID %d) exited.", (int)e->target.pid) :
			xstrdup("the target exited."));
	} else if (json_string_eq(m->method, "Inspector.detached")) {
		engine_fail(e, EXIT_TARGET_GONE, xstrdup("the target detached ntop-js's session."));
	}
}

/* ---- transport ---- */

static void engine_on_open(void *ud)
{
	struct engine *e = ud;

	if (e->state != ST_CONNECTING)
		return;
	e->state = ST_SETUP;
	e->sess = session_create(engine_send, e);
	session_set_event_handler(e->sess, engine_on_event, e);
	/* Memory only (--no-cpu) never touches the profiler, so nothing pauses the target. */
	if (e->cfg.no_cpu)
		engine_notify_exit(e);
	if (e->state == ST_SETUP) {
		engine_door_open(e);
		engine_pause_check(e);
	}
}

/* The interval before the enable: V8 refuses to change it once this session's agent has a
 * profiler, and an enabled agent gets one from any console.profile() in the target, such as
 * another ntop-js's rotation. */
void engine_profiler_begin(struct engine *e)
{
	char params[64];

	snprintf(params, sizeof params, "{\"interval\":%ld}", e->cfg.interval_us);
	engine_call(e, "Profiler.setSamplingInterval", params, engine_on_interval_set);
}

int engine_start_cpu(struct engine *e, char **cause)
{
	if (e->state != ST_RUNNING || !e->sess) {
		*cause = xstrdup("no target is connected.");
		return -1;
	}
	if (e->cpu_on || e->cpu_starting) {
		*cause = xstrdup("the CPU profiler is already running.");
		return -1;
	}
	e->cpu_starting = true;
	/* Started by hand (the live view's c) between bursts: that is a burst, the next a period on. */
	if (e->cfg.cpu_every_s > 0)
		e->next_burst_s = engine_mono_s(e) + e->cfg.cpu_every_s;
	/* A fresh profile: its first sample covers the start (V8 listing the code), left out. */
	e->have_trim = false;
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

static void engine_on_message(void *ud, const char *data, size_t len)
{
	struct engine *e = ud;

	if (!e->sess || e->state == ST_DONE)
		return;
	inbox_push(e->inbox, data, len);
}

/* The inbox may keep the transport's buffer of a message instead of copying it. */
static char *engine_take_message(void *ud)
{
	struct engine *e = ud;

	return e->conn ? e->tp.take_message(e->conn) : NULL;
}

/* A message from the target, in order, its envelope read. */
static void engine_on_inbox(void *ud, struct inbox_msg *im)
{
	struct engine *e = ud;
	int rc;

	if (!e->sess || e->state == ST_DONE)
		return;
	rc = -1;
	if (im->valid) {
		e->cur = im;
		rc = session_dispatch(e->sess, &im->m);
		e->cur = NULL;
	}
	if (rc < 0) {
		char start[48];
		util_sanitize(im->data, im->len < 40 ? im->len : 40, start, sizeof start);
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target sent a message that is not the "
			"inspector protocol: \"%s\"%s.", start, im->len > 40 ? "..." : ""));
		return;
	}
	if (session_forged_replies(e->sess)) {
		engine_fail(e, EXIT_PROTOCOL, xstrdup("the target answered a request ntop-js never "
			"sent (a reply with an unknown id)."));
		return;
	}
	engine_arm_expiry(e);
}

static void engine_on_closed(void *ud, const char *why)
{
	struct engine *e = ud;
	enum engine_state was = e->state;

	if (was == ST_DONE)
		return;
	engine_door_connection_ended(e);
	e->state = ST_LEAVING; /* no new calls from the callbacks below */
	if (e->sess)
		session_close(e->sess);
	if (was == ST_LEAVING) {
		engine_finish(e);
		return;
	}
	if (was == ST_CONNECTING)
		engine_fail(e, EXIT_UNREACHABLE, xstrdup(why));
	else if (e->conn && e->tp.too_large(e->conn))
		engine_fail(e, EXIT_PROTOCOL, xstrdup(why));
	else if (e->target.pid && !attach_pid_alive(e->target.pid))
		engine_fail(e, EXIT_TARGET_GONE, xasprintf("the target (PID %d) exited.",
			(int)e->target.pid));
	else
		engine_fail(e, EXIT_TARGET_GONE, xasprintf("the connection to the target was lost: %s",
			why));
	engine_finish(e);
}

static const struct transport_handlers engine_transport_handlers = {
	.on_open = engine_on_open,
	.on_message = engine_on_message,
	.on_closed = engine_on_closed,
};

/* ---- leaving ---- */

static void engine_on_leave_timeout(void *ud)
{
	struct engine *e = ud;

	/* The target did not close the connection after the inspector was closed: close it. */
	engine_close_conn(e);
	engine_finish(e);
}

static void engine_on_closed_inspector(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	/* Closing the inspector normally ends the connection before any reply: a reply means
	 * it stayed open. */
	if (o == SESSION_REPLY) {
		e->door.close_answered = true;
		engine_close_conn(e);
	}
}

/* The profiler is off: close the inspector if ntop-js opened it, then the connection. Close
 * only what ntop-js opened: closing also ends every other debugger's session. */
void engine_close_inspector(struct engine *e)
{
	if (engine_door_close(e, engine_on_closed_inspector))
		return;
	if (e->target.opened_by_us && !e->eval_mode) {
		char *msg = xasprintf("the target's inspector stays open on %s: --no-eval forbids "
			"running the code that closes it.", e->target.host_header);
		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	engine_close_conn(e);
}

static void engine_on_disabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o == SESSION_CLOSED)
		return;
	/* The JIT's flags go back with the profiler off (engine_jit.c says why); then the door. */
	engine_jit_leave(e);
}

void engine_disable_profiler(struct engine *e)
{
	/* --no-cpu, and the profiler never started: it is not touched at all. */
	if (e->cfg.no_cpu && !e->cpu_on && !e->cpu_starting && e->sess) {
		engine_close_inspector(e);
		return;
	}
	/* Disabling the profiler ends every profile this session started. */
	if (!e->sess || session_call(e->sess, "Profiler.disable", NULL, engine_mono_s(e),
			e->cfg.timeout_s, engine_on_disabled, e) < 0)
		engine_close_conn(e);
	else
		engine_arm_expiry(e);
}

static void engine_on_heap_disabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o == SESSION_CLOSED)
		return;
	engine_disable_profiler(e);
}

void engine_stop(struct engine *e)
{
	if (e->state == ST_LEAVING || e->state == ST_DONE)
		return;
	if (e->state == ST_IDLE) {
		engine_finish(e);
		return;
	}
	if (e->state == ST_CONNECTING) {
		e->state = ST_LEAVING;
		engine_close_conn(e);
		return;
	}
	e->state = ST_LEAVING;
	engine_mem_stop(e);
	engine_mem_leave(e);
	engine_evloop_leave(e);
	engine_requests_leave(e);
	engine_timer_cancel(e, e->window_timer);
	engine_timer_arm(e, e->leave_timer, e->cfg.timeout_s);
	/* Allocation sampling stops with the HeapProfiler domain (without the full GC that
	 * stopSampling would force). */
	if (e->mem.heap_enabled && e->sess && session_call(e->sess, "HeapProfiler.disable", NULL,
			engine_mono_s(e), e->cfg.timeout_s, engine_on_heap_disabled, e) >= 0) {
		engine_arm_expiry(e);
		return;
	}
	engine_disable_profiler(e);
}

/* ---- life cycle ---- */

struct engine *engine_create(struct loop *l, const struct engine_transport *tp,
	const struct engine_clock *clock, const struct attach_result *target,
	const struct engine_config *cfg, const struct engine_handlers *h, void *ud)
{
	struct engine *e = xcalloc(1, sizeof *e);
	unsigned long long nonce;

	engine_jit_new(e);
	e->loop = l;
	e->tp = *tp;
	e->clock = *clock;
	e->target = *target;
	e->cfg = *cfg;
	e->h = h;
	e->ud = ud;
	e->eval_mode = !cfg->no_eval;
	nonce = ((unsigned long long)getpid() << 20) ^ (unsigned long long)(engine_wall_s(e) * 1e6);
	snprintf(e->title_prefix, sizeof e->title_prefix, "ntop-js-%llx-", nonce & 0xffffffffffULL);
	e->window_timer = engine_timer_new(e, engine_on_window_timer);
	e->expiry_timer = engine_timer_new(e, engine_on_expiry);
	e->leave_timer = engine_timer_new(e, engine_on_leave_timeout);
	e->profile_timer = engine_timer_new(e, engine_on_profile_timeout);
	e->merge_timer = engine_timer_new(e, engine_on_merge_slice);
	e->ft = functab_create();
	origins_init(&e->origins);
	e->inbox = inbox_create(l, e->ft, ENGINE_BIG_MESSAGE_BYTES, engine_on_inbox,
		engine_take_message, e);
	cumulative_init(&e->cum);
	window_stats_init(&e->ws);
	engine_mem_init(e);
	engine_evloop_init(e);
	engine_requests_init(e);
	if (cfg->calltree_max_samples) {
		e->ct = calltree_create(cfg->calltree_max_samples);
		e->window_ct = calltree_create(cfg->calltree_max_samples);
	}
	return e;
}

int engine_start(struct engine *e, char **cause)
{
	e->state = ST_CONNECTING;
	e->conn = e->tp.connect(e->tp.ctx, &e->target, e->cfg.max_message_bytes,
		&engine_transport_handlers, e, cause);
	if (!e->conn) {
		e->state = ST_DONE;
		return -1;
	}
	if (e->state == ST_CONNECTING)
		engine_timer_arm(e, e->expiry_timer, e->cfg.timeout_s);
	return 0;
}

int engine_restart(struct engine *e, const struct attach_result *target, char **cause)
{
	if (e->state != ST_DONE) {
		*cause = xstrdup("the session is still running.");
		return -1;
	}
	session_free(e->sess);
	e->sess = NULL;
	if (e->conn)
		e->tp.free(e->conn);
	e->conn = NULL;
	engine_mem_reset_session(e);
	engine_evloop_reset_session(e);
	engine_requests_reset_session(e);
	/* A profile of the old process still being read must not become a window of the new. */
	inbox_drop(e->inbox);
	memseries_mark_gap(e->mem.series, engine_wall_s(e));
	e->target = *target;
	e->seq = 0;
	e->end_pending = false;
	e->have_trim = false;
	e->invalid_in_row = 0;
	e->fail_status = EXIT_OK;
	free(e->fail_why);
	e->fail_why = NULL;
	e->eval_mode = !e->cfg.no_eval;
	e->notify_sent = false;
	e->cpu_on = false;
	e->cpu_starting = false;
	e->last_tick_s = 0;
	engine_jit_reset(e);
	engine_fix_free(e);
	engine_door_reset(e);
	return engine_start(e, cause);
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	engine_timer_free(e, e->window_timer);
	engine_timer_free(e, e->expiry_timer);
	engine_timer_free(e, e->leave_timer);
	engine_timer_free(e, e->profile_timer);
	engine_timer_free(e, e->merge_timer);
	inbox_free(e->inbox);
	session_free(e->sess);
	if (e->conn)
		e->tp.free(e->conn);
	engine_workers_free(e);
	engine_mem_free(e);
	engine_evloop_free(e);
	engine_requests_free(e);
	calltree_free(e->ct);
	calltree_free(e->window_ct);
	profile_release(&e->last_profile);
	window_stats_free(&e->ws);
	cumulative_free(&e->cum);
	functab_free(e->ft);
	origins_free(&e->origins);
	engine_fix_free(e);
	engine_jit_free(e);
	free(e->fail_why);
	free(e);
}

const struct functab *engine_functab(const struct engine *e)
{
	return e->ft;
}

const struct cumulative *engine_cumulative(const struct engine *e)
{
	return &e->cum;
}

const struct calltree *engine_calltree(struct engine *e)
{
	if (e->ct)
		calltree_merge_finish(e->ct);
	return e->ct;
}

const struct calltree *engine_window_calltree(struct engine *e)
{
	if (e->window_ct && e->window_ct_stale) {
		calltree_reset(e->window_ct);
		calltree_add(e->window_ct, &e->last_profile, e->last_trim_us);
		e->window_ct_stale = false;
	}
	return e->window_ct;
}

void engine_reset_cumulative(struct engine *e)
{
	cumulative_reset(&e->cum);
	if (e->ct)
		calltree_reset(e->ct);
}

size_t engine_windows_done(const struct engine *e)
{
	return e->windows_done;
}

size_t engine_windows_late(const struct engine *e)
{
	return e->windows_late;
}
