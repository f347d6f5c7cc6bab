/* calltree.h: a call tree merged from many window profiles, for export.
 *
 * Nodes are keyed by (parent, function), so the tree of a whole session is as large as the
 * set of distinct stacks, not as the number of samples. Up to max_samples samples are kept in
 * order, so a short session exports with its real timeline; past that the export carries
 * synthetic samples: each node's self time in equal quanta (about max_samples in all), so that
 * DevTools (which weighs hitCount), VS Code and speedscope (which weigh timeDeltas) show the
 * same totals, without the timeline. */
#ifndef NTOP_CALLTREE_H
#define NTOP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;
struct functab;
struct calltree;

struct calltree *calltree_create(size_t max_samples);
void calltree_free(struct calltree *t);
void calltree_reset(struct calltree *t);
/* Merges the samples of p after trim_until_us (see profile.h). */
void calltree_add(struct calltree *t, const struct profile *p, double trim_until_us);
/* The same in steps, so that a profile of 200,000 nodes does not hold the event loop for
 * tens of milliseconds: begin (which first finishes a merge still under way), then steps of
 * at most budget nodes or samples each until one returns true. p must stay unchanged until
 * then. Between steps the tree is whole, only missing some of p's time; calltree_reset()
 * drops the merge. */
void calltree_merge_begin(struct calltree *t, const struct profile *p, double trim_until_us);
bool calltree_merge_step(struct calltree *t, size_t budget);
void calltree_merge_finish(struct calltree *t);
bool calltree_merging(const struct calltree *t);
/* Samples merged since create or reset, including those past max_samples. */
size_t calltree_sample_count(const struct calltree *t);

/* Adds src (whole, not merging) to t: its nodes' times and hits and its lines, and its kept
 * samples after t's on the one clock (t's timeline is dropped if src's was). The flight
 * recorder's windows are added up so (flightrec.h). */
void calltree_add_tree(struct calltree *t, const struct calltree *src);
/* Bytes of memory t holds. */
size_t calltree_bytes(const struct calltree *t);

/* Writes a .cpuprofile (the Profiler.Profile JSON) with valid ids, one root, and samples
 * consistent with timeDeltas and hitCount. Returns 0, or -1 on a write error. */
int calltree_write_cpuprofile(const struct calltree *t, const struct functab *ft, FILE *f);
/* Writes folded stacks ("a;b;c <µs>" per line) for flamegraph.pl and speedscope. */
int calltree_write_folded(const struct calltree *t, const struct functab *ft, FILE *f);
/* The same, every stack under a first frame (first; NULL: none), to tell threads or processes
 * apart in one file. */
int calltree_write_folded_under(const struct calltree *t, const struct functab *ft,
	const char *first, FILE *f);

/* Read access for the views: node 0 is the root and a parent's index is always below its
 * children's. self_us is the node's own time; a node's total is its self time plus its
 * children's totals. */
size_t calltree_node_count(const struct calltree *t);
void calltree_node(const struct calltree *t, size_t i, uint32_t *func, int32_t *parent,
	double *self_us);

/* Samples merged at node i (every one, whether the timeline keeps it or not). */
uint64_t calltree_node_hits(const struct calltree *t, size_t i);
/* The merged samples' span on the profiles' clock (µs, gaps between windows included); 0
 * before the first sample. */
double calltree_span_us(const struct calltree *t);

/* Writes to path as an atomic file (atomicfile.h: whole or not at all, mode 0600). On failure
 * returns -1 and sets *cause to a new message. */
int calltree_save(const struct calltree *t, const struct functab *ft, const char *path,
	bool folded, char **cause);

#endif
