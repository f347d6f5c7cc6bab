/* engine.c: see engine.h. The connection to one target, its session and the dispatch of its
 * messages, the set-up and the leave; the CPU windows are engine_window.c's. */
#include "config.h"

#include "engine.h"
#include "engine_priv.h"
#include "aggregate.h"
#include "attach.h"
#include "exitcode.h"
#include "functab.h"
#include "inbox.h"
#include "jsonpull.h"
#include "session.h"
#include "strbuf.h"
#include "transport.h" /* struct transport_handlers only: the calls go through e->tp */
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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

/* The polite leave's end: the connection is dropped once every call has its answer. Node
 * (20.20 at least) frees a websocket's writer when the client's end of connection comes in,
 * but keeps its session until later: an answer written to it in between is a use after free
 * that kills the target (SIGSEGV in TcpHolder::WriteRaw, on the inspector's thread). A
 * --no-cpu session beside another ntop-js left with its leave's evaluations unanswered and
 * killed the target in one leave of 7 to 11. A target that never answers is left when the
 * leave's timer runs out (engine_on_leave_timeout). */
static void engine_close_when_answered(struct engine *e)
{
	if (e->sess && session_pending(e->sess) > 0) {
		e->close_when_answered = true;
		return;
	}
	engine_close_conn(e);
}

/* After a failure, how long a target that was sent inspector.close() has to end the connection
 * itself (engine_fail): a live one does in milliseconds. */
#define DOOR_CLOSE_WAIT_S 3.0

static void engine_finish(struct engine *e)
{
	int status = e->fail_status;

	if (e->state == ST_DONE)
		return;
	e->state = ST_DONE;
	engine_second_close(e);
	engine_workers_session_ended(e, e->fail_why ? e->fail_why : "the target's session ended");
	engine_mem_stop(e);
	engine_window_stop(e);
	engine_timer_cancel(e, e->expiry_timer);
	engine_timer_cancel(e, e->leave_timer);
	e->h->on_finished(e->ud, status, e->fail_why);
}

/* Whether the failure leaves a target that still answers: it refused a call or threw, or
 * ntop-js refused to go on (--max-pause). Its answers to the calls in flight are waited for
 * (DOOR_CLOSE_WAIT_S at most) before the connection is dropped: an answer that crosses the end
 * of connection can kill a Node 20 target (engine_close_when_answered). A target that stopped
 * answering or is leaving, and a peer that broke the protocol, are dropped at once. */
static bool engine_fail_waits(const struct engine *e)
{
	return !e->peer_broken && (e->fail_status == EXIT_PROTOCOL ||
		e->fail_status == EXIT_PAUSE || e->fail_status == EXIT_INTERNAL);
}

/* Records the first failure and ends the session without the polite leave (a target that
 * stopped answering would not answer that either): the connection is closed at once, or at the
 * answers to the calls in flight (engine_fail_waits). Closing the socket still ends the
 * inspector session, and with it every profile it started. */
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
	engine_window_stop(e);
	/* Node's inspector.close() frees a connection while its own close frame is being written:
	 * a client's close or end of connection that crosses it there is a use after free that
	 * kills the target (SIGSEGV in WsHandler::OnCloseFrameWritten, Node 20, caught after a
	 * --max-pause refusal on a loaded machine). So once the close is sent, the target ends
	 * both connections itself, as at the polite leave; one that does not within
	 * DOOR_CLOSE_WAIT_S (stopped, or its loop blocked) has not begun to close, and its
	 * connections are dropped: it reads the end with the close and handles it first. */
	if (engine_door_close_on_failure(e, status)) {
		engine_timer_arm(e, e->leave_timer, fmin(e->cfg.timeout_s, DOOR_CLOSE_WAIT_S));
		return;
	}
	engine_second_close(e);
	if (e->conn && engine_fail_waits(e)) {
		/* the calls in flight answered first, as at the polite leave (a later failure among
		 * those answers does not wait longer) */
		if (!e->close_when_answered)
			engine_timer_arm(e, e->leave_timer, fmin(e->cfg.timeout_s, DOOR_CLOSE_WAIT_S));
		engine_close_when_answered(e);
	} else if (e->conn) {
		/* A peer that never acknowledges the close must not keep ntop-js waiting. */
		engine_timer_arm(e, e->leave_timer, e->cfg.timeout_s);
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

/* The first line of what an evaluation threw (exceptionDetails.exception.description, or
 * its text), sanitized: "TypeError: x is not a function". Only called on a reply that has an
 * exception, which holds no profile, so the scan is short. */
static char *engine_exception_text(const struct protocol_msg *m)
{
	struct json_span det, exc, v;
	char *text = NULL, safe[200];
	size_t len = 0;

	/* the thrown value's description, in the details or as the result; else their text */
	if (json_object_get(m->result, "exceptionDetails", &det) != 1)
		return xstrdup("an exception without details");
	if (!(json_object_get(det, "exception", &exc) == 1 &&
	      json_object_get(exc, "description", &v) == 1 && json_string_decode(v, &text, &len) == 0) &&
	    !(json_object_get(m->result, "result", &exc) == 1 &&
	      json_object_get(exc, "description", &v) == 1 && json_string_decode(v, &text, &len) == 0) &&
	    !(json_object_get(det, "text", &v) == 1 && json_string_decode(v, &text, &len) == 0))
		return xstrdup("an exception without details");
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n') {
			len = i;
			break;
		}
	util_sanitize(text, len, safe, sizeof safe);
	free(text);
	return xstrdup(safe);
}

/* What the inbox found in m (inbox.h): the session hands on only the message being
 * dispatched, so m is e->cur's; anything else has no members worth finding. */
const struct inbox_msg *engine_msg(const struct engine *e, const struct protocol_msg *m)
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
		char *text = engine_exception_text(m);
		engine_fail(e, EXIT_PROTOCOL, xasprintf("%s threw an exception in the target: %s.",
			what, text));
		free(text);
		return false;
	}
	return true;
}

void engine_arm_expiry(struct engine *e)
{
	double now = engine_mono_s(e);
	double next = e->sess ? session_expire(e->sess, now) : 0;
	double next2 = engine_second_expire(e, now);

	if (next2 > 0 && (next <= 0 || next2 < next))
		next = next2;
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


static void engine_on_notify_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Worker sessions and old versions lack NodeRuntime: not worth failing for. */
}

/* Without this the target would wait for ntop-js to disconnect before it can exit. A worker
 * does not wait unless asked to by this very call (it then holds its exit until the session
 * detaches): a worker is never asked. */
void engine_notify_exit(struct engine *e)
{
	if (e->notify_sent || e->cfg.worker)
		return;
	e->notify_sent = true;
	engine_call(e, "NodeRuntime.notifyWhenWaitingForDisconnect", "{\"enabled\":true}",
		engine_on_notify_set);
}


/* ---- events ---- */

static void engine_on_event(void *ud, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (engine_window_event(e, m) || engine_mem_event(e, m) || engine_workers_event(e, m))
		return;
	if (json_string_eq(m->method, "NodeRuntime.waitingForDisconnect")) {
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
		e->peer_broken = true;
		engine_fail(e, EXIT_PROTOCOL, xasprintf("the target sent a message that is not the "
			"inspector protocol: \"%s\"%s.", start, im->len > 40 ? "..." : ""));
		return;
	}
	if (session_forged_replies(e->sess)) {
		e->peer_broken = true;
		engine_fail(e, EXIT_PROTOCOL, xstrdup("the target answered a request ntop-js never "
			"sent (a reply with an unknown id)."));
		return;
	}
	if (e->close_when_answered && session_pending(e->sess) == 0) {
		e->close_when_answered = false;
		engine_close_conn(e);
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

/* The profiler is off: close the inspector if ntop-js opened it, then the connection. Close
 * only what ntop-js opened: closing also ends every other debugger's session. */
void engine_close_inspector(struct engine *e)
{
	if (engine_door_close(e))
		return;
	if (e->target.opened_by_us && !e->eval_mode) {
		char *msg = xasprintf("the target's inspector stays open on %s: --no-eval forbids "
			"running the code that closes it.", e->target.host_header);
		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	engine_close_when_answered(e);
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
	/* The second session's profiler first (it calls back here when it is off). */
	if (engine_second_leave(e))
		return;
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
	engine_window_stop(e);
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
	e->expiry_timer = engine_timer_new(e, engine_on_expiry);
	e->leave_timer = engine_timer_new(e, engine_on_leave_timeout);
	e->ft = functab_create();
	e->inbox = inbox_create(l, e->ft, ENGINE_BIG_MESSAGE_BYTES, engine_on_inbox,
		engine_take_message, e);
	window_stats_init(&e->ws);
	engine_mem_init(e);
	engine_evloop_init(e);
	engine_requests_init(e);
	engine_workers_init(e);
	engine_window_new(e);
	engine_second_new(e);
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
	engine_window_reset(e);
	engine_second_reset(e);
	e->fail_status = EXIT_OK;
	free(e->fail_why);
	e->fail_why = NULL;
	e->eval_mode = !e->cfg.no_eval;
	e->notify_sent = false;
	e->cpu_on = false;
	e->cpu_starting = false;
	engine_jit_reset(e);
	engine_fix_free(e);
	engine_door_reset(e);
	return engine_start(e, cause);
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	engine_timer_free(e, e->expiry_timer);
	engine_timer_free(e, e->leave_timer);
	engine_second_free(e);
	inbox_free(e->inbox);
	session_free(e->sess);
	if (e->conn)
		e->tp.free(e->conn);
	engine_workers_free(e);
	engine_mem_free(e);
	engine_evloop_free(e);
	engine_requests_free(e);
	engine_window_free(e);
	window_stats_free(&e->ws);
	functab_free(e->ft);
	engine_fix_free(e);
	engine_jit_free(e);
	free(e->fail_why);
	free(e);
}

