/* memseries-week.c: a week of 1 s memory readings through the series, as a week-long
 * unattended session would feed it. Prints what the series holds in memory (the bound, and
 * the resident growth of this process) and the time taken: per reading, for a chart query
 * and for the growth rule. The resident growth of the first and of the second hour shows
 * the tiers' pages being touched for the first time: the 1 s tier fills in its first hour
 * and then wraps (the 0.4 MB an hour of a weekend's first hour, doc/long-sessions.md).
 *
 *   bench/memseries_week [--weeks N] */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memseries.h"
#include "util.h"

static long rss_now_kib(void)
{
	long pages_total, pages_res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%ld %ld", &pages_total, &pages_res) != 2)
		pages_res = 0;
	fclose(f);
	return pages_res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	const double t0 = 1700000000.0, mb = 1e6;
	double weeks = 1, t_end, start, add_s, query_s, growth_s;
	struct memseries *s;
	struct ts_bucket out[400];
	struct mem_growth g;
	struct mem_sample m;
	long rss0, rss1, rss_1h = 0, rss_2h = 0;
	size_t n = 0, nq = 0, bytes0;
	int reps = 1000;

	if (argc == 3 && strcmp(argv[1], "--weeks") == 0)
		weeks = atof(argv[2]);
	if (!(weeks > 0 && weeks <= 60)) {
		fprintf(stderr, "usage: memseries_week [--weeks N]\n");
		return 2;
	}
	t_end = t0 + weeks * 7 * 24 * 3600 - 1;
	rss0 = rss_now_kib();
	s = memseries_create();
	bytes0 = memseries_bytes(s);

	start = util_now_mono_s();
	for (double t = t0; t <= t_end; t++) {
		double dt = t - t0;

		m.t_s = t;
		/* a 20 s GC sawtooth on a floor rising 1 MB/h; external read every 10 s */
		m.v[MEM_HEAP_USED] = 80 * mb + dt / 3600 * mb + 30 * mb * fmod(dt, 20) / 20;
		m.v[MEM_HEAP_TOTAL] = m.v[MEM_HEAP_USED] + 20 * mb;
		m.v[MEM_RSS] = m.v[MEM_HEAP_USED] + 60 * mb;
		m.v[MEM_EXTERNAL] = fmod(dt, 10) == 0 ? 4 * mb : NAN;
		m.v[MEM_ARRAY_BUFFERS] = fmod(dt, 10) == 0 ? 1 * mb : NAN;
		memseries_add(s, &m);
		n++;
		if (n == 3600)
			rss_1h = rss_now_kib();
		else if (n == 7200)
			rss_2h = rss_now_kib();
	}
	add_s = util_now_mono_s() - start;
	rss1 = rss_now_kib();

	start = util_now_mono_s();
	for (int i = 0; i < reps; i++)
		nq += memseries_query(s, t_end - 24 * 3600, t_end, 200, out);
	query_s = (util_now_mono_s() - start) / reps;
	start = util_now_mono_s();
	for (int i = 0; i < reps; i++)
		memseries_growth(s, 3600, t_end, &g);
	growth_s = (util_now_mono_s() - start) / reps;

	printf("readings:            %zu (%.3g weeks at 1 s)\n", n, weeks);
	printf("memseries_bytes:     %zu (%.2f MiB), %s after the readings\n", bytes0,
		(double)bytes0 / 1048576.0,
		memseries_bytes(s) == bytes0 ? "unchanged" : "CHANGED");
	printf("process RSS growth:  %ld KiB while feeding\n", rss1 - rss0);
	if (rss_2h > 0)
		printf("  first hour:        %ld KiB; second hour: %ld KiB\n", rss_1h - rss0,
			rss_2h - rss_1h);
	printf("feeding time:        %.3f s total, %.1f ns per reading\n", add_s, add_s / (double)n * 1e9);
	printf("24 h chart query:    %.1f us (200 buckets, %zu returned)\n", query_s * 1e6, nq / reps);
	printf("1 h growth rule:     %.1f us (%s, %.2f MB/h, %zu floors)\n", growth_s * 1e6,
		mem_verdict_name(g.verdict), g.heap_bytes_per_hour / mb, g.n_floors);
	memseries_free(s);
	return 0;
}
