/* fuzz_heapprof: the sampling heap profile parser on hostile input.
 *
 * The input is the JSON text of a SamplingHeapProfile ({head, samples}), as
 * HeapProfiler.getSamplingProfile returns it. A parsed table is compared with itself and with
 * a small real baseline (alloc_table_diff), then sorted by growth, as the memory screen does.
 * The harness checks what heapprof.h promises: a message on failure, function indices inside
 * the table, sites sorted by live bytes, one site per function, and growth equal to the
 * difference with the baseline. An accepted profile is also written as pprof (pprof_v8.c),
 * which must accept it too, its samples no more than its nodes and its bytes the same. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "heapprof.h"
#include "pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_heapprof"
#include "fuzz_check.h"

/* A tiny profile of the shape V8 sends, for the diff. */
static const char baseline_json[] =
	"{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
	"\"lineNumber\":-1,\"columnNumber\":-1},\"selfSize\":0,\"id\":1,\"children\":["
	"{\"callFrame\":{\"functionName\":\"leakyCache\",\"scriptId\":\"81\","
	"\"url\":\"file:///app/leak.js\",\"lineNumber\":3,\"columnNumber\":19},"
	"\"selfSize\":65536,\"id\":2,\"children\":[]}]},"
	"\"samples\":[{\"size\":65536,\"nodeId\":2,\"ordinal\":1}]}";

static bool near(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
		return true;
	return fabs(a - b) <= 1e-6 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void check_table(const struct alloc_table *t, const struct functab *ft)
{
	size_t nf = functab_count(ft);

	CHECK(t->n <= t->cap, "n %zu cap %zu", t->n, t->cap);
	for (size_t i = 0; i < t->n; i++) {
		CHECK(t->sites[i].func < nf, "site %zu func %u of %zu", i, t->sites[i].func, nf);
		CHECK(t->sites[i].live_bytes >= 0, "negative live bytes");
		CHECK(i == 0 || t->sites[i - 1].live_bytes >= t->sites[i].live_bytes,
			"not sorted by live bytes at %zu", i);
		for (size_t j = 0; j < i && j < 64; j++)
			CHECK(t->sites[j].func != t->sites[i].func, "function %u twice", t->sites[i].func);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct functab *ft = functab_create();
	struct alloc_table t, self, base;
	char *err = NULL;
	double sum = 0;

	alloc_table_init(&t);
	alloc_table_init(&self);
	alloc_table_init(&base);
	CHECK(heapprof_parse(baseline_json, sizeof baseline_json - 1, ft, &base, &err) == 0,
		"the baseline does not parse: %s", err ? err : "?");
	if (heapprof_parse((const char *)data, size, ft, &t, &err) < 0) {
		CHECK(err != NULL && *err, "a rejected profile has no message");
		CHECK(t.n == 0, "a rejected profile left sites");
		free(err);
		goto out;
	}
	CHECK(err == NULL, "an accepted profile has a message");
	check_table(&t, ft);
	for (size_t i = 0; i < t.n; i++)
		sum += t.sites[i].live_bytes;
	CHECK(near(sum, t.total_live_bytes), "sites sum to %g, total %g", sum, t.total_live_bytes);

	/* against itself: nothing grew */
	CHECK(heapprof_parse((const char *)data, size, ft, &self, &err) == 0, "second parse: %s",
		err ? err : "?");
	CHECK(self.n == t.n, "second parse gave %zu sites, first %zu", self.n, t.n);
	alloc_table_diff(&self, &t);
	CHECK(self.n == t.n, "diff with itself added sites");
	for (size_t i = 0; i < self.n; i++)
		CHECK(self.sites[i].growth_bytes == 0 || !isfinite(self.sites[i].live_bytes),
			"site %zu grew %g against itself", i, self.sites[i].growth_bytes);

	/* against the baseline, then by growth */
	alloc_table_diff(&t, &base);
	for (size_t i = 0; i < t.n; i++) {
		double b = 0;
		for (size_t j = 0; j < base.n; j++)
			if (base.sites[j].func == t.sites[i].func)
				b += base.sites[j].live_bytes;
		CHECK(near(t.sites[i].growth_bytes, t.sites[i].live_bytes - b),
			"site %zu growth %g, live %g, baseline %g", i, t.sites[i].growth_bytes,
			t.sites[i].live_bytes, b);
	}
	alloc_table_sort_growth(&t);
	for (size_t i = 1; i < t.n; i++)
		CHECK(t.sites[i - 1].growth_bytes >= t.sites[i].growth_bytes, "not sorted by growth");

	/* as pprof: the same walk with stacks */
	{
		struct pprof *pp = pprof_create(PPROF_HEAP, 32768);
		unsigned char *gz = NULL;
		size_t n = 0;

		CHECK(pprof_add_heap_json(pp, (const char *)data, size, ft, &err) == 0,
			"pprof refused what heapprof accepted: %s", err ? err : "?");
		CHECK(pprof_sample_count(pp) <= size / 8 + 1, "%zu samples from %zu bytes",
			pprof_sample_count(pp), size);
		CHECK(pprof_encode_gzip(pp, &gz, &n, &err) == 0 && n > 0, "gzip: %s", err ? err : "?");
		free(gz);
		pprof_free(pp);
	}
out:
	alloc_table_free(&t);
	alloc_table_free(&self);
	alloc_table_free(&base);
	functab_free(ft);
	return 0;
}
