/* heapsnap.c: the heap snapshot writer of heapprof.h. Chunks arrive as the JSON strings of
 * HeapProfiler.addHeapSnapshotChunk events; each is decoded straight into a temporary file
 * next to the target, which is renamed into place only once complete, so a failed or
 * abandoned snapshot never leaves a truncated file under the name the user asked for. */
#include "config.h"

#include "heapprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonpull.h"
#include "util.h"

struct snapshot_file {
	int fd;
	char *path, *tmp;
	size_t bytes;
	char *buf;
	size_t cap;
};

struct snapshot_file *snapshot_file_open(const char *path, char **cause)
{
	struct snapshot_file *f;
	int fd;

	if (!path || !*path) {
		*cause = xstrdup("no file name for the heap snapshot");
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->tmp = xasprintf("%s.XXXXXX", path);
	fd = mkostemp(f->tmp, O_CLOEXEC);
	if (fd < 0) {
		*cause = xasprintf("cannot create a file next to %s: %s", path, strerror(errno));
		goto bad;
	}
	f->fd = fd;
	/* mkstemp already uses 0600; say it anyway, the heap holds the app's secrets */
	if (fchmod(fd, 0600) < 0) {
		*cause = xasprintf("cannot restrict the mode of %s: %s", f->tmp, strerror(errno));
		close(fd);
		unlink(f->tmp);
		goto bad;
	}
	return f;
bad:
	free(f->path);
	free(f->tmp);
	free(f);
	return NULL;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int snapshot_file_chunk(struct snapshot_file *f, const char *json_string, size_t len, char **cause)
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
	if (write_all(f->fd, f->buf, (size_t)n) < 0) {
		*cause = xasprintf("cannot write %s: %s", f->tmp, strerror(errno));
		return -1;
	}
	f->bytes += (size_t)n;
	return 0;
}

static void snapshot_file_release(struct snapshot_file *f)
{
	free(f->path);
	free(f->tmp);
	free(f->buf);
	free(f);
}

/* Makes the rename itself durable; a failure here loses nothing already written. */
static void sync_parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path)))
		: xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int snapshot_file_finish(struct snapshot_file *f, size_t *bytes_out, char **cause)
{
	int fd;

	if (!f) {
		*cause = xstrdup("no heap snapshot in progress");
		return -1;
	}
	fd = f->fd;
	if (f->bytes == 0) {
		*cause = xstrdup("the heap snapshot is empty");
		goto bad;
	}
	if (fsync(fd) < 0) {
		*cause = xasprintf("cannot write %s: %s", f->tmp, strerror(errno));
		goto bad;
	}
	fd = -1;
	if (close(f->fd) < 0) {
		*cause = xasprintf("cannot write %s: %s", f->tmp, strerror(errno));
		goto bad;
	}
	if (rename(f->tmp, f->path) < 0) {
		*cause = xasprintf("cannot rename %s to %s: %s", f->tmp, f->path, strerror(errno));
		goto bad;
	}
	sync_parent_dir(f->path);
	if (bytes_out)
		*bytes_out = f->bytes;
	snapshot_file_release(f);
	return 0;
bad:
	if (fd >= 0)
		close(fd);
	unlink(f->tmp);
	snapshot_file_release(f);
	return -1;
}

void snapshot_file_abort(struct snapshot_file *f)
{
	if (!f)
		return;
	close(f->fd);
	unlink(f->tmp);
	snapshot_file_release(f);
}
