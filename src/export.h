/* export.h: saving what a session has collected without stopping it (the s key, SIGUSR2). */
#ifndef NTOP_EXPORT_H
#define NTOP_EXPORT_H

#include <stdbool.h>

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

#endif
