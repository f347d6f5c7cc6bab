/* memlog.h: --log FILE, the record of an unattended session: one JSON object per line, each
 * written with one write() and the file fsync'ed at least once a minute, so that after a crash
 * or kill -9 of ntop-js every line up to the last second is there; and --replay FILE, which
 * reads such a log back.
 *
 * Record types (the "type" field): "attach" {time, target{pid, node_version, title}},
 * "mem" {time, rss_bytes, heap_used_bytes, heap_total_bytes, external_bytes?,
 * array_buffers_bytes?}, "window" (the batch JSON window object plus "type"),
 * "target_exit" {time, reason}, "gap" {time}, "post_gc" {time, span_s, used_bytes[],
 * ago_s[]?}: the heap used after each major collection of the span_s seconds before time (a
 * span_s of -1: the target's observer of collections was installed then), "incident" {time,
 * name, dir, trigger, unit, value (a number or null), from, to, removed, top[{function, where,
 * self_pct}]}: an incident written to --incident-dir (dir). */
#ifndef NTOP_MEMLOG_H
#define NTOP_MEMLOG_H

#include <stddef.h>

struct memlog;
struct mem_sample;
struct incident_summary;

/* Opens (appends to) path, created with mode 0600, never through a symbolic link, and an
 * existing file only if it is ntop-js's own and no one else's to read (userfile.h). NULL with
 * *cause on failure and *status (if not NULL): EXIT_USAGE for a refused path, EXIT_INTERNAL
 * for one that cannot be opened. */
struct memlog *memlog_open(const char *path, int *status, char **cause);
/* Writes one record (a JSON object without the newline). Returns 0, or -1 with *cause. */
int memlog_write(struct memlog *l, const char *json, size_t len, double now_s, char **cause);
/* The JSON of a "mem" record for m. Caller frees. */
char *memlog_mem_record(const struct mem_sample *m);
/* The JSON of a "post_gc" record (engine.h's on_post_gc). Caller frees. */
char *memlog_post_gc_record(double t_s, double span_s, const double *used, const double *ago_s,
	size_t n);
/* The JSON of an "incident" record; removed: older bundles removed to make room. Caller
 * frees. */
char *memlog_incident_record(const struct incident_summary *s, size_t removed);
/* Flushes and syncs, and closes. */
void memlog_close(struct memlog *l);

struct memlog_replay_handlers {
	void (*on_mem)(void *ud, const struct mem_sample *m);
	void (*on_attach)(void *ud, double t_s, int pid, const char *node_version, const char *title);
	void (*on_gap)(void *ud, double t_s);           /* also called for "target_exit" */
	void (*on_window)(void *ud, const char *json, size_t len); /* the raw "window" line */
	/* a "post_gc" record: as engine.h's on_post_gc (used and ago_s valid for the call) */
	void (*on_post_gc)(void *ud, double t_s, double span_s, const double *used,
		const double *ago_s, size_t n);
	/* an "incident" record (valid for the call; its strings as the log has them) */
	void (*on_incident)(void *ud, const struct incident_summary *s);
};

/* Reads a log, calling the handlers in order. A torn last line (a crash mid-write) is skipped;
 * other malformed lines are counted in *bad. Returns 0, or -1 with *cause if the file cannot
 * be read. */
int memlog_replay(const char *path, const struct memlog_replay_handlers *h, void *ud,
	size_t *bad, char **cause);

#endif
