/* test_heapprof.c: heapprof_parse and the growth diff on real sampling heap profiles and on
 * hostile hand-written ones; heapsnap on real snapshot chunks. */
#include "config.h"

#include "heapprof.h"
#include "heapsnap.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fixture.h"
#include "functab.h"
#include "jsonpull.h"
#include "strbuf.h"
#include "tap.h"

static int parse_mem(const char *json, size_t n, struct functab *ft, struct alloc_table *t,
	char **err)
{
	char *copy = malloc(n ? n : 1); /* exact size, as above */
	int r;

	memcpy(copy, json, n);
	r = heapprof_parse(copy, n, ft, t, err);
	free(copy);
	return r;
}

/* Expects rejection with a message containing want. */
static void rejects(const char *json, const char *want, const char *what)
{
	struct functab *ft = functab_create();
	struct alloc_table t;
	char *err = NULL;
	int r;

	alloc_table_init(&t);
	r = parse_mem(json, strlen(json), ft, &t, &err);
	ok(r == -1 && err && strstr(err, want) && t.n == 0, "rejects %s", what);
	if (!(r == -1 && err && strstr(err, want)))
		printf("#   r=%d err=%s (want \"%s\")\n", r, err ? err : "(null)", want);
	free(err);
	alloc_table_free(&t);
	functab_free(ft);
}

/* The naive reference: a recursive walk over cJSON's tree, summing selfSize per
 * (name, url, line, column), Node's own frames charged to the nearest application caller. */
struct ref_site {
	char key[600];
	double bytes;
};

struct ref {
	struct ref_site *s;
	size_t n;
	double total;
	int max_depth;
};

/* (the fixtures' paths need no percent-encoding to become file URLs) */
static void ref_key(char *out, size_t outsz, const char *name, const char *url, int line, int col)
{
	snprintf(out, outsz, "%s|%s%s|%d|%d", name, url[0] == '/' ? "file://" : "", url, line, col);
}

static void ref_walk(struct ref *r, const cJSON *node, int depth, const char *user_key)
{
	const cJSON *cf = cJSON_GetObjectItemCaseSensitive(node, "callFrame");
	const cJSON *self = cJSON_GetObjectItemCaseSensitive(node, "selfSize");
	const cJSON *child;
	char key[600];
	size_t i;

	if (depth > r->max_depth)
		r->max_depth = depth;
	ref_key(key, sizeof(key),
		cJSON_GetObjectItemCaseSensitive(cf, "functionName")->valuestring,
		cJSON_GetObjectItemCaseSensitive(cf, "url")->valuestring,
		cJSON_GetObjectItemCaseSensitive(cf, "lineNumber")->valueint,
		cJSON_GetObjectItemCaseSensitive(cf, "columnNumber")->valueint);
	const char *url = cJSON_GetObjectItemCaseSensitive(cf, "url")->valuestring;
	int line = cJSON_GetObjectItemCaseSensitive(cf, "lineNumber")->valueint;
	/* native code and V8's pseudo-frames have neither script nor position */
	bool internal = (url[0] == '\0' && line < 0) || strncmp(url, "node:", 5) == 0 ||
		strncmp(url, "internal/", 9) == 0;
	char own[600];

	snprintf(own, sizeof own, "%s", key);
	if (internal && user_key)
		snprintf(key, sizeof key, "%s", user_key);
	for (i = 0; i < r->n && strcmp(r->s[i].key, key) != 0; i++)
		;
	if (i == r->n) {
		r->s = realloc(r->s, (r->n + 1) * sizeof(*r->s));
		memset(&r->s[r->n], 0, sizeof(*r->s));
		snprintf(r->s[r->n].key, sizeof(r->s[r->n].key), "%s", key);
		r->n++;
	}
	r->s[i].bytes += self->valuedouble;
	r->total += self->valuedouble;
	cJSON_ArrayForEach(child, cJSON_GetObjectItemCaseSensitive(node, "children"))
		ref_walk(r, child, depth + 1, internal ? user_key : own);
}

static bool ref_load(struct ref *r, const char *json, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(json, len);

	memset(r, 0, sizeof(*r));
	if (!root)
		return false;
	ref_walk(r, cJSON_GetObjectItemCaseSensitive(root, "head"), 1, NULL);
	cJSON_Delete(root);
	return true;
}

static double ref_bytes(const struct ref *r, const struct func_info *fi)
{
	char key[600];

	ref_key(key, sizeof(key), fi->name, fi->url, fi->line, fi->column);
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->s[i].key, key) == 0)
			return r->s[i].bytes;
	return -1;
}

static const struct alloc_site *find_site(const struct alloc_table *t, const struct functab *ft,
	const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(functab_get(ft, t->sites[i].func)->name, name) == 0)
			return &t->sites[i];
	return NULL;
}

static const char *site_name(const struct alloc_table *t, const struct functab *ft, size_t i)
{
	return i < t->n ? functab_get(ft, t->sites[i].func)->name : "(none)";
}

/* Parses a fixture and checks it against the naive walk: same total, same bytes per site,
 * sorted, and no site the reference lacks. */
static void check_fixture(const char *name, struct functab *ft, struct alloc_table *t,
	struct ref *r)
{
	size_t len = 0;
	char *json = fixture_read(name, &len);
	char *err = NULL;
	bool sorted = true, match = true;
	double sum = 0;

	ok(json && len > 0, "%s: read", name);
	if (!json)
		return;
	ok(ref_load(r, json, len), "%s: cJSON reads it too", name);
	is_int(heapprof_parse(json, len, ft, t, &err), 0, "%s: parses", name);
	if (err)
		printf("#   %s\n", err);
	free(err);
	ok(t->n > 0, "%s: %zu sites", name, t->n);
	is_num(t->total_live_bytes, r->total, 0, "%s: total %.0f bytes = the naive sum", name, r->total);
	for (size_t i = 0; i < t->n; i++) {
		double want = ref_bytes(r, functab_get(ft, t->sites[i].func));
		sum += t->sites[i].live_bytes;
		if (want != t->sites[i].live_bytes) {
			match = false;
			printf("#   site %s: %.0f, naive %.0f\n", site_name(t, ft, i),
				t->sites[i].live_bytes, want);
		}
		if (t->sites[i].live_bytes <= 0 || (i && t->sites[i - 1].live_bytes < t->sites[i].live_bytes))
			sorted = false;
	}
	ok(match, "%s: every site's bytes = the naive per-function sum", name);
	ok(sorted, "%s: sites positive and sorted by live bytes", name);
	is_num(sum, t->total_live_bytes, 0, "%s: sites add up to the total", name);
	free(json);
}

static void test_fixtures(void)
{
	struct functab *ft = functab_create();
	struct alloc_table t1, t2, deep;
	struct ref r1, r2, rd;
	const struct alloc_site *leak, *churn, *leak1;
	double leak_growth;

	alloc_table_init(&t1);
	alloc_table_init(&t2);
	alloc_table_init(&deep);
	check_fixture("heap-sampling-1.json", ft, &t1, &r1);
	check_fixture("heap-sampling-2.json", ft, &t2, &r2);

	is_str(site_name(&t2, ft, 0), "leakyCache", "leakyCache holds the most live bytes");
	if (t2.n) {
		const struct func_info *fi = functab_get(ft, t2.sites[0].func);
		ok(strncmp(fi->url, "file:///", 8) == 0 && strstr(fi->url, "record-heapprofile.js") &&
			fi->line > 0, "its call frame names the recorder as a file URL (%s:%d)", fi->url,
			fi->line);
		ok(t2.sites[0].live_bytes > 0.8 * t2.total_live_bytes,
			"and most of the total (%.0f of %.0f)", t2.sites[0].live_bytes,
			t2.total_live_bytes);
	}
	leak1 = find_site(&t1, ft, "leakyCache");
	ok(leak1 && t2.n && t2.sites[0].live_bytes > 2 * leak1->live_bytes,
		"it grew between the two profiles (%.0f -> %.0f)", leak1 ? leak1->live_bytes : 0,
		t2.n ? t2.sites[0].live_bytes : 0);

	/* growth */
	alloc_table_diff(&t2, &t1);
	alloc_table_sort_growth(&t2);
	leak = find_site(&t2, ft, "leakyCache");
	is_str(site_name(&t2, ft, 0), "leakyCache", "leakyCache grows the most");
	leak_growth = leak ? leak->growth_bytes : 0;
	is_num(leak_growth, (leak ? leak->live_bytes : 0) - (leak1 ? leak1->live_bytes : 0), 0,
		"its growth is latest minus baseline (%.0f)", leak_growth);
	churn = find_site(&t2, ft, "churn");
	ok(leak_growth > 0 && (!churn || churn->growth_bytes < 0.05 * leak_growth),
		"churn allocates as much but does not grow (%.0f bytes)", churn ? churn->growth_bytes : 0);
	{
		bool sorted = true;
		for (size_t i = 1; i < t2.n; i++)
			if (t2.sites[i - 1].growth_bytes < t2.sites[i].growth_bytes)
				sorted = false;
		ok(sorted, "sorted by growth, descending");
	}

	/* a real profile as deep as V8 goes (128 frames), nesting ~260 JSON levels */
	check_fixture("heap-sampling-deep.json", ft, &deep, &rd);
	is_int(rd.max_depth, 129, "the deep fixture is 129 nodes deep");
	is_str(site_name(&deep, ft, 0), "leakyCache", "deep: leakyCache at the bottom of the stack");

	free(r1.s);
	free(r2.s);
	free(rd.s);
	alloc_table_free(&t1);
	alloc_table_free(&t2);
	alloc_table_free(&deep);
	functab_free(ft);
}

/* The deepest tree the scanner lets through. */
#define DEEPEST ((JSON_MAX_DEPTH - 1) / 2)

/* A chain of n nodes; the last one holds 100 bytes in function "bottom". */
static char *deep_chain(int n, size_t *len)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"head\":");
	for (int i = 1; i <= n; i++)
		strbuf_printf(&sb, "{\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"1\","
			"\"url\":\"file:///d.js\",\"lineNumber\":%d,\"columnNumber\":0},"
			"\"selfSize\":%d,\"id\":%d,\"children\":[", i == n ? "bottom" : "f", i,
			i == n ? 100 : 0, i);
	for (int i = 1; i <= n; i++)
		strbuf_puts(&sb, "]}");
	strbuf_puts(&sb, ",\"samples\":[]}");
	*len = sb.len;
	return sb.data;
}

#define CF(name, line) "\"callFrame\":{\"functionName\":\"" name "\",\"scriptId\":\"1\"," \
	"\"url\":\"file:///a.js\",\"lineNumber\":" #line ",\"columnNumber\":2}"

static void test_synthetic(void)
{
	struct functab *ft = functab_create();
	struct alloc_table t;
	char *err = NULL, *json;
	size_t len;
	const char *two = "{\"head\":{" CF("(root)", -1) ",\"selfSize\":0,\"id\":1,\"children\":["
		"{" CF("a", 1) ",\"selfSize\":10,\"id\":2,\"children\":["
			"{" CF("b", 2) ",\"selfSize\":5,\"id\":3,\"children\":[]}]},"
		"{" CF("c", 3) ",\"selfSize\":0,\"id\":4,\"children\":["
			"{" CF("a", 1) ",\"selfSize\":7,\"id\":5,\"children\":[]}]}]},"
		"\"samples\":[{\"size\":10,\"nodeId\":2,\"ordinal\":1}]}";

	alloc_table_init(&t);
	is_int(parse_mem(two, strlen(two), ft, &t, &err), 0, "hand-written profile parses");
	is_int(t.n, 2, "two sites (zero-byte frames are left out)");
	is_str(site_name(&t, ft, 0), "a", "a first");
	is_num(t.n ? t.sites[0].live_bytes : 0, 17, 0, "a's two nodes are summed");
	is_num(t.total_live_bytes, 22, 0, "total 22");

	{
		const char *empty = "{\"head\":{" CF("(root)", -1) ",\"selfSize\":0,\"id\":1,"
			"\"children\":[]},\"samples\":[]}";
		is_int(parse_mem(empty, strlen(empty), ft, &t, &err), 0, "a profile with no bytes parses");
		ok(t.n == 0 && t.total_live_bytes == 0, "to an empty table");
	}

	/* members in another order, whitespace, escaped keys, extra members */
	{
		const char *odd = " { \"samples\" : [ ] , \"extra\" : {\"x\":[1,{}]} , \"head\" : "
			"{ \"children\" : [ { \"id\" : 2 , \"self\\u0053ize\" : 3 , "
			"\"callFrame\":{\"functionName\":\"x\\u00e9\",\"url\":\"\",\"lineNumber\":0,"
			"\"columnNumber\":0,\"new\":[true]}, \"children\" : [ ] } ] , \"id\" : 1 , "
			"\"selfSize\" : 1 , " CF("(root)", -1) " } }\n";
		is_int(parse_mem(odd, strlen(odd), ft, &t, &err), 0, "any member order and spacing");
		if (err)
			printf("#   %s\n", err);
		is_str(site_name(&t, ft, 0), "x\xc3\xa9", "escaped name decoded");
		is_num(t.total_live_bytes, 4, 0, "root's own bytes are kept");
	}

	/* a node at tree level d nests 2d deep in the JSON, its callFrame and children 2d + 1:
	 * the scanner's limit allows 255 levels, twice the 129 V8 sends */
	json = deep_chain(DEEPEST, &len);
	is_int(parse_mem(json, len, ft, &t, &err), 0, "a %d-level tree parses (JSON nests %d)",
		DEEPEST, 2 * DEEPEST + 1);
	if (err)
		printf("#   %s\n", err);
	is_str(site_name(&t, ft, 0), "bottom", "its leaf is found");
	is_num(t.total_live_bytes, 100, 0, "with its bytes");
	free(json);
	json = deep_chain(DEEPEST + 1, &len);
	is_int(parse_mem(json, len, ft, &t, &err), -1, "a level more is refused");
	ok(err && strstr(err, "nested deeper than"), "with a message: %s", err ? err : "(none)");
	ok(t.n == 0, "leaving an empty table");
	free(err);
	err = NULL;
	free(json);
	json = deep_chain(5000, &len);
	is_int(parse_mem(json, len, ft, &t, &err), -1, "a 5000-level tree is refused");
	ok(err && strstr(err, "deeper"), "with a message: %s", err ? err : "(none)");
	free(err);
	err = NULL;
	free(json);
	{
		/* a million open brackets: must fail fast without using the C stack */
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_puts(&sb, "{\"head\":");
		for (int i = 0; i < 1000000; i++)
			strbuf_puts(&sb, "{\"children\":[");
		is_int(parse_mem(sb.data, sb.len, ft, &t, &err), -1, "a million nested nodes refused");
		ok(err && strstr(err, "deeper"), "with a message: %s", err ? err : "(none)");
		free(err);
		err = NULL;
		strbuf_free(&sb);
	}

	alloc_table_free(&t);
	functab_free(ft);
}

#define FRAME(name, url, line) "\"callFrame\":{\"functionName\":\"" name "\",\"scriptId\":\"1\"," \
	"\"url\":\"" url "\",\"lineNumber\":" #line ",\"columnNumber\":0}"

/* Whose bytes are whose: Node's and V8's code is charged to the nearest application caller,
 * evaluated code is the application's own (functab_is_internal). */
static void test_charging(void)
{
	const char *json = "{\"head\":{" FRAME("(root)", "", -1) ",\"selfSize\":0,\"id\":1,\"children\":["
		"{" FRAME("app", "file:///app.js", 3) ",\"selfSize\":1,\"id\":2,\"children\":["
			"{" FRAME("push", "", -1) ",\"selfSize\":10,\"id\":3,\"children\":[]},"
			"{" FRAME("slice", "node:buffer", 40) ",\"selfSize\":0,\"id\":4,\"children\":["
				"{" FRAME("toString", "", -1) ",\"selfSize\":20,\"id\":5,\"children\":[]}]},"
			"{" FRAME("compiled", "", 2) ",\"selfSize\":40,\"id\":6,\"children\":["
				"{" FRAME("join", "", -1) ",\"selfSize\":80,\"id\":7,\"children\":[]}]}]},"
		"{" FRAME("processTicks", "node:internal/process/task_queues", 94) ",\"selfSize\":0,"
			"\"id\":8,\"children\":["
			"{" FRAME("(V8 API)", "", -1) ",\"selfSize\":160,\"id\":9,\"children\":[]}]}]},"
		"\"samples\":[]}";
	struct functab *ft = functab_create();
	struct alloc_table t;
	const struct alloc_site *s;
	char *err = NULL;

	alloc_table_init(&t);
	is_int(parse_mem(json, strlen(json), ft, &t, &err), 0, "charging profile parses");
	if (err)
		printf("#   %s\n", err);
	s = find_site(&t, ft, "app");
	is_num(s ? s->live_bytes : 0, 31, 0,
		"a native and a node: script's bytes are charged to their application caller");
	s = find_site(&t, ft, "compiled");
	is_num(s ? s->live_bytes : 0, 120, 0,
		"evaluated code keeps its own bytes, and is the caller natives under it charge");
	s = find_site(&t, ft, "(V8 API)");
	is_num(s ? s->live_bytes : 0, 160, 0, "with no application caller, bytes stay where they are");
	ok(!find_site(&t, ft, "push") && !find_site(&t, ft, "toString") && !find_site(&t, ft, "join"),
		"no site for the natives that had a caller");
	is_num(t.total_live_bytes, 311, 0, "total unchanged");
	alloc_table_free(&t);
	functab_free(ft);
}

/* Paths become file URLs as the CPU profiler gives them (pairs measured on Node 20). */
static void test_urls(void)
{
	static const struct { const char *raw, *want; } cases[] = {
		{"/tmp/we ird#d?ir%x/\\u00e9{b}/a`b<c>.js",
			"file:///tmp/we%20ird%23d%3Fir%25x/%C3%A9%7Bb%7D/a%60b%3Cc%3E.js"},
		{"/tmp/b\\\\s/x|y~z!$&'()*+,;=@[]^.js", "file:///tmp/b/s/x|y~z!$&'()*+,;=@[]^.js"},
		{"/tmp/nl\\nx\\ty/a.js", "file:///tmp/nlxy/a.js"},
		{"node:internal/main/run_main_module", "node:internal/main/run_main_module"},
		{"file:///already.mjs", "file:///already.mjs"},
		{"", ""},
	};
	struct functab *ft = functab_create();
	struct alloc_table t;
	char *err = NULL;

	alloc_table_init(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_printf(&sb, "{\"head\":{\"callFrame\":{\"functionName\":\"hot\",\"scriptId\":\"81\","
			"\"url\":\"%s\",\"lineNumber\":3,\"columnNumber\":14},\"selfSize\":8,\"id\":1,"
			"\"children\":[]}}", cases[i].raw);
		if (parse_mem(sb.data, sb.len, ft, &t, &err) == 0 && t.n == 1) {
			uint32_t cpu = functab_intern(ft, "hot", 3, cases[i].want, strlen(cases[i].want), 3, 14);
			is_str(functab_get(ft, t.sites[0].func)->url, cases[i].want, "url %s", cases[i].want);
			is_int(t.sites[0].func, cpu, "same entry as the CPU profile's call frame");
		} else {
			ok(0, "url case %zu parses: %s", i, err ? err : "");
			free(err);
			err = NULL;
		}
		strbuf_free(&sb);
	}
	alloc_table_free(&t);
	functab_free(ft);
}

static void test_hostile(void)
{
	size_t len = 0;
	char *json = fixture_read("heap-sampling-2.json", &len);
	struct functab *ft = functab_create();
	struct alloc_table t;
	char *err = NULL;
	int accepted = 0, no_msg = 0;

	rejects("", "not a JSON object", "empty input");
	rejects("[]", "not a JSON object", "an array");
	rejects("{\"samples\":[]}", "no head", "missing head");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":-1,\"id\":1,\"children\":[]}}",
		"selfSize out of range", "negative selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1e300,\"id\":1,\"children\":[]}}",
		"selfSize out of range", "absurd selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1e999,\"id\":1,\"children\":[]}}",
		"not finite", "infinite selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":\"5\",\"id\":1,\"children\":[]}}",
		"selfSize is not a number", "string selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"id\":1,\"children\":[]}}", "without a selfSize",
		"missing selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":\"1\",\"children\":[]}}",
		"node id is not a number", "non-numeric id");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1.5,\"children\":[]}}",
		"node id out of range", "fractional id");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"children\":[]}}", "without an id",
		"missing id");
	rejects("{\"head\":{\"selfSize\":1,\"id\":1,\"children\":[]}}", "without a callFrame",
		"missing callFrame");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":{}}}",
		"children is not an array", "children an object");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":[3]}}",
		"child is not an object", "children of numbers");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":7,\"url\":\"\"},\"selfSize\":1,\"id\":1}}",
		"functionName is not a string", "numeric functionName");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"url\":null},\"selfSize\":1,\"id\":1}}",
		"url is not a string", "null url");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"scriptId\":5},\"selfSize\":1,\"id\":1}}",
		"scriptId is not a string", "numeric scriptId");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"lineNumber\":\"3\"},\"selfSize\":1,\"id\":1}}",
		"lineNumber is not a number", "string lineNumber");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"columnNumber\":-7},\"selfSize\":1,\"id\":1}}",
		"columnNumber out of range", "negative columnNumber");
	rejects("{\"head\":{\"callFrame\":[],\"selfSize\":1,\"id\":1}}", "callFrame is not an object",
		"callFrame an array");
	rejects("{\"head\":7}", "node is not an object", "head a number");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"samples\":{}}",
		"samples is not an array", "samples an object");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"samples\":[{\"size\":-4}]}",
		"negative sample", "negative sample size");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1}} x", "trailing data",
		"trailing garbage");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,}}", "malformed JSON",
		"trailing comma");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":[{" CF("b", 2)
		",\"selfSize\":1,\"id\":2}", "truncated", "truncated inside the tree");

	/* a wrong type anywhere, each with its field named */
	rejects("{\"head\":[]}", "node is not an object", "head an array");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":[[]]}}",
		"child is not an object", "a child an array");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":true,\"id\":1}}",
		"selfSize is not a number", "boolean selfSize");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":null}}",
		"node id is not a number", "null id");
	rejects("{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"columnNumber\":{}},"
		"\"selfSize\":1,\"id\":1}}", "columnNumber is not a number", "object columnNumber");
	rejects("{\"head\":{\"callFrame\":\"a\",\"selfSize\":1,\"id\":1}}",
		"callFrame is not an object", "callFrame a string");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"samples\":[3]}",
		"sample is not an object", "a sample a number");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"samples\":[{\"nodeId\":\"1\"}]}",
		"sample field is not a number", "a string nodeId");

	/* a field given twice */
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"id\":2}}", "two ids",
		"two ids");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"selfSize\":1,\"id\":1}}",
		"two selfSizes", "two selfSizes");
	rejects("{\"head\":{" CF("a", 1) "," CF("b", 2) ",\"selfSize\":1,\"id\":1}}",
		"two callFrames", "two callFrames");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":[],"
		"\"children\":[]}}", "two children lists", "two children lists");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"head\":{}}", "two heads",
		"two heads");
	rejects("{\"samples\":[],\"samples\":[]}", "two samples lists", "two samples lists");

	/* the JSON itself */
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"children\":[{" CF("b", 2)
		",\"selfSize\":1,\"id\":2},]}}", "child is not an object", "a trailing comma in children");
	rejects("{\"head\":{" CF("a", 1) " \"selfSize\":1,\"id\":1}}", "malformed JSON",
		"a missing comma");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,\"x\":[1,]}}", "malformed JSON",
		"a malformed unknown member");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1,", "truncated",
		"cut after a member");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1},\"samples\":[{\"size\":1}",
		"truncated", "cut inside samples");
	rejects("{\"head\":{" CF("a", 1) ",\"selfSize\":1,\"id\":1}", "truncated",
		"cut before the last brace");

	/* every cut of a real profile fails cleanly (a stride keeps it quick under ASan) */
	alloc_table_init(&t);
	for (size_t cut = 0; json && cut < len - 2; cut += cut < 2000 ? 1 : 37) {
		if (parse_mem(json, cut, ft, &t, &err) == 0)
			accepted++;
		else if (!err || t.n != 0)
			no_msg++;
		free(err);
		err = NULL;
	}
	is_int(accepted, 0, "no truncation of the real profile is accepted");
	is_int(no_msg, 0, "every truncation gets a message and an empty table");
	free(json);
	/* the same where the JSON nests deepest */
	json = fixture_read("heap-sampling-deep.json", &len);
	accepted = no_msg = 0;
	for (size_t cut = 0; json && cut < len - 2; cut += cut < 8000 ? 1 : 37) {
		if (parse_mem(json, cut, ft, &t, &err) == 0)
			accepted++;
		else if (!err || t.n != 0)
			no_msg++;
		free(err);
		err = NULL;
	}
	is_int(accepted, 0, "no truncation of the deep profile is accepted");
	is_int(no_msg, 0, "every one gets a message and an empty table");
	is_int(heapprof_parse(NULL, 0, ft, &t, &err), -1, "NULL input refused");
	free(err);
	alloc_table_free(&t);
	functab_free(ft);
	free(json);
}

static void test_diff(void)
{
	struct alloc_table t, base;
	struct alloc_site s_t[] = {{1, 300, 0}, {2, 100, 0}, {3, 50, 0}};
	struct alloc_site s_b[] = {{4, 500, 0}, {1, 100, 0}, {3, 60, 0}};

	alloc_table_init(&t);
	alloc_table_init(&base);
	for (size_t i = 0; i < 3; i++) {
		t.sites = realloc(t.sites, (t.n + 1) * sizeof(*t.sites));
		t.sites[t.n++] = s_t[i];
		t.cap = t.n;
		base.sites = realloc(base.sites, (base.n + 1) * sizeof(*base.sites));
		base.sites[base.n++] = s_b[i];
		base.cap = base.n;
	}
	t.total_live_bytes = 450;
	alloc_table_diff(&t, NULL);
	is_num(t.sites[1].growth_bytes, 100, 0, "no baseline: growth is live bytes");
	alloc_table_diff(&t, &base);
	is_int(t.n, 4, "a site only in the baseline is added");
	ok(t.sites[0].func == 1 && t.sites[1].func == 2 && t.sites[2].func == 3,
		"existing sites keep their order by live bytes");
	is_num(t.sites[0].growth_bytes, 200, 0, "growth = live - baseline");
	is_num(t.sites[1].growth_bytes, 100, 0, "new site: growth = live");
	is_num(t.sites[2].growth_bytes, -10, 0, "shrinking site: negative growth");
	ok(t.n == 4 && t.sites[3].func == 4 && t.sites[3].live_bytes == 0 &&
		t.sites[3].growth_bytes == -500, "freed site: live 0, growth -500");
	is_num(t.total_live_bytes, 450, 0, "total unchanged");
	alloc_table_diff(&t, &base);
	is_int(t.n, 4, "diffing again adds nothing");
	alloc_table_sort_growth(&t);
	ok(t.sites[0].func == 1 && t.sites[1].func == 2 && t.sites[2].func == 3 &&
		t.sites[3].func == 4, "sorted by growth: 200, 100, -10, -500");
	alloc_table_free(&t);
	alloc_table_free(&base);
}

/* Snapshots. */

static void test_snapshot_fixture(const char *dir)
{
	char path[4096], *cause = NULL, *fixture, *out;
	size_t len = 0, out_len = 0, bytes = 0;
	struct strbuf want;
	struct heapsnap *f;
	struct json_span arr, el;
	size_t pos = 0;
	cJSON *ref, *c;
	int n = 0, bad = 0;
	struct stat st;

	snprintf(path, sizeof(path), "%s/fixture.heapsnapshot", dir);
	fixture = fixture_read("heap-snapshot-chunks.json", &len);
	ok(fixture && json_validate(fixture, len, &arr) == 0, "chunks fixture read");
	if (!fixture)
		return;
	ref = cJSON_ParseWithLength(fixture, len);
	strbuf_init(&want);
	cJSON_ArrayForEach(c, ref)
		strbuf_puts(&want, c->valuestring);
	cJSON_Delete(ref);

	f = heapsnap_open(path, &cause);
	ok(f != NULL, "open %s", path);
	while (f && json_array_next(arr, &pos, &el) == 1) {
		n++;
		if (heapsnap_chunk(f, el.p, el.n, &cause))
			bad++;
	}
	is_int(n, 3, "three raw chunks");
	is_int(bad, 0, "each chunk decoded and written");
	ok(f && fixture_count_entries(dir) == 1 && access(path, F_OK) != 0,
		"while writing: one temporary file, the target not there yet");
	is_int(heapsnap_finish(f, &bytes, &cause), 0, "finished");
	out = fixture_read_file(path, &out_len);
	ok(out && out_len == want.len && bytes == want.len && memcmp(out, want.data, want.len) == 0,
		"the file is the decoded chunks (%zu bytes), as cJSON decodes them", bytes);
	ok(out && out_len > 20 && memcmp(out, "{\"snapshot\":{\"meta\":", 20) == 0,
		"it starts as a heap snapshot");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	is_int(fixture_count_entries(dir), 1, "no temporary file left");
	unlink(path);
	free(out);
	free(fixture);
	strbuf_free(&want);
}

static void test_snapshot_small(const char *dir)
{
	char path[4096], *cause = NULL, *out;
	size_t out_len = 0, bytes = 0;
	struct heapsnap *f;
	const char *c1 = "\"{\\\"k\\\":\\\"q\\\\\\\"\\u00e9\\ud83d\\ude00\\\"\"";
	const char *c2 = "\",\\\"n\\\":[1,\\n2]}\"";
	cJSON *root;
	struct stat st;

	snprintf(path, sizeof(path), "%s/small.heapsnapshot", dir);
	/* an existing file is replaced */
	{
		FILE *old = fopen(path, "w");
		if (old) {
			fputs("old", old);
			fclose(old);
		}
	}
	f = heapsnap_open(path, &cause);
	ok(f && heapsnap_chunk(f, c1, strlen(c1), &cause) == 0 &&
		heapsnap_chunk(f, c2, strlen(c2), &cause) == 0, "escaped chunks accepted");
	is_int(heapsnap_finish(f, &bytes, &cause), 0, "finished over an existing file");
	out = fixture_read_file(path, &out_len);
	root = out ? cJSON_ParseWithLength(out, out_len) : NULL;
	ok(root, "the concatenation is valid JSON (%zu bytes)", out_len);
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(root, "k")), "q\"\xc3\xa9\xf0\x9f\x98\x80",
		"\\\", \\u00e9 and a surrogate pair decoded");
	is_int(cJSON_GetArraySize(cJSON_GetObjectItem(root, "n")), 2, "\\n decoded");
	is_int(bytes, out_len, "bytes_out is the file size");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "replaced file has mode 0600");
	cJSON_Delete(root);
	free(out);
	unlink(path);

	/* abort */
	f = heapsnap_open(path, &cause);
	ok(f && heapsnap_chunk(f, c1, strlen(c1), &cause) == 0, "chunk before abort");
	heapsnap_abort(f);
	is_int(fixture_count_entries(dir), 0, "abort leaves nothing");

	/* a bad chunk */
	f = heapsnap_open(path, &cause);
	ok(f && heapsnap_chunk(f, "{}", 2, &cause) == -1 && cause, "a non-string chunk refused: %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	ok(f && heapsnap_chunk(f, "\"a\nb\"", 5, &cause) == -1 && cause,
		"a raw newline in a chunk refused");
	free(cause);
	cause = NULL;
	ok(f && heapsnap_chunk(f, "\"ab\\\"", 5, &cause) == -1 && cause,
		"an unterminated chunk refused");
	free(cause);
	cause = NULL;
	heapsnap_abort(f);
	is_int(fixture_count_entries(dir), 0, "nothing left after the refused chunks");

	/* empty */
	f = heapsnap_open(path, &cause);
	is_int(heapsnap_finish(f, &bytes, &cause), -1, "an empty snapshot is refused");
	ok(cause && fixture_count_entries(dir) == 0, "with a message, leaving nothing: %s",
		cause ? cause : "(none)");
	free(cause);
	cause = NULL;

	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/no-such-dir/x.heapsnapshot", dir);
	f = heapsnap_open(path, &cause);
	ok(!f && cause && strstr(cause, "no-such-dir"), "missing directory: %s",
		cause ? cause : "(none)");
	free(cause);
}

/* A whole snapshot from a live node, chunk by chunk as it streams. */
static void test_snapshot_live(const char *dir)
{
	const char *node = getenv("NODE");
	char cmd[8192], path[4096], *cause = NULL, *line = NULL, *out;
	size_t cap = 0, out_len = 0, bytes = 0;
	struct heapsnap *f;
	ssize_t n;
	int chunks = 0, bad = 0;
	FILE *p;
	cJSON *root;

	if (!node || !*node) {
		printf("ok %d - # SKIP no node for a live snapshot\n", ++tap_n);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --no-warnings --expose-internals "
		"'%s/tests/fixtures/record-heapprofile.js' --snapshot-stdout", node, SRCDIR);
	snprintf(path, sizeof(path), "%s/live.heapsnapshot", dir);
	p = popen(cmd, "r");
	f = heapsnap_open(path, &cause);
	ok(p && f, "node started, file open");
	while (p && f && (n = getline(&line, &cap, p)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		chunks++;
		if (heapsnap_chunk(f, line, (size_t)n, &cause))
			bad++;
	}
	free(line);
	is_int(p ? pclose(p) : -1, 0, "node exited cleanly");
	ok(chunks > 3 && bad == 0, "%d chunks written", chunks);
	is_int(heapsnap_finish(f, &bytes, &cause), 0, "finished");
	out = fixture_read_file(path, &out_len);
	root = out ? cJSON_ParseWithLength(out, out_len) : NULL;
	ok(root, "the whole %zu-byte snapshot is valid JSON", bytes);
	{
		cJSON *snap = cJSON_GetObjectItem(root, "snapshot");
		cJSON *fields = cJSON_GetObjectItem(cJSON_GetObjectItem(snap, "meta"), "node_fields");
		int nodes = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(snap, "node_count"));
		int nf = cJSON_GetArraySize(fields);
		ok(nodes > 1000 && nf > 0 &&
			cJSON_GetArraySize(cJSON_GetObjectItem(root, "nodes")) == nodes * nf,
			"node_count (%d) matches the nodes array", nodes);
	}
	cJSON_Delete(root);
	free(out);
	unlink(path);
	is_int(fixture_count_entries(dir), 0, "nothing else left");
}

int main(void)
{
	char dir[] = "/tmp/ntop-heapprof-XXXXXX";

	test_fixtures();
	test_synthetic();
	test_charging();
	test_urls();
	test_hostile();
	test_diff();
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	test_snapshot_fixture(dir);
	test_snapshot_small(dir);
	test_snapshot_live(dir);
	rmdir(dir);
	return done_testing();
}
