/* u64map.h: an open-addressing map of 64-bit keys to 32-bit indices (pprof.c's strings and
 * functions, pprof_read.c's call tree). Kept at most half full. */
#ifndef NTOP_U64MAP_H
#define NTOP_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#define U64MAP_NONE UINT32_MAX

struct u64map {
	uint64_t *keys;
	uint32_t *vals; /* U64MAP_NONE: empty slot */
	size_t cap, n;
};

/* The slot of key: its value, or U64MAP_NONE where it would go; a caller that fills an empty
 * slot counts it in n. A zeroed struct is an empty map. */
uint32_t *u64map_slot(struct u64map *m, uint64_t key);
void u64map_free(struct u64map *m);

#endif
