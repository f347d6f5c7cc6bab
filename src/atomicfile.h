/* atomicfile.h: files that appear whole or not at all (exports, heap snapshots, settings).
 *
 * The content goes to a temporary file next to the target (so that the rename stays on one
 * file system), which is synced and renamed over the target only once complete: a failed,
 * abandoned or crashed write never leaves a truncated file under the name asked for, and an
 * existing file stays as it was until the new one replaces it. Files get mode 0600 whatever
 * the umask: profiles, heap snapshots and settings can hold the target's code, data and
 * secrets. Failures come back as one sentence naming the target, in *cause. */
#ifndef NTOP_ATOMICFILE_H
#define NTOP_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

struct atomic_file;

/* Starts a file that will replace path. Returns NULL with *cause if it cannot be created
 * (a missing or read-only directory, a path ending in '/'). */
struct atomic_file *atomic_file_open(const char *path, char **cause);
/* The stream to write to, for writers that format as they go. A failed write is kept, and
 * atomic_file_commit reports it with the system's reason. */
FILE *atomic_file_stream(struct atomic_file *f);
/* Appends n bytes. Returns 0, or -1 with *cause; the caller then abandons the file. */
int atomic_file_write(struct atomic_file *f, const void *p, size_t n, char **cause);
/* Flushes, syncs and renames the file into place, then frees f. Returns 0, or -1 with *cause
 * and the temporary file removed. */
int atomic_file_commit(struct atomic_file *f, char **cause);
/* Removes the temporary file and frees f (which may be NULL). The target is left alone. */
void atomic_file_abort(struct atomic_file *f);

/* The whole content at once: open, write, commit. Returns 0, or -1 with *cause. */
int atomic_file_save(const char *path, const void *data, size_t len, char **cause);

#endif
