/* Unit tests for requests: the evaluation's value recorded in a real express server
 * (tests/fixtures/requests/reply.json, made by record.js), the percentiles from the
 * histogram, the totals' bound on routes, the order, and hostile values. */
#include "config.h"

#include "requests.h"
#include "fixture.h"
#include "tap.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct req_row *find(const struct req_row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

static void test_recorded(void)
{
	size_t len;
	char *text = fixture_read_text("requests/reply.json", &len), *second;
	cJSON *root = cJSON_ParseWithLength(text, len);
	struct req_window *w = calloc(1, sizeof *w);
	const struct req_row *r;

	second = cJSON_PrintUnformatted(cJSON_GetObjectItem(root, "second"));
	ok(requests_parse(second, strlen(second), w) == 0, "the recorded reading parses");
	is_int((int)w->n_server, 5, "five routes");
	ok(w->context, "recorded on Node 24: the calls' requests are known");
	ok(w->started == 12 && w->followed == 12 && req_follow_ratio(w, false) == 1,
		"12 requests started in it, every one followed (%llu, %llu)",
		(unsigned long long)w->started, (unsigned long long)w->followed);
	ok(w->calls_started == 12 && w->calls_followed == 12 && req_follow_ratio(w, true) == 1,
		"and 12 calls, every one followed");
	r = find(w->server, w->n_server, "GET /api/items/:id");
	ok(r && r->count == 8 && r->errors == 0, "express's mount path and route: 8 requests "
		"(6 by http.get, 2 by fetch)");
	ok(r && req_row_quantile(r, 0.5) > 19 && req_row_quantile(r, 0.5) < 30,
		"their median is the handler's 20 ms timer (%.1f ms)", r ? req_row_quantile(r, 0.5) : -1);
	ok(r && req_row_quantile(r, 0.99) <= r->max_ms, "p99 is at most the longest");
	ok(r && r->sum_ms >= 8 * 20 && r->sum_ms <= 8 * r->max_ms,
		"their sum is eight 20 ms timers or more, at most eight of the longest (%.1f ms)",
		r ? r->sum_ms : -1);
	ok(r && r->n_waits == 0, "and they wait on nothing");
	r = find(w->server, w->n_server, "GET /report");
	ok(r && r->count == 1 && r->n_waits == 1 && strncmp(r->waits[0].host, "127.0.0.1:", 10) == 0,
		"the route that calls the server itself twice waits on it");
	ok(r && r->waits[0].ms >= 40 && r->waits[0].ms <= r->sum_ms,
		"for the two 20 ms calls or more, at most its own time (%.1f of %.1f ms)",
		r ? r->waits[0].ms : -1, r ? r->sum_ms : -1);
	r = find(w->server, w->n_server, "GET /fail");
	ok(r && r->count == 1 && r->errors == 1, "a 503 is an error");
	ok(find(w->server, w->n_server, "GET /raw/:id/:id") != NULL,
		"an unrouted path with a number and a hex id: both collapsed");
	r = find(w->server, w->n_server, "GET /hang");
	ok(r && r->count == 1 && r->errors == 1 && r->in_flight == 0,
		"a request the client aborted: finished as an error, not in flight");
	is_int((int)w->n_client, 1, "one destination");
	ok(w->n_client == 1 && strncmp(w->client[0].key, "127.0.0.1:", 10) == 0 &&
		w->client[0].count == 12 && w->client[0].errors == 2,
		"http.get and fetch to it: 12 calls, the 503 and the abort failed");
	free(second);
	cJSON_Delete(root);
	free(text);
	free(w);
}

/* Above REQ_FOLLOW_PER_S a second the target follows one request in N: the window says how
 * many started and how many were followed; what cannot be is refused. */
static void test_followed(void)
{
	struct req_window *w = calloc(1, sizeof *w), *t = calloc(1, sizeof *t);
	const char *one = "{\"s\":[[\"GET /a\",3000,0,2,{\"20\":3000},0,3000]],\"st\":3000,\"fo\":200,"
		"\"cst\":400,\"cfo\":100}";
	const char *bad = "{\"s\":[],\"st\":10,\"fo\":11,\"cst\":-1,\"cfo\":0}";

	ok(requests_parse(one, strlen(one), w) == 0 && w->started == 3000 && w->followed == 200,
		"3000 started, 200 followed");
	is_num(req_follow_ratio(w, false), 15, 1e-9, "each followed request stands for 15");
	is_num(req_follow_ratio(w, true), 4, 1e-9, "each followed call for 4");
	requests_add(t, w);
	requests_add(t, w);
	ok(t->started == 6000 && t->followed == 400 && t->calls_started == 800 &&
		t->calls_followed == 200, "the totals add them");
	ok(requests_parse(bad, strlen(bad), w) == 0 && w->started == 0 && w->followed == 0 &&
		req_follow_ratio(w, false) == 1 && w->calls_started == 0 && req_follow_ratio(w, true) == 1,
		"more followed than started, or a negative count: neither is taken");
	free(w);
	free(t);
}

static void test_totals_and_order(void)
{
	struct req_window *w = calloc(1, sizeof *w), *t = calloc(1, sizeof *t);
	size_t order[REQ_ROWS_MAX], n;

	for (int round = 0; round < 3; round++) {
		char json[8192];
		size_t k = 0;

		k += (size_t)snprintf(json + k, sizeof json - k, "{\"s\":[");
		for (int i = 0; i < 30; i++)
			k += (size_t)snprintf(json + k, sizeof json - k, "%s[\"GET /r%d\",%d,0,2,{\"20\":%d},0,%d]",
				i ? "," : "", round * 30 + i, i + 1, i + 1, 2 * (i + 1));
		snprintf(json + k, sizeof json - k, "],\"c\":[]}");
		ok(requests_parse(json, strlen(json), w) == 0 && w->n_server == 30, "round %d: 30 routes", round);
		requests_add(t, w);
	}
	is_int((int)t->n_server, REQ_ROWS_MAX, "90 routes since attach: the bound holds");
	ok(t->server[0].sum_ms == 2 && t->server[0].count == 1, "a row's sum is kept (%g)",
		t->server[0].sum_ms);
	ok(strcmp(t->server[REQ_ROWS_MAX - 1].key, "other") == 0, "the rest is \"other\"");
	n = requests_order(w, false, order);
	ok(n == 30 && w->server[order[0]].count == 30 && w->server[order[29]].count == 1,
		"ordered by requests, the most first");
	free(w);
	free(t);
}

static void test_hostile(void)
{
	struct req_window *w = calloc(1, sizeof *w);
	static const char *bad[] = {
		"[1,2]", "nonsense", "{\"s\":[[\"GET /\",-1,0,1,{},0,1]]}",
		"{\"s\":[[\"GET /\",1,2,1,{},0,1]]}", "{\"s\":[[\"GET /\",1,0,1e99,{},0,1]]}",
		"{\"s\":[[1,1,0,1,{},0,1]]}", "{\"s\":[[\"GET /\",1.5,0,1,{},0,1]]}",
		"{\"s\":[[\"GET /\",1,0,1,{},0]]}", "{\"s\":[[\"GET /\",1,0,1,{},0,-3]]}",
		"{\"s\":[[\"GET /\",1,0,1,{},0,\"9\"]]}",
	};

	ok(requests_parse(bad[0], strlen(bad[0]), w) < 0 && requests_parse(bad[1], strlen(bad[1]), w) < 0,
		"not an object: -1");
	for (size_t i = 2; i < sizeof bad / sizeof *bad; i++)
		ok(requests_parse(bad[i], strlen(bad[i]), w) == 0 && w->n_server == 0,
			"a malformed row is left out: %s", bad[i]);
	{
		const char *j = "{\"s\":[[\"GET /\\u001b[2J\",1,0,1,{\"-1\":5,\"96\":5,\"x\":1,\"3\":2},0,1]]}";
		ok(requests_parse(j, strlen(j), w) == 0 && w->n_server == 1 && !strchr(w->server[0].key, 0x1b),
			"a route with a terminal escape is sanitized");
		{
			uint64_t sum = 0;

			for (size_t i = 0; i < REQ_BUCKETS; i++)
				sum += w->server[0].hist[i];
			ok(w->server[0].hist[3] == 2 && sum == 2, "buckets out of range or not numbers are left out");
		}
	}
	{
		/* waits: bounded, the longest first, "other" beyond; none beyond the row's time */
		const char *j = "{\"ctx\":true,\"s\":[[\"GET /r\",2,0,50,{\"40\":2},0,100,"
			"{\"a:1\":10,\"b:1\":30,\"c:1\":20,\"d:1\":5,\"e:1\":1,\"big:1\":500,"
			"\"neg:1\":-1,\"s:1\":\"9\",\"\\u001b]0;x:1\":2},2,100]]}";
		struct req_window *t = calloc(1, sizeof *t);

		ok(requests_parse(j, strlen(j), w) == 0 && w->n_server == 1 && w->context, "waits parse");
		ok(w->server[0].n_waits == REQ_WAITS_MAX && strcmp(w->server[0].waits[0].host, "b:1") == 0 &&
			strcmp(w->server[0].waits[1].host, "c:1") == 0, "the longest first (%s, %s)",
			w->server[0].waits[0].host, w->server[0].waits[1].host);
		ok(strcmp(w->server[0].waits[REQ_WAITS_MAX - 1].host, "other") == 0 &&
			w->server[0].waits[REQ_WAITS_MAX - 1].ms == 8,
			"beyond the bound: other (d, e and the escaped one: %g ms)",
			w->server[0].waits[REQ_WAITS_MAX - 1].ms);
		is_num(req_wait_mean_ms(&w->server[0], 0), 15, 1e-9, "the mean wait: over the 2 "
			"requests followed");
		is_num(req_wait_share(&w->server[0], 0), 0.3, 1e-9, "the share: of their 100 ms");
		requests_add(t, w);
		requests_add(t, w);
		ok(t->context && t->server[0].waits[0].ms == 60 && t->server[0].n_waits == REQ_WAITS_MAX &&
			t->server[0].sampled == 4 && t->server[0].sampled_ms == 200,
			"since attach: summed by destination (%g), and the requests followed",
			t->server[0].waits[0].ms);
		j = "{\"ctx\":true,\"s\":[[\"GET /r\",2,0,50,{\"40\":2},0,100,{\"a:1\":10}]]}";
		ok(requests_parse(j, strlen(j), w) == 0 && w->server[0].n_waits == 0 &&
			isnan(req_wait_share(&w->server[0], 0)), "no request followed: no waits");
		free(t);
	}
	free(w);
}

int main(void)
{
	test_recorded();
	test_followed();
	test_totals_and_order();
	test_hostile();
	return done_testing();
}
