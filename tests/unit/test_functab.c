/* test_functab.c: interning, stable strings, special names, call frames read from JSON. */
#include "config.h"

#include "functab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpull.h"
#include "tap.h"

/* Reads the call frame in json; the function's index, or -1 with *err set (to free). */
static long read_frame(struct functab *ft, const char *json, char **err)
{
	struct json_reader r;
	uint32_t func;

	json_reader_init(&r, json, strlen(json), "invalid frame");
	*err = NULL;
	if (functab_read_call_frame(ft, &r, &func) == 0 && json_read_end(&r) == 0)
		return func;
	*err = r.err;
	return -1;
}

static void test_call_frames(void)
{
	struct functab *ft = functab_create();
	const struct func_info *fi;
	char *err;
	long f;

	f = read_frame(ft, "{\"functionName\":\"fib\",\"scriptId\":\"81\",\"url\":\"file:///a.js\","
		"\"lineNumber\":4,\"columnNumber\":10}", &err);
	is_int(f, functab_intern(ft, "fib", 3, "file:///a.js", 12, 4, 10), "a call frame is interned");
	f = read_frame(ft, "{\"columnNumber\":10,\"new\":[{}],\"lineNumber\":4,"
		"\"\\u0075rl\":\"file:///a.js\",\"functionName\":\"f\\u0069b\"}", &err);
	is_int(f, functab_intern(ft, "fib", 3, "file:///a.js", 12, 4, 10),
		"in any order, escaped, with members V8 may add later");
	f = read_frame(ft, "{\"functionName\":\"load\",\"url\":\"/app/my lib.js\",\"lineNumber\":1,"
		"\"columnNumber\":2}", &err);
	fi = f >= 0 ? functab_get(ft, (uint32_t)f) : NULL;
	is_str(fi ? fi->url : NULL, "file:///app/my%20lib.js", "a bare path becomes the file URL");
	f = read_frame(ft, "{\"functionName\":\"push\",\"url\":\"\"}", &err);
	fi = f >= 0 ? functab_get(ft, (uint32_t)f) : NULL;
	ok(fi && fi->line == -1 && fi->column == -1 && fi->url[0] == '\0',
		"no position and no url: -1, -1, \"\"");

	static const struct { const char *json, *want; } bad[] = {
		{"[]", "callFrame is not an object"},
		{"{\"functionName\":1}", "callFrame.functionName is not a string"},
		{"{\"url\":null}", "callFrame.url is not a string"},
		{"{\"scriptId\":81}", "callFrame.scriptId is not a string"},
		{"{\"lineNumber\":\"4\"}", "callFrame.lineNumber is not a number"},
		{"{\"columnNumber\":-2}", "callFrame.columnNumber out of range"},
		{"{\"lineNumber\":2147483648}", "callFrame.lineNumber out of range"},
		{"{\"functionName\":\"a\"", "truncated"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = read_frame(ft, bad[i].json, &err);
		ok(f == -1 && err && strstr(err, bad[i].want), "refused: %s", err ? err : bad[i].json);
		free(err);
	}
	functab_free(ft);
}

/* What counts as Node's or V8's own code, by url and position. */
static void test_internal(void)
{
	static const struct {
		const char *name, *url;
		int line;
		bool internal;
		const char *what;
	} cases[] = {
		{"listOnTimeout", "node:internal/timers", 511, true, "a node: script"},
		{"emit", "internal/events.js", 20, true, "an internal/ script (before Node 16)"},
		{"push", "", -1, true, "native code: no script, no position"},
		{"(root)", "", -1, true, "the VM's root"},
		{"(garbage collector)", "", -1, true, "the garbage collector"},
		{"gen_7_work", "", 2, false, "evaluated code: a position, no script"},
		{"", "", 0, false, "anonymous evaluated code"},
		{"handler", "file:///app/server.js", 9, false, "an application script"},
		{"map", "file:///app/node_modules/lodash/map.js", 4, false, "a dependency"},
		{"x", "file:///app/node:y.js", 1, false, "node: inside a path"},
		{"(idle)", "file:///x.js", 0, false, "a special name in a script"},
	};
	struct functab *ft = functab_create();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t f = functab_intern(ft, cases[i].name, strlen(cases[i].name), cases[i].url,
			strlen(cases[i].url), cases[i].line, cases[i].line < 0 ? -1 : 0);
		is_int(functab_is_internal(functab_get(ft, f)), cases[i].internal, "%s: %s",
			cases[i].what, cases[i].internal ? "internal" : "the application's");
	}
	functab_free(ft);
}

int main(void)
{
	struct functab *ft = functab_create();
	uint32_t a = functab_intern(ft, "fib", 3, "file:///a.js", 12, 4, 10);
	uint32_t b = functab_intern(ft, "fib", 3, "file:///a.js", 12, 4, 11);
	uint32_t a2 = functab_intern(ft, "fibX", 3, "file:///a.jsX", 12, 4, 10);
	const struct func_info *fi = functab_get(ft, a);
	const char *name_before = fi->name;
	char buf[64];

	ok(a != b, "different column gives a different function");
	is_int(a2, a, "same key (by length, not NUL) gives the same index");
	is_str(fi->name, "fib", "name stored");
	is_str(fi->url, "file:///a.js", "url stored");
	is_int(fi->line, 4, "line stored");
	is_int(fi->kind, FUNC_JS, "ordinary function is js");

	/* many functions force every table to grow; earlier strings must not move */
	for (int i = 0; i < 50000; i++) {
		int n = snprintf(buf, sizeof(buf), "f%d", i);
		functab_intern(ft, buf, (size_t)n, "file:///big.js", 14, i, 0);
	}
	is_int(functab_count(ft), 50002, "all functions interned");
	ok(functab_get(ft, a)->name == name_before, "string pointers stable across growth");
	is_int(functab_intern(ft, "f777", 4, "file:///big.js", 14, 777, 0), 777 + 2,
		"lookup after growth");
	ok(functab_get(ft, 60000) == NULL, "out-of-range index gives NULL");

	uint32_t r = functab_intern(ft, "(root)", 6, "", 0, -1, -1);
	uint32_t p = functab_intern(ft, "(program)", 9, "", 0, -1, -1);
	uint32_t i = functab_intern(ft, "(idle)", 6, "", 0, -1, -1);
	uint32_t g = functab_intern(ft, "(garbage collector)", 19, "", 0, -1, -1);
	uint32_t fake = functab_intern(ft, "(idle)", 6, "file:///x.js", 12, 0, 0);
	uint32_t u = functab_intern(ft, "(unresolved function)", 21, "", 0, -1, -1);
	is_int(functab_get(ft, r)->kind, FUNC_ROOT, "(root)");
	is_int(functab_get(ft, p)->kind, FUNC_PROGRAM, "(program)");
	is_int(functab_get(ft, i)->kind, FUNC_IDLE, "(idle)");
	is_int(functab_get(ft, g)->kind, FUNC_GC, "(garbage collector)");
	is_int(functab_get(ft, fake)->kind, FUNC_JS, "special name with a url is ordinary");
	is_int(functab_get(ft, u)->kind, FUNC_JS, "(unresolved function) is ordinary");

	uint32_t anon = functab_intern(ft, "", 0, "", 0, 0, 0);
	is_str(functab_get(ft, anon)->name, "", "anonymous name is empty");
	ok(functab_get(ft, a)->deopt_reason == NULL, "no deopt reason at first");
	functab_set_deopt(ft, a, "Insufficient type feedback", 26);
	is_str(functab_get(ft, a)->deopt_reason, "Insufficient type feedback", "deopt reason set");
	functab_set_deopt(ft, a, "", 0);
	is_str(functab_get(ft, a)->deopt_reason, "Insufficient type feedback", "empty reason ignored");

	char big[100000];
	memset(big, 'x', sizeof(big));
	uint32_t bi = functab_intern(ft, big, sizeof(big), "", 0, 1, 1);
	is_int(strlen(functab_get(ft, bi)->name), sizeof(big), "a very long name is kept whole");
	is_str(functab_get(ft, a)->name, "fib", "earlier strings intact after a long one");

	functab_free(ft);
	functab_free(NULL);
	{
		struct functab *d = functab_create();
		uint32_t nat = functab_intern(d, "", 0, "", 0, -1, -1);
		uint32_t ev = functab_intern(d, "", 0, "", 0, 0, 9);
		uint32_t an = functab_intern(d, "", 0, "file:///a.js", 12, 3, 4);
		uint32_t named = functab_intern(d, "fib", 3, "", 0, -1, -1);
		is_str(functab_display_name(functab_get(d, nat)), "(native code)",
			"no name, no script, no position: native code");
		is_str(functab_display_name(functab_get(d, ev)), "(evaluated code)",
			"no name, no script, a position: evaluated code");
		is_str(functab_display_name(functab_get(d, an)), "(anonymous)",
			"no name in a script: anonymous");
		is_str(functab_display_name(functab_get(d, named)), "fib", "a name is shown as it is");
		functab_free(d);
	}
	test_call_frames();
	test_internal();
	return done_testing();
}
