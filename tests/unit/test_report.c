/* test_report.c: the batch reports: JSON lines read back with cJSON, and the text report
 * checked for layout and for terminal-safe output. */
#include "config.h"

#include "report.h"
#include "evloop.h"
#include "engine.h"

#include <cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggregate.h"
#include "contention.h"
#include "cumulative.h"
#include "functab.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

#define EVIL_NAME "\x1b]0;pwned\x07x\xc2\x9b"
#define EVIL_URL "file:///srv/\xff\x1b[2Jbad.js"

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static bool is_number_field(const cJSON *o, const char *k)
{
	return cJSON_IsNumber(get(o, k));
}

/* True if s is valid UTF-8 with no control characters but newlines. */
static bool terminal_safe(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t k = util_utf8_seq(s + i, n - i);
		unsigned char c = (unsigned char)s[i];
		if (k == 0 || (k == 1 && c != '\n' && (c < 0x20 || c == 0x7f)) ||
		    (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0))
			return false;
		i += k;
	}
	return true;
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

struct fixture {
	struct functab *ft;
	uint32_t fib, anon, evil, deep;
	struct func_stat funcs[4];
	struct window_stats w;
	struct cumulative c;
	struct report_target t;
	struct report_window rw;
	char long_url[300];
};

static void fixture_init(struct fixture *fx)
{
	size_t n;

	memset(fx, 0, sizeof(*fx));
	fx->ft = functab_create();
	functab_intern(fx->ft, "(root)", 6, "", 0, -1, -1);
	fx->fib = functab_intern(fx->ft, "fib", 3, "file:///srv/app.js", 18, 4, 10);
	fx->anon = functab_intern(fx->ft, "", 0, "node:internal/timers", 20, 511, 0);
	fx->evil = functab_intern(fx->ft, EVIL_NAME, strlen(EVIL_NAME), EVIL_URL, strlen(EVIL_URL), -1, -1);
	strcpy(fx->long_url, "file:///");
	for (int i = 0; i < 20; i++)
		strcat(fx->long_url, "directory/");
	strcat(fx->long_url, "handler.js");
	fx->deep = functab_intern(fx->ft, "handle", 6, fx->long_url, strlen(fx->long_url), 0, 0);

	fx->funcs[0] = (struct func_stat){ fx->fib, 400000, 500000 };
	fx->funcs[1] = (struct func_stat){ fx->anon, 150000, 600000 };
	fx->funcs[2] = (struct func_stat){ fx->evil, 40000, 40000 };
	fx->funcs[3] = (struct func_stat){ fx->deep, 10000, 610000 };
	fx->w.funcs = fx->funcs;
	fx->w.n_funcs = 4;
	fx->w.n_samples = 980;
	fx->w.sampled_us = 1000000;
	fx->w.js_us = 600000;
	fx->w.gc_us = 50000;
	fx->w.program_us = 100000;
	fx->w.idle_us = 250000;

	n = functab_count(fx->ft);
	fx->c.cap = n;
	fx->c.self_us = calloc(n, sizeof(double));
	fx->c.total_us = calloc(n, sizeof(double));
	fx->c.self_us[fx->fib] = 2500000;
	fx->c.total_us[fx->fib] = 3000000;
	fx->c.n_windows = 3;

	fx->t = (struct report_target){ 1234, "v20.20.2", "node \x1b[31mserver.js", -1, NULL,
		false, 0 };
	fx->rw = (struct report_window){ .time_s = 1700000000.1234, .window_ms = 1000.25, .interval_us = 1000, .top_n = 3,
		.next_burst_in_s = NAN };
}

static void fixture_free(struct fixture *fx)
{
	free(fx->c.self_us);
	free(fx->c.total_us);
	functab_free(fx->ft);
}

static void test_json(struct fixture *fx)
{
	struct strbuf sb;
	cJSON *j;
	const cJSON *target, *cpu, *top, *e;
	double sum;
	bool fields_ok = true;

	strbuf_init(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(sb.len > 0 && sb.data[sb.len - 1] == '\n' && count_char(sb.data, '\n') == 1,
		"one JSON object on one line, ending in exactly one newline");
	j = cJSON_ParseWithLength(sb.data, sb.len);
	ok(j != NULL, "JSON line parses");
	if (!j) {
		printf("# %s\n", sb.data);
		strbuf_free(&sb);
		return;
	}
	is_num(get(j, "time")->valuedouble, 1700000000.123, 0.0005, "time in unix seconds, 3 decimals");
	is_num(get(j, "window_ms")->valuedouble, 1000.25, 0.001, "window_ms");
	is_int(get(j, "samples")->valueint, 980, "samples");
	is_num(get(j, "interval_us")->valuedouble, 1000, 0, "interval_us");
	target = get(j, "target");
	is_int(get(target, "pid")->valueint, 1234, "target.pid");
	is_str(get(target, "node_version")->valuestring, "v20.20.2", "target.node_version");
	is_str(get(target, "title")->valuestring, "node \x1b[31mserver.js", "title escaped, not altered");
	cpu = get(j, "cpu");
	ok(is_number_field(cpu, "js_pct") && is_number_field(cpu, "gc_pct") &&
		is_number_field(cpu, "program_pct") && is_number_field(cpu, "idle_pct"), "cpu split present");
	sum = get(cpu, "js_pct")->valuedouble + get(cpu, "gc_pct")->valuedouble +
		get(cpu, "program_pct")->valuedouble + get(cpu, "idle_pct")->valuedouble;
	is_num(sum, 100, 0.05, "cpu split adds up to 100 %%");
	is_num(get(cpu, "gc_pct")->valuedouble, 5, 0.005, "gc share");
	top = get(j, "top");
	ok(cJSON_IsArray(top), "top is an array");
	is_int(cJSON_GetArraySize(top), 3, "top_n entries");
	cJSON_ArrayForEach(e, top) {
		static const char *nums[] = { "self_pct", "total_pct", "self_ms", "total_ms",
			"cum_self_ms", "cum_total_ms" };
		if (!cJSON_IsString(get(e, "function")) || !cJSON_IsString(get(e, "url")))
			fields_ok = false;
		if (!(cJSON_IsNumber(get(e, "line")) || cJSON_IsNull(get(e, "line"))) ||
		    !(cJSON_IsNumber(get(e, "column")) || cJSON_IsNull(get(e, "column"))))
			fields_ok = false;
		for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!is_number_field(e, nums[k]))
				fields_ok = false;
		if (get(e, "self_pct")->valuedouble > get(e, "total_pct")->valuedouble + 1e-9 ||
		    get(e, "total_pct")->valuedouble > 100)
			fields_ok = false;
	}
	ok(fields_ok, "every top entry has its fields with the right types, self <= total <= 100");
	e = cJSON_GetArrayItem(top, 0);
	is_str(get(e, "function")->valuestring, "fib", "sorted as given: fib first");
	is_str(get(e, "url")->valuestring, "/srv/app.js", "file:// stripped");
	is_int(get(e, "line")->valueint, 5, "line 1-based");
	is_int(get(e, "column")->valueint, 11, "column 1-based");
	is_num(get(e, "self_pct")->valuedouble, 40, 0.005, "self_pct of the sampled time");
	is_num(get(e, "total_pct")->valuedouble, 50, 0.005, "total_pct");
	is_num(get(e, "self_ms")->valuedouble, 400, 0.0005, "self_ms");
	is_num(get(e, "cum_self_ms")->valuedouble, 2500, 0.0005, "cum_self_ms from the cumulative counters");
	is_num(get(e, "cum_total_ms")->valuedouble, 3000, 0.0005, "cum_total_ms");
	e = cJSON_GetArrayItem(top, 1);
	is_str(get(e, "function")->valuestring, "(anonymous)", "empty name shown as (anonymous)");
	is_str(get(e, "url")->valuestring, "node:internal/timers", "non-file url kept");
	e = cJSON_GetArrayItem(top, 2);
	is_str(get(e, "function")->valuestring, EVIL_NAME, "control characters survive as JSON escapes");
	is_str(get(e, "url")->valuestring, "/srv/\xef\xbf\xbd\x1b[2Jbad.js", "invalid UTF-8 becomes U+FFFD");
	ok(cJSON_IsNull(get(e, "line")) && cJSON_IsNull(get(e, "column")), "unknown position is null");
	cJSON_Delete(j);

	/* nothing sampled, unknown target, no cumulative counters */
	{
		struct window_stats empty = { 0 };
		struct report_target anon = { 0, NULL, NULL, -1, NULL, false, 0 };
		strbuf_reset(&sb);
		fx->w.sampled_us = 0;
		report_json_window(&sb, NULL, &anon, &fx->rw, &empty, NULL, fx->ft);
		j = cJSON_ParseWithLength(sb.data, sb.len);
		ok(j && cJSON_IsNull(get(get(j, "target"), "pid")) &&
			cJSON_IsNull(get(get(j, "target"), "node_version")), "unknown pid and version are null");
		ok(j && get(get(j, "cpu"), "idle_pct")->valuedouble == 0 &&
			cJSON_GetArraySize(get(j, "top")) == 0, "empty window: 0 %% and no rows");
		cJSON_Delete(j);
		strbuf_reset(&sb);
		report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, NULL, fx->ft);
		j = cJSON_ParseWithLength(sb.data, sb.len);
		e = j ? cJSON_GetArrayItem(get(j, "top"), 0) : NULL;
		ok(e && get(e, "self_pct")->valuedouble == 0 && cJSON_IsNull(get(e, "cum_self_ms")),
			"no sampled time gives 0 %%, no cumulative counters give null");
		cJSON_Delete(j);
		fx->w.sampled_us = 1000000;
	}
	strbuf_free(&sb);
}

/* A target in a container: both of its PIDs, the keys only then. */
static void test_container(struct fixture *fx)
{
	struct strbuf sb;
	cJSON *j;
	const cJSON *target;

	strbuf_init(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	target = j ? get(j, "target") : NULL;
	ok(target && !cJSON_GetObjectItemCaseSensitive(target, "container") &&
		!cJSON_GetObjectItemCaseSensitive(target, "container_pid"),
		"a host process: no container keys");
	cJSON_Delete(j);
	fx->t.container = true;
	fx->t.container_pid = 7;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	target = j ? get(j, "target") : NULL;
	ok(target && cJSON_IsTrue(get(target, "container")), "in a container: container is true");
	ok(target && get(target, "container_pid")->valueint == 7 &&
		get(target, "pid")->valueint == 1234, "container_pid beside the host's pid");
	cJSON_Delete(j);
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "  pid 1234 (container pid 7)  node ") != NULL,
		"text: the container's PID after the host's");
	fx->t.container = false;
	fx->t.container_pid = 0;
	strbuf_free(&sb);
}

/* A source-mapped function: V8's fields as they were, and where the map puts it beside them;
 * text shows the original. Runs last: it leaves fib mapped. */
static void test_original(struct fixture *fx)
{
	struct strbuf sb;
	cJSON *j, *top0, *orig;

	strbuf_init(&sb);
	functab_set_origin(fx->ft, fx->fib, "fibTs", 5, "/srv/app/src/fib.ts", 19, 9, 16);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	top0 = j ? cJSON_GetArrayItem(get(j, "top"), 0) : NULL;
	orig = top0 ? cJSON_GetObjectItemCaseSensitive(top0, "original") : NULL;
	ok(top0 && strcmp(get(top0, "function")->valuestring, "fib") == 0,
		"function stays V8's name");
	ok(orig && strcmp(get(orig, "function")->valuestring, "fibTs") == 0 &&
		strcmp(get(orig, "url")->valuestring, "/srv/app/src/fib.ts") == 0 &&
		get(orig, "line")->valueint == 10 && get(orig, "column")->valueint == 17,
		"original: the map's name, source, line and column (from 1)");
	cJSON_Delete(j);
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, " fibTs ") && strstr(sb.data, "/srv/app/src/fib.ts:10:17"),
		"text: the original name and place");
	strbuf_free(&sb);
}

/* Other processes ride in the main line's "processes" array, each a whole window object. */
static void test_processes(struct fixture *fx)
{
	struct strbuf one, line;
	struct report_target other = fx->t;
	cJSON *j;
	const cJSON *ps;

	strbuf_init(&one);
	strbuf_init(&line);
	other.pid = 4321;
	report_json_process(&one, &other, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(one.len && one.data[one.len - 1] == '}', "a process's object has no newline");
	fx->rw.processes_json = one.data;
	report_json_window(&line, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(line.data, line.len);
	ps = j ? get(j, "processes") : NULL;
	ok(cJSON_IsArray(ps) && cJSON_GetArraySize(ps) == 1, "the line has a processes array");
	ok(ps && get(get(cJSON_GetArrayItem(ps, 0), "target"), "pid")->valueint == 4321 &&
		get(get(j, "target"), "pid")->valueint == 1234,
		"with the other process's pid; the main one's keys where they were");
	ok(ps && cJSON_IsArray(get(cJSON_GetArrayItem(ps, 0), "top")) &&
		!cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ps, 0), "thread_id") &&
		!cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ps, 0), "processes"),
		"each a window of its own: top, no thread keys, no nested processes");
	cJSON_Delete(j);
	fx->rw.processes_json = NULL;
	strbuf_reset(&line);
	report_json_window(&line, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(!strstr(line.data, "\"processes\""), "one process: no processes key");
	strbuf_free(&one);
	strbuf_free(&line);
}

static void test_text(struct fixture *fx)
{
	struct strbuf sb;
	const char *row;
	char *line;
	size_t rows = 0;

#define HEADER "ntop-js - 2023-11-14 22:13:20  pid 1234  node v20.20.2  title node ?[31mserver.js\n"
	setenv("TZ", "UTC", 1);
	tzset();
	strbuf_init(&sb);
	fx->rw.top_n = 10;
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(terminal_safe(sb.data, sb.len), "text report is terminal-safe (no escapes, valid UTF-8)");
	is_int(strncmp(sb.data, HEADER, strlen(HEADER)), 0, "header: time, pid, version, sanitised title");
	ok(strstr(sb.data, "980 samples") && strstr(sb.data, "1000 ms"), "window length and samples");
	ok(strstr(sb.data, "CPU:  60.0% JS,   5.0% GC,  10.0% program,  25.0% idle\n") != NULL, "CPU split");
	row = strstr(sb.data, " SELF% TOTAL%    SELF(ms)   TOTAL(ms)  FUNCTION");
	ok(row != NULL && strstr(row, "LOCATION\n"), "column header");
	ok(strstr(sb.data, "  40.0   50.0      2500.0      3000.0  fib ") != NULL,
		"row: window percentages, cumulative milliseconds");
	ok(strstr(sb.data, "/srv/app.js:5:11\n") != NULL, "location path:line:column, 1-based");
	ok(strstr(sb.data, "?]0;pwned?x?? ") != NULL, "evil name sanitised in place");
	ok(strstr(sb.data, "/srv/??[2Jbad.js\n") != NULL, "evil url sanitised, unknown line left out");
	ok(strstr(sb.data, "(anonymous)") != NULL, "anonymous function named");
	line = strstr(sb.data, "...");
	ok(line && strstr(line, "directory/handler.js:1:1\n") && !strstr(sb.data, "file://"),
		"long location shortened from the left, keeping the file and line");
	for (row = row ? strchr(row, '\n') + 1 : sb.data; *row && *row != '\n'; row = strchr(row, '\n') + 1)
		rows++;
	is_int(rows, 4, "one row per function");
	ok(sb.len >= 2 && strcmp(sb.data + sb.len - 2, "\n\n") == 0, "report ends with a blank line");
	{
		size_t maxw = 0, w = 0;
		for (size_t i = 0; i < sb.len; i++) {
			if (sb.data[i] == '\n') {
				maxw = w > maxw ? w : maxw;
				w = 0;
			} else if (((unsigned char)sb.data[i] & 0xc0) != 0x80) {
				w++;
			}
		}
		ok(maxw <= 160, "no line wider than 160 columns (widest %zu)", maxw);
	}

	strbuf_reset(&sb);
	fx->w.sampled_us = 0;
	fx->w.n_funcs = 0;
	report_text_window(&sb, NULL, &fx->rw, &fx->w, NULL, fx->ft);
	ok(strstr(sb.data, "CPU:   0.0% JS") && strstr(sb.data, "no JavaScript functions sampled"),
		"empty window: zero split and a note instead of rows");
	fx->w.n_funcs = 4;
	fx->w.sampled_us = 1000000;
	strbuf_free(&sb);
}

/* What was done to the JIT, in both reports; rows that may hold inlined callees marked. */
static void test_inlining(struct fixture *fx)
{
	struct engine_jit_info fixed = { true, NULL, "--no-maglev-inlining", true, 4.3, false };
	struct engine_jit_info left = { false, "--leave-jit", "", false, 0, false };
	struct engine_jit_info nothing = { true, NULL, "", false, 0, false };
	struct engine_jit_info repaired = { true, NULL, "", true, 12.0, true };
	struct strbuf sb;

	strbuf_init(&sb);
	fx->rw.jit = &repaired;
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, ",\"inlining\":{\"exact\":true,\"why_not\":null,\"v8_flags\":\"\","
		"\"repaired\":true,\"deoptimized\":true,\"deopt_ms\":12.0}") != NULL,
		"JSON: repaired, no flag, the deoptimization");
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "Inlining: inlined functions have their own rows, given back from the "
		"profile's lines (V8's inlining kept); all code was deoptimized once at attach "
		"(12 ms)\n") != NULL, "text: the repair, in one line");
	strbuf_reset(&sb);

	fx->rw.jit = &fixed;
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, ",\"inlining\":{\"exact\":true,\"why_not\":null,\"v8_flags\":"
		"\"--no-maglev-inlining\",\"repaired\":false,\"deoptimized\":true,\"deopt_ms\":4.3}") != NULL,
		"JSON: inlined functions exact, the flags and the deoptimization");
	ok(!strstr(sb.data, "self_may_include_inlined"), "JSON: no row marked when exact");
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "Inlining: inlined functions have their own rows; V8 runs with "
		"--no-maglev-inlining while ntop-js is attached; all code was deoptimized once at "
		"attach (4 ms)\n") != NULL, "text: what was done, in one line");

	strbuf_reset(&sb);
	fx->rw.jit = &left;
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\"exact\":false,\"why_not\":\"--leave-jit\"") != NULL,
		"JSON: not exact, and why");
	ok(strstr(sb.data, "{\"function\":\"fib\",\"url\":\"/srv/app.js\",\"line\":5,\"column\":11,"
		"\"self_may_include_inlined\":true") != NULL, "JSON: a JS row says it may hold inlined callees");
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "Inlining: V8 left as it was (--leave-jit): SELF of rows marked + may "
		"include functions V8 inlined into them\n") != NULL, "text: the caveat");
	ok(strstr(sb.data, "+ /srv/app.js:5:11\n") != NULL, "text: the marked row");

	strbuf_reset(&sb);
	fx->rw.jit = &nothing;
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "Inlining:") == NULL, "text: nothing said when nothing was needed");
	fx->rw.jit = NULL;
	strbuf_free(&sb);
}

/* --no-cpu: a window of memory only, whatever the window stats hold. */
/* The event loop: JSON's event_loop object (null without a reading) and the text LOOP line. */
static void test_evloop(struct fixture *fx)
{
	static const char reply[] = "{\"r\":{\"u\":0.3712,\"s\":1001.5,\"n\":98,\"p50\":10100000,"
		"\"p99\":12345000,\"max\":340200000},\"k\":{\"TCPSocketWrap\":12,\"Time\\u001bout\":3}}";
	struct evloop_reading r;
	struct strbuf sb;
	cJSON *j, *l;

	strbuf_init(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	ok(j && cJSON_IsNull(cJSON_GetObjectItem(j, "event_loop")), "loop: null without a reading");
	cJSON_Delete(j);
	evloop_parse(reply, strlen(reply), &r);
	fx->rw.evloop = &r;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	l = j ? cJSON_GetObjectItem(j, "event_loop") : NULL;
	ok(l && cJSON_GetNumberValue(cJSON_GetObjectItem(l, "utilization")) == 0.3712 &&
		cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(l, "lag_ms"), "max")) == 340.2 &&
		cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(l, "resources"),
		"TCPSocketWrap")) == 12, "loop: utilization, lag in ms and resources in JSON");
	ok(!strchr(sb.data, '\x1b'), "loop: no escape from the target reaches the output");
	cJSON_Delete(j);
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "LOOP: 37.1 % busy, lag p50 10.1 ms, p99 12.3 ms, max 340.2 ms; handles and "
		"requests: TCPSocketWrap 12, Time?out 3\n") != NULL, "loop: the text line");
	fx->rw.evloop = NULL;
	strbuf_free(&sb);
}

static void test_cpu_off(struct fixture *fx)
{
	struct strbuf sb;
	cJSON *j;

	strbuf_init(&sb);
	fx->rw.cpu_off = true;
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	ok(j != NULL, "--no-cpu: the JSON line parses");
	if (j) {
		ok(cJSON_IsFalse(cJSON_GetObjectItem(j, "cpu_profiling")), "cpu_profiling is false");
		ok(cJSON_IsNull(cJSON_GetObjectItem(j, "cpu")), "cpu is null");
		ok(cJSON_IsArray(cJSON_GetObjectItem(j, "top")) &&
			cJSON_GetArraySize(cJSON_GetObjectItem(j, "top")) == 0, "top is empty");
		ok(!cJSON_GetObjectItem(j, "inlining"), "and nothing is said of inlining");
		cJSON_Delete(j);
	}
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "CPU not profiled (--no-cpu: memory only)\n") != NULL,
		"text: the window says the CPU is not profiled");
	ok(!strstr(sb.data, "SELF%") && !strstr(sb.data, "fib"), "text: no function table");
	ok(!strstr(sb.data, "burst"), "text: no word of bursts without them");
	/* --cpu-every, between bursts */
	fx->rw.next_burst_in_s = 41.2;
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "CPU not profiled (between bursts: the next in 42 s)\n") != NULL,
		"text between bursts: when the next one starts");
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	j = cJSON_ParseWithLength(sb.data, sb.len);
	ok(j && cJSON_IsFalse(cJSON_GetObjectItem(j, "cpu_profiling")) &&
		cJSON_GetNumberValue(cJSON_GetObjectItem(j, "next_cpu_burst_s")) == 41.2,
		"JSON between bursts: cpu_profiling false, next_cpu_burst_s");
	cJSON_Delete(j);
	fx->rw.next_burst_in_s = NAN;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(!strstr(sb.data, "next_cpu_burst_s"), "JSON without bursts: no next_cpu_burst_s");
	fx->rw.cpu_off = false;
	test_evloop(fx);
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\"cpu_profiling\":true,") != NULL && strstr(sb.data, "\"cpu\":{"),
		"with the profiler: cpu_profiling true, and the cpu object");
	fx->rw.start_pause_est_s = 1.2344;
	fx->rw.gc_pause_est_s = NAN;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, ",\"pause_estimate\":{\"profiler_start_ms\":1234,\"full_gc_ms\":null}") != NULL,
		"the predicted pauses in ms, null when unknown");
	fx->rw.start_pause_est_s = fx->rw.gc_pause_est_s = 0;
	strbuf_free(&sb);
}

/* The CPU the thread could not get: cpu_contention and gc, null where unknown; a CPU WAIT line
 * in text. */
static void test_contention(struct fixture *fx)
{
	struct contention_window k = { 412.5, 300.04, 80, 0.3 };
	struct strbuf sb;

	strbuf_init(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(!strstr(sb.data, "cpu_contention") && strstr(sb.data, ",\"gc\":{\"pause_ms\":50.0}"),
		"not read: no cpu_contention; gc.pause_ms is the sampled GC time");
	fx->rw.contention = &k;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, ",\"cpu_contention\":{\"runqueue_wait_ms\":412.5,\"throttled_ms\":300.0,"
		"\"throttled_periods_pct\":80.0,\"quota_cores\":0.30}") != NULL,
		"cpu_contention: wait, throttled time and periods, quota");
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\nCPU WAIT: run queue 412 ms, throttled 300 ms in 80% of periods (quota 0.30 cores)\n") != NULL,
		"text: the CPU WAIT line");
	k = (struct contention_window){ 12, NAN, NAN, INFINITY };
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\"runqueue_wait_ms\":12.0,\"throttled_ms\":null,\"throttled_periods_pct\":null,\"quota_cores\":null}") != NULL,
		"unknown throttling and no quota: null");
	strbuf_reset(&sb);
	report_text_window(&sb, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\nCPU WAIT: run queue 12 ms (no CPU quota)\n") != NULL,
		"text: no quota said as such");
	fx->rw.cpu_off = true;
	strbuf_reset(&sb);
	report_json_window(&sb, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(strstr(sb.data, "\"cpu_contention\":{") && strstr(sb.data, "\"gc\":{\"pause_ms\":null}"),
		"--no-cpu: the kernel's figures stay, gc.pause_ms is null");
	fx->rw.cpu_off = false;
	fx->rw.contention = NULL;
	strbuf_free(&sb);
}

/* The --log record: the same object, with its type first. */
static void test_json_typed(struct fixture *fx)
{
	struct strbuf plain, typed;
	static const char head[] = "{\"type\":\"window\",";

	strbuf_init(&plain);
	strbuf_init(&typed);
	report_json_window(&plain, NULL, &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	report_json_window(&typed, "window", &fx->t, &fx->rw, &fx->w, &fx->c, fx->ft);
	ok(typed.len == plain.len + strlen(head) - 1 && strncmp(typed.data, head, strlen(head)) == 0 &&
		memcmp(typed.data + strlen(head), plain.data + 1, plain.len - 1) == 0,
		"a typed window is the plain one with \"type\" first");
	strbuf_free(&plain);
	strbuf_free(&typed);
}

int main(void)
{
	struct fixture fx;

	fixture_init(&fx);
	test_json(&fx);
	test_json_typed(&fx);
	test_container(&fx);
	test_processes(&fx);
	test_text(&fx);
	test_inlining(&fx);
	test_cpu_off(&fx);
	test_contention(&fx);
	test_original(&fx);
	fixture_free(&fx);
	return done_testing();
}
