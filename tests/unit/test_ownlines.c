/* Unit tests for ownlines.c: votes counted per (function, line), kept apart, bounded. */
#include "config.h"

#include "ownlines.h"
#include "tap.h"

int main(void)
{
	struct ownlines *o = ownlines_new(4);
	uint32_t callee, own;

	ok(!ownlines_get(o, 7, 12, &callee, &own) && callee == 0 && own == 0, "nothing learned yet");
	ownlines_vote(o, 7, 12, true);
	ownlines_vote(o, 7, 12, true);
	ownlines_vote(o, 7, 12, false);
	ok(ownlines_get(o, 7, 12, &callee, &own) && callee == 2 && own == 1,
		"two windows said the callee's, one its own");
	ownlines_vote(o, 7, 13, true);
	ownlines_vote(o, 8, 12, false);
	ok(ownlines_get(o, 7, 13, &callee, &own) && callee == 1 && own == 0 &&
		ownlines_get(o, 8, 12, &callee, &own) && callee == 0 && own == 1,
		"another line and another function are their own entries");
	ownlines_vote(o, 9, 1, true);
	ownlines_vote(o, 10, 1, true);
	ok(ownlines_get(o, 9, 1, &callee, &own) && !ownlines_get(o, 10, 1, &callee, &own),
		"past its bound, nothing new is learned");
	ownlines_vote(o, 7, 12, true);
	ok(ownlines_get(o, 7, 12, &callee, &own) && callee == 3, "but what it holds still counts");
	ownlines_vote(o, 7, 0, true);
	ok(!ownlines_get(o, 7, 0, &callee, &own), "line 0 (none) is not learned");
	ownlines_free(o);
	ownlines_free(NULL);
	ok(1, "ownlines_free(NULL) is harmless");
	return done_testing();
}
