/* test_jitplan.c: the plan for each V8 version, and the target's own flags respected. */
#include "config.h"

#include "jitplan.h"

#include <string.h>
#include "tap.h"

/* --version's table: the matrix oldest first, each version's plan said in a few words. */
static void test_known(void)
{
	struct jit_plan p;
	char what[256];
	int last = 0;
	bool ordered = true;

	for (size_t i = 0; i < jit_n_known_versions; i++) {
		int major = jit_v8_major(jit_known_versions[i].v8_version);
		ordered = ordered && major > last && major <= JIT_V8_MEASURED;
		last = major;
	}
	ok(ordered && last == JIT_V8_MEASURED, "the known versions run up to the newest measured, in order");
	jit_plan_make("13.6.233.17-node.53", "", false, JIT_AUTO, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	is_str(what, "profiles repaired, deoptimized at attach", "Node 24 said");
	jit_plan_make("11.3.244.8-node.38", "", false, JIT_OFF, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	is_str(what, "inlining off while attached, deoptimized at attach and detach",
		"Node 20 with inlining off said");
	jit_plan_make("14.6.202.34-node.34", "", false, JIT_AUTO, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	is_str(what, "no flag set, deoptimized at attach", "Node 26 said");
	jit_plan_make("15.0.1", "", false, JIT_AUTO, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	is_str(what, "nothing done (V8 newer than ntop-js knows)", "a newer V8 said");
	jit_plan_make("11.3.244.8-node.38", "--no-turbo-inlining", false, JIT_OFF, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	is_str(what, "no flag set, deoptimized at attach",
		"the target's own flag: nothing set, deoptimized");
}

int main(void)
{
	struct jit_plan p;

	test_known();

	is_int(jit_v8_major("12.4.254.21-node.57"), 12, "major of a Node 22 V8");
	is_int(jit_v8_major("10.2.154.26-node.39"), 10, "major of a Node 18 V8");
	is_int(jit_v8_major(""), -1, "empty version");
	is_int(jit_v8_major("x1.2"), -1, "not a version");
	is_int(jit_v8_major("12"), -1, "a major without a dot");
	is_int(jit_v8_major(NULL), -1, "no version");

	jit_plan_make("10.2.154.26-node.39", "", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining", "Node 18: TurboFan inlining off");
	is_str(p.restore, "--turbo-inlining", "Node 18: and back on at detach");
	ok(p.deopt && p.exact, "Node 18: deoptimized, then exact");

	jit_plan_make("11.3.244.8-node.38", "", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining", "Node 20: TurboFan's inlining off (Maglev is off)");
	is_str(p.restore, "--turbo-inlining", "Node 20: back at detach");
	ok(p.deopt, "Node 20: deoptimized");

	jit_plan_make("12.4.254.21-node.57", "--max-old-space-size=4096", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "Node 22: both inlinings off");
	ok(p.deopt, "Node 22: deoptimized");

	jit_plan_make("13.6.233.17-node.53", "", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "Node 24: both inlinings off");
	is_str(p.restore, "--turbo-inlining --maglev-inlining", "Node 24: both back at detach");
	ok(p.deopt && p.exact, "Node 24: deoptimized, then exact");

	jit_plan_make("14.6.202.34-node.34", "", false, JIT_OFF, true, &p);
	ok(!p.set[0] && !p.restore[0] && p.deopt && p.exact && !p.caveat,
		"Node 26: no flag, deoptimized once (OSR code from before the attach), and exact");

	jit_plan_make("15.0.245.4", "", false, JIT_OFF, true, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "a V8 newer than measured: nothing done, said");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-maglev-inlining", "an inlining the operator switched off is not set");
	is_str(p.restore, "--maglev-inlining", "nor switched on at detach");

	jit_plan_make("12.4.254.21-node.57", "--inspect-port=0 --noturbo_inlining --no_maglev-inlining",
		false, JIT_OFF, true, &p);
	ok(!p.set[0] && !p.restore[0] && p.deopt, "every spelling of the flag is understood");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining --turbo-inlining", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "the last mention wins");

	jit_plan_make("12.4.254.21-node.57", "--turbo-inlining=false", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-maglev-inlining", "--name=false switches it off");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining-extra", false, JIT_OFF, true, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "a longer flag is another flag");

	jit_plan_make("12.4.254.21-node.57", "", true, JIT_OFF, true, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "precise coverage on: nothing done, said");

	jit_plan_make("nonsense", "", false, JIT_OFF, true, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "an unknown version: nothing done, said");

	/* the default: the repair where it was measured right and the scripts can be read */
	jit_plan_make("13.6.233.17-node.53", "", false, JIT_AUTO, true, &p);
	ok(p.repair && p.deopt && p.exact && !p.set[0] && !p.restore[0],
		"Node 24 by default: repaired, deoptimized once, no flag");
	jit_plan_make("11.3.244.8-node.38", "", false, JIT_AUTO, true, &p);
	ok(p.repair && p.deopt && p.exact && !p.set[0] && !p.restore[0],
		"Node 20 by default: repaired, deoptimized once, no flag");
	jit_plan_make("10.2.154.26-node.39", "", false, JIT_AUTO, true, &p);
	ok(p.repair && p.deopt && p.exact && !p.set[0], "Node 18 by default: repaired, no flag");
	jit_plan_make("11.3.244.8-node.38", "", false, JIT_REPAIR, true, &p);
	ok(p.repair && p.exact && !p.set[0], "Node 20: repaired when asked, and exact");
	jit_plan_make("12.4.254.21-node.57", "", false, JIT_AUTO, true, &p);
	ok(p.repair && p.deopt && p.exact && !p.set[0],
		"Node 22 by default: repaired, no flag (inlining off took a fifth of a busy server)");
	ok(!p.deopt_by_break, "Node 22: deoptimized by the coverage switch (the break left code unlisted)");
	jit_plan_make("12.4.254.21-node.57", "", false, JIT_REPAIR, true, &p);
	ok(p.repair && p.exact && !p.set[0], "Node 22: repaired when asked");
	jit_plan_make("10.2.154.26-node.39", "", false, JIT_AUTO, true, &p);
	ok(!p.deopt_by_break, "Node 18: by the coverage switch (V8 10 died after the break)");
	jit_plan_make("11.3.244.8-node.38", "", false, JIT_AUTO, true, &p);
	ok(!p.deopt_by_break, "Node 20: by the coverage switch (a target segfaulted after the break)");
	jit_plan_make("13.6.233.17-node.53", "", false, JIT_AUTO, true, &p);
	ok(!p.deopt_by_break, "Node 24: by the coverage switch too");
	jit_plan_make("14.6.202.34-node.34", "", false, JIT_AUTO, true, &p);
	ok(!p.deopt_by_break, "Node 26: by the coverage switch too (targets died of the break)");
	jit_plan_make("9.4.146.26-node.26", "", false, JIT_AUTO, true, &p);
	ok(!p.repair && !strcmp(p.set, "--no-turbo-inlining"), "V8 9 (not measured): inlining off");
	jit_plan_make("13.6.233.17-node.53", "", false, JIT_AUTO, false, &p);
	ok(!p.repair && !strcmp(p.set, "--no-turbo-inlining --no-maglev-inlining"),
		"scripts that cannot be read (--port): inlining off");
	jit_plan_make("9.4.146.26-node.26", "", false, JIT_REPAIR, true, &p);
	ok(p.repair && p.deopt && !p.set[0] && !p.exact && p.caveat,
		"V8 9: repaired when asked, and said to be inexact");
	jit_plan_make("12.4.254.21-node.57", "", false, JIT_REPAIR, false, &p);
	ok(!p.repair && !p.deopt && !p.exact && !p.set[0] && p.caveat,
		"a repair asked for without the scripts: nothing done, said");
	jit_plan_make("14.6.202.34-node.34", "", false, JIT_AUTO, true, &p);
	ok(!p.repair && p.deopt && p.exact, "Node 26: nothing to repair, one deoptimization");
	jit_plan_make("13.6.233.17-node.53", "", true, JIT_AUTO, true, &p);
	ok(!p.repair && !p.deopt, "precise coverage on: no repair's deoptimization either");
	ok(jit_plan_repairs(-1, JIT_AUTO, true) && jit_plan_repairs(13, JIT_AUTO, true) &&
		jit_plan_repairs(12, JIT_AUTO, true) && jit_plan_repairs(12, JIT_REPAIR, true) &&
		jit_plan_repairs(11, JIT_AUTO, true) && jit_plan_repairs(10, JIT_AUTO, true) &&
		!jit_plan_repairs(9, JIT_AUTO, true) && jit_plan_repairs(9, JIT_REPAIR, true) &&
		!jit_plan_repairs(12, JIT_OFF, true) && !jit_plan_repairs(12, JIT_AUTO, false) &&
		!jit_plan_repairs(14, JIT_REPAIR, true), "what the pause estimate expects");

	jit_plan_leave("--leave-jit", &p);
	ok(!p.deopt && !p.exact && !p.set[0], "left alone: not exact");
	is_str(p.caveat, "--leave-jit", "and the reason is kept");
	jit_plan_leave("--leave-jit", &p);
	ok(!p.exact && p.caveat, "left alone whatever the version: not exact either");

	return done_testing();
}
