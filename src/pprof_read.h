/* pprof_read.h: a CPU profile in pprof's format (gzipped or plain protobuf, as go tool pprof,
 * Pyroscope, Parca and ntop-js -o x.pb.gz write it) read into a struct profile (profile.h),
 * so that what reads a .cpuprofile reads it too (ntop-js --diff).
 *
 * Each Sample becomes one profile sample whose weight (its time delta) is its CPU time: the
 * value of the sample type "cpu" or "wall", or in nanoseconds, else the last value times the
 * period. Its stack becomes a path of nodes from the root (a Location's inlined Lines each a
 * frame, the caller last, as pprof writes them); a function is interned by its name, file and
 * start line (unknown when the Function has none). Frames of V8's (root) are left out, as
 * pprof.c leaves them out. The file is untrusted: every length and index is checked, the gzip
 * stream may inflate to PPROF_READ_MAX_BYTES, the message hold PPROF_READ_MAX_ITEMS items
 * (samples, ids, values, locations, lines, functions, strings), and the stacks
 * PPROF_READ_MAX_FRAMES frames in all. */
#ifndef NTOP_PPROF_READ_H
#define NTOP_PPROF_READ_H

#include <stdbool.h>
#include <stddef.h>

struct functab;
struct profile;

#define PPROF_READ_MAX_BYTES (512UL * 1024 * 1024)
/* Frames of one sample, and nodes of the whole tree, at most. */
#define PPROF_READ_MAX_DEPTH 4096
#define PPROF_READ_MAX_NODES (1u << 22)
#define PPROF_READ_MAX_ITEMS (1u << 23)
#define PPROF_READ_MAX_FRAMES (1u << 26)
/* A sample weighing more than this (µs: 11.6 days of CPU) is not a real one, and is left out. */
#define PPROF_READ_MAX_SAMPLE_US 1e12

/* Whether data starts as a gzip stream does. */
bool pprof_read_is_gzip(const unsigned char *data, size_t len);

/* Reads data (gzipped or not) into out, interning functions into ft. Returns 0, or -1 with
 * *err (one sentence, the caller frees), -2 when data is not a protobuf message at all (not
 * pprof); out is then empty. */
int pprof_read_cpu(const unsigned char *data, size_t len, struct functab *ft, struct profile *out,
	char **err);

#endif
