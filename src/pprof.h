/* pprof.h: profiles in pprof's format (perftools.profiles.Profile, gzipped protobuf), which
 * go tool pprof, Parca and Grafana Pyroscope read.
 *
 * Built the way pprof-nodejs builds them, so that the same code looks the same in either:
 * a Location per (script, line, column, name), a Function per (script, name), a Line's
 * number the function's 1-based line (V8's lineNumber + 1), and (idle) left out (the target
 * was not on the CPU). A function a source map places (origins.c) is named and placed in its
 * original source (file, 1-based line), with V8's name as the Function's system_name. One
 * Mapping (id 1) marks every location as symbolized already, so that pprof does not look for a
 * binary to read symbols from. */
#ifndef NTOP_PPROF_H
#define NTOP_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct calltree;
struct functab;
struct profile;

enum pprof_kind {
	PPROF_CPU,  /* samples/count, cpu/nanoseconds; period cpu/nanoseconds */
	PPROF_HEAP, /* inuse_objects/count, inuse_space/bytes; period space/bytes */
};

struct pprof_label {
	const char *key;
	const char *str;
};

/* A Profile being built. */
struct pprof;

/* period: the sampling interval (ns for CPU, bytes for the heap). */
struct pprof *pprof_create(enum pprof_kind kind, int64_t period);
void pprof_free(struct pprof *p);
/* When the profile begins (unix ns) and how long it covers (ns). */
void pprof_set_time(struct pprof *p, int64_t time_nanos, int64_t duration_nanos);
/* Adds a sample: stack holds function-table indices of ft (one profile may take samples of
 * several tables), leaf first (pprof's order);
 * values[0] and values[1] follow the kind's sample types. Frames of (root) are skipped; a
 * stack whose leaf is (idle) is left out. Labels' strings are copied. */
void pprof_add_sample(struct pprof *p, const struct functab *ft, const uint32_t *stack,
	size_t depth, int64_t v0, int64_t v1, const struct pprof_label *labels, size_t n_labels);
size_t pprof_sample_count(const struct pprof *p);
/* The Profile message, uncompressed (*out is the caller's to free). */
void pprof_encode(const struct pprof *p, unsigned char **out, size_t *len);
/* The Profile message gzipped, as pprof files and /debug/pprof/profile carry it. Returns 0,
 * or -1 with *cause if zlib fails. */
int pprof_encode_gzip(const struct pprof *p, unsigned char **out, size_t *len, char **cause);
/* Writes the gzipped profile to path as an atomic file. Returns 0, or -1 with *cause. */
int pprof_save(const struct pprof *p, const char *path, char **cause);

/* From what ntop-js collects (pprof_v8.c). */

/* Adds one sample per call-tree node with samples: its hits and its self time. */
void pprof_add_calltree(struct pprof *p, const struct calltree *t, const struct functab *ft);
/* The same, each sample with the labels (a thread's or process's, when one profile holds
 * several: their tables may differ, and each keeps its own locations). */
void pprof_add_calltree_labeled(struct pprof *p, const struct calltree *t,
	const struct functab *ft, const struct pprof_label *labels, size_t n_labels);
/* Adds a window's parsed profile, from the samples after trim_until_us (profile.h). */
void pprof_add_profile(struct pprof *p, const struct profile *prof, const struct functab *ft,
	double trim_until_us);
/* Adds a SamplingHeapProfile's JSON (HeapProfiler.getSamplingProfile's profile, as
 * engine_alloc_raw() keeps it): per allocation site its stack, the objects V8's sampler
 * caught there (not scaled up to all live objects) and their live bytes (selfSize, V8's
 * estimate). Call frames are interned into ft. Returns 0, or -1 with *err on bad input. */
int pprof_add_heap_json(struct pprof *p, const char *json, size_t len, struct functab *ft,
	char **err);

/* The session's call tree as a CPU profile file at path. interval_us is the sampling
 * interval (0: the tree's mean time per sample); end_unix_ns is when the tree's last sample
 * was taken (the profile begins its span before). Returns 0, or -1 with *cause. */
int pprof_save_calltree(const struct calltree *t, const struct functab *ft, long interval_us,
	int64_t end_unix_ns, const char *path, char **cause);
/* Whether path names a pprof file (.pb.gz or .pprof), for -o. */
bool pprof_path_is_pprof(const char *path);

#endif
