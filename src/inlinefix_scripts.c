/* inlinefix_scripts.c: the target's scripts for the repair (inlinefix_priv.h): coverage's
 * function ranges (UTF-16 offsets) made lines with the scripts' texts, the calls each writes
 * by name, and the lookups the repair and the learning make in them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "inlinefix_priv.h"
#include "smapfind.h"
#include "util.h"

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

bool fix_file_url(const char *url)
{
	return !strncmp(url, "file://", 7) || url[0] == '/';
}

void fix_script_free(struct fix_script *sc)
{
	for (size_t k = 0; k < sc->n_fns; k++)
		free(sc->fns[k].name);
	free(sc->fns);
	free(sc->calls);
	free(sc->url);
}

struct fix_script *fix_find(const struct inlinefix *x, const char *url)
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
	if (!fix_file_url(url) || fix_find(x, url) || x->n >= INLINEFIX_MAX_SCRIPTS) {
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
int32_t fix_own_fn(const struct fix_script *s, uint32_t line, int32_t col)
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
int32_t fix_innermost(const struct fix_script *s, uint32_t line)
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
bool fix_calls_name(const struct fix_script *s, int32_t fn, uint32_t hash)
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
bool fix_owns_line(const struct fix_script *s, int32_t f, uint32_t line)
{
	const struct fix_fn *fn = &s->fns[f];

	if (line > fn->line && line < fn->end_line)
		return true;
	return fn->parent < 0 || s->fns[fn->parent].top;
}

bool fix_nested_in(const struct fix_script *s, int32_t f, int32_t outer)
{
	for (; f >= 0; f = s->fns[f].parent)
		if (f == outer)
			return true;
	return false;
}

uint32_t fix_fn_func(struct inlinefix *x, struct fix_script *s, int32_t k, struct functab *ft)
{
	struct fix_fn *f = &s->fns[k];

	if (f->func == NONE)
		f->func = functab_intern(ft, f->name, strlen(f->name), s->url, strlen(s->url),
			(int32_t)f->line - 1, f->col);
	(void)x;
	return f->func;
}

/* ---- what called what (calledges.h): a function is keyed by its script's index and its own */

uint64_t fix_key(const struct inlinefix *x, const struct fix_script *s, int32_t fn)
{
	return ((uint64_t)(s - x->s) << 32) | (uint32_t)fn;
}

struct fix_script *fix_key_script(const struct inlinefix *x, uint64_t k)
{
	return &x->s[k >> 32];
}

int32_t fix_key_fn(uint64_t k)
{
	return (int32_t)(uint32_t)k;
}
