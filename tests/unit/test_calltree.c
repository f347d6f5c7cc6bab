/* test_calltree.c: merging windows into one call tree, and the .cpuprofile and folded exports
 * read back and checked. */
#include "config.h"

#include "calltree.h"
#include "export.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aggregate.h"
#include "fixture.h"
#include "functab.h"
#include "profile.h"
#include "tap.h"
#include "util.h"

/* A profile built by hand, in the shape profile_parse() produces. */
struct mkprof {
	struct profile p;
	struct profile_node nodes[32];
	struct position_tick ticks[16];
	uint32_t samples[64];
	int64_t deltas[64];
};

static void mk_init(struct mkprof *m, double start_us)
{
	memset(m, 0, sizeof(*m));
	m->p.nodes = m->nodes;
	m->p.ticks = m->ticks;
	m->p.samples = m->samples;
	m->p.time_deltas = m->deltas;
	m->p.start_time_us = start_us;
	m->p.end_time_us = start_us;
}

static uint32_t mk_node(struct mkprof *m, uint32_t func, int32_t parent)
{
	uint32_t i = (uint32_t)m->p.n_nodes++;
	m->nodes[i] = (struct profile_node){ .func = func, .parent = parent };
	return i;
}

static void mk_tick(struct mkprof *m, uint32_t node, uint32_t line, uint32_t ticks)
{
	struct profile_node *n = &m->nodes[node];
	if (n->ticks_count == 0)
		n->ticks_first = (uint32_t)m->p.n_ticks;
	m->ticks[m->p.n_ticks++] = (struct position_tick){ .line = line, .ticks = ticks };
	n->ticks_count++;
}

static void mk_sample(struct mkprof *m, uint32_t node, int64_t delta_us)
{
	m->samples[m->p.n_samples] = node;
	m->deltas[m->p.n_samples++] = delta_us;
	m->nodes[node].hit_count++;
	m->p.end_time_us += (double)delta_us;
}

static char *write_to_string(const struct calltree *t, const struct functab *ft, bool folded)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = folded ? calltree_write_folded(t, ft, f) : calltree_write_cpuprofile(t, ft, f);
	fclose(f);
	if (rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* What a .cpuprofile export says, once checked for consistency. */
struct export_info {
	int n_nodes, n_samples;
	double start, end, sum_deltas;
	cJSON *root;
};

/* The checks tests/check-cpuprofile.js makes, in C. Returns NULL or what is wrong. */
static const char *export_check(const char *text, struct export_info *ei)
{
	const cJSON *nodes, *samples, *deltas, *n, *s;
	int i, *parents, *hits, max_id = 0;
	const char *err = NULL;

	memset(ei, 0, sizeof(*ei));
	ei->root = cJSON_Parse(text);
	if (!ei->root)
		return "not JSON";
	nodes = cJSON_GetObjectItemCaseSensitive(ei->root, "nodes");
	samples = cJSON_GetObjectItemCaseSensitive(ei->root, "samples");
	deltas = cJSON_GetObjectItemCaseSensitive(ei->root, "timeDeltas");
	if (!cJSON_IsArray(nodes) || !cJSON_IsArray(samples) || !cJSON_IsArray(deltas))
		return "nodes, samples or timeDeltas missing";
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ei->root, "startTime")) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ei->root, "endTime")))
		return "startTime or endTime missing";
	ei->start = cJSON_GetObjectItemCaseSensitive(ei->root, "startTime")->valuedouble;
	ei->end = cJSON_GetObjectItemCaseSensitive(ei->root, "endTime")->valuedouble;
	ei->n_nodes = cJSON_GetArraySize(nodes);
	ei->n_samples = cJSON_GetArraySize(samples);
	if (ei->n_samples != cJSON_GetArraySize(deltas))
		return "samples and timeDeltas differ in length";
	/* ids must be exactly 1..N in order for this writer, which makes indexing easy */
	i = 0;
	cJSON_ArrayForEach(n, nodes) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
		const cJSON *cf = cJSON_GetObjectItemCaseSensitive(n, "callFrame");
		if (!cJSON_IsNumber(id) || id->valueint != ++i)
			return "ids are not 1..N";
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cf, "functionName")) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cf, "url")) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cf, "scriptId")) ||
		    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "lineNumber")) ||
		    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "columnNumber")))
			return "incomplete callFrame";
		max_id = i;
	}
	if (max_id == 0)
		return "no nodes";
	if (strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(nodes, 0), "callFrame"), "functionName")->valuestring, "(root)") != 0)
		return "nodes[0] is not (root)";
	parents = calloc((size_t)max_id + 1, sizeof(int));
	hits = calloc((size_t)max_id + 1, sizeof(int));
	cJSON_ArrayForEach(n, nodes) {
		int id = cJSON_GetObjectItemCaseSensitive(n, "id")->valueint;
		const cJSON *children = cJSON_GetObjectItemCaseSensitive(n, "children");
		const cJSON *c;
		if (!cJSON_IsArray(children)) {
			err = "children missing";
			goto out;
		}
		cJSON_ArrayForEach(c, children) {
			if (!cJSON_IsNumber(c) || c->valueint < 1 || c->valueint > max_id) {
				err = "child id does not exist";
				goto out;
			}
			if (parents[c->valueint] || c->valueint == 1) {
				err = "a node has two parents, or the root has one";
				goto out;
			}
			if (c->valueint <= id) {
				err = "child listed before its parent (not preorder)";
				goto out;
			}
			parents[c->valueint] = id;
		}
	}
	for (i = 2; i <= max_id; i++)
		if (!parents[i]) {
			err = "a second root";
			goto out;
		}
	cJSON_ArrayForEach(s, samples) {
		if (!cJSON_IsNumber(s) || s->valueint < 1 || s->valueint > max_id) {
			err = "sample is not a node id";
			goto out;
		}
		hits[s->valueint]++;
	}
	cJSON_ArrayForEach(s, deltas) {
		if (!cJSON_IsNumber(s) || s->valuedouble < 0) {
			err = "negative or missing delta";
			goto out;
		}
		ei->sum_deltas += s->valuedouble;
	}
	cJSON_ArrayForEach(n, nodes) {
		int id = cJSON_GetObjectItemCaseSensitive(n, "id")->valueint;
		const cJSON *hc = cJSON_GetObjectItemCaseSensitive(n, "hitCount");
		if (!cJSON_IsNumber(hc) || hc->valueint != hits[id]) {
			err = "hitCount differs from the samples at the node";
			goto out;
		}
	}
	if (ei->end != ei->start + ei->sum_deltas)
		err = "endTime is not startTime + sum(timeDeltas)";
out:
	free(parents);
	free(hits);
	return err;
}

static int sample_node_at(const struct export_info *ei, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ei->root, "samples"), i)->valueint;
}

static double delta_at(const struct export_info *ei, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ei->root, "timeDeltas"), i)->valuedouble;
}

static const char *name_of(const struct export_info *ei, int id)
{
	/* ids are 1..N in order (export_check checks it) */
	const cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ei->root, "nodes"), id - 1);
	return n ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "callFrame"),
		"functionName")->valuestring : NULL;
}

/* Self time of the nodes called name, from the export's samples weighted by their deltas. */
static double self_of(const struct export_info *ei, const char *name)
{
	double sum = 0;
	for (int i = 0; i < ei->n_samples; i++) {
		const char *nm = name_of(ei, sample_node_at(ei, i));
		if (nm && strcmp(nm, name) == 0)
			sum += delta_at(ei, i);
	}
	return sum;
}

/* Sums the counts of folded lines; checks each line is "stack count". Returns -1 if malformed. */
static long long folded_sum(const char *text, int *lines)
{
	long long sum = 0;
	*lines = 0;
	while (*text) {
		const char *nl = strchr(text, '\n');
		const char *sp;
		char *end;
		long long v;
		if (!nl)
			return -1;
		for (sp = nl; sp > text && *sp != ' '; sp--)
			;
		if (sp == text)
			return -1;
		v = strtoll(sp + 1, &end, 10);
		if (end != nl || v <= 0)
			return -1;
		sum += v;
		(*lines)++;
		text = nl + 1;
	}
	return sum;
}

struct funcs {
	uint32_t root, main, foo, bar, idle, f, odd;
};

static void funcs_init(struct functab *ft, struct funcs *fn)
{
	fn->root = functab_intern(ft, "(root)", 6, "", 0, -1, -1);
	fn->main = functab_intern(ft, "main", 4, "file:///srv/app.js", 18, 0, 0);
	fn->foo = functab_intern(ft, "foo", 3, "file:///srv/app.js", 18, 9, 12);
	fn->bar = functab_intern(ft, "", 0, "file:///srv/app.js", 18, 19, 2);
	fn->idle = functab_intern(ft, "(idle)", 6, "", 0, -1, -1);
	fn->f = functab_intern(ft, "f", 1, "file:///srv/rec.js", 18, 0, 10);
	fn->odd = functab_intern(ft, "a;b\nc\xff\x1b[2J", 10, "file:///x;y.js", 14, 2, 0);
}

static void test_merge_windows(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w1, w2, w3;
	struct calltree *t = calltree_create(1000);
	struct export_info ei;
	const char *err;
	char *text;
	int lines;
	uint32_t root, main, foo, bar, idle;

	/* Window 1: samples at 1100, 1200 (foo), 1300 (idle), 1350 (main). */
	mk_init(&w1, 1000);
	root = mk_node(&w1, fn->root, -1);
	main = mk_node(&w1, fn->main, (int32_t)root);
	foo = mk_node(&w1, fn->foo, (int32_t)main);
	idle = mk_node(&w1, fn->idle, (int32_t)root);
	mk_sample(&w1, foo, 100);
	mk_sample(&w1, foo, 100);
	mk_sample(&w1, idle, 100);
	mk_sample(&w1, main, 50);
	mk_tick(&w1, foo, 10, 2);
	calltree_add(t, &w1.p, -INFINITY);
	is_int(calltree_sample_count(t), 4, "window 1: four samples merged");

	/* Window 2 started at 1250, before window 1 ended: its first two samples are the same
	 * as window 1's last two and must be trimmed. Its nodes come in another order. */
	mk_init(&w2, 1250);
	root = mk_node(&w2, fn->root, -1);
	idle = mk_node(&w2, fn->idle, (int32_t)root);
	main = mk_node(&w2, fn->main, (int32_t)root);
	bar = mk_node(&w2, fn->bar, (int32_t)main);
	foo = mk_node(&w2, fn->foo, (int32_t)main);
	mk_sample(&w2, idle, 50);   /* 1300, trimmed */
	mk_sample(&w2, main, 50);   /* 1350, trimmed */
	mk_sample(&w2, bar, 100);   /* 1450 */
	mk_sample(&w2, foo, 200);   /* 1650 */
	mk_sample(&w2, foo, 0);     /* 1650: same instant, weight 0 */
	mk_tick(&w2, foo, 10, 4);   /* foo's 2 hits all kept: 4 ticks */
	mk_tick(&w2, main, 1, 3);   /* main's only hit trimmed: ticks dropped */
	calltree_add(t, &w2.p, 1350);
	is_int(calltree_sample_count(t), 7, "window 2: overlap trimmed, three samples added");

	{
		size_t nn = calltree_node_count(t), parents_ok = 1;
		double sum = 0, self;
		uint32_t func, pfunc = 0;
		int32_t parent;
		calltree_node(t, 0, &func, &parent, &self);
		ok(func == fn->root && parent == -1, "node 0 is the root");
		for (size_t i = 0; i < nn; i++) {
			calltree_node(t, i, &func, &parent, &self);
			sum += self;
			if (i > 0 && (parent < 0 || (size_t)parent >= i))
				parents_ok = 0;
			if (func == fn->foo) {
				is_num(self, 400, 0, "node read access: foo's self time");
				calltree_node(t, (size_t)parent, &pfunc, NULL, NULL);
			}
		}
		is_int(nn, 5, "five nodes");
		ok(parents_ok, "every parent index is below its child's");
		is_int(pfunc, fn->main, "foo's parent is main");
		is_num(sum, 650, 0, "node self times add up to the sampled time");
		calltree_node(t, nn, &func, &parent, &self);
		ok(func == UINT32_MAX && parent == -1 && self == 0, "out-of-range node reads as empty");
	}

	text = write_to_string(t, ft, false);
	ok(text != NULL, "cpuprofile written");
	err = export_check(text, &ei);
	ok(err == NULL, "merged export is consistent (%s)", err ? err : "ok");
	is_int(ei.n_nodes, 5, "nodes: root, main, foo, (anonymous), idle (main/foo merged)");
	is_int(ei.n_samples, 7, "seven samples exported");
	is_num(ei.start, 1000, 0, "startTime is the first sample minus its delta");
	is_num(ei.end, 1650, 0, "endTime is the last sample");
	is_num(delta_at(&ei, 4), 100, 0, "first sample of window 2 is relative to the last of window 1");
	is_num(self_of(&ei, "foo"), 400, 0, "foo self time across both windows");
	is_num(self_of(&ei, "main"), 50, 0, "main counted once despite the overlap");
	is_num(self_of(&ei, ""), 100, 0, "anonymous function kept with an empty name");
	ok(strstr(text, "\"positionTicks\":[{\"line\":10,\"ticks\":6}]") != NULL,
		"foo's position ticks summed over windows");
	ok(strstr(text, "{\"line\":1,") == NULL, "ticks of trimmed samples dropped");
	ok(strstr(text, "\"url\":\"file:///srv/app.js\",\"lineNumber\":9,\"columnNumber\":12") != NULL,
		"callFrame keeps V8's url and 0-based position");
	cJSON_Delete(ei.root);
	free(text);

	text = write_to_string(t, ft, true);
	ok(text != NULL, "folded written");
	is_int(folded_sum(text, &lines), 650, "folded lines sum to the total self time");
	is_int(lines, 4, "one line per node with self time");
	ok(strstr(text, "(root);main (/srv/app.js:1);foo (/srv/app.js:10) 400\n") != NULL,
		"folded frame: name (path:1-based line)");
	ok(strstr(text, "(root);main (/srv/app.js:1);(anonymous) (/srv/app.js:20) 100\n") != NULL,
		"folded: anonymous function named");
	ok(strstr(text, "(root);(idle) 100\n") != NULL, "folded: special node without location");
	free(text);

	/* Window 3 starts after a gap (a recycled profiler): the timeline stays continuous and
	 * never goes back; a negative delta weighs nothing. */
	mk_init(&w3, 5000);
	root = mk_node(&w3, fn->root, -1);
	main = mk_node(&w3, fn->main, (int32_t)root);
	mk_sample(&w3, main, 100);  /* 5100 */
	mk_sample(&w3, main, -40);  /* 5060: out of order */
	mk_sample(&w3, main, 60);   /* 5120 */
	calltree_add(t, &w3.p, 1650);
	text = write_to_string(t, ft, false);
	err = export_check(text, &ei);
	ok(err == NULL, "export after a gap is consistent (%s)", err ? err : "ok");
	is_num(delta_at(&ei, 7), 5100 - 1650, 0, "gap kept on the timeline");
	is_num(delta_at(&ei, 8), 0, 0, "backwards step exported as 0");
	is_num(delta_at(&ei, 9), 20, 0, "timeline resumes at the real time");
	is_num(ei.end, 5120, 0, "endTime follows the last sample");
	cJSON_Delete(ei.root);
	free(text);
	text = write_to_string(t, ft, true);
	is_int(folded_sum(text, &lines), 650 + 160, "folded self time uses the samples' own deltas");
	free(text);

	calltree_reset(t);
	is_int(calltree_sample_count(t), 0, "reset empties the tree");
	text = write_to_string(t, ft, false);
	err = export_check(text, &ei);
	ok(err == NULL && ei.n_nodes == 1 && ei.n_samples == 0, "empty tree exports a valid profile (%s)",
		err ? err : "ok");
	cJSON_Delete(ei.root);
	free(text);
	calltree_free(t);
}

static void test_recursion(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(100);
	struct export_info ei;
	const char *err;
	char *text;
	int lines;
	uint32_t n;

	mk_init(&w, 0);
	n = mk_node(&w, fn->root, -1);
	for (int d = 0; d < 3; d++)
		n = mk_node(&w, fn->f, (int32_t)n);
	mk_sample(&w, n, 300);
	mk_sample(&w, 2, 100);
	calltree_add(t, &w.p, -INFINITY);
	calltree_add(t, &w.p, -INFINITY); /* the same window again merges into the same nodes */
	text = write_to_string(t, ft, false);
	err = export_check(text, &ei);
	ok(err == NULL, "recursive export is consistent (%s)", err ? err : "ok");
	is_int(ei.n_nodes, 4, "recursion gives a chain: root, f, f, f");
	ok(strstr(text, "\"id\":2,") && strstr(text, "\"children\":[3]") && strstr(text, "\"children\":[4]"),
		"each f is the child of the previous one");
	cJSON_Delete(ei.root);
	free(text);
	text = write_to_string(t, ft, true);
	ok(strcmp(text, "(root);f (/srv/rec.js:1);f (/srv/rec.js:1) 200\n"
		"(root);f (/srv/rec.js:1);f (/srv/rec.js:1);f (/srv/rec.js:1) 600\n") == 0,
		"folded recursion, one line per stack, in preorder");
	is_int(folded_sum(text, &lines), 800, "recursive self time counted once per sample");
	free(text);
	calltree_free(t);
}

static void test_cap(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(4);
	struct export_info ei;
	const char *err;
	char *text;
	int lines;
	uint32_t root, main, foo, bar;

	mk_init(&w, 10000);
	root = mk_node(&w, fn->root, -1);
	main = mk_node(&w, fn->main, (int32_t)root);
	foo = mk_node(&w, fn->foo, (int32_t)main);
	bar = mk_node(&w, fn->bar, (int32_t)main);
	for (int i = 0; i < 6; i++)
		mk_sample(&w, foo, 100); /* foo 600 */
	for (int i = 0; i < 3; i++)
		mk_sample(&w, bar, 100); /* bar 300 */
	mk_sample(&w, main, 100);   /* main 100 */
	calltree_add(t, &w.p, -INFINITY);
	is_int(calltree_sample_count(t), 10, "all samples merged past the cap");
	text = write_to_string(t, ft, false);
	err = export_check(text, &ei);
	ok(err == NULL, "synthetic export is consistent (%s)", err ? err : "ok");
	/* total 1000 us over at most 4 samples: quantum 250; foo 2.4 -> 2, bar 1.2 -> 1, main 0.4 -> 0 */
	is_int(ei.n_samples, 3, "synthetic samples: self time in 250 us quanta");
	is_num(self_of(&ei, "foo"), 600, 125, "foo's synthetic self time within half a quantum");
	is_num(self_of(&ei, ""), 300, 125, "bar's synthetic self time within half a quantum");
	ok(ei.n_samples > 0 && delta_at(&ei, 0) == 250, "synthetic samples evenly spaced");
	is_num(ei.start, 10000, 0, "synthetic export keeps the real start");
	cJSON_Delete(ei.root);
	free(text);
	text = write_to_string(t, ft, true);
	is_int(folded_sum(text, &lines), 1000, "folded output keeps exact self times past the cap");
	free(text);
	calltree_free(t);
}

static void test_hostile(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(100);
	struct export_info ei;
	const char *err;
	char *text;
	uint32_t root, a;

	mk_init(&w, 0);
	root = mk_node(&w, fn->root, -1);
	a = mk_node(&w, fn->odd, (int32_t)root);
	mk_node(&w, 99999, 7);              /* unknown function, forward parent */
	mk_sample(&w, a, 10);
	mk_sample(&w, 2, 10);
	w.samples[w.p.n_samples] = 77;      /* no such node */
	w.deltas[w.p.n_samples++] = 10;
	w.nodes[a].ticks_first = 1000;      /* ticks out of range */
	w.nodes[a].ticks_count = 5;
	calltree_add(t, &w.p, -INFINITY);
	is_int(calltree_sample_count(t), 2, "sample of an unknown node skipped");
	text = write_to_string(t, ft, false);
	err = export_check(text, &ei);
	ok(err == NULL, "hostile names and structure still export valid JSON (%s)", err ? err : "ok");
	ok(ei.n_nodes == 3 && name_of(&ei, 2) && strcmp(name_of(&ei, 2), "a;b\nc\xef\xbf\xbd\x1b[2J") == 0,
		"names survive JSON escaping (invalid byte as U+FFFD)");
	cJSON_Delete(ei.root);
	free(text);
	text = write_to_string(t, ft, true);
	ok(strstr(text, "(root);a,b c? [2J (/x,y.js:3) 10\n") != NULL,
		"folded: ';' and control characters replaced");
	ok(strstr(text, "(root);(unknown) 10\n") != NULL, "folded: unknown function named");
	free(text);
	calltree_free(t);
}

/* Found by fuzz/fuzz_profile: timeDeltas each within what profile_parse() accepts (2^53 µs)
 * summed to a synthetic quantum above that, and a jump of the clock between two windows made
 * one step above it: the export then held a timeDelta that profile_parse() refuses. */
static void test_huge_deltas(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(8), *t2 = calltree_create(1000);
	struct functab *ft2 = functab_create();
	struct profile p;
	char *text, *err = NULL;
	uint32_t root, a;

	mk_init(&w, 0);
	root = mk_node(&w, fn->root, -1);
	a = mk_node(&w, fn->main, (int32_t)root);
	for (int i = 0; i < 9; i++)
		mk_sample(&w, a, INT64_C(9007199254740992));
	calltree_add(t, &w.p, -INFINITY);
	text = write_to_string(t, ft, false);
	ok(profile_parse(text, strlen(text), ft2, &p, &err) == 0,
		"synthetic samples of huge timeDeltas read back (%s)", err ? err : "ok");
	profile_release(&p);
	free(err);
	err = NULL;
	free(text);

	mk_init(&w, -1e300);
	root = mk_node(&w, fn->root, -1);
	a = mk_node(&w, fn->main, (int32_t)root);
	mk_sample(&w, a, 10);
	calltree_add(t2, &w.p, -INFINITY);
	w.p.start_time_us = 1e300;
	calltree_add(t2, &w.p, -INFINITY);
	is_int(calltree_sample_count(t2), 2, "both windows merged");
	text = write_to_string(t2, ft, false);
	ok(profile_parse(text, strlen(text), ft2, &p, &err) == 0,
		"a jump of the clock between windows reads back (%s)", err ? err : "ok");
	profile_release(&p);
	free(err);
	free(text);
	/* and a sum past INT64_MAX made the synthetic end time wrap to a negative number (or,
	 * spread over several nodes, overflow: UBSan) */
	mk_init(&w, 0);
	root = mk_node(&w, fn->root, -1);
	a = mk_node(&w, fn->main, (int32_t)root);
	for (int i = 0; i < 64; i++)
		mk_sample(&w, a, INT64_C(9007199254740992));
	for (int i = 0; i < 20; i++)
		calltree_add(t, &w.p, -INFINITY);
	text = write_to_string(t, ft, false);
	err = NULL;
	ok(profile_parse(text, strlen(text), ft2, &p, &err) == 0 && p.end_time_us > p.start_time_us,
		"a total of 2^65 µs exports with an end time after its start (%s)", err ? err : "ok");
	profile_release(&p);
	free(err);
	free(text);
	functab_free(ft2);
	calltree_free(t);
	calltree_free(t2);
}

static int run_checker(const char *node, const char *script, const char *file, const char *args)
{
	char *cmd = xasprintf("'%s' '%s' '%s' --quiet %s", node, script, file, args);
	int st;

	fflush(stdout);
	st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_save(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(1000), *big = calltree_create(2);
	char dir[] = "/tmp/ntop-calltree-XXXXXX";
	char *path, *fpath, *bad, *cause = NULL;
	struct stat st;
	const char *node = getenv("NODE"), *srcdir = getenv("top_srcdir");
	uint32_t root, main, foo;

	mk_init(&w, 0);
	root = mk_node(&w, fn->root, -1);
	main = mk_node(&w, fn->main, (int32_t)root);
	foo = mk_node(&w, fn->foo, (int32_t)main);
	for (int i = 0; i < 9; i++)
		mk_sample(&w, foo, 1000);
	mk_sample(&w, main, 1000);
	calltree_add(t, &w.p, -INFINITY);
	calltree_add(big, &w.p, -INFINITY);

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	path = xasprintf("%s/out.cpuprofile", dir);
	fpath = xasprintf("%s/out.folded", dir);
	bad = xasprintf("%s/missing/out.cpuprofile", dir);
	is_int(calltree_save(t, ft, path, false, &cause), 0, "save succeeds");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "saved file has mode 0600");
	is_int(calltree_save(t, ft, path, false, &cause), 0, "save replaces an existing file");
	is_int(fixture_count_entries(dir), 1, "no temporary file left behind");
	is_int(calltree_save(t, ft, fpath, true, &cause), 0, "folded save succeeds");
	is_int(calltree_save(t, ft, bad, false, &cause), -1, "save into a missing directory fails");
	ok(cause && strstr(cause, "missing") && strstr(cause, "No such file") &&
		cause[strlen(cause) - 1] == '.', "with a message naming the directory (%s)",
		cause ? cause : "none");
	free(cause);
	cause = NULL;
	is_int(fixture_count_entries(dir), 2, "failed save leaves nothing behind");
	{
		FILE *full = fopen("/dev/full", "w");
		if (full) {
			is_int(calltree_write_cpuprofile(t, ft, full), -1, "write error reported (/dev/full)");
			is_int(calltree_write_folded(t, ft, full), -1, "folded write error reported");
			fclose(full);
		} else {
			printf("ok %d # SKIP no /dev/full\n", ++tap_n);
			printf("ok %d # SKIP no /dev/full\n", ++tap_n);
		}
	}
	{
		char cwd[4096];
		if (getcwd(cwd, sizeof(cwd)) && chdir(dir) == 0) {
			is_int(calltree_save(t, ft, "rel.cpuprofile", false, &cause), 0,
				"save to a relative path (temporary file in the current directory)");
			is_int(fixture_count_entries("."), 3, "only the saved file added");
			unlink("rel.cpuprofile");
			if (chdir(cwd) != 0)
				ok(0, "chdir back: %s", strerror(errno));
		}
	}

	if (node && *node && srcdir && *srcdir) {
		char *script = xasprintf("%s/tests/check-cpuprofile.js", srcdir);
		char *synth = xasprintf("%s/synthetic.cpuprofile", dir);
		char *broken = xasprintf("%s/broken.cpuprofile", dir);
		FILE *f;

		is_int(run_checker(node, script, path, "--expect-hot foo:85"), 0,
			"check-cpuprofile.js accepts the export and sees foo hot");
		is_int(run_checker(node, script, path, "--expect-hot main:50 2>/dev/null"), 1,
			"check-cpuprofile.js fails an unmet --expect-hot");
		is_int(calltree_save(big, ft, synth, false, &cause), 0, "synthetic export saved");
		is_int(run_checker(node, script, synth, "--expect-hot foo:85"), 0,
			"check-cpuprofile.js accepts the synthetic export with the same hot function");
		f = fopen(broken, "w");
		fputs("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
			"\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2]},"
			"{\"id\":2,\"callFrame\":{\"functionName\":\"x\",\"scriptId\":\"0\",\"url\":\"\","
			"\"lineNumber\":0,\"columnNumber\":0},\"hitCount\":2,\"children\":[]}],"
			"\"startTime\":0,\"endTime\":10,\"samples\":[2],\"timeDeltas\":[10]}", f);
		fclose(f);
		is_int(run_checker(node, script, broken, "2>/dev/null"), 1,
			"check-cpuprofile.js rejects a wrong hitCount");
		unlink(synth);
		unlink(broken);
		free(script);
		free(synth);
		free(broken);
	} else {
		printf("ok %d # SKIP node not available (NODE unset)\n", ++tap_n);
	}
	free(cause);
	unlink(path);
	unlink(fpath);
	rmdir(dir);
	free(path);
	free(fpath);
	free(bad);
	calltree_free(t);
	calltree_free(big);
}

/* The samples and timeDeltas arrays of an export, as text, to compare two exports. */
static char *timeline_of(const char *text)
{
	const char *a = strstr(text, "\"samples\":"), *b = strstr(text, ",\"startTime\"");
	return a && b && b > a ? xstrndup(a, (size_t)(b - a)) : xstrdup("");
}

/* A real recording: exported, then read back by ntop-js's own parser and aggregated, gives the
 * same numbers as the original; split into two overlapping windows, it merges into the same
 * timeline. */
static void test_fixture(void)
{
	const char *srcdir = getenv("top_srcdir");
	char *json, *text, *err = NULL, *merged, *single, *fold1, *fold2;
	size_t len, j, k;
	struct functab *ft = functab_create(), *ft2 = functab_create();
	struct profile p, p2, a, b;
	struct calltree *t = calltree_create(1000000), *t2 = calltree_create(1000000);
	struct window_stats w1, w2;
	struct export_info ei;
	const char *cerr;
	bool same = true;
	double ts_j1 = 0, ts_k1 = 0;

	json = fixture_read("profile-fib.json", &len);
	if (!json || profile_parse(json, len, ft, &p, &err) != 0) {
		ok(0, "fixture profile-fib.json read and parsed (%s)", err ? err : "unreadable");
		free(err);
		free(json);
		functab_free(ft);
		functab_free(ft2);
		calltree_free(t);
		calltree_free(t2);
		return;
	}
	ok(p.n_samples > 100, "fixture has %zu samples", p.n_samples);
	calltree_add(t, &p, -INFINITY);
	text = write_to_string(t, ft, false);
	cerr = export_check(text, &ei);
	ok(cerr == NULL, "export of a real profile is consistent (%s)", cerr ? cerr : "ok");
	is_int(ei.n_samples, p.n_samples, "every sample exported");
	cJSON_Delete(ei.root);
	ok(profile_parse(text, strlen(text), ft2, &p2, &err) == 0, "export reads back with profile_parse (%s)",
		err ? err : "ok");
	free(err);
	err = NULL;

	window_stats_init(&w1);
	window_stats_init(&w2);
	aggregate_window(&p, ft, -INFINITY, &w1);
	aggregate_window(&p2, ft2, -INFINITY, &w2);
	is_num(w2.sampled_us, w1.sampled_us, 0, "same sampled time after the round trip");
	ok(w1.js_us == w2.js_us && w1.gc_us == w2.gc_us && w1.idle_us == w2.idle_us &&
		w1.program_us == w2.program_us, "same JS/GC/program/idle split after the round trip");
	is_int(w2.n_funcs, w1.n_funcs, "same functions after the round trip");
	for (size_t i = 0; i < w1.n_funcs && i < w2.n_funcs; i++) {
		const struct func_info *f1 = functab_get(ft, w1.funcs[i].func);
		const struct func_info *f2 = functab_get(ft2, w2.funcs[i].func);
		if (strcmp(f1->name, f2->name) || strcmp(f1->url, f2->url) || f1->line != f2->line ||
		    f1->column != f2->column || w1.funcs[i].self_us != w2.funcs[i].self_us ||
		    w1.funcs[i].total_us != w2.funcs[i].total_us) {
			printf("# differs: %s %g/%g vs %s %g/%g\n", f1->name, w1.funcs[i].self_us,
				w1.funcs[i].total_us, f2->name, w2.funcs[i].self_us, w2.funcs[i].total_us);
			same = false;
		}
	}
	ok(same, "every function keeps its identity, self and total time");
	window_stats_free(&w1);
	window_stats_free(&w2);

	/* Window a holds samples [0, k), window b [j, n) with j < k: they overlap by k - j
	 * samples, as consecutive console profiles do. b's trim point is a's last sample. */
	j = p.n_samples / 3;
	k = p.n_samples / 2;
	a = p;
	a.n_samples = k;
	b = p;
	b.samples = p.samples + j;
	b.time_deltas = p.time_deltas + j;
	b.n_samples = p.n_samples - j;
	ts_j1 = p.start_time_us;
	for (size_t i = 0; i < k; i++) {
		ts_j1 += i < j ? (double)p.time_deltas[i] : 0;
		ts_k1 += (double)p.time_deltas[i];
	}
	b.start_time_us = ts_j1;
	ts_k1 += p.start_time_us;
	calltree_add(t2, &a, -INFINITY);
	calltree_add(t2, &b, ts_k1);
	is_int(calltree_sample_count(t2), p.n_samples, "overlapping windows merge to the original samples");
	merged = write_to_string(t2, ft, false);
	cerr = export_check(merged, &ei);
	ok(cerr == NULL, "merged export is consistent (%s)", cerr ? cerr : "ok");
	cJSON_Delete(ei.root);
	single = timeline_of(text);
	free(text);
	text = timeline_of(merged);
	ok(strcmp(single, text) == 0, "merged timeline equals the single window's");
	{
		/* The same windows merged in slices (as the engine does, a slice a turn of the
		 * loop): the same export; in between, a whole tree that exports consistently. */
		struct calltree *t3 = calltree_create(1000000);
		char *stepped, *partial;
		int steps = 0;

		calltree_merge_begin(t3, &a, -INFINITY);
		ok(calltree_merging(t3), "a merge is under way after begin");
		calltree_merge_step(t3, 1);
		calltree_merge_step(t3, 2);
		partial = write_to_string(t3, ft, false);
		cerr = export_check(partial, &ei);
		ok(cerr == NULL, "a tree between slices exports consistently (%s)", cerr ? cerr : "ok");
		cJSON_Delete(ei.root);
		free(partial);
		calltree_merge_begin(t3, &b, ts_k1); /* finishes a's merge first */
		while (!calltree_merge_step(t3, 37))
			steps++;
		ok(steps > 3 && !calltree_merging(t3), "b merged in %d slices of 37", steps + 1);
		stepped = write_to_string(t3, ft, false);
		ok(strcmp(stepped, merged) == 0, "merging in slices gives the same export as at once");
		free(stepped);
		calltree_merge_begin(t3, &a, -INFINITY);
		calltree_merge_step(t3, 5);
		calltree_reset(t3);
		ok(!calltree_merging(t3) && calltree_sample_count(t3) == 0, "a reset drops a merge under way");
		calltree_free(t3);
	}
	{
		const char *node = getenv("NODE");
		char dir[] = "/tmp/ntop-calltree-XXXXXX";
		if (node && *node && srcdir && *srcdir && mkdtemp(dir)) {
			char *script = xasprintf("%s/tests/check-cpuprofile.js", srcdir);
			char *out = xasprintf("%s/fixture.cpuprofile", dir);
			is_int(calltree_save(t2, ft, out, false, &err), 0, "merged real profile saved");
			is_int(run_checker(node, script, out, "--expect-hot fibHot:30"), 0,
				"check-cpuprofile.js accepts it and finds fibHot hot, as in the recording");
			unlink(out);
			rmdir(dir);
			free(script);
			free(out);
			free(err);
			err = NULL;
		} else {
			printf("ok %d # SKIP node not available (NODE unset)\n", ++tap_n);
			printf("ok %d # SKIP node not available (NODE unset)\n", ++tap_n);
		}
	}
	fold1 = write_to_string(t, ft, true);
	fold2 = write_to_string(t2, ft, true);
	ok(fold1 && fold2 && strcmp(fold1, fold2) == 0 && strlen(fold1) > 0, "merged folded stacks equal");

	free(fold1);
	free(fold2);
	free(single);
	free(text);
	free(merged);
	profile_release(&p);
	profile_release(&p2);
	free(json);
	calltree_free(t);
	calltree_free(t2);
	functab_free(ft);
	functab_free(ft2);
}

/* Several threads in one folded file, and the names of their other files. */
static void test_under(struct functab *ft, const struct funcs *fn)
{
	static struct mkprof w;
	struct calltree *t = calltree_create(1000);
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f;
	uint32_t root, main, foo;

	mk_init(&w, 0);
	root = mk_node(&w, fn->root, -1);
	main = mk_node(&w, fn->main, (int32_t)root);
	foo = mk_node(&w, fn->foo, (int32_t)main);
	mk_sample(&w, foo, 1000);
	calltree_add(t, &w.p, -INFINITY);
	f = open_memstream(&buf, &len);
	is_int(calltree_write_folded_under(t, ft, "thread 3 po;ol", f), 0, "folded under a frame");
	fclose(f);
	ok(buf && strncmp(buf, "thread 3 po,ol;(root);main", 26) == 0 && !strstr(buf, "\n(root)"),
		"every stack starts with the frame (its ';' made ','): %s", buf ? buf : "");
	free(buf);
	buf = write_to_string(t, ft, false);
	ok(buf && !strstr(buf, "$vscode") && !strstr(buf, "locationId"),
		"no source map: no $vscode block");
	free(buf);
	/* a source-mapped function: VS Code's viewer finds its original place */
	functab_set_origin(ft, fn->foo, "fooTs", 5, "/srv/app/src/foo.ts", 19, 41, 9);
	buf = write_to_string(t, ft, false);
	{
		cJSON *j = buf ? cJSON_Parse(buf) : NULL;
		const cJSON *locs = j ? cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(j, "$vscode"), "locations") : NULL;
		const cJSON *loc0 = cJSON_GetArrayItem(locs, 0), *src = NULL, *nodes, *node;
		int with_id = 0;

		if (loc0)
			src = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(loc0, "locations"), 0);
		ok(cJSON_GetArraySize(locs) == 1 && src &&
			cJSON_GetObjectItemCaseSensitive(src, "lineNumber")->valueint == 42 &&
			cJSON_GetObjectItemCaseSensitive(src, "columnNumber")->valueint == 10 &&
			strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(src,
			"source"), "path")->valuestring, "/srv/app/src/foo.ts") == 0,
			"$vscode: one location, its line and column from 1, its source's path");
		nodes = j ? cJSON_GetObjectItemCaseSensitive(j, "nodes") : NULL;
		cJSON_ArrayForEach(node, nodes)
			if (cJSON_GetObjectItemCaseSensitive(node, "locationId"))
				with_id++;
		is_int(with_id, 1, "and only foo's node points at it");
		cJSON_Delete(j);
	}
	free(buf);
	calltree_free(t);
	p = export_sibling_path("/tmp/app.cpuprofile", "t3");
	ok(strcmp(p, "/tmp/app-t3.cpuprofile") == 0, "sibling of .cpuprofile: %s", p);
	free(p);
	p = export_sibling_path("out/app.pb.gz", "p1240");
	ok(strcmp(p, "out/app-p1240.pb.gz") == 0, "of .pb.gz, the whole suffix kept: %s", p);
	free(p);
	p = export_sibling_path("a.b/profile", "t1");
	ok(strcmp(p, "a.b/profile-t1") == 0, "no suffix: at the end, a dot in a folder ignored: %s", p);
	free(p);
	p = export_sibling_path("app.json", "t1");
	ok(strcmp(p, "app-t1.json") == 0, "another suffix: before its last dot: %s", p);
	free(p);
}

int main(void)
{
	struct functab *ft = functab_create();
	struct funcs fn;

	funcs_init(ft, &fn);
	test_merge_windows(ft, &fn);
	test_recursion(ft, &fn);
	test_cap(ft, &fn);
	test_hostile(ft, &fn);
	test_huge_deltas(ft, &fn);
	test_save(ft, &fn);
	test_under(ft, &fn);
	test_fixture();
	calltree_free(NULL);
	functab_free(ft);
	return done_testing();
}
