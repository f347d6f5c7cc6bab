/* profile.h: a V8 CPU profile (Profiler.Profile) parsed into compact arrays.
 *
 * The parser reads the JSON text of a Profile object in one pass (no cJSON tree), interns
 * every call frame into the session's function table and validates the structure: node ids
 * unique, every child id known, one parent per node, exactly one root, every node reachable
 * from the root, every sample a known node, as many timeDeltas as samples. A profile that
 * fails any check is rejected with a message, never trusted. */
#ifndef NTOP_PROFILE_H
#define NTOP_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct functab;

struct profile_node {
	uint32_t func;        /* index into the function table */
	int32_t parent;       /* index into profile.nodes; -1 for the root */
	uint32_t hit_count;
	uint32_t ticks_first; /* this node's positionTicks: ticks[ticks_first .. +ticks_count) */
	uint32_t ticks_count;
};

struct position_tick {
	uint32_t line;  /* 1-based, as the protocol gives it */
	uint32_t ticks;
};

struct profile {
	/* Nodes in depth-first preorder: nodes[0] is the root and every parent index is smaller
	 * than its children's. */
	struct profile_node *nodes;
	size_t n_nodes;
	struct position_tick *ticks;
	size_t n_ticks;
	uint32_t *samples;     /* index into nodes, one per sample */
	int64_t *time_deltas;  /* µs, as given: the first is relative to start_time_us */
	size_t n_samples;
	double start_time_us;  /* the profile's clock (monotonic µs) */
	double end_time_us;
};

/* Parses the Profile object in [json, json+len). On failure returns -1 and, if err is not
 * NULL, sets *err to a new message the caller frees; out is then empty. */
int profile_parse(const char *json, size_t len, struct functab *ft, struct profile *out,
	char **err);
void profile_release(struct profile *p);

/* Sample weighting, shared by every consumer so that they agree: sample i covers the time
 * since the previous sample (time_deltas[i], negative counts as 0) and happened at
 * start_time_us + the sum of time_deltas[0..i]. Samples at or before trim_until_us belong to
 * the previous, overlapping window and are skipped. */

#endif
