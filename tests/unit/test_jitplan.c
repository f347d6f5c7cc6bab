/* test_jitplan.c: the plan for each V8 version, and the target's own flags respected. */
#include "config.h"

#include "jitplan.h"
#include "tap.h"

int main(void)
{
	struct jit_plan p;

	is_int(jit_v8_major("12.4.254.21-node.57"), 12, "major of a Node 22 V8");
	is_int(jit_v8_major("10.2.154.26-node.39"), 10, "major of a Node 18 V8");
	is_int(jit_v8_major(""), -1, "empty version");
	is_int(jit_v8_major("x1.2"), -1, "not a version");
	is_int(jit_v8_major("12"), -1, "a major without a dot");
	is_int(jit_v8_major(NULL), -1, "no version");

	jit_plan_make("10.2.154.26-node.39", "", false, &p);
	is_str(p.set, "--no-turbo-inlining", "Node 18: TurboFan inlining off");
	is_str(p.restore, "--turbo-inlining", "Node 18: and back on at detach");
	ok(p.deopt && p.exact, "Node 18: deoptimized, then exact");

	jit_plan_make("11.3.244.8-node.38", "", false, &p);
	is_str(p.set, "--no-turbo-inlining", "Node 20: TurboFan's inlining off (Maglev is off)");
	is_str(p.restore, "--turbo-inlining", "Node 20: back at detach");
	ok(p.deopt, "Node 20: deoptimized");

	jit_plan_make("12.4.254.21-node.57", "--max-old-space-size=4096", false, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "Node 22: both inlinings off");
	ok(p.deopt, "Node 22: deoptimized");

	jit_plan_make("13.6.233.17-node.53", "", false, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "Node 24: both inlinings off");
	is_str(p.restore, "--turbo-inlining --maglev-inlining", "Node 24: both back at detach");
	ok(p.deopt && p.exact, "Node 24: deoptimized, then exact");

	jit_plan_make("14.6.202.34-node.34", "", false, &p);
	ok(!p.set[0] && !p.restore[0] && !p.deopt && p.exact && !p.caveat,
		"Node 26: nothing changed, and exact (V8 14 names inlined frames itself)");

	jit_plan_make("15.0.245.4", "", false, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "a V8 newer than measured: nothing done, said");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining", false, &p);
	is_str(p.set, "--no-maglev-inlining", "an inlining the operator switched off is not set");
	is_str(p.restore, "--maglev-inlining", "nor switched on at detach");

	jit_plan_make("12.4.254.21-node.57", "--inspect-port=0 --noturbo_inlining --no_maglev-inlining",
		false, &p);
	ok(!p.set[0] && !p.restore[0] && p.deopt, "every spelling of the flag is understood");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining --turbo-inlining", false, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "the last mention wins");

	jit_plan_make("12.4.254.21-node.57", "--turbo-inlining=false", false, &p);
	is_str(p.set, "--no-maglev-inlining", "--name=false switches it off");

	jit_plan_make("12.4.254.21-node.57", "--no-turbo-inlining-extra", false, &p);
	is_str(p.set, "--no-turbo-inlining --no-maglev-inlining", "a longer flag is another flag");

	jit_plan_make("12.4.254.21-node.57", "", true, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "precise coverage on: nothing done, said");

	jit_plan_make("nonsense", "", false, &p);
	ok(!p.deopt && !p.exact && !p.set[0] && p.caveat, "an unknown version: nothing done, said");

	jit_plan_leave("--leave-jit", &p);
	ok(!p.deopt && !p.exact && !p.set[0], "left alone: not exact");
	is_str(p.caveat, "--leave-jit", "and the reason is kept");
	jit_plan_leave("--leave-jit", &p);
	ok(!p.exact && p.caveat, "left alone whatever the version: not exact either");

	return done_testing();
}
