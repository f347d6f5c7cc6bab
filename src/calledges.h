/* calledges.h: a bounded memory of who called whom, learned from profiles.
 *
 * A call V8 inlined leaves no frame, but the same call is often a real frame in another
 * window (before the caller was optimized, or after a deoptimization). The repair of inlined
 * functions (inlinefix.c) remembers each caller -> callee edge it sees, so that a window in
 * which everything was inlined can still be told which functions its caller runs. Keys are
 * the caller's choice (a script and function index). Pure data, no I/O. */
#ifndef NTOP_CALLEDGES_H
#define NTOP_CALLEDGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct calledges;

/* Holds at most max_edges edges; past that, new ones are not learned (the first ones seen
 * stay: a long session does not grow). */
struct calledges *calledges_new(size_t max_edges);
void calledges_free(struct calledges *g); /* accepts NULL */

/* Learns from -> to. Returns true when the edge is new. */
bool calledges_add(struct calledges *g, uint64_t from, uint64_t to);

/* Whether from -> to was learned. */
bool calledges_has(const struct calledges *g, uint64_t from, uint64_t to);

/* The keys reachable from `from` through at most max_depth edges (from itself left out),
 * nearest first, at most max_out of them, into out. Returns how many. */
size_t calledges_reach(const struct calledges *g, uint64_t from, unsigned max_depth,
	uint64_t *out, size_t max_out);

size_t calledges_count(const struct calledges *g);

#endif
