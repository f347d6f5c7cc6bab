/* export.h: saving what a session has collected without stopping it (the s key, SIGUSR2). */
#ifndef NTOP_EXPORT_H
#define NTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

struct calltree;
struct engine;
struct functab;

/* Writes, into dir, ntop-js-PID-YYYYmmdd-HHMMSS.mmm-all.cpuprofile (since attach or reset),
 * ...-window.cpuprofile (the last window), ...-all.folded, ...-all.pb.gz (pprof, pprof.h) and,
 * when allocations are sampled, ...-alloc.heapprofile (the latest allocation profile); for a
 * worker thread's engine
 * (thread_id not 0) ntop-js-PID-tTHREAD-.... Returns 0 with *msg naming the files, or -1 with
 * *msg saying what failed. The caller frees *msg. */
int export_snapshot(struct engine *e, const char *dir, int pid, long thread_id, char **msg);

/* Writes the call tree to path (-o, --folded) as an atomic file: folded stacks if folded,
 * else by path's suffix a pprof profile (.pb.gz, .pprof; interval_us is the sampling
 * interval) or a .cpuprofile. Returns 0, or -1 with *cause. */
int export_tree(const struct calltree *t, const struct functab *ft, const char *path,
	bool folded, long interval_us, char **cause);

/* One thread's or process's tree for export_trees. */
struct export_source {
	const struct calltree *t;
	const struct functab *ft;
	char tag[32];    /* in the names of its own files: "t3", "p1240" ("" for the first) */
	char frame[80];  /* the first frame of its folded stacks: "main", "thread 3 pool" */
};

/* -o and --folded at exit with several threads or processes: folded stacks of all of them in
 * one file, each stack under its source's frame; any other format a file each, the first
 * source's at path and every other's beside it with -TAG before the suffix
 * (app.cpuprofile, app-t3.cpuprofile, app-p1240.cpuprofile). Returns 0, or -1 with *cause
 * (the first failure; the other files are still written). */
int export_trees(const struct export_source *s, size_t n, const char *path, bool folded,
	long interval_us, char **cause);
/* path with -tag before its suffix (.cpuprofile, .pb.gz, .pprof, or the last one of its
 * name); the caller frees it. */
char *export_sibling_path(const char *path, const char *tag);

#endif
