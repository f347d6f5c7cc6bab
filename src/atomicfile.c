/* atomicfile.c: see atomicfile.h.
 *
 * The stream is a cookie stream over the temporary file's descriptor rather than an fdopen:
 * every byte stdio writes passes through atomicfile_cookie_write, which keeps the first
 * failure's errno. A writer that formats into the stream can then ignore errors until the
 * commit, and the user still reads "No space left on device", not a guess made after stdio
 * has dropped its buffer. */
#include "config.h"

#include "atomicfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct atomic_file {
	char *path, *tmp;
	int fd;
	FILE *fp;
	int err; /* errno of the first failed write, 0 while all is well */
};

static ssize_t atomicfile_cookie_write(void *cookie, const char *p, size_t n)
{
	struct atomic_file *f = cookie;
	size_t done = 0;

	/* After a failure the file is lost anyway; writing on would only hide the first cause. */
	if (f->err)
		return 0;
	while (done < n) {
		ssize_t w = write(f->fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			f->err = w < 0 ? errno : EIO;
			break;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static void atomicfile_free(struct atomic_file *f)
{
	free(f->path);
	free(f->tmp);
	free(f);
}

/* Closes and removes the temporary file, frees f, and says why in *cause. Returns -1. */
static int atomicfile_fail(struct atomic_file *f, int err, char **cause)
{
	*cause = xasprintf("cannot write %s: %s.", f->path, strerror(err ? err : EIO));
	atomic_file_abort(f);
	return -1;
}

struct atomic_file *atomic_file_open(const char *path, char **cause)
{
	static const cookie_io_functions_t io = { .write = atomicfile_cookie_write };
	const char *slash = strrchr(path, '/');
	struct atomic_file *f;
	int err;

	if (!*path) {
		*cause = xstrdup("no file name to write to.");
		return NULL;
	}
	/* "dir/" would become a temporary file inside dir, then fail to rename. */
	if (slash && !slash[1]) {
		*cause = xasprintf("cannot write %s: it names a directory, not a file.", path);
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->tmp = xasprintf("%s.XXXXXX", path);
	/* Close on exec: --launch starts programs, which must not inherit a half-written file. */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		*cause = xasprintf("cannot write %s: %s.", path, strerror(errno));
		atomicfile_free(f);
		return NULL;
	}
	/* mkstemp's 0600 is subject to the umask; the mode must not depend on it. */
	if (fchmod(f->fd, 0600) < 0 || !(f->fp = fopencookie(f, "w", io))) {
		err = errno;
		atomicfile_fail(f, err, cause);
		return NULL;
	}
	return f;
}

FILE *atomic_file_stream(struct atomic_file *f)
{
	return f->fp;
}

int atomic_file_write(struct atomic_file *f, const void *p, size_t n, char **cause)
{
	if (n && fwrite(p, 1, n, f->fp) != n) {
		*cause = xasprintf("cannot write %s: %s.", f->path, strerror(f->err ? f->err : EIO));
		return -1;
	}
	return 0;
}

/* Makes the rename itself durable; a failure here loses nothing already written. */
static void atomicfile_sync_dir(const char *path)
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

int atomic_file_commit(struct atomic_file *f, char **cause)
{
	int rc;

	if (fflush(f->fp) != 0 || ferror(f->fp))
		return atomicfile_fail(f, f->err, cause);
	if (fsync(f->fd) < 0)
		return atomicfile_fail(f, errno, cause);
	/* The cookie stream has no close function: the descriptor is closed here, checked. */
	fclose(f->fp);
	f->fp = NULL;
	rc = close(f->fd);
	f->fd = -1;
	if (rc < 0 || rename(f->tmp, f->path) < 0)
		return atomicfile_fail(f, errno, cause);
	atomicfile_sync_dir(f->path);
	atomicfile_free(f);
	return 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	if (!f)
		return;
	if (f->fp)
		fclose(f->fp);
	if (f->fd >= 0)
		close(f->fd);
	unlink(f->tmp);
	atomicfile_free(f);
}

int atomic_file_save(const char *path, const void *data, size_t len, char **cause)
{
	struct atomic_file *f = atomic_file_open(path, cause);

	if (!f)
		return -1;
	if (atomic_file_write(f, data, len, cause) < 0) {
		atomic_file_abort(f);
		return -1;
	}
	return atomic_file_commit(f, cause);
}
