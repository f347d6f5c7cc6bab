/* engine_fix.c: --repair-inlining: the JIT is left as it is and each window's profile is
 * repaired (inlinefix.h) with the functions' ranges, which best-effort coverage gives: once
 * when the profiler has started, and again (at most every ENGINE_FIX_COVERAGE_EVERY_S) when a
 * profile names a script they do not cover. The scripts' texts are read with the target's
 * rights through the source-map cache, off the loop. */
#include "config.h"

#include "engine_priv.h"
#include "exitcode.h"
#include "inlinefix.h"
#include "smapcache.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Coverage walks the target's heap (a pause like the deoptimization's): not more often, and
 * not without end for a script it never lists. */
#define ENGINE_FIX_COVERAGE_EVERY_S 30.0
#define ENGINE_FIX_MAX_ASKS 10
/* Minified code that holds this share of a window's samples (and this many) is not left to
 * the repair, which cannot look into it (engine_jit_minified). */
#define ENGINE_FIX_MINIFIED_PCT 5.0
#define ENGINE_FIX_MINIFIED_MIN 50

/* The repair's state, from engine_fix_start to engine_fix_free. */
struct engine_fix {
	struct inlinefix *fix;
	bool cov_pending;             /* a getBestEffortCoverage is on its way */
	double cov_next_s;            /* monotonic time coverage may be asked for again */
	unsigned asks;                /* coverage asked for so far */
};

static int fix_text(void *ud, const char *path, const char **text, size_t *len, const char **why)
{
	struct engine *e = ud;

	switch (smapcache_text(e->cfg.smap, path, text, len, why)) {
	case SMAPCACHE_MAPPED:
		return 1;
	case SMAPCACHE_PENDING:
		return 0;
	case SMAPCACHE_NONE:
		break;
	}
	return -1;
}

/* The repair is an extra: what stops it costs a notice, not the session. */
static void fix_off(struct engine *e, const char *why)
{
	char *msg = xasprintf("inlined functions are not repaired: %s", why);

	e->h->on_notice(e->ud, msg);
	free(msg);
	engine_fix_free(e);
}

static void fix_on_coverage(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	char *err = NULL;

	if (!e->fix)
		return;
	e->fix->cov_pending = false;
	if (o == SESSION_REPLY && m->error.n) {
		fix_off(e, "the target refused Profiler.getBestEffortCoverage.");
		return;
	}
	if (!engine_reply_ok(e, o, m, "Profiler.getBestEffortCoverage"))
		return;
	if (inlinefix_take_coverage(e->fix->fix, m->result, &err) < 0) {
		fix_off(e, err);
		free(err);
		return;
	}
	/* the texts start loading now, not at the next window */
	inlinefix_resolve(e->fix->fix, fix_text, e);
}

/* Asks for the ranges, unless that would pause the target for longer than --max-pause. */
static void fix_ask_coverage(struct engine *e)
{
	double pause_s = engine_coverage_pause_s(e), now = engine_mono_s(e);

	if (e->fix->cov_pending || now < e->fix->cov_next_s || e->fix->asks >= ENGINE_FIX_MAX_ASKS ||
	    (e->state != ST_RUNNING && e->state != ST_SETUP))
		return;
	e->fix->cov_next_s = now + ENGINE_FIX_COVERAGE_EVERY_S;
	if (isfinite(pause_s) && pause_s > e->cfg.max_pause_s) {
		char p[48], *why;
		if (e->fix->asks)
			return; /* the ranges already known stay: only this new look is skipped */
		pause_format(pause_s, p, sizeof p);
		why = xasprintf("reading the functions' ranges would pause the target for %s; "
			"--max-pause %.1f allows it.", p, ceil(pause_s * 10) / 10);
		fix_off(e, why);
		free(why);
		return;
	}
	e->fix->asks++;
	e->fix->cov_pending = true;
	engine_call(e, "Profiler.getBestEffortCoverage", NULL, fix_on_coverage);
}

void engine_fix_start(struct engine *e)
{
	if (e->fix)
		return;
	if (!e->cfg.smap) {
		e->h->on_notice(e->ud, "inlined functions are not repaired: ntop-js reads the "
			"target's scripts only with --pid and without --no-source-maps.");
		return;
	}
	e->fix = xcalloc(1, sizeof *e->fix);
	e->fix->fix = inlinefix_new();
	fix_ask_coverage(e);
}

void engine_fix_profile(struct engine *e, struct profile *p)
{
	struct inlinefix_stats st = {0};
	double pct;

	if (!e->fix)
		return;
	inlinefix_resolve(e->fix->fix, fix_text, e);
	inlinefix_apply(e->fix->fix, p, e->ft, &st);
	if (inlinefix_wants_coverage(e->fix->fix))
		fix_ask_coverage(e);
	pct = st.samples ? 100.0 * (double)st.minified / (double)st.samples : 0;
	if (st.minified >= ENGINE_FIX_MINIFIED_MIN && pct >= ENGINE_FIX_MINIFIED_PCT)
		engine_jit_minified(e, pct);
}

void engine_fix_free(struct engine *e)
{
	if (!e->fix)
		return;
	inlinefix_free(e->fix->fix);
	free(e->fix);
	e->fix = NULL;
}
