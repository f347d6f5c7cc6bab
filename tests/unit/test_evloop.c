/* Unit tests for evloop: the event-loop reading as the target's evaluation returns it, and
 * what a hostile or broken reply becomes (nothing that is not a number in range is kept, and
 * kind names are made safe for a terminal). */
#include "config.h"

#include "evloop.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int parse(const char *s, struct evloop_reading *r)
{
	return evloop_parse(s, strlen(s), r);
}

int main(void)
{
	struct evloop_reading r;
	char big[4096];
	size_t n;
	int i;

	/* The shape Node 20 returns (histogram times in ns). */
	is_int(parse("{\"r\":{\"u\":0.3712,\"s\":1001.5,\"n\":98,\"p50\":10100000,\"p99\":12345000,"
		"\"max\":40200000},\"k\":{\"TCPSocketWrap\":12,\"Timeout\":3,\"TTYWrap\":2}}", &r), 0,
		"a reading parses");
	ok(r.have_evloop && fabs(r.utilization - 0.3712) < 1e-9 && r.span_ms == 1001.5,
		"utilization and span");
	ok(fabs(r.lag_p50_ms - 10.1) < 1e-9 && fabs(r.lag_p99_ms - 12.345) < 1e-9 &&
		fabs(r.lag_max_ms - 40.2) < 1e-9, "lag percentiles in ms");
	ok(r.have_kinds && r.n_kinds == 3 && strcmp(r.kinds[0].name, "TCPSocketWrap") == 0 &&
		r.kinds[0].count == 12 && strcmp(r.kinds[1].name, "Timeout") == 0,
		"kinds, the most numerous first");
	is_int(evloop_kind_count(&r, "Timeout"), 3, "a kind's count");
	is_int(evloop_kind_count(&r, "FSReqCallback"), -1, "an absent kind");
	{
		double v[EVLOOP_METRIC_COUNT];

		evloop_series_values(&r, v);
		ok(fabs(v[EVLOOP_BUSY] - 37.12) < 1e-9 && fabs(v[EVLOOP_LAG_P99] - 12.345) < 1e-9 &&
			fabs(v[EVLOOP_LAG_MAX] - 40.2) < 1e-9 && v[EVLOOP_HANDLES] == 17,
			"the series' values: busy in percent, lags in ms, handles of every kind");
		r.have_kinds = false;
		r.lag_max_ms = NAN;
		evloop_series_values(&r, v);
		ok(isnan(v[EVLOOP_HANDLES]) && isnan(v[EVLOOP_LAG_MAX]) && v[EVLOOP_BUSY] > 0,
			"what a reading lacks is NAN (not read), never 0");
		r.have_kinds = true;
	}
	ok(isnan(r.end_mono_us), "no time given: not dated");
	/* When it was taken, on the monotonic clock (µs) */
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"t\":8123456789.5},\"k\":null}", &r);
	ok(r.end_mono_us == 8123456789.5, "its time (process.hrtime in µs)");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"t\":-5},\"k\":null}", &r);
	ok(r.have_evloop && isnan(r.end_mono_us), "a negative time is none (the reading stands)");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"t\":\"7\"},\"k\":null}", &r);
	ok(r.have_evloop && isnan(r.end_mono_us), "nor is a string");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"t\":1e300},\"k\":null}", &r);
	ok(r.have_evloop && isnan(r.end_mono_us), "nor a time past any uptime");
	ok(isnan(r.lag_resolution_ms), "no timer period given: unknown");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"res\":1000},\"k\":null}", &r);
	ok(r.lag_resolution_ms == 1000, "the period of the histogram's timer");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"p50\":10100000,\"p99\":13000000,"
		"\"max\":310000000,\"res\":10},\"k\":null}", &r);
	ok(fabs(r.lag_p50_ms - 0.1) < 1e-9 && fabs(r.lag_p99_ms - 3) < 1e-9 &&
		fabs(r.lag_max_ms - 300) < 1e-9, "the period is taken off the delays (Node counts it in)");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"p50\":900000000,\"p99\":1000000000,"
		"\"max\":1000000000,\"res\":1000},\"k\":null}", &r);
	ok(r.lag_p50_ms == 0 && r.lag_max_ms == 0, "never below 0");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"res\":0.5},\"k\":null}", &r);
	ok(r.have_evloop && isnan(r.lag_resolution_ms), "under 1 ms it is not one of ours");
	parse("{\"r\":{\"u\":0.1,\"s\":1000,\"n\":9,\"max\":1,\"res\":1e9},\"k\":null}", &r);
	ok(r.have_evloop && isnan(r.lag_resolution_ms), "nor over a minute");

	/* The first reading of a session only installs the histogram. */
	is_int(parse("{\"r\":null,\"k\":{}}", &r), 0, "the first reading parses");
	ok(!r.have_evloop && isnan(r.utilization) && r.have_kinds && r.n_kinds == 0,
		"no loop figures yet; no live resources is a count too");
	/* Before Node 17.3 there is no getActiveResourcesInfo. */
	is_int(parse("{\"r\":{\"u\":0,\"s\":1000,\"n\":100,\"p50\":10000000,\"p99\":10100000,"
		"\"max\":10200000},\"k\":null}", &r), 0, "without kinds");
	ok(r.have_evloop && !r.have_kinds && r.utilization == 0, "an idle loop, kinds unknown");
	/* A loop blocked for the whole span: the histogram has no sample. */
	is_int(parse("{\"r\":{\"u\":1,\"s\":1000,\"n\":0,\"p50\":0,\"p99\":0,"
		"\"max\":0},\"k\":null}", &r), 0, "a blocked span");
	ok(r.have_evloop && r.utilization == 1 && isnan(r.lag_p50_ms) && isnan(r.lag_max_ms),
		"busy, lag unknown (not zero)");

	/* Hostile and broken replies. */
	is_int(parse("not json", &r), -1, "not JSON: refused");
	ok(!r.have_evloop && !r.have_kinds, "and nothing kept");
	is_int(parse("[1,2]", &r), -1, "not an object: refused");
	is_int(parse("{\"r\":{\"u\":1.5,\"s\":1000}}", &r), 0, "a utilization over 1");
	ok(!r.have_evloop, "is not a reading");
	is_int(parse("{\"r\":{\"u\":0.5,\"s\":-3}}", &r), 0, "a negative span");
	ok(!r.have_evloop, "is not a reading");
	is_int(parse("{\"r\":{\"u\":\"0.5\",\"s\":1000}}", &r), 0, "a string for a number");
	ok(!r.have_evloop, "is not a reading");
	is_int(parse("{\"r\":{\"u\":0.5,\"s\":1000,\"n\":5,\"p50\":-1,\"p99\":1e300,\"max\":\"x\"}}",
		&r), 0, "lags out of range");
	ok(r.have_evloop && isnan(r.lag_p50_ms) && isnan(r.lag_p99_ms) && isnan(r.lag_max_ms),
		"are unknown, the rest kept");
	is_int(parse("{\"k\":{\"Time\\u001b[31mout\":4,\"neg\":-2,\"huge\":1e12,\"str\":\"7\"}}", &r),
		0, "kinds with escapes and bad counts");
	ok(r.n_kinds == 1 && strchr(r.kinds[0].name, '\x1b') == NULL && r.kinds[0].count == 4,
		"only the valid one is kept, its name made safe (%s)", r.n_kinds ? r.kinds[0].name : "");
	/* More kinds than kept: the most numerous stay, the rest are counted. */
	n = (size_t)snprintf(big, sizeof big, "{\"k\":{");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(big + n, sizeof big - n, "%s\"Kind%02d\":%d", i ? "," : "", i, i);
	snprintf(big + n, sizeof big - n, "}}");
	is_int(parse(big, &r), 0, "forty kinds");
	ok(r.n_kinds == EVLOOP_MAX_KINDS && r.more_kinds == 40 - EVLOOP_MAX_KINDS &&
		r.kinds[0].count == 39 && r.kinds[EVLOOP_MAX_KINDS - 1].count == 40 - EVLOOP_MAX_KINDS,
		"the %d most numerous kept, %zu left out", EVLOOP_MAX_KINDS, r.more_kinds);
	/* A long kind name is cut. */
	n = (size_t)snprintf(big, sizeof big, "{\"k\":{\"");
	for (i = 0; i < 200; i++)
		big[n++] = 'A';
	snprintf(big + n, sizeof big - n, "\":1}}");
	is_int(parse(big, &r), 0, "a long kind name");
	ok(r.n_kinds == 1 && strlen(r.kinds[0].name) < EVLOOP_KIND_LEN, "is cut");
	/* While profiled, the busy share comes from the samples. */
	parse("{\"r\":{\"u\":0.62,\"s\":1000,\"n\":99,\"p50\":1e7,\"p99\":1e7,\"max\":1e7}}", &r);
	evloop_busy_from_profile(&r, 1000000, 950000);
	ok(r.busy_from_profile && fabs(r.utilization - 0.05) < 1e-9, "busy from the profile: 5 %%");
	parse("{\"r\":{\"u\":0.62,\"s\":1000,\"n\":99,\"p50\":1e7,\"p99\":1e7,\"max\":1e7}}", &r);
	evloop_busy_from_profile(&r, 0, 0);
	ok(!r.busy_from_profile && r.utilization == 0.62, "not from an empty window");
	evloop_busy_from_profile(&r, 1000, 2000);
	ok(!r.busy_from_profile, "nor from idle over the total");
	return done_testing();
}
