/* flightrec.c: see flightrec.h. A ring of window copies, oldest first. */
#include "config.h"

#include "flightrec.h"

#include <math.h>
#include <stdlib.h>

#include "calltree.h"
#include "util.h"

struct fr_window {
	struct calltree *tree;
	double start_s, end_s;
	size_t bytes;
};

struct flightrec {
	double keep_s;
	size_t max_bytes, max_samples;
	struct fr_window *w;   /* ring: w[(head + i) % cap], i < n */
	size_t head, n, cap;
	size_t bytes;          /* the copies' */
};

struct flightrec *flightrec_create(double keep_s, size_t max_bytes, size_t max_samples)
{
	struct flightrec *r = xcalloc(1, sizeof(*r));

	r->keep_s = keep_s;
	r->max_bytes = max_bytes;
	r->max_samples = max_samples;
	return r;
}

static struct fr_window *at(const struct flightrec *r, size_t i)
{
	return &r->w[(r->head + i) % r->cap];
}

static void drop_oldest(struct flightrec *r)
{
	struct fr_window *o = at(r, 0);

	r->bytes -= o->bytes;
	calltree_free(o->tree);
	o->tree = NULL;
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

void flightrec_free(struct flightrec *r)
{
	if (!r)
		return;
	while (r->n)
		drop_oldest(r);
	free(r->w);
	free(r);
}

void flightrec_add(struct flightrec *r, const struct calltree *window, double start_s,
	double end_s)
{
	struct fr_window *slot;

	if (!window || !isfinite(end_s))
		return;
	if (r->n == r->cap) {
		/* grow, the ring laid out from 0 again */
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct fr_window *w = xcalloc(cap, sizeof(*w));

		for (size_t i = 0; i < r->n; i++)
			w[i] = *at(r, i);
		free(r->w);
		r->w = w;
		r->cap = cap;
		r->head = 0;
	}
	slot = &r->w[(r->head + r->n) % r->cap];
	slot->tree = calltree_create(r->max_samples);
	calltree_add_tree(slot->tree, window);
	slot->start_s = isfinite(start_s) ? start_s : end_s;
	slot->end_s = end_s;
	slot->bytes = calltree_bytes(slot->tree);
	r->bytes += slot->bytes;
	r->n++;
	/* the newest is always kept, however large */
	while (r->n > 1 && (at(r, 0)->end_s < end_s - r->keep_s || r->bytes > r->max_bytes))
		drop_oldest(r);
}

size_t flightrec_collect(const struct flightrec *r, double from_s, struct calltree *out,
	double *first_s)
{
	size_t added = 0;

	*first_s = NAN;
	for (size_t i = 0; i < r->n; i++) {
		const struct fr_window *w = at(r, i);

		if (w->end_s <= from_s)
			continue;
		if (!added)
			*first_s = w->start_s;
		calltree_add_tree(out, w->tree);
		added++;
	}
	return added;
}

size_t flightrec_windows(const struct flightrec *r)
{
	return r->n;
}

size_t flightrec_bytes(const struct flightrec *r)
{
	return sizeof(*r) + r->cap * sizeof(*r->w) + r->bytes;
}
