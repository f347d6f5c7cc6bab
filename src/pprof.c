/* pprof.c: see pprof.h. The Profile message and its encoding; pprof_v8.c fills it.
 *
 * Field numbers are those of pprof's proto/profile.proto. Zero scalars are left out (proto3
 * defaults), except where pprof needs the field present. Ids start at 1: 0 means "none". */
#include "config.h"

#include "pprof.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "atomicfile.h"
#include "functab.h"
#include "strbuf.h"
#include "u64map.h"
#include "util.h"

#define NONE UINT32_MAX


struct pp_function {
	uint32_t name, system_name, filename; /* string indices */
	int64_t start_line;
};

struct pp_location {
	uint32_t function_id;
	int64_t line;
};

struct pp_sample {
	size_t loc_first, n_locs;     /* in loc_ids */
	size_t label_first, n_labels; /* in labels, pairs of string indices */
	int64_t v[2];
};

struct pprof {
	enum pprof_kind kind;
	int64_t period, time_nanos, duration_nanos;
	char **strings;
	size_t n_strings, strings_cap;
	struct u64map string_map;  /* hash of the text -> first string of that hash (chained) */
	uint32_t *string_next;     /* chains strings with equal hashes */
	size_t string_next_cap;
	struct pp_function *funcs;
	size_t n_funcs, funcs_cap;
	struct u64map func_map;    /* (filename, name) -> function index */
	struct pp_location *locs;
	size_t n_locs, locs_cap;
	/* per function table (several threads' or processes' in one profile): functab index ->
	 * location index, NONE if none yet */
	struct loc_cache {
		unsigned long long serial;
		uint32_t *loc_of;
		size_t cap;
	} *caches;
	size_t n_caches, caches_cap;
	uint64_t *loc_ids;
	size_t n_loc_ids, loc_ids_cap;
	uint32_t *labels;
	size_t n_labels, labels_cap;
	struct pp_sample *samples;
	size_t n_samples, samples_cap;
	uint32_t types[2][2];      /* the sample types' (type, unit) strings */
	uint32_t period_type[2];
};

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}


/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD, or NULL if s is
 * valid: protobuf strings must be UTF-8, and Parca's and Pyroscope's decoders refuse a
 * profile that is not, while a target's function names are any bytes. */
static char *utf8_repaired(const char *s)
{
	size_t n = strlen(s), i = 0, k;
	struct strbuf b;

	while (i < n && (k = util_utf8_seq(s + i, n - i)) > 0)
		i += k;
	if (i == n)
		return NULL;
	strbuf_init(&b);
	strbuf_append(&b, s, i);
	while (i < n) {
		k = util_utf8_seq(s + i, n - i);
		if (k == 0) {
			strbuf_puts(&b, "\xef\xbf\xbd");
			i++;
		} else {
			strbuf_append(&b, s + i, k);
			i += k;
		}
	}
	return b.data;
}

static uint32_t string_id(struct pprof *p, const char *text)
{
	char *fixed = utf8_repaired(text);
	const char *s = fixed ? fixed : text;
	uint32_t *slot = u64map_slot(&p->string_map, text_hash(s));
	uint32_t i, id;

	for (i = *slot; i != NONE; i = p->string_next[i])
		if (strcmp(p->strings[i], s) == 0) {
			free(fixed);
			return i;
		}
	if (p->n_strings >= NONE - 1)
		util_die(1, "pprof string table full.");
	p->strings = xreallocarray_grow(p->strings, &p->strings_cap, p->n_strings + 1,
		sizeof(*p->strings));
	p->string_next = xreallocarray_grow(p->string_next, &p->string_next_cap, p->n_strings + 1,
		sizeof(*p->string_next));
	id = (uint32_t)p->n_strings++;
	p->strings[id] = fixed ? fixed : xstrdup(s);
	if (*slot == NONE)
		p->string_map.n++;
	p->string_next[id] = *slot; /* newest first in its chain */
	*slot = id;
	return id;
}

struct pprof *pprof_create(enum pprof_kind kind, int64_t period)
{
	struct pprof *p = xcalloc(1, sizeof(*p));

	bool heap = kind == PPROF_HEAP;

	p->kind = kind;
	p->period = period;
	string_id(p, ""); /* pprof requires "" at index 0 */
	p->types[0][0] = string_id(p, heap ? "inuse_objects" : "samples");
	p->types[0][1] = string_id(p, "count");
	p->types[1][0] = string_id(p, heap ? "inuse_space" : "cpu");
	p->types[1][1] = string_id(p, heap ? "bytes" : "nanoseconds");
	p->period_type[0] = string_id(p, heap ? "space" : "cpu");
	p->period_type[1] = p->types[1][1];
	return p;
}

void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->string_next);
	u64map_free(&p->string_map);
	free(p->funcs);
	u64map_free(&p->func_map);
	free(p->locs);
	for (size_t i = 0; i < p->n_caches; i++)
		free(p->caches[i].loc_of);
	free(p->caches);
	free(p->loc_ids);
	free(p->labels);
	free(p->samples);
	free(p);
}

void pprof_set_time(struct pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos > 0 ? duration_nanos : 0;
}

size_t pprof_sample_count(const struct pprof *p)
{
	return p->n_samples;
}

/* Where a function is, as pprof shows it: in its original source when a source map says so
 * (V8's own name kept as the system name), else as V8 gives it. */
struct place {
	const char *name, *system_name, *file;
	int32_t line; /* 0-based; -1 if unknown */
};

static struct place place_of(const struct func_info *fi)
{
	const char *v8 = functab_display_name(fi);

	if (fi->mapped)
		return (struct place){ fi->orig_name && fi->orig_name[0] ? fi->orig_name : v8, v8,
			fi->orig_url ? fi->orig_url : "", fi->orig_line };
	return (struct place){ v8, v8, fi->url, fi->line };
}

/* The Function of (file, name): one for all of a file's functions of that name. */
static uint32_t function_id(struct pprof *p, const struct place *pl)
{
	uint32_t name = string_id(p, pl->name);
	uint32_t file = string_id(p, pl->file);
	uint32_t *slot = u64map_slot(&p->func_map, ((uint64_t)file << 32) | name);

	if (*slot == NONE) {
		p->funcs = xreallocarray_grow(p->funcs, &p->funcs_cap, p->n_funcs + 1,
			sizeof(*p->funcs));
		p->funcs[p->n_funcs] = (struct pp_function){ .name = name,
			.system_name = string_id(p, pl->system_name), .filename = file,
			.start_line = pl->line >= 0 ? (int64_t)pl->line + 1 : 0 };
		*slot = (uint32_t)p->n_funcs++;
		p->func_map.n++;
	}
	return *slot + 1;
}

/* In a location cache: the location was made for the function once mapped. */
#define LOC_MAPPED 0x80000000u

/* The location cache of table ft (the last one used is looked at first: windows come one
 * table at a time). */
static struct loc_cache *cache_of(struct pprof *p, const struct functab *ft)
{
	unsigned long long serial = functab_serial(ft);

	for (size_t i = p->n_caches; i-- > 0;)
		if (p->caches[i].serial == serial) {
			if (i + 1 != p->n_caches) {
				struct loc_cache t = p->caches[i];
				p->caches[i] = p->caches[p->n_caches - 1];
				p->caches[p->n_caches - 1] = t;
			}
			return &p->caches[p->n_caches - 1];
		}
	p->caches = xreallocarray_grow(p->caches, &p->caches_cap, p->n_caches + 1,
		sizeof(*p->caches));
	p->caches[p->n_caches] = (struct loc_cache){ .serial = serial };
	return &p->caches[p->n_caches++];
}

/* The Location of a function-table entry: the table is keyed by (name, url, line, column),
 * which is pprof-nodejs's key for locations. */
static uint64_t location_id(struct pprof *p, const struct functab *ft, uint32_t func)
{
	const struct func_info *fi = functab_get(ft, func);
	struct loc_cache *c = cache_of(p, ft);

	if (func >= c->cap) {
		size_t old = c->cap;
		c->loc_of = xreallocarray_grow(c->loc_of, &c->cap, (size_t)func + 1,
			sizeof(*c->loc_of));
		memset(c->loc_of + old, 0xff, (c->cap - old) * sizeof(*c->loc_of));
	}
	/* a function whose source map came in since has a location of its own from then on */
	if (c->loc_of[func] == NONE || !(c->loc_of[func] & LOC_MAPPED) != !fi->mapped) {
		struct place pl = place_of(fi);
		p->locs = xreallocarray_grow(p->locs, &p->locs_cap, p->n_locs + 1, sizeof(*p->locs));
		p->locs[p->n_locs] = (struct pp_location){ .function_id = function_id(p, &pl),
			.line = pl.line >= 0 ? (int64_t)pl.line + 1 : 0 };
		c->loc_of[func] = (uint32_t)p->n_locs++ | (fi->mapped ? LOC_MAPPED : 0);
	}
	return (uint64_t)(c->loc_of[func] & ~LOC_MAPPED) + 1;
}

void pprof_add_sample(struct pprof *p, const struct functab *ft, const uint32_t *stack,
	size_t depth, int64_t v0, int64_t v1, const struct pprof_label *labels, size_t n_labels)
{
	size_t first = p->n_loc_ids;
	struct pp_sample *s;

	for (size_t i = 0; i < depth; i++) {
		const struct func_info *fi = functab_get(ft, stack[i]);
		if (!fi || fi->kind == FUNC_ROOT)
			continue;
		/* (idle) is the loop waiting: no CPU, as pprof-nodejs leaves it out */
		if (fi->kind == FUNC_IDLE && p->n_loc_ids == first)
			return;
		p->loc_ids = xreallocarray_grow(p->loc_ids, &p->loc_ids_cap, p->n_loc_ids + 1,
			sizeof(*p->loc_ids));
		p->loc_ids[p->n_loc_ids++] = location_id(p, ft, stack[i]);
	}
	if (p->n_loc_ids == first)
		return; /* nothing but the root: no code to charge */
	p->samples = xreallocarray_grow(p->samples, &p->samples_cap, p->n_samples + 1,
		sizeof(*p->samples));
	s = &p->samples[p->n_samples++];
	*s = (struct pp_sample){ .loc_first = first, .n_locs = p->n_loc_ids - first,
		.label_first = p->n_labels, .v = { v0, v1 } };
	for (size_t i = 0; i < n_labels; i++) {
		if (!labels[i].key || !labels[i].str)
			continue;
		p->labels = xreallocarray_grow(p->labels, &p->labels_cap, p->n_labels + 2,
			sizeof(*p->labels));
		p->labels[p->n_labels++] = string_id(p, labels[i].key);
		p->labels[p->n_labels++] = string_id(p, labels[i].str);
		s->n_labels++;
	}
}

/* The protobuf wire format: varints, and length-delimited fields (wire type 2). */

static void put_varint(struct strbuf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	strbuf_append(b, tmp, n);
}

/* A varint field (wire type 0); int64 values go as their two's complement. */
static void put_field(struct strbuf *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	put_varint(b, (uint64_t)field << 3);
	put_varint(b, v);
}

static void put_bytes(struct strbuf *b, unsigned field, const char *data, size_t n)
{
	put_varint(b, ((uint64_t)field << 3) | 2);
	put_varint(b, n);
	if (n)
		strbuf_append(b, data, n);
}

/* A sub-message: msg's bytes as field, then msg is emptied for the next one. */
static void put_message(struct strbuf *b, unsigned field, struct strbuf *msg)
{
	put_bytes(b, field, msg->data, msg->len);
	strbuf_reset(msg);
}

static void put_value_type(struct strbuf *b, unsigned field, const uint32_t type_unit[2],
	struct strbuf *tmp)
{
	put_field(tmp, 1, type_unit[0]);
	put_field(tmp, 2, type_unit[1]);
	put_message(b, field, tmp);
}

void pprof_encode(const struct pprof *p, unsigned char **out, size_t *len)
{
	struct strbuf b, m, packed;

	strbuf_init(&b);
	strbuf_init(&m);
	strbuf_init(&packed);
	put_value_type(&b, 1, p->types[0], &m);
	put_value_type(&b, 1, p->types[1], &m);

	for (size_t i = 0; i < p->n_samples; i++) {
		const struct pp_sample *s = &p->samples[i];
		for (size_t k = 0; k < s->n_locs; k++)
			put_varint(&packed, p->loc_ids[s->loc_first + k]);
		put_message(&m, 1, &packed);
		put_varint(&packed, (uint64_t)s->v[0]);
		put_varint(&packed, (uint64_t)s->v[1]);
		put_message(&m, 2, &packed);
		for (size_t k = 0; k < s->n_labels; k++) {
			put_field(&packed, 1, p->labels[s->label_first + 2 * k]);
			put_field(&packed, 2, p->labels[s->label_first + 2 * k + 1]);
			put_message(&m, 3, &packed);
		}
		put_message(&b, 2, &m);
	}

	/* One mapping whose locations carry their functions, file names and lines: pprof then
	 * symbolizes nothing. */
	put_field(&m, 1, 1);
	put_field(&m, 7, 1);
	put_field(&m, 8, 1);
	put_field(&m, 9, 1);
	put_message(&b, 3, &m);

	for (size_t i = 0; i < p->n_locs; i++) {
		put_field(&m, 1, i + 1);
		put_field(&m, 2, 1);
		put_field(&packed, 1, p->locs[i].function_id);
		put_field(&packed, 2, (uint64_t)p->locs[i].line);
		put_message(&m, 4, &packed);
		put_message(&b, 4, &m);
	}
	for (size_t i = 0; i < p->n_funcs; i++) {
		put_field(&m, 1, i + 1);
		put_field(&m, 2, p->funcs[i].name);
		put_field(&m, 3, p->funcs[i].system_name);
		put_field(&m, 4, p->funcs[i].filename);
		put_field(&m, 5, (uint64_t)p->funcs[i].start_line);
		put_message(&b, 5, &m);
	}

	put_field(&b, 9, (uint64_t)p->time_nanos);
	put_field(&b, 10, (uint64_t)p->duration_nanos);
	put_value_type(&b, 11, p->period_type, &m);
	put_field(&b, 12, (uint64_t)p->period);
	/* the time or the bytes by default, as pprof's own profiles */
	put_field(&b, 14, p->types[1][0]);
	for (size_t i = 0; i < p->n_strings; i++)
		put_bytes(&b, 6, p->strings[i], strlen(p->strings[i]));

	strbuf_free(&m);
	strbuf_free(&packed);
	*len = b.len;
	*out = b.data ? (unsigned char *)b.data : xcalloc(1, 1);
}

int pprof_encode_gzip(const struct pprof *p, unsigned char **out, size_t *len, char **cause)
{
	unsigned char *raw, *gz;
	size_t raw_len;
	uLong bound;
	z_stream zs;
	int zr;

	pprof_encode(p, &raw, &raw_len);
	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip header and trailer rather than zlib's */
	if (raw_len > UINT32_MAX || deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		free(raw);
		*cause = xstrdup("cannot start gzip compression.");
		return -1;
	}
	bound = deflateBound(&zs, (uLong)raw_len);
	gz = xmalloc(bound);
	zs.next_in = raw;
	zs.avail_in = (uInt)raw_len;
	zs.next_out = gz;
	zs.avail_out = (uInt)bound;
	zr = deflate(&zs, Z_FINISH);
	*len = zs.total_out;
	deflateEnd(&zs);
	free(raw);
	if (zr != Z_STREAM_END) {
		free(gz);
		*cause = xasprintf("gzip compression failed (zlib %d).", zr);
		return -1;
	}
	*out = gz;
	return 0;
}

int pprof_save(const struct pprof *p, const char *path, char **cause)
{
	unsigned char *gz;
	size_t n;
	int rc;

	if (pprof_encode_gzip(p, &gz, &n, cause) < 0)
		return -1;
	rc = atomic_file_save(path, gz, n, cause);
	free(gz);
	return rc;
}

bool pprof_path_is_pprof(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return (n > 6 && strcmp(path + n - 6, ".pb.gz") == 0) ||
		(n > 6 && strcmp(path + n - 6, ".pprof") == 0);
}
