/* contention.c: see contention.h. */
#include "config.h"

#include "contention.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

/* The kernel's files are a few hundred bytes; anything longer is not one of them. */
#define CONTENTION_FILE_MAX 4096

/* The unsigned decimal at s (n bytes, up to the first space or newline); false if none. */
static bool dec_field(const char *s, size_t n, unsigned long *v, size_t *used)
{
	size_t k = 0;

	while (k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	if (used)
		*used = k;
	return procfs_parse_dec(s, k, ULONG_MAX, v);
}

int contention_schedstat_parse(const char *text, size_t len, double *wait_s)
{
	unsigned long on_cpu, wait;
	size_t used;

	if (!dec_field(text, len, &on_cpu, &used) || used >= len || text[used] != ' ')
		return -1;
	text += used + 1;
	len -= used + 1;
	if (!dec_field(text, len, &wait, &used) || used >= len || text[used] != ' ')
		return -1;
	*wait_s = (double)wait / 1e9;
	return 0;
}

/* Whether the comma-separated list [s, s+n) names controller "cpu". */
static bool has_cpu(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = i;

		while (k < n && s[k] != ',')
			k++;
		if (k - i == 3 && memcmp(s + i, "cpu", 3) == 0)
			return true;
		i = k + 1;
	}
	return false;
}

/* An absolute path with no "." or ".." component and no control byte. */
static bool path_ok(const char *p, size_t n)
{
	if (n == 0 || p[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;

		while (k < n && p[k] != '/')
			k++;
		if ((k - i == 2 && p[i + 1] == '.') || (k - i == 3 && p[i + 1] == '.' && p[i + 2] == '.'))
			return false;
		i = k;
	}
	return true;
}

int contention_cgroup_parse(const char *text, size_t len, bool *v2, char *path, size_t pathsz)
{
	const char *v2_path = NULL;
	size_t v2_len = 0;

	for (size_t i = 0; i < len;) {
		const char *line = text + i, *c1, *c2;
		size_t n = 0;

		while (i + n < len && text[i + n] != '\n')
			n++;
		i += n + 1;
		c1 = memchr(line, ':', n);
		c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
		if (!c2)
			continue;
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
			v2_path = c2 + 1;
			v2_len = n - (size_t)(c2 + 1 - line);
		} else if (has_cpu(c1 + 1, (size_t)(c2 - c1 - 1))) {
			size_t pl = n - (size_t)(c2 + 1 - line);

			if (!path_ok(c2 + 1, pl) || pl >= pathsz)
				return -1;
			memcpy(path, c2 + 1, pl);
			path[pl] = '\0';
			*v2 = false;
			return 0;
		}
	}
	if (!v2_path || !path_ok(v2_path, v2_len) || v2_len >= pathsz)
		return -1;
	memcpy(path, v2_path, v2_len);
	path[v2_len] = '\0';
	*v2 = true;
	return 0;
}

int contention_cpu_stat_parse(const char *text, size_t len, struct contention_sample *s)
{
	bool found = false;

	s->throttled_s = s->periods = s->throttled_periods = NAN;
	for (size_t i = 0; i < len;) {
		const char *line = text + i;
		size_t n = 0, key;
		unsigned long v;

		while (i + n < len && text[i + n] != '\n')
			n++;
		i += n + 1;
		for (key = 0; key < n && line[key] != ' '; key++)
			;
		if (key + 1 >= n || !dec_field(line + key + 1, n - key - 1, &v, NULL))
			continue;
		if (key == 14 && memcmp(line, "throttled_time", 14) == 0) {
			s->throttled_s = (double)v / 1e9;
			found = true;
		} else if (key == 14 && memcmp(line, "throttled_usec", 14) == 0) {
			s->throttled_s = (double)v / 1e6;
			found = true;
		} else if (key == 10 && memcmp(line, "nr_periods", 10) == 0) {
			s->periods = (double)v;
		} else if (key == 12 && memcmp(line, "nr_throttled", 12) == 0) {
			s->throttled_periods = (double)v;
		}
	}
	return found ? 0 : -1;
}

int contention_cpu_max_parse(const char *text, size_t len, double *cores)
{
	unsigned long quota, period;
	size_t used;

	if (len >= 4 && memcmp(text, "max ", 4) == 0) {
		if (!dec_field(text + 4, len - 4, &period, NULL) || period == 0)
			return -1;
		*cores = INFINITY;
		return 0;
	}
	if (!dec_field(text, len, &quota, &used) || used >= len || text[used] != ' ' ||
	    !dec_field(text + used + 1, len - used - 1, &period, NULL) || period == 0)
		return -1;
	*cores = (double)quota / (double)period;
	return 0;
}

int contention_cfs_parse(const char *quota, size_t quota_len, const char *period,
	size_t period_len, double *cores)
{
	unsigned long q, p;

	if (!dec_field(period, period_len, &p, NULL) || p == 0)
		return -1;
	if (quota_len >= 2 && quota[0] == '-' && quota[1] == '1' &&
	    (quota_len == 2 || quota[2] == '\n')) {
		*cores = INFINITY;
		return 0;
	}
	if (!dec_field(quota, quota_len, &q, NULL))
		return -1;
	*cores = (double)q / (double)p;
	return 0;
}

/* Reads path into a malloc'd buffer; NULL if it cannot. */
static char *read_small(const char *path, size_t *len)
{
	char *buf;

	if (procfs_file_read(path, CONTENTION_FILE_MAX, &buf, len, NULL) < 0)
		return NULL;
	return buf;
}

/* The cgroup's quota and throttled time: v1 under ROOT/cpu,cpuacct or ROOT/cpu, v2 under ROOT
 * (or ROOT/unified, a hybrid's). */
static void read_cgroup(pid_t pid, const char *root, struct contention_sample *s)
{
	char file[64], group[1024], dir[1400], p1[1500], p2[1500];
	char *text, *a, *b;
	size_t len, alen, blen;
	bool v2;
	int rc;

	snprintf(file, sizeof file, "/proc/%d/cgroup", (int)pid);
	if (!(text = read_small(file, &len)))
		return;
	rc = contention_cgroup_parse(text, len, &v2, group, sizeof group);
	free(text);
	if (rc < 0)
		return;
	for (int k = 0; k < 2; k++) {
		const char *sub = v2 ? (k == 0 ? "" : "/unified") : (k == 0 ? "/cpu,cpuacct" : "/cpu");

		snprintf(dir, sizeof dir, "%s%s%s", root, sub, strcmp(group, "/") == 0 ? "" : group);
		snprintf(p1, sizeof p1, "%s/cpu.stat", dir);
		if (!(text = read_small(p1, &len)))
			continue;
		(void)contention_cpu_stat_parse(text, len, s);
		free(text);
		if (v2) {
			snprintf(p1, sizeof p1, "%s/cpu.max", dir);
			if ((a = read_small(p1, &alen))) {
				if (contention_cpu_max_parse(a, alen, &s->quota_cores) < 0)
					s->quota_cores = NAN;
				free(a);
			}
			return;
		}
		snprintf(p1, sizeof p1, "%s/cpu.cfs_quota_us", dir);
		snprintf(p2, sizeof p2, "%s/cpu.cfs_period_us", dir);
		a = read_small(p1, &alen);
		b = read_small(p2, &blen);
		if (a && b && contention_cfs_parse(a, alen, b, blen, &s->quota_cores) < 0)
			s->quota_cores = NAN;
		free(a);
		free(b);
		return;
	}
}

void contention_read(pid_t pid, pid_t tid, const char *cgroup_root, struct contention_sample *s)
{
	char file[64], *text;
	size_t len;

	s->runqueue_wait_s = s->throttled_s = s->quota_cores = NAN;
	s->periods = s->throttled_periods = NAN;
	snprintf(file, sizeof file, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if ((text = read_small(file, &len))) {
		if (contention_schedstat_parse(text, len, &s->runqueue_wait_s) < 0)
			s->runqueue_wait_s = NAN;
		free(text);
	}
	read_cgroup(pid, cgroup_root, s);
}

/* now - before, NAN when either is unknown or the counter went back. */
static double grew(double before, double now)
{
	if (!isfinite(before) || !isfinite(now) || now < before)
		return NAN;
	return now - before;
}

void contention_diff(const struct contention_sample *before, const struct contention_sample *now,
	struct contention_window *w)
{
	double periods = grew(before->periods, now->periods);
	double throttled = grew(before->throttled_periods, now->throttled_periods);

	w->runqueue_wait_ms = grew(before->runqueue_wait_s, now->runqueue_wait_s) * 1e3;
	w->throttled_ms = grew(before->throttled_s, now->throttled_s) * 1e3;
	/* no period in the window (no quota, or the group never ran): nothing was throttled */
	w->throttled_periods_pct = !isfinite(periods) || !isfinite(throttled) ? NAN :
		periods > 0 ? 100.0 * fmin(throttled, periods) / periods : 0;
	w->quota_cores = now->quota_cores;
}
