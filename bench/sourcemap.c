/* bench/sourcemap: what loading a large source map costs, and a lookup.
 *
 *   bench/sourcemap SCRIPT [LOOKUPS]
 *
 * Loads SCRIPT's map the way ntop-js does (smapfind_load: the script's tail, its comment, the
 * map file, the parse), then looks up LOOKUPS (default 2,000,000) positions picked at random
 * in the script's text, as frames would be. Prints the map's size, the load time, the peak
 * resident memory the load added (VmHWM after it, less VmRSS before it) as bytes and as a
 * ratio to the map's size, the held map's bytes, and the nanoseconds of a lookup, of a name
 * read from sourcesContent and of a line of original text. bench/sourcemap.sh builds a real
 * map (esbuild's, of typescript's own bundle) and runs this; doc/bench/sourcemap.md has the
 * results. */
#include "config.h"

#include "smapfind.h"
#include "sourcemap.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A field of /proc/self/status in kB, or -1. */
static long status_kb(const char *field)
{
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	long lookups = argc > 2 ? atol(argv[2]) : 2000000;
	char *err = NULL, *script = NULL, *mapurl = NULL, *abs;
	struct smap_ref ref = { 0 };
	struct stat st;
	size_t slen;

	if (argc < 2 || lookups <= 0) {
		fprintf(stderr, "usage: bench/sourcemap SCRIPT [LOOKUPS]\n");
		return 2;
	}
	abs = realpath(argv[1], NULL);
	if (!abs || smapfind_read("/", abs, (size_t)1 << 30, 0, &script, &slen, &err) < 0) {
		fprintf(stderr, "bench/sourcemap: %s\n", err ? err : "cannot find the script");
		return 1;
	}
	/* the map's size, for the ratio */
	if (!sourcemap_find_url(script, slen, &mapurl) ||
			smapfind_resolve(abs, mapurl, &ref, &err) < 0 || !ref.path ||
			stat(ref.path, &st) < 0) {
		fprintf(stderr, "bench/sourcemap: the script has no map file beside it\n");
		return 1;
	}

	long rss0 = status_kb("VmRSS");
	double t0 = util_now_mono_s();
	struct sourcemap *m = smapfind_load("/", abs, &err);
	double t1 = util_now_mono_s();
	long hwm = status_kb("VmHWM");
	if (!m) {
		fprintf(stderr, "bench/sourcemap: %s\n", err);
		return 1;
	}
	double added = (double)(hwm - rss0) * 1024;
	printf("map_bytes %lld\n", (long long)st.st_size);
	printf("sources %u\n", sourcemap_source_count(m));
	printf("segments %zu\n", sourcemap_segment_count(m));
	printf("load_s %.3f\n", t1 - t0);
	printf("peak_added_bytes %.0f\n", added);
	printf("peak_ratio %.2f\n", added / (double)st.st_size);
	printf("held_bytes %zu\n", sourcemap_bytes(m));
	printf("held_ratio %.2f\n", (double)sourcemap_bytes(m) / (double)st.st_size);

	/* positions at random bytes of the script: its line starts first */
	size_t nl = 1, i, k = 0;
	for (i = 0; i < slen; i++)
		nl += script[i] == '\n';
	size_t *starts = xmalloc(nl * sizeof *starts);
	starts[k++] = 0;
	for (i = 0; i < slen; i++)
		if (script[i] == '\n')
			starts[k++] = i + 1;
	uint32_t *pl = xmalloc((size_t)lookups * sizeof *pl), *pc = xmalloc((size_t)lookups * sizeof *pc);
	for (long j = 0; j < lookups; j++) {
		size_t off = (size_t)(next_rand() % slen), lo = 0, hi = nl;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (starts[mid] <= off)
				lo = mid;
			else
				hi = mid;
		}
		pl[j] = (uint32_t)lo;
		pc[j] = (uint32_t)(off - starts[lo]);
	}

	struct sourcemap_pos pos;
	long hits = 0, named = 0;
	t0 = util_now_mono_s();
	for (long j = 0; j < lookups; j++)
		hits += sourcemap_lookup(m, pl[j], pc[j], &pos);
	t1 = util_now_mono_s();
	printf("lookups %ld\n", lookups);
	printf("mapped %ld\n", hits);
	printf("lookup_ns %.1f\n", (t1 - t0) * 1e9 / (double)lookups);
	/* a profile's frames: the same few hundred positions again and again */
	t0 = util_now_mono_s();
	for (long j = 0; j < lookups; j++)
		hits += sourcemap_lookup(m, pl[j % 500], pc[j % 500], &pos);
	t1 = util_now_mono_s();
	printf("hot_lookup_ns %.1f\n", (t1 - t0) * 1e9 / (double)lookups);

	/* the slower helpers, on a sample of the mapped positions */
	char name[128], text[512];
	long sample = lookups < 20000 ? lookups : 20000, done = 0;
	double tn = 0, tl = 0;
	for (long j = 0; j < sample; j++) {
		if (!sourcemap_lookup(m, pl[j], pc[j], &pos))
			continue;
		double a = util_now_mono_s();
		named += sourcemap_name_at(m, &pos, name, sizeof name) > 0;
		double b = util_now_mono_s();
		sourcemap_source_line(m, pos.source, pos.line + 1, text, sizeof text);
		double c = util_now_mono_s();
		tn += b - a;
		tl += c - b;
		done++;
	}
	if (done) {
		printf("name_at_us %.1f\n", tn * 1e6 / (double)done);
		printf("source_line_us %.1f\n", tl * 1e6 / (double)done);
		printf("named_from_text %ld of %ld\n", named, done);
	}
	t0 = util_now_mono_s();
	sourcemap_free(m);
	printf("free_s %.3f\n", util_now_mono_s() - t0);
	free(starts);
	free(pl);
	free(pc);
	free(script);
	free(mapurl);
	free(abs);
	smap_ref_free(&ref);
	return 0;
}
