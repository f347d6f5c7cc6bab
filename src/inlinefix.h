/* inlinefix.h: giving inlined functions their samples back, from the profile itself, when the
 * target's JIT is left as it is (--repair-inlining; doc/inlining.md).
 *
 * Up to V8 13 (Node 18-24) a sample inside code that V8 inlined is charged to the function it
 * was inlined into, but its positionTicks line is the inlined callee's own line (in the
 * callee's script, which the profile does not name). Once the source ranges of the target's
 * functions are known, such a line names the callee: the innermost function whose range holds
 * it, in the node's own script when the line is outside the node's function, or nested in it;
 * else in the scripts of the functions called below the node. The ranges come from
 * Profiler.getBestEffortCoverage (offsets, in UTF-16 units, per script; it walks the heap and
 * changes nothing) and the scripts' text (offsets to lines), read with the target's rights by
 * the caller.
 *
 * A repaired profile is an ordinary one: a node's samples that were the callee's move to the
 * callee's node below it (the one the profile already has on that path, which keeps the
 * intermediate frames), or to a new leaf child, interleaved in proportion to the line ticks
 * (which of the node's samples were in the callee is not known, only how many). A line that
 * could belong to two functions (a one-line callback and the code around it; two scripts'
 * functions) stays where V8 put it; a minified file is not used.
 *
 * Pure data, no I/O: the engine asks for coverage, and gives the texts through a callback. */
#ifndef NTOP_INLINEFIX_H
#define NTOP_INLINEFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonpull.h"

struct functab;
struct profile;

/* Scripts and functions held at most (a coverage reply past these is read up to them). */
#define INLINEFIX_MAX_SCRIPTS 16384
#define INLINEFIX_MAX_FUNCS (1u << 22)
/* Nodes visited per profile looking for a callee below a node (bounds hostile or huge
 * profiles; past it, lines stay unrepaired). */
#define INLINEFIX_MAX_VISITS 400000

struct inlinefix_stats {
	uint64_t samples;       /* samples of JS nodes looked at */
	uint64_t moved;         /* samples moved to an inlined callee */
	uint64_t unresolved;    /* line ticks outside the node's function that named no callee */
	uint64_t ticks;         /* line ticks looked at */
	uint64_t minified;      /* samples of JS nodes in minified scripts, which are not repaired:
	                         * positionTicks have no column, and one line holds many functions */
	unsigned scripts_ready; /* scripts whose functions are known */
	unsigned scripts_unusable; /* scripts whose text could not be read or does not match */
};

struct inlinefix;

struct inlinefix *inlinefix_new(void);
void inlinefix_free(struct inlinefix *x); /* accepts NULL */

/* Takes the result of Profiler.getBestEffortCoverage ({"result":[ScriptCoverage...]}): the
 * function ranges of every script with a file URL not yet known. Returns the number of new
 * scripts, or -1 with *err (one sentence) when the result is malformed. */
int inlinefix_take_coverage(struct inlinefix *x, struct json_span result, char **err);

/* The text of the file at path: 1 with *text and *len, 0 while it loads (asked again at the
 * next inlinefix_resolve), -1 when it cannot be read (*why: one sentence, or NULL). */
typedef int (*inlinefix_text_fn)(void *ud, const char *path, const char **text, size_t *len,
	const char **why);

/* Turns the offsets of the scripts whose text was waited for into lines. Returns true when a
 * script became usable. */
bool inlinefix_resolve(struct inlinefix *x, inlinefix_text_fn text, void *ud);

/* Repairs p in place (its nodes stay in depth-first preorder; new ones are interned into ft).
 * Adds what it did to *st (may be NULL). */
void inlinefix_apply(struct inlinefix *x, struct profile *p, struct functab *ft,
	struct inlinefix_stats *st);

/* True when a profile named a script whose ranges are not known (coverage should be asked
 * for again); cleared by the next inlinefix_take_coverage. */
bool inlinefix_wants_coverage(const struct inlinefix *x);

/* Totals since inlinefix_new. */
void inlinefix_get_stats(const struct inlinefix *x, struct inlinefix_stats *st);

#endif
