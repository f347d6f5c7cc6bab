/* ingest.c: the C side of the ingest benchmark. Reads a Profiler.Profile JSON file into one
 * buffer (as a websocket message arrives), parses it with profile_parse(), aggregates it with
 * aggregate_window(), and prints the times, the peak RSS and its ratio to the file size, then
 * the top functions (for a cross-check against bench/ingest-node.js).
 *
 *   bench/ingest FILE [--top N] [--repeat N]
 *     --repeat N  parse and aggregate N times and report the fastest run (peak RSS is
 *                 unaffected: each run frees what the previous one allocated) */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate.h"
#include "functab.h"
#include "jsonpull.h"
#include "profile.h"
#include "util.h"

/* Resident memory now, in KiB (0 if unknown). */
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

static char *read_all(const char *path, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		exit(1);
	}
	buf = xmalloc((size_t)st.st_size);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0) {
			perror(path);
			exit(1);
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return buf;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int top = 5, repeat = 1;
	double best_read = INFINITY, best_parse = INFINITY, best_agg = INFINITY;
	double best_validate = INFINITY;
	size_t len = 0, n_nodes = 0, n_samples = 0;
	struct functab *ft = NULL;
	struct window_stats w;
	struct rusage ru;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--top") == 0 && i + 1 < argc)
			top = atoi(argv[++i]);
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: ingest FILE [--top N] [--repeat N]\n");
		return 2;
	}
	long start_kib = rss_now_kib();
	window_stats_init(&w);
	for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
		struct profile p;
		char *err = NULL;
		double t0 = util_now_mono_s(), t1, t2, t3;
		char *buf = read_all(path, &len);

		/* what json_envelope_parse() costs on a message holding this profile: one
		 * validating pass over every byte */
		t1 = util_now_mono_s();
		if (json_validate(buf, len, NULL) < 0) {
			fprintf(stderr, "ingest: %s is not valid JSON\n", path);
			return 1;
		}
		if (util_now_mono_s() - t1 < best_validate)
			best_validate = util_now_mono_s() - t1;
		t1 = util_now_mono_s();
		functab_free(ft);
		ft = functab_create();
		if (profile_parse(buf, len, ft, &p, &err) < 0) {
			fprintf(stderr, "ingest: %s\n", err);
			return 1;
		}
		t2 = util_now_mono_s();
		aggregate_window(&p, ft, -INFINITY, &w);
		t3 = util_now_mono_s();
		n_nodes = p.n_nodes;
		n_samples = p.n_samples;
		profile_release(&p);
		free(buf);
		if (t1 - t0 < best_read)
			best_read = t1 - t0;
		if (t2 - t1 < best_parse)
			best_parse = t2 - t1;
		if (t3 - t2 < best_agg)
			best_agg = t3 - t2;
	}
	getrusage(RUSAGE_SELF, &ru);
	double total_ms = (best_read + best_parse + best_agg) * 1e3;
	printf("ntop-js: %zu bytes, %zu nodes, %zu samples: %.1f ms (read %.1f, parse %.1f = %.0f MB/s, "
		"aggregate %.1f), peak RSS %.1f MiB (%.2fx file; %.2fx above the %.1f MiB at start)\n",
		len, n_nodes, n_samples, total_ms, best_read * 1e3, best_parse * 1e3,
		len / best_parse / 1e6, best_agg * 1e3, ru.ru_maxrss / 1024.0,
		ru.ru_maxrss * 1024.0 / (double)len, (ru.ru_maxrss - start_kib) * 1024.0 / (double)len,
		start_kib / 1024.0);
	printf("  json_validate alone: %.1f ms (%.0f MB/s)\n", best_validate * 1e3,
		len / best_validate / 1e6);
	for (size_t i = 0; i < w.n_funcs && i < (size_t)top; i++) {
		const struct func_info *fi = functab_get(ft, w.funcs[i].func);
		char name[256];
		util_sanitize(fi->name, strlen(fi->name), name, sizeof(name));
		if (fi->url[0])
			printf("  self %10.0f total %10.0f  %s %s:%d\n", w.funcs[i].self_us, w.funcs[i].total_us,
				name, fi->url, fi->line + 1);
		else
			printf("  self %10.0f total %10.0f  %s\n", w.funcs[i].self_us, w.funcs[i].total_us, name);
	}
	printf("RESULT ms=%.2f parse_ms=%.2f rss_kib=%ld start_kib=%ld\n", total_ms, best_parse * 1e3,
		ru.ru_maxrss, start_kib);
	window_stats_free(&w);
	functab_free(ft);
	return 0;
}
