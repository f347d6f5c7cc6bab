/* heapsnap.c: the heap snapshot writer (heapsnap.h). Chunks arrive as the JSON strings of
 * HeapProfiler.addHeapSnapshotChunk events; each is decoded straight into an atomic file
 * (atomicfile.h), so a failed or abandoned snapshot never leaves a truncated file under the
 * name the user asked for. */
#include "config.h"

#include "heapsnap.h"

#include <stdlib.h>

#include "atomicfile.h"
#include "jsonpull.h"
#include "util.h"

struct heapsnap {
	struct atomic_file *out;
	size_t bytes;
	char *buf;
	size_t cap;
};

struct heapsnap *heapsnap_open(const char *path, char **cause)
{
	struct heapsnap *f;
	struct atomic_file *out;

	if (!path || !*path) {
		*cause = xstrdup("no file name for the heap snapshot");
		return NULL;
	}
	out = atomic_file_open(path, cause);
	if (!out)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->out = out;
	return f;
}

int heapsnap_chunk(struct heapsnap *f, const char *json_string, size_t len, char **cause)
{
	long n;

	if (!f || !json_string || len < 2) {
		*cause = xstrdup("heap snapshot chunk is not a JSON string");
		return -1;
	}
	if (f->cap < len) {
		free(f->buf);
		f->cap = len;
		f->buf = xmalloc(f->cap);
	}
	n = json_string_decode_into((struct json_span){json_string, len}, f->buf);
	if (n < 0) {
		*cause = xstrdup("heap snapshot chunk is not a valid JSON string");
		return -1;
	}
	if (atomic_file_write(f->out, f->buf, (size_t)n, cause) < 0)
		return -1;
	f->bytes += (size_t)n;
	return 0;
}

static void heapsnap_release(struct heapsnap *f)
{
	free(f->buf);
	free(f);
}

int heapsnap_finish(struct heapsnap *f, size_t *bytes_out, char **cause)
{
	int rc;

	if (!f) {
		*cause = xstrdup("no heap snapshot in progress");
		return -1;
	}
	if (f->bytes == 0) {
		*cause = xstrdup("the heap snapshot is empty");
		heapsnap_abort(f);
		return -1;
	}
	rc = atomic_file_commit(f->out, cause);
	if (rc == 0 && bytes_out)
		*bytes_out = f->bytes;
	heapsnap_release(f);
	return rc;
}

void heapsnap_abort(struct heapsnap *f)
{
	if (!f)
		return;
	atomic_file_abort(f->out);
	heapsnap_release(f);
}
