/* inlinefix_learn.c: what the repair learns across profiles (inlinefix_priv.h): the calls it
 * saw (calledges.h), whose a line number shared by a caller and a callee of another script was
 * (ownlines.h), from each profile as V8 gave it; and the profiles that came before their
 * scripts were known, held (bounded) until they are. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "calledges.h"
#include "functab.h"
#include "inlinefix_priv.h"
#include "ownlines.h"
#include "util.h"

/* The key of node i's function, or NO_KEY when its script's ranges are not known. */
static uint64_t node_key(const struct repair *r, uint32_t i)
{
	const struct func_info *fi = functab_get(r->ft, r->p->nodes[i].func);
	struct fix_script *s;
	int32_t fn;

	if (fi->kind != FUNC_JS || !fi->url[0] || fi->line < 0 || !(s = fix_find(r->x, fi->url)) ||
	    s->state != S_READY || (fn = fix_own_fn(s, (uint32_t)fi->line + 1, fi->column)) < 0)
		return NO_KEY;
	return fix_key(r->x, s, fn);
}

void fix_node_keys(struct repair *r)
{
	r->key = xmalloc((r->p->n_nodes ? r->p->n_nodes : 1) * sizeof(*r->key));
	for (uint32_t i = 0; i < r->p->n_nodes; i++)
		r->key[i] = node_key(r, i);
}

/* True when a node of the profile is in a script with a file whose ranges are not known yet:
 * its text is loading, or no coverage came yet (a script that a coverage did not name, one
 * loaded since, is not waited for). */
bool fix_names_pending(const struct repair *r)
{
	for (uint32_t i = 0; i < r->p->n_nodes; i++) {
		const struct func_info *fi;
		const struct fix_script *s;
		if (r->key[i] != NO_KEY)
			continue;
		fi = functab_get(r->ft, r->p->nodes[i].func);
		if (fi->kind == FUNC_JS && fix_file_url(fi->url) &&
		    ((!(s = fix_find(r->x, fi->url)) && !r->x->covered) || (s && s->state == S_TEXT)))
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
		sj = fix_key_script(r->x, r->key[j]);
		for (uint32_t k = 0; k < nd->ticks_count; k++) {
			const struct position_tick *pt = &p->ticks[nd->ticks_first + k];
			int32_t up = nd->parent;
			if (fix_innermost(sj, pt->line) < 0)
				continue; /* not a line of this script's functions */
			for (int d = 0; d < FIX_OWN_DEPTH && up >= 0; d++, up = p->nodes[up].parent) {
				struct fix_script *si;
				r->visits++;
				if (r->key[up] == NO_KEY || (si = fix_key_script(r->x, r->key[up])) == sj ||
				    fix_innermost(si, pt->line) != fix_key_fn(r->key[up]))
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

void fix_held_drop(struct inlinefix *x, size_t i)
{
	x->held_nodes -= x->held[i].n_nodes + x->held[i].n_ticks;
	free(x->held[i].nodes);
	free(x->held[i].ticks);
	memmove(&x->held[i], &x->held[i + 1], (x->n_held - i - 1) * sizeof(x->held[0]));
	x->n_held--;
}

/* Keeps p's shape for later; false when there is no room. */
bool fix_hold(struct inlinefix *x, const struct profile *p)
{
	struct held_profile *h;

	if (x->n_held == FIX_HELD_MAX || p->n_nodes + p->n_ticks > FIX_HELD_NODES - x->held_nodes)
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
	x->held_nodes += p->n_nodes + p->n_ticks;
	return true;
}

void fix_learn(struct repair *r)
{
	learn_edges(r);
	learn_own_lines(r);
}

/* Oldest first (the order they came in). */
void fix_learn_held(struct inlinefix *x, struct functab *ft)
{
	for (size_t i = 0; i < x->n_held;) {
		struct held_profile *h = &x->held[i];
		struct profile q = {.nodes = h->nodes, .n_nodes = h->n_nodes, .ticks = h->ticks,
			.n_ticks = h->n_ticks};
		struct repair r = {.x = x, .p = &q, .ft = ft, .reach_for = NO_KEY};
		bool wait;
		fix_node_keys(&r);
		wait = ++h->age <= FIX_HELD_AGE && fix_names_pending(&r);
		if (!wait)
			fix_learn(&r);
		free(r.key);
		if (wait)
			i++;
		else
			fix_held_drop(x, i);
	}
}
