/* functab.c: see functab.h.
 *
 * Two open-addressing hash tables: one interns strings (names, urls, deopt reasons) into an
 * arena of chunks that are never reallocated, so every string pointer stays valid for the
 * table's lifetime; the other maps (name pointer, url pointer, line, column) to a function
 * index. Because strings are interned first, function keys compare by pointer. */
#include "config.h"

#include "functab.h"

#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpull.h"
#include "util.h"

#define ARENA_CHUNK_BYTES (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

struct str_entry {
	const char *s;
	size_t len;
	uint64_t hash;
};

struct functab {
	unsigned long long serial; /* functab_serial */
	/* string set */
	struct arena_chunk *chunks;
	struct str_entry *strs; /* open addressing; s == NULL is empty */
	size_t strs_cap, strs_count;
	/* functions */
	struct func_info *funcs;
	uint64_t *func_hash;
	size_t n_funcs, funcs_cap;
	uint32_t *slots; /* open addressing over funcs; UINT32_MAX is empty */
	size_t slots_cap;
	const char *empty; /* the interned "" */
	/* decoded call frame strings, reused from one call frame to the next */
	struct json_scratch name_buf, url_buf, file_url_buf;
};

/* A fast 64-bit hash over 8-byte words (not cryptographic; collisions only cost time). */
static uint64_t hash_bytes(const char *s, size_t n, uint64_t seed)
{
	const uint64_t m = 0x9E3779B97F4A7C15ull;
	uint64_t h = seed ^ (n * m);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * m;
	h ^= h >> 32;
	h *= 0xD6E8FEB86659FD93ull;
	h ^= h >> 32;
	return h;
}

static const char *arena_store(struct functab *ft, const char *s, size_t n)
{
	struct arena_chunk *c = ft->chunks;
	char *out;

	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > ARENA_CHUNK_BYTES / 4 ? n + 1 : ARENA_CHUNK_BYTES;
		struct arena_chunk *nc = xmalloc(sizeof(*nc) + cap);

		nc->used = 0;
		nc->cap = cap;
		if (cap == ARENA_CHUNK_BYTES || !c) {
			nc->next = c;
			ft->chunks = nc;
		} else {
			/* a big string gets its own chunk behind the current one, which keeps its room */
			nc->next = c->next;
			c->next = nc;
		}
		c = nc;
	}
	out = c->data + c->used;
	if (n)
		memcpy(out, s, n);
	out[n] = '\0';
	c->used += n + 1;
	return out;
}

static void strs_grow(struct functab *ft)
{
	size_t ncap = ft->strs_cap ? ft->strs_cap * 2 : 1024;
	struct str_entry *ns = xcalloc(ncap, sizeof(*ns));

	for (size_t i = 0; i < ft->strs_cap; i++) {
		if (!ft->strs[i].s)
			continue;
		size_t j = ft->strs[i].hash & (ncap - 1);
		while (ns[j].s)
			j = (j + 1) & (ncap - 1);
		ns[j] = ft->strs[i];
	}
	free(ft->strs);
	ft->strs = ns;
	ft->strs_cap = ncap;
}

static const char *str_intern(struct functab *ft, const char *s, size_t n)
{
	uint64_t h = hash_bytes(s, n, 0x1234567);
	size_t i;

	if ((ft->strs_count + 1) * 4 > ft->strs_cap * 3)
		strs_grow(ft);
	i = h & (ft->strs_cap - 1);
	while (ft->strs[i].s) {
		struct str_entry *e = &ft->strs[i];
		if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
			return e->s;
		i = (i + 1) & (ft->strs_cap - 1);
	}
	ft->strs[i].s = arena_store(ft, s, n);
	ft->strs[i].len = n;
	ft->strs[i].hash = h;
	ft->strs_count++;
	return ft->strs[i].s;
}

static uint64_t func_key_hash(const char *name, const char *url, int32_t line, int32_t column)
{
	uint64_t h = util_mix64((uint64_t)(uintptr_t)name);
	h = util_mix64(h ^ (uint64_t)(uintptr_t)url);
	h = util_mix64(h ^ ((uint64_t)(uint32_t)line << 32 | (uint32_t)column));
	return h;
}

static void slots_rebuild(struct functab *ft, size_t ncap)
{
	free(ft->slots);
	ft->slots = xmalloc(ncap * sizeof(*ft->slots));
	memset(ft->slots, 0xff, ncap * sizeof(*ft->slots));
	ft->slots_cap = ncap;
	for (size_t k = 0; k < ft->n_funcs; k++) {
		size_t i = ft->func_hash[k] & (ncap - 1);
		while (ft->slots[i] != UINT32_MAX)
			i = (i + 1) & (ncap - 1);
		ft->slots[i] = (uint32_t)k;
	}
}

struct functab *functab_create(void)
{
	static atomic_ullong next_serial;
	struct functab *ft = xcalloc(1, sizeof(*ft));

	ft->serial = atomic_fetch_add(&next_serial, 1) + 1;
	strs_grow(ft);
	slots_rebuild(ft, 1024);
	ft->empty = str_intern(ft, "", 0);
	return ft;
}

void functab_free(struct functab *ft)
{
	struct arena_chunk *c, *next;

	if (!ft)
		return;
	for (c = ft->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(ft->strs);
	free(ft->name_buf.buf);
	free(ft->url_buf.buf);
	free(ft->file_url_buf.buf);
	free(ft->funcs);
	free(ft->func_hash);
	free(ft->slots);
	free(ft);
}

static enum func_kind kind_of(const char *name, size_t name_len, size_t url_len)
{
	static const struct {
		const char *name;
		enum func_kind kind;
	} special[] = {
		{"(root)", FUNC_ROOT},
		{"(program)", FUNC_PROGRAM},
		{"(idle)", FUNC_IDLE},
		{"(garbage collector)", FUNC_GC},
	};

	if (url_len != 0 || name_len < 2 || name[0] != '(')
		return FUNC_JS;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (strlen(special[i].name) == name_len && memcmp(special[i].name, name, name_len) == 0)
			return special[i].kind;
	return FUNC_JS;
}

uint32_t functab_intern(struct functab *ft, const char *name, size_t name_len,
	const char *url, size_t url_len, int32_t line, int32_t column)
{
	const char *iname = name_len ? str_intern(ft, name, name_len) : ft->empty;
	const char *iurl = url_len ? str_intern(ft, url, url_len) : ft->empty;
	uint64_t h = func_key_hash(iname, iurl, line, column);
	size_t i;

	if ((ft->n_funcs + 1) * 4 > ft->slots_cap * 3)
		slots_rebuild(ft, ft->slots_cap * 2);
	i = h & (ft->slots_cap - 1);
	while (ft->slots[i] != UINT32_MAX) {
		const struct func_info *f = &ft->funcs[ft->slots[i]];
		if (ft->func_hash[ft->slots[i]] == h && f->name == iname && f->url == iurl &&
		    f->line == line && f->column == column)
			return ft->slots[i];
		i = (i + 1) & (ft->slots_cap - 1);
	}
	if (ft->n_funcs >= UINT32_MAX - 1)
		util_die(1, "function table full.");
	if (ft->n_funcs == ft->funcs_cap) {
		size_t cap = ft->funcs_cap;
		ft->funcs = xreallocarray_grow(ft->funcs, &cap, ft->n_funcs + 1, sizeof(*ft->funcs));
		ft->func_hash = xreallocarray_grow(ft->func_hash, &ft->funcs_cap, ft->n_funcs + 1,
			sizeof(*ft->func_hash));
	}
	uint32_t idx = (uint32_t)ft->n_funcs++;
	ft->funcs[idx] = (struct func_info){
		.name = iname,
		.url = iurl,
		.line = line,
		.column = column,
		.kind = kind_of(name, name_len, url_len),
		.deopt_reason = NULL,
	};
	ft->func_hash[idx] = h;
	ft->slots[i] = idx;
	return idx;
}

void functab_set_deopt(struct functab *ft, uint32_t func, const char *reason, size_t len)
{
	if (func >= ft->n_funcs || len == 0)
		return;
	ft->funcs[func].deopt_reason = str_intern(ft, reason, len);
}

const struct func_info *functab_get(const struct functab *ft, uint32_t func)
{
	if (func >= ft->n_funcs)
		return NULL;
	return &ft->funcs[func];
}

void functab_set_origin(struct functab *ft, uint32_t func, const char *name, size_t name_len,
	const char *url, size_t url_len, int32_t line, int32_t column)
{
	struct func_info *fi;

	if (func >= ft->n_funcs)
		return;
	fi = &ft->funcs[func];
	fi->orig_name = name_len ? str_intern(ft, name, name_len) : ft->empty;
	fi->orig_url = url_len ? str_intern(ft, url, url_len) : ft->empty;
	fi->orig_line = line;
	fi->orig_column = column;
	fi->mapped = true;
}

const char *functab_shown_name(const struct func_info *fi)
{
	return fi->mapped && fi->orig_name[0] ? fi->orig_name : functab_display_name(fi);
}

const char *functab_shown_url(const struct func_info *fi)
{
	return fi->mapped ? fi->orig_url : fi->url;
}

int32_t functab_shown_line(const struct func_info *fi)
{
	return fi->mapped ? fi->orig_line : fi->line;
}

const char *functab_display_name(const struct func_info *fi)
{
	if (fi->name[0])
		return fi->name;
	if (fi->kind != FUNC_JS || fi->url[0])
		return "(anonymous)";
	return fi->line < 0 ? "(native code)" : "(evaluated code)";
}

size_t functab_count(const struct functab *ft)
{
	return ft->n_funcs;
}

/* One answer for the two questions that ask it, which must agree: the heap profile charges
 * bytes allocated in internal code to the nearest application caller (a string made by
 * Array.prototype.join in leakyCache() is leakyCache's), and the views dim internal rows and
 * hide them on request. An empty url only says "no script"; the position tells native code
 * (none, like the pseudo-functions) from evaluated code (one), as functab_display_name() does.
 * Evaluated code is charged and shown as the application's: a template engine's compiled
 * function holds its own allocations. */
bool functab_is_internal(const struct func_info *fi)
{
	if (strncmp(fi->url, "node:", 5) == 0 || strncmp(fi->url, "internal/", 9) == 0)
		return true;
	return fi->url[0] == '\0' && (fi->kind != FUNC_JS || fi->line < 0);
}

/* Reading call frames. */

enum cf_key { CF_OTHER, CF_FUNCTIONNAME, CF_URL, CF_SCRIPTID, CF_LINENUMBER, CF_COLUMNNUMBER };

static int cf_key_text(const char *s, size_t n)
{
#define KM(lit, k) if (n == sizeof(lit) - 1 && memcmp(s, lit, sizeof(lit) - 1) == 0) return k
	KM("functionName", CF_FUNCTIONNAME);
	KM("url", CF_URL);
	KM("scriptId", CF_SCRIPTID);
	KM("lineNumber", CF_LINENUMBER);
	KM("columnNumber", CF_COLUMNNUMBER);
#undef KM
	return CF_OTHER;
}

/* k is a raw quoted key; V8 never escapes keys, but JSON allows it. */
static enum cf_key cf_key(struct json_span k)
{
	return (enum cf_key)json_key_match(k, cf_key_text, CF_OTHER);
}

/* The CPU profiler gives a CommonJS script's url as a file URL (Node's resourceNameToUrl),
 * the sampling heap profiler gives its bare path: "/app/x.js" here is "file:///app/x.js"
 * there. Converting the path the way Node does (its '%' escape, then the WHATWG URL path
 * percent-encode set; checked against Node 20 on odd names) makes both name the same
 * function-table entry. Dot segments are left alone: Node's module paths have none. */
static void url_from_path(const char *path, size_t n, struct json_scratch *s, const char **text,
	size_t *len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t need = 7 + 3 * n, o;

	if (s->cap < need) {
		free(s->buf);
		s->cap = need;
		s->buf = xmalloc(s->cap);
	}
	memcpy(s->buf, "file://", 7);
	o = 7;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		if (c == '\t' || c == '\n' || c == '\r') {
			continue; /* the URL parser drops them */
		} else if (c == '\\') {
			s->buf[o++] = '/'; /* a separator in file URLs */
		} else if (c <= 0x20 || c >= 0x7f || strchr("\"#<>?`{}%", c)) {
			s->buf[o++] = '%';
			s->buf[o++] = hex[c >> 4];
			s->buf[o++] = hex[c & 15];
		} else {
			s->buf[o++] = (char)c;
		}
	}
	*text = s->buf;
	*len = o;
}

int functab_read_call_frame(struct functab *ft, struct json_reader *r, uint32_t *func)
{
	struct json_span k, name = {0}, url = {0}, script;
	double line = -1, column = -1;
	const char *name_s, *url_s;
	size_t name_n, url_n;
	int got;

	if (json_read_object(r, "callFrame"))
		return -1;
	while ((got = json_read_member(r, &k)) == 1) {
		switch (cf_key(k)) {
		case CF_FUNCTIONNAME:
			got = json_read_string(r, &name, "callFrame.functionName");
			break;
		case CF_URL:
			got = json_read_string(r, &url, "callFrame.url");
			break;
		case CF_SCRIPTID: /* not kept: the url names the script for as long as we care */
			got = json_read_string(r, &script, "callFrame.scriptId");
			break;
		case CF_LINENUMBER:
			got = json_read_int(r, -1, INT32_MAX, &line, "callFrame.lineNumber");
			break;
		case CF_COLUMNNUMBER:
			got = json_read_int(r, -1, INT32_MAX, &column, "callFrame.columnNumber");
			break;
		default:
			got = json_read_skip(r);
			break;
		}
		if (got)
			return -1;
	}
	if (got < 0)
		return -1;
	json_string_text(name, &ft->name_buf, &name_s, &name_n);
	json_string_text(url, &ft->url_buf, &url_s, &url_n);
	if (url_n && url_s[0] == '/')
		url_from_path(url_s, url_n, &ft->file_url_buf, &url_s, &url_n);
	*func = functab_intern(ft, name_s, name_n, url_s, url_n, (int32_t)line, (int32_t)column);
	return 0;
}

unsigned long long functab_serial(const struct functab *ft)
{
	return ft->serial;
}
