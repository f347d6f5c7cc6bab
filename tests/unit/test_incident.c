/* test_incident.c: the --incident-dir store: what directory it takes and refuses, the bundles
 * it makes (mode 0700, names in time order), and its caps on bundles and bytes, which remove
 * the oldest of its own bundles and nothing else. */
#include "config.h"

#include "incident.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "exitcode.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

static char root[64];

static char *at(const char *name)
{
	return xasprintf("%s/%s", root, name);
}

static void test_refusals(void)
{
	static const struct {
		const char *name;
		const char *says;
	} cases[] = {
		{ "link", "is a symbolic link" },
		{ "link/", "is a symbolic link" },
		{ "link//", "is a symbolic link" },
		{ "open", "can be written by other users" },
		{ "file", "is not a directory" },
		{ "missing/below", "cannot create" },
	};
	char *p;

	p = at("open");
	mkdir(p, 0700);
	chmod(p, 0777);
	free(p);
	p = at("file");
	fclose(fopen(p, "w"));
	free(p);
	p = at("link");
	if (symlink("open", p) < 0)
		printf("# symlink: %s\n", strerror(errno));
	free(p);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int status = -1;
		char *cause = NULL, *path = at(cases[i].name);
		struct incident_store *s = incident_store_open(path, 5, 1e9, &status, &cause);

		ok(!s && status == EXIT_USAGE && cause && strstr(cases[i].says ? cause : "", cases[i].says),
			"%s refused with status 2: %s", cases[i].name, cause ? cause : "(taken)");
		incident_store_close(s);
		free(cause);
		free(path);
	}
}

/* A bundle with one file of n bytes, at time t. */
static char *bundle(struct incident_store *s, double t, size_t n, size_t *removed)
{
	char *dir = NULL, *name = NULL, *cause = NULL, *path;
	char *data = xcalloc(1, n + 1);

	if (incident_store_new(s, t, 1234, &dir, &name, removed, &cause) < 0) {
		printf("# %s\n", cause);
		free(cause);
		free(data);
		return NULL;
	}
	path = xasprintf("%s/profile.cpuprofile", dir);
	if (atomic_file_save(path, data, n, &cause) < 0) {
		printf("# %s\n", cause);
		free(cause);
	}
	free(path);
	free(dir);
	free(data);
	return name;
}

static void test_store(void)
{
	int status = 0;
	char *cause = NULL, *path = at("incidents"), *names[8], *p;
	struct incident_store *s = incident_store_open(path, 3, 250 * 1024, &status, &cause);
	struct stat st;
	size_t removed = 0, n;
	char **list;

	ok(s != NULL, "a new directory is taken (%s)", cause ? cause : "ok");
	ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
		"and made with mode 0700 (%o)", st.st_mode & 0777);
	if (!s) {
		free(path);
		return;
	}
	/* things of others in it: left alone */
	p = xasprintf("%s/notes.txt", path);
	fclose(fopen(p, "w"));
	free(p);
	p = xasprintf("%s/incident-mine", path);
	mkdir(p, 0700);
	free(p);
	/* a name like the store's but not its format (it would sort first) */
	p = xasprintf("%s/incident-2024-05-01", path);
	mkdir(p, 0700);
	free(p);

	for (int i = 0; i < 3; i++)
		names[i] = bundle(s, 1790000000.0 + i, 100 * 1024, &removed);
	ok(names[0] && !strncmp(names[0], "incident-20260921T", 18) && strstr(names[0], "-1234-"),
		"a bundle is named for its time (UTC) and PID: %s", names[0] ? names[0] : "(none)");
	p = names[0] ? xasprintf("%s/%s", path, names[0]) : NULL;
	ok(p && stat(p, &st) == 0 && (st.st_mode & 0777) == 0700, "with mode 0700");
	free(p);
	list = incident_store_list(s, &n);
	/* three of 100 KiB are over 250 KiB: but the cap is applied before the next one and by trim */
	is_int(n, 3, "three bundles listed");
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	removed = incident_store_trim(s, names[2]);
	is_int(removed, 1, "trim: 300 KiB over a cap of 250: the oldest removed");
	list = incident_store_list(s, &n);
	ok(n == 2 && !strcmp(list[0], names[1]) && !strcmp(list[1], names[2]),
		"the two newest are left, oldest first");
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	/* 3 bundles at most: a fourth and a fifth, of 1 KiB each */
	names[3] = bundle(s, 1790000010.0, 1024, &removed);
	is_int(removed, 0, "a third bundle fits (3 at most)");
	names[4] = bundle(s, 1790000011.0, 1024, &removed);
	is_int(removed, 1, "a fourth makes room: the oldest removed first");
	list = incident_store_list(s, &n);
	ok(n == 3 && !strcmp(list[0], names[2]) && !strcmp(list[2], names[4]),
		"the three newest are left");
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	is_num(incident_store_bytes(s), 100 * 1024 + 2 * 1024, 0, "their bytes");
	p = xasprintf("%s/notes.txt", path);
	ok(access(p, F_OK) == 0, "a file of someone else's in the directory is left");
	free(p);
	p = xasprintf("%s/incident-mine", path);
	ok(access(p, F_OK) == 0, "and so is a directory whose name the store does not make");
	free(p);
	p = xasprintf("%s/incident-2024-05-01", path);
	ok(access(p, F_OK) == 0, "and one whose name is near the store's format");
	free(p);
	/* a bundle larger than the whole cap is never removed by its own trim */
	names[5] = bundle(s, 1790000020.0, 300 * 1024, &removed);
	removed = incident_store_trim(s, names[5]);
	list = incident_store_list(s, &n);
	ok(n == 1 && names[5] && !strcmp(list[0], names[5]),
		"a bundle over the cap alone: the others go, it stays (%zu removed)", removed);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	for (int i = 0; i < 6; i++)
		free(names[i]);
	incident_store_close(s);
	s = incident_store_open(path, 3, 1e9, &status, &cause);
	ok(s != NULL, "the directory it made is taken again");
	incident_store_close(s);
	free(path);
}

int main(void)
{
	char *cmd;

	snprintf(root, sizeof root, "/tmp/ntop-incident-XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "temporary directory: %s", strerror(errno));
		return done_testing();
	}
	test_refusals();
	test_store();
	cmd = xasprintf("rm -rf '%s'", root);
	ok(system(cmd) == 0, "temporary directory removed");
	free(cmd);
	return done_testing();
}
