/* jitplan.h: what ntop-js does so that CPU time lands on the function that spends it through
 * V8's inlining, decided per V8 version from measurements (doc/inlining.md).
 *
 * Up to V8 13 (Node 18-24) V8's profiler names the inlined functions of a frame only below
 * the sampled one: a sample inside an inlined callee is charged to its caller, however the
 * code was compiled. Two remedies:
 * - repair (the default on V8 10-13, Node 18-24, when ntop-js can read the target's scripts):
 *   V8's inlining stays on and each profile is repaired by its lines (inlinefix.h,
 *   engine_fix.c); all code is deoptimized once when the profiler starts, because code
 *   optimized before it is listed to it incompletely. About the sampler's cost.
 * - off (where the scripts cannot be read, where minified code is hot, and when asked for):
 *   inlining is switched off for the session and all code deoptimized, so that hot code is
 *   optimized again without it; at detach the flags go back and the code is
 *   deoptimized again (engine_jit.c). A fifth of a server's throughput while attached.
 * V8 14 (Node 25, 26) names inlined callees itself: no flag, but all code is deoptimized once
 * when the profiler starts, for the OSR code compiled before it (jitplan.c). */
#ifndef NTOP_JITPLAN_H
#define NTOP_JITPLAN_H

#include <stdbool.h>
#include <stddef.h>

/* The newest V8 major version measured (Node 26); newer ones are left alone, and said so. */
#define JIT_V8_MEASURED 14

/* What the user asked for (--inlining). */
enum jit_method {
	JIT_AUTO,    /* repair where it was measured right and is possible, else off */
	JIT_REPAIR,  /* keep V8's inlining and repair the profiles */
	JIT_OFF,     /* switch V8's inlining off while attached */
	JIT_KEEP,    /* change nothing, repair nothing (--leave-jit) */
};

struct jit_plan {
	char set[128];       /* flags for v8.setFlagsFromString at attach; "" for none */
	char restore[128];   /* the flags that put them back, of those that were on ("" none) */
	bool deopt;          /* deoptimize all code once the profiler runs (and again, with the
	                      * profiler off, when the flags go back: engine_jit.c) */
	bool deopt_by_break; /* the deoptimization is a break at an unused built-in (V8 11, 13
	                      * and later), not a switch of the coverage mode (engine_jit.c) */
	bool repair;         /* no flag: the profiles are repaired by their lines (inlinefix.h) */
	bool exact;          /* inlined callees keep their own rows once the plan is carried out */
	const char *caveat;  /* when !exact: why, in a few words; else NULL */
};

/* Makes the plan for a target whose process.versions.v8 is v8_version. target_flags holds
 * the target's command-line and NODE_OPTIONS flags: an inlining the operator switched off
 * there is left off, neither set nor restored. coverage_on says that precise coverage is
 * collected (NODE_V8_COVERAGE): the deoptimization would end it, so it is not done. want is
 * the user's choice (JIT_KEEP is the caller's: jit_plan_leave); can_repair says that the
 * target's scripts can be read (a PID, source maps not switched off). */
void jit_plan_make(const char *v8_version, const char *target_flags, bool coverage_on,
	enum jit_method want, bool can_repair, struct jit_plan *p);

/* True if the plan for V8 major version major (-1: not known yet) would repair the profiles:
 * what the attach's pause estimate needs before the version is asked. */
bool jit_plan_repairs(int major, enum jit_method want, bool can_repair);

/* The plan when nothing may be changed (--leave-jit, --no-eval, a refused step): not exact,
 * for the reason why. */
void jit_plan_leave(const char *why, struct jit_plan *p);

/* The Node versions the plans were measured on, oldest first (--version says what is done
 * on each): the Node major version(s) and a V8 version of theirs. */
struct jit_known {
	const char *node;
	const char *v8_version;
};
extern const struct jit_known jit_known_versions[];
extern const size_t jit_n_known_versions;

/* What plan p does, in a few words for --version: "inlining off while attached, deoptimized
 * at attach and detach". */
void jit_plan_describe(const struct jit_plan *p, char *out, size_t outsz);

/* The V8 major version in v8_version ("12.4.254.21-node.57"), or -1. */
int jit_v8_major(const char *v8_version);

/* True if flags (a command line) switches the V8 flag name (e.g. "turbo-inlining") off:
 * its last mention is --no-name or --noname (with - or _ alike), or --name=false. */
bool jit_flag_off(const char *flags, const char *name);

#endif
