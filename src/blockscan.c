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
 * within this long of it, or three sampling intervals if longer (eval-mode profiles overlap,
 * or leave milliseconds between them; --no-eval leaves a gap of milliseconds; at 20 ms a
 * loaded machine's sampler was seen 41 ms late there, which cut a block in two); a longer
 * hole may still be bridged as a (program) run (blockscan_feed). */
#define CONTINUE_GAP_US 20000.0
/* The paths of one stretch are kept in a trie of at most this many frames: beyond it, samples
 * count at the deepest frame already there. */
#define TRIE_MAX 8192
#define PENDING_MAX BLOCKS_PENDING_MAX
/* Readings that confirmed a delay, kept for candidates found after them: a profile (parsed
 * on a worker when large) can come in after the reading that saw its block's delay. */
#define READINGS_KEPT 8
/* A reading confirms when its longest delay reaches this share of the threshold: a block is
 * seen as a delay of up to one period of the loop's timer less than it lasted, and that period
 * is a fifth of the threshold at most (10 ms for the default 100 ms: engine_evloop.c). */
#define CONFIRM_SHARE 0.8
#define CONFIRM_SLACK_US 1e6
/* Of the stretch's time less its garbage collection (samples at the root, caused by the task's
 * own allocations: a block that allocates much would else be laid at its caller when a
 * coarse sampler, -i 20000, caught more collections than usual), a frame on the dominant path
 * holds at least this share. */
#define DOMINANT_SHARE 0.5
/* A run of (program) samples inside a stretch is held this long at most before it ends it
 * (the inspector's answer to a reading, in the middle of a task: a few ms, more when busy). */
#define HOLD_PROGRAM_US 50000.0
/* Two samples are of one task when their paths share this many outermost frames. */
#define SAME_TASK_FRAMES 2
/* A joined candidate stands whole when the reading's delay passes its longest part by more
 * than the loop timer's period (this at least): had the loop turned between the parts, no
 * delay could. */
#define JOIN_PROOF_MIN_US 10000.0

struct tnode {
	uint32_t func;
	int32_t parent, first_child, next_sibling;
	uint32_t depth;      /* frames from the root (the root is 0) */
	double self_us, total_us;
};

struct blockscan {
	double threshold_us;
	double continue_us;  /* CONTINUE_GAP_US, or three sampling intervals if longer */
	/* how far before its first sample a stretch (or a part) may have begun: the sampling
	 * interval. A sampler that ran late (a loaded machine, most at -i 20000) leaves a longer
	 * gap before that sample, and the task began anywhere in it: counted from the gap's start,
	 * a 308 ms block read 360 (block_phases.sh, 20 ms sampling beside four busy loops). */
	double look_back_us;
	/* the open stretch; censored: it was already running when the samples began (the
	 * session's first profile, or one after a gap), so that its start is not known */
	bool open, censored;
	double start_us, last_us, busy_us;
	double unseen_us;    /* the sampler's stall before its first sample (evloop_block) */
	double gc_us;        /* of busy_us, the garbage collector's samples */
	int32_t gc_at;       /* their trie node (-1: none yet) */
	double seen_us;      /* the last sample's time, of any kind (-INFINITY: none yet) */
	/* a (program) run since the stretch's last sample, begun at held_us: the next sample
	 * says whether the task went on (blockscan_feed) */
	bool held;
	double held_us;
	int32_t last_js;     /* trie node of the stretch's last JavaScript sample (-1: none) */
	/* the stretch's parts between held runs: the current one; of those closed, the longest
	 * length and the ones of the threshold or longer */
	bool joined;
	double part_start_us, part_busy_us;
	double longest_us;
	size_t n_parts;
	struct block_part parts[BLOCK_PARTS_MAX];
	struct tnode *t;
	size_t n_t;
	/* profile node -> trie node, valid where gen matches (a new profile or trie moves it) */
	int32_t *map;
	uint32_t *gen;
	uint32_t *chain;
	size_t map_cap;
	uint32_t cur_gen;
	struct evloop_block pend[PENDING_MAX];
	size_t n_pend;
	/* confirmed when found (by a reading kept in seen), not yet taken */
	struct evloop_block done[PENDING_MAX];
	size_t n_done;
	struct { double from_us, to_us, max_ms; } seen[READINGS_KEPT];
	double proof_us;     /* JOIN_PROOF_MIN_US, or the loop timer's period if longer */
	size_t n_seen;
};

struct blockscan *blockscan_create(double threshold_ms, double interval_us)
{
	struct blockscan *b = xcalloc(1, sizeof *b);

	b->threshold_us = threshold_ms * 1e3;
	b->continue_us = fmax(CONTINUE_GAP_US, 3 * interval_us);
	b->look_back_us = interval_us > 0 ? interval_us : INFINITY;
	b->proof_us = JOIN_PROOF_MIN_US;
	b->seen_us = -INFINITY;
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
	b->held = false;
	b->seen_us = -INFINITY;
	b->n_pend = b->n_done = b->n_seen = 0;
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

/* Whether trie nodes x and y share their outermost SAME_TASK_FRAMES frames (or all of the
 * shorter path, if shorter). */
static bool same_task(const struct blockscan *b, int32_t x, int32_t y)
{
	uint32_t d;

	if (x < 0 || y < 0)
		return false;
	d = b->t[x].depth < b->t[y].depth ? b->t[x].depth : b->t[y].depth;
	if (d > SAME_TASK_FRAMES)
		d = SAME_TASK_FRAMES;
	while (b->t[x].depth > d)
		x = b->t[x].parent;
	while (b->t[y].depth > d)
		y = b->t[y].parent;
	return d > 0 && x == y;
}

/* Ends the stretch's current part. */
static void part_close(struct blockscan *b)
{
	double len = b->last_us - b->part_start_us;

	if (len > b->longest_us)
		b->longest_us = len;
	if (len >= b->threshold_us && b->n_parts < BLOCK_PARTS_MAX)
		b->parts[b->n_parts++] = (struct block_part){ b->part_start_us, b->last_us,
			b->part_busy_us / 1e3 };
}

/* Appends k to list (n of PENDING_MAX), the oldest going when it is full. */
static void list_push(struct evloop_block *list, size_t *n, const struct evloop_block *k)
{
	if (*n == PENDING_MAX) {
		memmove(list, list + 1, (PENDING_MAX - 1) * sizeof *list);
		(*n)--;
	}
	list[(*n)++] = *k;
}

/* Whether a reading over (from_us, to_us] with a longest delay of max_ms (NAN: unknown)
 * confirms a candidate that ended at end_us: the delay a block causes is recorded when the
 * loop's timer next runs, after the block, in the reading that spans that moment or the next. */
static bool reading_covers(const struct blockscan *b, double from_us, double to_us,
	double max_ms, double end_us)
{
	return isfinite(max_ms) && max_ms * 1e3 >= CONFIRM_SHARE * b->threshold_us &&
		end_us <= to_us && end_us >= from_us - CONFIRM_SLACK_US;
}

/* A reading is taken at a turn of the loop, so one taken inside a stretch cuts it: the
 * samples ran on through the tasks around it with no idle sample between (at 20 ms sampling
 * on a loaded machine, a 450 ms block's stretch ran 42 ms past the reading that held its
 * delay, through the tasks after it and the reading's own code, and only the next reading,
 * with the next block's delay, covered it). The longer side is the block; a joined candidate
 * keeps its parts (split_parts). */
static void reading_cuts(double to_us, struct evloop_block *k)
{
	if (k->joined || !(k->start_us < to_us && to_us < k->end_us))
		return;
	if (to_us - k->start_us >= k->end_us - to_us) {
		k->end_us = to_us;
	} else {
		k->start_us = to_us;
		k->unseen_us = 0; /* it began at the reading, not in a stall before it */
	}
}

/* Whether what a reading left of k is still as long as a block. */
static bool still_a_block(const struct blockscan *b, const struct evloop_block *k)
{
	return k->end_us - k->start_us >= b->threshold_us;
}

/* A confirmed block held the loop for at most its delay and one period of the loop's timer
 * (which ran last at most a period before the block began), so samples that make it longer
 * ran before it: a task just before, with no idle sample between (at 20 ms sampling beside
 * four busy loops, a 454 ms block with a 442 ms delay read 543 ms, its end right and its start
 * 96 ms early). The end is kept: the delay was recorded when the block ended. */
static void delay_bounds(const struct blockscan *b, struct evloop_block *k)
{
	double most_us = k->lag_ms * 1e3 + b->proof_us;

	if (k->end_us - k->start_us > most_us) {
		k->start_us = k->end_us - most_us;
		k->busy_ms = fmin(k->busy_ms, most_us / 1e3);
	}
	/* And at least its delay, where the sampler stalled before its first sample: the block
	 * began in the stall, as far back as the delay says (a starved target's sampler, 82 ms
	 * late at a 468 ms block's start, had it read 391 ms with a 470 ms delay). */
	if (k->unseen_us > 0 && k->end_us - k->start_us < k->lag_ms * 1e3)
		k->start_us = fmax(k->start_us - k->unseen_us, k->end_us - k->lag_ms * 1e3);
}

/* Whether a reading confirms k whole, setting its lag: a joined k only if the delay passes
 * its longest part by the timer's period (proof_us), since the loop may have turned between
 * its parts. A reading inside k cuts it first. */
static bool reading_confirms(const struct blockscan *b, double from_us, double to_us,
	double max_ms, struct evloop_block *k)
{
	reading_cuts(to_us, k);
	if (!still_a_block(b, k) || !reading_covers(b, from_us, to_us, max_ms, k->end_us) ||
	    (k->joined && max_ms * 1e3 < k->longest_part_us + b->proof_us))
		return false;
	k->lag_ms = max_ms;
	delay_bounds(b, k);
	return true;
}

/* Whether a reading that does not confirm joined k whole tells that its parts stand alone:
 * it covers one of them. */
static bool reading_splits(const struct blockscan *b, double from_us, double to_us,
	double max_ms, const struct evloop_block *k)
{
	for (size_t i = 0; k->joined && i < k->n_parts; i++)
		if (reading_covers(b, from_us, to_us, max_ms, k->parts[i].end_us))
			return true;
	return false;
}

/* Writes k's parts to out as candidates of their own (the stack stays the whole's); returns
 * how many. */
static size_t split_parts(const struct evloop_block *k, struct evloop_block *out)
{
	for (size_t i = 0; i < k->n_parts; i++) {
		out[i] = *k;
		out[i].start_us = k->parts[i].start_us;
		out[i].end_us = k->parts[i].end_us;
		out[i].busy_ms = k->parts[i].busy_ms;
		out[i].joined = false;
		out[i].n_parts = 0;
		if (k->parts[i].start_us != k->start_us)
			out[i].unseen_us = 0;
	}
	return k->n_parts;
}

/* A new candidate: confirmed at once if a reading already seen confirms it, else split into
 * its parts if one says so, else pending. */
static void candidate(struct blockscan *b, struct evloop_block *k)
{
	struct evloop_block parts[BLOCK_PARTS_MAX];
	size_t n;

	for (size_t i = 0; i < b->n_seen; i++)
		if (reading_confirms(b, b->seen[i].from_us, b->seen[i].to_us, b->seen[i].max_ms, k)) {
			list_push(b->done, &b->n_done, k);
			return;
		}
	for (size_t i = 0; i < b->n_seen; i++)
		if (reading_splits(b, b->seen[i].from_us, b->seen[i].to_us, b->seen[i].max_ms, k)) {
			n = split_parts(k, parts);
			for (size_t j = 0; j < n; j++)
				candidate(b, &parts[j]);
			return;
		}
	if (still_a_block(b, k))
		list_push(b->pend, &b->n_pend, k);
}

/* Ends the open stretch: a candidate if it lasted the threshold. */
static void stretch_close(struct blockscan *b)
{
	struct evloop_block k;
	int32_t at = 0;

	b->open = false;
	b->held = false;
	part_close(b);
	/* one whose start was not seen would be said shorter than it was */
	if (b->last_us - b->start_us < b->threshold_us || !(b->busy_us > 0) || b->censored)
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
	k.unseen_us = b->unseen_us;
	k.joined = b->joined;
	k.longest_part_us = b->longest_us;
	k.n_parts = b->n_parts;
	memcpy(k.parts, b->parts, b->n_parts * sizeof *b->parts);
	for (;;) {
		int32_t best = -1;

		for (int32_t c = b->t[at].first_child; c >= 0; c = b->t[c].next_sibling)
			if ((c != b->gc_at || b->gc_us >= b->t[0].total_us) &&
			    (best < 0 || b->t[c].total_us > b->t[best].total_us))
				best = c;
		if (best < 0 || b->t[best].total_us < DOMINANT_SHARE * (b->t[0].total_us - b->gc_us) ||
		    k.depth >= BLOCK_MAX_DEPTH)
			break;
		k.stack[k.depth++] = b->t[best].func;
		at = best;
	}
	k.share = b->t[at].total_us / b->t[0].total_us;
	candidate(b, &k);
}

void blockscan_feed(struct blockscan *b, const struct profile *p, const struct functab *ft,
	double trim_until_us)
{
	double t = p->start_time_us, stall_us;
	bool first = true, gap;

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
		int32_t at;
		enum func_kind kind;

		t += dt;
		if (t <= trim_until_us)
			continue;
		node = p->samples[s];
		kind = functab_get(ft, p->nodes[node].func)->kind;
		/* The samples go on from the last profile's, or begin after a gap. A hole between
		 * the two no longer than a (program) run may last is bridged as one: the stretch
		 * goes on if the same task does, the readings' delay to prove it, and one that
		 * begins after it may have begun in it. (A starved target rotated inside blocks: 2
		 * to 61 ms with no sample, counted from the last JavaScript sample, cut them.) What
		 * came before this sample is unknown since the last one of either profile. */
		stall_us = first && isfinite(b->seen_us) ? t - b->seen_us : wt;
		gap = first && !(t - wt - b->seen_us <= b->continue_us);
		if (gap && t - (b->open && b->held ? b->held_us : b->seen_us) <= HOLD_PROGRAM_US) {
			gap = false;
			if (b->open && !b->held) {
				b->held = true;
				b->held_us = b->seen_us;
			}
		}
		if (b->open && gap)
			stretch_close(b);
		first = false;
		b->seen_us = t;
		if (kind == FUNC_PROGRAM && b->open) {
			if (!b->held) {
				b->held = true;
				b->held_us = t - wt;
			} else if (t - b->held_us > HOLD_PROGRAM_US) {
				stretch_close(b);
			}
			continue;
		}
		if (kind != FUNC_JS && kind != FUNC_GC) {
			if (b->open)
				stretch_close(b);
			continue;
		}
		if (b->open && b->held) {
			/* the same task going on after the (program) run: a new part of the stretch */
			if (kind == FUNC_JS && same_task(b, trie_of(b, p, node), b->last_js)) {
				part_close(b);
				b->held = false;
				b->joined = true;
				wt = fmin(wt, b->look_back_us);
				b->part_start_us = t - wt;
				b->part_busy_us = 0;
			} else {
				stretch_close(b);
			}
		}
		if (!b->open) {
			/* its first sample counts from one interval before it at most; a longer gap is
			 * a stall that may hide its start */
			b->unseen_us = gap ? 0 : fmax(0, stall_us - b->look_back_us);
			wt = fmin(wt, b->look_back_us);
			b->open = true;
			b->censored = gap;
			b->start_us = b->part_start_us = t - wt;
			b->busy_us = b->part_busy_us = b->gc_us = 0;
			b->gc_at = -1;
			b->longest_us = 0;
			b->n_parts = 0;
			b->joined = false;
			b->last_js = -1;
			trie_clear(b);
		}
		at = trie_of(b, p, node);
		b->t[at].self_us += wt;
		b->busy_us += wt;
		if (kind == FUNC_GC) {
			b->gc_us += wt;
			b->gc_at = at;
		}
		b->part_busy_us += wt;
		b->last_us = t;
		if (kind == FUNC_JS)
			b->last_js = at;
	}
}

size_t blockscan_take(struct blockscan *b, struct evloop_block *out, size_t max_out)
{
	size_t n = b->n_done < max_out ? b->n_done : max_out;

	memcpy(out, b->done, n * sizeof *out);
	memmove(b->done, b->done + n, (b->n_done - n) * sizeof *b->done);
	b->n_done -= n;
	return n;
}

size_t blockscan_confirm(struct blockscan *b, double from_us, double to_us, double max_ms,
	double timer_ms, struct evloop_block *out, size_t max_out)
{
	size_t n, keep = 0, n_split = 0;
	struct evloop_block split[PENDING_MAX];

	if (isfinite(max_ms) && isfinite(timer_ms))
		b->proof_us = fmax(JOIN_PROOF_MIN_US, timer_ms * 1e3);
	if (!isfinite(from_us) || !isfinite(to_us))
		return blockscan_take(b, out, max_out);
	/* kept for the candidates whose profile has not come in yet */
	if (reading_covers(b, from_us, to_us, max_ms, to_us)) {
		if (b->n_seen == READINGS_KEPT) {
			memmove(b->seen, b->seen + 1, (READINGS_KEPT - 1) * sizeof *b->seen);
			b->n_seen--;
		}
		b->seen[b->n_seen].from_us = from_us;
		b->seen[b->n_seen].to_us = to_us;
		b->seen[b->n_seen++].max_ms = max_ms;
	}
	n = blockscan_take(b, out, max_out);
	for (size_t i = 0; i < b->n_pend; i++) {
		struct evloop_block *k = &b->pend[i];

		if (n < max_out && reading_confirms(b, from_us, to_us, max_ms, k)) {
			out[n++] = *k;
			continue;
		}
		if (n_split + BLOCK_PARTS_MAX <= PENDING_MAX &&
		    reading_splits(b, from_us, to_us, max_ms, k)) {
			n_split += split_parts(k, split + n_split);
			continue;
		}
		if (from_us > k->end_us + CONFIRM_SLACK_US || !still_a_block(b, k))
			continue; /* no later reading can confirm it, or the reading cut it short */
		b->pend[keep++] = *k;
	}
	b->n_pend = keep;
	/* a joined candidate's parts: confirmed by this reading, or waiting for their own */
	for (size_t i = 0; i < n_split; i++) {
		if (n < max_out && reading_confirms(b, from_us, to_us, max_ms, &split[i]))
			out[n++] = split[i];
		else if (from_us <= split[i].end_us + CONFIRM_SLACK_US && still_a_block(b, &split[i]))
			list_push(b->pend, &b->n_pend, &split[i]);
	}
	return n;
}
