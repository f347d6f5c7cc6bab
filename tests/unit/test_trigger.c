/* test_trigger.c: --trigger's grammar (what is accepted, each refusal's sentence), sizes and
 * durations, and when a condition with a hold fires. */
#include "config.h"

#include "trigger.h"
#include "requests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static void test_accepted(void)
{
	static const struct {
		const char *expr;
		enum trigger_metric metric;
		double threshold, hold_s;
		bool or_equal;
	} ok_cases[] = {
		{ "cpu>80%", TRIG_CPU, 80, 0, false },
		{ "cpu>=80", TRIG_CPU, 80, 0, true },
		{ "cpu>80%:10s", TRIG_CPU, 80, 10, false },
		{ "CPU>99.5%:2m", TRIG_CPU, 99.5, 120, false },
		{ "block>300ms", TRIG_BLOCK, 300, 0, false },
		{ "block>300", TRIG_BLOCK, 300, 0, false },
		{ "block>1.5s", TRIG_BLOCK, 1500, 0, false },
		{ "lag>100ms:30s", TRIG_LAG, 100, 30, false },
		{ "p99>2s", TRIG_P99, 2000, 0, false },
		{ "rss>2G", TRIG_RSS, 2.0 * 1024 * 1024 * 1024, 0, false },
		{ "rss>512MiB", TRIG_RSS, 512.0 * 1024 * 1024, 0, false },
		{ "rss>1048576", TRIG_RSS, 1048576, 0, false },
		{ "heap>1.5G:1h", TRIG_HEAP, 1.5 * 1024 * 1024 * 1024, 3600, false },
		{ "heap=growing", TRIG_GROWING, 1, 0, false },
		{ "heap=growing:10m", TRIG_GROWING, 1, 600, false },
	};

	for (size_t i = 0; i < sizeof ok_cases / sizeof ok_cases[0]; i++) {
		struct trigger t;
		char *msg = NULL;
		int rc = trigger_parse(ok_cases[i].expr, &t, &msg);

		ok(rc == 0 && t.metric == ok_cases[i].metric &&
			fabs(t.threshold - ok_cases[i].threshold) < 1e-6 &&
			fabs(t.hold_s - ok_cases[i].hold_s) < 1e-9 && t.or_equal == ok_cases[i].or_equal &&
			!strcmp(t.text, ok_cases[i].expr) && isnan(t.since_s),
			"%s: %s %g, hold %g s (%s)", ok_cases[i].expr, trigger_metric_name(t.metric),
			t.threshold, t.hold_s, msg ? msg : "ok");
		free(msg);
	}
}

static void test_refused(void)
{
	static const struct {
		const char *expr;
		const char *says; /* a part of the sentence */
	} bad[] = {
		{ "", "starts with a measure" },
		{ ">80%", "starts with a measure" },
		{ "cpuu>80%", "unknown measure" },
		{ "mem>1G", "unknown measure" },
		{ "cpu<80%", "followed by > or >=" },
		{ "cpu", "followed by > or >=" },
		{ "cpu>", "percentage" },
		{ "cpu>120%", "percentage from 0 to 100" },
		{ "cpu>80ms", "percentage" },
		{ "cpu>-5%", "percentage" },
		{ "cpu>nan", "percentage" },
		{ "cpu>80%:", "not a duration" },
		{ "p99[GET /x>2s", "ends with ]" },
		{ "p99[]>2s", "1 to 159 characters" },
		{ "p99[GET /\x1b[2J]>2s", "control character" },
		{ "p99[GET /x]<2s", "followed by > or >=" },
		{ "p99[GET /x]>fast", "not a time" },
		{ "cpu>80%:10x", "not a duration" },
		{ "cpu>80%:30d", "not a duration" },
		{ "block>300kg", "not a time" },
		{ "block>2d", "not a time" },
		{ "rss>2X", "not a size" },
		{ "rss>1e300T", "not a size" },
		{ "rss>0x1p40", "not a size" },
		{ "cpu>0x50%", "percentage" },
		{ "rss>G", "not a size" },
		{ "heap=shrinking", "only followed by growing" },
		{ "heap<1G", "followed by > or >= and a size, or by =growing" },
		{ "rss=growing", "followed by > or >=" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct trigger t;
		char *msg = NULL;
		int rc = trigger_parse(bad[i].expr, &t, &msg);

		ok(rc < 0 && msg && !strncmp(msg, "--trigger ", 10) && strstr(msg, bad[i].says) &&
			msg[strlen(msg) - 1] == '.', "'%.30s' refused: %s", bad[i].expr,
			msg ? msg : "(accepted)");
		free(msg);
	}
}

static void test_units(void)
{
	double v;

	ok(trigger_parse_size("1K", &v) == 0 && v == 1024, "1K is 1024 bytes");
	ok(trigger_parse_size("2gb", &v) == 0 && v == 2.0 * 1024 * 1024 * 1024, "2gb");
	ok(trigger_parse_size("3TiB", &v) == 0 && v == 3.0 * 1024 * 1024 * 1024 * 1024, "3TiB");
	ok(trigger_parse_size("100", &v) == 0 && v == 100, "a bare number is bytes");
	ok(trigger_parse_size("1KK", &v) < 0, "1KK refused");
	ok(trigger_parse_size("1e400", &v) < 0, "an infinite size refused");
	ok(trigger_parse_duration("250ms", 1, &v) == 0 && v == 0.25, "250ms");
	ok(trigger_parse_duration("2h", 1, &v) == 0 && v == 7200, "2h");
	ok(trigger_parse_duration("3", 60, &v) == 0 && v == 180, "a bare number in the given unit");
	ok(trigger_parse_duration("3 s", 1, &v) < 0, "a space refused");
}

static struct trigger_input input(double time_s, double busy)
{
	struct trigger_input in = {
		.time_s = time_s, .busy_pct = busy, .block_ms = NAN, .lag_p99_ms = NAN, .p99_ms = NAN,
		.rss_bytes = NAN, .heap_used_bytes = NAN, .growing = -1,
	};
	return in;
}

static void test_hold(void)
{
	struct trigger t;
	char *msg = NULL;
	struct trigger_input in;
	int fired_at = -1;

	trigger_parse("cpu>80%", &t, &msg);
	in = input(100, 80);
	ok(!trigger_feed(&t, &in, 1), "80 %% is not over 80 %%");
	in.busy_pct = 80.5;
	ok(trigger_feed(&t, &in, 1), "80.5 %% is: no hold, it fires at once");
	ok(trigger_feed(&t, &in, 1), "and again at the next window (the cool-down is the app's)");
	in.busy_pct = NAN;
	ok(!trigger_feed(&t, &in, 1), "a window without a CPU profile never meets it");

	trigger_parse("cpu>=50%:5s", &t, &msg);
	/* 1 s windows ending at 1..12: busy from window 3 to 9, a gap at 10, busy again */
	for (int s = 1; s <= 12; s++) {
		in = input(s, s >= 3 && s != 10 ? 50 : 10);
		if (trigger_feed(&t, &in, 1) && fired_at < 0)
			fired_at = s;
	}
	/* it held from 2 (the start of window 3): five seconds at 7 */
	is_int(fired_at, 7, "a 5 s hold fires at the end of the fifth second that meets it");
	trigger_parse("cpu>=50%:5s", &t, &msg);
	fired_at = -1;
	for (int s = 1; s <= 12; s++) {
		in = input(s, s % 4 ? 90 : 10);
		if (trigger_feed(&t, &in, 1))
			fired_at = s;
	}
	is_int(fired_at, -1, "a hold broken every fourth second never fires");

	trigger_parse("heap=growing", &t, &msg);
	in = input(1, NAN);
	ok(!trigger_feed(&t, &in, 1), "growth not known yet: not met");
	in.growing = 0;
	ok(!trigger_feed(&t, &in, 1), "stable: not met");
	in.growing = 1;
	ok(trigger_feed(&t, &in, 1) && trigger_value(&t, &in) == 1, "growing: met");

	trigger_parse("block>300ms", &t, &msg);
	in = input(1, 50);
	in.block_ms = 0;
	ok(!trigger_feed(&t, &in, 1), "no block in the window");
	in.block_ms = 420;
	ok(trigger_feed(&t, &in, 1) && trigger_value(&t, &in) == 420, "a 420 ms block fires it");
	trigger_parse("rss>1G", &t, &msg);
	in.rss_bytes = 1.5 * 1024 * 1024 * 1024;
	ok(trigger_feed(&t, &in, 1), "rss over 1G");
	trigger_parse("p99>2s", &t, &msg);
	in.p99_ms = 1999;
	ok(!trigger_feed(&t, &in, 1), "p99 1999 ms is not over 2 s");
	in.p99_ms = 2400;
	ok(trigger_feed(&t, &in, 1), "p99 2400 ms is");
	free(msg);
}

/* p99[ROUTE]: one route's, read through the input's callback. */
static double fake_route_p99(const void *ctx, const char *route)
{
	(void)ctx;
	return !strcmp(route, "GET /api/items/:id") ? 640 : !strcmp(route, "GET /") ? 3 : NAN;
}

static void test_route(void)
{
	struct trigger t;
	struct trigger_input in = input(1, 50);
	char *msg = NULL;

	ok(trigger_parse("p99[GET /api/items/:id]>500ms:2s", &t, &msg) == 0 && t.metric == TRIG_P99 &&
		!strcmp(t.route, "GET /api/items/:id") && t.threshold == 500 && t.hold_s == 2 &&
		!strcmp(t.text, "p99[GET /api/items/:id]>500ms:2s"),
		"p99[GET /api/items/:id]>500ms:2s: the route, its colon kept, the hold after the value");
	in.p99_ms = 5000;
	ok(isnan(trigger_value(&t, &in)) && !trigger_met(&t, &in),
		"without the window's routes it is not met, whatever the slowest route's p99");
	in.route_p99_ms = fake_route_p99;
	ok(trigger_value(&t, &in) == 640 && trigger_met(&t, &in), "the route's own p99: 640 ms");
	ok(!trigger_feed(&t, &in, 1), "held 1 s of 2: not yet");
	in.time_s = 2;
	ok(trigger_feed(&t, &in, 1), "held 2 s: fires");
	ok(trigger_parse("p99[GET /]>500ms", &t, &msg) == 0 && !trigger_met(&t, &in),
		"another route's p99 (3 ms) is its own");
	ok(trigger_parse("p99[POST /gone]>1ms", &t, &msg) == 0 && isnan(trigger_value(&t, &in)) &&
		!trigger_met(&t, &in), "a route with no request in the window is not met");
	ok(trigger_parse("p99>500ms", &t, &msg) == 0 && t.route[0] == '\0' &&
		trigger_value(&t, &in) == 5000, "p99 without a route: still the slowest route's");
	free(msg);
}

/* The longest route the requests screen keys (REQ_KEY_LEN - 1 characters) can be named. */
static const char *long_route;
static double long_route_p99(const void *ctx, const char *route)
{
	(void)ctx;
	return !strcmp(route, long_route) ? 900 : NAN;
}

static void test_long_route(void)
{
	char route[REQ_KEY_LEN + 1], expr[REQ_KEY_LEN + 64], big[TRIGGER_TEXT_MAX + 1];
	struct trigger t;
	struct trigger_input in = input(1, 50);
	char *msg = NULL;

	memcpy(route, "GET /", 5);
	memset(route + 5, 'x', REQ_KEY_LEN - 1 - 5);
	route[REQ_KEY_LEN - 1] = '\0';
	long_route = route;
	snprintf(expr, sizeof expr, "p99[%s]>500ms:30s", route);
	ok(trigger_parse(expr, &t, &msg) == 0 && !strcmp(t.route, route) && !strcmp(t.text, expr),
		"a route of %d characters, the longest a route key is, is named whole (%zu in all)",
		REQ_KEY_LEN - 1, strlen(expr));
	in.route_p99_ms = long_route_p99;
	ok(trigger_value(&t, &in) == 900 && trigger_met(&t, &in), "and its p99 is read: 900 ms");
	route[REQ_KEY_LEN - 1] = 'x';
	route[REQ_KEY_LEN] = '\0';
	snprintf(expr, sizeof expr, "p99[%s]>500ms", route);
	ok(trigger_parse(expr, &t, &msg) == -1 && msg && strstr(msg, "1 to 159 characters"),
		"one character more is refused: %s", msg ? msg : "(none)");
	free(msg);
	msg = NULL;
	memset(big, '%', TRIGGER_TEXT_MAX);
	memcpy(big, "cpu>80", 6);
	big[TRIGGER_TEXT_MAX] = '\0';
	ok(trigger_parse(big, &t, &msg) == -1 && msg && strstr(msg, "at most 255 characters"),
		"an expression of 256 characters is refused: %.60s", msg ? msg : "(none)");
	free(msg);
}

int main(void)
{
	test_accepted();
	test_refused();
	test_units();
	test_hold();
	test_route();
	test_long_route();
	return done_testing();
}
