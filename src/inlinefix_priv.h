/* inlinefix_priv.h: what the repair's three files share (inlinefix.h is the interface).
 *   inlinefix_scripts.c: the target's scripts: coverage's function ranges made lines with the
 *     scripts' texts, and lookups in them (which function holds a line, calls a name);
 *   inlinefix_learn.c: what earlier profiles taught (calls seen, whose a shared line number
 *     was), and the profiles held until their scripts are known;
 *   inlinefix.c: the repair of one profile, and the interface's life cycle.
 * Included by those three files only. */
#ifndef NTOP_INLINEFIX_PRIV_H
#define NTOP_INLINEFIX_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlinefix.h"
#include "profile.h"

struct functab;

#define NONE UINT32_MAX
/* A function's key in what was learned: its script's index and its own (fix_key). */
#define NO_KEY UINT64_MAX
/* The profiler's column of a function is the '(' of its parameters, coverage's the start of
 * its name or keyword: at most this far apart on one line. */
#define PAREN_SCAN_MAX 256
/* A file whose lines of code average more than this, with a function per line or more, is
 * minified (minified_text). */
#define MINIFIED_LINE_UNITS 300
/* Functions looked at on one line to find a node's own (a minified file is refused above). */
#define OWN_SCAN_MAX 64
/* Caller -> callee edges remembered from the profiles (at 24 bytes and two table slots
 * each: under 2 MB), and how far from a node's function they are followed: two calls (a
 * dispatcher, the handler it calls through a variable, that handler's helper) and no
 * further, so that a function far below (etag, four calls under an express route) is not
 * taken for an inlined helper. */
#define FIX_MAX_EDGES 32768
#define FIX_REACH_DEPTH 2
#define FIX_REACH_MAX 256
/* A line of the node's own function goes to a function of another script that shares its
 * number only when the windows where that script's code ran there as a real frame, at most
 * FIX_OWN_DEPTH calls below, said so: a window with FIX_OWN_MIN ticks of that code on the line
 * and the node's own a FIX_OWN_RATIO-th of them or fewer says "the callee's" (with that code's
 * ticks); one with FIX_OWN_MIN of the node's own and as many as that code's or more says "its
 * own" (with the node's), and the ticks that said "the callee's" must outweigh those that said
 * "its own" (ownlines.h). (function, line) pairs remembered: FIX_MAX_OWN_LINES. */
#define FIX_OWN_DEPTH 3
#define FIX_OWN_MIN 20
#define FIX_OWN_RATIO 10
#define FIX_MAX_OWN_LINES 65536
/* A profile that names a script whose ranges are not known yet is held, and learned from once
 * they are: the first windows after the attach come before the coverage and the texts, and
 * they are often the ones where the callees still ran as real frames (V8 optimizes them again,
 * inlined, a few seconds later). At most FIX_HELD_MAX profiles and FIX_HELD_NODES nodes and
 * line ticks in all; one waits FIX_HELD_AGE later profiles at most, then what is known of it is
 * learned. */
#define FIX_HELD_MAX 4
#define FIX_HELD_NODES (1u << 20)
#define FIX_HELD_AGE 8

struct fix_fn {
	uint32_t start, end;    /* UTF-16 offsets, as coverage gives them */
	uint32_t line, end_line; /* 1-based */
	int32_t col;            /* 0-based, where the profiler puts the function */
	int32_t parent;         /* the enclosing function's index, or -1 */
	bool top;               /* the script's own top-level code: never an inlined callee */
	char *name;
	uint32_t name_hash;     /* of the name's last word ("Foo.bar", "get bar": bar); 0: none */
	uint32_t func;          /* its function-table index once interned, or NONE */
};

/* A name written before a '(' in the script's text ("fnvStep(", "x.mix("): a call, or what
 * looks like one (a string or comment may hold some: they only add candidates). */
struct call_site {
	uint32_t off;           /* UTF-16 offset of the name */
	uint32_t hash;
};

enum script_state { S_TEXT, S_READY, S_UNUSABLE };

struct fix_script {
	char *url;
	enum script_state state;
	bool minified;          /* UNUSABLE because minified: its inlined callees cannot be found */
	struct fix_fn *fns;     /* by start, outer first (READY: with lines) */
	size_t n_fns;
	struct call_site *calls; /* READY: by offset */
	size_t n_calls;
};

/* A profile's shape kept for learning (its nodes and line ticks; the samples are not needed). */
struct held_profile {
	struct profile_node *nodes;
	size_t n_nodes;
	struct position_tick *ticks;
	size_t n_ticks;
	unsigned age;           /* profiles applied since */
};

struct inlinefix {
	struct fix_script *s;
	size_t n, cap;
	uint32_t *slots;        /* url hash -> index into s, NONE for empty */
	size_t n_slots;
	size_t total_fns;
	bool want_coverage;
	bool covered;           /* a coverage was taken */
	struct calledges *edges; /* caller -> callee, learned from the profiles (calledges.h) */
	struct ownlines *own;   /* whose a line number was, learned likewise (ownlines.h) */
	unsigned long long ft_serial; /* the function table the interned indices belong to
	                         * (functab_serial: a freed table's address may come back) */
	struct held_profile held[FIX_HELD_MAX];
	size_t n_held, held_nodes; /* held_nodes: their nodes and line ticks, together */
	struct inlinefix_stats st;
};

/* Where one node's ticks of one line go: an existing node below it, or a new child. */
struct dest {
	uint32_t node;          /* an existing node's index, or NONE */
	uint32_t func;          /* for a new child */
	uint64_t ticks;
	int64_t cur;            /* smooth weighted round robin */
	uint32_t new_index;
};

struct node_plan {
	uint32_t node;
	size_t first, count;    /* its dests */
	uint64_t stay;          /* ticks that stay on the node */
	uint64_t total;         /* all its ticks */
	int64_t stay_cur;
};

struct repair {
	struct inlinefix *x;
	struct profile *p;
	struct functab *ft;
	uint32_t *sub_end;      /* the end of each node's subtree (preorder) */
	uint32_t *depth;
	uint32_t *tick_dest;    /* per tick entry: its dest index, or NONE (stays) */
	struct dest *dests;
	size_t n_dests, dests_cap;
	struct node_plan *plans;
	size_t n_plans, plans_cap;
	uint64_t visits;
	size_t n_new;
	uint64_t *key;          /* per node: its function's fix_key, or NO_KEY */
	uint64_t reach[FIX_REACH_MAX]; /* what reach_for's function called, as learned */
	size_t n_reach;
	uint64_t reach_for;
};

/* inlinefix_scripts.c */
bool fix_file_url(const char *url);
void fix_script_free(struct fix_script *sc);
/* The script of url, or NULL when coverage has not named it. */
struct fix_script *fix_find(const struct inlinefix *x, const char *url);
/* In a READY script: the function the profiler names by its 1-based line and 0-based column
 * (or -1); the innermost function whose lines hold line (or -1); whether function fn writes a
 * call of the name whose hash is given; whether f's own lines (not a nested function's) hold
 * line; whether f is nested in outer. */
int32_t fix_own_fn(const struct fix_script *s, uint32_t line, int32_t col);
int32_t fix_innermost(const struct fix_script *s, uint32_t line);
bool fix_calls_name(const struct fix_script *s, int32_t fn, uint32_t hash);
bool fix_owns_line(const struct fix_script *s, int32_t f, uint32_t line);
bool fix_nested_in(const struct fix_script *s, int32_t f, int32_t outer);
/* Function k of s interned into ft (once). */
uint32_t fix_fn_func(struct inlinefix *x, struct fix_script *s, int32_t k, struct functab *ft);
/* A function's key (its script's index and its own), and back. */
uint64_t fix_key(const struct inlinefix *x, const struct fix_script *s, int32_t fn);
struct fix_script *fix_key_script(const struct inlinefix *x, uint64_t k);
int32_t fix_key_fn(uint64_t k);

/* inlinefix_learn.c */
/* Fills r->key: each node's function's key, or NO_KEY when its script is not READY. */
void fix_node_keys(struct repair *r);
/* True when the profile names a script whose ranges are not known yet (its text is loading,
 * or no coverage came yet). */
bool fix_names_pending(const struct repair *r);
/* Learns from r's profile as V8 gave it (before the repair): its calls, and whose the line
 * numbers shared by a caller and a callee of another script were. Needs fix_node_keys. */
void fix_learn(struct repair *r);
/* Keeps p's shape to learn from later; false when there is no room. */
bool fix_hold(struct inlinefix *x, const struct profile *p);
/* Learns from the held profiles whose scripts are known now, or that waited long enough. */
void fix_learn_held(struct inlinefix *x, struct functab *ft);
void fix_held_drop(struct inlinefix *x, size_t i);

#endif
