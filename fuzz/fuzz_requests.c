/* fuzz_requests: the parser of the target's request figures on hostile input.
 *
 * The input is the value the requests evaluation returns (the target's own JSON). After
 * requests_parse() every row must be within the bounds the views and exports rely on: keys
 * and hosts terminated and free of control characters, errors no more than the count, waits
 * the longest first, percentiles and shares in range. The window is then added twice into
 * totals since attach, and ordered: the totals stay bounded and the order is a permutation,
 * the most requests first. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "requests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_requests"
#include "fuzz_check.h"

static void check_row(const struct req_row *r)
{
	check_clean(r->key, sizeof r->key);
	CHECK(r->errors <= r->count, "errors %llu > count %llu", (unsigned long long)r->errors,
		(unsigned long long)r->count);
	CHECK(r->max_ms >= 0 && isfinite(r->max_ms), "max %g", r->max_ms);
	CHECK(r->sum_ms >= 0 && isfinite(r->sum_ms), "sum %g", r->sum_ms);
	CHECK(r->n_waits <= REQ_WAITS_MAX, "%zu waits", r->n_waits);
	for (size_t i = 0; i < r->n_waits; i++) {
		double share = req_wait_share(r, i), mean = req_wait_mean_ms(r, i);

		check_clean(r->waits[i].host, sizeof r->waits[i].host);
		CHECK(r->waits[i].ms >= 0, "wait %g", r->waits[i].ms);
		CHECK(i == 0 || r->waits[i].ms <= r->waits[i - 1].ms, "waits out of order");
		CHECK(isnan(share) || (share >= 0 && share <= 1), "share %g", share);
		CHECK(isnan(mean) || mean >= 0, "mean %g", mean);
	}
	for (int q = 0; q <= 4; q++) {
		double v = req_row_quantile(r, q / 4.0);

		CHECK(isnan(v) || (v >= 0 && (r->max_ms <= 0 || v <= r->max_ms)),
			"quantile %g of max %g", v, r->max_ms);
	}
}

static void check_window(const struct req_window *w)
{
	size_t order[REQ_ROWS_MAX];

	CHECK(w->n_server <= REQ_ROWS_MAX && w->n_client <= REQ_ROWS_MAX, "%zu, %zu rows",
		w->n_server, w->n_client);
	for (size_t i = 0; i < w->n_server; i++)
		check_row(&w->server[i]);
	for (size_t i = 0; i < w->n_client; i++)
		check_row(&w->client[i]);
	for (int client = 0; client < 2; client++) {
		const struct req_row *rows = client ? w->client : w->server;
		size_t n = requests_order(w, client, order);
		bool seen[REQ_ROWS_MAX] = { false };

		CHECK(n == (client ? w->n_client : w->n_server), "order of %zu", n);
		for (size_t i = 0; i < n; i++) {
			CHECK(order[i] < n && !seen[order[i]], "not a permutation");
			seen[order[i]] = true;
			CHECK(i == 0 || rows[order[i]].count <= rows[order[i - 1]].count,
				"not the most requests first");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct req_window w, totals;

	if (requests_parse((const char *)data, size, &w) != 0) {
		CHECK(w.n_server == 0 && w.n_client == 0, "rows left after a failed parse");
		return 0;
	}
	check_window(&w);
	memset(&totals, 0, sizeof totals);
	requests_add(&totals, &w);
	requests_add(&totals, &w);
	check_window(&totals);
	return 0;
}
