/* pause.h: how long the target will pause for what ntop-js is about to ask of it,
 * predicted from cheap readings taken before, so that a long pause is asked for (or refused)
 * instead of caused by surprise.
 *
 * The pauses, all on the target's main thread:
 *   start   V8's CPU profiler starting: it walks the heap and logs every compiled function
 *           (grows with the heap and with the amount of compiled code);
 *   deopt   the JIT step's deoptimization of all code (precise coverage started and stopped);
 *   gc      a full garbage collection, which every allocation-profile fetch forces.
 * The coefficients are fitted to measurements on Node 18-26 (doc/bench/pause.md). */
#ifndef NTOP_PAUSE_H
#define NTOP_PAUSE_H

#include <stdbool.h>

struct pause_inputs {
	double heap_used_bytes;   /* V8 heap used; NAN if unknown */
	double bytecode_bytes;    /* v8.getHeapCodeStatistics(): bytecode and metadata; NAN if */
	double code_bytes;        /* not read (they cost a heap walk of their own: see below) */
	int v8_major;             /* 0 if unknown */
};

struct pause_estimate {
	double start_s, deopt_s, gc_s;
};

void pause_estimate(const struct pause_inputs *in, struct pause_estimate *out);

/* Reading the code statistics walks the old space too (about 45 ms per GB of heap, measured
 * on Node 20): worth it only where it is cheap, i.e. on a heap under this size. */
#define PAUSE_CODE_STATS_MAX_HEAP_BYTES (400.0 * 1024 * 1024)

/* "about 1.8 s" / "about 120 ms": a pause for a sentence, rounded to what the model can tell. */
void pause_format(double s, char *out, unsigned outsz);

#endif
