/* Unit tests for sourcemap and smapfind: real maps written by tsc and esbuild
 * (tests/fixtures/sourcemap/record.sh), looked up where V8's frames point (the '(' of a
 * function's parameters), inline data: maps, sourceRoot, index maps; and every kind of broken
 * or lying map and path refused with one sentence, never a crash. */
#include "config.h"

#include "smapfind.h"
#include "asuser.h"
#include "sourcemap.h"
#include "tap.h"
#include "fixture.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIX SRCDIR "/tests/fixtures/sourcemap"

/* 0-based line and column (bytes: the texts searched are ASCII there) of offset off. */
static void line_col(const char *text, size_t off, uint32_t *line, uint32_t *col)
{
	size_t i, start = 0;
	*line = 0;
	for (i = 0; i < off; i++)
		if (text[i] == '\n')
			(*line)++, start = i + 1;
	*col = (uint32_t)(off - start);
}

/* Where V8 puts the frame of the function around the first `inside`: the '(' after the last
 * "function " before it. */
static int frame_of(const char *text, const char *inside, uint32_t *line, uint32_t *col)
{
	const char *in = strstr(text, inside), *f = NULL, *p = text;
	if (!in)
		return -1;
	while ((p = strstr(p, "function ")) && p < in)
		f = p++;
	if (!f)
		return -1;
	line_col(text, (size_t)(strchr(f, '(') - text), line, col);
	return 0;
}

static struct sourcemap *load_map(const char *name)
{
	size_t len;
	char *err = NULL, *buf = fixture_read(name, &len);
	struct sourcemap *m = buf ? sourcemap_parse(buf, len, &err) : NULL;
	if (err)
		printf("# %s: %s\n", name, err);
	free(err);
	return m;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);
	return s && a >= b && !strcmp(s + a - b, tail);
}

/* The error a map text gets (NULL if it parses). */
static char *parse_err(const char *text)
{
	char *err = NULL, *buf = xstrdup(text);
	struct sourcemap *m = sourcemap_parse(buf, strlen(text), &err);
	sourcemap_free(m);
	if (m && !err)
		return NULL;
	return err ? err : xstrdup("(no sentence)");
}

static void refused(const char *text, const char *want, const char *what)
{
	char *err = parse_err(text);
	ok(err && strstr(err, want) && !strncmp(err, "invalid source map", 18) &&
		err[strlen(err) - 1] == '.', "refused: %s", what);
	if (!err || !strstr(err, want))
		printf("#   got \"%s\", want \"%s\"\n", err ? err : "(parsed)", want);
	free(err);
}

/* Base64 VLQ of v appended to out. */
static void vlq_put(char *out, long long v)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned long long u = v < 0 ? ((unsigned long long)-v << 1) | 1 : (unsigned long long)v << 1;
	size_t n = strlen(out);
	do {
		unsigned d = u & 31;
		u >>= 5;
		out[n++] = b64[d | (u ? 32 : 0)];
	} while (u);
	out[n] = '\0';
}

static void test_tsc_cjs(void)
{
	size_t len;
	char *js = fixture_read_text("sourcemap/tsc-cjs/main.js", &len);
	struct sourcemap *m = load_map("sourcemap/tsc-cjs/main.js.map");
	struct sourcemap_pos pos;
	uint32_t line, col;
	char name[64], text[256];
	long n;

	ok(m != NULL, "tsc's CommonJS map parses");
	if (!m || !js) {
		free(js);
		sourcemap_free(m);
		return;
	}
	is_int(sourcemap_source_count(m), 1, "one source");
	is_str(sourcemap_source_path(m, 0), "../src/main.ts", "its path, as the map says it");
	/* function hotLoop(n, scale) in main.js; line 6 of main.ts (0-based 5) */
	ok(frame_of(js, "Math.sqrt", &line, &col) == 0, "hotLoop's frame found in main.js");
	ok(sourcemap_lookup(m, line, col, &pos) == 1, "hotLoop's '(' is mapped");
	is_int(pos.line, 5, "to line 6 of main.ts");
	is_int(pos.column, 16, "at the '(' of its parameters");
	ok(pos.name == NULL, "tsc writes no names");
	is_int(sourcemap_name_at(m, &pos, name, sizeof name), 7, "the name from sourcesContent");
	is_str(name, "hotLoop", "is hotLoop");
	n = sourcemap_source_line(m, pos.source, pos.line + 1, text, sizeof text);
	ok(n > 0 && (size_t)n == strlen("function hotLoop(n: number, scale: number): number {") &&
		!memcmp(text, "function hotLoop(n: number, scale: number): number {", (size_t)n),
		"the original line's text");
	/* const spin = (ms) => {: an arrow function held in a const */
	const char *s = strstr(js, "const spin = (");
	line_col(js, (size_t)(strchr(s, '(') - js), &line, &col);
	ok(sourcemap_lookup(m, line, col, &pos) == 1 && pos.line == 11, "spin's '(' maps to line 12");
	ok(sourcemap_name_at(m, &pos, name, sizeof name) && !strcmp(name, "spin"),
		"an arrow function is named by its const");
	/* column 0 of a line takes the line's first segment (V8's top level is at 0:0) */
	ok(sourcemap_lookup(m, 0, 0, &pos) == 0, "line 1 (\"use strict\") has no segment");
	ok(sourcemap_lookup(m, 3, 0, &pos) == 1 && pos.line == 0 && pos.column == 0,
		"column 0 takes the first segment of its line");
	ok(sourcemap_lookup(m, 100000, 3, &pos) == 0, "a line past the end is not mapped");
	ok(sourcemap_source_line(m, 0, 1000, text, sizeof text) == -1, "no line 1000 in main.ts");
	ok(sourcemap_source_line(m, 7, 1, text, sizeof text) == -1, "no source 7");
	/* the non-ASCII line reads back decoded */
	n = sourcemap_source_line(m, 0, 4, text, sizeof text);
	ok(n > 0 && strstr(text, "\xc3\xbcn\xc3\xaf" "code \xe2\x9c\x93") != NULL,
		"\\u escapes of sourcesContent become UTF-8");
	free(js);
	sourcemap_free(m);

	/* a class's method: area() { in shapes.js, line 9 of shapes.ts */
	js = fixture_read_text("sourcemap/tsc-cjs/shapes.js", &len);
	m = load_map("sourcemap/tsc-cjs/shapes.js.map");
	if (js && m) {
		s = strstr(js, "area() {");
		line_col(js, (size_t)(s + 4 - js), &line, &col);
		ok(sourcemap_lookup(m, line, col, &pos) == 1 && pos.line == 8, "area() maps to line 9");
		ok(sourcemap_name_at(m, &pos, name, sizeof name) && !strcmp(name, "area"),
			"a method is named");
		ok(frame_of(js, "let sum", &line, &col) == 0 &&
			sourcemap_lookup(m, line, col, &pos) == 1 && pos.line == 13 &&
			sourcemap_name_at(m, &pos, name, sizeof name) && !strcmp(name, "totalArea"),
			"a generic function is named (its <T extends Shape> skipped)");
	} else {
		ok(0, "shapes.js and its map read");
	}
	free(js);
	sourcemap_free(m);
}

/* esbuild --bundle --minify: the minified name maps back to the TypeScript one. */
static void check_bundle(struct sourcemap *m, const char *js, uint32_t line_off, const char *what)
{
	struct sourcemap_pos pos;
	uint32_t line, col;
	char text[256];

	ok(frame_of(js, "Math.sqrt(", &line, &col) == 0, "%s: hotLoop's minified frame", what);
	ok(sourcemap_lookup(m, line + line_off, col, &pos) == 1, "%s: it is mapped", what);
	is_str(pos.name, "hotLoop", "%s: to its TypeScript name", what);
	ok(ends_with(pos.source_path, "src/main.ts"), "%s: in main.ts (%s)", what,
		pos.source_path ? pos.source_path : "none");
	is_int(pos.line, 5, "%s: line 6", what);
	long n = sourcemap_source_line(m, pos.source, 6, text, sizeof text);
	ok(n > 16 && !memcmp(text, "function hotLoop(", 17), "%s: the original text of line 6", what);
	ok(frame_of(js, ".area();return", &line, &col) == 0 &&
		sourcemap_lookup(m, line + line_off, col, &pos) == 1 && pos.name &&
		!strcmp(pos.name, "totalArea") && ends_with(pos.source_path, "src/shapes.ts") &&
		pos.line == 13, "%s: totalArea, shapes.ts line 14", what);
}

static void test_esbuild(void)
{
	size_t len;
	char *js = fixture_read_text("sourcemap/esbuild/bundle.min.js", &len);
	struct sourcemap *m = load_map("sourcemap/esbuild/bundle.min.js.map");
	char *url = NULL, *err = NULL;
	struct smap_ref ref;

	ok(m && js, "esbuild's minified bundle and its map");
	if (m && js)
		check_bundle(m, js, 0, "esbuild");
	ok(js && sourcemap_find_url(js, len, &url) == 1 && !strcmp(url, "bundle.min.js.map"),
		"the bundle's comment names its map");
	ok(url && smapfind_resolve("/srv/app/dist/bundle.min.js", url, &ref, &err) == 0 &&
		ref.path && !strcmp(ref.path, "/srv/app/dist/bundle.min.js.map"),
		"resolved beside the script");
	smap_ref_free(&ref);
	free(url);
	free(js);
	sourcemap_free(m);

	/* --sourcemap=inline: a data: URL */
	js = fixture_read_text("sourcemap/esbuild/bundle-inline.min.js", &len);
	url = NULL;
	m = NULL;
	if (js && sourcemap_find_url(js + (len > 4096 ? len - 4096 : 0), len > 4096 ? 4096 : len,
			&url) == 1 && smapfind_resolve("/x/b.js", url, &ref, &err) == 0 && ref.data)
		m = sourcemap_parse(ref.data, ref.len, &err);
	ok(m != NULL, "the inline map is found in the tail and decoded%s%s", err ? ": " : "",
		err ? err : "");
	if (m)
		check_bundle(m, js, 0, "inline");
	free(err);
	free(url);
	free(js);
	sourcemap_free(m);
}

static void test_root_and_index(void)
{
	size_t len;
	struct sourcemap *m = load_map("sourcemap/tsc-root/main.js.map");
	struct sourcemap_pos pos;
	char *js, name[64];
	uint32_t line, col;

	ok(m && !strcmp(sourcemap_source_path(m, 0), "/srv/app/src/main.ts"),
		"sourceRoot is joined to the sources");
	sourcemap_free(m);

	/* an index map: tsc's shapes.js, then esbuild's bundle, a section each */
	js = fixture_read_text("sourcemap/index/index.js", &len);
	m = load_map("sourcemap/index/index.js.map");
	ok(m && js, "an index map with two sections parses");
	if (m && js) {
		is_int(sourcemap_source_count(m), 3, "its sources are both sections'");
		check_bundle(m, js, 0, "index, second section");
		const char *s = strstr(js, "area() {");
		line_col(js, (size_t)(s + 4 - js), &line, &col);
		ok(sourcemap_lookup(m, line, col, &pos) == 1 && pos.line == 8 &&
			ends_with(pos.source_path, "src/shapes.ts") && pos.name == NULL &&
			sourcemap_name_at(m, &pos, name, sizeof name) && !strcmp(name, "area"),
			"index, first section: area() in shapes.ts line 9, named from its text");
	}
	free(js);
	sourcemap_free(m);

	/* sections placed by column on a shared line */
	m = NULL;
	char *err = NULL, *buf = xstrdup("{\"version\":3,\"sections\":["
		"{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"a.ts\"],"
		"\"names\":[\"fa\"],\"mappings\":\"AAAAA\"}},"
		"{\"offset\":{\"line\":0,\"column\":100},\"map\":{\"version\":3,\"sources\":[\"b.ts\"],"
		"\"names\":[\"fb\"],\"mappings\":\"AAKAA;AAMA\"}}]}");
	m = sourcemap_parse(buf, strlen(buf), &err);
	ok(m != NULL, "sections on one line parse");
	if (m) {
		ok(sourcemap_lookup(m, 0, 50, &pos) && !strcmp(pos.source_path, "a.ts") &&
			!strcmp(pos.name, "fa"), "before the second section's column: the first");
		ok(sourcemap_lookup(m, 0, 120, &pos) && !strcmp(pos.source_path, "b.ts") &&
			pos.line == 5 && !strcmp(pos.name, "fb"), "after it: the second, its own indices");
		ok(sourcemap_lookup(m, 1, 0, &pos) && pos.line == 11 && pos.column == 0,
			"its next line has no column offset");
	}
	free(err);
	sourcemap_free(m);
}

static void test_lookup_rules(void)
{
	struct sourcemap_pos pos;
	char *err = NULL;
	/* line 0: cols 4 (a:0:0), 10 (1-field: unmapped), 20 (a:2:5 name n0); line 1: cols 7 then
	 * 3 (written out of order) */
	char *buf = xstrdup("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"n0\"],"
		"\"mappings\":\"IAAA,M,UAEKA;OACC,JADA\"}");
	struct sourcemap *m = sourcemap_parse(buf, strlen(buf), &err);

	ok(m != NULL, "a hand-made map parses%s%s", err ? ": " : "", err ? err : "");
	if (!m)
		return;
	is_int(sourcemap_segment_count(m), 5, "five segments");
	ok(sourcemap_lookup(m, 0, 3, &pos) == 0, "before the first segment: not mapped");
	ok(sourcemap_lookup(m, 0, 0, &pos) == 1 && pos.column == 0 && pos.line == 0,
		"column 0: the first segment (least upper bound)");
	ok(sourcemap_lookup(m, 0, 4, &pos) == 1 && pos.name == NULL, "on a segment");
	ok(sourcemap_lookup(m, 0, 9, &pos) == 1 && pos.line == 0, "between: the one before");
	ok(sourcemap_lookup(m, 0, 12, &pos) == 0, "in a one-field segment's stretch: not mapped");
	ok(sourcemap_lookup(m, 0, 25, &pos) == 1 && pos.line == 2 && pos.column == 5 && pos.name &&
		!strcmp(pos.name, "n0"), "past the last: the last, with its name");
	ok(sourcemap_lookup(m, 1, 5, &pos) == 1 && pos.line == 2,
		"a line written out of order is sorted (col 3 < 5 < 7)");
	ok(sourcemap_lookup(m, 1, 7, &pos) == 1 && pos.line == 3, "its col 7");
	sourcemap_free(m);

	/* the name rule on plain lines */
	struct { const char *line; uint32_t col; const char *want; } cases[] = {
		{ "function foo(a, b) {", 12, "foo" },
		{ "  async function* gen<T>(x: T) {", 24, "gen" },
		{ "const bar = (x: number) => x;", 12, "bar" },
		{ "  baz: (x) => x,", 7, "baz" },
		{ "  async qux(a) {", 11, "qux" },
		{ "function (a) {", 9, "" },
		{ "const f = function (a) {", 19, "" },
		{ "x = y == (z)", 9, "" },
		{ "function foo(a) {", 0, "foo" },
		{ "async function foo(a) {", 0, "foo" },
		{ "  constructor(r) {", 13, "constructor" },
		{ "if (a) {", 3, "" },
		{ "export function totalArea<T extends Shape>(s: T[]) {", 25, "totalArea" },
		{ "short", 50, "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32] = "";
		sourcemap_name_in_line(cases[i].line, strlen(cases[i].line), cases[i].col, name,
			sizeof name);
		is_str(name, cases[i].want, "name in \"%s\" at %u", cases[i].line, cases[i].col);
	}
	char tiny[4];
	is_int(sourcemap_name_in_line("function longname(", 18, 17, tiny, sizeof tiny), 3,
		"a name is cut to the buffer");
	is_str(tiny, "lon", "and NUL-terminated");
}

static void test_broken(void)
{
	char big[512];

	refused("", "not a JSON object", "empty");
	refused("[1]", "not a JSON object", "an array");

	/* one line written backwards, past what is kept decoded for such lines */
	{
		size_t n = SOURCEMAP_MAX_UNSORTED + 10, at;
		char *text = xmalloc(n * 5 + 200);
		at = (size_t)sprintf(text, "{\"version\":3,\"sources\":[\"a.js\"],\"mappings\":\"");
		text[at] = '\0';
		vlq_put(text + at, (long long)n);
		at += strlen(text + at);
		at += (size_t)sprintf(text + at, "AAA");
		for (size_t i = 1; i < n; i++, at += 5)
			memcpy(text + at, ",DAAA", 5);
		at += (size_t)sprintf(text + at, "\"}");
		char *err = NULL;
		struct sourcemap *m = sourcemap_parse(text, at, &err); /* takes text over */
		ok(!m && err && strstr(err, "out of order"), "refused: %zu segments on a line written "
			"backwards (%s)", n, err ? err : "parsed");
		sourcemap_free(m);
		free(err);
	}
	refused("{\"version\":3,\"mappings\":\"AAAA\"", "truncated", "truncated JSON");
	refused("{\"sources\":[],\"mappings\":\"\"}", "no version", "no version");
	refused("{\"version\":2,\"sources\":[],\"mappings\":\"\"}", "version is not 3", "version 2");
	refused("{\"version\":\"3\",\"sources\":[]}", "version", "a version that is a string");
	refused("{\"version\":3,\"sources\":{},\"mappings\":\"\"}", "sources is not an array",
		"sources an object");
	refused("{\"version\":3,\"sources\":[1],\"mappings\":\"\"}", "source 0 is not a string",
		"a source a number");
	refused("{\"version\":3,\"sources\":[],\"names\":[null],\"mappings\":\"\"}",
		"name 0 is not a string", "a null name");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":3}", "mappings is not a string",
		"mappings a number");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA!A\"}", "bad VLQ digit",
		"a character outside base64");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAg\"}", "truncated VLQ",
		"a VLQ continued past the end");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAg,A\"}", "truncated VLQ",
		"a VLQ continued past a comma");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"gggggggggA\"}", "overflows",
		"a VLQ of 50 bits");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA\"}", "2 fields",
		"a segment of 2 fields");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAA\"}", "3 fields",
		"a segment of 3 fields");
	refused("{\"version\":3,\"sources\":[\"a\"],\"names\":[\"x\"],\"mappings\":\"AAAAAA\"}",
		"more than 5 fields", "a segment of 6 fields");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"ACAA\"}",
		"source index 1 is out of range", "a source index past the sources");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"ADAA\"}",
		"source index -1 is out of range", "a negative source index");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAAA\"}",
		"name index 0 is out of range", "a name index with no names");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA,AAAD\"}",
		"original position", "a negative original column");
	refused("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"D\"}", "generated column -1",
		"a negative generated column");
	/* an original line past SOURCEMAP_MAX_POSITION, reached in two steps */
	snprintf(big, sizeof big, "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA");
	vlq_put(big, 1ll << 29);
	strcat(big, "A,AA");
	vlq_put(big, 1ll << 29);
	strcat(big, "A\"}");
	refused(big, "original position", "a huge original line");
	/* a generated line past SOURCEMAP_MAX_GEN_LINES */
	size_t lines = SOURCEMAP_MAX_GEN_LINES + 2;
	char *huge = xmalloc(lines + 64);
	strcpy(huge, "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"");
	size_t n = strlen(huge);
	memset(huge + n, ';', lines);
	strcpy(huge + n + lines, "AAAA\"}");
	refused(huge, "generated lines", "a huge generated line");
	free(huge);
	refused("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"map\":"
		"{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA;AAAA\"}},{\"offset\":{\"line\":0,"
		"\"column\":5},\"map\":{\"version\":3,\"sources\":[\"b\"],\"mappings\":\"AAAA\"}}]}",
		"overlap", "index map sections that overlap");
	refused("{\"version\":3,\"sections\":[{\"offset\":{\"line\":5,\"column\":0},\"map\":"
		"{\"version\":3,\"sources\":[],\"mappings\":\"\"}},{\"offset\":{\"line\":2,"
		"\"column\":0},\"map\":{\"version\":3,\"sources\":[],\"mappings\":\"\"}}]}",
		"starts before", "sections out of order");
	refused("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"map\":"
		"{\"version\":3,\"sections\":[]}}]}", "nest", "nested index maps");
	refused("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},"
		"\"url\":\"x.map\"}]}", "url", "a section with a url");
	refused("{\"version\":3,\"sections\":[{\"map\":{\"version\":3}}]}", "no offset",
		"a section without offset");
	refused("{\"version\":3,\"sections\":[{\"offset\":{\"line\":-1,\"column\":0},\"map\":"
		"{\"version\":3}}]}", "offset line", "a negative section line");
	refused("{\"version\":3,\"mappings\":\"A\",\"sections\":[]}", "mappings too",
		"an index map with mappings");
	refused("{\"version\":3,\"sources\":[\"a\"],\"sourcesContent\":[3],\"mappings\":\"\"}",
		"sourcesContent 0 is not a string", "a sourcesContent number");

	/* a long line of sourcesContent comes back cut, and the rest of the map still works */
	size_t longn = 1 << 20;
	char *doc = xmalloc(longn + 200);
	n = (size_t)sprintf(doc, "{\"version\":3,\"sources\":[\"a\"],\"sourcesContent\":[\"");
	memset(doc + n, 'x', longn);
	n += longn;
	n += (size_t)sprintf(doc + n, "\\nfunction f(a) {}\"],\"mappings\":\"AAAA;AACA\"}");
	char *err = NULL, text[SOURCEMAP_MAX_LINE_BYTES + 10], name[16];
	struct sourcemap *m = sourcemap_parse(doc, n, &err);
	struct sourcemap_pos pos;
	ok(m && sourcemap_source_line(m, 0, 1, text, sizeof text) == SOURCEMAP_MAX_LINE_BYTES,
		"a 1 MB original line is read up to SOURCEMAP_MAX_LINE_BYTES");
	ok(m && sourcemap_lookup(m, 1, 0, &pos) && pos.line == 1 &&
		sourcemap_name_at(m, &pos, name, sizeof name) == 1 && !strcmp(name, "f"),
		"at the keyword of \"function f(\" the name is f");
	if (m) {
		pos.column = 10;
		ok(sourcemap_name_at(m, &pos, name, sizeof name) == 1 && !strcmp(name, "f"),
			"at its '(' it is f");
		ok(sourcemap_bytes(m) > longn, "the kept text counts in the map's bytes");
	}
	free(err);
	sourcemap_free(m);
}

static void test_find_url(void)
{
	char *url = NULL, *err = NULL, *p = NULL;
	struct smap_ref ref;
	const char *t;

	t = "a();\n//# sourceMappingURL=a.js.map\n";
	ok(sourcemap_find_url(t, strlen(t), &url) == 1 && !strcmp(url, "a.js.map"), "//#");
	free(url);
	t = "a();\n//@ sourceMappingURL=old.map";
	ok(sourcemap_find_url(t, strlen(t), &url) == 1 && !strcmp(url, "old.map"), "//@ (old)");
	free(url);
	t = "//# sourceMappingURL=first.map\nb();\n  //# sourceMappingURL=last.map  \r\n";
	ok(sourcemap_find_url(t, strlen(t), &url) == 1 && !strcmp(url, "last.map"),
		"the last one, indented, with blanks after it");
	free(url);
	t = "//# sourceMappingURL=real.map\nx = \"//# sourceMappingURL=fake.map\";\n";
	ok(sourcemap_find_url(t, strlen(t), &url) == 1 && !strcmp(url, "real.map"),
		"not one in a string");
	free(url);
	t = "x(); // sourceMappingURL=no.map\n";
	ok(sourcemap_find_url(t, strlen(t), &url) == 0, "a comment without # or @ is not one");
	/* found by fuzz_sourcemap: a NUL right after the '=' made an empty URL */
	static const char nul[] = "x();\n//# sourceMappingURL=\0abc.map\n";
	ok(sourcemap_find_url(nul, sizeof nul - 1, &url) == 0, "a NUL where the URL starts: none");
	static const char ctl[] = "x();\n//# sourceMappingURL=a.map\x01\n";
	ok(sourcemap_find_url(ctl, sizeof ctl - 1, &url) == 0, "a control byte after it: none");

	ok(smapfind_resolve("/app/dist/a.js", "../maps/a.js.map?v=2", &ref, &err) == 0 &&
		!strcmp(ref.path, "/app/maps/a.js.map"), "relative, with a query");
	smap_ref_free(&ref);
	ok(smapfind_resolve("file:///app/dist/a%20b.js", "a%20b.js.map", &ref, &err) == 0 &&
		!strcmp(ref.path, "/app/dist/a b.js.map"), "a file:// script, percent-encoded");
	smap_ref_free(&ref);
	ok(smapfind_resolve("/app/a.js", "file:///maps/./a.map", &ref, &err) == 0 &&
		!strcmp(ref.path, "/maps/a.map"), "a file:// map");
	smap_ref_free(&ref);
	ok(smapfind_resolve("/app/a.js", "../../../etc/passwd", &ref, &err) == -1 && err &&
		strstr(err, "leads out of the root"), "a map above the root is refused");
	free(err), err = NULL;
	ok(smapfind_resolve("/app/a.js", "https://cdn.example/a.map", &ref, &err) == -1 && err &&
		strstr(err, "not a file"), "a remote map is refused");
	free(err), err = NULL;
	ok(smapfind_resolve("/a.js", "data:application/json;charset=utf-8;base64,"
		"eyJ2ZXJzaW9uIjozfQ==", &ref, &err) == 0 && ref.data &&
		!strcmp(ref.data, "{\"version\":3}"), "a data: URL with a charset");
	smap_ref_free(&ref);
	ok(smapfind_resolve("/a.js", "data:application/json,{}", &ref, &err) == -1 && err &&
		strstr(err, "not base64"), "a data: URL that is not base64 is refused");
	free(err), err = NULL;
	ok(smapfind_resolve("/a.js", "data:text/plain;base64,eyJ9", &ref, &err) == -1 && err,
		"a data: URL that is not JSON is refused");
	free(err), err = NULL;
	ok(smapfind_resolve("/a.js", "data:application/json;base64,ey!9", &ref, &err) == -1 && err &&
		strstr(err, "not base64"), "bad base64 is refused");
	free(err), err = NULL;
	ok(smapfind_url_path("node:internal/main", &p, &err) == -1 && err, "node:internal is no file");
	free(err), err = NULL;
	ok(smapfind_url_path("file:///a/%2e%2e/%2e%2e/b", &p, &err) == -1 && err,
		"encoded dots still may not leave the root");
	free(err), err = NULL;
	ok(smapfind_url_path("/a//b/./c/../d", &p, &err) == 0 && !strcmp(p, "/a/b/d"), "normalised");
	free(p);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* smapfind_load through a root: the fixtures' directory plays the target's root. */
static void test_load(void)
{
	char *err = NULL, dir[] = "/tmp/ntop-smap-XXXXXX", path[512], out[512];
	struct sourcemap *m;
	struct sourcemap_pos pos;
	struct asuser *fix = asuser_open_dir(FIX, NULL, &err), *u;

	ok(fix != NULL, "a reader of the fixtures%s%s", err ? ": " : "", err ? err : "");
	free(err), err = NULL;
	m = smapfind_load(fix, "/tsc-cjs/main.js", &err);
	ok(m && sourcemap_lookup(m, 6, 16, &pos) && pos.line == 5, "a map beside its script, "
		"through a root%s%s", err ? ": " : "", err ? err : "");
	sourcemap_free(m);
	free(err), err = NULL;
	m = smapfind_load(fix, "file:///tsc-esm/main.js", &err);
	ok(m != NULL, "tsc's inline map in an ES module%s%s", err ? ": " : "", err ? err : "");
	sourcemap_free(m);
	free(err), err = NULL;
	m = smapfind_load(fix, "/esbuild/bundle-inline.min.js", &err);
	ok(m != NULL, "esbuild's inline map");
	sourcemap_free(m);
	free(err), err = NULL;
	m = smapfind_load(fix, "/src/main.ts", &err);
	ok(!m && err && strstr(err, "no sourceMappingURL"), "a script without a comment: %s",
		err ? err : "");
	free(err), err = NULL;

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	snprintf(path, sizeof path, "%s/root", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/secret.map", dir);
	write_file(path, "{\"version\":3,\"sources\":[\"secret\"],\"mappings\":\"AAAA\"}");
	snprintf(path, sizeof path, "%s/root/up.js", dir);
	write_file(path, "x();\n//# sourceMappingURL=../secret.map\n");
	snprintf(path, sizeof path, "%s/root/abs.js", dir);
	write_file(path, "x();\n//# sourceMappingURL=link.map\n");
	snprintf(path, sizeof path, "%s/root/link.map", dir);
	snprintf(out, sizeof out, "%s/secret.map", dir);
	ok(symlink(out, path) == 0, "a symbolic link out of the root");
	snprintf(path, sizeof path, "%s/root/rel.js", dir);
	write_file(path, "x();\n//# sourceMappingURL=rel.map\n");
	snprintf(path, sizeof path, "%s/root/rel.map", dir);
	ok(symlink("../secret.map", path) == 0, "a relative one");
	snprintf(path, sizeof path, "%s/root/dir.js", dir);
	write_file(path, "x();\n//# sourceMappingURL=sub\n");
	snprintf(path, sizeof path, "%s/root/sub", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/root/fifo.js", dir);
	write_file(path, "x();\n//# sourceMappingURL=fifo.map\n");
	snprintf(path, sizeof path, "%s/root/fifo.map", dir);
	mkfifo(path, 0600);
	snprintf(path, sizeof path, "%s/root", dir);
	u = asuser_open_dir(path, NULL, &err);

	const char *cases[][2] = {
		{ "/up.js", "leads out of the root" },
		{ "/abs.js", "" }, /* openat2 resolves it inside: "cannot open"; else "leads out" */
		{ "/rel.js", "" },
		{ "/dir.js", "not a regular file" },
		{ "/fifo.js", "not a regular file" },
		{ "/../secret.map", "leads out of the root" },
		{ "/missing.js", "cannot open" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		m = smapfind_load(u, cases[i][0], &err);
		ok(!m && err && strstr(err, cases[i][1]) && err[strlen(err) - 1] == '.',
			"%s refused: %s", cases[i][0], err ? err : "(loaded)");
		sourcemap_free(m);
		free(err), err = NULL;
	}
	/* a map over the size cap is refused before it is read */
	char *buf = NULL;
	size_t len;
	snprintf(out, sizeof out, "/up.js");
	ok(asuser_read(u, out, 8, false, 5, &buf, &len, &err) == -1 && err && strstr(err, "larger"),
		"a file over the cap is refused");
	free(err), err = NULL;
	ok(asuser_read(u, out, 8, true, 5, &buf, &len, &err) == 0 && len == 40, "a tail is read whole");
	free(buf);
	asuser_free(u);
	asuser_free(fix);

	/* clean up */
	const char *names[] = { "root/up.js", "root/abs.js", "root/link.map", "root/rel.js",
		"root/rel.map", "root/dir.js", "root/fifo.js", "root/fifo.map", "secret.map" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(out, sizeof out, "%s/%s", dir, names[i]);
		unlink(out);
	}
	snprintf(out, sizeof out, "%s/root/sub", dir);
	rmdir(out);
	snprintf(out, sizeof out, "%s/root", dir);
	rmdir(out);
	rmdir(dir);
}

/* ---- random maps against a reference ----------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

/* A segment as the reference keeps it: absolute, in the order the map wrote it. */
struct rseg {
	uint32_t line, gen_col;
	int nf;
	uint32_t src, oline, ocol, name; /* absolute indices */
};

struct rmap {
	struct rseg *segs;
	size_t n, cap;
	uint32_t nlines;
	char **src_names, **names; /* absolute index -> its string */
	uint32_t nsrc, nname;
};

static bool rseg_before(const struct rseg *a, const struct rseg *b)
{
	if (a->gen_col != b->gen_col)
		return a->gen_col < b->gen_col;
	if (a->oline != b->oline)
		return a->oline < b->oline;
	return a->ocol < b->ocol;
}

/* The reference lookup: every segment of the line in the map's order; a line written in order
 * answers with the last segment at or before the column (the first for column 0), one written
 * out of order the same after sorting. */
static const struct rseg *ref_lookup(const struct rmap *r, uint32_t line, uint32_t col)
{
	const struct rseg *best = NULL, *first = NULL;
	bool sorted = true;
	uint32_t prev = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct rseg *s = &r->segs[i];
		if (s->line != line)
			continue;
		if (first && s->gen_col < prev)
			sorted = false;
		if (!first)
			first = s;
		prev = s->gen_col;
	}
	if (!first)
		return NULL;
	if (sorted) {
		if (col == 0)
			return first;
		for (i = 0; i < r->n; i++) {
			const struct rseg *s = &r->segs[i];
			if (s->line == line && s->gen_col <= col)
				best = s;
			else if (s->line == line)
				break;
		}
		return best;
	}
	/* sorted as the parser sorts such a line: by column, then original line and column */
	for (i = 0; i < r->n; i++) {
		const struct rseg *s = &r->segs[i];
		if (s->line != line)
			continue;
		if (!best || rseg_before(s, best) == (col == 0))
			if (col == 0 || s->gen_col <= col)
				best = s;
	}
	return best;
}

static void rseg_add(struct rmap *r, struct rseg s)
{
	r->segs = xreallocarray_grow(r->segs, &r->cap, r->n + 1, sizeof *r->segs);
	r->segs[r->n++] = s;
}

/* Writes one section's map (sources, names, mappings) into *out and its segments into r. */
static void random_section(struct rmap *r, uint32_t sec, uint32_t line_off, uint32_t col_off,
	char **out, size_t *len, size_t *cap, uint32_t *last_line, uint32_t *last_col)
{
	uint32_t nsrc = 1 + rnd(4), nname = rnd(5), nl = 1 + rnd(20), l, k;
	uint32_t src_base = r->nsrc, name_base = r->nname;
	long long psrc = 0, poline = 0, pocol = 0, pname = 0;
	char vl[64];
	size_t need;

#define APPEND(...) do { \
		need = (size_t)snprintf(NULL, 0, __VA_ARGS__) + 1; \
		*out = xreallocarray_grow(*out, cap, *len + need, 1); \
		*len += (size_t)snprintf(*out + *len, need, __VA_ARGS__); \
	} while (0)
	APPEND("{\"version\":3,\"sources\":[");
	for (k = 0; k < nsrc; k++) {
		APPEND("%s\"s%u_%u.ts\"", k ? "," : "", sec, k);
		r->src_names = xrealloc(r->src_names, (r->nsrc + 1) * sizeof *r->src_names);
		r->src_names[r->nsrc++] = xasprintf("s%u_%u.ts", sec, k);
	}
	APPEND("],\"names\":[");
	for (k = 0; k < nname; k++) {
		APPEND("%s\"n%u_%u\"", k ? "," : "", sec, k);
		r->names = xrealloc(r->names, (r->nname + 1) * sizeof *r->names);
		r->names[r->nname++] = xasprintf("n%u_%u", sec, k);
	}
	APPEND("],\"mappings\":\"");
	for (l = 0; l < nl; l++) {
		uint32_t nseg = rnd(3) == 0 ? rnd(200) : rnd(8), cols[200], c = 0;
		bool shuffle = rnd(12) == 0;
		long long pcol = 0;
		for (k = 0; k < nseg; k++) {
			c += shuffle ? 1 + rnd(9) : rnd(10);
			cols[k] = c;
		}
		for (k = 0; shuffle && k + 1 < nseg; k++) {
			uint32_t j = k + rnd(nseg - k), t = cols[k];
			cols[k] = cols[j], cols[j] = t;
		}
		if (l)
			APPEND(";");
		for (k = 0; k < nseg; k++) {
			struct rseg s = { .line = line_off + l,
				.gen_col = cols[k] + (l ? 0 : col_off) };
			int pick = (int)rnd(10);
			s.nf = pick == 0 ? 1 : (pick < 6 || !nname) ? 4 : 5;
			vl[0] = '\0';
			vlq_put(vl, (long long)cols[k] - pcol);
			pcol = cols[k];
			if (s.nf >= 4) {
				uint32_t src = rnd(nsrc), ol = rnd(500), oc = rnd(120);
				vlq_put(vl, src - psrc);
				vlq_put(vl, ol - poline);
				vlq_put(vl, oc - pocol);
				psrc = src, poline = ol, pocol = oc;
				s.src = src_base + src, s.oline = ol, s.ocol = oc;
			}
			if (s.nf == 5) {
				uint32_t nm = rnd(nname);
				vlq_put(vl, nm - pname);
				pname = nm;
				s.name = name_base + nm;
			}
			APPEND("%s%s", k ? "," : "", vl);
			rseg_add(r, s);
			if (s.line > *last_line || (s.line == *last_line && s.gen_col > *last_col))
				*last_line = s.line, *last_col = s.gen_col;
			if (s.line + 1 > r->nlines)
				r->nlines = s.line + 1;
		}
	}
	APPEND("\"}");
#undef APPEND
}

static void rmap_free(struct rmap *r)
{
	for (uint32_t i = 0; i < r->nsrc; i++)
		free(r->src_names[i]);
	for (uint32_t i = 0; i < r->nname; i++)
		free(r->names[i]);
	free(r->src_names);
	free(r->names);
	free(r->segs);
}

static bool same(const struct rmap *r, const struct rseg *want, int got,
	const struct sourcemap_pos *pos)
{
	if (!want || want->nf == 1)
		return got == 0;
	return got == 1 && !strcmp(pos->source_path, r->src_names[want->src]) &&
		pos->line == want->oline && pos->column == want->ocol &&
		(want->nf == 5 ? pos->name && !strcmp(pos->name, r->names[want->name]) : !pos->name);
}

/* Maps with lines of 0 to 200 segments (checkpoints inside lines and across them), lines
 * written out of order, one-field segments and index maps of up to 3 sections, each looked up
 * at column 0, at, before and after every segment and at random columns, against the reference
 * above. */
static void test_random_maps(void)
{
	size_t lookups = 0, wrong = 0, unsorted_lines = 0;
	int maps = 150, bad = 0;

	for (int i = 0; i < maps; i++) {
		struct rmap r = { 0 };
		uint32_t nsec = 1 + rnd(3), line = 0, lline = 0, lcol = 0;
		char *text = NULL;
		size_t len = 0, cap = 0, need;

		if (nsec > 1) {
			text = xstrdup("{\"version\":3,\"sections\":[");
			len = strlen(text), cap = len + 1;
		}
		for (uint32_t s = 0; s < nsec; s++) {
			uint32_t line_off = line + (s ? rnd(3) : 0), col_off = rnd(50);
			if (s && r.n && line_off == lline)
				col_off = lcol + 1 + rnd(50);
			if (nsec > 1) {
				need = 80;
				text = xreallocarray_grow(text, &cap, len + need, 1);
				len += (size_t)snprintf(text + len, need,
					"%s{\"offset\":{\"line\":%u,\"column\":%u},\"map\":", s ? "," : "",
					line_off, col_off);
			}
			random_section(&r, s, nsec > 1 ? line_off : 0, nsec > 1 ? col_off : 0, &text,
				&len, &cap, &lline, &lcol);
			if (nsec > 1) {
				text = xreallocarray_grow(text, &cap, len + 2, 1);
				text[len++] = '}', text[len] = '\0';
			}
			line = r.nlines ? r.nlines - 1 : line_off;
			if (line < line_off)
				line = line_off;
		}
		if (nsec > 1) {
			text = xreallocarray_grow(text, &cap, len + 3, 1);
			len += (size_t)snprintf(text + len, 3, "]}");
		}
		char *err = NULL;
		struct sourcemap *m = sourcemap_parse(text, len, &err);
		if (!m) {
			if (!bad++)
				printf("# random map %d refused: %s\n", i, err ? err : "?");
			free(err);
			rmap_free(&r);
			continue;
		}
		for (uint32_t l = 0; l < r.nlines + 2; l++) {
			uint32_t cols[64];
			size_t nc = 0;
			bool sorted = true;
			uint32_t prev = 0, seen = 0;
			for (size_t k = 0; k < r.n; k++)
				if (r.segs[k].line == l) {
					if (seen++ && r.segs[k].gen_col < prev)
						sorted = false;
					prev = r.segs[k].gen_col;
				}
			unsorted_lines += !sorted;
			for (size_t k = 0; k < r.n; k++) {
				const struct rseg *s = &r.segs[k];
				struct sourcemap_pos pos;
				if (s->line != l)
					continue;
				for (uint32_t d = 0; d < 3; d++) {
					uint32_t col = s->gen_col + d - (s->gen_col ? 1 : 0);
					int got = sourcemap_lookup(m, l, col, &pos);
					lookups++;
					if (!same(&r, ref_lookup(&r, l, col), got, &pos) && !wrong++)
						printf("# map %d: line %u col %u differs from the reference\n", i, l,
							col);
				}
			}
			cols[nc++] = 0;
			while (nc < 24)
				cols[nc++] = rnd(2500);
			for (size_t k = 0; k < nc; k++) {
				struct sourcemap_pos pos;
				int got = sourcemap_lookup(m, l, cols[k], &pos);
				lookups++;
				if (!same(&r, ref_lookup(&r, l, cols[k]), got, &pos) && !wrong++)
					printf("# map %d: line %u col %u differs from the reference\n", i, l,
						cols[k]);
			}
		}
		is_int(sourcemap_segment_count(m), (long long)r.n, "random map %d: its %zu segments",
			i, r.n);
		sourcemap_free(m);
		rmap_free(&r);
	}
	ok(bad == 0, "all %d random maps parse", maps);
	ok(unsorted_lines > 0, "some lines were written out of order (%zu)", unsorted_lines);
	ok(lookups > 100000 && wrong == 0, "%zu lookups agree with the reference (%zu differ)",
		lookups, wrong);
}

int main(void)
{
	test_tsc_cjs();
	test_esbuild();
	test_root_and_index();
	test_lookup_rules();
	test_random_maps();
	test_broken();
	test_find_url();
	test_load();
	return done_testing();
}
