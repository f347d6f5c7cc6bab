/* engine_second.c: the coarse sampler. V8's inspector fixes a session's sampling interval for
 * as long as its profiler runs (doc/benchmarks.md section 24), and a profiler started later
 * lists only the code attached to functions (not what was compiled on-stack), so a coarser
 * interval after the first seconds needs a second session whose profiler starts with the first
 * one's, before the attach's deoptimization: both see every piece of code compiled after it.
 * The window rotation's console.profile() reaches both sessions; their windows are read from
 * the first until later_after_s, then that one's profiler is disabled and the windows come
 * from the second, at later_interval_us. Main threads in eval mode only. Its state is its own
 * (struct engine_second). */
#include "config.h"

#include "engine.h"
#include "engine_priv.h"
#include "exitcode.h"
#include "inbox.h"
#include "session.h"
#include "transport.h" /* struct transport_handlers only: the calls go through e->tp */
#include "util.h"

#include <math.h>
#include <stdlib.h>

enum second_state {
	SEC_OFF,         /* not wanted, or not yet opened */
	SEC_CONNECTING,
	SEC_SETTING,     /* its interval and Profiler.enable under way */
	SEC_READY,       /* its profiles run beside the first session's, unread */
	SEC_READING,     /* the first session's profiler is off: the windows are its */
	SEC_LEAVING,     /* its Profiler.disable under way */
	SEC_GONE,
};

struct engine_second {
	enum second_state state;
	void *conn;
	struct session *sess;
	struct inbox *inbox;
	struct engine_timer *switch_timer;
	bool switch_due;
	unsigned long long first_read; /* the first window whose profile is the second's */
	void (*then)(struct engine *e); /* the set-up goes on here, opened or not */
};

/* ---- when ---- */

/* On V8 10 (Node 18) two profilers made the start's pause seconds long on a large program
 * (the TypeScript compiler: 6.8 s against 1.4 s with one, where V8 11-14 take 0.75 s more;
 * doc/benchmarks.md section 25): there the first session's interval stays. */
#define SECOND_MIN_V8_MAJOR 11

static bool second_v8_too_old(const struct engine *e)
{
	return e->pause_in.v8_major > 0 && e->pause_in.v8_major < SECOND_MIN_V8_MAJOR;
}

/* --later-interval asks for it, where it can be: a main thread in eval mode, no bursts. */
static bool second_asked(const struct engine *e)
{
	return e->cfg.later_interval_us > e->cfg.interval_us && e->eval_mode && !e->cfg.worker &&
		e->cfg.cpu_every_s <= 0;
}

bool engine_second_wanted(const struct engine *e)
{
	double one, listing;

	if (!second_asked(e) || second_v8_too_old(e))
		return false;
	/* A second profiler lists the code again at the start: not where that is over the pause
	 * the user allows (the first session's interval then stays). */
	one = engine_start_pause_one_s(e);
	listing = engine_listing_pause_s(e);
	return !isfinite(one) || !isfinite(listing) || one + listing <= e->cfg.max_pause_s;
}

bool engine_second_reads(const struct engine *e, unsigned long long window)
{
	return e->sec && e->sec->state == SEC_READING && window >= e->sec->first_read;
}

/* ---- its connection ---- */

/* The second session is not to be: the set-up goes on with the first one's interval. */
static void second_give_up(struct engine *e, const char *why)
{
	struct engine_second *s = e->sec;
	void (*then)(struct engine *) = s->then;
	char *msg;

	s->then = NULL;
	if (s->conn && s->state != SEC_GONE)
		e->tp.close(s->conn);
	s->state = SEC_GONE;
	if (!then)
		return;
	msg = xasprintf("the sampling interval stays %ld us: the second session that samples "
		"at %ld us after the first seconds could not be set up (%s).", e->cfg.interval_us,
		e->cfg.later_interval_us, why);
	e->h->on_notice(e->ud, msg);
	free(msg);
	then(e);
}

static int second_send(void *ud, const char *data, size_t len)
{
	struct engine *e = ud;

	return e->sec->conn ? e->tp.send(e->sec->conn, data, len) : -1;
}

static void second_call(struct engine *e, const char *method, const char *params,
	session_reply_fn cb)
{
	if (session_call(e->sec->sess, method, params, engine_mono_s(e), e->cfg.timeout_s, cb,
			e) < 0) {
		cb(e, SESSION_CLOSED, NULL);
		return;
	}
	engine_arm_expiry(e);
}

static bool second_reply_ok(enum session_outcome o, const struct protocol_msg *m)
{
	return o == SESSION_REPLY && m && !m->error.n && m->result.n;
}

static void second_on_enabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	void (*then)(struct engine *);

	if (e->sec->state != SEC_SETTING)
		return;
	if (!second_reply_ok(o, m)) {
		second_give_up(e, "Profiler.enable");
		return;
	}
	e->sec->state = SEC_READY;
	then = e->sec->then;
	e->sec->then = NULL;
	if (then)
		then(e);
}

static void second_on_interval_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (e->sec->state != SEC_SETTING)
		return;
	if (!second_reply_ok(o, m)) {
		second_give_up(e, "Profiler.setSamplingInterval");
		return;
	}
	second_call(e, "Profiler.enable", NULL, second_on_enabled);
}

/* Its profiles only: a window's, once the windows are its (engine_window.c decides). */
static void second_on_event(void *ud, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (json_string_eq(m->method, "Profiler.consoleProfileFinished"))
		engine_window_profile_event(e, m, true);
	else if (json_string_eq(m->method, "Inspector.detached") && e->sec->state == SEC_READING)
		engine_fail(e, EXIT_TARGET_GONE, xstrdup("the target detached ntop-js's second "
			"session (the one the windows came from)."));
}

static void second_on_open(void *ud)
{
	struct engine *e = ud;
	char params[64];

	if (e->sec->state != SEC_CONNECTING)
		return;
	e->sec->state = SEC_SETTING;
	e->sec->sess = session_create(second_send, e);
	session_set_event_handler(e->sec->sess, second_on_event, e);
	/* before its enable: V8 refuses the interval once the agent has a profiler */
	snprintf(params, sizeof params, "{\"interval\":%ld}", e->cfg.later_interval_us);
	second_call(e, "Profiler.setSamplingInterval", params, second_on_interval_set);
}

static void second_on_message(void *ud, const char *data, size_t len)
{
	struct engine *e = ud;

	if (e->sec->sess && e->sec->state != SEC_GONE && e->state != ST_DONE)
		inbox_push(e->sec->inbox, data, len);
}

static char *second_take_message(void *ud)
{
	struct engine *e = ud;

	return e->sec->conn ? e->tp.take_message(e->sec->conn) : NULL;
}

static void second_on_inbox(void *ud, struct inbox_msg *im)
{
	struct engine *e = ud;
	int rc = -1;

	if (!e->sec->sess || e->sec->state == SEC_GONE || e->state == ST_DONE)
		return;
	if (im->valid) {
		e->cur = im;
		rc = session_dispatch(e->sec->sess, &im->m);
		e->cur = NULL;
	}
	if (rc < 0 || session_forged_replies(e->sec->sess)) {
		if (e->sec->state == SEC_READING)
			engine_fail(e, EXIT_PROTOCOL, xstrdup("the target sent a message that is not the "
				"inspector protocol on ntop-js's second session."));
		else
			second_give_up(e, "a message that is not the inspector protocol");
		return;
	}
	engine_arm_expiry(e);
}

static void second_on_closed(void *ud, const char *why)
{
	struct engine *e = ud;
	enum second_state was = e->sec->state;

	e->sec->state = SEC_GONE; /* closed: nothing is sent on it again */
	if (e->sec->sess)
		session_close(e->sec->sess);
	if (was == SEC_CONNECTING || was == SEC_SETTING)
		second_give_up(e, why);
	else if (was == SEC_READING && e->state == ST_RUNNING)
		engine_fail(e, EXIT_TARGET_GONE, xasprintf("the connection of ntop-js's second session "
			"(the one the windows came from) was lost: %s", why));
	else if (was == SEC_LEAVING && e->state == ST_LEAVING)
		engine_disable_profiler(e); /* its profiler went with it: the leave goes on */
}

static const struct transport_handlers second_handlers = {
	.on_open = second_on_open,
	.on_message = second_on_message,
	.on_closed = second_on_closed,
};

void engine_second_open(struct engine *e, void (*then)(struct engine *e))
{
	char *cause = NULL;

	if (e->sec->state == SEC_OFF && second_asked(e) && second_v8_too_old(e)) {
		char *msg = xasprintf("the sampling interval stays %ld us: on V8 %d a second profiler "
			"for %ld us makes the start's pause seconds long.", e->cfg.interval_us,
			e->pause_in.v8_major, e->cfg.later_interval_us);

		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	if (e->sec->state != SEC_OFF || !engine_second_wanted(e)) {
		then(e);
		return;
	}
	e->sec->then = then;
	e->sec->state = SEC_CONNECTING;
	if (!e->sec->inbox)
		e->sec->inbox = inbox_create(e->loop, e->ft, ENGINE_BIG_MESSAGE_BYTES, second_on_inbox,
			second_take_message, e);
	e->sec->conn = e->tp.connect(e->tp.ctx, &e->target, e->cfg.max_message_bytes,
		&second_handlers, e, &cause);
	if (!e->sec->conn) {
		second_give_up(e, cause ? cause : "no connection");
		free(cause);
	}
}

/* ---- the switch ---- */

static void second_on_switch_timer(void *ud)
{
	struct engine *e = ud;

	if (e->sec->state == SEC_READY)
		e->sec->switch_due = true;
}

void engine_second_running(struct engine *e)
{
	if (e->sec->state == SEC_READY)
		engine_timer_arm(e, e->sec->switch_timer, e->cfg.later_after_s);
}

static void second_on_first_disabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* (the windows are the second session's already; a refusal leaves a sampler running) */
}

void engine_second_rotated(struct engine *e, unsigned long long next)
{
	struct engine_second *s = e->sec;

	if (!s->switch_due || s->state != SEC_READY || e->state != ST_RUNNING)
		return;
	s->switch_due = false;
	/* The rotation just sent started window next in both sessions; the first session's
	 * profiler goes off after it (in order, on its connection), so that window and the later
	 * ones are the second's. */
	s->state = SEC_READING;
	s->first_read = next;
	engine_call(e, "Profiler.disable", NULL, second_on_first_disabled);
}

/* ---- leaving ---- */

static void second_on_disabled(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (e->sec->state != SEC_LEAVING)
		return;
	if (e->sec->conn)
		e->tp.close(e->sec->conn);
	e->sec->state = SEC_GONE;
	engine_disable_profiler(e);
}

bool engine_second_leave(struct engine *e)
{
	struct engine_second *s = e->sec;

	switch (s->state) {
	case SEC_CONNECTING:
		e->tp.close(s->conn);
		s->state = SEC_GONE;
		return false;
	case SEC_SETTING:
	case SEC_READY:
	case SEC_READING:
		/* its profiler off before the first's: the JIT's leave wants no profiler running */
		s->state = SEC_LEAVING;
		engine_timer_cancel(e, s->switch_timer);
		/* (its reply, or a failure to send, goes on with the leave: second_on_disabled) */
		second_call(e, "Profiler.disable", NULL, second_on_disabled);
		return true;
	case SEC_LEAVING:
		return true;
	default:
		return false;
	}
}

void engine_second_close(struct engine *e)
{
	struct engine_second *s = e->sec;

	engine_timer_cancel(e, s->switch_timer);
	if (s->conn && s->state != SEC_GONE && s->state != SEC_OFF)
		e->tp.close(s->conn);
	if (s->state != SEC_OFF)
		s->state = SEC_GONE;
	s->then = NULL;
}

double engine_second_expire(struct engine *e, double now)
{
	return e->sec->sess ? session_expire(e->sec->sess, now) : 0;
}

/* ---- life cycle ---- */

void engine_second_new(struct engine *e)
{
	e->sec = xcalloc(1, sizeof *e->sec);
	e->sec->switch_timer = engine_timer_new(e, second_on_switch_timer);
}

static void second_release(struct engine *e)
{
	struct engine_second *s = e->sec;

	if (s->inbox)
		inbox_free(s->inbox);
	s->inbox = NULL;
	session_free(s->sess);
	s->sess = NULL;
	if (s->conn)
		e->tp.free(s->conn);
	s->conn = NULL;
}

void engine_second_reset(struct engine *e)
{
	engine_timer_cancel(e, e->sec->switch_timer);
	second_release(e);
	e->sec->state = SEC_OFF;
	e->sec->switch_due = false;
	e->sec->then = NULL;
}

void engine_second_free(struct engine *e)
{
	if (!e->sec)
		return;
	second_release(e);
	engine_timer_free(e, e->sec->switch_timer);
	free(e->sec);
	e->sec = NULL;
}
