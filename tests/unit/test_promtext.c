/* test_promtext.c: the Prometheus text writer (promtext.h): names, escaping, values as Go
 * writes them, and ntop-js's metrics for two threads of a target.
 *
 * With --write FILE it writes that exposition to FILE, for tests/integration/pprof_tool.sh
 * to hand to promtool check metrics. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "promtext.h"
#include "strbuf.h"

static void value_is(double v, const char *want)
{
	struct strbuf sb;

	strbuf_init(&sb);
	prom_value(&sb, v);
	is_str(sb.data, want, "%.17g is written %s", v, want);
	strbuf_free(&sb);
}

static void test_values(void)
{
	/* what Go's strconv.FormatFloat(v, 'g', -1, 64) gives */
	value_is(1, "1");
	value_is(0, "0");
	value_is(-0.0, "0");
	value_is(0.25, "0.25");
	value_is(0.1, "0.1");
	value_is(100, "100");
	value_is(123456, "123456");
	value_is(1e6, "1e+06");
	value_is(1234567, "1.234567e+06");
	value_is(0.0001, "0.0001");
	value_is(0.00001, "1e-05");
	value_is(1.5e-7, "1.5e-07");
	value_is(-2.5, "-2.5");
	value_is(3.0000000000000004, "3.0000000000000004");
	value_is(1e21, "1e+21");
	value_is(1e100, "1e+100");
	value_is(5e-324, "5e-324");
	value_is(1.7976931348623157e308, "1.7976931348623157e+308");
	value_is(2147483648.0, "2.147483648e+09");
	value_is(NAN, "NaN");
	value_is(INFINITY, "+Inf");
	value_is(-INFINITY, "-Inf");
}

static void test_names(void)
{
	ok(prom_metric_name_ok("a") && prom_metric_name_ok("_x:y_1") &&
		prom_metric_name_ok("nodejs_heap_size_used_bytes"), "good metric names");
	ok(!prom_metric_name_ok("") && !prom_metric_name_ok(NULL) && !prom_metric_name_ok("1a") &&
		!prom_metric_name_ok("a-b") && !prom_metric_name_ok("a b") &&
		!prom_metric_name_ok("é"), "bad metric names");
	ok(prom_label_name_ok("pid") && prom_label_name_ok("_x1"), "good label names");
	ok(!prom_label_name_ok("__name__") && !prom_label_name_ok("a:b") &&
		!prom_label_name_ok("1a") && !prom_label_name_ok(""), "bad label names");
}

static void test_lines(void)
{
	struct strbuf sb;
	struct prom_label l[3] = { { "a", "x\\y\"z\nw" }, { "b", "caf\xc3\xa9 \xff!" },
		{ "c", NULL } };
	struct prom_label dup[2] = { { "a", "1" }, { "a", "2" } };
	struct prom_label bad[1] = { { "__a", "1" } };

	strbuf_init(&sb);
	ok(prom_family(&sb, "x_total", PROM_COUNTER, "a \\ b\nc \"q\"") == 0, "a counter family");
	is_str(sb.data, "# HELP x_total a \\\\ b\\nc \"q\"\n# TYPE x_total counter\n",
		"HELP escapes backslash and newline, not quotes");
	strbuf_reset(&sb);
	ok(prom_family(&sb, "x_seconds", PROM_COUNTER, "h") < 0 && sb.len == 0,
		"a counter must end in _total");
	ok(prom_family(&sb, "x-y", PROM_GAUGE, "h") < 0 && sb.len == 0, "a bad family name");
	ok(prom_sample(&sb, "m", l, 3, 2.5) == 0, "a sample with labels");
	is_str(sb.data, "m{a=\"x\\\\y\\\"z\\nw\",b=\"caf\xc3\xa9 \xef\xbf\xbd!\",c=\"\"} 2.5\n",
		"label values escaped, bad UTF-8 replaced, NULL empty");
	strbuf_reset(&sb);
	ok(prom_sample(&sb, "m", NULL, 0, 1) == 0, "a sample without labels");
	is_str(sb.data, "m 1\n", "... has no braces");
	strbuf_reset(&sb);
	ok(prom_sample(&sb, "m", dup, 2, 1) < 0 && sb.len == 0, "a label twice is refused");
	ok(prom_sample(&sb, "m", bad, 1, 1) < 0 && sb.len == 0, "a reserved label name is refused");
	ok(prom_sample(&sb, "9m", NULL, 0, 1) < 0 && sb.len == 0, "a bad metric name is refused");
	strbuf_free(&sb);
}

/* Two threads of one target, with a hostile function name. */
static const struct prom_heap_space spaces[] = {
	{ "new_space", 1048576, 2097152 }, { "old_space", 30e6, 33554432 },
};
static const struct prom_resource resources[] = {
	{ "TCPSocketWrap", 12 }, { "Timeout", 3 },
};
static const struct prom_function top_main[] = {
	{ "hotMain", "/srv/app/hot.js", 7, 12.5 },
	{ "we\"ird\\fn\nname", "/srv/app/x.js", 3, 1.25 },
	{ "(garbage collector)", "", 0, 0.5 },
	{ "left out \xfe", "/srv/app/y.js", 9, 0.1 },
};
static const struct prom_function top_worker[] = {
	{ "crunch", "/srv/app/worker.js", 40, 3 },
};

static const struct prom_http http_server[] = {
	{ "GET", "/api/items/:id", 6, 0, 1, 0.126,
		{ 0, 0, 0, 0, 0, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 } },
	{ "_OTHER", "other", 2, 2, 0, 0.002, { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 } },
};
static const struct prom_http http_client[] = {
	{ "10.0.0.7", "8080", 9, 2, 0, 0.45,
		{ 0, 0, 0, 0, 0, 0, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 } },
};

static void targets(struct prom_target t[2])
{
	memset(t, 0, 2 * sizeof(*t));
	t[0] = (struct prom_target){
		.pid = 4242, .title = "node /srv/app/server.js", .thread = "main",
		.node_version = "v20.11.1", .attached = true, .process_cpu_s = 81.25,
		.runqueue_wait_s = 12.5, .throttled_s = 3.25, .quota_cores = 1.5, .periods = 600,
		.throttled_periods = 42,
		.rss_bytes = 123456789, .heap_used_bytes = 45e6, .heap_total_bytes = 60e6,
		.external_bytes = 2e6, .spaces = spaces, .n_spaces = 2,
		.growth_verdict = "growing", .heap_growth_bytes_per_hour = 5242880,
		.evloop_utilization = 0.42, .lag_s = 0.0021, .lag_p50_s = 0.0021, .lag_p99_s = 0.015,
		.lag_max_s = 0.3, .resources = resources, .n_resources = 2, .cpu_known = true,
		.cpu_js_s = 20, .cpu_gc_s = 1.5, .cpu_program_s = 2.25, .cpu_idle_s = 36.25,
		.top = top_main, .n_top = 4,
		.http_server = http_server, .n_http_server = 2,
		.http_client = http_client, .n_http_client = 1,
	};
	/* a worker: no process-wide readings, no growth yet, the loop unknown */
	t[1] = (struct prom_target){
		.pid = 4242, .title = "node /srv/app/server.js", .thread = "pool-1",
		.node_version = "v20.11.1", .attached = true, .process_cpu_s = NAN,
		.runqueue_wait_s = NAN, .throttled_s = NAN, .quota_cores = NAN, .periods = NAN,
		.throttled_periods = NAN, .rss_bytes = NAN, .heap_used_bytes = 8e6,
		.heap_total_bytes = 16e6,
		.external_bytes = NAN, .growth_verdict = "unknown",
		.heap_growth_bytes_per_hour = NAN, .evloop_utilization = NAN, .lag_s = NAN,
		.lag_p50_s = NAN, .lag_p99_s = NAN, .lag_max_s = NAN, .cpu_known = true,
		.cpu_js_s = 3, .cpu_gc_s = 0.25, .cpu_program_s = 0, .cpu_idle_s = 56.75,
		.top = top_worker, .n_top = 1,
	};
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void test_render(void)
{
	struct prom_target t[2];
	struct strbuf sb;
	const char *x;

	targets(t);
	strbuf_init(&sb);
	promtext_render(&sb, t, 2, 3);
	x = sb.data;
	ok(strstr(x, "# TYPE process_resident_memory_bytes gauge\n"
		"process_resident_memory_bytes{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\"} 1.23456789e+08\n") != NULL, "RSS under prom-client's name");
	is_int(count(x, "process_resident_memory_bytes{"), 1, "... only where read");
	ok(strstr(x, "# TYPE process_cpu_seconds_total counter\n") != NULL,
		"process CPU is a counter");
	ok(strstr(x, "# TYPE ntopjs_cpu_runqueue_wait_seconds_total counter\n"
		"ntopjs_cpu_runqueue_wait_seconds_total{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\"} 12.5\n") != NULL, "the run-queue wait, a counter");
	ok(strstr(x, "ntopjs_cpu_throttled_seconds_total{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\"} 3.25\n") && strstr(x, "ntopjs_cpu_quota_cores{pid=\"4242\",title=\"node "
		"/srv/app/server.js\",thread=\"main\"} 1.5\n"), "the throttled time and the quota");
	ok(strstr(x, "ntopjs_cpu_cfs_throttled_periods_total{pid=\"4242\",title=\"node "
		"/srv/app/server.js\",thread=\"main\"} 42\n") != NULL, "and the throttled periods");
	is_int(count(x, "ntopjs_cpu_runqueue_wait_seconds_total{"), 1, "... only where read");
	is_int(count(x, "nodejs_heap_size_used_bytes{"), 2, "heap used for both threads");
	ok(strstr(x, "nodejs_heap_space_size_used_bytes{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\",space=\"old_space\"} 3e+07\n") != NULL, "heap spaces by space");
	ok(strstr(x, "nodejs_eventloop_lag_p99_seconds{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\"} 0.015\n") != NULL, "lag p99 in seconds");
	is_int(count(x, "nodejs_eventloop_lag_seconds{"), 1, "no lag where unknown");
	ok(strstr(x, "nodejs_eventloop_utilization{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\"} 0.42\n") != NULL, "loop utilization");
	ok(strstr(x, ",type=\"TCPSocketWrap\"} 12\n") != NULL, "active resources by type");
	ok(strstr(x, "nodejs_version_info{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\",version=\"v20.11.1\",major=\"20\",minor=\"11\",patch=\"1\"} 1\n") != NULL,
		"version info with prom-client's labels");
	is_int(count(x, "ntopjs_attached{"), 2, "attached for every thread");
	is_int(count(x, "ntopjs_heap_growth_bytes_per_hour{"), 1, "growth only with a verdict");
	ok(strstr(x, "thread=\"main\",verdict=\"growing\"} 1\n") != NULL &&
		strstr(x, "thread=\"main\",verdict=\"stable\"} 0\n") != NULL,
		"the verdict as a state set");
	ok(strstr(x, "thread=\"pool-1\",verdict=\"growing\"} 0\n") != NULL &&
		strstr(x, "thread=\"pool-1\",verdict=\"stable\"} 0\n") != NULL,
		"unknown: every state 0");
	ok(strstr(x, "# TYPE ntopjs_cpu_seconds_total counter\n") != NULL &&
		strstr(x, "thread=\"main\",kind=\"idle\"} 36.25\n") != NULL, "CPU by kind");
	is_int(count(x, "ntopjs_function_self_seconds_total{"), 4, "top 3 of main, 1 of the worker");
	ok(strstr(x, "function=\"we\\\"ird\\\\fn\\nname\",url=\"/srv/app/x.js\",line=\"3\"} 1.25\n") != NULL,
		"a hostile function name escaped");
	ok(!strstr(x, "left out"), "the fourth function is past top_n");
	ok(strstr(x, "# TYPE http_server_request_duration_seconds histogram\n"
		"http_server_request_duration_seconds_bucket{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\",http_request_method=\"GET\",http_route=\"/api/items/:id\",le=\"0.0008\"} 0\n") != NULL,
		"request durations under OpenTelemetry's name, with its labels, from 0.8 ms");
	ok(strstr(x, "http_route=\"/api/items/:id\",le=\"0.0256\"} 5\n") &&
		strstr(x, "http_route=\"/api/items/:id\",le=\"52.4288\"} 6\n") &&
		strstr(x, "http_route=\"/api/items/:id\",le=\"+Inf\"} 6\n") &&
		strstr(x, "http_request_method=\"GET\",http_route=\"/api/items/:id\"} 0.126\n") &&
		strstr(x, "http_server_request_duration_seconds_count{pid=\"4242\",title=\"node "
		"/srv/app/server.js\",thread=\"main\",http_request_method=\"GET\","
		"http_route=\"/api/items/:id\"} 6\n"), "its buckets, +Inf, _sum and _count");
	is_int(count(x, "http_server_request_duration_seconds_bucket{"), 2 * (PROM_HTTP_BOUNDS + 1),
		"18 buckets a route");
	ok(strstr(x, "http_server_active_requests{pid=\"4242\",title=\"node /srv/app/server.js\","
		"thread=\"main\",http_request_method=\"GET\",http_route=\"/api/items/:id\"} 1\n") &&
		strstr(x, "ntopjs_http_server_request_errors_total{pid=\"4242\",title=\"node "
		"/srv/app/server.js\",thread=\"main\",http_request_method=\"_OTHER\",http_route=\"other\"} 2\n"),
		"in flight, and errors");
	ok(strstr(x, "# TYPE http_client_request_duration_seconds histogram\n") &&
		strstr(x, "http_client_request_duration_seconds_bucket{pid=\"4242\",title=\"node "
		"/srv/app/server.js\",thread=\"main\",server_address=\"10.0.0.7\",server_port=\"8080\","
		"le=\"0.0512\"} 8\n") && strstr(x, "ntopjs_http_client_request_errors_total{"),
		"calls per destination: server_address and server_port");
	is_int(count(x, "# TYPE "), count(x, "# HELP "), "a HELP per TYPE");
	is_int(count(x, "# TYPE nodejs_heap_size_used_bytes "), 1, "each family once");
	strbuf_free(&sb);

	/* nothing known: no family at all */
	{
		struct prom_target e = { .process_cpu_s = NAN, .rss_bytes = NAN,
			.runqueue_wait_s = NAN, .throttled_s = NAN, .quota_cores = NAN, .periods = NAN,
			.throttled_periods = NAN,
			.heap_used_bytes = NAN, .heap_total_bytes = NAN, .external_bytes = NAN,
			.heap_growth_bytes_per_hour = NAN, .evloop_utilization = NAN, .lag_s = NAN,
			.lag_p50_s = NAN, .lag_p99_s = NAN, .lag_max_s = NAN };
		strbuf_init(&sb);
		promtext_render(&sb, &e, 1, 10);
		is_str(sb.data, "# HELP ntopjs_attached 1 while ntop-js is attached to the target, 0 "
			"once it has left or lost it.\n# TYPE ntopjs_attached gauge\nntopjs_attached 0\n",
			"a target with nothing read has ntopjs_attached only, without labels");
		strbuf_free(&sb);
	}
}

static int write_file(const char *path)
{
	struct prom_target t[2];
	struct strbuf sb;
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return 1;
	targets(t);
	strbuf_init(&sb);
	promtext_render(&sb, t, 2, 10);
	rc = fwrite(sb.data, 1, sb.len, f) != sb.len;
	strbuf_free(&sb);
	return fclose(f) != 0 || rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return write_file(argv[2]);
	test_values();
	test_names();
	test_lines();
	test_render();
	return done_testing();
}
