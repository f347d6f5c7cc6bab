/* requests.c: see requests.h. */
#include "config.h"

#include "requests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util.h"

/* A count the target gave: a whole number within what a window can hold, else -1. */
static double count_of(const cJSON *v)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	return isfinite(d) && d >= 0 && d <= 1e12 && d == floor(d) ? d : -1;
}

/* A duration in ms the target gave: finite, 0 or more, else -1. */
static double ms_of(const cJSON *v)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	return d >= 0 && d < 1e15 ? d : -1;
}

/* Adds ms waited on host into r's waits, kept the longest first; beyond REQ_WAITS_MAX hosts,
 * into the last, named "other". */
static void wait_put(struct req_row *r, const char *host, double ms)
{
	size_t i;

	for (i = 0; i < r->n_waits && strcmp(r->waits[i].host, host) != 0; i++)
		;
	if (i == r->n_waits) {
		if (r->n_waits < REQ_WAITS_MAX) {
			r->n_waits++;
			snprintf(r->waits[i].host, sizeof r->waits[i].host, "%s", host);
			r->waits[i].ms = 0;
		} else {
			i = REQ_WAITS_MAX - 1;
			snprintf(r->waits[i].host, sizeof r->waits[i].host, "other");
		}
	}
	r->waits[i].ms += ms;
	for (; i > 0 && r->waits[i].ms > r->waits[i - 1].ms; i--) {
		struct req_wait t = r->waits[i];
		r->waits[i] = r->waits[i - 1];
		r->waits[i - 1] = t;
	}
}

/* One row [key, count, errors, max_ms, {bucket: n}, in_flight, sum_ms, {host: ms}, sampled,
 * sampled_ms]; false if malformed (the waits and what they are over may be left out). */
static bool parse_row(const cJSON *a, struct req_row *r)
{
	const cJSON *key = cJSON_GetArrayItem(a, 0), *h = cJSON_GetArrayItem(a, 4), *b;
	double n = count_of(cJSON_GetArrayItem(a, 1)), e = count_of(cJSON_GetArrayItem(a, 2));
	double x = ms_of(cJSON_GetArrayItem(a, 3)), sum = ms_of(cJSON_GetArrayItem(a, 6));
	double fl = count_of(cJSON_GetArrayItem(a, 5));

	if (!cJSON_IsArray(a) || !cJSON_IsString(key) || n < 0 || e < 0 || e > n || fl < 0 ||
	    !(x >= 0 && x < 1e12) || sum < 0 || !cJSON_IsObject(h))
		return false;
	memset(r, 0, sizeof *r);
	util_sanitize(key->valuestring, strlen(key->valuestring), r->key, sizeof r->key);
	r->count = (uint64_t)n;
	r->errors = (uint64_t)e;
	r->in_flight = (uint64_t)fl;
	r->max_ms = x;
	r->sum_ms = sum;
	cJSON_ArrayForEach(b, h) {
		char *end;
		long i = strtol(b->string ? b->string : "", &end, 10);
		double c = count_of(b);

		if (*end || end == b->string || i < 0 || i >= REQ_BUCKETS || c < 0 || c > UINT32_MAX)
			continue;
		r->hist[i] = (uint32_t)c;
	}
	/* waits: over the requests followed (none: no waits); each bounded by their time */
	{
		double sn = count_of(cJSON_GetArrayItem(a, 8)), ss = ms_of(cJSON_GetArrayItem(a, 9));

		if (sn > 0 && sn <= n && ss >= 0 && ss <= sum * 1.001 + 1) {
			r->sampled = (uint64_t)sn;
			r->sampled_ms = ss;
		}
	}
	cJSON_ArrayForEach(b, cJSON_GetArrayItem(a, 7)) {
		char host[REQ_HOST_LEN];
		double ms = ms_of(b);

		if (!r->sampled || !b->string || ms < 0 || ms > r->sampled_ms * 1.001 + 1)
			continue;
		util_sanitize(b->string, strlen(b->string), host, sizeof host);
		wait_put(r, host, ms);
	}
	return true;
}

/* Adds b into a (same key). */
static void row_merge(struct req_row *a, const struct req_row *b)
{
	a->count += b->count;
	a->errors += b->errors;
	a->in_flight += b->in_flight;
	if (b->max_ms > a->max_ms)
		a->max_ms = b->max_ms;
	a->sum_ms += b->sum_ms;
	for (size_t i = 0; i < REQ_BUCKETS; i++)
		a->hist[i] = a->hist[i] > UINT32_MAX - b->hist[i] ? UINT32_MAX : a->hist[i] + b->hist[i];
	for (size_t i = 0; i < b->n_waits; i++)
		wait_put(a, b->waits[i].host, b->waits[i].ms);
	a->sampled += b->sampled;
	a->sampled_ms += b->sampled_ms;
}

/* Puts r among rows[0..*n): merged with the row of its key, else a new row, else (full) into
 * the last, renamed "other". */
static void rows_put(struct req_row *rows, size_t *n, const struct req_row *r)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(rows[i].key, r->key) == 0) {
			row_merge(&rows[i], r);
			return;
		}
	if (*n < REQ_ROWS_MAX) {
		rows[(*n)++] = *r;
		return;
	}
	snprintf(rows[REQ_ROWS_MAX - 1].key, sizeof rows[0].key, "other");
	row_merge(&rows[REQ_ROWS_MAX - 1], r);
}

static void parse_rows(const cJSON *list, struct req_row *rows, size_t *n)
{
	const cJSON *a;
	struct req_row r;

	cJSON_ArrayForEach(a, list)
		if (parse_row(a, &r))
			rows_put(rows, n, &r);
}

/* How many started and were followed, when the two make sense together. */
static void take_followed(const cJSON *root, const char *sk, const char *fk, uint64_t *started,
	uint64_t *followed)
{
	double st = count_of(cJSON_GetObjectItemCaseSensitive(root, sk));
	double fo = count_of(cJSON_GetObjectItemCaseSensitive(root, fk));

	if (st >= 0 && fo >= 0 && fo <= st) {
		*started = (uint64_t)st;
		*followed = (uint64_t)fo;
	}
}

int requests_parse(const char *json, size_t len, struct req_window *out)
{
	cJSON *root = cJSON_ParseWithLength(json, len);

	memset(out, 0, sizeof *out);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return -1;
	}
	out->context = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "ctx"));
	take_followed(root, "st", "fo", &out->started, &out->followed);
	take_followed(root, "cst", "cfo", &out->calls_started, &out->calls_followed);
	parse_rows(cJSON_GetObjectItemCaseSensitive(root, "s"), out->server, &out->n_server);
	parse_rows(cJSON_GetObjectItemCaseSensitive(root, "c"), out->client, &out->n_client);
	cJSON_Delete(root);
	return 0;
}

double req_follow_ratio(const struct req_window *w, bool client)
{
	uint64_t st = client ? w->calls_started : w->started;
	uint64_t fo = client ? w->calls_followed : w->followed;

	return fo && st > fo ? (double)st / (double)fo : 1;
}

double req_row_quantile(const struct req_row *r, double q)
{
	uint64_t total = 0, seen = 0, want;

	for (size_t i = 0; i < REQ_BUCKETS; i++)
		total += r->hist[i];
	if (total == 0)
		return NAN;
	want = (uint64_t)ceil(q * (double)total);
	if (want < 1)
		want = 1;
	for (size_t i = 0; i < REQ_BUCKETS; i++) {
		seen += r->hist[i];
		if (seen >= want) {
			double mid = i == 0 ? REQ_BUCKET_BASE_MS / 2 :
				REQ_BUCKET_BASE_MS * exp2(((double)i - 0.5) / 4);
			return mid < r->max_ms || r->max_ms <= 0 ? mid : r->max_ms;
		}
	}
	return r->max_ms;
}

double req_wait_mean_ms(const struct req_row *r, size_t i)
{
	return i < r->n_waits && r->sampled ? r->waits[i].ms / (double)r->sampled : NAN;
}

double req_wait_share(const struct req_row *r, size_t i)
{
	return i < r->n_waits && r->sampled_ms > 0 ? fmin(1, r->waits[i].ms / r->sampled_ms) : NAN;
}

void requests_add(struct req_window *totals, const struct req_window *w)
{
	totals->context = totals->context || w->context;
	totals->started += w->started;
	totals->followed += w->followed;
	totals->calls_started += w->calls_started;
	totals->calls_followed += w->calls_followed;
	for (size_t i = 0; i < totals->n_server; i++)
		totals->server[i].in_flight = 0;
	for (size_t i = 0; i < totals->n_client; i++)
		totals->client[i].in_flight = 0;
	for (size_t i = 0; i < w->n_server; i++)
		rows_put(totals->server, &totals->n_server, &w->server[i]);
	for (size_t i = 0; i < w->n_client; i++)
		rows_put(totals->client, &totals->n_client, &w->client[i]);
}

static int by_count(const void *a, const void *b, void *rows)
{
	const struct req_row *r = rows;
	const struct req_row *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

size_t requests_order(const struct req_window *w, bool client, size_t *order)
{
	size_t n = client ? w->n_client : w->n_server;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, by_count, (void *)(client ? w->client : w->server));
	return n;
}
