/* jitplan.h: what ntop-js does to a target's JIT so that CPU time lands on the function that
 * spends it, decided per V8 version from measurements (doc/inlining.md).
 *
 * Up to V8 13 (Node 18-24) V8's profiler names the inlined functions of a frame only below
 * the sampled one: a sample inside an inlined callee is charged to its caller, however the
 * code was compiled. The plan there switches inlining off for the session and deoptimizes all
 * code once the profiler runs, so that hot code is optimized again without it; at detach the
 * flags go back and the code is deoptimized again, to be optimized with its inlining
 * (engine_jit.c). V8 14 (Node 25, 26) names inlined callees itself: nothing is changed. */
#ifndef NTOP_JITPLAN_H
#define NTOP_JITPLAN_H

#include <stdbool.h>

struct jit_plan {
	char set[128];       /* flags for v8.setFlagsFromString at attach; "" for none */
	char restore[128];   /* the flags that put them back, of those that were on ("" none) */
	bool deopt;          /* deoptimize all code once the profiler runs (and again, with the
	                      * profiler off, when the flags go back: engine_jit.c) */
	bool exact;          /* inlined callees keep their own rows once the plan is carried out */
	const char *caveat;  /* when !exact: why, in a few words; else NULL */
};

/* Makes the plan for a target whose process.versions.v8 is v8_version. target_flags holds
 * the target's command-line and NODE_OPTIONS flags: an inlining the operator switched off
 * there is left off, neither set nor restored. coverage_on says that precise coverage is
 * collected (NODE_V8_COVERAGE): the deoptimization would end it, so it is not done. */
void jit_plan_make(const char *v8_version, const char *target_flags, bool coverage_on,
	struct jit_plan *p);

/* The plan when nothing may be changed (--leave-jit, --no-eval, a refused step): not exact,
 * for the reason why. */
void jit_plan_leave(const char *why, struct jit_plan *p);

/* The V8 major version in v8_version ("12.4.254.21-node.57"), or -1. */
int jit_v8_major(const char *v8_version);

/* True if flags (a command line) switches the V8 flag name (e.g. "turbo-inlining") off:
 * its last mention is --no-name or --noname (with - or _ alike), or --name=false. */
bool jit_flag_off(const char *flags, const char *name);

#endif
