/* calltree.c: see calltree.h.
 *
 * Nodes live in one array; node 0 is the root. Children are found through an open-addressing
 * hash keyed by (parent, function), because a large application has nodes with thousands of
 * children; they are also chained (first_child/next_sibling, in insertion order) so that the
 * writers can walk the tree in preorder without recursion (JS stacks can be deep).
 *
 * Timeline: kept samples are stored as (node, delta µs) on one continuous clock. A sample's
 * weight (its self time) is its own timeDelta, as in aggregate.c; its delta on the exported
 * timeline is the distance from the previous kept sample, so windows appended one after the
 * other (or with a gap between them) form one timeline whose deltas are never negative.
 *
 * Past max_samples the sample list is dropped and the export carries synthetic samples: each
 * node's self time is rounded to a whole number of equal quanta, q = ceil(total self time /
 * max_samples), and the node gets that many consecutive samples, q µs apart. Tools that
 * weight samples by their deltas (speedscope, VS Code, the DevTools flame chart) and tools
 * that weight them by hitCount (the DevTools tables) then agree on every node's self time to
 * within q/2, at the price of the real timeline. A single sample per node would not do:
 * DevTools gives every hit the same share of the profile's duration. */
#include "config.h"

#include "calltree.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "functab.h"
#include "profile.h"
#include "strbuf.h"
#include "util.h"

#define CT_NONE UINT32_MAX
#define CT_FLUSH_BYTES (64 * 1024)
/* Timestamps are kept within the range where doubles hold exact integers. */
#define CT_TIME_LIMIT_US 9007199254740992.0

struct ct_node {
	uint32_t func;
	uint32_t parent;
	uint32_t first_child, last_child, next_sibling;
	uint32_t ticks_head; /* first of this node's position ticks, chained by ct_tick.next */
	uint64_t self_us;
	uint64_t hits;       /* kept samples at this node */
};

struct ct_tick {
	uint32_t node;
	uint32_t line; /* 1-based */
	uint32_t next;
	uint64_t ticks;
};

/* A merge in progress (calltree_merge_begin): where it stands. */
struct ct_merge {
	const struct profile *p;  /* NULL: none */
	double trim_until_us;
	int phase;                /* MERGE_NODES, MERGE_TICKS, MERGE_SAMPLES */
	size_t i;                 /* the next node or sample of the phase */
	double ts;                /* MERGE_SAMPLES: the clock at sample i */
	uint32_t *kept;           /* kept samples per profile node */
	uint32_t *map;            /* profile node -> tree node (CT_NONE: not needed) */
};

enum { MERGE_NODES, MERGE_TICKS, MERGE_SAMPLES };

struct calltree {
	size_t max_samples;
	struct ct_node *nodes;
	size_t n_nodes, nodes_cap;
	uint32_t *slots; /* (parent, func) -> node; CT_NONE is empty */
	size_t slots_cap;
	struct ct_tick *ticks;
	size_t n_ticks, ticks_cap;
	uint32_t *tick_slots; /* (node, line) -> tick */
	size_t tick_slots_cap;
	uint32_t *sample_node;
	int64_t *sample_delta_us;
	size_t n_stored, samples_cap;
	bool dropped;        /* the cap was passed: export synthetic samples */
	size_t n_merged;     /* every kept sample, stored or not */
	bool have_time;
	int64_t start_us;    /* exported timeline: start, and start + the sum of all deltas */
	int64_t end_us;
	uint64_t total_self_us;
	struct ct_merge merge;
};

static uint64_t key_hash(uint32_t a, uint32_t b)
{
	return util_mix64(((uint64_t)a << 32) | b);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int64_t time_to_i64(double v)
{
	if (!isfinite(v))
		return 0;
	if (v > CT_TIME_LIMIT_US)
		v = CT_TIME_LIMIT_US;
	if (v < -CT_TIME_LIMIT_US)
		v = -CT_TIME_LIMIT_US;
	return (int64_t)llround(v);
}

static uint32_t node_new(struct calltree *t, uint32_t parent, uint32_t func)
{
	uint32_t idx;

	/* Indexes must also fit calltree_node()'s int32_t parent. */
	if (t->n_nodes >= INT32_MAX)
		util_die(1, "call tree full.");
	t->nodes = xreallocarray_grow(t->nodes, &t->nodes_cap, t->n_nodes + 1, sizeof(*t->nodes));
	idx = (uint32_t)t->n_nodes++;
	t->nodes[idx] = (struct ct_node){
		.func = func, .parent = parent, .first_child = CT_NONE, .last_child = CT_NONE,
		.next_sibling = CT_NONE, .ticks_head = CT_NONE,
	};
	if (parent != CT_NONE) {
		struct ct_node *p = &t->nodes[parent];
		if (p->last_child == CT_NONE)
			p->first_child = idx;
		else
			t->nodes[p->last_child].next_sibling = idx;
		p->last_child = idx;
	}
	return idx;
}

static void slots_rebuild(uint32_t **slots, size_t *cap, size_t ncap, size_t n,
	uint64_t (*hash_of)(const struct calltree *, uint32_t), const struct calltree *t)
{
	uint32_t *s = xmalloc(ncap * sizeof(*s));

	memset(s, 0xff, ncap * sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		size_t j = hash_of(t, (uint32_t)i) & (ncap - 1);
		while (s[j] != CT_NONE)
			j = (j + 1) & (ncap - 1);
		s[j] = (uint32_t)i;
	}
	free(*slots);
	*slots = s;
	*cap = ncap;
}

static uint64_t node_hash(const struct calltree *t, uint32_t i)
{
	return key_hash(t->nodes[i].parent, t->nodes[i].func);
}

static uint64_t tick_hash(const struct calltree *t, uint32_t i)
{
	return key_hash(t->ticks[i].node, t->ticks[i].line);
}

/* The child of parent for func, created if new. The root (no parent) is never hashed. */
static uint32_t child_get(struct calltree *t, uint32_t parent, uint32_t func)
{
	size_t j;

	if ((t->n_nodes + 1) * 2 > t->slots_cap)
		slots_rebuild(&t->slots, &t->slots_cap, t->slots_cap ? t->slots_cap * 2 : 1024,
			t->n_nodes, node_hash, t);
	j = key_hash(parent, func) & (t->slots_cap - 1);
	while (t->slots[j] != CT_NONE) {
		const struct ct_node *n = &t->nodes[t->slots[j]];
		if (n->parent == parent && n->func == func)
			return t->slots[j];
		j = (j + 1) & (t->slots_cap - 1);
	}
	t->slots[j] = node_new(t, parent, func);
	return t->slots[j];
}

static void tick_add(struct calltree *t, uint32_t node, uint32_t line, uint64_t ticks)
{
	size_t j;
	uint32_t idx;

	if ((t->n_ticks + 1) * 2 > t->tick_slots_cap)
		slots_rebuild(&t->tick_slots, &t->tick_slots_cap,
			t->tick_slots_cap ? t->tick_slots_cap * 2 : 1024, t->n_ticks, tick_hash, t);
	j = key_hash(node, line) & (t->tick_slots_cap - 1);
	while (t->tick_slots[j] != CT_NONE) {
		struct ct_tick *k = &t->ticks[t->tick_slots[j]];
		if (k->node == node && k->line == line) {
			k->ticks = sat_add(k->ticks, ticks);
			return;
		}
		j = (j + 1) & (t->tick_slots_cap - 1);
	}
	if (t->n_ticks >= CT_NONE - 1)
		return; /* absurdly many distinct lines: drop the detail, keep the tree */
	t->ticks = xreallocarray_grow(t->ticks, &t->ticks_cap, t->n_ticks + 1, sizeof(*t->ticks));
	idx = (uint32_t)t->n_ticks++;
	t->ticks[idx] = (struct ct_tick){ .node = node, .line = line, .next = t->nodes[node].ticks_head,
		.ticks = ticks };
	t->nodes[node].ticks_head = idx;
	t->tick_slots[j] = idx;
}

struct calltree *calltree_create(size_t max_samples)
{
	struct calltree *t = xcalloc(1, sizeof(*t));

	t->max_samples = max_samples;
	calltree_reset(t);
	return t;
}

static void merge_clear(struct ct_merge *m)
{
	free(m->kept);
	free(m->map);
	memset(m, 0, sizeof(*m));
}

/* Everything a tree owns, freed by both calltree_free and calltree_reset. */
static void free_owned(struct calltree *t)
{
	merge_clear(&t->merge);
	free(t->nodes);
	free(t->slots);
	free(t->ticks);
	free(t->tick_slots);
	free(t->sample_node);
	free(t->sample_delta_us);
}

void calltree_free(struct calltree *t)
{
	if (!t)
		return;
	free_owned(t);
	free(t);
}

void calltree_reset(struct calltree *t)
{
	size_t max_samples = t->max_samples;

	free_owned(t);
	memset(t, 0, sizeof(*t));
	t->max_samples = max_samples;
	node_new(t, CT_NONE, CT_NONE); /* the root; its function is learnt from the first profile */
}

size_t calltree_sample_count(const struct calltree *t)
{
	return t->n_merged;
}

size_t calltree_node_count(const struct calltree *t)
{
	return t->n_nodes;
}

void calltree_node(const struct calltree *t, size_t i, uint32_t *func, int32_t *parent,
	double *self_us)
{
	const struct ct_node *n = i < t->n_nodes ? &t->nodes[i] : NULL;

	/* The root's function is UINT32_MAX until a profile has been added. */
	if (func)
		*func = n ? n->func : UINT32_MAX;
	if (parent)
		*parent = n && n->parent != CT_NONE ? (int32_t)n->parent : -1;
	if (self_us)
		*self_us = n ? (double)n->self_us : 0;
}

uint64_t calltree_node_hits(const struct calltree *t, size_t i)
{
	return i < t->n_nodes ? t->nodes[i].hits : 0;
}

double calltree_span_us(const struct calltree *t)
{
	return t->have_time ? (double)(t->end_us - t->start_us) : 0;
}

/* Past max_samples: the export's samples become synthetic (see the top). */
static void timeline_drop(struct calltree *t)
{
	free(t->sample_node);
	free(t->sample_delta_us);
	t->sample_node = NULL;
	t->sample_delta_us = NULL;
	t->n_stored = t->samples_cap = 0;
	t->dropped = true;
}

static void sample_store(struct calltree *t, uint32_t node, int64_t delta_us)
{
	if (t->dropped)
		return;
	if (t->n_stored >= t->max_samples) {
		timeline_drop(t);
		return;
	}
	if (t->n_stored == t->samples_cap) {
		size_t cap = t->samples_cap;
		t->sample_node = xreallocarray_grow(t->sample_node, &cap, t->n_stored + 1,
			sizeof(*t->sample_node));
		t->sample_delta_us = xreallocarray_grow(t->sample_delta_us, &t->samples_cap,
			t->n_stored + 1, sizeof(*t->sample_delta_us));
	}
	t->sample_node[t->n_stored] = node;
	t->sample_delta_us[t->n_stored] = delta_us;
	t->n_stored++;
}

/* Adds node i's positionTicks, scaled down when some of its samples were trimmed (they were
 * counted with the previous window, and the ticks cannot be split by time). */
static void ticks_merge(struct calltree *t, const struct profile *p, size_t i, uint32_t node,
	uint32_t kept)
{
	const struct profile_node *pn = &p->nodes[i];
	double scale = 1.0;

	if (pn->ticks_count == 0 || pn->ticks_first > p->n_ticks ||
	    pn->ticks_count > p->n_ticks - pn->ticks_first)
		return;
	if (pn->hit_count > kept)
		scale = (double)kept / pn->hit_count;
	for (size_t k = pn->ticks_first; k < (size_t)pn->ticks_first + pn->ticks_count; k++) {
		uint64_t v = (uint64_t)llround(p->ticks[k].ticks * scale);
		if (v > 0)
			tick_add(t, node, p->ticks[k].line, v);
	}
}

void calltree_merge_begin(struct calltree *t, const struct profile *p, double trim_until_us)
{
	struct ct_merge *m = &t->merge;
	size_t n;
	uint32_t *kept, *map;
	double ts;

	calltree_merge_finish(t);
	if (!p || p->n_nodes == 0 || !p->nodes || p->n_nodes >= CT_NONE ||
	    (p->n_samples && (!p->samples || !p->time_deltas)))
		return;
	n = p->n_nodes;
	if (t->nodes[0].func == CT_NONE)
		t->nodes[0].func = p->nodes[0].func;

	/* Which profile nodes have kept samples, and which nodes lie above them: two passes over
	 * arrays, cheap next to the hash lookups that the steps do. */
	kept = xcalloc(n, sizeof(*kept));
	ts = p->start_time_us;
	for (size_t i = 0; i < p->n_samples; i++) {
		ts += (double)p->time_deltas[i];
		if (ts <= trim_until_us || p->samples[i] >= n)
			continue;
		if (kept[p->samples[i]] < UINT32_MAX)
			kept[p->samples[i]]++;
	}
	map = xmalloc(n * sizeof(*map));
	for (size_t i = 0; i < n; i++)
		map[i] = kept[i] ? 1 : 0; /* "needed" marks, replaced by node indexes below */
	for (size_t i = n - 1; i > 0; i--) {
		int32_t par = p->nodes[i].parent;
		if (map[i] && par >= 0 && (size_t)par < i)
			map[par] = 1;
	}
	map[0] = 0;
	*m = (struct ct_merge){ .p = p, .trim_until_us = trim_until_us, .phase = MERGE_NODES,
		.i = 1, .kept = kept, .map = map };
}

/* Maps needed profile nodes onto tree nodes, creating them. */
static size_t merge_nodes(struct calltree *t, size_t budget)
{
	struct ct_merge *m = &t->merge;
	const struct profile *p = m->p;
	size_t done = 0;

	for (; m->i < p->n_nodes && done < budget; m->i++, done++) {
		size_t i = m->i;
		int32_t par = p->nodes[i].parent;
		uint32_t parent_node = (par >= 0 && (size_t)par < i && m->map[par] != CT_NONE) ?
			m->map[par] : 0;
		if (!m->map[i]) {
			m->map[i] = CT_NONE;
			continue;
		}
		m->map[i] = child_get(t, parent_node, p->nodes[i].func);
	}
	return done;
}

static size_t merge_ticks(struct calltree *t, size_t budget)
{
	struct ct_merge *m = &t->merge;
	size_t done = 0;

	for (; m->i < m->p->n_nodes && done < budget; m->i++, done++)
		if (m->kept[m->i])
			ticks_merge(t, m->p, m->i, m->map[m->i], m->kept[m->i]);
	return done;
}

static size_t merge_samples(struct calltree *t, size_t budget)
{
	struct ct_merge *m = &t->merge;
	const struct profile *p = m->p;
	size_t n = p->n_nodes, done = 0;

	for (; m->i < p->n_samples && done < budget; m->i++, done++) {
		size_t i = m->i;
		int64_t d = p->time_deltas[i];
		uint64_t weight = d > 0 ? (uint64_t)d : 0;
		int64_t ts_us, step;
		struct ct_node *node;

		m->ts += (double)d;
		if (m->ts <= m->trim_until_us || p->samples[i] >= n)
			continue;
		node = &t->nodes[m->map[p->samples[i]]];
		node->self_us = sat_add(node->self_us, weight);
		node->hits++;
		t->total_self_us = sat_add(t->total_self_us, weight);
		t->n_merged++;
		ts_us = time_to_i64(m->ts);
		if (!t->have_time) {
			t->start_us = ts_us - (int64_t)(weight < (uint64_t)CT_TIME_LIMIT_US ?
				weight : (uint64_t)CT_TIME_LIMIT_US);
			t->end_us = t->start_us;
			t->have_time = true;
		}
		step = ts_us > t->end_us ? ts_us - t->end_us : 0;
		/* a jump of the clock between windows must not make a timeDelta that
		 * profile_parse() refuses */
		if (step > (int64_t)CT_TIME_LIMIT_US)
			step = (int64_t)CT_TIME_LIMIT_US;
		t->end_us += step;
		sample_store(t, m->map[p->samples[i]], step);
	}
	return done;
}

bool calltree_merge_step(struct calltree *t, size_t budget)
{
	struct ct_merge *m = &t->merge;

	while (m->p && budget > 0) {
		size_t done;

		switch (m->phase) {
		case MERGE_NODES:
			done = merge_nodes(t, budget);
			if (m->i >= m->p->n_nodes) {
				m->phase = MERGE_TICKS;
				m->i = 0;
			}
			break;
		case MERGE_TICKS:
			done = merge_ticks(t, budget);
			if (m->i >= m->p->n_nodes) {
				m->phase = MERGE_SAMPLES;
				m->i = 0;
				m->ts = m->p->start_time_us;
			}
			break;
		default:
			done = merge_samples(t, budget);
			if (m->i >= m->p->n_samples)
				merge_clear(m);
			break;
		}
		budget -= done; /* a phase that had nothing left moves on at no cost */
	}
	return !m->p;
}

void calltree_merge_finish(struct calltree *t)
{
	calltree_merge_step(t, SIZE_MAX);
}

bool calltree_merging(const struct calltree *t)
{
	return t->merge.p != NULL;
}

void calltree_add(struct calltree *t, const struct profile *p, double trim_until_us)
{
	calltree_merge_begin(t, p, trim_until_us);
	calltree_merge_finish(t);
}

void calltree_add_tree(struct calltree *t, const struct calltree *src)
{
	uint32_t *map;

	if (!src || src->merge.p || src->n_nodes == 0 || src->nodes[0].func == CT_NONE)
		return;
	calltree_merge_finish(t);
	if (t->nodes[0].func == CT_NONE)
		t->nodes[0].func = src->nodes[0].func;
	/* a parent's index is below its children's (node_new appends), so one pass maps them */
	map = xmalloc(src->n_nodes * sizeof(*map));
	map[0] = 0;
	for (size_t i = 1; i < src->n_nodes; i++) {
		const struct ct_node *n = &src->nodes[i];
		uint32_t parent = n->parent < i ? map[n->parent] : 0;
		struct ct_node *d;

		map[i] = child_get(t, parent, n->func);
		d = &t->nodes[map[i]];
		d->self_us = sat_add(d->self_us, n->self_us);
		d->hits = sat_add(d->hits, n->hits);
	}
	t->nodes[0].self_us = sat_add(t->nodes[0].self_us, src->nodes[0].self_us);
	t->nodes[0].hits = sat_add(t->nodes[0].hits, src->nodes[0].hits);
	for (size_t k = 0; k < src->n_ticks; k++)
		if (src->ticks[k].node < src->n_nodes)
			tick_add(t, map[src->ticks[k].node], src->ticks[k].line, src->ticks[k].ticks);
	t->total_self_us = sat_add(t->total_self_us, src->total_self_us);
	t->n_merged += src->n_merged;
	/* the timeline: src's samples after t's, on the same clock (a gap stays a gap) */
	if (src->have_time) {
		int64_t ts = src->start_us;

		if (!t->have_time) {
			t->start_us = t->end_us = src->start_us;
			t->have_time = true;
		}
		if (src->dropped && !t->dropped)
			timeline_drop(t);
		for (size_t k = 0; k < src->n_stored; k++) {
			int64_t step;

			ts += src->sample_delta_us[k];
			step = ts > t->end_us ? ts - t->end_us : 0;
			/* as in merge_samples: no timeDelta that profile_parse() refuses */
			if (step > (int64_t)CT_TIME_LIMIT_US)
				step = (int64_t)CT_TIME_LIMIT_US;
			t->end_us += step;
			sample_store(t, map[src->sample_node[k]], step);
		}
		if (src->end_us > t->end_us)
			t->end_us = src->end_us;
	}
	free(map);
}

size_t calltree_bytes(const struct calltree *t)
{
	return sizeof(*t) + t->nodes_cap * sizeof(*t->nodes) + t->slots_cap * sizeof(*t->slots) +
		t->ticks_cap * sizeof(*t->ticks) + t->tick_slots_cap * sizeof(*t->tick_slots) +
		t->samples_cap * (sizeof(*t->sample_node) + sizeof(*t->sample_delta_us));
}

/* Preorder successor of node i, or CT_NONE at the end. *depth follows the moves. */
static uint32_t preorder_next(const struct calltree *t, uint32_t i, size_t *depth)
{
	if (t->nodes[i].first_child != CT_NONE) {
		(*depth)++;
		return t->nodes[i].first_child;
	}
	while (i != CT_NONE && t->nodes[i].next_sibling == CT_NONE) {
		i = t->nodes[i].parent;
		if (*depth > 0)
			(*depth)--;
	}
	return i == CT_NONE ? CT_NONE : t->nodes[i].next_sibling;
}

static int flush_out(struct strbuf *sb, FILE *f, bool force)
{
	if (sb->len == 0 || (!force && sb->len < CT_FLUSH_BYTES))
		return 0;
	if (fwrite(sb->data, 1, sb->len, f) != sb->len) {
		strbuf_reset(sb);
		return -1;
	}
	strbuf_reset(sb);
	return 0;
}

/* Synthetic sampling quantum (µs) once the real samples are gone. */
static uint64_t synthetic_quantum(const struct calltree *t)
{
	uint64_t n = t->max_samples ? t->max_samples : 1;
	uint64_t q = t->total_self_us / n + (t->total_self_us % n ? 1 : 0);

	/* hostile timeDeltas can sum past what profile_parse() accepts as one delta */
	if (q > (uint64_t)CT_TIME_LIMIT_US)
		q = (uint64_t)CT_TIME_LIMIT_US;
	return q ? q : 1;
}

static uint64_t synthetic_hits(uint64_t self_us, uint64_t q)
{
	return self_us / q + (self_us % q >= q - self_us % q ? 1 : 0);
}

static void write_call_frame(struct strbuf *sb, const struct calltree *t, uint32_t i,
	const struct functab *ft)
{
	const struct func_info *fi = t->nodes[i].func == CT_NONE ? NULL : functab_get(ft, t->nodes[i].func);
	const char *name = fi ? fi->name : (i == 0 ? "(root)" : "(unknown)");

	strbuf_puts(sb, "\"callFrame\":{\"functionName\":");
	strbuf_json_string(sb, name, strlen(name));
	strbuf_puts(sb, ",\"scriptId\":\"0\",\"url\":");
	strbuf_json_string(sb, fi ? fi->url : "", fi ? strlen(fi->url) : 0);
	strbuf_printf(sb, ",\"lineNumber\":%" PRId32 ",\"columnNumber\":%" PRId32 "}",
		fi ? fi->line : -1, fi ? fi->column : -1);
	if (fi && fi->deopt_reason && fi->deopt_reason[0]) {
		strbuf_puts(sb, ",\"deoptReason\":");
		strbuf_json_string(sb, fi->deopt_reason, strlen(fi->deopt_reason));
	}
}

/* VS Code's profile viewer reads where each node's code came from in a "$vscode" block:
 * {locations: [{callFrame, locations: [{lineNumber, columnNumber (from 1), source: {name,
 * path}}]}]}, a node's locationId indexing it. A location for each source-mapped function
 * (functab_set_origin), in the order first met; loc[func] is its id or CT_NONE. */
static uint32_t *vscode_locations(const struct calltree *t, const struct functab *ft,
	uint32_t **order, uint32_t *n)
{
	size_t nf = functab_count(ft), depth = 0;
	uint32_t *loc = NULL;

	*order = NULL;
	*n = 0;
	for (uint32_t i = 0; i != CT_NONE; i = preorder_next(t, i, &depth)) {
		uint32_t func = t->nodes[i].func;
		const struct func_info *fi = func == CT_NONE || func >= nf ? NULL :
			functab_get(ft, func);

		if (!fi || !fi->mapped)
			continue;
		if (!loc) {
			loc = xmalloc(nf * sizeof *loc);
			for (size_t k = 0; k < nf; k++)
				loc[k] = CT_NONE;
			*order = xmalloc(nf * sizeof **order);
		}
		if (loc[func] == CT_NONE) {
			loc[func] = *n;
			(*order)[(*n)++] = func;
		}
	}
	return loc;
}

static void write_vscode(struct strbuf *sb, const struct functab *ft, const uint32_t *order,
	uint32_t n)
{
	strbuf_puts(sb, ",\"$vscode\":{\"locations\":[");
	for (uint32_t k = 0; k < n; k++) {
		const struct func_info *fi = functab_get(ft, order[k]);
		const char *base = strrchr(fi->orig_url, '/');

		base = base && base[1] ? base + 1 : fi->orig_url;
		strbuf_puts(sb, k ? ",{\"callFrame\":{\"functionName\":" :
			"{\"callFrame\":{\"functionName\":");
		strbuf_json_string(sb, fi->name, strlen(fi->name));
		strbuf_puts(sb, ",\"scriptId\":\"0\",\"url\":");
		strbuf_json_string(sb, fi->url, strlen(fi->url));
		strbuf_printf(sb, ",\"lineNumber\":%" PRId32 ",\"columnNumber\":%" PRId32 "},"
			"\"locations\":[{\"lineNumber\":%" PRId64 ",\"columnNumber\":%" PRId64
			",\"source\":{\"name\":", fi->line, fi->column, (int64_t)fi->orig_line + 1,
			(int64_t)fi->orig_column + 1);
		strbuf_json_string(sb, base, strlen(base));
		strbuf_puts(sb, ",\"path\":");
		strbuf_json_string(sb, fi->orig_url, strlen(fi->orig_url));
		strbuf_puts(sb, ",\"sourceReference\":0}}]}");
	}
	strbuf_puts(sb, "]}");
}

int calltree_write_cpuprofile(const struct calltree *t, const struct functab *ft, FILE *f)
{
	struct strbuf sb;
	uint32_t *ids = xmalloc(t->n_nodes * sizeof(*ids)), *vs_order, n_vs;
	uint32_t *vs_loc = vscode_locations(t, ft, &vs_order, &n_vs);
	uint32_t next_id = 1;
	uint64_t q = t->dropped ? synthetic_quantum(t) : 0;
	int64_t start_us = t->have_time ? t->start_us : 0, end_us = start_us;
	uint64_t span_us = 0; /* the synthetic samples' time, saturated */
	size_t depth = 0;
	bool first = true;
	int rc = 0;

	strbuf_init(&sb);
	for (uint32_t i = 0; i != CT_NONE; i = preorder_next(t, i, &depth))
		ids[i] = next_id++;

	strbuf_puts(&sb, "{\"nodes\":[");
	for (uint32_t i = 0; i != CT_NONE && rc == 0; i = preorder_next(t, i, &depth)) {
		const struct ct_node *n = &t->nodes[i];
		uint64_t hits = t->dropped ? synthetic_hits(n->self_us, q) : n->hits;

		strbuf_printf(&sb, "%s{\"id\":%" PRIu32 ",", i ? "," : "", ids[i]);
		write_call_frame(&sb, t, i, ft);
		if (vs_loc && n->func != CT_NONE && vs_loc[n->func] != CT_NONE)
			strbuf_printf(&sb, ",\"locationId\":%" PRIu32, vs_loc[n->func]);
		strbuf_printf(&sb, ",\"hitCount\":%" PRIu64 ",\"children\":[", hits);
		for (uint32_t c = n->first_child; c != CT_NONE; c = t->nodes[c].next_sibling)
			strbuf_printf(&sb, "%s%" PRIu32, c == n->first_child ? "" : ",", ids[c]);
		strbuf_putc(&sb, ']');
		if (n->ticks_head != CT_NONE) {
			strbuf_puts(&sb, ",\"positionTicks\":[");
			for (uint32_t k = n->ticks_head; k != CT_NONE; k = t->ticks[k].next)
				strbuf_printf(&sb, "%s{\"line\":%" PRIu32 ",\"ticks\":%" PRIu64 "}",
					k == n->ticks_head ? "" : ",", t->ticks[k].line, t->ticks[k].ticks);
			strbuf_putc(&sb, ']');
		}
		strbuf_putc(&sb, '}');
		rc = flush_out(&sb, f, false);
	}

	/* samples, then timeDeltas: two passes over the same sequence */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		strbuf_puts(&sb, pass == 0 ? "],\"samples\":[" : "],\"timeDeltas\":[");
		first = true;
		if (!t->dropped) {
			for (size_t s = 0; s < t->n_stored && rc == 0; s++) {
				if (pass == 0)
					strbuf_printf(&sb, "%s%" PRIu32, first ? "" : ",", ids[t->sample_node[s]]);
				else
					strbuf_printf(&sb, "%s%" PRId64, first ? "" : ",", t->sample_delta_us[s]);
				first = false;
				rc = flush_out(&sb, f, false);
			}
			continue;
		}
		for (uint32_t i = 0; i != CT_NONE && rc == 0; i = preorder_next(t, i, &depth)) {
			uint64_t hits = synthetic_hits(t->nodes[i].self_us, q);
			for (uint64_t h = 0; h < hits && rc == 0; h++) {
				if (pass == 0)
					strbuf_printf(&sb, "%s%" PRIu32, first ? "" : ",", ids[i]);
				else
					strbuf_printf(&sb, "%s%" PRIu64, first ? "" : ",", q);
				first = false;
				rc = flush_out(&sb, f, false);
			}
			if (pass == 1)
				span_us = sat_add(span_us, hits > UINT64_MAX / q ? UINT64_MAX : hits * q);
		}
	}
	/* hostile timeDeltas can add up past int64_t: the end time saturates instead */
	if (t->dropped)
		end_us = start_us +
			(int64_t)(span_us < (UINT64_C(1) << 62) ? span_us : UINT64_C(1) << 62);
	else
		end_us = t->have_time ? t->end_us : start_us;
	strbuf_printf(&sb, "],\"startTime\":%" PRId64 ",\"endTime\":%" PRId64, start_us, end_us);
	if (n_vs)
		write_vscode(&sb, ft, vs_order, n_vs);
	strbuf_puts(&sb, "}\n");
	if (rc == 0)
		rc = flush_out(&sb, f, true);
	if (rc == 0 && (fflush(f) != 0 || ferror(f)))
		rc = -1;
	strbuf_free(&sb);
	free(ids);
	free(vs_loc);
	free(vs_order);
	return rc;
}

/* Appends s for a folded line: ';' separates frames and a newline ends the line, so both
 * (and other control characters) are replaced; invalid UTF-8 becomes '?'. */
static void folded_append(struct strbuf *sb, const char *s)
{
	size_t len = strlen(s), i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = util_utf8_seq(s + i, len - i);
		if (c == ';') {
			strbuf_putc(sb, ',');
			i++;
		} else if (n == 1 && (c < 0x20 || c == 0x7f)) {
			strbuf_putc(sb, ' ');
			i++;
		} else if (n == 0) {
			strbuf_putc(sb, '?');
			i++;
		} else {
			strbuf_append(sb, s + i, n);
			i += n;
		}
	}
}

static void folded_frame(struct strbuf *sb, const struct calltree *t, uint32_t i,
	const struct functab *ft)
{
	const struct func_info *fi = t->nodes[i].func == CT_NONE ? NULL : functab_get(ft, t->nodes[i].func);

	if (!fi) {
		strbuf_puts(sb, i == 0 ? "(root)" : "(unknown)");
		return;
	}
	folded_append(sb, functab_shown_name(fi));
	if (fi->url[0]) {
		strbuf_puts(sb, " (");
		folded_append(sb, util_display_url(functab_shown_url(fi)));
		if (functab_shown_line(fi) >= 0)
			strbuf_printf(sb, ":%" PRId64, (int64_t)functab_shown_line(fi) + 1);
		strbuf_putc(sb, ')');
	}
}

int calltree_write_folded(const struct calltree *t, const struct functab *ft, FILE *f)
{
	return calltree_write_folded_under(t, ft, NULL, f);
}

int calltree_write_folded_under(const struct calltree *t, const struct functab *ft,
	const char *first, FILE *f)
{
	struct strbuf path, out;
	size_t *lens = NULL, lens_cap = 0, depth = 0, base = 0;
	int rc = 0;

	strbuf_init(&path);
	strbuf_init(&out);
	if (first) {
		folded_append(&path, first);
		strbuf_putc(&path, ';');
		base = path.len;
	}
	for (uint32_t i = 0; i != CT_NONE && rc == 0; i = preorder_next(t, i, &depth)) {
		lens = xreallocarray_grow(lens, &lens_cap, depth + 1, sizeof(*lens));
		path.len = depth ? lens[depth - 1] : base;
		if (depth)
			strbuf_putc(&path, ';');
		folded_frame(&path, t, i, ft);
		lens[depth] = path.len;
		if (t->nodes[i].self_us == 0)
			continue;
		strbuf_append(&out, path.data, path.len);
		strbuf_printf(&out, " %" PRIu64 "\n", t->nodes[i].self_us);
		rc = flush_out(&out, f, false);
	}
	if (rc == 0)
		rc = flush_out(&out, f, true);
	if (rc == 0 && (fflush(f) != 0 || ferror(f)))
		rc = -1;
	free(lens);
	strbuf_free(&path);
	strbuf_free(&out);
	return rc;
}

int calltree_save(const struct calltree *t, const struct functab *ft, const char *path,
	bool folded, char **cause)
{
	struct atomic_file *f = atomic_file_open(path, cause);
	FILE *out;

	if (!f)
		return -1;
	out = atomic_file_stream(f);
	/* A failed write stays with the file, and the commit reports it with its reason. */
	if (folded)
		(void)calltree_write_folded(t, ft, out);
	else
		(void)calltree_write_cpuprofile(t, ft, out);
	return atomic_file_commit(f, cause);
}
