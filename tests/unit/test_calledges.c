/* Unit tests for calledges.c: edges kept once, reach by depth and nearest first, the bound on
 * edges and on what is returned, cycles. */
#include "config.h"

#include "calledges.h"
#include "tap.h"

#include <stdint.h>

static bool has_key(const uint64_t *out, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++)
		if (out[i] == k)
			return true;
	return false;
}

static void test_reach(void)
{
	struct calledges *g = calledges_new(64);
	uint64_t out[16];
	size_t n;

	ok(calledges_add(g, 1, 2), "1 -> 2 is new");
	ok(!calledges_add(g, 1, 2), "and kept once");
	ok(calledges_add(g, 2, 3) && calledges_add(g, 3, 4) && calledges_add(g, 1, 5),
		"2 -> 3, 3 -> 4, 1 -> 5");
	ok(calledges_add(g, 3, 1), "a cycle back to 1");
	is_int((long)calledges_count(g), 5, "five edges");
	ok(calledges_has(g, 2, 3) && !calledges_has(g, 3, 2), "edges have a direction");
	n = calledges_reach(g, 1, 1, out, 16);
	ok(n == 2 && has_key(out, n, 2) && has_key(out, n, 5), "depth 1 from 1: 2 and 5");
	n = calledges_reach(g, 1, 2, out, 16);
	ok(n == 3 && out[2] == 3, "depth 2 adds 3, after the nearer ones");
	n = calledges_reach(g, 1, 9, out, 16);
	ok(n == 4 && has_key(out, n, 4) && !has_key(out, n, 1), "deeper: 4, and 1 itself never");
	n = calledges_reach(g, 1, 9, out, 2);
	is_int((long)n, 2, "no more than asked for");
	is_int((long)calledges_reach(g, 42, 3, out, 16), 0, "an unknown key reaches nothing");
	calledges_free(g);
}

static void test_bound(void)
{
	struct calledges *g = calledges_new(100);
	size_t added = 0;

	for (uint64_t i = 0; i < 1000; i++)
		added += calledges_add(g, i % 7, i + (UINT64_C(1) << 40));
	is_int((long)added, 100, "past its bound, nothing more is learned");
	ok(calledges_has(g, 0, UINT64_C(1) << 40) && !calledges_has(g, 500 % 7, 500 + (UINT64_C(1) << 40)),
		"the first edges stay");
	calledges_free(g);
	calledges_free(NULL);
	ok(1, "calledges_free(NULL) is harmless");
}

int main(void)
{
	test_reach();
	test_bound();
	return done_testing();
}
