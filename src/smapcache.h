/* smapcache.h: the source maps of the target's scripts, loaded once per script file off the
 * event loop (file:///x and /x are one file) and kept within a memory budget; and the text of
 * the files whose lines the detail screen shows, the same way. Every file is read with the
 * target's rights, through the reader given to smapcache_create (asuser.h).
 *
 * A lookup of a script not seen before queues its load and answers "pending"; one worker
 * thread at a time reads the script's tail, its map and parses it (smapfind_load), then calls
 * the notify function given to smapcache_create, from that thread: the caller wakes its loop
 * (loop_wake_signal), and the loop calls smapcache_poll, which takes the result. A script
 * without a usable map is remembered with the reason, so it is not read again. Maps past the
 * budget are dropped least recently used first (and loaded again if asked for again).
 *
 * All functions but notify's caller run on one thread (the main thread). */
#ifndef NTOP_SMAPCACHE_H
#define NTOP_SMAPCACHE_H

#include "sourcemap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Scripts remembered at most (maps, failures and loads to come). */
#define SMAPCACHE_MAX_ENTRIES 8192
/* The largest file whose text smapcache_text loads. */
#define SMAPCACHE_TEXT_MAX_BYTES ((size_t)32 << 20)

struct asuser;

enum smapcache_status {
	SMAPCACHE_MAPPED,  /* out->pos and out->map are filled */
	SMAPCACHE_PENDING, /* the map is being loaded: ask again after the next poll */
	SMAPCACHE_NONE,    /* no original position: out->reason says why */
};

struct smapcache_result {
	struct sourcemap_pos pos;    /* MAPPED */
	const struct sourcemap *map; /* MAPPED: for sourcemap_source_line and sourcemap_name_at */
	const char *reason;          /* NONE: one sentence (target text in it is sanitized) */
};

struct smapcache_stats {
	unsigned long loads;     /* loads started */
	unsigned long maps;      /* maps held */
	unsigned long failures;  /* scripts remembered without a map */
	unsigned long evictions; /* maps dropped for the budget */
	size_t bytes;            /* what the held maps take */
};

/* reader: the target's files with its rights (borrowed: it outlives the cache; NULL: none can
 * be read). max_bytes: the budget of the maps and texts held. notify(ud) is called from the
 * worker when a load ends. */
struct smapcache *smapcache_create(const struct asuser *reader, size_t max_bytes,
	void (*notify)(void *ud), void *ud);
/* Waits for a load in progress, then frees everything. Accepts NULL. */
void smapcache_free(struct smapcache *c);

/* Where the generated position (V8's 0-based line and column) of script url came from. What
 * out points to is valid until the next call of smapcache_lookup, smapcache_poll or
 * smapcache_free. */
enum smapcache_status smapcache_lookup(struct smapcache *c, const char *url, uint32_t line0,
	uint32_t col0, struct smapcache_result *out);

/* The text of the file at path (absolute, normalised), for showing its lines: MAPPED with
 * *text and *len (valid as smapcache_lookup's answers are), PENDING while it loads (ask again
 * after a poll), or NONE with *reason (one sentence, such as a file the target's user cannot
 * read). */
enum smapcache_status smapcache_text(struct smapcache *c, const char *path, const char **text,
	size_t *len, const char **reason);

/* Takes a finished load, if any, and starts the next: the loop calls it when notified (a
 * lookup does not, so that answers change only at a poll). Returns true when a load ended. */
bool smapcache_poll(struct smapcache *c);

/* Reads from now on through reader (another process's: --follow); what was read through the
 * last one is forgotten (a load in progress is waited for and done again). */
void smapcache_set_reader(struct smapcache *c, const struct asuser *reader);

/* True while a load runs or waits. */
bool smapcache_busy(const struct smapcache *c);

void smapcache_get_stats(const struct smapcache *c, struct smapcache_stats *st);

#endif
