/* report_diff.c: see report_diff.h. */
#include "config.h"

#include "report_diff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "profdiff.h"
#include "report.h"
#include "strbuf.h"
#include "util.h"

static const char *const match_names[] = {
	[PROFDIFF_SAME] = "same", [PROFDIFF_MOVED] = "moved", [PROFDIFF_GONE] = "gone",
	[PROFDIFF_NEW] = "new",
};

/* The row's function as it is named: B's where B has it, else A's. */
static const struct func_info *row_func(const struct report_diff *r, const struct profdiff_row *w)
{
	return w->fb != PROFDIFF_NONE ? functab_get(r->ftb, w->fb) : functab_get(r->fta, w->fa);
}

/* Appends s sanitised (a file's name or a function's: anything may be in them). */
static void put_clean(struct strbuf *out, const char *s)
{
	size_t n = strlen(s);
	char *clean = xmalloc(n + 1);

	util_sanitize(s, n, clean, n + 1);
	strbuf_puts(out, clean);
	free(clean);
}

static void side_line(struct strbuf *out, const char *label, const char *file, double busy_ms,
	size_t samples)
{
	strbuf_printf(out, "%s: ", label);
	put_clean(out, file);
	strbuf_printf(out, "  (busy %.1f s, %zu samples)\n", busy_ms / 1e3, samples);
}

/* A share, or "-" where the side does not have the function. */
static void put_share(struct strbuf *out, bool has, double v)
{
	if (has)
		strbuf_printf(out, " %6.1f%%", v);
	else
		strbuf_printf(out, " %7s", "-");
}

void report_diff_text(struct strbuf *out, const struct report_diff *r, size_t top)
{
	const struct profdiff *d = r->d;
	size_t n = top && top < d->n ? top : d->n;

	side_line(out, "A", r->file_a, d->busy_ms_a, d->samples_a);
	side_line(out, "B", r->file_b, d->busy_ms_b, d->samples_b);
	strbuf_puts(out, " SELF A  SELF B  CHANGE TOTAL A TOTAL B  CHANGE  FUNCTION\n");
	for (size_t i = 0; i < n; i++) {
		const struct profdiff_row *w = &d->rows[i];
		const struct func_info *fi = row_func(r, w);
		bool ha = w->fa != PROFDIFF_NONE, hb = w->fb != PROFDIFF_NONE;

		put_share(out, ha, w->self_a);
		put_share(out, hb, w->self_b);
		strbuf_printf(out, " %+7.1f", w->self_b - w->self_a);
		put_share(out, ha, w->total_a);
		put_share(out, hb, w->total_b);
		strbuf_printf(out, " %+7.1f  ", w->total_b - w->total_a);
		put_clean(out, functab_display_name(fi));
		if (fi->url[0]) {
			strbuf_puts(out, "  ");
			put_clean(out, util_display_url(fi->url));
			if (fi->line >= 0)
				strbuf_printf(out, ":%d", fi->line + 1);
		}
		if (w->match == PROFDIFF_MOVED) {
			const struct func_info *fa = functab_get(r->fta, w->fa);
			if (strcmp(fa->url, fi->url)) {
				strbuf_puts(out, " (in A: ");
				put_clean(out, util_display_url(fa->url));
				if (fa->line >= 0)
					strbuf_printf(out, ":%d", fa->line + 1);
				strbuf_putc(out, ')');
			} else if (fa->line >= 0) {
				strbuf_printf(out, " (line %d in A)", fa->line + 1);
			}
		} else if (w->match == PROFDIFF_GONE || w->match == PROFDIFF_NEW) {
			strbuf_printf(out, " (%s)", w->match == PROFDIFF_NEW ? "new in B" : "not in B");
		}
		strbuf_putc(out, '\n');
	}
	if (n < d->n)
		strbuf_printf(out, "(%zu more; --top N shows more, --json all)\n", d->n - n);
}

static void json_side(struct strbuf *out, const char *key, const char *file, double busy_ms,
	size_t samples)
{
	strbuf_printf(out, "\"%s\":{\"file\":", key);
	strbuf_json_string(out, file, strlen(file));
	strbuf_puts(out, ",\"busy_ms\":");
	strbuf_json_double(out, busy_ms);
	strbuf_printf(out, ",\"samples\":%zu}", samples);
}

static void json_num(struct strbuf *out, const char *key, double v)
{
	strbuf_printf(out, ",\"%s\":", key);
	strbuf_json_double(out, v);
}

void report_diff_json(struct strbuf *out, const struct report_diff *r)
{
	const struct profdiff *d = r->d;

	strbuf_puts(out, "{\"type\":\"diff\",");
	json_side(out, "a", r->file_a, d->busy_ms_a, d->samples_a);
	strbuf_putc(out, ',');
	json_side(out, "b", r->file_b, d->busy_ms_b, d->samples_b);
	strbuf_puts(out, ",\"functions\":[");
	for (size_t i = 0; i < d->n; i++) {
		const struct profdiff_row *w = &d->rows[i];

		strbuf_puts(out, i ? ",{" : "{");
		report_json_func_fields(out, row_func(r, w));
		strbuf_puts(out, ",\"line_a\":");
		if (w->fa != PROFDIFF_NONE && functab_get(r->fta, w->fa)->line >= 0)
			strbuf_printf(out, "%d", functab_get(r->fta, w->fa)->line + 1);
		else
			strbuf_puts(out, "null");
		strbuf_printf(out, ",\"match\":\"%s\"", match_names[w->match]);
		json_num(out, "self_pct_a", w->self_a);
		json_num(out, "self_pct_b", w->self_b);
		json_num(out, "delta_self_pct", w->self_b - w->self_a);
		json_num(out, "total_pct_a", w->total_a);
		json_num(out, "total_pct_b", w->total_b);
		json_num(out, "delta_total_pct", w->total_b - w->total_a);
		json_num(out, "self_ms_a", w->self_ms_a);
		json_num(out, "self_ms_b", w->self_ms_b);
		strbuf_putc(out, '}');
	}
	strbuf_puts(out, "]}\n");
}
