/* test_jsonpull.c: the JSON scanner on valid, invalid, truncated and hostile input. */
#include "config.h"

#include "jsonpull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int valid(const char *s)
{
	return json_validate(s, strlen(s), NULL) == 0;
}

static struct json_span span_of(const char *s)
{
	struct json_span v = {0};
	if (json_validate(s, strlen(s), &v))
		v.n = 0;
	return v;
}

static void test_grammar(void)
{
	static const char *good[] = {
		"{}", "[]", " \t\r\n{ } ", "0", "-0", "1.5e10", "-12.25E-3", "1E+2", "\"\"", "true",
		"false", "null", "[1,2,3]", "{\"a\":[{\"b\":null}],\"c\":\"d\"}",
		"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
		"[\"\",{},[],0]", "123456789012345678901234567890",
	};
	static const char *bad[] = {
		"", " ", "{", "}", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}",
		"01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "tru", "nul", "truex", "NaN",
		"Infinity", "[1 2]", "{\"a\":1 \"b\":2}", "\"abc", "\"\\x\"", "\"\\u12g4\"", "\"\\u12\"",
		"\"a\x01b\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "[1]]", "{}{}",
		"'a'", "[1,2", "{\"a\":[1,2}", "\"a\"\"b\"",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(valid(good[i]), "valid #%zu", i);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!valid(bad[i]), "invalid #%zu", i);
	/* a JSON text with a NUL byte inside a string is invalid (control character) */
	ok(json_validate("\"a\0b\"", 5, NULL) < 0, "raw NUL in a string is invalid");
}

static void test_truncation(void)
{
	const char *doc = "{\"id\":3,\"result\":{\"profile\":{\"nodes\":[{\"id\":1,\"callFrame\":"
		"{\"functionName\":\"f\\u00e9\",\"url\":\"\"},\"children\":[2,3]}],\"samples\":[1,2],"
		"\"x\":-1.5e-3,\"t\":true,\"n\":null}}}";
	size_t len = strlen(doc);
	int rejected = 0;

	ok(json_validate(doc, len, NULL) == 0, "whole document valid");
	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so ASan sees any read past the end */
		char *cut = malloc(n ? n : 1);
		memcpy(cut, doc, n);
		if (json_validate(cut, n, NULL) < 0)
			rejected++;
		struct protocol_msg m;
		json_envelope_parse(cut, n, &m);
		free(cut);
	}
	is_int(rejected, len, "every truncation of the document is rejected");
}

static void test_depth(void)
{
	char buf[2 * (JSON_MAX_DEPTH + 2) + 1];
	size_t n;

	for (n = 0; n < JSON_MAX_DEPTH; n++)
		buf[n] = '[';
	for (size_t i = 0; i < JSON_MAX_DEPTH; i++)
		buf[n++] = ']';
	ok(json_validate(buf, n, NULL) == 0, "nesting of exactly JSON_MAX_DEPTH is fine");

	for (n = 0; n < JSON_MAX_DEPTH + 1; n++)
		buf[n] = '[';
	for (size_t i = 0; i < JSON_MAX_DEPTH + 1; i++)
		buf[n++] = ']';
	ok(json_validate(buf, n, NULL) < 0, "nesting deeper than JSON_MAX_DEPTH is rejected");

	/* a million open brackets: must fail quickly without recursion */
	size_t big = 1000000;
	char *deep = malloc(big);
	memset(deep, '[', big);
	ok(json_validate(deep, big, NULL) < 0, "a million open brackets are rejected");
	for (size_t i = 0; i < big; i += 2)
		deep[i] = '{', deep[i + 1] = '[';
	struct protocol_msg m;
	ok(json_envelope_parse(deep, big, &m) < 0, "deep envelope rejected");
	free(deep);

	/* mixed objects and arrays at the limit, through the pull cursor */
	struct json_pull jp;
	char mixed[JSON_MAX_DEPTH * 8];
	size_t k = 0;
	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++)
		k += (size_t)sprintf(mixed + k, "{\"a\":");
	k += (size_t)sprintf(mixed + k, "[1]");
	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++)
		mixed[k++] = '}';
	ok(json_validate(mixed, k, NULL) == 0, "JSON_MAX_DEPTH levels of objects and arrays valid");
	json_pull_init(&jp, mixed, k);
	ok(json_pull_object_begin(&jp) == 0 && json_pull_object_next(&jp, NULL) == 1 &&
		json_pull_value(&jp, NULL) == 0 && json_pull_object_next(&jp, NULL) == 0 &&
		json_pull_finish(&jp) == 0, "pull cursor skips a deep value inside its own depth");
}

static void test_numbers(void)
{
	static const struct {
		const char *s;
		double v;
	} nums[] = {
		{"0", 0}, {"-0", -0.0}, {"42", 42}, {"-7", -7}, {"3.25", 3.25}, {"1e3", 1000},
		{"1.5E-2", 0.015}, {"0.1", 0.1}, {"123456789.123", 123456789.123},
		{"4000000000", 4000000000.0}, {"98765432109876", 98765432109876.0},
		{"12345678901234567890123", 12345678901234567890123.0}, {"1e300", 1e300},
		{"2.2250738585072014e-308", 2.2250738585072014e-308}, {"0.000001", 1e-6},
		{"9007199254740993", 9007199254740992.0}, {"1.7976931348623157e308", 1.7976931348623157e308},
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		double d = -999;
		struct json_span v = span_of(nums[i].s);
		ok(json_number(v, &d) == 0 && d == nums[i].v, "number %s", nums[i].s);
		if (d != nums[i].v)
			printf("#   got %.17g\n", d);
	}
	/* the exact fast path must agree with strtod bit for bit */
	int mismatch = 0;
	char buf[64];
	srand(7);
	for (int i = 0; i < 20000; i++) {
		double want, got;
		int n = snprintf(buf, sizeof(buf), "%d.%0*de%d", rand() % 100000, 1 + rand() % 9,
			rand() % 1000, rand() % 40 - 20);
		want = strtod(buf, NULL);
		struct json_span v = {buf, (size_t)n};
		if (json_number(v, &got) || got != want)
			mismatch++;
	}
	is_int(mismatch, 0, "fast number conversion matches strtod on 20000 numbers");
	double d;
	struct json_span s = span_of("\"1\"");
	ok(json_number(s, &d) < 0, "a string is not a number");
	struct json_span part = {"12x", 3};
	ok(json_number(part, &d) < 0, "trailing bytes make json_number fail");
	struct json_span longnum;
	char *big = malloc(2002);
	big[0] = '1';
	memset(big + 1, '0', 2000);
	big[2001] = '\0';
	longnum = span_of(big);
	ok(json_number(longnum, &d) == 0 && d == HUGE_VAL, "2001-digit number overflows to inf");
	free(big);
}

static void test_strings(void)
{
	char *out;
	size_t n;
	struct json_span v = span_of("\"a\\\"b\\\\c\\/\\n\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"");

	ok(json_string_decode(v, &out, &n) == 0, "decode escapes");
	is_str(out, "a\"b\\c/\nA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "escapes decoded to UTF-8");
	is_int(n, strlen(out), "decoded length");
	free(out);

	v = span_of("\"x\\ud800y\\udc00\"");
	ok(json_string_decode(v, &out, &n) == 0, "lone surrogates decode");
	is_str(out, "x\xef\xbf\xbdy\xef\xbf\xbd", "lone surrogates become U+FFFD");
	free(out);

	v = span_of("\"a\\u0000b\"");
	ok(json_string_decode(v, &out, &n) == 0 && n == 3 && out[1] == '\0', "\\u0000 keeps its length");
	free(out);

	ok(json_string_eq(span_of("\"nodes\""), "nodes"), "string_eq plain");
	ok(json_string_eq(span_of("\"n\\u006fdes\""), "nodes"), "string_eq honours escapes");
	ok(!json_string_eq(span_of("\"node\""), "nodes"), "string_eq length differs");
	ok(!json_string_eq(span_of("5"), "5"), "string_eq on a number is false");
	struct json_span bad = {"\"a\\q\"", 5};
	ok(json_string_decode(bad, &out, &n) < 0, "bad escape rejected by decode");
	struct json_span unterminated = {"\"ab", 3};
	ok(json_string_decode(unterminated, &out, &n) < 0, "unterminated string rejected by decode");
}

static void test_iterators(void)
{
	struct json_span obj = span_of("{ \"a\" : 1 , \"b\":[true,false,null], \"c\":{\"d\":\"e\"} }");
	struct json_span k, v, arr;
	size_t pos = 0;
	int count = 0;

	while (json_object_next(obj, &pos, &k, &v) == 1)
		count++;
	is_int(count, 3, "three members");
	is_int(json_object_next(obj, &pos, &k, &v), 0, "end stays at end");
	is_int(json_object_get(obj, "b", &arr), 1, "get b");
	is_int(json_span_type(arr), JSON_T_ARRAY, "b is an array");
	pos = 0;
	count = 0;
	enum json_type types[3];
	while (json_array_next(arr, &pos, &v) == 1 && count < 3)
		types[count++] = json_span_type(v);
	ok(count == 3 && types[0] == JSON_T_TRUE && types[1] == JSON_T_FALSE && types[2] == JSON_T_NULL,
		"array elements in order");
	is_int(json_object_get(obj, "zz", &v), 0, "absent key");
	ok(json_object_get(obj, "c", &v) == 1 && json_object_get(v, "d", &v) == 1 &&
		json_string_eq(v, "e"), "nested get");
	struct json_span broken = {"{\"a\":1,,}", 9};
	pos = 0;
	ok(json_object_next(broken, &pos, &k, &v) == 1 && json_object_next(broken, &pos, &k, &v) < 0,
		"malformed member reported");
	struct json_span notobj = {"[1]", 3};
	pos = 0;
	ok(json_object_next(notobj, &pos, &k, &v) < 0, "object iterator on an array fails");

	/* pull cursor */
	const char *doc = "{\"xs\":[1, 2.5 ,-3],\"s\":\"hi\",\"skip\":{\"deep\":[[]]}}";
	struct json_pull jp;
	double sum = 0, d;
	json_pull_init(&jp, doc, strlen(doc));
	ok(json_pull_object_begin(&jp) == 0, "pull: begin");
	ok(json_pull_object_next(&jp, &k) == 1 && json_string_eq(k, "xs"), "pull: key xs");
	ok(json_pull_array_begin(&jp) == 0, "pull: array");
	while (json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0)
		sum += d;
	is_num(sum, 0.5, 1e-12, "pull: numbers summed");
	ok(json_pull_object_next(&jp, &k) == 1 && json_pull_string(&jp, &v) == 0 &&
		json_string_eq(v, "hi"), "pull: string member");
	ok(json_pull_object_next(&jp, &k) == 1 && json_pull_value(&jp, &v) == 0 &&
		json_span_type(v) == JSON_T_OBJECT, "pull: skip a value");
	is_int(json_pull_object_next(&jp, &k), 0, "pull: end of object");
	is_int(json_pull_finish(&jp), 0, "pull: finish");

	const char *trail = "[1,]";
	json_pull_init(&jp, trail, strlen(trail));
	ok(json_pull_array_begin(&jp) == 0 && json_pull_array_next(&jp) == 1 &&
		json_pull_number(&jp, &d) == 0 && json_pull_array_next(&jp) == 1 &&
		json_pull_number(&jp, &d) < 0, "pull: trailing comma caught");
	const char *nocomma = "[1 2]";
	json_pull_init(&jp, nocomma, strlen(nocomma));
	ok(json_pull_array_begin(&jp) == 0 && json_pull_array_next(&jp) == 1 &&
		json_pull_number(&jp, &d) == 0 && json_pull_array_next(&jp) < 0, "pull: missing comma caught");
	json_pull_init(&jp, "{}x", 3);
	ok(json_pull_object_begin(&jp) == 0 && json_pull_object_next(&jp, &k) == 0 &&
		json_pull_finish(&jp) < 0, "pull: trailing garbage caught");
	json_pull_init(&jp, "[1]", 3);
	ok(json_pull_array_begin(&jp) == 0 && json_pull_object_next(&jp, &k) < 0,
		"pull: object_next inside an array fails");
}

static void test_int_run(void)
{
	struct json_pull jp;
	int64_t out[8];
	double d;
	const char *doc = "[1,-22,333,0,4.5,6 ,7,1234567890123456789,-0,]";
	size_t n;

	json_pull_init(&jp, doc, strlen(doc));
	ok(json_pull_array_begin(&jp) == 0, "int run: array");
	n = json_pull_int_run(&jp, out, 8);
	ok(n == 4 && out[0] == 1 && out[1] == -22 && out[2] == 333 && out[3] == 0,
		"int run reads plain integers, stops before a fraction");
	ok(json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 && d == 4.5,
		"the general path takes over");
	ok(json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 && d == 6, "6 read normally");
	is_int(json_pull_int_run(&jp, out, 8), 0, "int run declines whitespace before a comma");
	ok(json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 && d == 7,
		"7 read normally after it");
	is_int(json_pull_int_run(&jp, out, 8), 0, "int run declines a 19-digit number");
	ok(json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 && d == 1234567890123456789.0,
		"19 digits read as a double");
	n = json_pull_int_run(&jp, out, 1);
	ok(n == 1 && out[0] == 0, "-0, and max respected");
	ok(json_pull_int_run(&jp, out, 8) == 0 && json_pull_array_next(&jp) == 1 &&
		json_pull_number(&jp, &d) < 0, "trailing comma still rejected");

	const char *lead = "[01]";
	json_pull_init(&jp, lead, strlen(lead));
	ok(json_pull_array_begin(&jp) == 0 && json_pull_int_run(&jp, out, 8) == 0, "leading zero declined");
	ok(json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 &&
		json_pull_array_next(&jp) < 0, "and rejected by the general path");

	const char *empty = "[]";
	json_pull_init(&jp, empty, 2);
	ok(json_pull_array_begin(&jp) == 0 && json_pull_int_run(&jp, out, 8) == 0 &&
		json_pull_array_next(&jp) == 0 && json_pull_finish(&jp) == 0, "empty array");
	const char *cut = "[1,2";
	json_pull_init(&jp, cut, 4);
	ok(json_pull_array_begin(&jp) == 0 && json_pull_int_run(&jp, out, 8) == 1 &&
		json_pull_array_next(&jp) == 1 && json_pull_number(&jp, &d) == 0 && d == 2 &&
		json_pull_array_next(&jp) < 0, "a number at the very end is left to the general path");
	const char *obj = "{\"a\":1}";
	json_pull_init(&jp, obj, strlen(obj));
	ok(json_pull_object_begin(&jp) == 0 && json_pull_int_run(&jp, out, 8) == 0, "not inside an object");
}

static void test_envelope(void)
{
	struct protocol_msg m;
	const char *reply = "{\"id\":3,\"result\":{\"profile\":{\"nodes\":[]}}}";
	const char *event = " {\"method\":\"Profiler.consoleProfileFinished\",\"params\":{\"id\":\"1\"}} ";
	const char *err = "{\"id\":12,\"error\":{\"code\":-32601,\"message\":\"not found\"}}";

	ok(json_envelope_parse(reply, strlen(reply), &m) == 0, "reply parses");
	ok(m.has_id && m.id == 3, "reply id");
	ok(m.result.n > 0 && json_span_type(m.result) == JSON_T_OBJECT, "reply result span");
	ok(m.method.n == 0 && m.params.n == 0 && m.error.n == 0, "absent parts empty");
	struct json_span prof;
	ok(json_object_get(m.result, "profile", &prof) == 1, "profile inside result");

	ok(json_envelope_parse(event, strlen(event), &m) == 0, "event parses");
	ok(!m.has_id, "event has no id");
	ok(json_string_eq(m.method, "Profiler.consoleProfileFinished"), "event method");
	ok(json_span_type(m.params) == JSON_T_OBJECT, "event params");

	ok(json_envelope_parse(err, strlen(err), &m) == 0 && m.id == 12 && m.error.n > 0, "error reply");

	static const char *bad[] = {
		"[1]", "{\"id\":1.5}", "{\"id\":\"3\"}", "{\"id\":null}", "{\"method\":3}",
		"{\"id\":1,\"result\":{}", "{\"id\":1}{", "{\"id\":1e400}", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(json_envelope_parse(bad[i], strlen(bad[i]), &m) < 0 && !m.has_id, "bad envelope #%zu", i);
	ok(json_envelope_parse("{\"id\":4000000000}", 17, &m) == 0 && m.id == 4000000000LL,
		"id larger than INT_MAX");
	ok(json_envelope_parse("{\"id\":-2,\"x\":[1,{\"y\":2}]}", 25, &m) == 0 && m.id == -2,
		"unknown members skipped");
}

/* Reads {"a": <value>} with the reader: the first member's value as an int in [0, 10]. Returns
 * the sentence for a failure (to free), or NULL. */
static char *read_a(const char *doc)
{
	struct json_reader r;
	struct json_span k;
	double d;

	json_reader_init(&r, doc, strlen(doc), "invalid thing");
	if (json_read_begin(&r) == 0 && json_read_member(&r, &k) == 1 &&
	    json_read_int(&r, 0, 10, &d, "a") == 0 && json_read_member(&r, &k) == 0)
		json_read_end(&r);
	else if (!r.err)
		json_reader_fail(&r, "no failure recorded");
	return r.err;
}

static void expect_sentence(const char *doc, const char *want, const char *what)
{
	char *err = read_a(doc);

	ok(err && strstr(err, want) && strncmp(err, "invalid thing: ", 15) == 0, "%s: %s", what,
		err ? err : "(accepted)");
	free(err);
}

static void test_reader(void)
{
	struct json_reader r;
	struct json_span k, s;
	char *err, buf[16], deep[2 * JSON_MAX_DEPTH + 16];
	size_t n = 0;

	err = read_a("{\"a\":3}");
	ok(err == NULL, "a good document reads without a sentence");
	free(err);
	expect_sentence("", "not a JSON object", "empty input");
	expect_sentence("[1]", "not a JSON object", "an array");
	expect_sentence("{\"a\":\"3\"}", "a is not a number (byte 5)", "a string for a number");
	expect_sentence("{\"a\":3.5}", "a out of range or not an integer: 3.5", "a fraction");
	expect_sentence("{\"a\":11}", "out of range", "past the upper bound");
	expect_sentence("{\"a\":1e999}", "a is not finite", "an infinite number");
	expect_sentence("{\"a\":3", "truncated JSON (byte 6)", "cut after a value");
	expect_sentence("{\"a\":3 ,", "truncated JSON (byte 8)", "cut after a comma");
	expect_sentence("{\"a", "truncated JSON (byte 3)", "cut inside a key");
	expect_sentence("{\"a\" ", "truncated JSON (byte 5)", "cut before a key's colon");
	expect_sentence("{\"a\":3]", "malformed JSON near byte 6", "a wrong closing bracket");
	expect_sentence("{\"a\" 3}", "malformed JSON near byte 1", "a key without its colon");
	expect_sentence("{\"a\":3} x", "trailing data at byte 8", "trailing data");

	/* nesting: the sentence says so rather than "malformed" */
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		deep[n++] = '[';
	json_reader_init(&r, deep, n, "invalid thing");
	for (int i = 0; i < JSON_MAX_DEPTH && json_read_array(&r, "x") == 0; i++)
		;
	ok(r.err == NULL && r.jp.depth == JSON_MAX_DEPTH, "JSON_MAX_DEPTH arrays open");
	deep[n] = '{';
	json_reader_init(&r, deep, n + 1, "invalid thing");
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_read_array(&r, "x");
	ok(json_read_object(&r, "x") == -1 && r.err && strstr(r.err, "nested deeper than"),
		"one more level is refused as too deep: %s", r.err ? r.err : "(none)");
	free(r.err);

	/* the first failure is the one kept */
	json_reader_init(&r, "{\"s\":7}", 7, "invalid thing");
	ok(json_read_begin(&r) == 0 && json_read_member(&r, &k) == 1 &&
		json_read_string(&r, &s, "s") == -1, "a number for a string refused");
	json_reader_fail(&r, "later");
	is_str(r.err, "invalid thing: s is not a string (byte 5)", "the first sentence is kept");
	free(r.err);
	json_reader_init(&r, NULL, 5, "invalid thing");
	ok(json_read_begin(&r) == -1 && r.err, "NULL input is empty input");
	free(r.err);

	/* keys with escapes */
	s = span_of("\"\\u0069d\"");
	is_int(json_key_unescape(s, buf, sizeof(buf)), 2, "an escaped key decodes");
	ok(memcmp(buf, "id", 2) == 0, "to its text");
	s = span_of("\"id\"");
	is_int(json_key_unescape(s, buf, sizeof(buf)), -1, "a key without escapes has nothing more");
	s = span_of("\"\\u0069\\u0069\\u0069d\"");
	is_int(json_key_unescape(s, buf, 8), -1, "nor one longer than the buffer");
}

int main(void)
{
	test_grammar();
	test_truncation();
	test_depth();
	test_numbers();
	test_strings();
	test_iterators();
	test_int_run();
	test_envelope();
	test_reader();
	return done_testing();
}
