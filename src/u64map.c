/* u64map.c: see u64map.h. */
#include "config.h"

#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static void map_grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256;
	uint64_t *keys = xcalloc(ncap, sizeof(*keys));
	uint32_t *vals = xmalloc(ncap * sizeof(*vals));

	memset(vals, 0xff, ncap * sizeof(*vals));
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;
		if (m->vals[i] == U64MAP_NONE)
			continue;
		j = util_mix64(m->keys[i]) & (ncap - 1);
		while (vals[j] != U64MAP_NONE)
			j = (j + 1) & (ncap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
}

uint32_t *u64map_slot(struct u64map *m, uint64_t key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap)
		map_grow(m);
	j = util_mix64(key) & (m->cap - 1);
	while (m->vals[j] != U64MAP_NONE && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	m->keys[j] = key;
	return &m->vals[j];
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
