/* heapsnap.h: a heap snapshot written to a file as its chunks arrive (HeapProfiler's
 * addHeapSnapshotChunk events). */
#ifndef NTOP_HEAPSNAP_H
#define NTOP_HEAPSNAP_H

#include <stddef.h>

/* A heap snapshot being written: chunks are appended to a temporary file (mode 0600) that is
 * renamed into place when finished. */
struct heapsnap;
struct heapsnap *heapsnap_open(const char *path, char **cause);
/* Appends the decoded text of one addHeapSnapshotChunk "chunk" string (a JSON string span,
 * quotes included). Returns 0, or -1 with *cause. */
int heapsnap_chunk(struct heapsnap *f, const char *json_string, size_t len, char **cause);
/* Finishes (fsync, rename) and frees. Returns 0, or -1 with *cause. bytes_out gets the size. */
int heapsnap_finish(struct heapsnap *f, size_t *bytes_out, char **cause);
/* Abandons the snapshot (removes the temporary file) and frees. */
void heapsnap_abort(struct heapsnap *f);

#endif
