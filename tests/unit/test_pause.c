/* Unit tests for the pause model: unknown in, unknown out; more heap or more code never
 * predicts less; without the code statistics the guess is on the high side; the sentences'
 * rounding; and against every run bench/pause.sh recorded (doc/bench/pause.jsonl): the
 * profiler's start within 50 % of the stall the target felt, wherever it was 20 ms or more. */
#include "config.h"

#include "pause.h"
#include "tap.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB (1024.0 * 1024.0)

static struct pause_estimate est(double heap, double code)
{
	struct pause_inputs in = { heap, code, NAN, 12 };
	struct pause_estimate e;

	pause_estimate(&in, &e);
	return e;
}

static double num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);

	x = b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* Each recorded run: the readings ntop-js takes, and the stall of the profiler's start. */
static void test_recordings(void)
{
	const char *dir = getenv("top_srcdir");
	char path[4096], line[65536];
	FILE *f;
	int runs = 0, within = 0;
	double worst = 0;

	snprintf(path, sizeof path, "%s/doc/bench/pause.jsonl", dir ? dir : "..");
	f = fopen(path, "r");
	ok(f != NULL, "the recordings are there (%s)", path);
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *rd = cJSON_GetObjectItemCaseSensitive(r, "readings");
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "pauses");
		struct pause_inputs in = { num(rd, "heap", "used_heap_size"),
			num(rd, "code", "bytecode_and_metadata_size"), NAN, 0 };
		struct pause_estimate e;
		double felt = num(cJSON_GetObjectItemCaseSensitive(p, "start"), "stall_ms", NULL);

		pause_estimate(&in, &e);
		if (isfinite(felt) && felt >= 20) {
			double err = fabs(e.start_s * 1e3 / felt - 1);

			runs++;
			within += err <= 0.5;
			if (err > worst)
				worst = err;
		}
		cJSON_Delete(r);
	}
	fclose(f);
	ok(runs >= 30, "%d recorded runs with a start pause of 20 ms or more", runs);
	is_int(within, runs, "the start predicted within 50 %% in all of them (worst %.0f %%)",
		worst * 100);
}

int main(void)
{
	struct pause_estimate a, b;
	char s[48];
	bool mono = true;

	a = est(NAN, 1 * MB);
	ok(isnan(a.start_s) && isnan(a.deopt_s) && isnan(a.gc_s), "no heap reading: unknown");
	a = est(-5, NAN);
	ok(isnan(a.start_s), "a negative heap is no reading");

	for (double h = 10 * MB; h < 8192 * MB; h *= 1.5) {
		a = est(h, 5 * MB);
		b = est(h * 1.5, 5 * MB);
		mono = mono && b.start_s >= a.start_s && b.deopt_s >= a.deopt_s && b.gc_s >= a.gc_s;
		b = est(h, 10 * MB);
		mono = mono && b.start_s >= a.start_s && b.deopt_s >= a.deopt_s;
	}
	ok(mono, "more heap or more code never predicts a shorter pause");
	a = est(30 * MB, 0.2 * MB);
	ok(a.start_s > 0 && a.start_s < 0.2, "a small program: under the default limit (%.3f s)", a.start_s);
	a = est(2048 * MB, NAN);
	ok(a.start_s > 1.0, "a 2 GB heap: over a second (%.2f s)", a.start_s);
	b = est(2048 * MB, 0.5 * MB);
	ok(a.start_s >= b.start_s, "without the code statistics the guess is not below a small app's");

	pause_format(1.84, s, sizeof s);
	is_str(s, "about 1.8 s", "seconds with one decimal");
	pause_format(0.996, s, sizeof s);
	is_str(s, "about 1.0 s", "just under a second reads as a second");
	pause_format(0.123, s, sizeof s);
	is_str(s, "about 120 ms", "milliseconds to ten");
	pause_format(0.001, s, sizeof s);
	is_str(s, "about 10 ms", "never less than 10 ms");
	pause_format(NAN, s, sizeof s);
	is_str(s, "an unknown time", "unknown");
	test_recordings();
	return done_testing();
}
