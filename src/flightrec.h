/* flightrec.h: the flight recorder, the last few seconds of CPU windows kept while triggers
 * are armed (--trigger), so that an incident's profile reaches back before what fired it.
 *
 * Each window's call tree (calltree.h: as large as its distinct stacks, and its samples up to
 * the tree's cap) is copied in; windows that ended more than keep_s before the newest one are
 * dropped, and the oldest too while the whole is over max_bytes. Pure: no I/O. */
#ifndef NTOP_FLIGHTREC_H
#define NTOP_FLIGHTREC_H

#include <stddef.h>

struct calltree;
struct flightrec;

/* max_samples: each window's timeline cap (calltree_create's). */
struct flightrec *flightrec_create(double keep_s, size_t max_bytes, size_t max_samples);
void flightrec_free(struct flightrec *r);
/* Adds a copy of a window's tree, covering [start_s, end_s] (unix seconds). */
void flightrec_add(struct flightrec *r, const struct calltree *window, double start_s,
	double end_s);
/* Adds every kept window that ends after from_s into out. Returns how many; *first_s is the
 * start of the first one added (NAN: none). */
size_t flightrec_collect(const struct flightrec *r, double from_s, struct calltree *out,
	double *first_s);
size_t flightrec_windows(const struct flightrec *r);
/* Bytes held, the copies and the ring. */
size_t flightrec_bytes(const struct flightrec *r);

#endif
