/* promfill.h: one watched thread's latest data, as the engine keeps it (the same structs
 * report.c reads for a JSON window), mapped onto promtext.h's struct prom_target for
 * GET /metrics. Pure: no engine, no I/O, so that the mapping is unit-tested. */
#ifndef NTOP_PROMFILL_H
#define NTOP_PROMFILL_H

#include <stdbool.h>
#include <stddef.h>

#include "evloop.h"
#include "promtext.h"
#include "requests.h"

struct contention_sample;
struct cumulative;
struct engine_heap_space;
struct functab;
struct mem_growth;
struct mem_sample;

/* The most functions a target lists (--top beyond is cut). */
#define PROMFILL_TOP_MAX 64
#define PROMFILL_SPACES_MAX 16

struct promfill_source {
	int pid;
	const char *title, *thread, *node_version;
	bool attached;
	double process_cpu_s;                /* NAN: not read */
	const struct contention_sample *kernel; /* the CPU it could not get; NULL: not read */
	const struct mem_sample *mem;        /* the latest memory reading, or NULL */
	const struct mem_growth *growth;     /* NULL: no verdict yet */
	const struct engine_heap_space *spaces;
	size_t n_spaces;
	const struct evloop_reading *evloop;   /* the latest reading, or NULL */
	const struct cumulative *cum;        /* NULL: the CPU profiler never ran */
	const struct functab *ft;
	size_t top_n;                        /* functions by self time since attach */
	const struct req_window *requests;   /* HTTP requests since attach; NULL: not read */
};

/* The arrays a prom_target points into; t borrows them (and src's strings). */
struct promfill_store {
	struct prom_function top[PROMFILL_TOP_MAX];
	struct prom_heap_space spaces[PROMFILL_SPACES_MAX];
	struct prom_resource resources[EVLOOP_MAX_KINDS];
	struct prom_http http[2][REQ_ROWS_MAX];        /* server, client */
	char http_labels[2][REQ_ROWS_MAX][2][REQ_KEY_LEN];
};

void promfill_target(const struct promfill_source *src, struct promfill_store *st,
	struct prom_target *t);

#endif
