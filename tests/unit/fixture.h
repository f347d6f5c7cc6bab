/* fixture.h: the unit tests' one way to read a file into memory: a file the test has just
 * written, or a fixture under tests/fixtures/ of the source tree. The fixture readers need
 * SRCDIR, set by the test's CPPFLAGS in mk/ (so that a test also runs by hand from the build
 * directory). */
#ifndef NTOP_FIXTURE_H
#define NTOP_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one reader behind the three below. */
static inline char *fixture_load_(const char *path, size_t *len, bool nul)
{
	FILE *f;
	char *buf = NULL;
	long n = -1;

	errno = 0;
	*len = 0;
	f = fopen(path, "rb");
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + (nul || n == 0)); /* malloc(0) may give NULL */
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	if (!buf)
		printf("# cannot read %s: %s\n", path, strerror(errno ? errno : EIO));
	if (f)
		fclose(f);
	if (!buf)
		return NULL;
	if (nul)
		buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* The whole file at path in a new buffer of exactly *len bytes, with no NUL after them, so
 * that ASan catches a parser reading past the end. NULL (and a TAP comment) if it cannot. */
static inline char *fixture_read_file(const char *path, size_t *len)
{
	return fixture_load_(path, len, false);
}

/* The entries of a directory but . and .., or -1 if it cannot be read: what the tests of
 * files written whole count to see that no temporary file was left behind. */
static inline int fixture_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

#ifdef SRCDIR
static inline char *fixture_path_load_(const char *name, size_t *len, bool nul)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", SRCDIR, name);
	return fixture_load_(path, len, nul);
}

/* tests/fixtures/NAME, as fixture_read_file() reads it. */
static inline char *fixture_read(const char *name, size_t *len)
{
	return fixture_path_load_(name, len, false);
}

/* tests/fixtures/NAME followed by a NUL (not counted in *len), for tests that treat it as
 * text. */
static inline char *fixture_read_text(const char *name, size_t *len)
{
	return fixture_path_load_(name, len, true);
}
#endif

#endif
