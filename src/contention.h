/* contention.h: the CPU a process cannot get, as the kernel counts it: a thread's time runnable
 * but waiting for a CPU (/proc/PID/task/TID/schedstat), and its cgroup's CPU quota and the
 * time the quota throttled it (cgroup v1's cpu controller, or v2's cpu.max and cpu.stat).
 * Nothing here asks the target anything or costs it anything. The parsers take text, so
 * tests feed them recorded files; the readers wrap them for a live PID. All of it untrusted:
 * a value that does not parse is unknown (NAN), never guessed. */
#ifndef NTOP_CONTENTION_H
#define NTOP_CONTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where the kernel mounts the cgroup hierarchies. */
#define CONTENTION_CGROUP_ROOT "/sys/fs/cgroup"

/* The counters at one moment; each NAN when not known. */
struct contention_sample {
	double runqueue_wait_s; /* the thread's run-queue wait since it started */
	double throttled_s;     /* the cgroup's throttled time since it was made, summed over the
	                         * CPUs it ran on (so it grows faster than the clock on several) */
	double periods;         /* the quota's enforcement periods since then */
	double throttled_periods; /* ...and those in which the quota ran out */
	double quota_cores;     /* quota / period; INFINITY: no quota */
};

/* A window's worth: the differences of two samples (NAN when either is unknown, or a counter
 * went back: a thread or cgroup that is not the same one any more). */
struct contention_window {
	double runqueue_wait_ms;
	double throttled_ms;
	double throttled_periods_pct; /* the share of the window's periods that were throttled */
	double quota_cores;
};

/* The second field of schedstat ("on-cpu-ns wait-ns timeslices"), in seconds. 0 or -1. */
int contention_schedstat_parse(const char *text, size_t len, double *wait_s);

/* The cpu controller's group in /proc/PID/cgroup: a v1 line whose controller list has "cpu"
 * ("4:cpu,cpuacct:/a/b") first, else v2's "0::/a/b". Sets *v2 and the path (absolute, no
 * ".." component). 0 or -1. */
int contention_cgroup_parse(const char *text, size_t len, bool *v2, char *path, size_t pathsz);

/* cpu.stat: v1's throttled_time (ns) or v2's throttled_usec, in seconds, into s->throttled_s,
 * and nr_periods and nr_throttled (NAN if absent). 0, or -1 without the throttled time. */
int contention_cpu_stat_parse(const char *text, size_t len, struct contention_sample *s);

/* v2's cpu.max ("max 100000" or "50000 100000"): cores, INFINITY without a quota. 0 or -1. */
int contention_cpu_max_parse(const char *text, size_t len, double *cores);

/* v1's cpu.cfs_quota_us and cpu.cfs_period_us texts (quota -1: none). 0 or -1. */
int contention_cfs_parse(const char *quota, size_t quota_len, const char *period,
	size_t period_len, double *cores);

/* Reads thread tid of process pid and the process's cgroup now. cgroup_root is where the
 * hierarchies are mounted ("/sys/fs/cgroup"; tests pass a directory of their own). */
void contention_read(pid_t pid, pid_t tid, const char *cgroup_root, struct contention_sample *s);

/* What happened between two samples. */
void contention_diff(const struct contention_sample *before, const struct contention_sample *now,
	struct contention_window *w);

#endif
