/* ownlines.c: see ownlines.h. An open-addressing table of (function, line) -> counts. */
#include "config.h"

#include "ownlines.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct ownline {
	uint64_t fn;
	uint32_t line;          /* 0: a free slot (lines are 1-based) */
	uint64_t callee, own;   /* ticks of the windows that said so */
};

struct ownlines {
	struct ownline *slots;
	size_t mask, n, max;
};

static size_t slot_hash(uint64_t fn, uint32_t line)
{
	uint64_t k = fn * 0x9e3779b97f4a7c15ULL ^ (line * 0xc2b2ae3d27d4eb4fULL);

	return (size_t)(k ^ (k >> 29));
}

struct ownlines *ownlines_new(size_t max)
{
	struct ownlines *o = xcalloc(1, sizeof(*o));
	size_t slots = 16;

	while (slots < 2 * max)
		slots *= 2;
	o->slots = xcalloc(slots, sizeof(*o->slots));
	o->mask = slots - 1;
	o->max = max;
	return o;
}

void ownlines_free(struct ownlines *o)
{
	if (!o)
		return;
	free(o->slots);
	free(o);
}

/* The slot of (fn, line), or the free one where it would go. */
static struct ownline *slot_of(const struct ownlines *o, uint64_t fn, uint32_t line)
{
	for (size_t k = slot_hash(fn, line) & o->mask;; k = (k + 1) & o->mask) {
		struct ownline *s = &o->slots[k];
		if (!s->line || (s->fn == fn && s->line == line))
			return s;
	}
}

void ownlines_vote(struct ownlines *o, uint64_t fn, uint32_t line, bool callee, uint64_t ticks)
{
	struct ownline *s;

	if (!line)
		return;
	s = slot_of(o, fn, line);
	if (!s->line) {
		if (o->n >= o->max)
			return;
		o->n++;
		*s = (struct ownline){fn, line, 0, 0};
	}
	if (callee)
		s->callee += ticks < UINT64_MAX - s->callee ? ticks : 0;
	else
		s->own += ticks < UINT64_MAX - s->own ? ticks : 0;
}

bool ownlines_get(const struct ownlines *o, uint64_t fn, uint32_t line, uint64_t *callee,
	uint64_t *own)
{
	const struct ownline *s = line ? slot_of(o, fn, line) : NULL;

	*callee = s && s->line ? s->callee : 0;
	*own = s && s->line ? s->own : 0;
	return s && s->line;
}
