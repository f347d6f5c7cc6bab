/* pause.c: see pause.h. */
#include "config.h"

#include "pause.h"

#include <math.h>
#include <stdio.h>

#define MB (1024.0 * 1024.0)

/* pause_ms = fixed + per_heap_mb * heap used (MB) + per_code_mb * bytecode (MB) */
struct pause_coef {
	double fixed_ms, per_heap_mb_ms, per_code_mb_ms;
};

/* Fitted to bench/pause.sh on Node 18, 20, 22, 24 and 26 (doc/bench/pause.md): fresh targets
 * of 1,000 to 200,000 functions and 0 to 4 GB of heap, the pause as the target's event loop
 * felt it. One set for every version: the start within 42 % on all 50 runs; the deoptimization
 * is the upper bound (both coverage commands, which may run back to back); the GC within
 * 53 % above 20 ms. Heap alone or bytecode alone does not predict the start (-85 %, -99 %). */
static const struct pause_coef coef_start = { 1.7, 0.582, 14.5 };
static const struct pause_coef coef_deopt = { 2.2, 0.579, 1.8 };
static const struct pause_coef coef_gc = { 0.0, 0.949, 4.5 };

/* Without the code statistics the bytecode is guessed. On a heap too large to read them
 * cheaply (PAUSE_CODE_STATS_MAX_HEAP_BYTES) the heap term dominates: 2 MB (about 8,000
 * functions) keeps the recorded 0.7-4 GB runs within 36 %, from 1,000 to 100,000 functions.
 * On a smaller heap (--no-eval) a tenth of the heap, at most 10 MB: a heap full of functions
 * is still underestimated (200,000 functions on 200 MB: -69 %); the man page says so. */
#define GUESS_CODE_LARGE_HEAP_MB 2.0
#define GUESS_CODE_FRACTION 0.1
#define GUESS_CODE_MAX_MB 10.0

static double apply(const struct pause_coef *c, double heap_mb, double code_mb)
{
	return (c->fixed_ms + c->per_heap_mb_ms * heap_mb + c->per_code_mb_ms * code_mb) / 1e3;
}

void pause_estimate(const struct pause_inputs *in, struct pause_estimate *out)
{
	double heap_mb = NAN, code_mb;

	if (isfinite(in->heap_used_bytes) && in->heap_used_bytes >= 0)
		heap_mb = in->heap_used_bytes / MB;
	if (isnan(heap_mb)) {
		out->start_s = out->deopt_s = out->gc_s = NAN;
		return;
	}
	if (isfinite(in->bytecode_bytes) && in->bytecode_bytes >= 0)
		code_mb = in->bytecode_bytes / MB;
	else
		code_mb = in->heap_used_bytes >= PAUSE_CODE_STATS_MAX_HEAP_BYTES ?
			GUESS_CODE_LARGE_HEAP_MB : fmin(GUESS_CODE_FRACTION * heap_mb, GUESS_CODE_MAX_MB);
	out->start_s = apply(&coef_start, heap_mb, code_mb);
	out->deopt_s = apply(&coef_deopt, heap_mb, code_mb);
	out->gc_s = apply(&coef_gc, heap_mb, code_mb);
}

void pause_format(double s, char *out, unsigned outsz)
{
	if (!isfinite(s) || s < 0)
		snprintf(out, outsz, "an unknown time");
	else if (round(s * 100) < 100)
		snprintf(out, outsz, "about %.0f ms", s < 0.01 ? 10.0 : round(s * 100) * 10);
	else
		snprintf(out, outsz, "about %.1f s", s);
}
