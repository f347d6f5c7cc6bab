/* profile.c: see profile.h.
 *
 * One pass over the JSON text with the pull cursor: node fields, children ids, position
 * ticks, sample ids and deltas go straight into flat arrays (no tree, no per-number
 * allocation); strings without escapes are interned straight from the input buffer. The
 * structure is checked afterwards in O(nodes + samples) with an id -> index hash, and the
 * nodes are laid out in depth-first preorder with an explicit stack, since hostile (and some
 * real) profiles are far deeper than the C stack would allow. */
#include "config.h"

#include "profile.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "jsonpull.h"
#include "util.h"

/* Far above any real profile (a 30 MB one has ~2*10^5 nodes, 45 s at full rate ~3*10^5
 * samples); they keep indices within int32_t and arrays within sane sizes whatever the input
 * claims. */
#define PROFILE_MAX_NODES (1u << 26)
#define PROFILE_MAX_SAMPLES (1u << 28)
#define PROFILE_MAX_TICKS (1u << 28)
#define NONE UINT32_MAX

struct raw_node {
	uint32_t id;
	uint32_t func;
	uint32_t hit_count;
	uint32_t child_first, child_count; /* into child_ids */
	uint32_t ticks_first, ticks_count; /* into ticks */
};

struct parser {
	struct json_reader rd;
	struct functab *ft;
	struct raw_node *nodes;
	size_t n_nodes, nodes_cap;
	uint32_t *child_ids; /* ids while parsing, then file-order indices */
	size_t n_child, child_cap;
	struct position_tick *ticks;
	size_t n_ticks, ticks_cap;
	uint32_t *samples; /* ids while parsing, then preorder indices */
	size_t n_samples, samples_cap;
	int64_t *deltas;
	size_t n_deltas, deltas_cap;
	double start_us, end_us;
	bool has_nodes, has_start, has_end;
	struct json_scratch deopt_buf;
};

enum key {
	K_OTHER, K_ID, K_CALLFRAME, K_HITCOUNT, K_CHILDREN, K_POSITIONTICKS, K_DEOPTREASON,
	K_LINE, K_TICKS, K_NODES, K_SAMPLES, K_TIMEDELTAS, K_STARTTIME, K_ENDTIME,
};

static int key_match_text(const char *s, size_t n)
{
	/* by length first; memcmp with a constant size compiles to a word compare */
#define KM(lit, k) if (memcmp(s, lit, sizeof(lit) - 1) == 0) return k
	switch (n) {
	case 2: KM("id", K_ID); break;
	case 4: KM("line", K_LINE); break;
	case 5: KM("ticks", K_TICKS); KM("nodes", K_NODES); break;
	case 7: KM("samples", K_SAMPLES); KM("endTime", K_ENDTIME); break;
	case 8: KM("hitCount", K_HITCOUNT); KM("children", K_CHILDREN); break;
	case 9: KM("callFrame", K_CALLFRAME); KM("startTime", K_STARTTIME); break;
	case 10: KM("timeDeltas", K_TIMEDELTAS); break;
	case 11: KM("deoptReason", K_DEOPTREASON); break;
	case 13: KM("positionTicks", K_POSITIONTICKS); break;
	}
#undef KM
	return K_OTHER;
}

/* Which known key k (a raw quoted key) is. V8 never escapes keys, so the raw bytes are tried
 * first, and only a key that misses is looked at for escapes. */
static enum key key_match(struct json_span k)
{
	return (enum key)json_key_match(k, key_match_text, K_OTHER);
}

static int parse_children(struct parser *ps, struct raw_node *n)
{
	double d;
	int r;

	if (json_read_array(&ps->rd, "children"))
		return -1;
	n->child_first = (uint32_t)ps->n_child;
	while ((r = json_read_element(&ps->rd)) == 1) {
		if (json_read_int(&ps->rd, 0, UINT32_MAX - 1, &d, "child id"))
			return -1;
		if (ps->n_child >= PROFILE_MAX_NODES)
			return json_reader_fail(&ps->rd, "too many children");
		if (ps->n_child == ps->child_cap)
			ps->child_ids = xreallocarray_grow(ps->child_ids, &ps->child_cap, ps->n_child + 1,
				sizeof(*ps->child_ids));
		ps->child_ids[ps->n_child++] = (uint32_t)d;
	}
	if (r < 0)
		return -1;
	n->child_count = (uint32_t)(ps->n_child - n->child_first);
	return 0;
}

/* One {line, ticks} entry of positionTicks. */
static int parse_position_tick(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	struct json_span k;
	double line = -1, ticks = -1;
	int r;

	if (json_read_object(rd, "positionTicks entry"))
		return -1;
	while ((r = json_read_member(rd, &k)) == 1) {
		enum key key = key_match(k);
		if (key == K_LINE)
			r = json_read_int(rd, 0, UINT32_MAX, &line, "positionTicks.line");
		else if (key == K_TICKS)
			r = json_read_int(rd, 0, UINT32_MAX, &ticks, "positionTicks.ticks");
		else
			r = json_read_skip(rd);
		if (r)
			return -1;
	}
	if (r < 0)
		return -1;
	if (line < 0 || ticks < 0)
		return json_reader_fail(rd, "positionTicks entry without line or ticks");
	if (ps->n_ticks >= PROFILE_MAX_TICKS)
		return json_reader_fail(rd, "too many positionTicks");
	if (ps->n_ticks == ps->ticks_cap)
		ps->ticks = xreallocarray_grow(ps->ticks, &ps->ticks_cap, ps->n_ticks + 1,
			sizeof(*ps->ticks));
	ps->ticks[ps->n_ticks++] = (struct position_tick){(uint32_t)line, (uint32_t)ticks};
	return 0;
}

static int parse_position_ticks(struct parser *ps, struct raw_node *n)
{
	int r;

	if (json_read_array(&ps->rd, "positionTicks"))
		return -1;
	n->ticks_first = (uint32_t)ps->n_ticks;
	while ((r = json_read_element(&ps->rd)) == 1)
		if (parse_position_tick(ps))
			return -1;
	if (r < 0)
		return -1;
	n->ticks_count = (uint32_t)(ps->n_ticks - n->ticks_first);
	return 0;
}

static int parse_node(struct parser *ps)
{
	struct json_reader *rd = &ps->rd;
	struct raw_node n = {.func = NONE};
	struct json_span k, deopt = {0};
	bool has_id = false;
	double d;
	int r;

	if (json_read_object(rd, "node"))
		return -1;
	n.child_first = (uint32_t)ps->n_child;
	n.ticks_first = (uint32_t)ps->n_ticks;
	while ((r = json_read_member(rd, &k)) == 1) {
		switch (key_match(k)) {
		case K_ID:
			if ((r = json_read_int(rd, 0, UINT32_MAX - 1, &d, "node id")) == 0) {
				n.id = (uint32_t)d;
				has_id = true;
			}
			break;
		case K_CALLFRAME:
			r = n.func != NONE ? json_reader_fail(rd, "node with two callFrames") :
				functab_read_call_frame(ps->ft, rd, &n.func);
			break;
		case K_HITCOUNT:
			if ((r = json_read_int(rd, 0, UINT32_MAX, &d, "hitCount")) == 0)
				n.hit_count = (uint32_t)d;
			break;
		case K_CHILDREN:
			r = n.child_count ? json_reader_fail(rd, "node with two children lists") :
				parse_children(ps, &n);
			break;
		case K_POSITIONTICKS:
			r = n.ticks_count ? json_reader_fail(rd, "node with two positionTicks lists") :
				parse_position_ticks(ps, &n);
			break;
		case K_DEOPTREASON:
			r = json_read_string(rd, &deopt, "deoptReason");
			break;
		default:
			r = json_read_skip(rd);
			break;
		}
		if (r)
			return -1;
	}
	if (r < 0)
		return -1;
	if (!has_id)
		return json_reader_fail(rd, "node without an id");
	if (n.func == NONE)
		return json_reader_fail(rd, "node %u without a callFrame", n.id);
	if (deopt.n > 2) {
		const char *s;
		size_t len;
		json_string_text(deopt, &ps->deopt_buf, &s, &len);
		functab_set_deopt(ps->ft, n.func, s, len);
	}
	if (ps->n_nodes >= PROFILE_MAX_NODES)
		return json_reader_fail(rd, "too many nodes");
	if (ps->n_nodes == ps->nodes_cap)
		ps->nodes = xreallocarray_grow(ps->nodes, &ps->nodes_cap, ps->n_nodes + 1,
			sizeof(*ps->nodes));
	ps->nodes[ps->n_nodes++] = n;
	return 0;
}

static int parse_nodes(struct parser *ps)
{
	int r;

	if (ps->has_nodes)
		return json_reader_fail(&ps->rd, "two nodes lists");
	ps->has_nodes = true;
	if (json_read_array(&ps->rd, "nodes"))
		return -1;
	while ((r = json_read_element(&ps->rd)) == 1)
		if (parse_node(ps))
			return -1;
	return r;
}

/* Room for the integer array the cursor has just entered, so that the two biggest arrays of
 * a profile never grow by reallocation (each copy leaves resident pages behind in a process
 * that parses a profile every second). Its length is known when the other one of samples
 * and timeDeltas came first; otherwise "a,b,c" holds at most (bytes + 1) / 2 elements, and
 * the pages for the ones that do not exist are never touched. */
static size_t int_array_bound(struct parser *ps, size_t other_len)
{
	const struct json_pull *jp = &ps->rd.jp;
	const char *end;
	size_t n;

	if (other_len)
		return other_len + 1;
	end = memchr(jp->buf + jp->pos, ']', jp->len - jp->pos);
	n = end ? (size_t)(end - (jp->buf + jp->pos)) / 2 + 1 : 1024;
	return n < PROFILE_MAX_SAMPLES ? n + 1 : PROFILE_MAX_SAMPLES + 1;
}

static int parse_samples(struct parser *ps)
{
	int64_t run[512];
	double d;
	int r;

	if (ps->samples)
		return json_reader_fail(&ps->rd, "two samples lists");
	if (json_read_array(&ps->rd, "samples"))
		return -1;
	ps->samples_cap = int_array_bound(ps, ps->n_deltas);
	ps->samples = xmalloc(ps->samples_cap * sizeof(*ps->samples));
	for (;;) {
		size_t got = json_pull_int_run(&ps->rd.jp, run, sizeof(run) / sizeof(run[0]));
		if (got) {
			if (ps->n_samples + got > PROFILE_MAX_SAMPLES)
				return json_reader_fail(&ps->rd, "too many samples");
			ps->samples = xreallocarray_grow(ps->samples, &ps->samples_cap,
				ps->n_samples + got, sizeof(*ps->samples));
			for (size_t i = 0; i < got; i++) {
				if (run[i] < 0 || run[i] >= (int64_t)UINT32_MAX)
					return json_reader_fail(&ps->rd, "sample id out of range: %lld",
						(long long)run[i]);
				ps->samples[ps->n_samples++] = (uint32_t)run[i];
			}
			continue;
		}
		/* whatever the fast path declined: the end, or an element in another form */
		if ((r = json_read_element(&ps->rd)) <= 0)
			break;
		if (json_read_int(&ps->rd, 0, UINT32_MAX - 1, &d, "sample id"))
			return -1;
		if (ps->n_samples >= PROFILE_MAX_SAMPLES)
			return json_reader_fail(&ps->rd, "too many samples");
		ps->samples = xreallocarray_grow(ps->samples, &ps->samples_cap, ps->n_samples + 1,
			sizeof(*ps->samples));
		ps->samples[ps->n_samples++] = (uint32_t)d;
	}
	return r;
}

/* 2^53 µs is 285 years: a delta beyond that is garbage, and the conversion stays defined */
#define DELTA_MAX_US 9007199254740992.0

static int parse_deltas(struct parser *ps)
{
	double d;
	int r;

	if (ps->deltas)
		return json_reader_fail(&ps->rd, "two timeDeltas lists");
	if (json_read_array(&ps->rd, "timeDeltas"))
		return -1;
	ps->deltas_cap = int_array_bound(ps, ps->n_samples);
	ps->deltas = xmalloc(ps->deltas_cap * sizeof(*ps->deltas));
	for (;;) {
		/* integers of at most 18 digits go straight into the array */
		size_t room = ps->deltas_cap - ps->n_deltas;
		size_t got = json_pull_int_run(&ps->rd.jp, ps->deltas + ps->n_deltas, room);
		if (got) {
			for (size_t i = ps->n_deltas; i < ps->n_deltas + got; i++)
				if (ps->deltas[i] > (int64_t)DELTA_MAX_US || ps->deltas[i] < -(int64_t)DELTA_MAX_US)
					return json_reader_fail(&ps->rd, "timeDeltas entry out of range: %lld",
						(long long)ps->deltas[i]);
			ps->n_deltas += got;
			if (ps->n_deltas > PROFILE_MAX_SAMPLES)
				return json_reader_fail(&ps->rd, "too many timeDeltas");
			if (got == room)
				ps->deltas = xreallocarray_grow(ps->deltas, &ps->deltas_cap,
					ps->n_deltas + 1, sizeof(*ps->deltas));
			continue;
		}
		if ((r = json_read_element(&ps->rd)) <= 0)
			break;
		if (json_read_number(&ps->rd, &d, "timeDeltas entry"))
			return -1;
		if (!(fabs(d) <= DELTA_MAX_US))
			return json_reader_fail(&ps->rd, "timeDeltas entry out of range: %g", d);
		if (ps->n_deltas >= PROFILE_MAX_SAMPLES)
			return json_reader_fail(&ps->rd, "too many timeDeltas");
		ps->deltas = xreallocarray_grow(ps->deltas, &ps->deltas_cap, ps->n_deltas + 1,
			sizeof(*ps->deltas));
		ps->deltas[ps->n_deltas++] = (int64_t)llround(d);
	}
	return r;
}

static int parse_time(struct parser *ps, double *out, bool *has, const char *what)
{
	if (json_read_number(&ps->rd, out, what))
		return -1;
	*has = true;
	return 0;
}

static int parse_top(struct parser *ps)
{
	struct json_span k;
	int r;

	if (json_read_begin(&ps->rd))
		return -1;
	while ((r = json_read_member(&ps->rd, &k)) == 1) {
		enum key key = key_match(k);
		if (key == K_NODES)
			r = parse_nodes(ps);
		else if (key == K_SAMPLES)
			r = parse_samples(ps);
		else if (key == K_TIMEDELTAS)
			r = parse_deltas(ps);
		else if (key == K_STARTTIME)
			r = parse_time(ps, &ps->start_us, &ps->has_start, "startTime");
		else if (key == K_ENDTIME)
			r = parse_time(ps, &ps->end_us, &ps->has_end, "endTime");
		else
			r = json_read_skip(&ps->rd);
		if (r)
			return -1;
	}
	return r < 0 ? -1 : json_read_end(&ps->rd);
}

/* id -> file-order index, open addressing over a power-of-two table. */
struct id_map {
	uint32_t *slot; /* file index, or NONE */
	size_t mask;
};

static inline size_t id_hash(uint32_t id)
{
	return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32);
}

static uint32_t id_map_find(const struct id_map *m, const struct raw_node *nodes, uint32_t id)
{
	size_t i = id_hash(id) & m->mask;

	while (m->slot[i] != NONE) {
		if (nodes[m->slot[i]].id == id)
			return m->slot[i];
		i = (i + 1) & m->mask;
	}
	return NONE;
}

/* Checks the tree and lays it out in preorder into out. */
static int build_tree(struct parser *ps, struct profile *out)
{
	size_t n = ps->n_nodes, cap = 16, k = 0, top = 0, n_roots = 0;
	struct id_map map;
	uint32_t *parent = NULL, *new_index = NULL, *stack = NULL, root = NONE;
	int ret = -1;

	while (cap < 2 * n)
		cap *= 2;
	map.slot = xmalloc(cap * sizeof(*map.slot));
	memset(map.slot, 0xff, cap * sizeof(*map.slot));
	map.mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t s = id_hash(ps->nodes[i].id) & map.mask;
		while (map.slot[s] != NONE) {
			if (ps->nodes[map.slot[s]].id == ps->nodes[i].id) {
				json_reader_fail(&ps->rd, "node id %u appears twice", ps->nodes[i].id);
				goto out;
			}
			s = (s + 1) & map.mask;
		}
		map.slot[s] = (uint32_t)i;
	}

	parent = xmalloc(n * sizeof(*parent));
	memset(parent, 0xff, n * sizeof(*parent));
	for (size_t i = 0; i < n; i++) {
		const struct raw_node *rn = &ps->nodes[i];
		for (uint32_t c = 0; c < rn->child_count; c++) {
			uint32_t *slot = &ps->child_ids[rn->child_first + c];
			uint32_t j = id_map_find(&map, ps->nodes, *slot);
			if (j == NONE) {
				json_reader_fail(&ps->rd, "node %u lists unknown child %u", rn->id, *slot);
				goto out;
			}
			if (parent[j] != NONE) {
				json_reader_fail(&ps->rd, "node %u has two parents (%u and %u)", *slot,
					ps->nodes[parent[j]].id, rn->id);
				goto out;
			}
			parent[j] = (uint32_t)i;
			*slot = j; /* from here on, children are file indices */
		}
	}
	for (size_t i = 0; i < n; i++)
		if (parent[i] == NONE && n_roots++ == 0)
			root = (uint32_t)i;
	if (n_roots != 1) {
		if (n_roots)
			json_reader_fail(&ps->rd, "%zu nodes without a parent (one root expected)", n_roots);
		else
			json_reader_fail(&ps->rd, "no root: every node has a parent");
		goto out;
	}

	/* preorder with an explicit stack; every node is pushed once since it has one parent */
	out->nodes = xmalloc(n * sizeof(*out->nodes));
	new_index = xmalloc(n * sizeof(*new_index));
	stack = xmalloc(n * sizeof(*stack));
	stack[top++] = root;
	while (top) {
		uint32_t i = stack[--top];
		const struct raw_node *rn = &ps->nodes[i];
		new_index[i] = (uint32_t)k;
		out->nodes[k++] = (struct profile_node){
			.func = rn->func,
			.parent = parent[i] == NONE ? -1 : (int32_t)new_index[parent[i]],
			.hit_count = rn->hit_count,
			.ticks_first = rn->ticks_first,
			.ticks_count = rn->ticks_count,
		};
		for (uint32_t c = rn->child_count; c-- > 0;)
			stack[top++] = ps->child_ids[rn->child_first + c];
	}
	if (k != n) {
		json_reader_fail(&ps->rd, "%zu nodes not reachable from the root (a cycle?)", n - k);
		goto out;
	}
	out->n_nodes = n;

	for (size_t s = 0; s < ps->n_samples; s++) {
		uint32_t j = id_map_find(&map, ps->nodes, ps->samples[s]);
		if (j == NONE) {
			json_reader_fail(&ps->rd, "sample %zu refers to unknown node %u", s, ps->samples[s]);
			goto out;
		}
		ps->samples[s] = new_index[j];
	}
	ret = 0;
out:
	free(map.slot);
	free(parent);
	free(new_index);
	free(stack);
	return ret;
}

int profile_parse(const char *json, size_t len, struct functab *ft, struct profile *out,
	char **err)
{
	struct parser ps;

	memset(out, 0, sizeof(*out));
	memset(&ps, 0, sizeof(ps));
	ps.ft = ft;
	json_reader_init(&ps.rd, json, len, "invalid profile");
	if (parse_top(&ps))
		goto bad;
	if (!ps.has_nodes || ps.n_nodes == 0) {
		json_reader_fail(&ps.rd, "no nodes");
		goto bad;
	}
	if (!ps.has_start || !ps.has_end) {
		json_reader_fail(&ps.rd, "startTime or endTime missing");
		goto bad;
	}
	if (ps.n_samples != ps.n_deltas) {
		json_reader_fail(&ps.rd, "%zu samples but %zu timeDeltas", ps.n_samples, ps.n_deltas);
		goto bad;
	}
	if (build_tree(&ps, out))
		goto bad;
	out->ticks = ps.ticks;
	out->n_ticks = ps.n_ticks;
	out->samples = ps.samples;
	out->time_deltas = ps.deltas;
	out->n_samples = ps.n_samples;
	out->start_time_us = ps.start_us;
	out->end_time_us = ps.end_us;
	ps.ticks = NULL;
	ps.samples = NULL;
	ps.deltas = NULL;
	free(ps.nodes);
	free(ps.child_ids);
	free(ps.deopt_buf.buf);
	return 0;
bad:
	profile_release(out);
	free(ps.nodes);
	free(ps.child_ids);
	free(ps.ticks);
	free(ps.samples);
	free(ps.deltas);
	free(ps.deopt_buf.buf);
	if (err)
		*err = ps.rd.err;
	else
		free(ps.rd.err);
	return -1;
}

void profile_release(struct profile *p)
{
	if (!p)
		return;
	free(p->nodes);
	free(p->ticks);
	free(p->samples);
	free(p->time_deltas);
	memset(p, 0, sizeof(*p));
}
