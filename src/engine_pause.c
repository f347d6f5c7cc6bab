/* engine_pause.c: the engine's pause check (pause.h). Before the CPU profiler is
 * started, one cheap reading of the target's heap (and, on a small heap, of its compiled
 * code) predicts how long the start will pause it, with the JIT step's deoptimization. Over
 * --max-pause, a batch session is refused with that sentence, and the live view starts with
 * memory only and asks. */
#include "config.h"

#include "engine_priv.h"
#include "exitcode.h"
#include "jsonpull.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define STR2(x) #x
#define STR(x) STR2(x)

/* Heap used, then the code statistics only where their own heap walk is cheap. */
static const char pause_probe_expr[] =
	"(function ntopJsPauseCheck(v){var u=v.getHeapStatistics().used_heap_size,c=null;"
	"if(u<" STR(PAUSE_CODE_STATS_MAX_HEAP_BYTES) ")c=v.getHeapCodeStatistics();"
	"return {u:u,b:c?c.bytecode_and_metadata_size:null,k:c?c.code_and_metadata_size:null,"
	"v:process.versions.v8,c:!!(process.env&&process.env.NODE_V8_COVERAGE)}})(" V8_MODULE ")";

static double member_number(struct json_span obj, const char *key)
{
	struct json_span v;
	double d;

	if (json_object_get(obj, key, &v) == 1 && json_number(v, &d) == 0 && isfinite(d) && d >= 0 &&
	    d < 1e15)
		return d;
	return NAN;
}

/* What the profiler's start will cost, in a sentence's words: "for about 1.8 s (heap 1.4 GB)". */
static void pause_words(const struct engine *e, double s, char *out, size_t outsz)
{
	char p[48];

	pause_format(s, p, sizeof p);
	if (isfinite(e->pause_in.heap_used_bytes))
		snprintf(out, outsz, "for %s (heap %.1f %s)", p,
			e->pause_in.heap_used_bytes >= 1e9 ? e->pause_in.heap_used_bytes / 1073741824.0 :
			e->pause_in.heap_used_bytes / 1048576.0,
			e->pause_in.heap_used_bytes >= 1e9 ? "GB" : "MB");
	else
		snprintf(out, outsz, "for %s", p);
}

/* The estimate with the latest memory reading, fresher than the one taken at attach. */
static void estimate_now(const struct engine *e, struct pause_estimate *est)
{
	struct pause_inputs in = e->pause_in;
	const struct mem_sample *last = memseries_last(e->mem.series);

	if (last && isfinite(last->v[MEM_HEAP_USED]))
		in.heap_used_bytes = last->v[MEM_HEAP_USED];
	pause_estimate(&in, est);
}

/* The pause the profiler's start costs this session: the start, and the deoptimization when
 * the JIT step will do one (eval mode without --leave-jit, up to the newest V8 measured or a
 * version not known yet; the plan may still skip it). */
double engine_start_pause_one_s(const struct engine *e)
{
	struct pause_estimate est;
	int major = e->pause_in.v8_major;

	estimate_now(e, &est);
	/* the repair: the coverage's heap walk comes right before the deoptimization */
	if (jit_plan_repairs(major, e->cfg.jit_method, engine_jit_can_repair(e)))
		return est.start_s + 2 * est.deopt_s;
	if (e->eval_mode && e->cfg.jit_method != JIT_KEEP && major <= JIT_V8_MEASURED)
		return est.start_s + est.deopt_s;
	return est.start_s;
}

double engine_listing_pause_s(const struct engine *e)
{
	struct pause_estimate est;

	estimate_now(e, &est);
	return est.start_s;
}

/* With the coarse sampler's session, its profiler lists the code once more at the start. */
double engine_start_pause_s(const struct engine *e)
{
	double one = engine_start_pause_one_s(e);

	return engine_second_wanted(e) ? one + engine_listing_pause_s(e) : one;
}

double engine_coverage_pause_s(const struct engine *e)
{
	struct pause_estimate est;

	estimate_now(e, &est);
	return est.deopt_s;
}

double engine_gc_pause_s(const struct engine *e)
{
	struct pause_estimate est;

	estimate_now(e, &est);
	return est.gc_s;
}

/* The readings are in: go on, hold the profiler back, or refuse. */
static void pause_decide(struct engine *e)
{
	double start_s = engine_start_pause_s(e), gc_s = engine_gc_pause_s(e);
	char words[96], whom[64] = "the target";

	if (e->target.pid)
		snprintf(whom, sizeof whom, "the target (PID %d)", (int)e->target.pid);
	if (e->mem.alloc_on && e->cfg.ask_pause && isfinite(gc_s) && gc_s > e->cfg.max_pause_s) {
		/* The live view: allocation sampling waits for a yes (a) too. */
		char *msg;

		pause_words(e, gc_s, words, sizeof words);
		e->mem.alloc_on = false;
		msg = xasprintf("allocation sampling held back: each profile fetch forces a full GC, "
			"which would pause %s %s; a starts it", whom, words);
		e->h->on_notice(e->ud, msg);
		free(msg);
	}
	/* Batch mode, with or without the CPU profiler. */
	if (e->cfg.alloc && isfinite(gc_s) && gc_s > e->cfg.max_pause_s && !e->cfg.ask_pause) {
		pause_words(e, gc_s, words, sizeof words);
		engine_fail(e, EXIT_PAUSE, xasprintf("--alloc forces a full garbage collection at every "
			"profile fetch, which would pause %s %s each time; --max-pause %.1f allows it.",
			whom, words, ceil(gc_s * 10) / 10));
		return;
	}
	if (!e->cfg.no_cpu && e->target_coverage) {
		char *why = NULL;

		engine_cpu_refused(e, &why);
		e->h->on_notice(e->ud, why);
		free(why);
		e->cfg.no_cpu = true;
		e->cpu_off_for_coverage = true;
	}
	if (e->cfg.no_cpu) {
		/* The profiler's enable asks for it otherwise: a target that ends while watched
		 * then exits at once instead of waiting for ntop-js to leave. */
		engine_notify_exit(e);
		engine_running(e);
		return;
	}
	if (isfinite(start_s) && start_s > e->cfg.max_pause_s) {
		pause_words(e, start_s, words, sizeof words);
		if (!e->cfg.ask_pause) {
			engine_fail(e, EXIT_PAUSE, xasprintf("starting the CPU profiler would pause %s %s%s; "
				"--max-pause %.1f allows it, and --no-cpu watches memory without it.", whom,
				words, e->eval_mode ? "" : ", at every window (--no-eval)",
				ceil(start_s * 10) / 10));
			return;
		}
		/* The live view: memory only until the user says yes (c). */
		e->cfg.no_cpu = true;
		engine_notify_exit(e);
		engine_running(e);
		if (e->h->on_cpu_held)
			e->h->on_cpu_held(e->ud, start_s);
		return;
	}
	engine_profiler_begin(e);
}

static void pause_on_probe(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, val, v8, cov;
	char *text = NULL;

	if (o == SESSION_CLOSED || e->state != ST_SETUP)
		return;
	/* A refused reading is no reason to fail: the pause is then unknown, as before. */
	if (o == SESSION_REPLY && !m->error.n && m->result.n &&
	    json_object_get(m->result, "result", &res) == 1 &&
	    json_object_get(res, "value", &val) == 1 && json_span_type(val) == JSON_T_OBJECT) {
		e->pause_in.heap_used_bytes = member_number(val, "u");
		e->pause_in.bytecode_bytes = member_number(val, "b");
		e->pause_in.code_bytes = member_number(val, "k");
		if (json_object_get(val, "v", &v8) == 1 && json_string_decode(v8, &text, NULL) == 0) {
			e->pause_in.v8_major = jit_v8_major(text);
			free(text);
		}
		e->target_coverage = json_object_get(val, "c", &cov) == 1 &&
			json_span_type(cov) == JSON_T_TRUE;
	} else if (o == SESSION_TIMEOUT) {
		engine_reply_ok(e, o, m, "the heap reading");
		return;
	}
	pause_decide(e);
}

static void pause_on_heap_usage(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;

	if (o == SESSION_CLOSED || e->state != ST_SETUP)
		return;
	if (o == SESSION_REPLY && !m->error.n && m->result.n)
		e->pause_in.heap_used_bytes = member_number(m->result, "usedSize");
	else if (o == SESSION_TIMEOUT) {
		engine_reply_ok(e, o, m, "Runtime.getHeapUsage");
		return;
	}
	pause_decide(e);
}

double engine_max_pause_s(const struct engine *e)
{
	return e->cfg.max_pause_s;
}

void engine_pause_check(struct engine *e)
{
	e->pause_in = (struct pause_inputs){ NAN, NAN, NAN, 0 };
	/* A re-attach (--follow) reads it again: the profiler the user asked for comes back for
	 * a target that does not collect coverage. */
	e->target_coverage = false;
	if (e->cpu_off_for_coverage) {
		e->cpu_off_for_coverage = false;
		e->cfg.no_cpu = false;
	}
	if (e->eval_mode)
		engine_evaluate(e, pause_probe_expr, pause_on_probe);
	else
		engine_call(e, "Runtime.getHeapUsage", NULL, pause_on_heap_usage);
}
