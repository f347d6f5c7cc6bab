/* userfile.c: see userfile.h. */
#include "config.h"

#include "userfile.h"
#include "exitcode.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why an opened file must not be appended to, or NULL. */
static const char *refusal(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_uid != geteuid())
		return "belongs to another user; ntop-js appends only to its own files";
	if (st->st_nlink != 1)
		return "has other hard links; ntop-js appends only to a file with a single name";
	if (st->st_mode & 077)
		return "can be read or written by other users; make it the owner's alone "
			"(chmod 600) or give a new path";
	return NULL;
}

int userfile_open_append(const char *path, const char *what, int *status, char **cause)
{
	/* non-blocking only while opening: a FIFO without a reader must not hang ntop-js */
	int flags = O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	int fd = open(path, O_RDWR | flags, 0600);
	struct stat st;
	const char *why;

	if (fd < 0 && errno == EACCES)
		fd = open(path, O_WRONLY | flags, 0600); /* our own write-only file */
	/* fs.protected_symlinks and protected_regular refuse root another user's link or file
	 * in a sticky directory: say why as for any other */
	if (fd < 0 && errno == EACCES && lstat(path, &st) == 0 && st.st_uid != geteuid() &&
	    !S_ISLNK(st.st_mode)) {
		*status = EXIT_USAGE;
		*cause = xasprintf("%s %s %s.", what, path, refusal(&st));
		return -1;
	}
	if (fd < 0 && errno == EACCES && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		errno = ELOOP;
	if (fd < 0) {
		int err = errno;

		*status = err == ELOOP ? EXIT_USAGE : EXIT_INTERNAL;
		*cause = err == ELOOP ?
			xasprintf("%s %s is a symbolic link; ntop-js writes only to the file's own "
				"path.", what, path) :
			xasprintf("cannot open %s %s: %s.", what, path, strerror(err));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*status = EXIT_INTERNAL;
		*cause = xasprintf("cannot open %s %s: %s.", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	if ((why = refusal(&st)) != NULL) {
		*status = EXIT_USAGE;
		*cause = xasprintf("%s %s %s.", what, path, why);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
		*status = EXIT_INTERNAL;
		*cause = xasprintf("cannot open %s %s: %s.", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int userfile_dir_fd(const char *path, const char *what, int *status, char **cause);

/* Why an opened directory must not be written into, or NULL. */
static const char *dir_refusal(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (st->st_uid != geteuid())
		return "belongs to another user; ntop-js writes only into its own directories";
	if (st->st_mode & 022)
		return "can be written by other users; make it the owner's alone (chmod 700) or give "
			"a new path";
	return NULL;
}

int userfile_open_dir(const char *given, const char *what, int *status, char **cause)
{
	char *path = xstrdup(given);
	size_t n = strlen(path);
	int fd;

	/* a trailing slash would make the kernel follow a final link even with O_NOFOLLOW */
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	fd = userfile_dir_fd(path, what, status, cause);
	free(path);
	return fd;
}

static int userfile_dir_fd(const char *path, const char *what, int *status, char **cause)
{
	struct stat st;
	const char *why;
	int fd;

	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		*status = errno == ENOENT || errno == ENOTDIR ? EXIT_USAGE : EXIT_INTERNAL;
		*cause = xasprintf("cannot create %s %s: %s.", what, path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			err = ELOOP;
		*status = err == ELOOP || err == ENOTDIR ? EXIT_USAGE : EXIT_INTERNAL;
		*cause = err == ELOOP ?
			xasprintf("%s %s is a symbolic link; ntop-js writes only into the directory's "
				"own path.", what, path) :
			err == ENOTDIR ? xasprintf("%s %s is not a directory.", what, path) :
			xasprintf("cannot open %s %s: %s.", what, path, strerror(err));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*status = EXIT_INTERNAL;
		*cause = xasprintf("cannot open %s %s: %s.", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	if ((why = dir_refusal(&st)) != NULL) {
		*status = EXIT_USAGE;
		*cause = xasprintf("%s %s %s.", what, path, why);
		close(fd);
		return -1;
	}
	return fd;
}
