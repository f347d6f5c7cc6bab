/* test_profile.c: profile_parse on real recordings and on hostile hand-written profiles. */
#include "config.h"

#include "profile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "strbuf.h"
#include "fixture.h"
#include "tap.h"

static bool preorder_ok(const struct profile *p)
{
	if (p->n_nodes == 0 || p->nodes[0].parent != -1)
		return false;
	for (size_t i = 1; i < p->n_nodes; i++)
		if (p->nodes[i].parent < 0 || (size_t)p->nodes[i].parent >= i)
			return false;
	return true;
}

static int parse_str(const char *json, struct functab *ft, struct profile *p, char **err)
{
	size_t n = strlen(json);
	char *copy = malloc(n ? n : 1);
	int r;

	memcpy(copy, json, n);
	r = profile_parse(copy, n, ft, p, err);
	free(copy);
	return r;
}

/* Expects rejection with a message containing want. */
static void rejects(const char *json, const char *want, const char *what)
{
	struct functab *ft = functab_create();
	struct profile p;
	char *err = NULL;
	int r = parse_str(json, ft, &p, &err);

	ok(r < 0 && err && strstr(err, want) && p.nodes == NULL && p.n_nodes == 0, "rejects %s", what);
	if (!(r < 0 && err && strstr(err, want)))
		printf("#   message: %s\n", err ? err : "(none)");
	free(err);
	profile_release(&p);
	functab_free(ft);
}

#define FRAME(name) "\"callFrame\":{\"functionName\":\"" name "\",\"scriptId\":\"0\",\"url\":\"\"," \
	"\"lineNumber\":-1,\"columnNumber\":-1}"
#define TIMES "\"startTime\":1,\"endTime\":2"

static void test_fixtures(void)
{
	static const struct {
		const char *file;
		size_t nodes, samples, funcs, ticks;
	} fx[] = {
		{"profile-fib.json", 33, 376, 13, 27},
		{"profile-graph.json", 1333, 472, 220, 300},
	};
	for (size_t k = 0; k < sizeof(fx) / sizeof(fx[0]); k++) {
		struct functab *ft = functab_create();
		struct profile p;
		char *err = NULL;
		size_t len;
		char *buf = fixture_read(fx[k].file, &len);

		ok(buf != NULL, "%s readable", fx[k].file);
		if (!buf)
			continue;
		ok(profile_parse(buf, len, ft, &p, &err) == 0, "%s parses", fx[k].file);
		if (err)
			printf("#   %s\n", err);
		is_int(p.n_nodes, fx[k].nodes, "%s: node count", fx[k].file);
		is_int(p.n_samples, fx[k].samples, "%s: sample count", fx[k].file);
		is_int(functab_count(ft), fx[k].funcs, "%s: distinct functions", fx[k].file);
		is_int(p.n_ticks, fx[k].ticks, "%s: positionTicks entries", fx[k].file);
		ok(preorder_ok(&p), "%s: preorder, root first", fx[k].file);
		is_str(functab_get(ft, p.nodes[0].func)->name, "(root)", "%s: root is (root)", fx[k].file);
		ok(p.start_time_us > 1e8 && p.end_time_us > p.start_time_us, "%s: times", fx[k].file);
		size_t bad = 0;
		for (size_t s = 0; s < p.n_samples; s++)
			bad += p.samples[s] >= p.n_nodes;
		is_int(bad, 0, "%s: samples are node indices", fx[k].file);

		/* fibHot is interned with its 0-based position */
		bool found = false;
		for (size_t f = 0; f < functab_count(ft); f++) {
			const struct func_info *fi = functab_get(ft, (uint32_t)f);
			if (strcmp(fi->name, "fibHot") == 0)
				found = fi->line == 43 && fi->column == 15 && strstr(fi->url, "record-profile.js");
		}
		ok(found, "%s: fibHot with url, line 43, column 15", fx[k].file);

		/* parsing the same profile again reuses the functions */
		struct profile p2;
		ok(profile_parse(buf, len, ft, &p2, NULL) == 0 && functab_count(ft) == fx[k].funcs,
			"%s: second parse interns nothing new", fx[k].file);
		profile_release(&p2);
		profile_release(&p);

		if (k == 0) {
			/* every truncation of a real profile is rejected cleanly */
			size_t rejected = 0;
			for (size_t n = 0; n < len; n++) {
				char *cut = malloc(n ? n : 1);
				memcpy(cut, buf, n);
				char *e = NULL;
				if (profile_parse(cut, n, ft, &p2, &e) < 0 && e)
					rejected++;
				profile_release(&p2);
				free(e);
				free(cut);
			}
			is_int(rejected, len, "every truncation of %s is rejected with a message", fx[k].file);
		}
		free(buf);
		functab_free(ft);
	}
}

static void test_layout(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	char *err = NULL;
	/* nodes out of order, big arbitrary ids, children listed before parents */
	const char *json = "{\"nodes\":["
		"{\"id\":4000000000," FRAME("c") ",\"hitCount\":1},"
		"{\"id\":7," FRAME("a") ",\"children\":[900,4000000000],\"hitCount\":0},"
		"{\"id\":900," FRAME("b") ",\"hitCount\":2,\"deoptReason\":\"Insufficient type feedback\","
		"\"positionTicks\":[{\"line\":3,\"ticks\":2}]},"
		"{\"id\":1," FRAME("(root)") ",\"children\":[7]}],"
		TIMES ",\"samples\":[900,4000000000,900],\"timeDeltas\":[5,-1,7],\"extra\":{\"x\":[1,2]}}";

	ok(parse_str(json, ft, &p, &err) == 0, "out-of-order profile parses");
	if (err)
		printf("#   %s\n", err);
	is_int(p.n_nodes, 4, "four nodes");
	ok(preorder_ok(&p), "laid out in preorder");
	const char *order[4];
	for (size_t i = 0; i < 4 && i < p.n_nodes; i++)
		order[i] = functab_get(ft, p.nodes[i].func)->name;
	ok(p.n_nodes == 4 && !strcmp(order[0], "(root)") && !strcmp(order[1], "a") &&
		!strcmp(order[2], "b") && !strcmp(order[3], "c"), "preorder keeps children in order");
	ok(p.n_samples == 3 && p.samples[0] == 2 && p.samples[1] == 3 && p.samples[2] == 2,
		"sample ids mapped to preorder indices");
	ok(p.time_deltas[1] == -1, "negative delta kept as given");
	is_str(functab_get(ft, p.nodes[2].func)->deopt_reason, "Insufficient type feedback", "deopt reason set");
	ok(p.nodes[2].ticks_count == 1 && p.ticks[p.nodes[2].ticks_first].line == 3 &&
		p.ticks[p.nodes[2].ticks_first].ticks == 2, "position ticks attached to their node");
	is_int(p.nodes[2].hit_count, 2, "hit count");
	profile_release(&p);
	free(err);

	/* escapes in names, big timestamps, fractional deltas, escaped keys */
	err = NULL;
	json = "{\"n\\u006fdes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"caf\\u00e9 \\\"q\\\"\","
		"\"url\":\"file:///t\\/x.js\",\"lineNumber\":4,\"columnNumber\":2}}],"
		"\"startTime\":5000000000123,\"endTime\":5000000999999,\"samples\":[1],\"timeDeltas\":[2.6]}";
	ok(parse_str(json, ft, &p, &err) == 0, "escaped strings parse");
	if (p.n_nodes) {
		const struct func_info *fi = functab_get(ft, p.nodes[0].func);
		is_str(fi->name, "caf\xc3\xa9 \"q\"", "name decoded");
		is_str(fi->url, "file:///t/x.js", "url decoded");
		ok(fi->line == 4 && fi->column == 2, "line and column");
	}
	ok(p.start_time_us == 5000000000123.0, "timestamp beyond INT_MAX exact");
	ok(p.n_samples == 1 && p.time_deltas[0] == 3, "fractional delta rounded");
	profile_release(&p);
	free(err);

	/* timeDeltas before samples, whitespace and other number forms in both */
	err = NULL;
	json = "{\"startTime\":0,\"timeDeltas\": [ 1 , 2.0,3e0,-4 ],\"endTime\":9,"
		"\"samples\":[1,1 ,1e0, 1],\"nodes\":[{\"id\":1," FRAME("(root)") "}]}";
	ok(parse_str(json, ft, &p, &err) == 0, "timeDeltas first, odd number forms");
	ok(p.n_samples == 4 && p.time_deltas[0] == 1 && p.time_deltas[1] == 2 && p.time_deltas[2] == 3 &&
		p.time_deltas[3] == -4 && p.samples[2] == 0, "all of them read");
	profile_release(&p);
	free(err);

	/* samples and timeDeltas may be absent together */
	ok(parse_str("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES "}", ft, &p, NULL) == 0 &&
		p.n_samples == 0 && p.n_nodes == 1, "profile without samples");
	profile_release(&p);
	functab_free(ft);
}

static void test_deep(void)
{
	/* a 200000-deep chain, listed leaf first: no recursion anywhere */
	const size_t depth = 200000;
	struct strbuf sb;
	struct functab *ft = functab_create();
	struct profile p;
	char *err = NULL;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"nodes\":[");
	for (size_t i = depth; i >= 1; i--) {
		strbuf_printf(&sb, "{\"id\":%zu,\"callFrame\":{\"functionName\":\"f%zu\",\"url\":\"\","
			"\"lineNumber\":1,\"columnNumber\":1}", i, i % 100);
		if (i < depth)
			strbuf_printf(&sb, ",\"children\":[%zu]", i + 1);
		strbuf_puts(&sb, i > 1 ? "}," : "}");
	}
	strbuf_printf(&sb, "]," TIMES ",\"samples\":[%zu,1],\"timeDeltas\":[1,1]}", depth);
	ok(profile_parse(sb.data, sb.len, ft, &p, &err) == 0, "200000-deep chain parses");
	if (err)
		printf("#   %s\n", err);
	ok(p.n_nodes == depth && preorder_ok(&p) && p.nodes[depth - 1].parent == (int32_t)depth - 2,
		"chain laid out root to leaf");
	ok(p.n_samples == 2 && p.samples[0] == depth - 1 && p.samples[1] == 0, "samples mapped");
	is_int(functab_count(ft), 100, "100 distinct functions");
	profile_release(&p);
	free(err);
	strbuf_free(&sb);
	functab_free(ft);
}

static void test_hostile(void)
{
	rejects("[]", "not a JSON object", "an array");
	rejects("{\"nodes\":[]," TIMES "}", "no nodes", "no nodes");
	rejects("{" TIMES "}", "no nodes", "missing nodes");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]}", "startTime", "missing startTime");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[2]}]," TIMES "}",
		"unknown child 2", "unknown child id");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[2,3]},"
		"{\"id\":2," FRAME("a") ",\"children\":[3]},{\"id\":3," FRAME("b") "}]," TIMES "}",
		"two parents", "a node with two parents");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[2,2]},"
		"{\"id\":2," FRAME("a") "}]," TIMES "}", "two parents", "a child listed twice");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[2]},{\"id\":2," FRAME("a") "},"
		"{\"id\":3," FRAME("b") ",\"children\":[4]},{\"id\":4," FRAME("c") ",\"children\":[3]}]," TIMES "}",
		"not reachable", "a detached cycle");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[2]},"
		"{\"id\":2," FRAME("a") ",\"children\":[1]}]," TIMES "}", "no root", "a cycle through the root");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":[1]}]," TIMES "}",
		"no root", "a node that is its own child");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "},{\"id\":2," FRAME("a") "}]," TIMES "}",
		"2 nodes without a parent", "two roots");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "},{\"id\":1," FRAME("a") "}]," TIMES "}",
		"appears twice", "duplicate ids");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1,5],\"timeDeltas\":[1,1]}",
		"unknown node 5", "a sample of an unknown id");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1,1],\"timeDeltas\":[1]}",
		"2 samples but 1 timeDeltas", "deltas/samples length mismatch");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1]}",
		"1 samples but 0 timeDeltas", "samples without timeDeltas");
	rejects("{\"nodes\":[{\"id\":\"1\"," FRAME("(root)") "}]," TIMES "}", "node id is not a number",
		"a string id");
	rejects("{\"nodes\":[{\"id\":1.5," FRAME("(root)") "}]," TIMES "}", "not an integer", "a fractional id");
	rejects("{\"nodes\":[{\"id\":-3," FRAME("(root)") "}]," TIMES "}", "out of range", "a negative id");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"hitCount\":\"x\"}]," TIMES "}",
		"hitCount is not a number", "a string hitCount");
	rejects("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\",\"url\":\"\",\"lineNumber\":\"3\"}}]," TIMES "}",
		"lineNumber is not a number", "a string lineNumber");
	rejects("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":7,\"url\":\"\"}}]," TIMES "}",
		"functionName is not a string", "a numeric functionName");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1],\"timeDeltas\":[\"1\"]}",
		"timeDeltas entry is not a number", "a string delta");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[null],\"timeDeltas\":[1]}",
		"sample id is not a number", "a null sample");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}],\"startTime\":\"1\",\"endTime\":2}",
		"startTime is not a number", "a string startTime");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1],\"timeDeltas\":[1e300]}",
		"out of range", "an absurd delta");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"children\":{}}]," TIMES "}",
		"children is not an array", "children as an object");
	rejects("{\"nodes\":[{\"id\":1}]," TIMES "}", "without a callFrame", "a node without callFrame");
	rejects("{\"nodes\":[{" FRAME("(root)") "}]," TIMES "}", "without an id", "a node without id");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") ",\"positionTicks\":[{\"line\":1}]}]," TIMES "}",
		"without line or ticks", "an incomplete positionTicks entry");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES "} x", "trailing data", "trailing garbage");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"x\":[1,]}", "malformed JSON",
		"malformed unknown member");
	rejects("", "not a JSON object", "empty input");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1,-1],\"timeDeltas\":[1,1]}",
		"out of range", "a negative sample id");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1,4294967296],\"timeDeltas\":[1,1]}",
		"out of range", "a sample id beyond 32 bits");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1,1],\"timeDeltas\":[1,90071992547409930]}",
		"out of range", "a huge integer delta");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[01],\"timeDeltas\":[1]}",
		"malformed JSON", "a leading zero in samples");
	rejects("{\"nodes\":[{\"id\":1," FRAME("(root)") "}]," TIMES ",\"samples\":[1],\"samples\":[1],\"timeDeltas\":[1]}",
		"two samples lists", "samples given twice");

	/* err may be NULL */
	struct functab *ft = functab_create();
	struct profile p;
	ok(parse_str("{\"nodes\":[]}", ft, &p, NULL) < 0, "failure without an err pointer");
	functab_free(ft);
}

/* The same document with whitespace after every structural character outside strings. */
static char *pretty(const char *in, size_t len, size_t *out_len)
{
	char *out = malloc(len * 3 + 1), *o = out;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = in[i];
		*o++ = c;
		if (in_str) {
			if (c == '\\')
				*o++ = in[++i];
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == ',' || c == ':' || c == '[' || c == '{') {
			*o++ = '\n';
			*o++ = '\t';
		}
	}
	*out_len = (size_t)(o - out);
	return out;
}

static void test_pretty_and_mutations(void)
{
	size_t len, plen;
	char *buf = fixture_read("profile-graph.json", &len);
	struct functab *ft = functab_create();
	struct profile a, b;

	if (!buf) {
		ok(0, "fixture readable");
		functab_free(ft);
		return;
	}
	char *pb = pretty(buf, len, &plen);
	ok(profile_parse(buf, len, ft, &a, NULL) == 0 && profile_parse(pb, plen, ft, &b, NULL) == 0,
		"compact and pretty-printed forms parse");
	ok(a.n_nodes == b.n_nodes && a.n_samples == b.n_samples &&
		memcmp(a.samples, b.samples, a.n_samples * sizeof(*a.samples)) == 0 &&
		memcmp(a.time_deltas, b.time_deltas, a.n_samples * sizeof(*a.time_deltas)) == 0 &&
		memcmp(a.nodes, b.nodes, a.n_nodes * sizeof(*a.nodes)) == 0,
		"whitespace changes nothing (the integer fast path and the general path agree)");
	profile_release(&a);
	profile_release(&b);
	free(pb);

	/* random byte damage: every result is a clean rejection or a consistent profile */
	size_t rejected = 0, accepted = 0, inconsistent = 0;
	static const char junk[] = "{}[],:\"\\0123456789-.eE xu";
	srand(12345);
	for (int round = 0; round < 3000; round++) {
		char *m = malloc(len);
		memcpy(m, buf, len);
		int edits = 1 + rand() % 3;
		for (int e = 0; e < edits; e++)
			m[(size_t)rand() % len] = junk[(size_t)rand() % (sizeof(junk) - 1)];
		char *err = NULL;
		if (profile_parse(m, len, ft, &a, &err) < 0) {
			rejected += err != NULL;
		} else {
			accepted++;
			if (!preorder_ok(&a))
				inconsistent++;
			for (size_t s = 0; s < a.n_samples; s++)
				if (a.samples[s] >= a.n_nodes)
					inconsistent++;
			profile_release(&a);
		}
		free(err);
		free(m);
	}
	is_int(rejected + accepted, 3000, "3000 damaged profiles: each rejected with a message or accepted");
	is_int(inconsistent, 0, "every accepted damaged profile is consistent");
	printf("# %zu rejected, %zu accepted\n", rejected, accepted);
	free(buf);
	functab_free(ft);
}

int main(void)
{
	test_fixtures();
	test_layout();
	test_deep();
	test_hostile();
	test_pretty_and_mutations();
	return done_testing();
}
