/* app_diff.c: ntop-js --diff A B: two saved CPU profiles (.cpuprofile, as ntop-js -o, node
 * --cpu-prof and DevTools write them, or pprof, as ntop-js -o x.pb.gz, go tool pprof,
 * Pyroscope and Parca do) compared function by function (profdiff.h), printed as text or JSON
 * (report_diff.h), then the exit. Each file is read and validated as any profile from a
 * target is (profile_parse, pprof_read_cpu): a file is data from anywhere. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "app_priv.h"
#include "calltree.h"
#include "engine.h"
#include "exitcode.h"
#include "functab.h"
#include "profdiff.h"
#include "pprof_read.h"
#include "procfs.h"
#include "profile.h"
#include "report_diff.h"
#include "strbuf.h"
#include "tui.h"
#include "util.h"

/* A profile file larger than this is refused (a .cpuprofile of a long session is tens of MB). */
#define DIFF_MAX_BYTES (1024UL * 1024 * 1024)
/* Functions under this share of busy time on both sides, self and total, are left out. */
#define DIFF_MIN_PCT 0.05

/* One side: the file read, parsed and aggregated (ft NULL until side_load). */
struct diff_side {
	struct functab *ft;
	struct profile p;
	struct window_stats w;
};

/* The whole file (procfs_file_read is this program's one whole-file reader), or NULL with
 * *cause; one byte past the limit is read to tell a file that is too large. */
static char *read_file(const char *path, size_t *len, char **cause)
{
	char *buf;
	int err = 0;

	if (procfs_file_read(path, DIFF_MAX_BYTES + 1, &buf, len, &err) < 0) {
		*cause = xasprintf("cannot read %s: %s.", path, strerror(err));
		return NULL;
	}
	if (*len > DIFF_MAX_BYTES) {
		*cause = xasprintf("%s is larger than %lu MB; not read.", path, DIFF_MAX_BYTES >> 20);
		free(buf);
		return NULL;
	}
	return buf;
}

/* One side from the bytes of a profile (freed here), named path in messages. */
static int side_parse(const char *path, char *buf, size_t len, struct diff_side *s,
	char **cause)
{
	char *err = NULL;

	/* JSON starts with '{' after any blanks; anything else is pprof: gzipped, or a protobuf
	 * message (whose first byte, 0x0a for a sample type, may well be a newline's) */
	bool gz = pprof_read_is_gzip((const unsigned char *)buf, len);
	size_t first = strspn(buf, " \t\r\n");
	if (gz || first >= len || buf[first] != '{') {
		int r = len > PPROF_READ_MAX_BYTES && !gz ? -1 :
			pprof_read_cpu((const unsigned char *)buf, len, s->ft, &s->p, &err);
		if (r < 0) {
			if (r == -2)
				*cause = xasprintf("%s is neither a .cpuprofile nor a pprof profile.", path);
			else if (!err)
				*cause = xasprintf("%s is larger than %lu MB, which a pprof file may be.", path,
					PPROF_READ_MAX_BYTES >> 20);
			else
				*cause = xasprintf("%s is %s", path, err);
			free(err);
			free(buf);
			return -1;
		}
	} else if (profile_parse(buf, len, s->ft, &s->p, &err) < 0) {
		*cause = xasprintf("%s is not a .cpuprofile (%s).", path, err ? err : "malformed");
		free(err);
		free(buf);
		return -1;
	}
	free(buf);
	aggregate_window(&s->p, s->ft, -INFINITY, &s->w);
	if (s->w.sampled_us - s->w.idle_us <= 0) {
		*cause = xasprintf("%s has no busy samples to compare.", path);
		return -1;
	}
	return 0;
}

static int side_load(const char *path, struct diff_side *s, char **cause)
{
	size_t len;
	char *buf = read_file(path, &len, cause);

	s->ft = functab_create();
	window_stats_init(&s->w);
	memset(&s->p, 0, sizeof s->p);
	if (!buf)
		return -1;
	return side_parse(path, buf, len, s, cause);
}

static void side_free(struct diff_side *s)
{
	if (!s->ft)
		return;
	window_stats_free(&s->w);
	profile_release(&s->p);
	functab_free(s->ft);
}

/* The comparison of a and b, named name_a and name_b, on stdout. Returns an exit status. */
static int diff_print(const struct options *o, const char *name_a, struct diff_side *a,
	const char *name_b, struct diff_side *b)
{
	struct profdiff d;
	struct strbuf out;
	int rc = EXIT_OK;

	profdiff_compute(&a->w, a->ft, &b->w, b->ft, DIFF_MIN_PCT, &d);
	strbuf_init(&out);
	{
		struct report_diff r = {name_a, name_b, &d, a->ft, b->ft};
		if (o->json)
			report_diff_json(&out, &r);
		else
			report_diff_text(&out, &r, o->top_n);
	}
	if ((out.len && fwrite(out.data, 1, out.len, stdout) != out.len) || fflush(stdout) != 0) {
		fprintf(stderr, "ntop-js: the comparison could not be written: %s.\n", strerror(errno));
		rc = EXIT_INTERNAL;
	}
	strbuf_free(&out);
	profdiff_free(&d);
	return rc;
}

int app_diff(const struct options *o)
{
	struct diff_side a = {0}, b = {0};
	char *cause = NULL;
	int rc;

	if (side_load(o->diff_a, &a, &cause) < 0 || side_load(o->diff_b, &b, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		side_free(&a);
		side_free(&b);
		return EXIT_USAGE;
	}
	rc = diff_print(o, o->diff_a, &a, o->diff_b, &b);
	side_free(&a);
	side_free(&b);
	return rc;
}

/* --baseline FILE: read before anything is attached, so that a file that is not a profile is
 * refused first. */
struct app_baseline {
	struct diff_side side;
};

int app_baseline_open(struct app *a)
{
	char *cause = NULL;

	if (!a->opt.baseline)
		return EXIT_OK;
	a->baseline = xcalloc(1, sizeof(*a->baseline));
	if (side_load(a->opt.baseline, &a->baseline->side, &cause) < 0) {
		fprintf(stderr, "ntop-js: --baseline: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void app_baseline_free(struct app *a)
{
	if (!a->baseline)
		return;
	side_free(&a->baseline->side);
	free(a->baseline);
	a->baseline = NULL;
}

void app_baseline_show(struct app *a)
{
	if (a->baseline && a->tui)
		tui_set_file_baseline(a->tui, &a->baseline->side.w, a->baseline->side.ft,
			a->opt.baseline);
}

int app_baseline_report(struct app *a)
{
	const struct calltree *t = a->baseline && a->engine ? engine_calltree(a->engine) : NULL;
	struct diff_side now = {0};
	char *buf = NULL, *cause = NULL, *name;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!t)
		return EXIT_OK;
	/* the session's profile as -o writes it, read back as any .cpuprofile is */
	f = open_memstream(&buf, &len);
	if (!f || calltree_write_cpuprofile(t, engine_functab(a->engine), f) < 0) {
		if (f)
			fclose(f);
		free(buf);
		fprintf(stderr, "ntop-js: --baseline: the session's profile could not be made.\n");
		return EXIT_INTERNAL;
	}
	fclose(f);
	name = xasprintf("this session (PID %d)", (int)a->target.pid);
	now.ft = functab_create();
	window_stats_init(&now.w);
	if (side_parse(name, buf, len, &now, &cause) < 0) {
		/* a session that sampled nothing busy: said, not an error of the run */
		fprintf(stderr, "ntop-js: --baseline: %s\n", cause);
		free(cause);
		rc = EXIT_OK;
	} else {
		rc = diff_print(&a->opt, a->opt.baseline, &a->baseline->side, name, &now);
	}
	side_free(&now);
	free(name);
	return rc;
}
