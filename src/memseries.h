/* memseries.h: the target's memory over time, kept for days in bounded memory (a tseries:
 * tseries.h), and its growth. */
#ifndef NTOP_MEMSERIES_H
#define NTOP_MEMSERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "tseries.h"

enum mem_metric {
	MEM_RSS,            /* from /proc: costs the target nothing */
	MEM_HEAP_USED,      /* Runtime.getHeapUsage */
	MEM_HEAP_TOTAL,
	MEM_EXTERNAL,       /* process.memoryUsage(), at a lower rate; NAN when not read */
	MEM_ARRAY_BUFFERS,
	MEM_METRIC_COUNT
};

struct mem_sample {
	double t_s;                      /* unix time */
	double v[MEM_METRIC_COUNT];      /* bytes; NAN for "not read at this tick" */
};


enum mem_verdict { MEM_UNKNOWN, MEM_STABLE, MEM_GROWING, MEM_SHRINKING };

/* What the heap rate and verdict were read from. */
enum mem_growth_basis {
	MEM_BASIS_TROUGHS,     /* the troughs of heap used (no observer of collections in the target) */
	MEM_BASIS_POST_GC,     /* heap used after the major collections in the span */
	MEM_BASIS_TROUGHS_GC   /* too few major collections: the troughs, checked against them */
};

struct mem_growth {
	double heap_bytes_per_hour;  /* from the post-GC floor of heap used */
	double rss_bytes_per_hour;   /* from the floor of RSS */
	double window_s;             /* the span actually used (shorter than asked right after attach) */
	enum mem_verdict verdict;    /* on the heap floor */
	size_t n_floors;             /* how many troughs the fit used */
	enum mem_growth_basis basis;
	long major_gcs;              /* major collections seen in the span; -1: not known */
	bool significant;            /* the heap rate is told apart from 0 (growing or shrinking) */
};

struct memseries;

/* At most this many post-GC sizes in one batch (memseries_add_post_gc): what the target's
 * observer keeps between two readings (engine_mem.c), and a log's post_gc record (memlog.c). */
#define MEMSERIES_POST_GC_BATCH_MAX 512

struct memseries *memseries_create(void);
void memseries_free(struct memseries *s);
/* Adds a reading (times must not go backwards; a reading earlier than the last is dropped). */
void memseries_add(struct memseries *s, const struct mem_sample *m);
/* Marks a gap at time t_s (the target went away and came back). */
void memseries_mark_gap(struct memseries *s, double t_s);
/* The latest reading, with the last known value of each metric (NULL before the first). */
const struct mem_sample *memseries_last(const struct memseries *s);
/* Time of the first reading kept (0 if none). */
double memseries_first_time(const struct memseries *s);
/* Buckets covering [from_s, to_s] from the finest tier that still covers from_s, merged down to
 * at most max_out buckets of equal width. Returns how many were written to out. */
size_t memseries_query(const struct memseries *s, double from_s, double to_s, size_t max_out,
	struct ts_bucket *out);
/* The readings themselves, indexed by enum mem_metric (for charts). */
const struct tseries *memseries_tseries(const struct memseries *s);
/* Growth over the last window_s seconds before now_s (or since the first reading when that is
 * shorter). The rule is documented in memseries.c and ntop-js(1). */
void memseries_growth(const struct memseries *s, double window_s, double now_s,
	struct mem_growth *out);
/* A batch of major collections reported at end_s for the dur_s seconds before it: heap used
 * after each, and how long before end_s each came (ago_s may be NULL; see gcseries.h). n may
 * be 0: the observer ran and V8 did no major collection. */
void memseries_add_post_gc(struct memseries *s, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n);
/* The observer of collections was (re)installed at t_s: what it reports covers the time from then. */
void memseries_post_gc_restart(struct memseries *s, double t_s);
/* Bytes of memory the series holds: constant once every tier is full. */
size_t memseries_bytes(const struct memseries *s);
const char *mem_verdict_name(enum mem_verdict v);
/* "troughs", "post-gc" or "troughs+gc" */
const char *mem_growth_basis_name(enum mem_growth_basis b);

#endif
