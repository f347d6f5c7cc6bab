/* Unit tests for ownlines.c: ticks counted per (function, line), kept apart, bounded. */
#include "config.h"

#include <stdint.h>

#include "ownlines.h"
#include "tap.h"

int main(void)
{
	struct ownlines *o = ownlines_new(4);
	uint64_t callee, own;

	ok(!ownlines_get(o, 7, 12, &callee, &own) && callee == 0 && own == 0, "nothing learned yet");
	/* two windows of real frames, then the one where V8 inlined the callee again */
	ownlines_vote(o, 7, 12, true, 770);
	ownlines_vote(o, 7, 12, true, 760);
	ownlines_vote(o, 7, 12, false, 600);
	ok(ownlines_get(o, 7, 12, &callee, &own) && callee == 1530 && own == 600,
		"two windows said the callee's (1530 ticks), one its own (600)");
	ownlines_vote(o, 7, 13, true, 25);
	ownlines_vote(o, 8, 12, false, 40);
	ok(ownlines_get(o, 7, 13, &callee, &own) && callee == 25 && own == 0 &&
		ownlines_get(o, 8, 12, &callee, &own) && callee == 0 && own == 40,
		"another line and another function are their own entries");
	ownlines_vote(o, 9, 1, true, 20);
	ownlines_vote(o, 10, 1, true, 20);
	ok(ownlines_get(o, 9, 1, &callee, &own) && !ownlines_get(o, 10, 1, &callee, &own),
		"past its bound, nothing new is learned");
	ownlines_vote(o, 7, 12, true, 10);
	ok(ownlines_get(o, 7, 12, &callee, &own) && callee == 1540, "but what it holds still counts");
	ownlines_vote(o, 7, 12, false, UINT64_MAX);
	ok(ownlines_get(o, 7, 12, &callee, &own) && own == 600, "a sum that would wrap is not added");
	ownlines_vote(o, 7, 0, true, 20);
	ok(!ownlines_get(o, 7, 0, &callee, &own), "line 0 (none) is not learned");
	ownlines_free(o);
	ownlines_free(NULL);
	ok(1, "ownlines_free(NULL) is harmless");
	return done_testing();
}
