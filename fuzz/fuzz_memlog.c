/* fuzz_memlog: the --replay reader on hostile input.
 *
 * memlog_replay() reads a file, so the input is written to an in-memory file (memfd) and
 * replayed through /proc/self/fd/N: the real streaming code runs, chunking and torn last line
 * included, with no disk I/O. The handlers do what app_replay.c does with the records (feed a
 * memseries, mark gaps, then ask for the growth and a chart's buckets). Every "mem" record read
 * is then written back with memlog_mem_record() and replayed again: what ntop-js writes, it
 * must read back, with the same values (to the writer's millibyte precision).
 * fuzz/Makefile builds memlog.c with a line cap of 8 KB and 512-byte reads, so that short
 * inputs reach the paths of over-long lines and of lines split between reads. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "incident.h"
#include "memlog.h"
#include "memseries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_memlog"
#include "fuzz_check.h"

#define MAX_KEPT 64

struct replay {
	struct memseries *series;
	struct mem_sample kept[MAX_KEPT];
	size_t n_mem, n_kept, n_attach, n_gap, n_window, n_incident;
	double last_t;
	struct incident_summary incident;
};

static void on_mem(void *ud, const struct mem_sample *m)
{
	struct replay *r = ud;

	CHECK(isfinite(m->t_s) && m->t_s >= 0, "time %g", m->t_s);
	for (int k = 0; k < MEM_METRIC_COUNT; k++)
		CHECK(isnan(m->v[k]) || (isfinite(m->v[k]) && m->v[k] >= 0), "metric %d = %g", k,
			m->v[k]);
	if (r->series)
		memseries_add(r->series, m);
	if (r->n_kept < MAX_KEPT)
		r->kept[r->n_kept++] = *m;
	r->n_mem++;
	r->last_t = m->t_s;
}

static void on_attach(void *ud, double t_s, int pid, const char *node_version, const char *title)
{
	struct replay *r = ud;

	CHECK(isfinite(t_s) && t_s >= 0 && pid >= 0, "attach at %g pid %d", t_s, pid);
	CHECK(node_version && title, "NULL strings");
	(void)strlen(node_version);
	(void)strlen(title);
	if (r->series && memseries_last(r->series))
		memseries_mark_gap(r->series, t_s);
	r->n_attach++;
}

static void on_gap(void *ud, double t_s)
{
	struct replay *r = ud;

	CHECK(isfinite(t_s) && t_s >= 0, "gap at %g", t_s);
	if (r->series)
		memseries_mark_gap(r->series, t_s);
	r->n_gap++;
}

static void on_window(void *ud, const char *json, size_t len)
{
	struct replay *r = ud;

	CHECK(len > 0 && json[0] != '\n' && !memchr(json, '\n', len), "a window line of %zu", len);
	r->n_window++;
}

/* The collections go into the series as --replay puts them: gcseries must take any sizes. */
static void on_post_gc(void *ud, double t_s, double span_s, const double *used,
	const double *ago_s, size_t n)
{
	struct replay *r = ud;

	CHECK(isfinite(t_s) && t_s >= 0 && (span_s == -1 || (span_s >= 0 && span_s <= 86400)),
		"post_gc at %g over %g", t_s, span_s);
	CHECK(n <= 512 && (n == 0 || used), "post_gc with %zu sizes", n);
	if (!r->series)
		return;
	if (span_s < 0)
		memseries_post_gc_restart(r->series, t_s);
	else
		memseries_add_post_gc(r->series, t_s, span_s, used, ago_s, n);
}

/* An incident's strings end inside their fields and its shares are shares; the first is kept
 * to be written back. */
static void on_incident(void *ud, const struct incident_summary *s)
{
	struct replay *r = ud;

	CHECK(isfinite(s->fired_s) && s->fired_s >= 0 && isfinite(s->from_s) && isfinite(s->to_s),
		"incident at %g from %g to %g", s->fired_s, s->from_s, s->to_s);
	CHECK(strnlen(s->name, sizeof s->name) < sizeof s->name &&
		strnlen(s->dir, sizeof s->dir) < sizeof s->dir &&
		strnlen(s->trigger, sizeof s->trigger) < sizeof s->trigger &&
		strnlen(s->unit, sizeof s->unit) < sizeof s->unit, "an incident's text overruns");
	CHECK(s->n_top <= INCIDENT_TOP_MAX, "%zu top functions", s->n_top);
	for (size_t i = 0; i < s->n_top; i++)
		CHECK(s->top[i].self_pct >= 0 && s->top[i].self_pct <= 100 &&
			strnlen(s->top[i].function, sizeof s->top[i].function) < sizeof s->top[i].function &&
			strnlen(s->top[i].where, sizeof s->top[i].where) < sizeof s->top[i].where,
			"top function %zu", i);
	if (!r->n_incident++)
		r->incident = *s;
}

static const struct memlog_replay_handlers handlers = {
	.on_mem = on_mem, .on_attach = on_attach, .on_gap = on_gap, .on_window = on_window,
	.on_post_gc = on_post_gc, .on_incident = on_incident,
};

static int memfd = -1;
static char memfd_path[64];

static void file_set(const void *data, size_t size)
{
	if (memfd < 0) {
		memfd = memfd_create("fuzz_memlog", MFD_CLOEXEC);
		CHECK(memfd >= 0, "memfd_create");
		snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
	}
	CHECK(ftruncate(memfd, 0) == 0, "ftruncate");
	CHECK(size == 0 || pwrite(memfd, data, size, 0) == (ssize_t)size, "pwrite");
}

static void replay(struct replay *r, bool with_series, size_t *bad)
{
	char *cause = NULL;

	memset(r, 0, sizeof *r);
	r->series = with_series ? memseries_create() : NULL;
	CHECK(memlog_replay(memfd_path, &handlers, r, bad, &cause) == 0, "replay: %s",
		cause ? cause : "?");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct replay r, back;
	struct ts_bucket buckets[32];
	struct mem_growth g;
	size_t bad = 0, lines = 1, n;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	file_set(data, size);
	replay(&r, true, &bad);
	CHECK(bad <= lines, "%zu bad lines of %zu", bad, lines);
	CHECK(r.n_mem + r.n_attach + r.n_gap + r.n_window + r.n_incident + bad <= lines,
		"more records than lines");
	if (memseries_last(r.series)) {
		double last = memseries_last(r.series)->t_s, first = memseries_first_time(r.series);

		memseries_growth(r.series, 3600, last, &g);
		(void)mem_verdict_name(g.verdict);
		n = memseries_query(r.series, first, last, 32, buckets);
		CHECK(n <= 32, "%zu buckets", n);
		(void)memseries_bytes(r.series);
	}

	/* an incident read is one ntop-js can write: written back, it reads again */
	if (r.n_incident) {
		char *rec = memlog_incident_record(&r.incident, 0);
		char *line = malloc(strlen(rec) + 2);

		CHECK(line != NULL, "malloc");
		sprintf(line, "%s\n", rec);
		file_set(line, strlen(line));
		replay(&back, false, &bad);
		CHECK(bad == 0 && back.n_incident == 1 && back.incident.n_top == r.incident.n_top &&
			(isnan(r.incident.value) ? isnan(back.incident.value) :
			fabs(back.incident.value - r.incident.value) <= 0.0005 +
			fabs(r.incident.value) * 1e-15) && strlen(back.incident.trigger) > 0,
			"an incident written back read again (%zu bad): %s", bad, rec);
		free(line);
		free(rec);
	}
	/* write back what was read, then read it again */
	if (r.n_kept == 0)
		goto out;
	f = open_memstream(&text, &text_len);
	CHECK(f != NULL, "open_memstream");
	for (size_t i = 0; i < r.n_kept; i++) {
		char *rec = memlog_mem_record(&r.kept[i]);
		fprintf(f, "%s\n", rec);
		free(rec);
	}
	fclose(f);
	file_set(text, text_len);
	replay(&back, false, &bad);
	CHECK(bad == 0 && back.n_mem == r.n_kept, "%zu of %zu records written back read again "
		"(%zu bad): %s", back.n_mem, r.n_kept, bad, text);
	for (size_t i = 0; i < back.n_kept; i++) {
		const struct mem_sample *a = &r.kept[i], *b = &back.kept[i];

		CHECK(fabs(a->t_s - b->t_s) <= 0.0005 + fabs(a->t_s) * 1e-15, "time %.17g read back "
			"as %.17g", a->t_s, b->t_s);
		for (int k = 0; k < MEM_METRIC_COUNT; k++)
			CHECK(isnan(a->v[k]) == isnan(b->v[k]) && (isnan(a->v[k]) ||
				fabs(a->v[k] - b->v[k]) <= 0.0005 + fabs(a->v[k]) * 1e-15),
				"metric %d %.17g read back as %.17g", k, a->v[k], b->v[k]);
	}
	free(text);
out:
	memseries_free(r.series);
	return 0;
}
