/* ownlines.h: whose a line number was, learned from profiles.
 *
 * A sample inside code V8 inlined keeps the inlined function's line number but is charged to
 * the function it was inlined into; when that number is also inside the caller's own range
 * (a loop in main.js whose helper in pricing.js has its hot loop on the same line numbers),
 * the line alone cannot say whose it was. In the windows where the helper ran as a real frame
 * below the caller, the profile does say: the caller's own ticks on that line against the
 * helper's. The repair (inlinefix.c) adds up, per (function, line), the ticks of the windows
 * that said "the helper's" (the helper's there) and of those that said "the caller's own" (the
 * caller's), and later gives such a line to the helper only when the first outweigh the second.
 * The window in which V8 inlines the helper again after the attach's deoptimization says "own"
 * (the caller's ticks on the line are the helper's inlined code, with a few of its last real
 * frames beside), and outweighs nothing: the windows before it, all real frames, had more; a
 * line that is the caller's own says so in every window where both ran.
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

/* Counts a window that said line was the callee's (callee true) or fn's own, with the ticks it
 * said so with. */
void ownlines_vote(struct ownlines *o, uint64_t fn, uint32_t line, bool callee, uint64_t ticks);

/* The ticks counted for (fn, line); false (both 0) when none. */
bool ownlines_get(const struct ownlines *o, uint64_t fn, uint32_t line, uint64_t *callee,
	uint64_t *own);

#endif
