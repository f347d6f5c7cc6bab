/* heapprof.c: see heapprof.h.
 *
 * A sampling heap profile is a tree nested in the JSON itself: each frame of a stack adds an
 * object and a children array, and V8 keeps up to 128 frames, so a real profile nests about
 * 260 levels deep. The pull reader walks it in one pass; its JSON_MAX_DEPTH (512) bounds the
 * tree to 255 levels, twice what V8 sends. The nodes still open are kept on a stack of our
 * own, since a node's bytes are charged to its nearest application ancestor. Heap snapshots
 * are written by heapsnap.c. */
#include "config.h"

#include "heapprof.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "jsonpull.h"
#include "util.h"

#define HEAPPROF_MAX_NODES (1u << 24)
/* No single site holds a petabyte; a total beyond 2^53 bytes loses integer precision. */
#define HEAPPROF_MAX_NODE_BYTES 1125899906842624.0 /* 2^50 */
#define HEAPPROF_MAX_TOTAL_BYTES 9007199254740992.0 /* 2^53 */
#define NONE UINT32_MAX

/* A node whose closing brace has not been read yet. */
struct frame {
	uint32_t func;        /* NONE until the callFrame is read */
	double id;
	double self_bytes;
	bool has_id, has_self, has_children;
	bool in_children;     /* between the '[' and ']' of children */
};

struct site_pair {
	uint32_t func;
	double bytes;
};

struct parser {
	struct json_reader rd;
	struct functab *ft;
	struct frame *stack;
	size_t depth, stack_cap;
	struct site_pair *pairs;
	size_t n_pairs, pairs_cap;
	size_t n_nodes;
	double total_bytes;
	const struct heapprof_visitor *vis; /* NULL: sums only */
	uint32_t *path;                      /* the visitor's stack */
	size_t path_cap;
};

enum key {
	K_OTHER, K_HEAD, K_SAMPLES, K_ID, K_SELFSIZE, K_CALLFRAME, K_CHILDREN, K_SIZE, K_NODEID,
	K_ORDINAL,
};

static int key_match_text(const char *s, size_t n)
{
#define KM(lit, k) if (memcmp(s, lit, sizeof(lit) - 1) == 0) return k
	switch (n) {
	case 2: KM("id", K_ID); break;
	case 4: KM("head", K_HEAD); KM("size", K_SIZE); break;
	case 6: KM("nodeId", K_NODEID); break;
	case 7: KM("samples", K_SAMPLES); KM("ordinal", K_ORDINAL); break;
	case 8: KM("selfSize", K_SELFSIZE); KM("children", K_CHILDREN); break;
	case 9: KM("callFrame", K_CALLFRAME); break;
	}
#undef KM
	return K_OTHER;
}

/* k is a raw quoted key; V8 never escapes keys, but JSON allows it. */
static enum key key_match(struct json_span k)
{
	return (enum key)json_key_match(k, key_match_text, K_OTHER);
}

/* Opens a node object (the head, or a child) at the cursor. */
static int push_node(struct parser *ps, const char *what)
{
	if (json_read_object(&ps->rd, what))
		return -1;
	if (ps->n_nodes >= HEAPPROF_MAX_NODES)
		return json_reader_fail(&ps->rd, "more than %u nodes", HEAPPROF_MAX_NODES);
	ps->n_nodes++;
	if (ps->depth == ps->stack_cap)
		ps->stack = xreallocarray_grow(ps->stack, &ps->stack_cap, ps->depth + 1,
			sizeof(*ps->stack));
	ps->stack[ps->depth++] = (struct frame){.func = NONE};
	return 0;
}

static bool func_is_internal(const struct functab *ft, uint32_t func)
{
	const struct func_info *fi = functab_get(ft, func);

	return !fi || functab_is_internal(fi);
}

/* The function charged with a node's bytes: the node's own, or, when that is Node's or V8's
 * code (Buffer.toString's slice, JSON.parse...), the nearest caller in the application, which
 * is what holds the memory. The node is on top of the stack. */
static uint32_t charge_func(const struct parser *ps, uint32_t func)
{
	size_t d;

	if (!func_is_internal(ps->ft, func))
		return func;
	for (d = ps->depth - 1; d-- > 0;) {
		uint32_t up = ps->stack[d].func;
		if (up != NONE && !func_is_internal(ps->ft, up))
			return up;
	}
	return func;
}

/* The open nodes' functions, the head first; f is on top of the stack. */
static void visit_node(struct parser *ps, const struct frame *f)
{
	if (ps->depth > ps->path_cap)
		ps->path = xreallocarray_grow(ps->path, &ps->path_cap, ps->depth,
			sizeof(*ps->path));
	for (size_t d = 0; d < ps->depth; d++)
		ps->path[d] = ps->stack[d].func;
	ps->vis->node(ps->vis->ud, f->id, ps->path, ps->depth, f->self_bytes);
}

/* The node's closing brace was read: check it and record its bytes. */
static int close_node(struct parser *ps, const struct frame *f)
{
	struct json_reader *rd = &ps->rd;

	if (!f->has_id)
		return json_reader_fail(rd, "node without an id (byte %zu)", rd->jp.pos);
	if (f->func == NONE)
		return json_reader_fail(rd, "node %.17g without a callFrame", f->id);
	if (!f->has_self)
		return json_reader_fail(rd, "node %.17g without a selfSize", f->id);
	ps->total_bytes += f->self_bytes;
	if (ps->total_bytes > HEAPPROF_MAX_TOTAL_BYTES)
		return json_reader_fail(rd, "total selfSize above 2^53 bytes");
	if (f->self_bytes > 0) {
		if (ps->n_pairs == ps->pairs_cap)
			ps->pairs = xreallocarray_grow(ps->pairs, &ps->pairs_cap, ps->n_pairs + 1,
				sizeof(*ps->pairs));
		ps->pairs[ps->n_pairs++] = (struct site_pair){charge_func(ps, f->func),
			f->self_bytes};
		if (ps->vis && ps->vis->node)
			visit_node(ps, f);
	}
	return 0;
}

static int read_self_size(struct json_reader *rd, struct frame *f)
{
	if (f->has_self)
		return json_reader_fail(rd, "node with two selfSizes (byte %zu)", rd->jp.pos);
	if (json_read_number(rd, &f->self_bytes, "selfSize"))
		return -1;
	if (!(f->self_bytes >= 0) || f->self_bytes > HEAPPROF_MAX_NODE_BYTES)
		return json_reader_fail(rd, "selfSize out of range: %.17g", f->self_bytes);
	f->has_self = true;
	return 0;
}

/* One step inside a node's member list: a member, or the closing brace. */
static int node_member(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	struct frame *f = &ps->stack[ps->depth - 1];
	struct json_span k;
	int r = json_read_member(rd, &k);

	if (r <= 0) {
		if (r < 0 || close_node(ps, f))
			return -1;
		ps->depth--;
		return 0;
	}
	switch (key_match(k)) {
	case K_ID:
		if (f->has_id)
			return json_reader_fail(rd, "node with two ids (byte %zu)", rd->jp.pos);
		if (json_read_int(rd, 0, HEAPPROF_MAX_TOTAL_BYTES, &f->id, "node id"))
			return -1;
		f->has_id = true;
		return 0;
	case K_SELFSIZE:
		return read_self_size(rd, f);
	case K_CALLFRAME:
		if (f->func != NONE)
			return json_reader_fail(rd, "node with two callFrames (byte %zu)", rd->jp.pos);
		return functab_read_call_frame(ps->ft, rd, &f->func);
	case K_CHILDREN:
		if (f->has_children)
			return json_reader_fail(rd, "node with two children lists (byte %zu)",
				rd->jp.pos);
		f->has_children = f->in_children = true;
		return json_read_array(rd, "children");
	default:
		return json_read_skip(rd);
	}
}

/* One step inside a children array: the next child (pushed), or the closing bracket. */
static int child_element(struct parser *ps)
{
	int r = json_read_element(&ps->rd);

	if (r == 1)
		return push_node(ps, "child");
	if (r == 0)
		ps->stack[ps->depth - 1].in_children = false;
	return r;
}

static int parse_tree(struct parser *ps)
{
	if (push_node(ps, "node"))
		return -1;
	while (ps->depth) {
		int r = ps->stack[ps->depth - 1].in_children ? child_element(ps) : node_member(ps);
		if (r)
			return -1;
	}
	return 0;
}

/* One {size, nodeId, ordinal} of samples. */
static int parse_sample(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	struct json_span k;
	double d, size = 0, node_id = -1;
	int r;

	if (json_read_object(rd, "sample"))
		return -1;
	while ((r = json_read_member(rd, &k)) == 1) {
		enum key key = key_match(k);
		if (key == K_SIZE || key == K_NODEID || key == K_ORDINAL) {
			if (json_read_number(rd, &d, "sample field"))
				return -1;
			if (!(d >= 0))
				return json_reader_fail(rd, "negative sample field: %.17g", d);
			if (key == K_SIZE)
				size = d;
			else if (key == K_NODEID)
				node_id = d;
		} else if (json_read_skip(rd)) {
			return -1;
		}
	}
	if (r == 0 && node_id >= 0 && ps->vis && ps->vis->sample)
		ps->vis->sample(ps->vis->ud, node_id, size);
	return r;
}

/* samples: not needed for the sums, only checked (and visited). */
static int parse_samples(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	int r;

	if (json_read_array(rd, "samples"))
		return -1;
	while ((r = json_read_element(rd)) == 1)
		if (parse_sample(ps))
			return -1;
	return r;
}

static int parse_top(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	bool has_head = false, has_samples = false;
	struct json_span k;
	int r;

	if (json_read_begin(rd))
		return -1;
	while ((r = json_read_member(rd, &k)) == 1) {
		switch (key_match(k)) {
		case K_HEAD:
			if (has_head)
				return json_reader_fail(rd, "two heads");
			has_head = true;
			r = parse_tree(ps);
			break;
		case K_SAMPLES:
			if (has_samples)
				return json_reader_fail(rd, "two samples lists");
			has_samples = true;
			r = parse_samples(ps);
			break;
		default:
			r = json_read_skip(rd);
			break;
		}
		if (r)
			return -1;
	}
	if (r < 0 || json_read_end(rd))
		return -1;
	if (!has_head)
		return json_reader_fail(rd, "no head (not a SamplingHeapProfile)");
	return 0;
}

static int cmp_pair_func(const void *a, const void *b)
{
	const struct site_pair *x = a, *y = b;
	return (x->func > y->func) - (x->func < y->func);
}

static int cmp_site_live(const void *a, const void *b)
{
	const struct alloc_site *x = a, *y = b;

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	return (x->func > y->func) - (x->func < y->func);
}

static int cmp_site_growth(const void *a, const void *b)
{
	const struct alloc_site *x = a, *y = b;

	if (x->growth_bytes != y->growth_bytes)
		return x->growth_bytes < y->growth_bytes ? 1 : -1;
	return cmp_site_live(a, b);
}

static int cmp_site_func(const void *a, const void *b)
{
	const struct alloc_site *x = a, *y = b;
	return (x->func > y->func) - (x->func < y->func);
}

void alloc_table_init(struct alloc_table *t)
{
	memset(t, 0, sizeof(*t));
}

void alloc_table_free(struct alloc_table *t)
{
	if (!t)
		return;
	free(t->sites);
	memset(t, 0, sizeof(*t));
}

static void table_add(struct alloc_table *t, uint32_t func, double live, double growth)
{
	if (t->n == t->cap)
		t->sites = xreallocarray_grow(t->sites, &t->cap, t->n + 1, sizeof(*t->sites));
	t->sites[t->n++] = (struct alloc_site){func, live, growth};
}

static int parse_with(const char *json, size_t len, struct functab *ft, struct alloc_table *t,
	const struct heapprof_visitor *vis, char **err)
{
	struct parser ps;
	int ret = -1;

	t->n = 0;
	t->total_live_bytes = 0;
	t->time_s = 0;
	memset(&ps, 0, sizeof(ps));
	json_reader_init(&ps.rd, json, len, "invalid heap profile");
	ps.ft = ft;
	ps.vis = vis;
	if (parse_top(&ps))
		goto out;
	/* one site per function: V8 has a node per distinct stack, so a function that
	 * allocates from several callers appears several times */
	if (ps.n_pairs > 1)
		qsort(ps.pairs, ps.n_pairs, sizeof(*ps.pairs), cmp_pair_func);
	for (size_t i = 0; i < ps.n_pairs; i++) {
		if (t->n && t->sites[t->n - 1].func == ps.pairs[i].func)
			t->sites[t->n - 1].live_bytes += ps.pairs[i].bytes;
		else
			table_add(t, ps.pairs[i].func, ps.pairs[i].bytes, 0);
	}
	if (t->n > 1)
		qsort(t->sites, t->n, sizeof(*t->sites), cmp_site_live);
	t->total_live_bytes = ps.total_bytes;
	ret = 0;
out:
	if (ret)
		t->n = 0;
	free(ps.stack);
	free(ps.pairs);
	free(ps.path);
	if (err)
		*err = ps.rd.err;
	else
		free(ps.rd.err);
	return ret;
}

int heapprof_parse(const char *json, size_t len, struct functab *ft, struct alloc_table *t,
	char **err)
{
	return parse_with(json, len, ft, t, NULL, err);
}

int heapprof_walk(const char *json, size_t len, struct functab *ft,
	const struct heapprof_visitor *v, char **err)
{
	struct alloc_table t;
	int rc;

	alloc_table_init(&t);
	rc = parse_with(json, len, ft, &t, v, err);
	alloc_table_free(&t);
	return rc;
}

struct func_index {
	uint32_t func;
	uint32_t index;
};

static int cmp_func_index(const void *a, const void *b)
{
	const struct func_index *x = a, *y = b;

	if (x->func != y->func)
		return (x->func > y->func) - (x->func < y->func);
	return (x->index > y->index) - (x->index < y->index);
}

void alloc_table_diff(struct alloc_table *t, const struct alloc_table *baseline)
{
	struct alloc_site *base;
	struct func_index *order;
	size_t nb = 0, n_old = t->n, i = 0, j = 0;

	for (size_t k = 0; k < n_old; k++)
		t->sites[k].growth_bytes = t->sites[k].live_bytes;
	if (!baseline || baseline->n == 0)
		return;
	/* both sides sorted by function and merged like two sorted lists: O(n log n) */
	base = xmalloc(baseline->n * sizeof(*base));
	memcpy(base, baseline->sites, baseline->n * sizeof(*base));
	qsort(base, baseline->n, sizeof(*base), cmp_site_func);
	for (size_t k = 0; k < baseline->n; k++) {
		if (nb && base[nb - 1].func == base[k].func)
			base[nb - 1].live_bytes += base[k].live_bytes;
		else
			base[nb++] = base[k];
	}
	/* t is sorted by live bytes and must stay so: sort indices, not sites */
	order = xmalloc((n_old ? n_old : 1) * sizeof(*order));
	for (size_t k = 0; k < n_old; k++)
		order[k] = (struct func_index){t->sites[k].func, (uint32_t)k};
	qsort(order, n_old, sizeof(*order), cmp_func_index);
	while (j < nb) {
		if (i < n_old && order[i].func < base[j].func) {
			i++;
		} else if (i < n_old && order[i].func == base[j].func) {
			/* every site of t with this function (one, from heapprof_parse) */
			for (; i < n_old && order[i].func == base[j].func; i++) {
				struct alloc_site *s = &t->sites[order[i].index];
				s->growth_bytes = s->live_bytes - base[j].live_bytes;
			}
			j++;
		} else {
			/* only in the baseline: freed since; live 0 keeps the order by live bytes */
			table_add(t, base[j].func, 0, -base[j].live_bytes);
			j++;
		}
	}
	free(order);
	free(base);
}

void alloc_table_sort_growth(struct alloc_table *t)
{
	if (t->n > 1)
		qsort(t->sites, t->n, sizeof(*t->sites), cmp_site_growth);
}
