/* ownlines.h: whose a line number was, learned from profiles.
 *
 * A sample inside code V8 inlined keeps the inlined function's line number but is charged to
 * the function it was inlined into; when that number is also inside the caller's own range
 * (a loop in main.js whose helper in pricing.js has its hot loop on the same line numbers),
 * the line alone cannot say whose it was. In the windows where the helper ran as a real frame
 * below the caller, the profile does say: the caller's own ticks on that line against the
 * helper's. The repair (inlinefix.c) counts, per (function, line), the windows that said
 * "the helper's" and those that said "the caller's own", and later gives such a line to the
 * helper only when every window that said anything said so. (A caller's own code does not get
 * hot on a line once it is optimized; a window in which it was inlined only looks that way.)
 * Keys are the caller's choice. Pure data, no I/O. */
#ifndef NTOP_OWNLINES_H
#define NTOP_OWNLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ownlines;

/* Holds at most max entries; past that, new (function, line) pairs are not learned. */
struct ownlines *ownlines_new(size_t max);
void ownlines_free(struct ownlines *o); /* accepts NULL */

/* Counts a window that said line was the callee's (callee true) or fn's own. */
void ownlines_vote(struct ownlines *o, uint64_t fn, uint32_t line, bool callee);

/* The windows counted for (fn, line); false (both 0) when none. */
bool ownlines_get(const struct ownlines *o, uint64_t fn, uint32_t line, uint32_t *callee,
	uint32_t *own);

#endif
