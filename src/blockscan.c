/* blockscan.c: blocked-loop events from the CPU profile's samples (blockscan.h). */
#include "config.h"

#include "blockscan.h"
#include "functab.h"
#include "profile.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A stretch open at a profile's end goes on in the next if that one's first kept sample began
 * within this long of it (eval-mode profiles overlap; --no-eval leaves a gap of milliseconds). */
#define CONTINUE_GAP_US 20000.0
/* The paths of one stretch are kept in a trie of at most this many frames: beyond it, samples
 * count at the deepest frame already there. */
#define TRIE_MAX 8192
#define PENDING_MAX BLOCKS_PENDING_MAX
/* A reading confirms when its longest delay reaches this share of the threshold: the loop's
 * timer ticks every 10 ms, so a block is seen as a delay of up to 10 ms less than it lasted. */
#define CONFIRM_SHARE 0.8
#define CONFIRM_SLACK_US 1e6
/* Of the stretch's time, a frame on the dominant path holds at least this share. */
#define DOMINANT_SHARE 0.5

struct tnode {
	uint32_t func;
	int32_t parent, first_child, next_sibling;
	uint32_t depth;      /* frames from the root (the root is 0) */
	double self_us, total_us;
};

struct blockscan {
	double threshold_us;
	/* the open stretch */
	bool open;
	double start_us, last_us, busy_us;
	struct tnode *t;
	size_t n_t;
	/* profile node -> trie node, valid where gen matches (a new profile or trie moves it) */
	int32_t *map;
	uint32_t *gen;
	uint32_t *chain;
	size_t map_cap;
	uint32_t cur_gen;
	struct loop_block pend[PENDING_MAX];
	size_t n_pend;
};

struct blockscan *blockscan_create(double threshold_ms)
{
	struct blockscan *b = xcalloc(1, sizeof *b);

	b->threshold_us = threshold_ms * 1e3;
	b->t = xmalloc(TRIE_MAX * sizeof *b->t);
	b->cur_gen = 1;
	return b;
}

void blockscan_free(struct blockscan *b)
{
	if (!b)
		return;
	free(b->t);
	free(b->map);
	free(b->gen);
	free(b->chain);
	free(b);
}

void blockscan_reset(struct blockscan *b)
{
	b->open = false;
	b->n_pend = 0;
	b->cur_gen++;
}

size_t blockscan_pending(const struct blockscan *b)
{
	return b->n_pend;
}

static void trie_clear(struct blockscan *b)
{
	b->t[0] = (struct tnode){ .func = UINT32_MAX, .parent = -1, .first_child = -1,
		.next_sibling = -1 };
	b->n_t = 1;
	b->cur_gen++; /* the map pointed into the old trie */
}

/* The child of parent for func, added if new and there is room; else parent itself. */
static int32_t trie_child(struct blockscan *b, int32_t parent, uint32_t func)
{
	struct tnode *p = &b->t[parent];
	int32_t c;

	for (c = p->first_child; c >= 0; c = b->t[c].next_sibling)
		if (b->t[c].func == func)
			return c;
	if (b->n_t >= TRIE_MAX || p->depth >= BLOCK_MAX_DEPTH)
		return parent;
	c = (int32_t)b->n_t++;
	b->t[c] = (struct tnode){ .func = func, .parent = parent, .first_child = -1,
		.next_sibling = p->first_child, .depth = p->depth + 1 };
	b->t[parent].first_child = c;
	return c;
}

/* The trie node of profile node i (iterative: profile trees can be thousands deep). */
static int32_t trie_of(struct blockscan *b, const struct profile *p, uint32_t i)
{
	size_t n = 0;
	int32_t at = 0, x = (int32_t)i;

	while (x > 0 && b->gen[x] != b->cur_gen) {
		b->chain[n++] = (uint32_t)x;
		x = p->nodes[x].parent;
	}
	if (x > 0)
		at = b->map[x];
	while (n) {
		uint32_t y = b->chain[--n];
		at = trie_child(b, at, p->nodes[y].func);
		b->map[y] = at;
		b->gen[y] = b->cur_gen;
	}
	return at;
}

static void pend_push(struct blockscan *b, const struct loop_block *k)
{
	if (b->n_pend == PENDING_MAX) {
		memmove(b->pend, b->pend + 1, (PENDING_MAX - 1) * sizeof *b->pend);
		b->n_pend--;
	}
	b->pend[b->n_pend++] = *k;
}

/* Ends the open stretch: a candidate if it lasted the threshold. */
static void stretch_close(struct blockscan *b)
{
	struct loop_block k;
	int32_t at = 0;

	b->open = false;
	if (b->last_us - b->start_us < b->threshold_us || !(b->busy_us > 0))
		return;
	for (size_t i = 0; i < b->n_t; i++)
		b->t[i].total_us = b->t[i].self_us;
	/* children come after their parents */
	for (size_t i = b->n_t; i-- > 1;)
		b->t[b->t[i].parent].total_us += b->t[i].total_us;
	memset(&k, 0, sizeof k);
	k.start_us = b->start_us;
	k.end_us = b->last_us;
	k.busy_ms = b->busy_us / 1e3;
	k.lag_ms = NAN;
	for (;;) {
		int32_t best = -1;

		for (int32_t c = b->t[at].first_child; c >= 0; c = b->t[c].next_sibling)
			if (best < 0 || b->t[c].total_us > b->t[best].total_us)
				best = c;
		if (best < 0 || b->t[best].total_us < DOMINANT_SHARE * b->t[0].total_us ||
		    k.depth >= BLOCK_MAX_DEPTH)
			break;
		k.stack[k.depth++] = b->t[best].func;
		at = best;
	}
	k.share = b->t[at].total_us / b->t[0].total_us;
	pend_push(b, &k);
}

void blockscan_feed(struct blockscan *b, const struct profile *p, const struct functab *ft,
	double trim_until_us)
{
	double t = p->start_time_us;
	bool first = true;

	if (p->n_nodes > b->map_cap) {
		b->map = xrealloc(b->map, p->n_nodes * sizeof *b->map);
		b->gen = xrealloc(b->gen, p->n_nodes * sizeof *b->gen);
		b->chain = xrealloc(b->chain, p->n_nodes * sizeof *b->chain);
		memset(b->gen + b->map_cap, 0, (p->n_nodes - b->map_cap) * sizeof *b->gen);
		b->map_cap = p->n_nodes;
	}
	/* new profile, new node numbers: the generation only grows, so old entries never match */
	b->cur_gen++;
	for (size_t s = 0; s < p->n_samples; s++) {
		double dt = (double)p->time_deltas[s], wt = dt > 0 ? dt : 0;
		uint32_t node;
		enum func_kind kind;

		t += dt;
		if (t <= trim_until_us)
			continue;
		node = p->samples[s];
		kind = functab_get(ft, p->nodes[node].func)->kind;
		if (kind != FUNC_JS && kind != FUNC_GC) {
			if (b->open)
				stretch_close(b);
			first = false;
			continue;
		}
		if (b->open && first && t - wt - b->last_us > CONTINUE_GAP_US)
			stretch_close(b);
		first = false;
		if (!b->open) {
			b->open = true;
			b->start_us = t - wt;
			b->busy_us = 0;
			trie_clear(b);
		}
		b->t[trie_of(b, p, node)].self_us += wt;
		b->busy_us += wt;
		b->last_us = t;
	}
}

size_t blockscan_confirm(struct blockscan *b, double from_us, double to_us, double max_ms,
	struct loop_block *out, size_t max_out)
{
	size_t n = 0, keep = 0;
	bool enough = isfinite(max_ms) && max_ms * 1e3 >= CONFIRM_SHARE * b->threshold_us;

	if (!isfinite(from_us) || !isfinite(to_us))
		return 0;
	for (size_t i = 0; i < b->n_pend; i++) {
		struct loop_block *k = &b->pend[i];

		if (enough && k->end_us <= to_us && k->end_us >= from_us - CONFIRM_SLACK_US &&
		    n < max_out) {
			out[n] = *k;
			out[n++].lag_ms = max_ms;
			continue;
		}
		if (from_us > k->end_us + CONFIRM_SLACK_US)
			continue; /* no later reading can confirm it */
		b->pend[keep++] = *k;
	}
	b->n_pend = keep;
	return n;
}
