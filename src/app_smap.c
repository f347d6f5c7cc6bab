/* app_smap.c: see app_smap.h. */
#include "config.h"

#include "app_smap.h"
#include "asuser.h"
#include "functab.h"
#include "loop.h"
#include "origins.h"
#include "smapcache.h"
#include "smapfind.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the maps of one process may hold in memory: a large bundle's map with its sources is
 * 2x its size once parsed (doc/bench/sourcemap.md), so a few 20-30 MB bundles fit. */
#define APP_SMAP_BUDGET_BYTES ((size_t)128 << 20)

/* How many places of a generated line are looked up to tell whether it holds several
 * original lines (a minified one). */
#define APP_SMAP_LINE_PROBES 16

struct app_smap {
	struct smapcache *c;
	struct loop_wake *w;
	bool maps;
	struct asuser *reader;  /* the process's files with its rights, or NULL */
};

static void app_smap_on_wake(void *ud)
{
	struct app_smap *s = ud;

	smapcache_poll(s->c);
}

/* From the cache's worker thread: s->w was set before the cache existed. */
static void app_smap_notify(void *ud)
{
	struct app_smap *s = ud;

	loop_wake_signal(s->w);
}

/* The reader of pid's files, taken now (at attach): its root and its user. */
static void app_smap_take(struct app_smap *s, pid_t pid)
{
	char *err = NULL;

	/* without one, every read fails and says so (smapcache) */
	s->reader = pid > 0 ? asuser_open(pid, &err) : NULL;
	free(err);
}

struct app_smap *app_smap_create(struct loop *l, pid_t pid, bool maps)
{
	struct app_smap *s = xcalloc(1, sizeof *s);

	app_smap_take(s, pid);
	s->maps = maps;
	s->w = loop_wake_create(l, app_smap_on_wake, s);
	s->c = smapcache_create(s->reader, APP_SMAP_BUDGET_BYTES, app_smap_notify, s);
	return s;
}

void app_smap_retarget(struct app_smap *s, pid_t pid)
{
	struct asuser *old;

	if (!s)
		return;
	old = s->reader;
	app_smap_take(s, pid);
	smapcache_set_reader(s->c, s->reader);
	asuser_free(old);
}

struct smapcache *app_smap_cache(const struct app_smap *s)
{
	return s && s->maps ? s->c : NULL;
}

/* Line line1 (1-based) of the file at path (read with the target's rights, off the loop)
 * into text; *full_len (may be NULL) gets the line's whole length. A file that cannot be read
 * (yet) has no line: note says why, if it is known. */
static bool app_smap_file_line(struct app_smap *s, const char *path, uint32_t line1, char *text,
	size_t cap, size_t *full_len, char *note, size_t note_cap)
{
	const char *p, *end, *nl, *buf, *why;
	size_t n, len;

	switch (smapcache_text(s->c, path, &buf, &len, &why)) {
	case SMAPCACHE_PENDING:
		return false;
	case SMAPCACHE_NONE:
		if (note && !note[0])
			snprintf(note, note_cap, "Source not shown: %s", why ? why : "it cannot be read.");
		return false;
	case SMAPCACHE_MAPPED:
		break;
	}
	p = buf;
	end = buf + len;
	for (uint32_t k = 1; k < line1 && p < end; k++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	if (p >= end && line1 > 1)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	n = (size_t)((nl ? nl : end) - p);
	if (n > 0 && p[n - 1] == '\r')
		n--;
	if (full_len)
		*full_len = n;
	if (n >= cap)
		n = cap - 1;
	memcpy(text, p, n);
	text[n] = '\0';
	return true;
}

/* Whether generated line line0 (of len bytes) maps to more than one original line. */
static bool app_smap_many_lines(struct app_smap *s, const char *url, uint32_t line0, size_t len)
{
	struct smapcache_result r;
	uint32_t src = 0, line = 0;
	bool first = true;

	for (size_t k = 0; k < APP_SMAP_LINE_PROBES; k++) {
		uint32_t col = (uint32_t)(len * k / APP_SMAP_LINE_PROBES);

		if (smapcache_lookup(s->c, url, line0, col, &r) != SMAPCACHE_MAPPED)
			continue;
		if (!first && (r.pos.source != src || r.pos.line != line))
			return true;
		src = r.pos.source;
		line = r.pos.line;
		first = false;
	}
	return false;
}

/* A line of code as the hot lines show it: its indentation dropped, tabs as spaces. */
static void app_smap_tidy(char *text)
{
	size_t skip = strspn(text, " \t");

	memmove(text, text + skip, strlen(text + skip) + 1);
	for (char *p = text; *p; p++)
		if (*p == '\t')
			*p = ' ';
}

static const char *app_smap_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static bool app_smap_line_raw(struct app_smap *s, const struct func_info *fi, uint32_t line1,
	bool generated, char *where, size_t where_cap, char *text, size_t text_cap, char *note,
	size_t note_cap)
{
	struct smapcache_result r;
	char *path = NULL, *err = NULL;
	size_t gen_len = 0;
	bool ok = false;
	long n;

	where[0] = text[0] = note[0] = '\0';
	if (!s || !fi->url[0] || line1 == 0 || functab_is_internal(fi) ||
	    smapfind_url_path(fi->url, &path, &err) < 0) {
		free(err);
		return false;
	}
	ok = app_smap_file_line(s, path, line1, text, text_cap, &gen_len, note, note_cap);
	snprintf(where, where_cap, "%s:%u", app_smap_base(path), line1);
	free(path);
	if (generated)
		return ok;
	/* V8 counts ticks per line, with no column: a minified script's line holds much of the
	 * program, and no single original line stands for it. */
	if (s->maps && fi->mapped && ok && app_smap_many_lines(s, fi->url, line1 - 1, gen_len)) {
		snprintf(note, note_cap, "Minified: each line of this script holds many lines of the "
			"sources, and V8 counts ticks per line, so these are the script's lines.");
		text[0] = '\0';
		return true;
	}
	if (s->maps && fi->mapped &&
	    smapcache_lookup(s->c, fi->url, line1 - 1, 0, &r) == SMAPCACHE_MAPPED) {
		/* the original line that the generated one starts in */
		char *src = origins_source_path(fi->url, r.pos.source_path ? r.pos.source_path : "");

		snprintf(where, where_cap, "%s:%u", app_smap_base(src), r.pos.line + 1);
		n = sourcemap_source_line(r.map, r.pos.source, r.pos.line + 1, text, text_cap - 1);
		if (n >= 0)
			text[n] = '\0';
		ok = n >= 0 || (src[0] == '/' && app_smap_file_line(s, src, r.pos.line + 1, text,
			text_cap, NULL, note, note_cap));
		free(src);
		return ok;
	}
	if (s->maps && !fi->mapped && !note[0] && fi->line >= 0 && fi->column >= 0 &&
	    smapcache_lookup(s->c, fi->url, (uint32_t)fi->line, (uint32_t)fi->column, &r) ==
	    SMAPCACHE_NONE && r.reason)
		snprintf(note, note_cap, "No source map: %s", r.reason);
	return ok;
}

void app_smap_free(struct app_smap *s)
{
	if (!s)
		return;
	smapcache_free(s->c);
	loop_wake_free(s->w);
	asuser_free(s->reader);
	free(s);
}

bool app_smap_line_text(struct app_smap *s, const struct func_info *fi, uint32_t line1,
	bool generated, char *where, size_t where_cap, char *text, size_t text_cap, char *note,
	size_t note_cap)
{
	bool ok = app_smap_line_raw(s, fi, line1, generated, where, where_cap, text, text_cap, note,
		note_cap);

	app_smap_tidy(text);
	return ok;
}
