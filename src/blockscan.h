/* blockscan.h: blocked-loop events, found in the CPU profile's samples.
 *
 * A stretch of samples in which the main thread ran JavaScript (or collected garbage) without
 * once going back to the event loop (an (idle), (program) or (root) sample) and that lasted
 * the threshold or more is a candidate. Its stack is the path most of its samples share: from
 * the root, the heaviest child while it holds at least half the stretch's time; the deepest
 * frame of that path is the function that held the loop. A stretch that runs past the end of
 * a profile goes on in the next one if that one starts with it; one already running when the
 * samples begin (the first profile, or one after a gap) is none, since its length is not
 * known.
 *
 * Samples cannot tell one long task from many short ones run back to back (switching between
 * them takes microseconds, far less than a sample): a saturated loop of 5 ms tasks makes
 * stretches of hundreds of milliseconds. So a candidate stands only if the loop's own delay
 * histogram saw a delay of that order in the same span (blockscan_confirm, fed by the
 * event-loop readings), whichever comes in first, the reading or the profile; without
 * readings (--no-eval) there are no blocks.
 *
 * Times are microseconds on the monotonic clock, the CPU profile's (V8 and Node's hrtime read
 * CLOCK_MONOTONIC). Pure data: no terminal, no JSON. */
#ifndef NTOP_BLOCKSCAN_H
#define NTOP_BLOCKSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct functab;

#define BLOCK_MAX_DEPTH 48
#define BLOCK_PARTS_MAX 4
/* Candidates waiting for a reading; beyond it the oldest go. */
#define BLOCKS_PENDING_MAX 64

struct evloop_block {
	double start_us, end_us;      /* monotonic µs: the stretch's first sample's start (one
	                               * sampling interval before it at most), its last sample */
	double busy_ms;               /* the stretch's sample time */
	uint32_t stack[BLOCK_MAX_DEPTH]; /* function indices, outermost first ((root) left out) */
	size_t depth;                 /* 0: no path held half the stretch */
	double share;                 /* share of the stretch under the deepest frame, 0..1 */
	double lag_ms;                /* how late the loop's timer was in the reading that confirmed it */
	/* how long before start_us it may have begun unseen: the sampler stalled before its first
	 * sample for longer than the interval counted for it (a starved target) */
	double unseen_us;
	/* Joined across short (program) runs (see blockscan_feed): the longest of its parts
	 * between them, and those of the threshold or longer (the first BLOCK_PARTS_MAX), which
	 * stand alone if the readings do not show that the loop stayed blocked. */
	bool joined;
	double longest_part_us;
	size_t n_parts;
	struct block_part {
		double start_us, end_us, busy_ms;
	} parts[BLOCK_PARTS_MAX];
};

/* How long it held the loop: from its first sample's start to its last sample, in ms. */
static inline double evloop_block_ms(const struct evloop_block *b)
{
	return (b->end_us - b->start_us) / 1e3;
}

struct blockscan;

/* threshold_ms: the shortest stretch that is a candidate (> 0); interval_us: the profiles'
 * sampling interval (the most it may be, when it changes), and the most a stretch's first
 * sample counts for (a sampler running late leaves a longer gap before it). */
struct blockscan *blockscan_create(double threshold_ms, double interval_us);
void blockscan_free(struct blockscan *b);

/* Scans p's samples after trim_until_us (-INFINITY for all) for candidates; a stretch still
 * running at the profile's end is kept open for the next call. A short run of (program)
 * samples between samples of the same task (the same outermost frames) does not end the
 * stretch: the inspector answering ntop-js interrupts a running task, and its work shows as
 * (program), longer on a busy machine. But the loop may also have turned there, between two
 * tasks alike, so such a candidate is confirmed whole only by a delay longer than its longest
 * part could cause; else its parts of the threshold or longer are candidates of their own. The profile must have passed
 * profile_parse (its node and sample indices are trusted). */
void blockscan_feed(struct blockscan *b, const struct profile *p, const struct functab *ft,
	double trim_until_us);

/* A loop reading over (from_us, to_us] whose longest delay was max_ms, from a timer of
 * timer_ms (a joined candidate needs a delay past its longest part by that). The delay a block
 * causes is recorded when the loop's timer next runs, after the block, so candidates that
 * ended in the reading's span or up to a second before it are confirmed if max_ms reaches
 * most of the threshold, and dropped once a reading starts more than a second after them;
 * a reading that could confirm is kept for candidates found later. A reading taken inside a
 * candidate cuts it (the loop turned there): its longer side stays, if as long as the
 * threshold. Confirmed ones (those
 * blockscan_take would give first) are written to out (at most max_out, oldest first; more
 * wait for the next reading); returns how many. */
size_t blockscan_confirm(struct blockscan *b, double from_us, double to_us, double max_ms,
	double timer_ms, struct evloop_block *out, size_t max_out);

/* Candidates confirmed when they were found, by a reading that had come in before their
 * profile: written to out (at most max_out, oldest first); returns how many. */
size_t blockscan_take(struct blockscan *b, struct evloop_block *out, size_t max_out);

/* Candidates waiting for a reading (for tests). */
size_t blockscan_pending(const struct blockscan *b);

/* Forgets the open stretch and the candidates (a new session). */
void blockscan_reset(struct blockscan *b);

#endif
