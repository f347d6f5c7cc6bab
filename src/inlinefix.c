/* inlinefix.c: see inlinefix.h. */
#include "config.h"

#include "inlinefix.h"

#include <stdlib.h>
#include <string.h>

#include "calledges.h"
#include "functab.h"
#include "ownlines.h"
#include "profile.h"
#include "smapfind.h"
#include "util.h"

#define NONE UINT32_MAX
/* The profiler's column of a function is the '(' of its parameters, coverage's the start of
 * its name or keyword: at most this far apart on one line. */
#define PAREN_SCAN_MAX 256
/* A file whose lines of code average more than this, with a function per line or more, is
 * minified (minified_text). */
#define MINIFIED_LINE_UNITS 300
/* Functions looked at on one line to find a node's own (a minified file is refused above). */
#define OWN_SCAN_MAX 64
/* Caller -> callee edges remembered from the profiles (at 24 bytes and two table slots
 * each: under 2 MB), and how far from a node's function they are followed: two calls (a
 * dispatcher, the handler it calls through a variable, that handler's helper) and no
 * further, so that a function far below (etag, four calls under an express route) is not
 * taken for an inlined helper. */
#define FIX_MAX_EDGES 32768
#define FIX_REACH_DEPTH 2
#define FIX_REACH_MAX 256
/* A line of the node's own function goes to a function of another script that shares its
 * number only when the windows where that script's code ran there as a real frame, at most
 * FIX_OWN_DEPTH calls below, said so: a window with FIX_OWN_MIN ticks of that code on the line
 * and the node's own a FIX_OWN_RATIO-th of them or fewer says "the callee's" (with that code's
 * ticks); one with FIX_OWN_MIN of the node's own and as many as that code's or more says "its
 * own" (with the node's), and the ticks that said "the callee's" must outweigh those that said
 * "its own" (ownlines.h). (function, line) pairs remembered: FIX_MAX_OWN_LINES. */
#define FIX_OWN_DEPTH 3
#define FIX_OWN_MIN 20
#define FIX_OWN_RATIO 10
#define FIX_MAX_OWN_LINES 65536
/* A profile that names a script whose ranges are not known yet is held, and learned from once
 * they are: the first windows after the attach come before the coverage and the texts, and
 * they are often the ones where the callees still ran as real frames (V8 optimizes them again,
 * inlined, a few seconds later). At most FIX_HELD_MAX profiles and FIX_HELD_NODES nodes in
 * all; one waits FIX_HELD_AGE later profiles at most, then what is known of it is learned. */
#define FIX_HELD_MAX 4
#define FIX_HELD_NODES (1u << 20)
#define FIX_HELD_AGE 8

struct fix_fn {
	uint32_t start, end;    /* UTF-16 offsets, as coverage gives them */
	uint32_t line, end_line; /* 1-based */
	int32_t col;            /* 0-based, where the profiler puts the function */
	int32_t parent;         /* the enclosing function's index, or -1 */
	bool top;               /* the script's own top-level code: never an inlined callee */
	char *name;
	uint32_t name_hash;     /* of the name's last word ("Foo.bar", "get bar": bar); 0: none */
	uint32_t func;          /* its function-table index once interned, or NONE */
};

/* A name written before a '(' in the script's text ("fnvStep(", "x.mix("): a call, or what
 * looks like one (a string or comment may hold some: they only add candidates). */
struct call_site {
	uint32_t off;           /* UTF-16 offset of the name */
	uint32_t hash;
};

enum script_state { S_TEXT, S_READY, S_UNUSABLE };

struct fix_script {
	char *url;
	enum script_state state;
	bool minified;          /* UNUSABLE because minified: its inlined callees cannot be found */
	struct fix_fn *fns;     /* by start, outer first (READY: with lines) */
	size_t n_fns;
	struct call_site *calls; /* READY: by offset */
	size_t n_calls;
};

/* A profile's shape kept for learning (its nodes and line ticks; the samples are not needed). */
struct held_profile {
	struct profile_node *nodes;
	size_t n_nodes;
	struct position_tick *ticks;
	size_t n_ticks;
	unsigned age;           /* profiles applied since */
};

struct inlinefix {
	struct fix_script *s;
	size_t n, cap;
	uint32_t *slots;        /* url hash -> index into s, NONE for empty */
	size_t n_slots;
	size_t total_fns;
	bool want_coverage;
	bool covered;           /* a coverage was taken */
	struct calledges *edges; /* caller -> callee, learned from the profiles (calledges.h) */
	struct ownlines *own;   /* whose a line number was, learned likewise (ownlines.h) */
	const void *ft_seen;    /* the function table the interned indices belong to */
	struct held_profile held[FIX_HELD_MAX];
	size_t n_held, held_nodes;
	struct inlinefix_stats st;
};


static uint32_t hash_bytes(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h ? h : 1;
}

/* The url table's hash. */
static uint32_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* The hash of a function's name as a call would write it: its last word. */
static uint32_t name_hash(const char *name)
{
	const char *w = name;

	for (const char *q = name; *q; q++)
		if (*q == '.' || *q == ' ')
			w = q + 1;
	return *w ? hash_bytes(w, strlen(w)) : 0;
}

static bool file_url(const char *url)
{
	return !strncmp(url, "file://", 7) || url[0] == '/';
}

struct inlinefix *inlinefix_new(void)
{
	struct inlinefix *x = xcalloc(1, sizeof(*x));

	x->n_slots = 64;
	x->slots = xmalloc(x->n_slots * sizeof(*x->slots));
	memset(x->slots, 0xff, x->n_slots * sizeof(*x->slots));
	x->edges = calledges_new(FIX_MAX_EDGES);
	x->own = ownlines_new(FIX_MAX_OWN_LINES);
	return x;
}

static void script_free(struct fix_script *sc)
{
	for (size_t k = 0; k < sc->n_fns; k++)
		free(sc->fns[k].name);
	free(sc->fns);
	free(sc->calls);
	free(sc->url);
}

void inlinefix_free(struct inlinefix *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		script_free(&x->s[i]);
	free(x->s);
	free(x->slots);
	calledges_free(x->edges);
	ownlines_free(x->own);
	for (size_t i = 0; i < x->n_held; i++) {
		free(x->held[i].nodes);
		free(x->held[i].ticks);
	}
	free(x);
}

static struct fix_script *find(const struct inlinefix *x, const char *url)
{
	size_t mask = x->n_slots - 1;

	for (size_t k = hash_str(url) & mask;; k = (k + 1) & mask) {
		uint32_t i = x->slots[k];
		if (i == NONE)
			return NULL;
		if (!strcmp(x->s[i].url, url))
			return &x->s[i];
	}
}

static void slots_put(uint32_t *slots, size_t n_slots, const char *url, uint32_t i)
{
	size_t k = hash_str(url) & (n_slots - 1);

	while (slots[k] != NONE)
		k = (k + 1) & (n_slots - 1);
	slots[k] = i;
}

static struct fix_script *add(struct inlinefix *x, char *url)
{
	if ((x->n + 1) * 2 > x->n_slots) {
		size_t ns = x->n_slots * 2;
		uint32_t *slots = xmalloc(ns * sizeof(*slots));
		memset(slots, 0xff, ns * sizeof(*slots));
		for (size_t i = 0; i < x->n; i++)
			slots_put(slots, ns, x->s[i].url, (uint32_t)i);
		free(x->slots);
		x->slots = slots;
		x->n_slots = ns;
	}
	x->s = xreallocarray_grow(x->s, &x->cap, x->n + 1, sizeof(*x->s));
	memset(&x->s[x->n], 0, sizeof(x->s[x->n]));
	x->s[x->n].url = url;
	slots_put(x->slots, x->n_slots, url, (uint32_t)x->n);
	return &x->s[x->n++];
}

/* ---- coverage */

static int get_offset(struct json_span obj, const char *key, uint32_t *out)
{
	struct json_span v;
	double d;

	if (json_object_get(obj, key, &v) != 1 || json_number(v, &d) || !(d >= 0 && d <= INT32_MAX))
		return -1;
	*out = (uint32_t)d;
	return 0;
}

/* One FunctionCoverage: its name and first range (the function's own). */
static int take_function(struct json_span fn, struct fix_fn *out)
{
	struct json_span name, ranges, r;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	if (json_span_type(fn) != JSON_T_OBJECT ||
	    json_object_get(fn, "functionName", &name) != 1 ||
	    json_object_get(fn, "ranges", &ranges) != 1 || json_span_type(ranges) != JSON_T_ARRAY ||
	    json_array_next(ranges, &pos, &r) != 1 || json_span_type(r) != JSON_T_OBJECT ||
	    get_offset(r, "startOffset", &out->start) || get_offset(r, "endOffset", &out->end) ||
	    out->end < out->start || json_string_decode(name, &out->name, NULL))
		return -1;
	out->func = NONE;
	out->name_hash = name_hash(out->name);
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fix_fn *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

static int take_script(struct inlinefix *x, struct json_span sc)
{
	struct json_span url_s, fns, fn;
	struct fix_script *s;
	char *url = NULL;
	size_t pos = 0;
	int r;

	if (json_span_type(sc) != JSON_T_OBJECT || json_object_get(sc, "url", &url_s) != 1 ||
	    json_string_decode(url_s, &url, NULL) ||
	    json_object_get(sc, "functions", &fns) != 1 || json_span_type(fns) != JSON_T_ARRAY) {
		free(url);
		return -1;
	}
	if (!file_url(url) || find(x, url) || x->n >= INLINEFIX_MAX_SCRIPTS) {
		free(url);
		return 0;
	}
	s = add(x, url);
	size_t cap = 0;
	s->state = S_UNUSABLE; /* until it is whole */
	while ((r = json_array_next(fns, &pos, &fn)) == 1) {
		if (x->total_fns >= INLINEFIX_MAX_FUNCS)
			return 1; /* cut short: its lines would fall to enclosing functions */
		s->fns = xreallocarray_grow(s->fns, &cap, s->n_fns + 1, sizeof(*s->fns));
		if (take_function(fn, &s->fns[s->n_fns])) {
			free(s->fns[s->n_fns].name);
			return -1;
		}
		s->n_fns++;
		x->total_fns++;
	}
	if (r < 0)
		return -1;
	qsort(s->fns, s->n_fns, sizeof(*s->fns), cmp_fn);
	s->state = S_TEXT;
	return 1;
}

int inlinefix_take_coverage(struct inlinefix *x, struct json_span result, char **err)
{
	struct json_span arr, sc;
	size_t pos = 0;
	int r, added = 0;

	x->want_coverage = false;
	x->covered = true;
	if (json_span_type(result) != JSON_T_OBJECT || json_object_get(result, "result", &arr) != 1 ||
	    json_span_type(arr) != JSON_T_ARRAY) {
		*err = xstrdup("the target's coverage reply has no result array.");
		return -1;
	}
	while ((r = json_array_next(arr, &pos, &sc)) == 1) {
		int t = take_script(x, sc);
		if (t < 0) {
			*err = xstrdup("the target's coverage reply holds a malformed script entry.");
			return -1;
		}
		added += t;
	}
	if (r < 0) {
		*err = xstrdup("the target's coverage reply is malformed.");
		return -1;
	}
	return added;
}

bool inlinefix_wants_coverage(const struct inlinefix *x)
{
	return x->want_coverage;
}

/* ---- texts: offsets to lines */

/* UTF-16 units and bytes of the UTF-8 sequence at t (n bytes left); an invalid byte is one
 * unit, as a replacement character. */
static unsigned units_of(const unsigned char *t, size_t n, size_t *adv)
{
	size_t len = util_utf8_seq((const char *)t, n);

	*adv = len ? len : 1;
	return len == 4 ? 2 : 1;
}

struct line_map {
	uint32_t *start;        /* first UTF-16 offset of each line */
	size_t *byte;           /* and its byte offset in the text */
	size_t n, cap;
	uint32_t units;         /* the text's length in UTF-16 units */
};

static void line_push(struct line_map *m, uint32_t unit, size_t byte)
{
	size_t cap = m->cap;

	m->start = xreallocarray_grow(m->start, &m->cap, m->n + 1, sizeof(*m->start));
	if (m->cap != cap || !m->byte)
		m->byte = xrealloc(m->byte, m->cap * sizeof(*m->byte));
	m->start[m->n] = unit;
	m->byte[m->n++] = byte;
}

/* Lines end where V8's do: \n, \r\n, a lone \r, U+2028 and U+2029. */
static void map_lines(const unsigned char *t, size_t len, struct line_map *m)
{
	uint32_t u = 0;
	size_t i = 0, adv;

	line_push(m, 0, 0);
	while (i < len && u < UINT32_MAX - 2) {
		unsigned k = units_of(t + i, len - i, &adv);
		bool end = t[i] == '\n' || (t[i] == '\r' && !(i + 1 < len && t[i + 1] == '\n')) ||
			(adv == 3 && t[i] == 0xe2 && t[i + 1] == 0x80 && (t[i + 2] == 0xa8 || t[i + 2] == 0xa9));
		u += k;
		i += adv;
		if (end)
			line_push(m, u, i);
	}
	m->units = u;
}

/* True when the text looks minified: its lines of code (a source-map comment and blank lines at
 * the end left out: an inline map is one long line in any file) average more than
 * MINIFIED_LINE_UNITS, with at least one function per line. */
static bool minified_text(const unsigned char *t, size_t len, const struct line_map *m,
	size_t n_fns)
{
	size_t lines = m->n;
	uint32_t units = m->units;

	while (lines > 1) {
		size_t a = m->byte[lines - 1], b = lines < m->n ? m->byte[lines] : len;
		while (a < b && (t[a] == ' ' || t[a] == '\t' || t[a] == '\r' || t[a] == '\n'))
			a++;
		if (a < b && !(b - a > 4 && (!memcmp(t + a, "//# ", 4) || !memcmp(t + a, "//@ ", 4)) &&
		    memmem(t + a, b - a, "sourceMappingURL=", 17)))
			break;
		units = m->start[lines - 1];
		lines--;
	}
	return units / lines > MINIFIED_LINE_UNITS && n_fns >= lines;
}

/* 0-based line holding UTF-16 offset off. */
static size_t line_of(const struct line_map *m, uint32_t off)
{
	size_t lo = 0, hi = m->n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;
		if (m->start[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Whether the function ending at UTF-16 offset end ends with '}'. Only looked at within
 * ENDS_SCAN_MAX bytes of its line's start (a minified line is not walked once per function);
 * further away it is taken on trust. */
#define ENDS_SCAN_MAX 4096
static bool ends_block(const unsigned char *t, size_t len, const struct line_map *m, uint32_t end)
{
	size_t ln, i, adv, last = SIZE_MAX;
	uint32_t u;

	if (!end)
		return false;
	ln = line_of(m, end - 1);
	i = m->byte[ln];
	u = m->start[ln];
	while (i < len && u < end && i - m->byte[ln] < ENDS_SCAN_MAX) {
		last = i;
		u += units_of(t + i, len - i, &adv);
		i += adv;
	}
	if (u < end)
		return i - m->byte[ln] >= ENDS_SCAN_MAX;
	return last != SIZE_MAX && t[last] == '}';
}

static bool ident_byte(unsigned char c)
{
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') ||
		((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Whether the word [w, w+n) is one of the keywords that may come before a function's name. */
static bool head_keyword(const unsigned char *w, size_t n)
{
	static const char *const kw[] = { "function", "async", "get", "set", "static" };

	for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
		if (strlen(kw[k]) == n && !memcmp(w, kw[k], n))
			return true;
	return false;
}

/* The profiler's column for function f, which coverage starts at f->start on line ln: the '('
 * of its parameters when only keywords and a name come before it ("function f(", "async m(",
 * "static get x("), else where coverage starts (arrows, "x =>"). A name written there must be
 * the function's (the last word of it: "get x"), and such a function ends with '}': else the
 * file is not the one the target loaded, and *stale is set. *checked counts the functions
 * that could be checked. */
/* Where the last walk along a line stopped: functions come by start, so that a line holding
 * many (minified code) is walked once, not once per function. */
struct walk {
	size_t line, byte;
	uint32_t unit;
};

static int32_t profiler_column(const unsigned char *t, size_t len, const struct line_map *m,
	size_t ln, const struct fix_fn *f, struct walk *cur, bool *stale, size_t *checked)
{
	size_t i = m->byte[ln], adv, word = 0, word_len = 0, words = 0;
	uint32_t u = m->start[ln], col = f->start - m->start[ln];
	bool async_only = false;
	const char *last = strrchr(f->name, ' ');

	last = last ? last + 1 : f->name;
	if (cur->line == ln && cur->unit <= f->start) {
		i = cur->byte;
		u = cur->unit;
	}
	while (i < len && u < f->start) { /* to the start along the line */
		u += units_of(t + i, len - i, &adv);
		i += adv;
	}
	*cur = (struct walk){ln, i, u};
	for (size_t k = 0; i < len && k < PAREN_SCAN_MAX;) {
		unsigned char c = t[i];
		if (c == '(') {
			if (word_len && *last && (strlen(last) != word_len || memcmp(t + word, last, word_len)))
				*stale = true;
			/* a function with a keyword or name before its parameters has a block body */
			if (words && !(words == 1 && async_only)) {
				if (!ends_block(t, len, m, f->end))
					*stale = true;
				(*checked)++;
			}
			return (int32_t)(u - m->start[ln]);
		}
		if (ident_byte(c)) {
			size_t w0 = i;
			while (i < len && ident_byte(t[i]) && k < PAREN_SCAN_MAX) {
				u += units_of(t + i, len - i, &adv);
				i += adv;
				k += adv;
			}
			if (!head_keyword(t + w0, i - w0)) {
				word = w0;
				word_len = i - w0;
			}
			async_only = words == 0 && i - w0 == 5 && !memcmp(t + w0, "async", 5);
			words++;
			continue;
		}
		if (!(c == ' ' || c == '\t' || c == '*'))
			break;
		u++;
		i++;
		k++;
	}
	return (int32_t)col;
}

/* Words that come before a '(' without being a call. */
static bool not_a_call(const unsigned char *w, size_t n)
{
	static const char *const kw[] = { "if", "for", "while", "switch", "catch", "function",
		"return", "typeof", "await", "yield", "new", "in", "of", "do", "else", "void",
		"delete", "instanceof", "case", "with", "async", "super", "import" };

	for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
		if (strlen(kw[k]) == n && !memcmp(w, kw[k], n))
			return true;
	return false;
}

/* Every word followed by '(' (spaces between allowed), with its UTF-16 offset. */
static void collect_calls(struct fix_script *s, const unsigned char *t, size_t len)
{
	size_t i = 0, adv, cap = 0;
	uint32_t u = 0;

	while (i < len) {
		if (ident_byte(t[i]) && !(t[i] >= '0' && t[i] <= '9')) {
			size_t w0 = i, j;
			uint32_t u0 = u;
			while (i < len && ident_byte(t[i])) {
				u += units_of(t + i, len - i, &adv);
				i += adv;
			}
			for (j = i; j < len && (t[j] == ' ' || t[j] == '\t'); j++)
				;
			if (j < len && t[j] == '(' && !not_a_call(t + w0, i - w0)) {
				s->calls = xreallocarray_grow(s->calls, &cap, s->n_calls + 1, sizeof(*s->calls));
				s->calls[s->n_calls++] = (struct call_site){u0,
					hash_bytes((const char *)t + w0, i - w0)};
			}
			continue;
		}
		u += units_of(t + i, len - i, &adv);
		i += adv;
	}
}

static void script_build(struct fix_script *s, const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	struct line_map m = {0};
	int32_t *stack;
	size_t depth = 0;

	if (len >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf) { /* Node strips a BOM */
		t += 3;
		len -= 3;
	}
	map_lines(t, len, &m);
	/* a file changed since the target loaded it has other offsets (coverage does not list
	 * the top level, so its length cannot be compared: the functions are checked below);
	 * minified code has many functions on a line, which line ticks cannot tell apart */
	if (s->n_fns && s->fns[s->n_fns - 1].end > m.units) {
		s->state = S_UNUSABLE;
		goto out;
	}
	if (minified_text(t, len, &m, s->n_fns)) {
		s->state = S_UNUSABLE;
		s->minified = true;
		goto out;
	}
	bool stale = false;
	size_t checked = 0;
	struct walk cur = {SIZE_MAX, 0, 0};
	collect_calls(s, t, len);
	stack = xmalloc((s->n_fns + 1) * sizeof(*stack));
	for (size_t k = 0; k < s->n_fns; k++) {
		struct fix_fn *f = &s->fns[k];
		size_t ln = line_of(&m, f->start);
		if (f->end > m.units || f->start > m.units) {
			free(stack);
			s->state = S_UNUSABLE;
			goto out;
		}
		f->line = (uint32_t)ln + 1;
		f->end_line = (uint32_t)line_of(&m, f->end > f->start ? f->end - 1 : f->start) + 1;
		f->top = f->start == 0 && f->end >= m.units;
		f->col = f->top ? 0 : profiler_column(t, len, &m, ln, f, &cur, &stale, &checked);
		while (depth && s->fns[stack[depth - 1]].end < f->end)
			depth--;
		f->parent = depth ? stack[depth - 1] : -1;
		stack[depth++] = (int32_t)k;
	}
	free(stack);
	/* a file none of whose functions could be checked is not taken on trust either */
	s->state = stale || (s->n_fns && !checked) ? S_UNUSABLE : S_READY;
out:
	free(m.start);
	free(m.byte);
}

bool inlinefix_resolve(struct inlinefix *x, inlinefix_text_fn text, void *ud)
{
	bool any = false;

	for (size_t i = 0; i < x->n; i++) {
		struct fix_script *s = &x->s[i];
		const char *buf, *why;
		char *path = NULL, *err = NULL;
		size_t len;
		int r;

		if (s->state != S_TEXT)
			continue;
		if (smapfind_url_path(s->url, &path, &err)) {
			free(err);
			s->state = S_UNUSABLE;
			x->st.scripts_unusable++;
			continue;
		}
		r = text(ud, path, &buf, &len, &why);
		free(path);
		if (r == 0)
			continue;
		if (r > 0)
			script_build(s, buf, len);
		else
			s->state = S_UNUSABLE;
		if (s->state == S_READY) {
			x->st.scripts_ready++;
			any = true;
		} else {
			x->st.scripts_unusable++;
		}
	}
	return any;
}

/* ---- lookups in a READY script */

/* The function whose start the profiler gives as 1-based line and 0-based column. */
static int32_t own_fn(const struct fix_script *s, uint32_t line, int32_t col)
{
	size_t lo = 0, hi = s->n_fns;
	int32_t best = -1;

	while (lo < hi) { /* first function starting on or after the line */
		size_t mid = (lo + hi) / 2;
		if (s->fns[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < s->n_fns && s->fns[k].line == line && k < lo + OWN_SCAN_MAX; k++) {
		if (s->fns[k].col == col)
			return (int32_t)k;
		if (best < 0 || abs(s->fns[k].col - col) < abs(s->fns[best].col - col))
			best = (int32_t)k;
	}
	return best;
}

/* The innermost function (not the top level) holding 1-based line, or -1. Ranges nest: the
 * last function starting on or before the line holds it, or one of its enclosing ones does. */
static int32_t innermost(const struct fix_script *s, uint32_t line)
{
	size_t lo = 0, hi = s->n_fns;
	int32_t j;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->fns[mid].line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = (int32_t)lo - 1; j >= 0; j = s->fns[j].parent)
		if (s->fns[j].end_line >= line)
			return s->fns[j].top ? -1 : j;
	return -1;
}

/* Whether function fn of script s writes a call of a function named like hash. */
static bool calls_name(const struct fix_script *s, int32_t fn, uint32_t hash)
{
	const struct fix_fn *f = &s->fns[fn];
	size_t lo = 0, hi = s->n_calls;

	if (!hash)
		return false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->calls[mid].off < f->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n_calls && s->calls[lo].off < f->end; lo++)
		if (s->calls[lo].hash == hash)
			return true;
	return false;
}

/* Whether line is function f's alone: inside its first and last lines, or on them when what
 * encloses f is the script's top level (which does not run hot). A line f shares with the
 * function around it ("xs.map(x => x + 1)", "}, function next() {") could be either's. */
static bool owns_line(const struct fix_script *s, int32_t f, uint32_t line)
{
	const struct fix_fn *fn = &s->fns[f];

	if (line > fn->line && line < fn->end_line)
		return true;
	return fn->parent < 0 || s->fns[fn->parent].top;
}

static bool nested_in(const struct fix_script *s, int32_t f, int32_t outer)
{
	for (; f >= 0; f = s->fns[f].parent)
		if (f == outer)
			return true;
	return false;
}

static uint32_t fn_func(struct inlinefix *x, struct fix_script *s, int32_t k, struct functab *ft)
{
	struct fix_fn *f = &s->fns[k];

	if (f->func == NONE)
		f->func = functab_intern(ft, f->name, strlen(f->name), s->url, strlen(s->url),
			(int32_t)f->line - 1, f->col);
	(void)x;
	return f->func;
}

/* ---- what called what (calledges.h): a function is keyed by its script's index and its own */

#define NO_KEY UINT64_MAX

static uint64_t fix_key(const struct inlinefix *x, const struct fix_script *s, int32_t fn)
{
	return ((uint64_t)(s - x->s) << 32) | (uint32_t)fn;
}

static struct fix_script *key_script(const struct inlinefix *x, uint64_t k)
{
	return &x->s[k >> 32];
}

static int32_t key_fn(uint64_t k)
{
	return (int32_t)(uint32_t)k;
}

/* ---- repair */

/* Where one node's ticks of one line go: an existing node below it, or a new child. */
struct dest {
	uint32_t node;          /* an existing node's index, or NONE */
	uint32_t func;          /* for a new child */
	uint64_t ticks;
	int64_t cur;            /* smooth weighted round robin */
	uint32_t new_index;
};

struct node_plan {
	uint32_t node;
	size_t first, count;    /* its dests */
	uint64_t stay;          /* ticks that stay on the node */
	uint64_t total;         /* all its ticks */
	int64_t stay_cur;
};

struct repair {
	struct inlinefix *x;
	struct profile *p;
	struct functab *ft;
	uint32_t *sub_end;      /* the end of each node's subtree (preorder) */
	uint32_t *depth;
	uint32_t *tick_dest;    /* per tick entry: its dest index, or NONE (stays) */
	struct dest *dests;
	size_t n_dests, dests_cap;
	struct node_plan *plans;
	size_t n_plans, plans_cap;
	uint64_t visits;
	size_t n_new;
	uint64_t *key;          /* per node: its function's fix_key, or NO_KEY */
	uint64_t reach[FIX_REACH_MAX]; /* what reach_for's function called, as learned */
	size_t n_reach;
	uint64_t reach_for;
};

/* A candidate callee for a line of node i, looked for below it: in the scripts of the
 * functions called below (other than the node's own script), and the node below it that is
 * that callee, if one is. */
struct cand {
	struct fix_script *s;
	int32_t fn;
	uint32_t node;          /* the shallowest node below that is the function, or NONE */
	bool reached;           /* the node's function called it in this or an earlier profile */
};

/* Adds a candidate, or updates the one already there; returns its index, or -1 when full. */
static int cand_add(struct cand *c, size_t *n, size_t max, struct fix_script *s, int32_t fn,
	uint32_t node, const struct repair *r)
{
	for (size_t k = 0; k < *n; k++)
		if (c[k].s == s && c[k].fn == fn) {
			if (node != NONE && (c[k].node == NONE || r->depth[node] < r->depth[c[k].node]))
				c[k].node = node;
			return (int)k;
		}
	if (*n >= max)
		return -1;
	c[*n] = (struct cand){s, fn, node, false};
	return (int)(*n)++;
}

/* Whether node j is function fn of script s. */
static bool node_is(const struct repair *r, uint32_t j, const struct fix_script *s, int32_t fn)
{
	const struct func_info *fi = functab_get(r->ft, r->p->nodes[j].func);

	return fi->kind == FUNC_JS && !strcmp(fi->url, s->url) &&
		fi->line >= 0 && (uint32_t)fi->line + 1 == s->fns[fn].line &&
		own_fn(s, (uint32_t)fi->line + 1, fi->column) == fn;
}

#define MAX_CANDS 8

/* The dest of line `line` of node i (function me of script s), or NONE to leave it. */
/* Candidates for a line outside node i's function (f: this script's innermost function on it
 * that owns it, or -1): the callees' functions on that line, in this script or the scripts of
 * the functions below the node. */
static size_t gather_callees(struct repair *r, uint32_t i, struct fix_script *s, int32_t f,
	uint32_t line, struct cand *c)
{
	size_t n = 0;

	if (f >= 0)
		cand_add(c, &n, MAX_CANDS, s, f, NONE, r);
	for (uint32_t j = i + 1; j < r->sub_end[i] && r->visits < INLINEFIX_MAX_VISITS; j++) {
		const struct func_info *fi = functab_get(r->ft, r->p->nodes[j].func);
		struct fix_script *js;
		int32_t jf;
		r->visits++;
		if (fi->kind != FUNC_JS || !fi->url[0])
			continue;
		js = find(r->x, fi->url);
		if (!js || js->state != S_READY)
			continue;
		if (js == s) {
			if (f >= 0 && node_is(r, j, s, f))
				cand_add(c, &n, MAX_CANDS, s, f, j, r);
			continue;
		}
		jf = innermost(js, line);
		if (jf >= 0 && owns_line(js, jf, line))
			cand_add(c, &n, MAX_CANDS, js, jf, node_is(r, j, js, jf) ? j : NONE, r);
	}
	return n;
}

/* Adds every other script's function on line that the node's function (me) calls by name. */
static void gather_named(struct repair *r, struct fix_script *s, int32_t me, uint32_t line,
	struct cand *c, size_t *n)
{
	for (size_t q = 0; q < r->x->n && r->visits < INLINEFIX_MAX_VISITS; q++) {
		struct fix_script *qs = &r->x->s[q];
		int32_t qf;
		r->visits++;
		if (qs == s || qs->state != S_READY || (qf = innermost(qs, line)) < 0 ||
		    !owns_line(qs, qf, line))
			continue;
		if (calls_name(s, me, qs->fns[qf].name_hash))
			cand_add(c, n, MAX_CANDS, qs, qf, NONE, r);
	}
}

/* When the line is a function f of the node's own script, drops the other scripts'
 * candidates that are neither a child of node i nor called by name from the node's function
 * (me): a function of another file that runs deeper below (etag, four calls under an express
 * route) and happens to span the same line numbers is not where an inlined helper of this
 * file ran. Returns the candidates left. */
static size_t keep_near_callees(const struct repair *r, uint32_t i, const struct fix_script *s,
	int32_t me, int32_t f, struct cand *c, size_t n)
{
	size_t kept = 0;

	if (f < 0)
		return n;
	for (size_t k = 0; k < n; k++)
		if (c[k].s == s || (c[k].node != NONE && r->p->nodes[c[k].node].parent == (int32_t)i) ||
		    calls_name(s, me, c[k].s->fns[c[k].fn].name_hash))
			c[kept++] = c[k];
	return kept;
}

/* What function me of script s called, directly or through one more call, in the profiles
 * seen so far, this one included (cached for the node being planned). */
static const uint64_t *reach_of(struct repair *r, struct fix_script *s, int32_t me, size_t *n)
{
	uint64_t k = fix_key(r->x, s, me);

	if (r->reach_for != k) {
		r->n_reach = calledges_reach(r->x->edges, k, FIX_REACH_DEPTH, r->reach, FIX_REACH_MAX);
		r->reach_for = k;
	}
	*n = r->n_reach;
	return r->reach;
}

/* Whether the node's function (me) is known to run this script's function f: it calls it by
 * name, or called it in this or an earlier profile. */
static bool own_evidence(struct repair *r, struct fix_script *s, int32_t me, int32_t f)
{
	size_t nr;
	const uint64_t *rk;
	uint64_t k = fix_key(r->x, s, f);

	if (calls_name(s, me, s->fns[f].name_hash))
		return true;
	rk = reach_of(r, s, me, &nr);
	for (size_t q = 0; q < nr; q++)
		if (rk[q] == k)
			return true;
	return false;
}

/* Adds, marked reached, every other script's function on line that the node's function (me)
 * called in this or an earlier profile, or that one of those calls by name (a helper that was
 * always inlined into it). Returns how many of the candidates are marked (2 or more when they
 * do not all fit: then none is the one). */
static size_t gather_reached(struct repair *r, struct fix_script *s, int32_t me, uint32_t line,
	struct cand *c, size_t *n)
{
	size_t nr, marked = 0;
	const uint64_t *rk = reach_of(r, s, me, &nr);

	for (size_t q = 0; q < nr; q++) {
		struct fix_script *ks = key_script(r->x, rk[q]);
		int32_t kf = key_fn(rk[q]), jf;
		int k;
		if (ks == s || ks->state != S_READY || (size_t)kf >= ks->n_fns ||
		    (jf = innermost(ks, line)) < 0 || !owns_line(ks, jf, line))
			continue;
		if (jf != kf && !calls_name(ks, kf, ks->fns[jf].name_hash))
			continue;
		k = cand_add(c, n, MAX_CANDS, ks, jf, NONE, r);
		if (k < 0)
			return marked + 2; /* more than the list holds: not one to pick */
		if (!c[k].reached) {
			c[k].reached = true;
			marked++;
		}
	}
	return marked;
}

/* The callee a line outside node i's function belongs to: one that runs below this node
 * wins; then one that the node's function calls by name (looked for in every script when none
 * was found below); then, when this script's function on the line is not known to be run by
 * the node's, the one other script's function that it ran in this or an earlier profile (a
 * dispatcher whose handler, called through a variable, was inlined with its helpers: piscina's
 * worker); then this script's; then the only one. Its index in c, or -1 when it cannot be
 * told. */
static int pick_callee(struct repair *r, uint32_t i, struct fix_script *s, int32_t me,
	int32_t f, uint32_t line, struct cand *c)
{
	size_t n = keep_near_callees(r, i, s, me, f, c, gather_callees(r, i, s, f, line, c));
	size_t seen = 0, named = 0, pick = 0, pick_named = 0, n_found;

	for (size_t k = 0; k < n; k++)
		if (c[k].node != NONE) {
			seen++;
			pick = k;
		}
	if (seen == 1)
		return (int)pick;
	if (f < 0 && n == 0)
		gather_named(r, s, me, line, c, &n);
	for (size_t k = 0; k < n; k++)
		if (calls_name(s, me, c[k].s->fns[c[k].fn].name_hash)) {
			named++;
			pick_named = k;
		}
	if (named == 1)
		return (int)pick_named;
	n_found = n;
	if ((f < 0 || !own_evidence(r, s, me, f)) && gather_reached(r, s, me, line, c, &n) == 1)
		for (size_t k = 0; k < n; k++)
			if (c[k].reached)
				return (int)k;
	if (f >= 0 || n_found == 1)
		return 0;
	return -1;
}

/* The destination for samples moved to func (at node, or a new leaf when NONE) from node i:
 * one of this node's plan (from plan_first) when there is one already. */
static uint32_t dest_for(struct repair *r, uint32_t i, uint32_t func, uint32_t node,
	size_t plan_first)
{
	if (node == NONE) {
		/* an existing child that is the function: keep the tree as V8 would have made it */
		for (uint32_t j = i + 1; j < r->sub_end[i]; j = r->sub_end[j])
			if (r->p->nodes[j].func == func) {
				node = j;
				break;
			}
	}
	for (size_t d = plan_first; d < r->n_dests; d++)
		if (node != NONE ? r->dests[d].node == node :
		    (r->dests[d].node == NONE && r->dests[d].func == func))
			return (uint32_t)d;
	r->dests = xreallocarray_grow(r->dests, &r->dests_cap, r->n_dests + 1, sizeof(*r->dests));
	r->dests[r->n_dests] = (struct dest){node, func, 0, 0, NONE};
	if (node == NONE)
		r->n_new++;
	return (uint32_t)r->n_dests++;
}

/* A line inside the node's own function (me): its own, unless the windows where another
 * script's code ran below it on that line number say that the line was nearly all that
 * code's, and one function of another script that the node runs owns it. */
static uint32_t own_line_dest(struct repair *r, uint32_t i, struct fix_script *s, int32_t me,
	uint32_t line, size_t plan_first)
{
	struct cand c[MAX_CANDS];
	uint64_t callee, own;
	size_t n;

	if (!ownlines_get(r->x->own, fix_key(r->x, s, me), line, &callee, &own) || callee <= own)
		return NONE;
	n = gather_callees(r, i, s, -1, line, c);
	gather_reached(r, s, me, line, c, &n);
	if (n != 1)
		return NONE;
	return dest_for(r, i, fn_func(r->x, c[0].s, c[0].fn, r->ft), c[0].node, plan_first);
}

static uint32_t place_line(struct repair *r, uint32_t i, struct fix_script *s, int32_t me,
	uint32_t line, size_t plan_first)
{
	struct cand c[MAX_CANDS];
	int32_t f = innermost(s, line);
	uint32_t node = NONE;
	struct fix_script *ts = s;
	int32_t tf = -1;

	if (f == me)
		return own_line_dest(r, i, s, me, line, plan_first);
	if (f >= 0 && !owns_line(s, f, line)) {
		if (nested_in(s, f, me))
			return NONE; /* a line of the node's own too: it stays */
		f = -1;      /* shared in this script: perhaps another script's line */
	}
	if (f >= 0 && nested_in(s, f, me)) {
		tf = f;
	} else {
		/* outside the node's function: a callee's line, in this script or another */
		int k = pick_callee(r, i, s, me, f, line, c);
		if (k < 0)
			return NONE - 1; /* unresolved */
		ts = c[k].s;
		tf = c[k].fn;
		node = c[k].node;
	}
	return dest_for(r, i, fn_func(r->x, ts, tf, r->ft), node, plan_first);
}

static void plan_node(struct repair *r, uint32_t i, struct inlinefix_stats *st)
{
	const struct profile_node *nd = &r->p->nodes[i];
	const struct func_info *fi = functab_get(r->ft, nd->func);
	struct fix_script *s;
	struct node_plan pl = {.node = i, .first = r->n_dests};
	int32_t me;

	if (fi->kind != FUNC_JS || !fi->url[0] || fi->line < 0 || !nd->ticks_count)
		return;
	s = find(r->x, fi->url);
	if (!s) {
		if (file_url(fi->url))
			r->x->want_coverage = true;
		return;
	}
	if (s->minified)
		st->minified += nd->hit_count;
	if (s->state != S_READY || (me = own_fn(s, (uint32_t)fi->line + 1, fi->column)) < 0)
		return;
	for (uint32_t k = 0; k < nd->ticks_count; k++) {
		uint32_t t = nd->ticks_first + k;
		const struct position_tick *pt = &r->p->ticks[t];
		uint32_t d = place_line(r, i, s, me, pt->line, pl.first);
		st->ticks += pt->ticks;
		if (d == NONE - 1) {
			st->unresolved += pt->ticks;
			d = NONE;
		}
		r->tick_dest[t] = d;
		if (d == NONE)
			pl.stay += pt->ticks;
		else
			r->dests[d].ticks += pt->ticks;
	}
	pl.count = r->n_dests - pl.first;
	pl.total = pl.stay;
	for (size_t d = pl.first; d < pl.first + pl.count; d++)
		pl.total += r->dests[d].ticks;
	if (pl.count) {
		r->plans = xreallocarray_grow(r->plans, &r->plans_cap, r->n_plans + 1, sizeof(*r->plans));
		r->plans[r->n_plans++] = pl;
	}
}

/* Each sample of a planned node goes to the node or one of its dests, interleaved in
 * proportion to their ticks (smooth weighted round robin), so that any stretch of the window
 * keeps the proportion. Returns per sample its target: an old index, or n_nodes + dest. */
static void assign_samples(struct repair *r, uint32_t *plan_of, struct inlinefix_stats *st)
{
	struct profile *p = r->p;
	uint32_t n = (uint32_t)p->n_nodes;

	for (size_t s = 0; s < p->n_samples; s++) {
		uint32_t i = p->samples[s], k = plan_of[i];
		struct node_plan *pl;
		uint64_t total;
		int64_t best;
		uint32_t to = i;

		if (functab_get(r->ft, p->nodes[i].func)->kind == FUNC_JS)
			st->samples++;
		if (k == NONE)
			continue;
		pl = &r->plans[k];
		total = pl->total;
		pl->stay_cur += (int64_t)pl->stay;
		best = pl->stay_cur;
		for (size_t d = pl->first; d < pl->first + pl->count; d++) {
			r->dests[d].cur += (int64_t)r->dests[d].ticks;
			if (r->dests[d].cur > best) {
				best = r->dests[d].cur;
				to = n + (uint32_t)d;
			}
		}
		if (to == i)
			pl->stay_cur -= (int64_t)total;
		else
			r->dests[to - n].cur -= (int64_t)total;
		if (to != i) {
			st->moved++;
			p->nodes[i].hit_count -= p->nodes[i].hit_count > 0;
			to = r->dests[to - n].node != NONE ? r->dests[to - n].node : to;
			if (to < n)
				p->nodes[to].hit_count++;
		}
		p->samples[s] = to;
	}
}

/* Lays the nodes out again with the new children right after their parents (leaves, so the
 * order stays a depth-first preorder), and the moved line ticks on their new nodes. */
static void rebuild(struct repair *r, const uint32_t *plan_of)
{
	struct profile *p = r->p;
	uint32_t n = (uint32_t)p->n_nodes, total = n + (uint32_t)r->n_new, w = 0;
	size_t nd = r->n_dests, nt = 0;
	struct profile_node *nodes = xcalloc(total, sizeof(*nodes));
	uint32_t *map = xmalloc(n * sizeof(*map));
	struct position_tick *ticks = xmalloc((p->n_ticks ? p->n_ticks : 1) * sizeof(*ticks));
	uint32_t *new_hits = xcalloc(nd + 1, sizeof(*new_hits));
	/* the moved ticks by dest (first[d] .. first[d + 1]), and the dests into each node */
	size_t *first = xcalloc(nd + 2, sizeof(*first));
	uint32_t *by_dest = xmalloc((p->n_ticks ? p->n_ticks : 1) * sizeof(*by_dest));
	uint32_t *into = xmalloc(n * sizeof(*into)), *next_into = xmalloc((nd + 1) * sizeof(*next_into));

	for (size_t s = 0; s < p->n_samples; s++)
		if (p->samples[s] >= n)
			new_hits[p->samples[s] - n]++;
	for (size_t t = 0; t < p->n_ticks; t++)
		if (r->tick_dest[t] != NONE)
			first[r->tick_dest[t] + 2]++;
	for (size_t d = 0; d < nd; d++)
		first[d + 2] += first[d + 1];
	for (size_t t = 0; t < p->n_ticks; t++)
		if (r->tick_dest[t] != NONE)
			by_dest[first[r->tick_dest[t] + 1]++] = (uint32_t)t;
	for (uint32_t i = 0; i < n; i++)
		into[i] = NONE;
	for (size_t d = nd; d-- > 0;)
		if (r->dests[d].node != NONE) {
			next_into[d] = into[r->dests[d].node];
			into[r->dests[d].node] = (uint32_t)d;
		}
	for (uint32_t i = 0; i < n; i++) {
		const struct profile_node *o = &p->nodes[i];
		uint32_t k = plan_of[i];
		map[i] = w;
		nodes[w] = *o;
		nodes[w].parent = o->parent >= 0 ? (int32_t)map[o->parent] : -1;
		nodes[w].ticks_first = (uint32_t)nt;
		/* its own ticks, then those moved to it from above */
		for (uint32_t t = o->ticks_first; t < o->ticks_first + o->ticks_count; t++)
			if (r->tick_dest[t] == NONE)
				ticks[nt++] = p->ticks[t];
		for (uint32_t d = into[i]; d != NONE; d = next_into[d])
			for (size_t q = first[d]; q < first[d + 1]; q++)
				ticks[nt++] = p->ticks[by_dest[q]];
		nodes[w].ticks_count = (uint32_t)(nt - nodes[w].ticks_first);
		w++;
		if (k == NONE)
			continue;
		for (size_t d = r->plans[k].first; d < r->plans[k].first + r->plans[k].count; d++) {
			struct dest *de = &r->dests[d];
			if (de->node != NONE)
				continue;
			de->new_index = w;
			nodes[w] = (struct profile_node){de->func, (int32_t)map[i], new_hits[d],
				(uint32_t)nt, 0};
			for (size_t q = first[d]; q < first[d + 1]; q++)
				ticks[nt++] = p->ticks[by_dest[q]];
			nodes[w].ticks_count = (uint32_t)(nt - nodes[w].ticks_first);
			w++;
		}
	}
	for (size_t s = 0; s < p->n_samples; s++)
		p->samples[s] = p->samples[s] >= n ? r->dests[p->samples[s] - n].new_index :
			map[p->samples[s]];
	free(p->nodes);
	free(p->ticks);
	p->nodes = nodes;
	p->n_nodes = w;
	p->ticks = ticks;
	p->n_ticks = nt;
	free(map);
	free(new_hits);
	free(first);
	free(by_dest);
	free(into);
	free(next_into);
}

/* The key of node i's function, or NO_KEY when its script's ranges are not known. */
static uint64_t node_key(const struct repair *r, uint32_t i)
{
	const struct func_info *fi = functab_get(r->ft, r->p->nodes[i].func);
	struct fix_script *s;
	int32_t fn;

	if (fi->kind != FUNC_JS || !fi->url[0] || fi->line < 0 || !(s = find(r->x, fi->url)) ||
	    s->state != S_READY || (fn = own_fn(s, (uint32_t)fi->line + 1, fi->column)) < 0)
		return NO_KEY;
	return fix_key(r->x, s, fn);
}

static void node_keys(struct repair *r)
{
	r->key = xmalloc((r->p->n_nodes ? r->p->n_nodes : 1) * sizeof(*r->key));
	for (uint32_t i = 0; i < r->p->n_nodes; i++)
		r->key[i] = node_key(r, i);
}

/* True when a node of the profile is in a script with a file whose ranges are not known yet:
 * its text is loading, or no coverage came yet (a script that a coverage did not name, one
 * loaded since, is not waited for). */
static bool names_pending(const struct repair *r)
{
	for (uint32_t i = 0; i < r->p->n_nodes; i++) {
		const struct func_info *fi;
		const struct fix_script *s;
		if (r->key[i] != NO_KEY)
			continue;
		fi = functab_get(r->ft, r->p->nodes[i].func);
		if (fi->kind == FUNC_JS && file_url(fi->url) &&
		    ((!(s = find(r->x, fi->url)) && !r->x->covered) || (s && s->state == S_TEXT)))
			return true;
	}
	return false;
}

/* Remembers each real call of the profile (a JS node under a JS node), before the repair adds
 * its own. */
static void learn_edges(struct repair *r)
{
	for (uint32_t i = 0; i < r->p->n_nodes; i++) {
		int32_t up = r->p->nodes[i].parent;
		if (up >= 0 && r->key[i] != NO_KEY && r->key[up] != NO_KEY && r->key[up] != r->key[i])
			calledges_add(r->x->edges, r->key[up], r->key[i]);
	}
}

/* One observation for ownlines: node (an ancestor) and line, and the ticks of another
 * script's code on that line below it. */
struct own_obs {
	uint32_t node, line;
	uint64_t other;
};

static int cmp_obs(const void *a, const void *b)
{
	const struct own_obs *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint64_t ticks_on(const struct profile *p, uint32_t i, uint32_t line)
{
	const struct profile_node *nd = &p->nodes[i];

	for (uint32_t k = 0; k < nd->ticks_count; k++)
		if (p->ticks[nd->ticks_first + k].line == line)
			return p->ticks[nd->ticks_first + k].ticks;
	return 0;
}

/* For each line of a node's own function on which code of another script ran as a real frame
 * at most FIX_OWN_DEPTH calls below it, what this window says of whose the line is
 * (ownlines.h). Before the repair, on the profile as V8 gave it. */
static void learn_own_lines(struct repair *r)
{
	const struct profile *p = r->p;
	struct own_obs *obs = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t j = 0; j < p->n_nodes && r->visits < INLINEFIX_MAX_VISITS; j++) {
		const struct profile_node *nd = &p->nodes[j];
		struct fix_script *sj;
		if (r->key[j] == NO_KEY || !nd->ticks_count)
			continue;
		sj = key_script(r->x, r->key[j]);
		for (uint32_t k = 0; k < nd->ticks_count; k++) {
			const struct position_tick *pt = &p->ticks[nd->ticks_first + k];
			int32_t up = nd->parent;
			if (innermost(sj, pt->line) < 0)
				continue; /* not a line of this script's functions */
			for (int d = 0; d < FIX_OWN_DEPTH && up >= 0; d++, up = p->nodes[up].parent) {
				struct fix_script *si;
				r->visits++;
				if (r->key[up] == NO_KEY || (si = key_script(r->x, r->key[up])) == sj ||
				    innermost(si, pt->line) != key_fn(r->key[up]))
					continue;
				obs = xreallocarray_grow(obs, &cap, n + 1, sizeof(*obs));
				obs[n++] = (struct own_obs){(uint32_t)up, pt->line, pt->ticks};
			}
		}
	}
	if (n)
		qsort(obs, n, sizeof(*obs), cmp_obs);
	for (size_t a = 0; a < n;) {
		size_t b = a;
		uint64_t other = 0, mine;
		for (; b < n && obs[b].node == obs[a].node && obs[b].line == obs[a].line; b++)
			other += obs[b].other;
		mine = ticks_on(p, obs[a].node, obs[a].line);
		if (other >= FIX_OWN_MIN && mine <= other / FIX_OWN_RATIO)
			ownlines_vote(r->x->own, r->key[obs[a].node], obs[a].line, true, other);
		else if (mine >= FIX_OWN_MIN && mine >= other)
			ownlines_vote(r->x->own, r->key[obs[a].node], obs[a].line, false, mine);
		a = b;
	}
	free(obs);
}

static void held_drop(struct inlinefix *x, size_t i)
{
	x->held_nodes -= x->held[i].n_nodes;
	free(x->held[i].nodes);
	free(x->held[i].ticks);
	memmove(&x->held[i], &x->held[i + 1], (x->n_held - i - 1) * sizeof(x->held[0]));
	x->n_held--;
}

/* Keeps p's shape for later; false when there is no room. */
static bool hold(struct inlinefix *x, const struct profile *p)
{
	struct held_profile *h;

	if (x->n_held == FIX_HELD_MAX || p->n_nodes > FIX_HELD_NODES - x->held_nodes)
		return false;
	h = &x->held[x->n_held++];
	h->n_nodes = p->n_nodes;
	h->nodes = xmalloc(p->n_nodes * sizeof(*h->nodes));
	memcpy(h->nodes, p->nodes, p->n_nodes * sizeof(*h->nodes));
	h->n_ticks = p->n_ticks;
	h->ticks = xmalloc((p->n_ticks ? p->n_ticks : 1) * sizeof(*h->ticks));
	if (p->n_ticks)
		memcpy(h->ticks, p->ticks, p->n_ticks * sizeof(*h->ticks));
	h->age = 0;
	x->held_nodes += p->n_nodes;
	return true;
}

/* Learns from the held profiles whose scripts are all known now, or that waited long enough,
 * oldest first (the order they came in). */
static void learn_held(struct inlinefix *x, struct functab *ft)
{
	for (size_t i = 0; i < x->n_held;) {
		struct held_profile *h = &x->held[i];
		struct profile q = {.nodes = h->nodes, .n_nodes = h->n_nodes, .ticks = h->ticks,
			.n_ticks = h->n_ticks};
		struct repair r = {.x = x, .p = &q, .ft = ft, .reach_for = NO_KEY};
		bool wait;
		node_keys(&r);
		wait = ++h->age <= FIX_HELD_AGE && names_pending(&r);
		if (!wait) {
			learn_edges(&r);
			learn_own_lines(&r);
		}
		free(r.key);
		if (wait)
			i++;
		else
			held_drop(x, i);
	}
}

void inlinefix_apply(struct inlinefix *x, struct profile *p, struct functab *ft,
	struct inlinefix_stats *st_out)
{
	struct repair r = {.x = x, .p = p, .ft = ft, .reach_for = NO_KEY};
	struct inlinefix_stats st = {0};
	uint32_t n = (uint32_t)p->n_nodes, *plan_of;

	if (!n)
		return;
	if (x->ft_seen != ft) { /* indices interned into another table mean nothing here */
		for (size_t i = 0; i < x->n; i++)
			for (size_t k = 0; k < x->s[i].n_fns; k++)
				x->s[i].fns[k].func = NONE;
		while (x->n_held) /* so do the held profiles' */
			held_drop(x, 0);
		x->ft_seen = ft;
	}
	r.sub_end = xmalloc(n * sizeof(*r.sub_end));
	r.depth = xmalloc(n * sizeof(*r.depth));
	r.tick_dest = xmalloc((p->n_ticks ? p->n_ticks : 1) * sizeof(*r.tick_dest));
	plan_of = xmalloc(n * sizeof(*plan_of));
	for (uint32_t i = 0; i < n; i++) {
		r.sub_end[i] = i + 1;
		r.depth[i] = p->nodes[i].parent >= 0 ? r.depth[p->nodes[i].parent] + 1 : 0;
		plan_of[i] = NONE;
	}
	for (uint32_t i = n; i-- > 1;)
		if (r.sub_end[i] > r.sub_end[p->nodes[i].parent])
			r.sub_end[p->nodes[i].parent] = r.sub_end[i];
	for (size_t t = 0; t < p->n_ticks; t++)
		r.tick_dest[t] = NONE;
	node_keys(&r);
	learn_held(x, ft);
	if (!names_pending(&r) || !hold(x, p)) {
		learn_edges(&r);
		learn_own_lines(&r);
	}
	r.visits = 0;
	for (uint32_t i = 0; i < n; i++)
		if (p->nodes[i].hit_count)
			plan_node(&r, i, &st);
	for (size_t k = 0; k < r.n_plans; k++)
		plan_of[r.plans[k].node] = (uint32_t)k;
	assign_samples(&r, plan_of, &st);
	if (r.n_plans)
		rebuild(&r, plan_of);
	free(plan_of);
	free(r.sub_end);
	free(r.depth);
	free(r.tick_dest);
	free(r.key);
	free(r.dests);
	free(r.plans);
	x->st.samples += st.samples;
	x->st.moved += st.moved;
	x->st.unresolved += st.unresolved;
	x->st.ticks += st.ticks;
	x->st.minified += st.minified;
	if (st_out) {
		st_out->samples += st.samples;
		st_out->moved += st.moved;
		st_out->unresolved += st.unresolved;
		st_out->ticks += st.ticks;
		st_out->minified += st.minified;
	}
}

void inlinefix_get_stats(const struct inlinefix *x, struct inlinefix_stats *st)
{
	*st = x->st;
}
