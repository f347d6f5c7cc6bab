/* pprof_read.c: see pprof_read.h. perftools.profiles.Profile, as profile.proto defines it:
 * only what a CPU profile's stacks and values need is read, the rest skipped. */
#include "config.h"

#include "pprof_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "functab.h"
#include "profile.h"
#include "u64map.h"
#include "util.h"

#define NONE UINT32_MAX

/* A protobuf message being read. */
struct pb {
	const unsigned char *p, *end;
};

static int pb_varint(struct pb *b, uint64_t *v)
{
	uint64_t r = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		unsigned char c;
		if (b->p >= b->end)
			return -1;
		c = *b->p++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* The next field: its number and wire type; a varint's value in *v, a length-delimited
 * field's payload in *sub. Returns -1 on a malformed message. */
static int pb_field(struct pb *b, uint32_t *num, int *wt, uint64_t *v, struct pb *sub)
{
	uint64_t key;

	if (pb_varint(b, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	*num = (uint32_t)(key >> 3);
	*wt = (int)(key & 7);
	switch (*wt) {
	case 0:
		return pb_varint(b, v);
	case 1:
		if (b->end - b->p < 8)
			return -1;
		b->p += 8;
		return 0;
	case 2:
		if (pb_varint(b, v) || *v > (uint64_t)(b->end - b->p))
			return -1;
		sub->p = b->p;
		sub->end = b->p + *v;
		b->p += *v;
		return 0;
	case 5:
		if (b->end - b->p < 4)
			return -1;
		b->p += 4;
		return 0;
	default:
		return -1;
	}
}

/* Growable arrays of what the message holds, resolved once it is all read. */
struct str { const unsigned char *p; size_t n; };
struct vtype { uint64_t type, unit; };
struct fn { uint64_t id, name, file; int64_t start_line; uint32_t func; };
struct line { uint64_t fn_id; int64_t line; };
struct loc { uint64_t id; size_t first, n; };
struct sample { size_t loc_first, n_locs, val_first, n_vals; };

struct msg {
	struct str *strs; size_t n_strs, cap_strs;
	struct vtype *types; size_t n_types, cap_types;
	struct fn *fns; size_t n_fns, cap_fns;
	struct line *lines; size_t n_lines, cap_lines;
	struct loc *locs; size_t n_locs, cap_locs;
	struct sample *samples; size_t n_samples, cap_samples;
	uint64_t *ids; size_t n_ids, cap_ids;   /* the samples' location ids */
	int64_t *vals; size_t n_vals, cap_vals; /* the samples' values */
	int64_t period;
	size_t items;                           /* pushed so far, all arrays together */
};

#define PUSH(m, arr, n, cap) \
	((m)->items++, (m)->arr = xreallocarray_grow((m)->arr, &(m)->cap, (m)->n + 1, \
	 sizeof(*(m)->arr)), &(m)->arr[(m)->n++])
/* Past PPROF_READ_MAX_ITEMS the message is refused (an empty sample is 2 bytes of input and 32
 * of memory: the inflated size alone does not bound what it asks for). */
#define TOO_MANY(m) ((m)->items > PPROF_READ_MAX_ITEMS)

/* A repeated varint field, packed (wire type 2) or not. */
static int read_repeated(int wt, uint64_t v, struct pb *sub, struct msg *m, bool values)
{
	struct pb q = *sub;

	if (wt == 0) {
		if (values)
			*PUSH(m, vals, n_vals, cap_vals) = (int64_t)v;
		else
			*PUSH(m, ids, n_ids, cap_ids) = v;
		return 0;
	}
	if (wt != 2)
		return -1;
	while (q.p < q.end) {
		uint64_t x;
		if (pb_varint(&q, &x) || TOO_MANY(m))
			return -1;
		if (values)
			*PUSH(m, vals, n_vals, cap_vals) = (int64_t)x;
		else
			*PUSH(m, ids, n_ids, cap_ids) = x;
	}
	return 0;
}

static int read_sample(struct pb b, struct msg *m)
{
	struct sample *s = PUSH(m, samples, n_samples, cap_samples);
	uint32_t num;
	int wt;
	uint64_t v;
	struct pb sub = {0};

	*s = (struct sample){m->n_ids, 0, m->n_vals, 0};
	while (b.p < b.end) {
		if (pb_field(&b, &num, &wt, &v, &sub))
			return -1;
		if ((num == 1 || num == 2) && read_repeated(wt, v, &sub, m, num == 2))
			return -1;
	}
	s = &m->samples[m->n_samples - 1];
	s->n_locs = m->n_ids - s->loc_first;
	s->n_vals = m->n_vals - s->val_first;
	return 0;
}

/* A small message of varint fields: the values of fields 1..n (0 for those absent). */
static int read_varints(struct pb b, uint64_t *out, uint32_t n)
{
	uint32_t num;
	int wt;
	uint64_t v;
	struct pb sub;

	memset(out, 0, n * sizeof(*out));
	while (b.p < b.end) {
		if (pb_field(&b, &num, &wt, &v, &sub))
			return -1;
		if (wt == 0 && num >= 1 && num <= n)
			out[num - 1] = v;
	}
	return 0;
}

static int read_location(struct pb b, struct msg *m)
{
	struct loc *l = PUSH(m, locs, n_locs, cap_locs);
	uint32_t num;
	int wt;
	uint64_t v;
	struct pb sub;

	*l = (struct loc){0, m->n_lines, 0};
	while (b.p < b.end) {
		if (pb_field(&b, &num, &wt, &v, &sub))
			return -1;
		if (num == 1 && wt == 0) {
			m->locs[m->n_locs - 1].id = v;
		} else if (num == 4 && wt == 2) {
			uint64_t f[2];
			if (read_varints(sub, f, 2))
				return -1;
			*PUSH(m, lines, n_lines, cap_lines) = (struct line){f[0], (int64_t)f[1]};
		}
	}
	l = &m->locs[m->n_locs - 1];
	l->n = m->n_lines - l->first;
	return 0;
}

static int read_profile(struct pb b, struct msg *m)
{
	uint32_t num;
	int wt;
	uint64_t v, f[5];
	struct pb sub;

	while (b.p < b.end) {
		if (pb_field(&b, &num, &wt, &v, &sub) || TOO_MANY(m))
			return -1;
		switch (num) {
		case 1: /* sample_type */
			if (wt != 2 || read_varints(sub, f, 2))
				return -1;
			*PUSH(m, types, n_types, cap_types) = (struct vtype){f[0], f[1]};
			break;
		case 2:
			if (wt != 2 || read_sample(sub, m))
				return -1;
			break;
		case 4:
			if (wt != 2 || read_location(sub, m))
				return -1;
			break;
		case 5: /* function: id, name, system_name, filename, start_line */
			if (wt != 2 || read_varints(sub, f, 5))
				return -1;
			*PUSH(m, fns, n_fns, cap_fns) = (struct fn){f[0], f[1], f[3], (int64_t)f[4], NONE};
			break;
		case 6:
			if (wt != 2)
				return -1;
			*PUSH(m, strs, n_strs, cap_strs) = (struct str){sub.p, (size_t)(sub.end - sub.p)};
			break;
		case 12:
			if (wt == 0)
				m->period = (int64_t)v;
			break;
		default:
			break;
		}
	}
	return 0;
}

static void msg_free(struct msg *m)
{
	free(m->strs);
	free(m->types);
	free(m->fns);
	free(m->lines);
	free(m->locs);
	free(m->samples);
	free(m->ids);
	free(m->vals);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_loc(const void *a, const void *b)
{
	const struct loc *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct fn *fn_by_id(struct msg *m, uint64_t id)
{
	struct fn key = {.id = id};

	if (!m->n_fns)
		return NULL;
	return bsearch(&key, m->fns, m->n_fns, sizeof(*m->fns), cmp_fn);
}

static struct loc *loc_by_id(struct msg *m, uint64_t id)
{
	struct loc key = {.id = id};

	if (!m->n_locs)
		return NULL;
	return bsearch(&key, m->locs, m->n_locs, sizeof(*m->locs), cmp_loc);
}

static bool str_is(const struct msg *m, uint64_t i, const char *s)
{
	return i < m->n_strs && m->strs[i].n == strlen(s) && !memcmp(m->strs[i].p, s, m->strs[i].n);
}

/* The value that is CPU time, and the factor that makes it microseconds. */
static size_t value_index(const struct msg *m, double *to_us)
{
	for (size_t i = 0; i < m->n_types; i++)
		if (str_is(m, m->types[i].type, "cpu") || str_is(m, m->types[i].type, "wall") ||
		    str_is(m, m->types[i].unit, "nanoseconds")) {
			*to_us = str_is(m, m->types[i].unit, "microseconds") ? 1 :
				str_is(m, m->types[i].unit, "milliseconds") ? 1e3 :
				str_is(m, m->types[i].unit, "seconds") ? 1e6 : 1e-3;
			return i;
		}
	/* counts: each one a period (in ns), or a millisecond when none is given */
	*to_us = m->period > 0 ? (double)m->period / 1e3 : 1e3;
	return m->n_types ? m->n_types - 1 : 0;
}

/* The function-table index of f (interned once). */
static int fn_func(struct msg *m, struct fn *f, struct functab *ft, uint32_t *out)
{
	if (f->func == NONE) {
		if (f->name >= m->n_strs || f->file >= m->n_strs)
			return -1;
		f->func = functab_intern(ft, (const char *)m->strs[f->name].p, m->strs[f->name].n,
			(const char *)m->strs[f->file].p, m->strs[f->file].n,
			f->start_line > 0 && f->start_line <= INT32_MAX ? (int32_t)(f->start_line - 1) : -1,
			-1);
	}
	*out = f->func;
	return 0;
}

/* The tree: a node per (parent, function), found by (parent + 1) << 32 | func. */
struct tree {
	struct profile *p;
	size_t cap_nodes;
	struct u64map children;
};

static uint32_t tree_child(struct tree *t, uint32_t parent, uint32_t func)
{
	uint32_t *slot = u64map_slot(&t->children, ((uint64_t)parent + 1) << 32 | func);

	if (*slot != U64MAP_NONE)
		return *slot;
	if (t->p->n_nodes >= PPROF_READ_MAX_NODES)
		return NONE;
	t->p->nodes = xreallocarray_grow(t->p->nodes, &t->cap_nodes, t->p->n_nodes + 1,
		sizeof(*t->p->nodes));
	t->p->nodes[t->p->n_nodes] = (struct profile_node){func, (int32_t)parent, 0, 0, 0};
	t->children.n++;
	*slot = (uint32_t)t->p->n_nodes;
	return (uint32_t)t->p->n_nodes++;
}

/* The tree laid out in depth-first preorder, as profile.h promises (insertion order has each
 * parent before its children, but a subtree's nodes apart). */
static void preorder(struct profile *p)
{
	size_t n = p->n_nodes;
	uint32_t *first = xmalloc(n * sizeof(*first)), *next = xmalloc(n * sizeof(*next));
	uint32_t *stack = xmalloc(n * sizeof(*stack)), *to = xmalloc(n * sizeof(*to));
	struct profile_node *nodes = xmalloc(n * sizeof(*nodes));
	size_t top = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		first[i] = NONE;
	for (size_t i = n; i-- > 1;) { /* children in insertion order */
		uint32_t up = (uint32_t)p->nodes[i].parent;
		next[i] = first[up];
		first[up] = (uint32_t)i;
	}
	stack[top++] = 0;
	while (top) {
		uint32_t i = stack[--top], c;
		size_t m = 0, j = 0;
		to[i] = (uint32_t)k;
		nodes[k] = p->nodes[i];
		nodes[k].parent = p->nodes[i].parent < 0 ? -1 : (int32_t)to[p->nodes[i].parent];
		k++;
		for (c = first[i]; c != NONE; c = next[c])
			m++;
		/* the first child on top, so that it comes out first */
		for (c = first[i]; c != NONE; c = next[c], j++)
			stack[top + m - 1 - j] = c;
		top += m;
	}
	for (size_t s = 0; s < p->n_samples; s++)
		p->samples[s] = to[p->samples[s]];
	free(p->nodes);
	p->nodes = nodes;
	free(first);
	free(next);
	free(stack);
	free(to);
}

/* The samples into out's tree. Returns NULL, or why not. */
static const char *build(struct msg *m, struct functab *ft, struct profile *out)
{
	struct tree t = {.p = out};
	size_t vi, cap_s = 0, cap_d = 0;
	double to_us, clock = 0;
	uint32_t *stack = xmalloc(PPROF_READ_MAX_DEPTH * sizeof(*stack));
	const char *why = NULL;
	size_t frames = 0; /* visited in all: the work is bounded, not only each stack's depth */

	if (m->n_fns)
		qsort(m->fns, m->n_fns, sizeof(*m->fns), cmp_fn);
	if (m->n_locs)
		qsort(m->locs, m->n_locs, sizeof(*m->locs), cmp_loc);
	vi = value_index(m, &to_us);
	out->nodes = xmalloc(sizeof(*out->nodes));
	t.cap_nodes = 1;
	out->nodes[0] = (struct profile_node){functab_intern(ft, "(root)", 6, "", 0, -1, -1), -1, 0, 0, 0};
	out->n_nodes = 1;
	for (size_t s = 0; s < m->n_samples && !why; s++) {
		const struct sample *sm = &m->samples[s];
		size_t depth = 0;
		uint32_t node = 0;
		double us;
		if (vi >= sm->n_vals || !sm->n_locs) /* a sample with no stack is no one's time */
			continue;
		us = (double)m->vals[sm->val_first + vi] * to_us;
		if (!(us > 0) || us > PPROF_READ_MAX_SAMPLE_US)
			continue;
		/* root first: the locations from the last, each one's lines from the caller */
		for (size_t i = sm->n_locs; i-- > 0 && !why;) {
			struct loc *l = loc_by_id(m, m->ids[sm->loc_first + i]);
			if (!l) {
				why = "a sample names a location the file does not have";
				break;
			}
			for (size_t j = l->n; j-- > 0;) {
				struct fn *f = fn_by_id(m, m->lines[l->first + j].fn_id);
				if (++frames > PPROF_READ_MAX_FRAMES) {
					why = "its stacks hold more frames than ntop-js reads";
					break;
				}
				if (!f || fn_func(m, f, ft, &stack[depth])) {
					why = "a location names a function or a string the file does not have";
					break;
				}
				/* a frame named (root) is the tree's own root: pprof.c leaves it out too */
				if (functab_get(ft, stack[depth])->kind == FUNC_ROOT)
					continue;
				if (++depth == PPROF_READ_MAX_DEPTH) {
					why = "a sample's stack is deeper than ntop-js reads";
					break;
				}
			}
		}
		if (!why && !depth)
			continue; /* only (root) frames: no one's time */
		for (size_t d = 0; d < depth && !why; d++)
			if ((node = tree_child(&t, node, stack[d])) == NONE)
				why = "the profile has more distinct stacks than ntop-js reads";
		if (why)
			break;
		out->samples = xreallocarray_grow(out->samples, &cap_s, out->n_samples + 1,
			sizeof(*out->samples));
		out->time_deltas = xreallocarray_grow(out->time_deltas, &cap_d, out->n_samples + 1,
			sizeof(*out->time_deltas));
		out->samples[out->n_samples] = node;
		out->time_deltas[out->n_samples++] = (int64_t)(us + 0.5);
		out->nodes[node].hit_count++;
		clock += (double)(int64_t)(us + 0.5);
	}
	if (!why)
		preorder(out);
	out->start_time_us = 0;
	out->end_time_us = clock;
	free(stack);
	u64map_free(&t.children);
	return why;
}

bool pprof_read_is_gzip(const unsigned char *data, size_t len)
{
	return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

/* The gzip stream inflated, up to PPROF_READ_MAX_BYTES. */
static unsigned char *inflate_all(const unsigned char *data, size_t len, size_t *out_len,
	const char **why)
{
	z_stream zs;
	unsigned char *buf = NULL;
	size_t cap = 0;
	int zr = Z_OK;

	memset(&zs, 0, sizeof zs);
	*out_len = 0;
	if (len > UINT32_MAX || inflateInit2(&zs, 15 + 32) != Z_OK) {
		*why = "its gzip stream cannot be read";
		return NULL;
	}
	zs.next_in = (unsigned char *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	while (zr != Z_STREAM_END) {
		if (cap - *out_len < 65536) {
			if (cap >= PPROF_READ_MAX_BYTES) {
				*why = "it inflates to more than 512 MB";
				break;
			}
			cap = cap ? 2 * cap : 1 << 20;
			buf = xrealloc(buf, cap);
		}
		zs.next_out = buf + *out_len;
		zs.avail_out = (uInt)(cap - *out_len);
		zr = inflate(&zs, Z_NO_FLUSH);
		*out_len = cap - zs.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END) {
			*why = "its gzip stream is damaged";
			break;
		}
	}
	inflateEnd(&zs);
	if (zr != Z_STREAM_END) {
		free(buf);
		return NULL;
	}
	return buf;
}

int pprof_read_cpu(const unsigned char *data, size_t len, struct functab *ft, struct profile *out,
	char **err)
{
	struct msg m = {0};
	unsigned char *raw = NULL;
	size_t raw_len = len;
	const char *why = NULL;
	bool not_protobuf = false;

	memset(out, 0, sizeof(*out));
	if (pprof_read_is_gzip(data, len)) {
		if (!(raw = inflate_all(data, len, &raw_len, &why))) {
			*err = xasprintf("not a pprof profile: %s.", why);
			return -1;
		}
		data = raw;
	}
	if (read_profile((struct pb){data, data + raw_len}, &m)) {
		not_protobuf = !TOO_MANY(&m);
		why = not_protobuf ? "not a protobuf message" : "it holds more items than ntop-js reads";
	} else if (!m.n_samples)
		why = "it has no samples";
	else
		why = build(&m, ft, out);
	msg_free(&m);
	free(raw);
	if (why) {
		profile_release(out);
		memset(out, 0, sizeof(*out));
		*err = xasprintf("not a pprof CPU profile: %s.", why);
		return not_protobuf ? -2 : -1;
	}
	return 0;
}
