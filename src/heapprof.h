/* heapprof.h: who holds the memory. V8's sampling heap profiler (HeapProfiler.startSampling /
 * getSamplingProfile) gives a tree of allocation sites with the bytes still live; this module
 * sums it per function, and compares it with a baseline profile to find what grows. Bytes
 * allocated inside Node's own code (node: and internal/ scripts, natives: see
 * functab_is_internal()) are charged to the nearest calling function of the application: a string made by Buffer.toString() in
 * leakyCache() is held by leakyCache, not by node:buffer's slice. It also
 * streams heap snapshots (HeapProfiler.addHeapSnapshotChunk) to a file. */
#ifndef NTOP_HEAPPROF_H
#define NTOP_HEAPPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct functab;

struct alloc_site {
	uint32_t func;          /* function table index */
	double live_bytes;      /* selfSize summed over the function's nodes */
	double growth_bytes;    /* live_bytes minus the baseline's (may be negative) */
};

struct alloc_table {
	struct alloc_site *sites; /* sorted by live_bytes, descending */
	size_t n, cap;
	double total_live_bytes;
	double time_s;            /* when it was fetched */
};

void alloc_table_init(struct alloc_table *t);
void alloc_table_free(struct alloc_table *t);
/* Parses a SamplingHeapProfile object ({head, samples}) into t (reset first); call frames are
 * interned into ft. The tree is validated (depth, sizes, types); -1 with *err on bad input. */
int heapprof_parse(const char *json, size_t len, struct functab *ft, struct alloc_table *t,
	char **err);
/* The profile's stacks, for writers that keep them (pprof): node() for each node with live
 * bytes, with its functions from the head (V8's (root)) down to it; sample() for each entry of
 * samples (the node it names may not exist: check). Calls come during the parse, so a
 * profile that fails later has been partly visited: keep nothing until heapprof_walk() returns 0. */
struct heapprof_visitor {
	void (*node)(void *ud, double id, const uint32_t *stack, size_t depth, double self_bytes);
	void (*sample)(void *ud, double node_id, double size);
	void *ud;
};
/* heapprof_parse() with a visitor, and no table. Returns 0, or -1 with *err. */
int heapprof_walk(const char *json, size_t len, struct functab *ft,
	const struct heapprof_visitor *v, char **err);

/* Sets every site's growth_bytes against baseline (sites only in the baseline are added with
 * live 0 and negative growth). */
void alloc_table_diff(struct alloc_table *t, const struct alloc_table *baseline);
/* Sorts by growth_bytes, descending (for the "what grows" table). */
void alloc_table_sort_growth(struct alloc_table *t);

#endif
