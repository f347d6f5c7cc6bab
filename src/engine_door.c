/* engine_door.c: the inspector ntop-js opened, closed again whatever ends the session.
 *
 * An open inspector is code execution in the target for any local user, so the inspector that
 * SIGUSR1 opened for this session must not outlive it. Three ways make sure of that:
 * - the polite leave evaluates inspector.close() once the profiler is off (engine.c);
 * - a failure that leaves the connection up (a refusal, a call that timed out, a peer that
 *   broke the protocol) sends the same evaluation before the connection drops: the target runs
 *   what it received even after the socket closed, so a stopped or busy target closes it when
 *   it runs again;
 * - a lease in the target: an unref'd timer that closes the inspector once ntop-js has stopped
 *   renewing it (killed, its connection lost), unless a client is still connected to it (a
 *   stopped ntop-js), which Node's inspector.close() would wait for with the application's
 *   loop blocked. A lease left by an earlier ntop-js that died (not renewed for half a lease)
 *   is taken over: that inspector was about to close, so this session closes it too; a live
 *   session's lease is left to it.
 * With --no-eval nothing can run in the target and the inspector stays open (engine.c says so). */
#include "config.h"

#include "engine_priv.h"
#include "exitcode.h"
#include "jsonpull.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define DOOR_KEY "Symbol.for('ntop-js.door')"
/* The target's timer checks the lease this often. */
#define DOOR_CHECK_MS 5000
/* A check that comes this late found the target's loop blocked (a long GC, a heap snapshot):
 * the renewals queued meanwhile have not run yet, so the lease is given that long again. */
#define DOOR_LATE_MS 15000
/* Leases (the door's and the JIT flags') last at least this long past their last renewal, and
 * three windows and twice the timeout if that is longer. */
#define LEASE_MIN_S 60.0
#define DOOR_STR_(x) #x
#define DOOR_STR(x) DOOR_STR_(x)
#define FS_MODULE "(process.getBuiltinModule ? process.getBuiltinModule('fs') : require('fs'))"

/* Installs (or takes over) the lease, tagged with this session's nonce (id). Returns 1 when
 * this session is to close the inspector: it opened it (o), or an earlier ntop-js that died
 * left its lease there (not renewed for half a lease); 2 when another session's lease is alive
 * (that session closes it); 0 otherwise. At a lapse, while a client is still connected to the
 * inspector (a stopped ntop-js: /proc/self/net shows the connection), the lease waits: Node's
 * inspector.close() waits for every client to leave, with the application's loop blocked. */
static const char door_open_head[] =
	"(function(i,g,k,L,o,F,id){var p=g[k],n=Date.now();if(p&&p.id!==id&&n-p.w<L/2)return 2;"
	"if(!o&&!p)return 0;var s=g[k]={id:id,until:n+L,w:n,l:n};"
	"function busy(){try{var m=/:(\\d+)\\//.exec(i.url()||''),h;if(!m)return false;"
	"h=(+m[1]).toString(16).toUpperCase();while(h.length<4)h='0'+h;h=':'+h;"
	"return['tcp','tcp6'].some(function(x){var t;try{t=F.readFileSync('/proc/self/net/'+x,"
	"'latin1')}catch(e){return false}return t.split('\\n').some(function(r){"
	"var c=r.trim().split(/\\s+/);return c[3]==='01'&&String(c[1]).slice(-5)===h})})}"
	"catch(e){return false}}"
	JS_LATER_HEAD "if(p)clearInterval(p.t);if(g[k]!==s)return;"
	"s.t=setInterval(function(){var n=Date.now();if(n-s.l>" DOOR_STR(DOOR_LATE_MS) ")"
	"s.until=Math.max(s.until,n+" DOOR_STR(DOOR_LATE_MS) ");s.l=n;if(n<=s.until)return;"
	"if(busy()){s.until=n+" DOOR_STR(DOOR_LATE_MS) ";return}clearInterval(s.t);"
	"if(g[k]===s)delete g[k];try{i.close()}catch(x){}}," DOOR_STR(DOOR_CHECK_MS) ");"
	"if(s.t.unref)s.t.unref();" JS_LATER_TAIL "return 1})(" INSPECTOR_MODULE ",globalThis," DOOR_KEY ",";

/* Removes this session's lease, then closes: the close ends this connection, so nothing runs
 * after it. */
static const char door_close_head[] =
	"(function(i,g,k,id){var s=g[k];if(s&&s.id===id){delete g[k];" JS_LATER_HEAD "clearInterval(s.t);"
	JS_LATER_TAIL "}i.close()})("
	INSPECTOR_MODULE ",globalThis," DOOR_KEY ",'";

double engine_lease_s(const struct engine *e)
{
	double s = 3 * e->cfg.delay_s + 2 * e->cfg.timeout_s;

	return s > LEASE_MIN_S ? s : LEASE_MIN_S;
}

/* Workers share the main thread's inspector: their engines have no door of their own. */
static bool door_applies(const struct engine *e)
{
	return e->eval_mode && !e->cfg.worker;
}

bool engine_door_ours(const struct engine *e)
{
	return e->target.opened_by_us || e->door.adopted;
}

static void door_on_opened(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, val;
	double v = 0;

	if (o != SESSION_REPLY || m->error.n)
		return; /* without a lease the polite leave and the failure paths still close it */
	if (json_object_get(m->result, "result", &res) == 1 &&
	    json_object_get(res, "value", &val) == 1 && json_number(val, &v) == 0 && v == 1) {
		e->door.leased = true;
		if (!e->target.opened_by_us)
			e->door.adopted = true;
	}
}

void engine_door_open(struct engine *e)
{
	char expr[sizeof door_open_head + sizeof FS_MODULE + 128];

	if (!door_applies(e))
		return;
	/* the nonce is letters, digits and '-': safe inside the quotes */
	snprintf(expr, sizeof expr, "%s%.0f,%s," FS_MODULE ",'%s')", door_open_head,
		engine_lease_s(e) * 1e3, e->target.opened_by_us ? "true" : "false", e->title_prefix);
	e->door.next_renew_s = engine_mono_s(e) + engine_lease_s(e) / 4;
	engine_evaluate(e, expr, door_on_opened);
}

static void door_on_renewed(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* A lost renewal is made up by the next; a target that stopped answering fails the
	 * session through the other calls' deadlines. */
}

void engine_door_renew(struct engine *e)
{
	char expr[256];

	if (!door_applies(e) || !e->door.leased || !e->sess || e->state != ST_RUNNING ||
	    engine_mono_s(e) < e->door.next_renew_s)
		return;
	e->door.next_renew_s = engine_mono_s(e) + engine_lease_s(e) / 4;
	snprintf(expr, sizeof expr, "(function(s,id){if(s&&s.id===id){s.w=Date.now();"
		"s.until=s.w+%.0f}})(globalThis[" DOOR_KEY "],'%s')", engine_lease_s(e) * 1e3,
		e->title_prefix);
	engine_evaluate(e, expr, door_on_renewed);
}

/* Closing the inspector ends the connection before any reply: a reply means it stayed open,
 * nothing is closing, and the connection can go. */
static void door_on_close_reply(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o == SESSION_REPLY) {
		e->door.close_answered = true;
		if (e->conn)
			e->tp.close(e->conn);
	}
}

bool engine_door_close(struct engine *e)
{
	char expr[sizeof door_close_head + 80];

	if (!door_applies(e) || !engine_door_ours(e) || !e->sess || e->door.close_sent)
		return false;
	e->door.close_sent = true;
	snprintf(expr, sizeof expr, "%s%s')", door_close_head, e->title_prefix);
	engine_evaluate(e, expr, door_on_close_reply);
	return true;
}

bool engine_door_close_on_failure(struct engine *e, int status)
{
	/* A target that exited has nothing open; one that asked to exit must not be held. */
	if (status == EXIT_TARGET_GONE || !e->conn)
		return false;
	engine_door_close(e);
	return e->door.close_sent && !e->door.close_answered;
}

void engine_door_connection_ended(struct engine *e)
{
	/* The close's evaluation ends the connection before it can reply; a reply means it
	 * failed. */
	if (e->door.close_sent && !e->door.close_answered)
		e->door.closed = true;
}

bool engine_inspector_left_open(const struct engine *e)
{
	return e && engine_door_ours(e) && !e->door.closed;
}

void engine_door_reset(struct engine *e)
{
	memset(&e->door, 0, sizeof e->door);
}
