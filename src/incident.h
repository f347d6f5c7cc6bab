/* incident.h: the --incident-dir store. Each incident is a directory of its own in it, named
 * incident-YYYYmmddTHHMMSSZ-PID-NNNNNN (so that names sort by time), mode 0700, holding files
 * written whole (atomicfile.h). The store keeps at most max_bundles of them and max_bytes in
 * all, the oldest removed first; it removes nothing but its own bundles' names and their files.
 * Files are reached through a descriptor of the directory taken once (userfile_open_dir), so
 * that a path renamed or swapped later cannot redirect them. */
#ifndef NTOP_INCIDENT_H
#define NTOP_INCIDENT_H

#include <stddef.h>

#include "trigger.h"

/* What one incident was, in short: the --log's "incident" record, and what the live view and
 * --replay list (model.h keeps a copy made safe for the terminal). Strings are cut to fit. */
#define INCIDENT_TOP_MAX 5
struct incident_summary {
	double fired_s, from_s, to_s; /* Unix time: when it fired, what its profile covers */
	double value;                 /* what the trigger measured; NAN: not a number (growing) */
	char name[96];                /* the bundle's name in dir */
	char dir[256];                /* --incident-dir as it was given */
	char trigger[TRIGGER_TEXT_MAX]; /* as it was given: "cpu>80%:5s" */
	char unit[8];                 /* the value's: "%", "ms", "bytes", "" */
	size_t n_top;
	struct incident_top {         /* the profile's hottest functions by self time */
		char function[96];
		char where[128];          /* "server.js:12" */
		double self_pct;          /* of the profile's busy samples */
	} top[INCIDENT_TOP_MAX];
};

struct incident_store;

/* Opens dir (userfile_open_dir's rules). NULL with *status and *cause. */
struct incident_store *incident_store_open(const char *dir, size_t max_bundles, double max_bytes,
	int *status, char **cause);
void incident_store_close(struct incident_store *s);
/* Makes room for one more bundle, then creates it. Returns 0 with *dir_path (a path to write
 * its files under; the caller frees) and *name (the bundle's name; the caller frees), or -1
 * with *cause. *removed counts the bundles removed to make room. */
int incident_store_new(struct incident_store *s, double time_s, int pid, char **dir_path,
	char **name, size_t *removed, char **cause);
/* Once a bundle is written: the byte cap again, now with it counted; never removes the bundle
 * named keep. Returns how many were removed. */
size_t incident_store_trim(struct incident_store *s, const char *keep);
/* The bundles in the store, oldest first (names; the caller frees each and the array). */
char **incident_store_list(struct incident_store *s, size_t *n);
/* Bytes of the bundles' files in all. */
double incident_store_bytes(struct incident_store *s);

#endif
