/* engine_jit.c: the engine's JIT step (jitplan.h). Once the first profile runs, it learns the
 * target's V8 version and flags in one evaluation and, up to V8 13, either starts the repair
 * of the profiles (engine_fix.c) or switches off the inlining whose callees the profiler
 * cannot name; either way it deoptimizes all code once (a break at an unused built-in's
 * entry, else a switch of the coverage mode), so that hot code is optimized again under the
 * profiler. With the flags switched, at detach it puts them back and deoptimizes once more,
 * so that V8 optimizes the code with its inlining. */
#include "config.h"

#include "engine_priv.h"
#include "jitplan.h"
#include "jsonpull.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The JIT step's state, for the life of the engine (a re-attach resets it). */
struct engine_jit {
	struct jit_plan plan;         /* what the JIT step does to the target */
	bool flags_set;               /* its flags were sent: put them back at detach */
	double deopt_sent_s;
	char break_obj[128];          /* the built-in a break deoptimizes with (objectId) */
	double pause_ms;              /* how long the deoptimization took, reply to reply */
	struct jit_plan off;          /* inlining off, for a repair that meets minified code */
	bool switching;               /* the repair's plan is being changed for off */
	bool minified;                /* minified code was hot: later plans are off's */
	size_t exact_after;           /* windows_done from which rows are exact again */
};

void engine_jit_new(struct engine *e)
{
	e->jit = xcalloc(1, sizeof *e->jit);
}

void engine_jit_free(struct engine *e)
{
	free(e->jit);
	e->jit = NULL;
}

/* Where the target keeps the lease on the flags (below). */
#define JIT_LEASE_KEY "globalThis[Symbol.for('ntop-js.jit')]"

/* Run in the target when the flags go back (at detach, after a CPU burst, or by the lease's
 * timer): code V8 optimized while they were off has no inlining, and would stay so until V8
 * happened to optimize it again (a server a fifth slower after ntop-js left: doc/benchmarks.md
 * section 18).
 * Switching the coverage mode deoptimizes all code once, as the attach did, so that hot code
 * is optimized again, now with its inlining. An in-process session does it, so that the
 * lease's timer can too, with ntop-js gone; it is synchronous, and the mode ends as it was.
 * This switch leaves bytecode flushing off for the life of the process (doc/inlining.md),
 * which the attach's break did not: only --inlining off comes here. */
#define JIT_DEOPT_JS "try{var S=new I.Session();S.connect();try{S.post('Profiler.enable');" \
	"S.post('Profiler.startPreciseCoverage',{callCount:false,detailed:false});" \
	"S.post('Profiler.stopPreciseCoverage');S.post('Profiler.disable')}finally{S.disconnect()}}" \
	"catch(e){}"

/* The attach's deoptimization, without switching bytecode flushing off for the life of the
 * process as a coverage switch does: a break set at a built-in's entry deoptimizes all code
 * (the built-in may be inlined anywhere; OSR code too, on V8 10-14), and removed at once. It
 * works once per built-in (a built-in stays prepared for debugging, and a second break there
 * deoptimizes nothing), so each is one that server code hardly calls (Annex B methods, rare
 * Math functions: a call of one afterwards goes through V8's debug trampoline, and is not
 * inlined), and the target counts those used under a Symbol.for key; when none is left, or
 * any step is refused, the coverage switch does it (doc/inlining.md). Switched off for now:
 * the plan's deopt_by_break is false on every version, since targets died of it (jitplan.c). */
static const char jit_break_pick[] =
	"(function(){var K=Symbol.for('ntop-js.deopt'),s=String.prototype,o=Object.prototype,"
	"M=Math,L=[s.anchor,s.big,s.blink,s.bold,s.fixed,s.fontcolor,s.fontsize,s.italics,s.link,"
	"s.small,s.strike,s.sub,s.sup,Date.prototype.getYear,Date.prototype.setYear,"
	"RegExp.prototype.compile,o.__defineGetter__,o.__defineSetter__,o.__lookupGetter__,"
	"o.__lookupSetter__,M.sinh,M.cosh,M.tanh,M.asinh,M.acosh,M.atanh,M.expm1,M.log1p,M.cbrt],"
	"i=globalThis[K]|0;if(i>=L.length||typeof L[i]!=='function')return null;"
	"Object.defineProperty(globalThis,K,{value:i+1,configurable:true,writable:true});"
	"return L[i]})()";

/* What the plan depends on, read in one evaluation. */
static const char jit_probe_expr[] =
	"(function(p){var o=p.env||{};return {v8:p.versions.v8,"
	"flags:(p.execArgv||[]).join(' ')+' '+(o.NODE_OPTIONS||''),cov:!!o.NODE_V8_COVERAGE}})(process)";

/* The JIT step runs while the first profile starts: at attach, or when the CPU profiler is
 * started later (--no-cpu). Once the engine leaves, nothing more is changed. */
static bool jit_pending(const struct engine *e)
{
	return e->state == ST_SETUP || (e->state == ST_RUNNING && (e->cpu_starting ||
		e->jit->switching));
}

static void jit_done(struct engine *e)
{
	if (e->jit->switching) /* a change during the session: the windows never stopped */
		e->jit->switching = false;
	else if (jit_pending(e))
		engine_running(e);
}

/* A step's reply: true to go on. A step the target refuses (an error, an exception) is not
 * worth ending the session for: the windows start, and say that inlined callees may be in
 * their callers. No reply in time still ends it, as for any call. */
static bool jit_step_ok(struct engine *e, enum session_outcome o, const struct protocol_msg *m,
	const char *what)
{
	struct json_span exc;

	if (o == SESSION_REPLY && (m->error.n || (m->result.n &&
	    json_object_get(m->result, "exceptionDetails", &exc) == 1))) {
		/* The flags already sent stay in the plan, to be put back at detach. */
		e->jit->plan.exact = false;
		e->jit->plan.deopt = false;
		e->jit->plan.caveat = what;
		jit_done(e);
		return false;
	}
	return engine_reply_ok(e, o, m, what);
}

static void jit_on_coverage_stopped(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!jit_step_ok(e, o, m, "the target refused to stop precise coverage"))
		return;
	e->jit->pause_ms = (engine_mono_s(e) - e->jit->deopt_sent_s) * 1e3;
	jit_done(e);
}

static void jit_on_coverage_started(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!jit_step_ok(e, o, m, "the target refused precise coverage"))
		return;
	/* Back to best-effort coverage at once: the switch itself deoptimized everything. */
	engine_call(e, "Profiler.stopPreciseCoverage", NULL, jit_on_coverage_stopped);
}

/* A call whose one parameter is a string the target gave (JSON-escaped here). */
static void jit_call_with(struct engine *e, const char *method, const char *key,
	const char *value, session_reply_fn cb)
{
	struct strbuf p;

	strbuf_init(&p);
	strbuf_printf(&p, "{\"%s\":", key);
	strbuf_json_string(&p, value, strlen(value));
	strbuf_puts(&p, "}");
	engine_call(e, method, p.data, cb);
	strbuf_free(&p);
}

static void jit_on_ignored(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	(void)ud;
	(void)o;
	(void)m;
}

static void jit_deopt_by_coverage(struct engine *e)
{
	e->jit->deopt_sent_s = engine_mono_s(e);
	engine_call(e, "Profiler.startPreciseCoverage", "{\"callCount\":false,\"detailed\":false}",
		jit_on_coverage_started);
}

/* A step of the break's way failed or is refused: the coverage switch instead, unless the
 * engine is leaving. */
static bool jit_break_failed(struct engine *e, enum session_outcome o, const struct protocol_msg *m)
{
	if (o != SESSION_REPLY)
		return !engine_reply_ok(e, o, m, "the deoptimization");
	if (!m->error.n)
		return false;
	if (jit_pending(e))
		jit_deopt_by_coverage(e);
	return true;
}

static void jit_on_debugger_off(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o != SESSION_REPLY && !engine_reply_ok(e, o, m, "the deoptimization"))
		return;
	/* a refused disable leaves nothing armed: the break is gone already */
	jit_done(e);
}

static void jit_on_break_removed(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o != SESSION_REPLY && !engine_reply_ok(e, o, m, "the deoptimization"))
		return;
	jit_call_with(e, "Runtime.releaseObject", "objectId", e->jit->break_obj, jit_on_ignored);
	engine_call(e, "Debugger.disable", NULL, jit_on_debugger_off);
}

static void jit_on_break_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	char id[128];

	if (o == SESSION_REPLY && m->error.n) {
		engine_call(e, "Debugger.disable", NULL, jit_on_ignored);
		jit_break_failed(e, o, m);
		return;
	}
	if (o != SESSION_REPLY && !engine_reply_ok(e, o, m, "the deoptimization"))
		return;
	e->jit->pause_ms = (engine_mono_s(e) - e->jit->deopt_sent_s) * 1e3;
	engine_member_text(m->result, "breakpointId", id, sizeof id);
	if (!id[0]) {
		engine_call(e, "Debugger.disable", NULL, jit_on_debugger_off);
		return;
	}
	jit_call_with(e, "Debugger.removeBreakpoint", "breakpointId", id, jit_on_break_removed);
}

static void jit_on_debugger_on(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (jit_break_failed(e, o, m))
		return;
	e->jit->deopt_sent_s = engine_mono_s(e);
	jit_call_with(e, "Debugger.setBreakpointOnFunctionCall", "objectId", e->jit->break_obj,
		jit_on_break_set);
}

static void jit_on_break_picked(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res;

	if (jit_break_failed(e, o, m))
		return;
	e->jit->break_obj[0] = '\0';
	if (json_object_get(m->result, "result", &res) == 1) {
		char type[16];

		engine_member_text(res, "type", type, sizeof type);
		if (!strcmp(type, "function"))
			engine_member_text(res, "objectId", e->jit->break_obj, sizeof e->jit->break_obj);
	}
	if (!e->jit->break_obj[0]) {
		jit_deopt_by_coverage(e); /* none left (null), or an answer not understood */
		return;
	}
	engine_call(e, "Debugger.enable", NULL, jit_on_debugger_on);
}

static void jit_deopt(struct engine *e)
{
	struct strbuf p;

	if (!jit_pending(e))
		return; /* leaving already: nothing more to change */
	if (!e->jit->plan.deopt) {
		jit_done(e);
		return;
	}
	if (!e->jit->plan.deopt_by_break) {
		jit_deopt_by_coverage(e);
		return;
	}
	strbuf_init(&p);
	strbuf_puts(&p, "{\"expression\":");
	strbuf_json_string(&p, jit_break_pick, sizeof jit_break_pick - 1);
	strbuf_puts(&p, ",\"silent\":true}");
	engine_call(e, "Runtime.evaluate", p.data, jit_on_break_picked);
	strbuf_free(&p);
}

static void jit_on_flags_set(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (!jit_step_ok(e, o, m, "the target refused v8.setFlagsFromString"))
		return;
	jit_deopt(e);
}

static void jit_set_flags(struct engine *e);

static void jit_on_probe(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, val, cov;
	char v8[64], flags[1024];
	bool cov_on;

	if (!jit_step_ok(e, o, m, "the target refused the V8 version check") || !jit_pending(e))
		return;
	if (json_object_get(m->result, "result", &res) != 1 ||
	    json_object_get(res, "value", &val) != 1 || json_span_type(val) != JSON_T_OBJECT) {
		jit_plan_leave("the target did not say its V8 version", &e->jit->plan);
		jit_done(e);
		return;
	}
	engine_member_text(val, "v8", v8, sizeof v8);
	engine_member_text(val, "flags", flags, sizeof flags);
	cov_on = json_object_get(val, "cov", &cov) == 1 && json_span_type(cov) == JSON_T_TRUE;
	jit_plan_make(v8, flags, cov_on, e->cfg.jit_method, engine_jit_can_repair(e), &e->jit->plan);
	/* The plan for minified code, which the repair cannot look into (engine_jit_minified):
	 * by default only, and on the main thread, whose engine sets the flags for all. */
	memset(&e->jit->off, 0, sizeof e->jit->off);
	if (e->jit->plan.repair && e->cfg.jit_method == JIT_AUTO && !e->cfg.worker)
		jit_plan_make(v8, flags, cov_on, JIT_OFF, false, &e->jit->off);
	if (e->jit->minified && e->jit->off.set[0]) { /* a later CPU burst of the same target */
		e->jit->plan = e->jit->off;
	} else if (e->jit->minified && e->jit->plan.repair) {
		e->jit->plan.exact = false; /* the repair stays (asked for, or a worker): say so again */
		e->jit->plan.caveat = "minified code is not repaired";
	}
	/* The repair: no flag, but one deoptimization: code V8 optimized before the profiler ran
	 * for a loop (OSR) or held only by a feedback vector (closures made per call) is not
	 * listed to it, and its samples land on the callers' call lines
	 * (express's handleRequest: 2.8-7.9 % without, 0.1-1.7 % with it; doc/inlining.md);
	 * optimized again, it keeps its inlining. */
	if (e->jit->plan.repair) {
		engine_fix_start(e);
		jit_deopt(e);
		return;
	}
	if (e->cfg.jit_method == JIT_REPAIR && !engine_jit_can_repair(e) && jit_v8_major(v8) <= 13)
		engine_fix_start(e); /* says why it cannot */
	jit_set_flags(e);
}

/* Sends the plan's flags (then deoptimizes), or only deoptimizes when it has none. */
static void jit_set_flags(struct engine *e)
{
	char expr[2048];

	/* A worker shares V8's flags with the main thread, whose engine set them (and puts them
	 * back): this isolate's code is only deoptimized, to be optimized again under them. */
	if (e->cfg.worker) {
		e->jit->plan.set[0] = '\0';
		e->jit->plan.restore[0] = '\0';
	}
	if (!e->jit->plan.set[0]) {
		jit_deopt(e);
		return;
	}
	/* The flags come from jitplan's own table, never from the target. V8 cannot be asked for
	 * a flag's value, but cachedDataVersionTag() hashes the flags: a flag whose switching
	 * changes it was on, and only those are put back (the app may have switched one off at
	 * run time). The target keeps that list in a lease: if ntop-js goes away without putting
	 * them back (killed, the connection lost), an unref'd timer there does it once the lease,
	 * renewed by every window, lapses. A lease still there from an ntop-js that died (not
	 * renewed for half a lease) is settled first: its flags go back on, so that this session
	 * finds them as the app had them, and its timer cannot later undo this session's. A live
	 * session's lease (another ntop-js watching) is left to it: the flags are its to put
	 * back. */
	snprintf(expr, sizeof expr, "(function(v,I,g,k,L,id){var p=g[k],n=Date.now();"
		"if(p&&p.id!==id&&n-p.w<L/2)return null;if(p){" JS_LATER_HEAD "clearInterval(p.t);"
		JS_LATER_TAIL
		"if(p.r)v.setFlagsFromString(p.r)}var t=v.cachedDataVersionTag,l='%s'.split(' '),"
		"r=[];for(var i=0;i<l.length;i++){var a=t();v.setFlagsFromString('--no-'+l[i].slice(2));"
		"if(t()!==a)r.push(l[i])}var s=g[k]={id:id,until:n+L,w:n,r:r.join(' ')};"
		"s.b=function(){" JS_LATER_HEAD "clearInterval(s.t);" JS_LATER_TAIL
		"if(g[k]===s)delete g[k];if(!s.r)return;"
		"v.setFlagsFromString(s.r);" JIT_DEOPT_JS "};"
		JS_LATER_HEAD "if(g[k]!==s)return;"
		"s.t=setInterval(function(){if(Date.now()>s.until)s.b()},5000);"
		"if(s.t.unref)s.t.unref();" JS_LATER_TAIL "return s.r})(" V8_MODULE "," INSPECTOR_MODULE ",globalThis,"
		"Symbol.for('ntop-js.jit'),%.0f,'%s')", e->jit->plan.restore, engine_lease_s(e) * 1e3,
		e->title_prefix);
	/* Marked at once: a leave that starts before the reply must still put them back (the
	 * inspector runs the two evaluations in order). */
	e->jit->flags_set = true;
	engine_evaluate(e, expr, jit_on_flags_set);
}

/* Minified code has many functions on one line, and a profile's line ticks have no column:
 * the repair cannot find the callees V8 inlined there (inlinefix.h). When such code holds a
 * share of the samples, the default plan turns inlining off instead, as --inlining off does:
 * the code deoptimized once more, optimized again without it, and the flags put back at
 * detach. Said once, in a notice; --inlining repair keeps the repair. */
void engine_jit_minified(struct engine *e, double pct)
{
	char *msg;

	if (e->jit->minified || e->cpu_starting || e->state != ST_RUNNING)
		return; /* said already, or a burst's probe is on its way: the next window asks again */
	e->jit->minified = true;
	/* The window that ends the session or a CPU burst: switching now would only be undone at
	 * once (two more deoptimizations, for nothing profiled); the next burst starts with
	 * inlining off. */
	if (e->jit->plan.repair && e->jit->off.set[0] && (e->burst_ending || (e->cfg.iterations &&
	    e->windows_done + 1 >= (size_t)e->cfg.iterations))) {
		msg = xasprintf("minified code holds %.0f %% of the samples, where the repair cannot "
			"tell inlined functions apart%s.", pct, e->burst_ending ? ": the next CPU burst "
			"switches V8's inlining off" : "");
		e->h->on_notice(e->ud, msg);
		free(msg);
		e->jit->plan.exact = false;
		e->jit->plan.caveat = "minified code is not repaired";
		return;
	}
	if (!e->jit->plan.repair || !e->jit->off.set[0]) {
		msg = xasprintf("minified code holds %.0f %% of the samples, and the functions V8 "
			"inlined there stay in their callers%s.", pct, e->cfg.worker ? "" :
			" (--inlining off tells them apart)");
		e->h->on_notice(e->ud, msg);
		free(msg);
		e->jit->plan.exact = false;
		e->jit->plan.caveat = "minified code is not repaired";
		return;
	}
	msg = xasprintf("minified code holds %.0f %% of the samples, where the repair cannot tell "
		"inlined functions apart: V8's inlining is switched off while ntop-js is attached "
		"(--inlining repair keeps it on).", pct);
	e->h->on_notice(e->ud, msg);
	free(msg);
	engine_fix_free(e);
	e->jit->plan = e->jit->off;
	/* the windows until V8 has optimized the code again without inlining are not exact */
	e->jit->exact_after = e->windows_done + 2;
	e->jit->switching = true;
	jit_set_flags(e);
}

void engine_jit_renewal(const struct engine *e, char *out, size_t outsz)
{
	out[0] = '\0';
	/* In a function: a var at the top level of an evaluation would be a global of the app. */
	if (e->jit->flags_set)
		snprintf(out, outsz, ";(function(s,id){if(s&&s.id===id){s.w=Date.now();"
			"s.until=s.w+%.0f}})(" JIT_LEASE_KEY ",'%s')", engine_lease_s(e) * 1e3,
			e->title_prefix);
}

/* The repair reads the target's scripts with its rights: only for a PID, with source maps. */
bool engine_jit_can_repair(const struct engine *e)
{
	return e->cfg.smap != NULL && e->eval_mode;
}

void engine_jit_start(struct engine *e)
{
	if (!e->eval_mode || e->cfg.jit_method == JIT_KEEP) {
		jit_plan_leave(e->eval_mode ? "--leave-jit" : "--no-eval", &e->jit->plan);
		jit_done(e);
		/* without the version (--no-eval) a V8 14 profile, which needs no repair, could not
		 * be told apart */
		if (e->cfg.jit_method == JIT_REPAIR)
			e->h->on_notice(e->ud, "inlined functions are not repaired with --no-eval: the "
				"target's V8 version is not known.");
		return;
	}
	engine_evaluate(e, jit_probe_expr, jit_on_probe);
}

static bool engine_jit_restore(struct engine *e, session_reply_fn next)
{
	char expr[400];

	if (!e->jit->flags_set || !e->sess)
		return false;
	e->jit->flags_set = false;
	/* What goes back is what the target noted it switched off (above). */
	snprintf(expr, sizeof expr, "(function(s,id){if(s&&s.id===id)s.b()})(" JIT_LEASE_KEY
		",'%s')", e->title_prefix);
	engine_evaluate(e, expr, next);
	return e->state != ST_DONE;
}

/* The restore's reply: false if the session is gone. A refusal costs a notice: the target
 * puts the flags back itself when the lease lapses. */
static bool jit_restore_replied(struct engine *e, enum session_outcome o,
	const struct protocol_msg *m, const char *when)
{
	if (o == SESSION_CLOSED)
		return false;
	if (o != SESSION_REPLY || m->error.n) {
		char *msg = xasprintf("the target's V8 flags could not be put back %s: the target "
			"puts them back itself within %.0f s.", when, engine_lease_s(e));
		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	return true;
}

static void jit_on_restored(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (jit_restore_replied(e, o, m, "now"))
		engine_close_inspector(e);
}

/* Leaving, with the profiler already off: the flags go back, then the door closes. Off
 * first, so that the deoptimization that comes with the flags, and V8's recompiling after it,
 * are not profiled. */
void engine_jit_leave(struct engine *e)
{
	if (!engine_jit_restore(e, jit_on_restored))
		engine_close_inspector(e);
}

static void jit_on_profiler_off(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Nothing to do: a profiler the target would not disable is ended with the session. */
}

static void jit_profiler_off(struct engine *e)
{
	if (e->state == ST_RUNNING)
		engine_call(e, "Profiler.disable", NULL, jit_on_profiler_off);
}

static void jit_on_put_back(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	jit_restore_replied(ud, o, m, "after the CPU burst");
}

/* The two go back to back (the inspector runs them in order), so that a burst started before
 * their replies comes after the disable, never before it; the profiler off first, as at the
 * leave. */
void engine_jit_pause_profiler(struct engine *e)
{
	jit_profiler_off(e);
	engine_jit_restore(e, jit_on_put_back);
}

void engine_jit_reset(struct engine *e)
{
	memset(&e->jit->plan, 0, sizeof e->jit->plan);
	memset(&e->jit->off, 0, sizeof e->jit->off);
	e->jit->switching = false;
	e->jit->minified = false;
	e->jit->exact_after = 0;
	e->jit->flags_set = false;
	e->jit->pause_ms = 0;
}

void engine_jit_info(const struct engine *e, struct engine_jit_info *out)
{
	out->exact = e->jit->plan.exact;
	out->caveat = e->jit->plan.caveat;
	if (out->exact && e->windows_done < e->jit->exact_after) {
		out->exact = false;
		out->caveat = "inlining being switched off";
	}
	out->repaired = e->jit->plan.repair;
	/* the repair can stop during the session (engine_fix.c says why in a notice) */
	if (e->jit->plan.repair && !e->fix && out->exact) {
		out->exact = false;
		out->caveat = "the repair stopped";
	}
	out->flags = e->jit->plan.set;
	out->deopt = e->jit->plan.deopt && e->jit->pause_ms > 0;
	out->pause_ms = e->jit->pause_ms;
}
