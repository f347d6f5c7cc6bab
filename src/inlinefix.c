/* inlinefix.c: see inlinefix.h. The repair of one profile; the scripts it reads are in
 * inlinefix_scripts.c, what it learns across profiles in inlinefix_learn.c. */
#include "config.h"

#include "inlinefix.h"

#include <stdlib.h>
#include <string.h>

#include "calledges.h"
#include "functab.h"
#include "inlinefix_priv.h"
#include "ownlines.h"
#include "profile.h"
#include "util.h"

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

void inlinefix_free(struct inlinefix *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		fix_script_free(&x->s[i]);
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

/* ---- repair */

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
		fix_own_fn(s, (uint32_t)fi->line + 1, fi->column) == fn;
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
		js = fix_find(r->x, fi->url);
		if (!js || js->state != S_READY)
			continue;
		if (js == s) {
			if (f >= 0 && node_is(r, j, s, f))
				cand_add(c, &n, MAX_CANDS, s, f, j, r);
			continue;
		}
		jf = fix_innermost(js, line);
		if (jf >= 0 && fix_owns_line(js, jf, line))
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
		if (qs == s || qs->state != S_READY || (qf = fix_innermost(qs, line)) < 0 ||
		    !fix_owns_line(qs, qf, line))
			continue;
		if (fix_calls_name(s, me, qs->fns[qf].name_hash))
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
		    fix_calls_name(s, me, c[k].s->fns[c[k].fn].name_hash))
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

	if (fix_calls_name(s, me, s->fns[f].name_hash))
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
		struct fix_script *ks = fix_key_script(r->x, rk[q]);
		int32_t kf = fix_key_fn(rk[q]), jf;
		int k;
		if (ks == s || ks->state != S_READY || (size_t)kf >= ks->n_fns ||
		    (jf = fix_innermost(ks, line)) < 0 || !fix_owns_line(ks, jf, line))
			continue;
		if (jf != kf && !fix_calls_name(ks, kf, ks->fns[jf].name_hash))
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
		if (fix_calls_name(s, me, c[k].s->fns[c[k].fn].name_hash)) {
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
	return dest_for(r, i, fix_fn_func(r->x, c[0].s, c[0].fn, r->ft), c[0].node, plan_first);
}

static uint32_t place_line(struct repair *r, uint32_t i, struct fix_script *s, int32_t me,
	uint32_t line, size_t plan_first)
{
	struct cand c[MAX_CANDS];
	int32_t f = fix_innermost(s, line);
	uint32_t node = NONE;
	struct fix_script *ts = s;
	int32_t tf = -1;

	if (f == me)
		return own_line_dest(r, i, s, me, line, plan_first);
	if (f >= 0 && !fix_owns_line(s, f, line)) {
		if (fix_nested_in(s, f, me))
			return NONE; /* a line of the node's own too: it stays */
		f = -1;      /* shared in this script: perhaps another script's line */
	}
	if (f >= 0 && fix_nested_in(s, f, me)) {
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
	return dest_for(r, i, fix_fn_func(r->x, ts, tf, r->ft), node, plan_first);
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
	s = fix_find(r->x, fi->url);
	if (!s) {
		if (fix_file_url(fi->url))
			r->x->want_coverage = true;
		return;
	}
	if (s->minified)
		st->minified += nd->hit_count;
	if (s->state != S_READY || (me = fix_own_fn(s, (uint32_t)fi->line + 1, fi->column)) < 0)
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

void inlinefix_apply(struct inlinefix *x, struct profile *p, struct functab *ft,
	struct inlinefix_stats *st_out)
{
	struct repair r = {.x = x, .p = p, .ft = ft, .reach_for = NO_KEY};
	struct inlinefix_stats st = {0};
	uint32_t n = (uint32_t)p->n_nodes, *plan_of;

	if (!n)
		return;
	if (x->ft_serial != functab_serial(ft)) { /* another table's indices mean nothing here */
		for (size_t i = 0; i < x->n; i++)
			for (size_t k = 0; k < x->s[i].n_fns; k++)
				x->s[i].fns[k].func = NONE;
		while (x->n_held) /* so do the held profiles' */
			fix_held_drop(x, 0);
		x->ft_serial = functab_serial(ft);
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
	fix_node_keys(&r);
	fix_learn_held(x, ft);
	if (!fix_names_pending(&r) || !fix_hold(x, p))
		fix_learn(&r);
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

