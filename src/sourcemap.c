/* sourcemap.c: see sourcemap.h. */
#include "config.h"

#include "sourcemap.h"
#include "jsonpull.h"
#include "util.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One decoded segment, absolute: sources and names index the whole map's tables. */
struct seg {
	uint32_t gen_col;
	uint32_t src;  /* SOURCEMAP_NONE: a one-field segment, an unmapped stretch */
	uint32_t line;
	uint32_t col;
	uint32_t name; /* SOURCEMAP_NONE: no name */
};

/* The mappings stay base64 VLQ, as the map wrote them (4 to 7 bytes a segment, where decoded
 * segments took 20 and a map of mappings alone peaked at 4-5x its size). Every CKPT_EVERY
 * segments, and at each section's first, a checkpoint holds the decoder's whole state just
 * after one segment; a lookup binary-searches them by generated line and column and decodes
 * forward from the nearest, at most a checkpoint's stretch. */
#define CKPT_EVERY 32

struct ckpt {
	uint32_t off;     /* just past its segment, in its section's mappings */
	uint32_t line;    /* its segment's generated line and column (absolute) */
	uint32_t gen_col;
	uint32_t src, oline, ocol, name; /* the section's VLQ state after it */
	uint32_t sec;     /* section index << 3 | the segment's field count (1, 4 or 5) */
};

/* One map's mappings: the whole document's, or each section's of an index map. */
struct section {
	const char *p;    /* the mappings' text, without quotes, in the kept text or own */
	size_t n;
	char *own;        /* a decoded copy when the JSON string had escapes */
	uint32_t line_off, col_off;
	uint32_t src_base, nsrc, name_base, nname; /* its indices in the map's tables */
	uint32_t first_ck; /* its first checkpoint; == the next section's when it has none */
};

/* A line whose columns were written out of order, decoded and sorted (rare). */
struct uline {
	uint32_t line;
	uint32_t first, n; /* into usegs */
};

/* NUL-terminated strings in one buffer. */
struct strtab {
	char *buf;
	size_t len, cap;
	size_t *off;
	uint32_t n;
	size_t ncap;
};

struct sourcemap {
	char *text;                /* what is kept of the map's JSON: mappings and sourcesContent */
	size_t text_len;
	struct section *secs;
	uint32_t nsecs;
	size_t seccap;
	struct ckpt *cks;
	size_t ncks, ckcap;
	size_t nsegs;
	uint32_t nlines;           /* one past the last generated line with a segment */
	struct uline *ulines;      /* sorted by line */
	uint32_t nulines;
	struct seg *usegs;
	size_t nusegs, usegcap, ulinecap;
	struct strtab sources, names;
	struct json_span *content; /* per source; n == 0 when the map has none */
	uint32_t *line_first;      /* per source: its first entry in line_off */
	uint32_t *line_off;        /* each original line's offset in its content span */
	size_t nline_off;
	/* while decoding */
	uint32_t last_line, last_col, since_ck;
	uint32_t *unsorted;        /* lines whose columns went backwards, ascending */
	size_t nunsorted, unsortedcap;
};

/* The members of one map (the whole document, or a section's). */
struct fields {
	bool has_version;
	double version;
	struct json_span sources, source_root, names, mappings, content, sections;
};

static const char PFX[] = "invalid source map";

static void strtab_add(struct strtab *t, const char *s, size_t n)
{
	t->buf = xreallocarray_grow(t->buf, &t->cap, t->len + n + 1, 1);
	t->off = xreallocarray_grow(t->off, &t->ncap, (size_t)t->n + 1, sizeof *t->off);
	memcpy(t->buf + t->len, s, n);
	t->buf[t->len + n] = '\0';
	t->off[t->n++] = t->len;
	t->len += n + 1;
}

static const char *strtab_get(const struct strtab *t, uint32_t i)
{
	return i < t->n ? t->buf + t->off[i] : NULL;
}

static void strtab_free(struct strtab *t)
{
	free(t->buf);
	free(t->off);
}

static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char **err, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	if (err && !*err) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		*err = xasprintf("%s: %s.", PFX, what);
	}
	return -1;
}

/* ---- reading the JSON ---------------------------------------------------------------- */

/* Reads one map object's members into f (spans into the text). */
static int read_fields(const char *buf, size_t len, struct fields *f, char **err)
{
	struct json_reader r;
	struct json_span key;
	int rc;

	memset(f, 0, sizeof *f);
	json_reader_init(&r, buf, len, PFX);
	if (json_read_begin(&r) < 0)
		goto bad;
	while ((rc = json_read_member(&r, &key)) == 1) {
		struct json_span *slot = NULL;
		enum json_type want = JSON_T_ARRAY;

		if (json_string_eq(key, "version")) {
			if (json_read_number(&r, &f->version, "version") < 0)
				goto bad;
			f->has_version = true;
			continue;
		}
		if (json_string_eq(key, "sources"))
			slot = &f->sources;
		else if (json_string_eq(key, "names"))
			slot = &f->names;
		else if (json_string_eq(key, "sourcesContent"))
			slot = &f->content;
		else if (json_string_eq(key, "sections"))
			slot = &f->sections;
		else if (json_string_eq(key, "mappings"))
			slot = &f->mappings, want = JSON_T_STRING;
		else if (json_string_eq(key, "sourceRoot"))
			slot = &f->source_root, want = JSON_T_STRING;
		if (!slot) {
			if (json_read_skip(&r) < 0)
				goto bad;
			continue;
		}
		if (json_pull_value(&r.jp, slot) < 0) {
			json_reader_fail_json(&r);
			goto bad;
		}
		/* a null sourceRoot is as good as none */
		if (json_span_type(*slot) == JSON_T_NULL && slot == &f->source_root)
			slot->n = 0;
		else if (json_span_type(*slot) != want) {
			json_reader_fail(&r, "%.*s is not %s", (int)key.n - 2, key.p + 1,
				want == JSON_T_ARRAY ? "an array" : "a string");
			goto bad;
		}
	}
	if (rc < 0)
		goto bad;
	if (json_read_end(&r) < 0)
		goto bad;
	return 0;
bad:
	if (err && !*err)
		*err = r.err ? xasprintf("%s.", r.err) : xasprintf("%s.", PFX);
	free(r.err);
	return -1;
}

/* Appends a source path: sourceRoot joined to it unless it is absolute or a URL. */
static int add_sources(struct sourcemap *m, const struct fields *f, char **err)
{
	struct json_scratch sc = { 0 };
	const char *s;
	size_t root_len = 0, n, pos = 0;
	struct json_span v;
	char *joined = NULL;
	int rc = 0;

	if (f->source_root.n) {
		json_string_text(f->source_root, &sc, &s, &n);
		if (n > SOURCEMAP_MAX_STRING) {
			free(sc.buf);
			return fail(err, "sourceRoot is longer than %d bytes", SOURCEMAP_MAX_STRING);
		}
		joined = xmalloc(n + SOURCEMAP_MAX_STRING + 2);
		memcpy(joined, s, n);
		root_len = n;
	}
	if (f->sources.n) {
		while ((rc = json_array_next(f->sources, &pos, &v)) == 1) {
			if (m->sources.n >= SOURCEMAP_MAX_SOURCES) {
				rc = fail(err, "more than %d sources", SOURCEMAP_MAX_SOURCES);
				break;
			}
			if (json_span_type(v) == JSON_T_NULL) {
				strtab_add(&m->sources, "", 0);
				continue;
			}
			if (json_span_type(v) != JSON_T_STRING) {
				rc = fail(err, "source %u is not a string", m->sources.n);
				break;
			}
			json_string_text(v, &sc, &s, &n);
			if (n > SOURCEMAP_MAX_STRING) {
				rc = fail(err, "source %u is too long", m->sources.n);
				break;
			}
			bool absolute = n && (s[0] == '/' || memchr(s, ':', n));
			if (!root_len || absolute) {
				strtab_add(&m->sources, s, n);
				continue;
			}
			size_t k = root_len;
			if (joined[k - 1] != '/' && n)
				joined[k++] = '/';
			memcpy(joined + k, s, n);
			strtab_add(&m->sources, joined, k + n);
		}
	}
	free(joined);
	free(sc.buf);
	return rc < 0 ? -1 : 0;
}

static int add_names(struct sourcemap *m, const struct fields *f, char **err)
{
	struct json_scratch sc = { 0 };
	struct json_span v;
	size_t pos = 0, n;
	const char *s;
	int rc = 0;

	if (!f->names.n)
		return 0;
	while ((rc = json_array_next(f->names, &pos, &v)) == 1) {
		if (m->names.n >= SOURCEMAP_MAX_NAMES) {
			rc = fail(err, "more than %u names", SOURCEMAP_MAX_NAMES);
			break;
		}
		if (json_span_type(v) != JSON_T_STRING) {
			rc = fail(err, "name %u is not a string", m->names.n);
			break;
		}
		json_string_text(v, &sc, &s, &n);
		if (n > SOURCEMAP_MAX_STRING) {
			rc = fail(err, "name %u is too long", m->names.n);
			break;
		}
		strtab_add(&m->names, s, n);
	}
	free(sc.buf);
	return rc < 0 ? -1 : 0;
}

/* sourcesContent entries of sources [base, base+nsrc): spans, or nothing for null. */
static int add_content(struct sourcemap *m, const struct fields *f, uint32_t base, char **err)
{
	struct json_span v;
	size_t pos = 0;
	uint32_t i = 0;
	int rc;

	m->content = xrealloc(m->content, ((size_t)m->sources.n + 1) * sizeof *m->content);
	memset(m->content + base, 0, ((size_t)m->sources.n + 1 - base) * sizeof *m->content);
	if (!f->content.n)
		return 0;
	while ((rc = json_array_next(f->content, &pos, &v)) == 1) {
		if (base + i >= m->sources.n)
			break; /* more texts than sources: the extra ones belong to nothing */
		if (json_span_type(v) == JSON_T_STRING)
			m->content[base + i] = v;
		else if (json_span_type(v) != JSON_T_NULL)
			return fail(err, "sourcesContent %u is not a string", i);
		i++;
	}
	return 0;
}

/* ---- mappings ------------------------------------------------------------------------ */

static const signed char B64[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,
	['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
	['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22,
	['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29,
	['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
	['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42, ['q'] = 43,
	['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
	['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57,
	['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
}; /* value + 1; 0 is not a base64 digit */

/* One base64 VLQ value at *pp; values past 32 bits are refused. */
static int vlq(const char **pp, const char *end, const char *start, int64_t *out, char **err)
{
	const char *p = *pp;
	uint64_t acc = 0;
	int shift = 0;

	for (;;) {
		if (p >= end || *p == ',' || *p == ';')
			return fail(err, "truncated VLQ value in mappings (byte %td)", p - start);
		int d = B64[(unsigned char)*p] - 1;
		if (d < 0)
			return fail(err, "bad VLQ digit in mappings (byte %td)", p - start);
		p++;
		acc |= (uint64_t)(d & 31) << shift;
		shift += 5;
		if (!(d & 32))
			break;
		if (shift > 30)
			return fail(err, "VLQ value overflows in mappings (byte %td)", p - start);
	}
	if ((acc >> 1) > INT32_MAX)
		return fail(err, "VLQ value overflows in mappings (byte %td)", p - start);
	*out = (acc & 1) ? -(int64_t)(acc >> 1) : (int64_t)(acc >> 1);
	*pp = p;
	return 0;
}

/* The decoder's state within one section's mappings. */
struct decoder {
	const struct section *sec;
	const char *p, *end;
	uint64_t line;                /* absolute generated line */
	int64_t gcol;                 /* within the line, before the section's column offset */
	int64_t src, oline, ocol, name; /* the section's own indices */
	int nf;                       /* fields of the segment last read: 1, 4 or 5 */
};

/* The next segment of d's section into *s (absolute), checked: 1, 0 at the section's end, or
 * -1 with a sentence in *err. Lookups run it again on text the parse has checked. */
static int next_seg(struct decoder *d, struct seg *s, char **err)
{
	const struct section *sec = d->sec;
	int64_t v[5];
	int k = 0;

	for (;;) {
		if (d->p >= d->end)
			return 0;
		if (*d->p == ';') {
			d->line++, d->p++, d->gcol = 0;
			continue;
		}
		if (*d->p != ',')
			break;
		d->p++;
	}
	while (d->p < d->end && *d->p != ',' && *d->p != ';') {
		if (k == 5)
			return fail(err, "a segment has more than 5 fields (byte %td of mappings)",
				d->p - sec->p);
		if (vlq(&d->p, d->end, sec->p, &v[k++], err) < 0)
			return -1;
	}
	if (k == 2 || k == 3)
		return fail(err, "a segment has %d fields, not 1, 4 or 5", k);
	if (d->line > SOURCEMAP_MAX_GEN_LINES)
		return fail(err, "more than %u generated lines", SOURCEMAP_MAX_GEN_LINES);
	uint32_t col_off = d->line == sec->line_off ? sec->col_off : 0;
	d->gcol += v[0];
	if (d->gcol < 0 || d->gcol + col_off > SOURCEMAP_MAX_POSITION)
		return fail(err, "generated column %lld is out of range", (long long)d->gcol);
	*s = (struct seg){ .gen_col = (uint32_t)d->gcol + col_off, .src = SOURCEMAP_NONE,
		.name = SOURCEMAP_NONE };
	if (k >= 4) {
		d->src += v[1], d->oline += v[2], d->ocol += v[3];
		if (d->src < 0 || d->src >= sec->nsrc)
			return fail(err, "source index %lld is out of range", (long long)d->src);
		if (d->oline < 0 || d->oline > SOURCEMAP_MAX_POSITION || d->ocol < 0 ||
				d->ocol > SOURCEMAP_MAX_POSITION)
			return fail(err, "original position (line %lld) is out of range",
				(long long)d->oline);
		s->src = sec->src_base + (uint32_t)d->src;
		s->line = (uint32_t)d->oline;
		s->col = (uint32_t)d->ocol;
	}
	if (k == 5) {
		d->name += v[4];
		if (d->name < 0 || d->name >= sec->nname)
			return fail(err, "name index %lld is out of range", (long long)d->name);
		s->name = sec->name_base + (uint32_t)d->name;
	}
	d->nf = k;
	return 1;
}

static void push_ckpt(struct sourcemap *m, const struct decoder *d, const struct seg *s)
{
	m->cks = xreallocarray_grow(m->cks, &m->ckcap, m->ncks + 1, sizeof *m->cks);
	m->cks[m->ncks++] = (struct ckpt){
		.off = (uint32_t)(d->p - d->sec->p), .line = (uint32_t)d->line, .gen_col = s->gen_col,
		.src = (uint32_t)d->src, .oline = (uint32_t)d->oline, .ocol = (uint32_t)d->ocol,
		.name = (uint32_t)d->name, .sec = (uint32_t)(d->sec - m->secs) << 3 | (uint32_t)d->nf,
	};
}

/* Checks one map's mappings and places its checkpoints; its lines start at line_off, its first
 * line at col_off, and its source and name indices at src_base and name_base. */
static int add_mappings(struct sourcemap *m, const struct fields *f, uint32_t line_off,
	uint32_t col_off, uint32_t src_base, uint32_t nsrc, uint32_t name_base, uint32_t nname,
	char **err)
{
	struct section *sec;
	struct decoder d = { 0 };
	struct seg s;
	bool first = true;
	int rc;

	if (!f->mappings.n)
		return 0;
	m->secs = xreallocarray_grow(m->secs, &m->seccap, (size_t)m->nsecs + 1, sizeof *m->secs);
	sec = &m->secs[m->nsecs++];
	*sec = (struct section){ .line_off = line_off, .col_off = col_off, .src_base = src_base,
		.nsrc = nsrc, .name_base = name_base, .nname = nname, .first_ck = (uint32_t)m->ncks };
	if (memchr(f->mappings.p, '\\', f->mappings.n)) {
		/* escapes in mappings are legal JSON, and rare enough to pay a copy */
		if (json_string_decode(f->mappings, &sec->own, &sec->n) < 0)
			return fail(err, "mappings is not a valid string");
		sec->p = sec->own;
	} else {
		sec->p = f->mappings.p + 1;
		sec->n = f->mappings.n - 2;
	}
	if (sec->n > UINT32_MAX)
		return fail(err, "mappings is longer than 4 GB");
	d = (struct decoder){ .sec = sec, .p = sec->p, .end = sec->p + sec->n, .line = line_off };
	while ((rc = next_seg(&d, &s, err)) == 1) {
		uint32_t line = (uint32_t)d.line;
		if (m->nsegs >= SOURCEMAP_MAX_SEGMENTS)
			return fail(err, "more than %u segments", SOURCEMAP_MAX_SEGMENTS);
		if (m->nsegs && line < m->last_line)
			return fail(err, "index map sections overlap (generated line %lld)",
				(long long)line + 1);
		if (m->nsegs && line == m->last_line && s.gen_col < m->last_col &&
				(!m->nunsorted || m->unsorted[m->nunsorted - 1] != line)) {
			m->unsorted = xreallocarray_grow(m->unsorted, &m->unsortedcap,
				m->nunsorted + 1, sizeof *m->unsorted);
			m->unsorted[m->nunsorted++] = line;
		}
		if (first || m->since_ck >= CKPT_EVERY) {
			push_ckpt(m, &d, &s);
			m->since_ck = 0;
			first = false;
		}
		m->since_ck++;
		m->nsegs++;
		m->last_line = line, m->last_col = s.gen_col;
		m->nlines = line + 1;
	}
	return rc;
}

/* ---- walking the segments ------------------------------------------------------------ */

/* A walk over the segments in the map's order, from a checkpoint on. */
struct walk {
	const struct sourcemap *m;
	struct decoder d;
	struct seg s;    /* the current segment */
	uint32_t line;   /* and its generated line */
	bool fresh;      /* s is the checkpoint's own, not yet returned */
};

static void walk_from(struct walk *w, const struct sourcemap *m, size_t i)
{
	const struct ckpt *c = &m->cks[i];
	const struct section *sec = &m->secs[c->sec >> 3];
	unsigned nf = c->sec & 7;
	uint32_t col_off = c->line == sec->line_off ? sec->col_off : 0;

	w->m = m;
	w->d = (struct decoder){ .sec = sec, .p = sec->p + c->off, .end = sec->p + sec->n,
		.line = c->line, .gcol = (int64_t)c->gen_col - col_off, .src = c->src,
		.oline = c->oline, .ocol = c->ocol, .name = c->name, .nf = (int)nf };
	w->s = (struct seg){ .gen_col = c->gen_col,
		.src = nf >= 4 ? sec->src_base + c->src : SOURCEMAP_NONE, .line = c->oline,
		.col = c->ocol, .name = nf == 5 ? sec->name_base + c->name : SOURCEMAP_NONE };
	w->line = c->line;
	w->fresh = true;
}

/* The next segment into w->s and w->line: 1, or 0 past the last. */
static int walk_next(struct walk *w)
{
	const struct sourcemap *m = w->m;

	if (w->fresh) {
		w->fresh = false;
		return 1;
	}
	if (next_seg(&w->d, &w->s, NULL) == 1) {
		w->line = (uint32_t)w->d.line;
		return 1;
	}
	/* the section's end: on to the next section's first checkpoint */
	size_t next = (size_t)(w->d.sec - m->secs) + 1;
	size_t ck = next < m->nsecs ? m->secs[next].first_ck : m->ncks;
	if (ck >= m->ncks)
		return 0;
	walk_from(w, m, ck);
	w->fresh = false;
	return 1;
}

/* The last checkpoint before generated line line (strictly), or, with col_inclusive, at or
 * before (line, col); 0 when there is none. */
static size_t find_ckpt(const struct sourcemap *m, uint32_t line, uint32_t col, bool inclusive)
{
	size_t lo = 0, hi = m->ncks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ckpt *c = &m->cks[mid];
		bool before = c->line < line || (inclusive && c->line == line && c->gen_col <= col);
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	if (x->gen_col != y->gen_col)
		return x->gen_col < y->gen_col ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* Lines whose columns went backwards are decoded and sorted apart (the binary search and the
 * walk need a line's columns in order): 20 bytes a segment, so their number is bounded. */
static int sort_unsorted(struct sourcemap *m, char **err)
{
	size_t cap = 0, ucap = 0;

	for (size_t u = 0; u < m->nunsorted; u++) {
		uint32_t line = m->unsorted[u];
		struct walk w;
		size_t first = m->nusegs;

		walk_from(&w, m, find_ckpt(m, line, 0, false));
		while (walk_next(&w) && w.line <= line) {
			if (w.line < line)
				continue;
			if (m->nusegs >= SOURCEMAP_MAX_UNSORTED)
				return fail(err, "more than %u segments on lines out of order",
					SOURCEMAP_MAX_UNSORTED);
			m->usegs = xreallocarray_grow(m->usegs, &cap, m->nusegs + 1, sizeof *m->usegs);
			m->usegs[m->nusegs++] = w.s;
		}
		qsort(m->usegs + first, m->nusegs - first, sizeof *m->usegs, seg_cmp);
		m->ulines = xreallocarray_grow(m->ulines, &ucap, (size_t)m->nulines + 1,
			sizeof *m->ulines);
		m->ulines[m->nulines++] = (struct uline){ line, (uint32_t)first,
			(uint32_t)(m->nusegs - first) };
	}
	free(m->unsorted);
	m->unsorted = NULL;
	m->nunsorted = 0;
	m->usegcap = cap;
	m->ulinecap = ucap;
	return 0;
}

/* ---- one map, sections --------------------------------------------------------------- */

static int add_map(struct sourcemap *m, const struct fields *f, uint32_t line_off,
	uint32_t col_off, char **err)
{
	uint32_t src_base = m->sources.n, name_base = m->names.n;

	if (!f->has_version)
		return fail(err, "it has no version");
	if (f->version != 3)
		return fail(err, "version is not 3");
	if (add_sources(m, f, err) < 0 || add_names(m, f, err) < 0 ||
			add_content(m, f, src_base, err) < 0)
		return -1;
	return add_mappings(m, f, line_off, col_off, src_base, m->sources.n - src_base, name_base,
		m->names.n - name_base, err);
}

static int read_offset(struct json_span sec, uint32_t *line, uint32_t *col, char **err)
{
	struct json_span off, v;
	double d;

	if (json_object_get(sec, "offset", &off) != 1 || json_span_type(off) != JSON_T_OBJECT)
		return fail(err, "a section has no offset");
	if (json_object_get(off, "line", &v) != 1 || json_number(v, &d) < 0 || d < 0 ||
			d > SOURCEMAP_MAX_GEN_LINES || d != (double)(uint32_t)d)
		return fail(err, "a section's offset line is not a line number");
	*line = (uint32_t)d;
	if (json_object_get(off, "column", &v) != 1 || json_number(v, &d) < 0 || d < 0 ||
			d > SOURCEMAP_MAX_POSITION || d != (double)(uint32_t)d)
		return fail(err, "a section's offset column is not a column number");
	*col = (uint32_t)d;
	return 0;
}

static int add_sections(struct sourcemap *m, const struct fields *top, char **err)
{
	struct json_span sec, map, url;
	size_t pos = 0, count = 0;
	uint32_t prev_line = 0, prev_col = 0;
	int rc;

	if (!top->has_version || top->version != 3)
		return fail(err, "version is not 3");
	if (top->mappings.n)
		return fail(err, "an index map has mappings too");
	while ((rc = json_array_next(top->sections, &pos, &sec)) == 1) {
		uint32_t line = 0, col = 0;
		struct fields f;

		if (++count > SOURCEMAP_MAX_SECTIONS)
			return fail(err, "more than %d sections", SOURCEMAP_MAX_SECTIONS);
		if (json_span_type(sec) != JSON_T_OBJECT)
			return fail(err, "section %lld is not an object", (long long)count - 1);
		if (read_offset(sec, &line, &col, err) < 0)
			return -1;
		if (line < prev_line || (line == prev_line && col < prev_col))
			return fail(err, "section %lld starts before the one before it",
				(long long)count - 1);
		prev_line = line, prev_col = col;
		if (json_object_get(sec, "url", &url) == 1)
			return fail(err, "sections that point to a url are not supported");
		if (json_object_get(sec, "map", &map) != 1 || json_span_type(map) != JSON_T_OBJECT)
			return fail(err, "section %lld has no map", (long long)count - 1);
		if (read_fields(map.p, map.n, &f, err) < 0)
			return -1;
		if (f.sections.n)
			return fail(err, "index maps nest");
		if (add_map(m, &f, line, col, err) < 0)
			return -1;
	}
	return 0;
}

/* A kept piece of the map's text: where its pointer is, and its length. */
struct keep {
	const char **pp;
	size_t n;
};

static int keep_cmp(const void *a, const void *b)
{
	const char *x = *((const struct keep *)a)->pp, *y = *((const struct keep *)b)->pp;
	return x < y ? -1 : x > y;
}

/* Moves the mappings and sourcesContent strings to the front of the map's text and gives the
 * rest back: the text is kept for them alone. */
static void keep_text(struct sourcemap *m, char *buf)
{
	size_t n = 0, at = 0, i;
	struct keep *k = xmalloc(((size_t)m->sources.n + m->nsecs + 1) * sizeof *k);

	for (i = 0; i < m->sources.n; i++)
		if (m->content[i].n)
			k[n++] = (struct keep){ &m->content[i].p, m->content[i].n };
	for (i = 0; i < m->nsecs; i++)
		if (!m->secs[i].own && m->secs[i].n)
			k[n++] = (struct keep){ &m->secs[i].p, m->secs[i].n };
	for (i = 0; i < m->nsecs; i++)
		if (!m->secs[i].own && !m->secs[i].n)
			m->secs[i].p = NULL; /* nothing kept: no pointer into the text given back */
	if (!n) {
		free(k);
		free(buf);
		return;
	}
	/* in address order, each string moves down (or stays) */
	qsort(k, n, sizeof *k, keep_cmp);
	for (i = 0; i < n; i++) {
		memmove(buf + at, *k[i].pp, k[i].n);
		*k[i].pp = (const char *)(uintptr_t)at; /* an offset until the realloc */
		at += k[i].n;
	}
	m->text = xrealloc(buf, at);
	m->text_len = at;
	for (i = 0; i < n; i++)
		*k[i].pp = m->text + (uintptr_t)*k[i].pp;
	free(k);
}

static int next_raw_line(const char **pp, const char *end, const char **a, const char **b);

/* Where each original line starts in its content, so that a line's text is found at once. */
static void index_lines(struct sourcemap *m)
{
	size_t cap = 0;

	m->line_first = xmalloc(((size_t)m->sources.n + 1) * sizeof *m->line_first);
	for (uint32_t i = 0; i < m->sources.n; i++) {
		const struct json_span *c = &m->content[i];
		m->line_first[i] = (uint32_t)m->nline_off;
		if (!c->n)
			continue;
		const char *p = c->p + 1, *end = c->p + c->n - 1, *a, *b;
		while (next_raw_line(&p, end, &a, &b)) {
			m->line_off = xreallocarray_grow(m->line_off, &cap, m->nline_off + 1,
				sizeof *m->line_off);
			m->line_off[m->nline_off++] = (uint32_t)(a - c->p);
		}
	}
	m->line_first[m->sources.n] = (uint32_t)m->nline_off;
	if (m->nline_off)
		m->line_off = xrealloc(m->line_off, m->nline_off * sizeof *m->line_off);
}

struct sourcemap *sourcemap_parse(char *buf, size_t len, char **err)
{
	struct sourcemap *m = xcalloc(1, sizeof *m);
	struct fields top;
	bool content = false;
	uint32_t i;

	if (read_fields(buf, len, &top, err) < 0)
		goto bad;
	if (top.sections.n ? add_sections(m, &top, err) < 0 : add_map(m, &top, 0, 0, err) < 0)
		goto bad;
	if (m->ncks) {
		m->cks = xrealloc(m->cks, m->ncks * sizeof *m->cks);
		m->ckcap = m->ncks;
	}
	if (sort_unsorted(m, err) < 0)
		goto bad;
	if (!m->content)
		m->content = xcalloc(1, sizeof *m->content);
	keep_text(m, buf);
	for (i = 0; i < m->sources.n; i++)
		content |= m->content[i].n > 0;
	if (content)
		index_lines(m);
	return m;
bad:
	free(buf);
	sourcemap_free(m);
	return NULL;
}

void sourcemap_free(struct sourcemap *m)
{
	if (!m)
		return;
	free(m->text);
	for (uint32_t i = 0; i < m->nsecs; i++)
		free(m->secs[i].own);
	free(m->secs);
	free(m->cks);
	free(m->ulines);
	free(m->usegs);
	free(m->unsorted);
	free(m->line_first);
	free(m->line_off);
	strtab_free(&m->sources);
	strtab_free(&m->names);
	free(m->content);
	free(m);
}

size_t sourcemap_bytes(const struct sourcemap *m)
{
	size_t n = sizeof *m + m->text_len + m->seccap * sizeof *m->secs +
		m->ckcap * sizeof *m->cks + m->ulinecap * sizeof *m->ulines +
		m->usegcap * sizeof *m->usegs + m->sources.cap + m->sources.ncap * sizeof(size_t) +
		m->names.cap + m->names.ncap * sizeof(size_t) +
		((size_t)m->sources.n + 1) * (sizeof *m->content + sizeof(uint32_t)) +
		m->nline_off * sizeof *m->line_off;
	for (uint32_t i = 0; i < m->nsecs; i++)
		if (m->secs[i].own)
			n += m->secs[i].n;
	return n;
}

uint32_t sourcemap_source_count(const struct sourcemap *m)
{
	return m->sources.n;
}

const char *sourcemap_source_path(const struct sourcemap *m, uint32_t source)
{
	return strtab_get(&m->sources, source);
}

size_t sourcemap_segment_count(const struct sourcemap *m)
{
	return m->nsegs;
}

/* ---- lookup -------------------------------------------------------------------------- */

static int uline_cmp(const void *key, const void *elem)
{
	uint32_t line = *(const uint32_t *)key, l = ((const struct uline *)elem)->line;
	return line < l ? -1 : line > l;
}

/* A lookup on a line that was written out of order: its sorted segments. */
static const struct seg *lookup_sorted(const struct sourcemap *m, const struct uline *u,
	uint32_t gen_col0)
{
	const struct seg *a = m->usegs + u->first;
	size_t lo = 0, hi = u->n;

	if (!u->n)
		return NULL;
	if (gen_col0 == 0)
		return a;
	/* greatest lower bound: the last segment whose column is <= gen_col0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid].gen_col <= gen_col0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &a[lo - 1] : NULL;
}

int sourcemap_lookup(const struct sourcemap *m, uint32_t gen_line0, uint32_t gen_col0,
	struct sourcemap_pos *out)
{
	const struct uline *u = NULL;
	struct seg found;
	const struct seg *s = NULL;

	if (gen_line0 >= m->nlines || !m->ncks)
		return 0;
	if (m->nulines)
		u = bsearch(&gen_line0, m->ulines, m->nulines, sizeof *m->ulines, uline_cmp);
	if (u) {
		s = lookup_sorted(m, u, gen_col0);
	} else {
		/* from the nearest checkpoint before the position, forward to it: column 0 takes
		 * the line's first segment (where V8 puts a script's top level), any other the
		 * last at or before it */
		struct walk w;
		walk_from(&w, m, find_ckpt(m, gen_line0, gen_col0, gen_col0 != 0));
		while (walk_next(&w) && w.line <= gen_line0) {
			if (w.line < gen_line0)
				continue;
			if (gen_col0 && w.s.gen_col > gen_col0)
				break;
			found = w.s, s = &found;
			if (!gen_col0)
				break;
		}
	}
	if (!s || s->src == SOURCEMAP_NONE)
		return 0;
	out->source = s->src;
	out->source_path = strtab_get(&m->sources, s->src);
	out->line = s->line;
	out->column = s->col;
	out->name = s->name == SOURCEMAP_NONE ? NULL : strtab_get(&m->names, s->name);
	return 1;
}

/* ---- original text ------------------------------------------------------------------- */

static long hex4(const char *p, const char *end)
{
	long v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = json_hex_value(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Decodes the raw JSON string bytes [p, end) (validated by jsonpull) into out. */
static size_t decode_raw(const char *p, const char *end, char *out, size_t cap)
{
	size_t o = 0;

	while (p < end && o < cap) {
		if (*p != '\\') {
			out[o++] = *p++;
			continue;
		}
		if (end - p < 2)
			break;
		char c = p[1];
		p += 2;
		switch (c) {
		case 'n': out[o++] = '\n'; continue;
		case 't': out[o++] = '\t'; continue;
		case 'r': out[o++] = '\r'; continue;
		case 'b': out[o++] = '\b'; continue;
		case 'f': out[o++] = '\f'; continue;
		case 'u': break;
		default: out[o++] = c; continue;
		}
		long u = hex4(p, end);
		if (u < 0)
			break;
		p += 4;
		if (u >= 0xd800 && u <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
			long lo = hex4(p + 2, end);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
		}
		if (u >= 0xd800 && u <= 0xdfff)
			u = 0xfffd;
		char enc[4];
		size_t k;
		if (u < 0x80)
			enc[0] = (char)u, k = 1;
		else if (u < 0x800)
			enc[0] = (char)(0xc0 | (u >> 6)), enc[1] = (char)(0x80 | (u & 63)), k = 2;
		else if (u < 0x10000)
			enc[0] = (char)(0xe0 | (u >> 12)), enc[1] = (char)(0x80 | ((u >> 6) & 63)),
			enc[2] = (char)(0x80 | (u & 63)), k = 3;
		else
			enc[0] = (char)(0xf0 | (u >> 18)), enc[1] = (char)(0x80 | ((u >> 12) & 63)),
			enc[2] = (char)(0x80 | ((u >> 6) & 63)), enc[3] = (char)(0x80 | (u & 63)), k = 4;
		if (o + k > cap)
			break;
		memcpy(out + o, enc, k);
		o += k;
	}
	return o;
}

/* The raw bytes of the next line of a JSON string's text from *pp: [*a, *b), and *pp past its
 * line break. Line breaks are JavaScript's: \n, \r\n, \r, U+2028, U+2029. Returns 0 at the end. */
static int next_raw_line(const char **pp, const char *end, const char **a, const char **b)
{
	const char *p = *pp;

	if (p > end)
		return 0;
	*a = p;
	for (;;) {
		const char *q = memchr(p, '\\', (size_t)(end - p));
		if (!q) {
			*b = end;
			*pp = end + 1; /* the last line has no break */
			return 1;
		}
		if (end - q < 2) {
			*b = end;
			*pp = end + 1;
			return 1;
		}
		char c = q[1];
		if (c == 'n') {
			*b = q, *pp = q + 2;
			return 1;
		}
		if (c == 'r') {
			*b = q;
			*pp = (end - q >= 4 && q[2] == '\\' && q[3] == 'n') ? q + 4 : q + 2;
			return 1;
		}
		if (c == 'u') {
			long u = hex4(q + 2, end);
			if (u == 0x2028 || u == 0x2029) {
				*b = q, *pp = q + 6;
				return 1;
			}
			p = q + 2;
			continue;
		}
		p = q + 2;
	}
}

long sourcemap_source_line(const struct sourcemap *m, uint32_t source, uint32_t line1,
	char *buf, size_t cap)
{
	const char *p, *end, *a, *b;

	if (source >= m->sources.n || !m->content[source].n || line1 == 0 ||
			line1 > m->line_first[source + 1] - m->line_first[source])
		return -1;
	p = m->content[source].p + m->line_off[m->line_first[source] + line1 - 1];
	end = m->content[source].p + m->content[source].n - 1;
	if (cap > SOURCEMAP_MAX_LINE_BYTES)
		cap = SOURCEMAP_MAX_LINE_BYTES;
	/* a minified source's line can be megabytes: look no further than cap bytes can come
	 * from (an escape is at most 6 bytes of JSON a byte) */
	if ((size_t)(end - p) > cap * 6 + 6)
		end = p + cap * 6 + 6;
	if (!next_raw_line(&p, end, &a, &b))
		return -1;
	return (long)decode_raw(a, b, buf, cap);
}

static bool ident_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '$' || c >= 0x80;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Words that come before '(' without naming a function. */
static bool not_a_name(const char *s, size_t n)
{
	static const char *const words[] = { "function", "async", "if", "for", "while", "switch",
		"catch", "return", "typeof", "await", "new", "yield", "constructor", "super", "get",
		"set", "static", "do", "else", "in", "of", "void", "delete", "throw", "case" };
	if (n && s[0] >= '0' && s[0] <= '9')
		return true;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return !!strcmp(words[i], "constructor"); /* a class's constructor is a name */
	return false;
}

static size_t put_name(const char *s, size_t n, char *buf, size_t cap)
{
	if (!n || cap < 2 || not_a_name(s, n))
		return 0;
	if (n > cap - 1)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return n;
}

/* Skips back over a type parameter list "<...>" ending just before j (TypeScript generics). */
static size_t skip_back_generics(const char *line, size_t j)
{
	int depth = 0;
	size_t k = j;

	while (k > 0) {
		char c = line[--k];
		if (c == '>')
			depth++;
		else if (c == '<' && --depth == 0)
			return k;
		else if (c == '(' || c == ')' || c == ';' || c == '{' || c == '}')
			break;
	}
	return j;
}

size_t sourcemap_name_in_line(const char *line, size_t len, uint32_t col, char *buf, size_t cap)
{
	size_t j, e;

	if (col >= len || cap < 2)
		return 0;
	/* the '(' of the parameters, or the '<' of a generic function's type parameters */
	if (line[col] == '(' || line[col] == '<') {
		j = col;
		while (j > 0 && is_space(line[j - 1]))
			j--;
		if (j > 0 && line[j - 1] == '>' && !(j > 1 && line[j - 2] == '='))
			j = skip_back_generics(line, j);
		while (j > 0 && is_space(line[j - 1]))
			j--;
		/* "name = (" and "name: (": an arrow function or a method held in a member */
		if (j > 1 && (line[j - 1] == '=' || line[j - 1] == ':') &&
				!memchr("=!<>", line[j - 2], 4)) {
			j--;
			while (j > 0 && is_space(line[j - 1]))
				j--;
		}
		e = j;
		while (j > 0 && ident_byte((unsigned char)line[j - 1]))
			j--;
		return put_name(line + j, e - j, buf, cap);
	}
	if (!ident_byte((unsigned char)line[col]))
		return 0;
	/* the position names the function, or its keyword: "function foo(", "async foo(" */
	j = col;
	for (int words = 0; words < 3; words++) {
		e = j;
		while (e < len && ident_byte((unsigned char)line[e]))
			e++;
		size_t k = e;
		while (k < len && is_space(line[k]))
			k++;
		if (k < len && line[k] == '<') {
			int depth = 0;
			while (k < len) {
				depth += line[k] == '<';
				depth -= line[k] == '>';
				k++;
				if (!depth)
					break;
			}
		}
		if (k < len && line[k] == '(')
			return put_name(line + j, e - j, buf, cap);
		if (!not_a_name(line + j, e - j) || k >= len || !ident_byte((unsigned char)line[k]))
			return 0;
		j = k;
		while (j < len && line[j] == '*')
			j++;
	}
	return 0;
}

size_t sourcemap_name_at(const struct sourcemap *m, const struct sourcemap_pos *pos, char *buf,
	size_t cap)
{
	char text[SOURCEMAP_MAX_LINE_BYTES];
	long n = sourcemap_source_line(m, pos->source, pos->line + 1, text, sizeof text);
	size_t i = 0;
	uint32_t units = 0;

	if (n < 0)
		return 0;
	/* columns count UTF-16 units: walk the UTF-8 text to the byte they reach */
	while (i < (size_t)n && units < pos->column) {
		unsigned char c = (unsigned char)text[i];
		size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		units += k == 4 ? 2 : 1;
		i += k;
	}
	if (i >= (size_t)n || units != pos->column)
		return 0;
	return sourcemap_name_in_line(text, (size_t)n, (uint32_t)i, buf, cap);
}
