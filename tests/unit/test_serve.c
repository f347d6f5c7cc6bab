/* test_serve.c: --serve's request parser, address parsing and the /metrics mapping
 * (promfill), without sockets. */
#include "config.h"

#include "tap.h"

#include "aggregate.h"
#include "cumulative.h"
#include "engine.h"
#include "evloop.h"
#include "functab.h"
#include "memseries.h"
#include "promfill.h"
#include "procfs.h"
#include "promtext.h"
#include "requests.h"
#include "serve.h"
#include "strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum serve_parse parse(const char *s, struct serve_request *r)
{
	return serve_parse_request(s, strlen(s), r);
}

static void test_parser(void)
{
	struct serve_request r;
	char big[SERVE_MAX_HEAD + 64], v[16];

	is_int(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r), SERVE_OK, "a GET");
	is_str(r.method, "GET", "its method");
	is_str(r.path, "/metrics", "its path");
	is_str(r.query, "", "no query");
	is_int(parse("GET /debug/pprof/profile?seconds=3&x=1 HTTP/1.0\n\n", &r), SERVE_OK,
		"bare LFs and HTTP/1.0");
	is_str(r.path, "/debug/pprof/profile", "the path without its query");
	is_str(r.query, "seconds=3&x=1", "the query");
	ok(serve_query_param(r.query, "seconds", v, sizeof v) && strcmp(v, "3") == 0,
		"seconds=3");
	ok(!serve_query_param(r.query, "second", v, sizeof v), "a prefix is not a parameter");
	ok(serve_query_param(r.query, "x", v, sizeof v) && strcmp(v, "1") == 0, "the last one");
	is_int(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), SERVE_NEED_MORE, "incomplete");
	is_int(parse("", &r), SERVE_NEED_MORE, "nothing yet");
	is_int(parse("garbage\r\n\r\n", &r), SERVE_BAD, "garbage");
	is_int(parse("GET metrics HTTP/1.1\r\n\r\n", &r), SERVE_BAD, "a target without /");
	is_int(parse("GET /metrics HTTP/2.0\r\n\r\n", &r), SERVE_BAD, "HTTP/2.0");
	is_int(parse("GET /metrics HTTP/1.1 x\r\n\r\n", &r), SERVE_BAD, "an extra word");
	is_int(parse("G(T /metrics HTTP/1.1\r\n\r\n", &r), SERVE_BAD, "a method not a token");
	is_int(parse("GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", &r), SERVE_BAD, "a bad header");
	is_int(parse("GET /met\x01rics HTTP/1.1\r\n\r\n", &r), SERVE_BAD, "a control byte");
	is_int(serve_parse_request("GET / HTTP/1.1\r\n\0\r\n\r\n", 21, &r), SERVE_BAD, "a NUL");
	is_int(parse("POST /metrics HTTP/1.1\r\n\r\n", &r), SERVE_OK, "POST parses (405 later)");
	is_str(r.method, "POST", "its method");
	memset(big, 'a', sizeof big);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	is_int(serve_parse_request(big, SERVE_MAX_HEAD, &r), SERVE_TOO_LARGE, "8 KiB, no end");
	is_int(serve_parse_request(big, SERVE_MAX_HEAD - 1, &r), SERVE_NEED_MORE, "under 8 KiB");
	{
		char path[600] = "GET /";
		memset(path + 5, 'p', 400);
		strcpy(path + 405, " HTTP/1.1\r\n\r\n");
		is_int(parse(path, &r), SERVE_BAD, "a path longer than kept");
	}
	is_int(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r), SERVE_OK, "no Authorization");
	is_str(r.authorization, "", "then none kept");
	is_int(parse("GET /metrics HTTP/1.1\r\nauthorization:  Bearer abc.DEF-1 \t\r\n\r\n", &r),
		SERVE_OK, "an Authorization header, any case");
	is_str(r.authorization, "Bearer abc.DEF-1", "its value, trimmed");
	{
		char req[700] = "GET / HTTP/1.1\r\nAuthorization: Bearer ";
		size_t n = strlen(req);
		memset(req + n, 't', 300);
		strcpy(req + n + 300, "\r\n\r\n");
		is_int(parse(req, &r), SERVE_OK, "one longer than kept still parses");
		is_str(r.authorization, "", "but keeps nothing (so a required token fails)");
	}
}

static void test_addr(void)
{
	char host[64], *cause = NULL;
	int port = 0;

	ok(serve_parse_addr("9464", host, sizeof host, &port, &cause) == 0 && port == 9464 &&
		strcmp(host, "127.0.0.1") == 0, "PORT: loopback");
	ok(serve_parse_addr("0.0.0.0:80", host, sizeof host, &port, &cause) == 0 && port == 80 &&
		strcmp(host, "0.0.0.0") == 0, "ADDR:PORT");
	ok(serve_parse_addr("[::1]:9464", host, sizeof host, &port, &cause) == 0 &&
		strcmp(host, "::1") == 0, "[V6]:PORT");
	ok(serve_parse_addr("localhost:1", host, sizeof host, &port, &cause) == 0 &&
		strcmp(host, "127.0.0.1") == 0, "localhost");
	static const char *const bad[] = { "", "0", "65536", "x", "1.2.3.4:", ":80", "::1:80",
		"example.com:80", "127.0.0.1:-1", "127.0.0.1:80x", "[::1]80" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		ok(serve_parse_addr(bad[i], host, sizeof host, &port, &cause) < 0 && cause &&
			strstr(cause, "--serve"), "refused: '%s'", bad[i]);
		free(cause);
	}
}

static void test_promfill(void)
{
	struct functab *ft = functab_create();
	struct cumulative c;
	struct mem_sample m = { 1.0, { 100e6, 20e6, 30e6, NAN, NAN } };
	struct mem_growth g;
	struct engine_heap_space sp[2];
	struct evloop_reading l;
	struct promfill_source src;
	struct promfill_store st;
	struct prom_target t;
	struct strbuf out;
	uint32_t hot, cold, idle;

	idle = functab_intern(ft, "(idle)", 6, "", 0, -1, -1);
	hot = functab_intern(ft, "hotMain", 7, "file:///srv/hot.js", 18, 9, 2);
	cold = functab_intern(ft, "cold", 4, "file:///srv/hot.js", 18, 30, 2);
	memset(&c, 0, sizeof c);
	c.cap = functab_count(ft);
	c.self_us = calloc(c.cap, sizeof *c.self_us);
	c.total_us = calloc(c.cap, sizeof *c.total_us);
	c.self_us[idle] = 9e6;
	c.self_us[hot] = 2.5e6;
	c.self_us[cold] = 0.5e6;
	c.n_windows = 3;
	c.js_us = 3e6;
	c.idle_us = 9e6;
	memset(&g, 0, sizeof g);
	g.verdict = MEM_GROWING;
	g.heap_bytes_per_hour = 1e6;
	memset(sp, 0, sizeof sp);
	strcpy(sp[0].name, "old_space");
	sp[0].used_bytes = 5;
	sp[0].size_bytes = 6;
	strcpy(sp[1].name, "new_space");
	memset(&l, 0, sizeof l);
	l.have_evloop = true;
	l.utilization = 0.25;
	l.lag_p50_ms = 2;
	l.lag_p99_ms = 10;
	l.lag_max_ms = 40;
	l.have_kinds = true;
	l.n_kinds = 1;
	strcpy(l.kinds[0].name, "Timeout");
	l.kinds[0].count = 3;

	memset(&src, 0, sizeof src);
	src.pid = 42;
	src.title = "node";
	src.thread = "main";
	src.node_version = "v20.1.2";
	src.attached = true;
	src.process_cpu_s = NAN;
	src.mem = &m;
	src.growth = &g;
	src.spaces = sp;
	src.n_spaces = 2;
	src.evloop = &l;
	src.cum = &c;
	src.ft = ft;
	src.top_n = 1;
	promfill_target(&src, &st, &t);
	is_int(t.pid, 42, "pid");
	is_num(t.rss_bytes, 100e6, 0, "rss");
	is_num(t.heap_used_bytes, 20e6, 0, "heap used");
	ok(isnan(t.external_bytes), "external not read: NAN");
	is_int((int)t.n_spaces, 2, "spaces");
	is_str(t.spaces[0].name, "old_space", "a space's name");
	is_str(t.growth_verdict, "growing", "verdict");
	is_num(t.heap_growth_bytes_per_hour, 1e6, 0, "growth");
	is_num(t.lag_p99_s, 0.010, 1e-12, "p99 in seconds");
	is_num(t.lag_s, 0.002, 1e-12, "lag: the p50");
	is_num(t.evloop_utilization, 0.25, 0, "utilization");
	is_int((int)t.n_resources, 1, "resources");
	ok(t.cpu_known, "cpu split known");
	is_num(t.cpu_idle_s, 9, 0, "idle seconds");
	is_int((int)t.n_top, 1, "top_n functions, (idle) left out");
	is_str(t.top[0].function, "hotMain", "the hottest first");
	is_int((int)t.top[0].line, 10, "1-based line");
	is_num(t.top[0].self_s, 2.5, 1e-12, "self seconds");
	is_str(t.top[0].url, "/srv/hot.js", "the url as shown");

	strbuf_init(&out);
	promtext_render(&out, &t, 1, 10);
	ok(strstr(out.data, "ntopjs_function_self_seconds_total{pid=\"42\",title=\"node\","
		"thread=\"main\",function=\"hotMain\"") != NULL, "rendered: hotMain");
	ok(strstr(out.data, "nodejs_heap_size_used_bytes{pid=\"42\",title=\"node\",thread=\"main\"} "
		"2e+07") != NULL, "rendered: heap used");
	strbuf_free(&out);

	src.top_n = 5;
	promfill_target(&src, &st, &t);
	is_int((int)t.n_top, 2, "top 5 of 2 functions");
	is_str(t.top[1].function, "cold", "then the next");
	is_int((int)t.n_http_server + (int)t.n_http_client, 0, "no requests read: no rows");

	/* requests since attach: buckets of the target's (requests.h) summed at each bound */
	{
		struct req_window *w = calloc(1, sizeof *w);

		strcpy(w->server[0].key, "GET /a/:id");
		w->server[0].count = 6;
		w->server[0].sum_ms = 200;
		w->server[0].in_flight = 2;
		w->server[0].hist[35] = 5;   /* 20 ms: [18.1, 21.5) ms */
		w->server[0].hist[44] = 1;   /* 100 ms: [86.1, 102.4) ms */
		strcpy(w->server[1].key, "other");
		w->server[1].count = w->server[1].errors = 1;
		w->server[1].hist[0] = 1;
		w->n_server = 2;
		strcpy(w->client[0].key, "[::1]:8080");
		w->client[0].count = 3;
		w->client[0].hist[40] = 3;   /* [43.1, 51.2) ms */
		w->n_client = 1;
		src.requests = w;
		promfill_target(&src, &st, &t);
		is_int((int)t.n_http_server, 2, "two routes");
		ok(strcmp(t.http_server[0].a, "GET") == 0 && strcmp(t.http_server[0].b, "/a/:id") == 0,
			"split into method and route");
		ok(strcmp(t.http_server[1].a, "_OTHER") == 0 && strcmp(t.http_server[1].b, "other") == 0,
			"the rows beyond the bound: method _OTHER, route other");
		is_num(t.http_server[0].sum_s, 0.2, 1e-12, "sum in seconds");
		is_num(t.http_server[0].le[4], 0, 0, "none within 12.8 ms");
		is_num(t.http_server[0].le[5], 5, 0, "five within 25.6 ms");
		is_num(t.http_server[0].le[6], 5, 0, "five within 51.2 ms");
		is_num(t.http_server[0].le[7], 6, 0, "six within 102.4 ms");
		is_num(t.http_server[0].le[PROM_HTTP_BOUNDS - 1], 6, 0, "all six within 52 s");
		ok(strcmp(t.http_client[0].a, "[::1]") == 0 && strcmp(t.http_client[0].b, "8080") == 0,
			"a destination split at its last colon");
		is_num(t.http_client[0].le[5], 0, 0, "bucket 40 is not within 25.6 ms");
		is_num(t.http_client[0].le[6], 3, 0, "bucket 40 ends at 51.2 ms: within it");
		{
			size_t off = PROM_HTTP_BOUNDS;

			for (size_t j = 0; j < PROM_HTTP_BOUNDS && off == PROM_HTTP_BOUNDS; j++) {
				double b = 4 * log2(prom_http_bounds_s[j] * 1e3 / REQ_BUCKET_BASE_MS);
				if (fabs(b - round(b)) > 1e-9)
					off = j;
			}
			ok(off == PROM_HTTP_BOUNDS, "every bound of the exposition is a bound of the "
				"target's buckets (the first that is not: %zu)", off);
		}
		free(w);
	}

	/* nothing known yet: an engine before its first reading */
	memset(&src, 0, sizeof src);
	src.pid = 7;
	src.process_cpu_s = NAN;
	promfill_target(&src, &st, &t);
	ok(isnan(t.rss_bytes) && isnan(t.lag_s) && !t.cpu_known && t.n_top == 0 &&
		!t.growth_verdict, "no data: all unknown");

	free(c.self_us);
	free(c.total_us);
	functab_free(ft);
}

/* process_cpu_seconds_total's source */
static void test_cpu_seconds(void)
{
	double s = -1;
	volatile double x = 0;

	for (long i = 0; i < 20000000; i++)
		x += (double)i;
	ok(procfs_cpu_seconds(getpid(), &s) == 0 && s > 0 && s < 3600,
		"this process's CPU seconds from /proc (%g)", s);
	ok(procfs_cpu_seconds(0x7ffffff0, &s) < 0, "no such process: -1");
}

/* The Host header: read from the request, and judged as Node's inspector does. */
static void test_host(void)
{
	static const char *const allowed[] = { "metrics.internal", "Box-7.example" };
	struct serve_request r;
	struct { const char *host; bool pass; } cases[] = {
		{ "", true },
		{ "127.0.0.1", true },
		{ "127.0.0.1:9464", true },
		{ "10.1.2.3:80", true },
		{ "[::1]", true },
		{ "[::1]:9464", true },
		{ "[2001:db8::7]:1", true },
		{ "localhost", true },
		{ "LOCALHOST:1", true },
		{ "localhost6:9464", true },
		{ ":9464", true },
		{ "evil.example", false },
		{ "evil.example:9464", false },
		{ "rebind.attacker.example:9464", false },
		{ "127.0.0.1.evil.example", false },
		{ "127.0.0.1.evil.example:9464", false },
		{ "localhost.evil.example", false },
		{ "localhost.", false },
		{ "0.0.0.0:9464", false },
		{ "[::]:9464", false },
		{ "[::1%lo]:9464", false },
		{ "::1", false },
		{ "[::1]x", false },
		{ "0x7f000001", false },
		{ "2130706433", false },
		{ "127.1", false },
		{ "metrics.internal:9464", true },
		{ "METRICS.INTERNAL", true },
		{ "box-7.example:80", true },
		{ "metrics.internal.evil.example", false },
		{ "internal", false },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ok(serve_host_allowed(cases[i].host, allowed, 2) == cases[i].pass, "Host '%s' is %s",
			cases[i].host, cases[i].pass ? "answered" : "refused");
	ok(!serve_host_allowed("metrics.internal", NULL, 0), "a name not allowed is refused");

	is_int(parse("GET /metrics HTTP/1.1\r\nhost:  rebind.attacker.example:9464 \r\n\r\n", &r),
		SERVE_OK, "a Host header, any case");
	is_str(r.host, "rebind.attacker.example:9464", "its value without the spaces");
	is_int(parse("GET /metrics HTTP/1.1\r\n\r\n", &r), SERVE_OK, "no Host header");
	is_str(r.host, "", "then it is empty");
	is_int(parse("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n", &r),
		SERVE_BAD, "two Host headers are a bad request");
	{
		char req[600] = "GET / HTTP/1.1\r\nHost: ";
		memset(req + strlen(req), 'h', 300);
		strcat(req, "\r\n\r\n");
		is_int(parse(req, &r), SERVE_BAD, "a Host longer than kept is a bad request");
	}
}

int main(void)
{
	test_parser();
	test_host();
	test_addr();
	test_promfill();
	test_cpu_seconds();
	return done_testing();
}
