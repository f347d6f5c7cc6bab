/* jitplan.c: see jitplan.h. */
#include "config.h"

#include "jitplan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jit_v8_major(const char *v8_version)
{
	char *end;
	long major;

	if (!v8_version || !isdigit((unsigned char)v8_version[0]))
		return -1;
	major = strtol(v8_version, &end, 10);
	if (*end != '.' || major < 1 || major > 999)
		return -1;
	return (int)major;
}

/* Compares a flag's name with want, taking - and _ as the same character; n is the length of
 * the name in flags. */
static bool jit_name_is(const char *name, size_t n, const char *want)
{
	size_t i;

	if (strlen(want) != n)
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i] == '_' ? '-' : name[i];
		if (c != want[i])
			return false;
	}
	return true;
}

bool jit_flag_off(const char *flags, const char *name)
{
	const char *s = flags;
	bool off = false;

	while (s && *s) {
		const char *w, *eq;
		size_t n;
		bool neg = false;

		while (*s && isspace((unsigned char)*s))
			s++;
		w = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (w[0] != '-')
			continue;
		w += w[1] == '-' ? 2 : 1;
		n = (size_t)(s - w);
		eq = memchr(w, '=', n);
		if (eq)
			n = (size_t)(eq - w);
		if (n > 2 && w[0] == 'n' && w[1] == 'o') {
			bool dash = w[2] == '-' || w[2] == '_';
			if (jit_name_is(w + 2 + dash, n - 2 - dash, name)) {
				off = true;
				continue;
			}
		}
		if (!jit_name_is(w, n, name))
			continue;
		if (eq) {
			size_t vn = (size_t)(s - eq - 1);
			neg = (vn == 5 && strncmp(eq + 1, "false", 5) == 0) ||
				(vn == 1 && eq[1] == '0');
		}
		off = neg;
	}
	return off;
}

/* Appends "--no-NAME" to p->set and "--NAME" to p->restore, unless the target's own flags
 * already switch it off. */
static void jit_plan_switch_off(struct jit_plan *p, const char *flags, const char *name)
{
	size_t s = strlen(p->set), r = strlen(p->restore);

	if (jit_flag_off(flags, name))
		return;
	snprintf(p->set + s, sizeof p->set - s, "%s--no-%s", s ? " " : "", name);
	snprintf(p->restore + r, sizeof p->restore - r, "%s--%s", r ? " " : "", name);
}

void jit_plan_leave(const char *why, struct jit_plan *p)
{
	memset(p, 0, sizeof *p);
	/* Up to V8 13 inlined frames are lost; V8 14 keeps them, but --leave-jit does not ask
	 * the version (and OSR code from before the attach is lost on every version). */
	p->exact = false;
	p->caveat = why;
}

/* The V8 of each Node line of the matrix (the versions tests/lib.sh's NODE_MATRIX installs;
 * 25 shares 26's V8 major). */
const struct jit_known jit_known_versions[] = {
	{"18", "10.2.154.26"}, {"20", "11.3.244.8"}, {"22", "12.4.254.21"},
	{"24", "13.6.233.17"}, {"25, 26", "14.6.202.34"},
};
const size_t jit_n_known_versions = sizeof jit_known_versions / sizeof jit_known_versions[0];

void jit_plan_describe(const struct jit_plan *p, char *out, size_t outsz)
{
	const char *deopt = !p->deopt ? "" : p->restore[0] ? ", deoptimized at attach and detach" :
		", deoptimized at attach";

	if (p->repair)
		snprintf(out, outsz, "profiles repaired%s", deopt);
	else if (p->set[0])
		snprintf(out, outsz, "inlining off while attached%s", deopt);
	else if (p->exact)
		snprintf(out, outsz, "no flag set%s", deopt);
	else
		snprintf(out, outsz, "nothing done (%s)", p->caveat ? p->caveat : "not measured");
}

/* The oldest V8 whose profiles the repair is the default for: V8 10 (Node 18). V8 10 to 13
 * keep an inlined callee's own lines in the profile, and real_programs.sh, warm_accuracy.sh,
 * real_tsc.sh and workers.sh pass with the repair on Node 18 to 24 (measured again with tests
 * run two at a time, and beside a third busy process: doc/inlining.md, "The TypeScript
 * compiler under load"). On Node 22 express's handleRequest may keep up to 2 % of the
 * repaired profile on its call line (real_programs.sh asks under 2; the reference has 0.1):
 * still the default there, since inlining off costs a busy server a fifth of its work. */
#define JIT_V8_REPAIRABLE 10
/* The oldest V8 whose repaired rows are right when the repair is asked for (above). */
#define JIT_V8_REPAIR_EXACT 10

bool jit_plan_repairs(int major, enum jit_method want, bool can_repair)
{
	if (!can_repair || major > 13)
		return false;
	return want == JIT_REPAIR || (want == JIT_AUTO && (major < 0 || major >= JIT_V8_REPAIRABLE));
}

void jit_plan_make(const char *v8_version, const char *target_flags, bool coverage_on,
	enum jit_method want, bool can_repair, struct jit_plan *p)
{
	int major = jit_v8_major(v8_version);

	if (major < 0) {
		jit_plan_leave("unknown V8 version", p);
		return;
	}
	if (major > JIT_V8_MEASURED) {
		jit_plan_leave("V8 newer than ntop-js knows", p);
		return;
	}
	jit_plan_leave(NULL, p);
	if (coverage_on) {
		jit_plan_leave("precise coverage is on (NODE_V8_COVERAGE)", p);
		return;
	}
	p->exact = true;
	/* The break at an unused built-in (engine_jit.c), which leaves bytecode flushing on, is
	 * not used on any version: targets died of it. V8 10 (Node 18) exited silently soon after
	 * it under load, in two test runs of two; V8 11 (Node 20) segfaulted three times in one CI
	 * run of pause.sh (100,000 functions, a 700 MB heap), after passing it in others; on V8 12
	 * it left code the profiler is not told of. Until the cause is known, every version
	 * deoptimizes by the coverage switch, which leaves bytecode flushing off. */
	p->deopt_by_break = false;
	/* V8 14 (Node 25, 26) names the inlined functions of the sampled instruction itself: no
	 * flag. But code optimized for a loop (OSR) before the profiler started is not listed to
	 * it, and starting the profiler invalidates V8's no-profiling protector, which drops the
	 * regular code of every function that made a fast API call (performance.now): such a
	 * function then enters its old OSR code on every call, and its time goes to its caller
	 * for the whole session (warm_accuracy.sh: hotMain 0 %, tick 74 %, in about one run in
	 * six on a busy machine). One deoptimization, as for the repair, drops that code. */
	if (major >= 14) {
		p->deopt = true;
		return;
	}
	if (jit_plan_repairs(major, want, can_repair)) {
		p->repair = true;
		p->deopt = true;
		if (major < JIT_V8_REPAIR_EXACT) {
			p->exact = false;
			p->caveat = "repaired, but not measured on a V8 this old";
		}
		return;
	}
	if (want == JIT_REPAIR) {
		jit_plan_leave("the repair reads the target's scripts: it needs --pid and source maps",
			p);
		return;
	}
	/* Up to V8 13 the profiler expands inlined frames only below the sampled one: a sample
	 * inside an inlined callee is charged to its caller, whenever the code was compiled.
	 * Without inlining there is nothing to lose. Maglev runs by default from V8 12 (Node
	 * 22); V8 11 does not even count its flags in the hash that tells whether a flag was on
	 * (engine_jit.c). */
	jit_plan_switch_off(p, target_flags, "turbo-inlining");
	if (major >= 12)
		jit_plan_switch_off(p, target_flags, "maglev-inlining");
	p->deopt = true;
}
