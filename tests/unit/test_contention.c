/* Unit tests for contention: the parsers against kernel files recorded from a throttled
 * process (tests/fixtures/contention, made by record.sh), cgroup v2's formats as the kernel
 * documents them, hostile inputs, the reader against this process, and the window's
 * differences. */
#include "config.h"

#include "contention.h"
#include "fixture.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_recorded(void)
{
	size_t len;
	char *text, path[256];
	double v = NAN;
	bool v2 = true;
	struct contention_sample k;

	text = fixture_read_text("contention/schedstat", &len);
	ok(contention_schedstat_parse(text, len, &v) == 0 && fabs(v - 1.613625365) < 1e-9,
		"schedstat: the second field is the run-queue wait (1.613625365 s)");
	free(text);
	text = fixture_read_text("contention/cgroup", &len);
	ok(contention_cgroup_parse(text, len, &v2, path, sizeof path) == 0 && !v2 &&
		strncmp(path, "/ntopjs-record-", 15) == 0,
		"cgroup v1: the cpu controller's line, not 0::/ or cpuacct's (%s)", path);
	free(text);
	text = fixture_read_text("contention/cpu.stat", &len);
	ok(contention_cpu_stat_parse(text, len, &k) == 0 && fabs(k.throttled_s - 1.18605086) < 1e-9,
		"cpu.stat v1: throttled_time in seconds (%.9f)", k.throttled_s);
	ok(k.periods == 21 && k.throttled_periods == 20, "... nr_periods and nr_throttled");
	free(text);
	{
		size_t ql, pl;
		char *q = fixture_read_text("contention/cpu.cfs_quota_us", &ql);
		char *p = fixture_read_text("contention/cpu.cfs_period_us", &pl);

		ok(contention_cfs_parse(q, ql, p, pl, &v) == 0 && fabs(v - 0.2) < 1e-12,
			"cfs quota 20000 over period 100000: 0.2 cores");
		free(q);
		free(p);
	}
}

static void test_v2_and_hostile(void)
{
	const char *v2_cgroup = "0::/system.slice/app.service\n";
	const char *v2_stat = "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 10\n"
		"nr_throttled 3\nthrottled_usec 250000\n";
	char path[64];
	double v = NAN;
	bool v2 = false;
	struct contention_sample k;

	ok(contention_cgroup_parse(v2_cgroup, strlen(v2_cgroup), &v2, path, sizeof path) == 0 &&
		v2 && strcmp(path, "/system.slice/app.service") == 0, "cgroup v2: the 0:: line");
	ok(contention_cpu_stat_parse(v2_stat, strlen(v2_stat), &k) == 0 &&
		fabs(k.throttled_s - 0.25) < 1e-12 && k.periods == 10 && k.throttled_periods == 3,
		"cpu.stat v2: throttled_usec, nr_periods, nr_throttled");
	ok(contention_cpu_max_parse("max 100000\n", 11, &v) == 0 && isinf(v),
		"cpu.max \"max\": no quota");
	ok(contention_cpu_max_parse("150000 100000\n", 14, &v) == 0 && fabs(v - 1.5) < 1e-12,
		"cpu.max 150000 100000: 1.5 cores");
	ok(contention_cfs_parse("-1\n", 3, "100000\n", 7, &v) == 0 && isinf(v),
		"cfs quota -1: no quota");
	/* hostile or broken */
	ok(contention_cgroup_parse("1:cpu:/a/../b\n", 14, &v2, path, sizeof path) < 0,
		"a group with a .. component is refused");
	ok(contention_cgroup_parse("1:cpu:relative\n", 15, &v2, path, sizeof path) < 0,
		"a relative group is refused");
	ok(contention_cgroup_parse("1:cpu:/a\x1b[2J\n", 13, &v2, path, sizeof path) < 0,
		"a group with a control byte is refused");
	{
		char longer[128];

		snprintf(longer, sizeof longer, "1:cpu:/%0100d\n", 7);
		ok(contention_cgroup_parse(longer, strlen(longer), &v2, path, sizeof path) < 0,
			"a group longer than the buffer is refused");
	}
	ok(contention_cgroup_parse("garbage", 7, &v2, path, sizeof path) < 0, "no cpu line: -1");
	ok(contention_schedstat_parse("12 x 3\n", 7, &v) < 0, "schedstat with a non-number: -1");
	ok(contention_schedstat_parse("99999999999999999999999 1 1\n", 28, &v) < 0,
		"schedstat with an overflowing field: -1");
	ok(contention_cpu_max_parse("100 0\n", 6, &v) < 0, "cpu.max with a zero period: -1");
	ok(contention_cpu_stat_parse("nr_periods 1\n", 13, &k) < 0, "cpu.stat without throttling: -1");
}

static void test_reader_and_diff(void)
{
	struct contention_sample a, b;
	struct contention_window w;

	contention_read(getpid(), getpid(), "/sys/fs/cgroup", &a);
	ok(isfinite(a.runqueue_wait_s) && a.runqueue_wait_s >= 0,
		"this process's run-queue wait is read (%.6f s)", a.runqueue_wait_s);
	for (volatile long i = 0; i < 20000000; i++)
		;
	contention_read(getpid(), getpid(), "/sys/fs/cgroup", &b);
	contention_diff(&a, &b, &w);
	ok(isfinite(w.runqueue_wait_ms) && w.runqueue_wait_ms >= 0, "the window's wait is a difference");
	contention_read(getpid(), getpid(), "/nonexistent", &b);
	ok(isnan(b.throttled_s) && isnan(b.quota_cores), "no cgroup hierarchy: unknown, not 0");
	b = a;
	b.runqueue_wait_s = a.runqueue_wait_s - 1;
	contention_diff(&a, &b, &w);
	ok(isnan(w.runqueue_wait_ms), "a counter that went back (another thread): unknown");
	a = (struct contention_sample){ 1, 2, 100, 40, 0.5 };
	b = (struct contention_sample){ 1.25, 2.5, 110, 48, 0.5 };
	contention_diff(&a, &b, &w);
	ok(w.runqueue_wait_ms == 250 && w.throttled_ms == 500 && w.throttled_periods_pct == 80 &&
		w.quota_cores == 0.5, "a window: 250 ms waited, 500 ms throttled in 8 of 10 periods");
	b.periods = 100;
	b.throttled_periods = 40;
	contention_diff(&a, &b, &w);
	ok(w.throttled_periods_pct == 0, "no period in the window: none throttled");
	contention_read(999999999, 999999999, "/sys/fs/cgroup", &b);
	ok(isnan(b.runqueue_wait_s) && isnan(b.throttled_s), "a process that is gone: unknown");
}

int main(void)
{
	test_recorded();
	test_v2_and_hostile();
	test_reader_and_diff();
	return done_testing();
}
