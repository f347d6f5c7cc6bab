/* smapfind.h: finding and reading the source map of a script the target runs, without the
 * inspector's Debugger domain: the script's last 4 KiB are read for its sourceMappingURL
 * comment, which names a file beside it or holds the map inline as a data: URL.
 *
 * Files are read with the target's rights, inside its root (asuser.h: /proc/PID/root, so
 * that a container's files are its own): a path that leaves the root (".." past it, a
 * symbolic link out of it) is refused, as are files the target's user cannot read, files
 * that are not regular or are larger than SMAPFIND_MAX_MAP_BYTES. Everything read is
 * untrusted; failures are one sentence in *err. */
#ifndef NTOP_SMAPFIND_H
#define NTOP_SMAPFIND_H

#include "asuser.h"

#include <stddef.h>

struct sourcemap;

/* How much of a script's end is searched for its comment. */
#define SMAPFIND_TAIL_BYTES ASUSER_TAIL_BYTES
/* The largest map read (a file, or an inline map decoded). */
#define SMAPFIND_MAX_MAP_BYTES ((size_t)64 << 20)
/* The longest sourceMappingURL taken (an inline map's URL is the map; it must fit the tail or
 * be cut off, so inline maps are read from the whole script when the tail has their start). */
#define SMAPFIND_MAX_PATH 4096

/* Where a script's map is: a path in the target's file system, or the map itself. */
struct smap_ref {
	char *path; /* the map file's absolute path, or NULL */
	char *data; /* an inline map, decoded; or NULL */
	size_t len;
};

void smap_ref_free(struct smap_ref *ref);

/* Finds the last "//# sourceMappingURL=" (or the older "//@") comment in text (a script's
 * tail, or all of it) and copies its URL (trimmed, at most SMAPFIND_MAX_PATH bytes unless it
 * is a data: URL) into *url. Returns 1, or 0 when there is none. */
int sourcemap_find_url(const char *text, size_t len, char **url);

/* The map an URL names for a script: a data: URL is decoded (base64 JSON only), a relative URL
 * is resolved against the script's directory, a file:// URL turned into its path. script is
 * the frame's url: an absolute path or a file:// URL. Returns 0, or -1 with *err. */
int smapfind_resolve(const char *script, const char *url, struct smap_ref *ref, char **err);

/* The absolute, normalised path of a frame's url (a path or a file:// URL): "." and ".."
 * removed ("..": above "/" is refused), "%XX" decoded in URLs. Returns 0, or -1 with *err. */
int smapfind_url_path(const char *url, char **path, char **err);

/* The whole search for a script (a frame's url): its tail, its comment, then the map read
 * and parsed, every file through reader u (asuser_read: blocks up to ASUSER_TIMEOUT_S per
 * file, so off the event loop). Returns the map, or NULL with why in *err. */
struct sourcemap *smapfind_load(const struct asuser *u, const char *script, char **err);

#endif
