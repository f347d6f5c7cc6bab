/* incident.c: see incident.h. */
#include "config.h"

#include "incident.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "userfile.h"
#include "util.h"

#define INCIDENT_PREFIX "incident-"

struct incident_store {
	int dfd;
	char *path;
	size_t max_bundles;
	double max_bytes;
	unsigned seq;
};

struct incident_store *incident_store_open(const char *dir, size_t max_bundles, double max_bytes,
	int *status, char **cause)
{
	struct incident_store *s;
	int fd = userfile_open_dir(dir, "--incident-dir", status, cause);

	if (fd < 0)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->dfd = fd;
	s->path = xstrdup(dir);
	s->max_bundles = max_bundles ? max_bundles : 1;
	s->max_bytes = max_bytes;
	return s;
}

void incident_store_close(struct incident_store *s)
{
	if (!s)
		return;
	close(s->dfd);
	free(s->path);
	free(s);
}

/* n digits at *p, moved past them. */
static bool digits(const char **p, size_t min, size_t max)
{
	size_t k = 0;

	while (**p >= '0' && **p <= '9' && k < max) {
		(*p)++;
		k++;
	}
	return k >= min;
}

/* A name the store made, exactly: incident-YYYYmmddTHHMMSSZ-PID-NNNNNN. */
static bool is_bundle_name(const char *n)
{
	if (strncmp(n, INCIDENT_PREFIX, strlen(INCIDENT_PREFIX)))
		return false;
	n += strlen(INCIDENT_PREFIX);
	if (!digits(&n, 8, 8) || *n++ != 'T' || !digits(&n, 6, 6) || *n++ != 'Z' || *n++ != '-' ||
	    !digits(&n, 1, 10) || *n++ != '-' || !digits(&n, 1, 10))
		return false;
	return *n == '\0';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **incident_store_list(struct incident_store *s, size_t *n)
{
	int fd = dup(s->dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (!is_bundle_name(de->d_name) ||
		    fstatat(s->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		names = xreallocarray_grow(names, &cap, *n + 1, sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), by_name);
	return names;
}

/* The bytes of bundle name's files (links not followed); with remove, the files and the
 * bundle are removed, and *gone says whether the bundle is. */
static double bundle_walk(int dfd, const char *name, bool remove, bool *gone)
{
	int bfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = bfd >= 0 ? fdopendir(bfd) : NULL;
	struct dirent *de;
	double bytes = 0;

	if (!d) {
		if (bfd >= 0)
			close(bfd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(bfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
			continue;
		bytes += (double)st.st_size;
		if (remove)
			unlinkat(bfd, de->d_name, 0);
	}
	closedir(d);
	if (remove && gone)
		*gone = unlinkat(dfd, name, AT_REMOVEDIR) == 0;
	return bytes;
}

double incident_store_bytes(struct incident_store *s)
{
	size_t n;
	char **names = incident_store_list(s, &n);
	double bytes = 0;

	for (size_t i = 0; i < n; i++) {
		bytes += bundle_walk(s->dfd, names[i], false, NULL);
		free(names[i]);
	}
	free(names);
	return bytes;
}

/* Removes the oldest bundles (never keep) while there are more than max_n or their bytes are
 * over max_bytes. */
static size_t store_trim(struct incident_store *s, size_t max_n, double max_bytes,
	const char *keep)
{
	size_t n, removed = 0;
	char **names = incident_store_list(s, &n);
	double *sizes = n ? xcalloc(n, sizeof(*sizes)) : NULL, total = 0;

	for (size_t i = 0; i < n; i++)
		total += sizes[i] = bundle_walk(s->dfd, names[i], false, NULL);
	for (size_t i = 0; i < n && (n - removed > max_n || total > max_bytes); i++) {
		bool gone = false;

		if (keep && !strcmp(names[i], keep))
			continue;
		/* one that cannot be removed whole (something else put in it) is left and counted */
		bundle_walk(s->dfd, names[i], true, &gone);
		if (!gone)
			continue;
		total -= sizes[i];
		removed++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(sizes);
	return removed;
}

size_t incident_store_trim(struct incident_store *s, const char *keep)
{
	return store_trim(s, s->max_bundles, s->max_bytes, keep);
}

int incident_store_new(struct incident_store *s, double time_s, int pid, char **dir_path,
	char **name, size_t *removed, char **cause)
{
	time_t t = (time_t)floor(time_s);
	struct tm tm;
	char stamp[32];

	*removed = store_trim(s, s->max_bundles - 1, s->max_bytes, NULL);
	if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm))
		snprintf(stamp, sizeof stamp, "%lld", (long long)t);
	for (int tries = 0; tries < 1000; tries++) {
		/* zero-padded, so that names of one second sort in order too */
		char *n = xasprintf(INCIDENT_PREFIX "%s-%d-%06u", stamp, pid, ++s->seq % 1000000);

		if (mkdirat(s->dfd, n, 0700) == 0) {
			*name = n;
			/* through the descriptor: the user's path may have been renamed since */
			*dir_path = xasprintf("/proc/self/fd/%d/%s", s->dfd, n);
			return 0;
		}
		free(n);
		if (errno != EEXIST) {
			*cause = xasprintf("cannot create an incident in %s: %s.", s->path,
				strerror(errno));
			return -1;
		}
	}
	*cause = xasprintf("cannot create an incident in %s: too many of the same second.", s->path);
	return -1;
}
