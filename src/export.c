/* export.c: see export.h. */
#include "config.h"

#include "export.h"
#include "atomicfile.h"
#include "calltree.h"
#include "engine.h"
#include "pprof.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int export_tree(const struct calltree *t, const struct functab *ft, const char *path,
	bool folded, long interval_us, char **cause)
{
	/* the tree's last sample was taken about now: it was merged at the last window */
	if (!folded && pprof_path_is_pprof(path))
		return pprof_save_calltree(t, ft, interval_us,
			(int64_t)llround(util_now_wall_s() * 1e9), path, cause);
	return calltree_save(t, ft, path, folded, cause);
}

int export_snapshot(struct engine *e, const char *dir, int pid, long thread_id, char **msg)
{
	const struct calltree *all = engine_calltree(e), *win = engine_window_calltree(e);
	char stamp[32], *base, *p_all, *p_win, *p_fold, *p_pprof, *cause = NULL;
	struct timespec ts;
	struct tm tm;
	int rc = -1;

	if (!all || !win) {
		*msg = xstrdup("nothing to save: no call tree is kept.");
		return -1;
	}
	/* Milliseconds in the name: two saves in one second must not overwrite each other. */
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	/* a worker thread's files name it: ntop-js-PID-tTHREAD-... */
	if (thread_id != 0)
		base = xasprintf("%s/ntop-js-%d-t%ld-%s.%03ld", dir, pid, thread_id, stamp,
			ts.tv_nsec / 1000000);
	else
		base = xasprintf("%s/ntop-js-%d-%s.%03ld", dir, pid, stamp, ts.tv_nsec / 1000000);
	p_all = xasprintf("%s-all.cpuprofile", base);
	p_win = xasprintf("%s-window.cpuprofile", base);
	p_fold = xasprintf("%s-all.folded", base);
	p_pprof = xasprintf("%s-all.pb.gz", base);
	/* the engine's interval is not public: pprof's period is then the mean between samples */
	if (calltree_save(all, engine_functab(e), p_all, false, &cause) == 0 &&
	    calltree_save(win, engine_functab(e), p_win, false, &cause) == 0 &&
	    calltree_save(all, engine_functab(e), p_fold, true, &cause) == 0 &&
	    export_tree(all, engine_functab(e), p_pprof, false, 0, &cause) == 0) {
		const char *raw;
		size_t raw_len;

		rc = 0;
		raw = engine_alloc_raw(e, &raw_len);
		if (raw) {
			/* The allocation profile as V8 sent it: DevTools' Memory panel opens it. */
			char *p_heap = xasprintf("%s-alloc.heapprofile", base);
			if (atomic_file_save(p_heap, raw, raw_len, &cause) == 0) {
				*msg = xasprintf("saved %s-{all,window}.cpuprofile, -all.folded, "
					"-all.pb.gz and -alloc.heapprofile", base);
			} else {
				*msg = cause;
				cause = NULL;
				rc = -1;
			}
			free(p_heap);
		} else {
			*msg = xasprintf("saved %s-{all,window}.cpuprofile, -all.folded and "
				"-all.pb.gz", base);
		}
	} else {
		*msg = cause ? cause : xstrdup("cannot save the profiles.");
		cause = NULL;
	}
	free(cause);
	free(base);
	free(p_all);
	free(p_win);
	free(p_fold);
	free(p_pprof);
	return rc;
}

char *export_sibling_path(const char *path, const char *tag)
{
	static const char *const suffixes[] = { ".cpuprofile", ".pb.gz", ".pprof", ".folded" };
	const char *name = strrchr(path, '/'), *dot = NULL;
	size_t len = strlen(path);

	name = name ? name + 1 : path;
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && !dot; i++) {
		size_t sl = strlen(suffixes[i]);
		if (len > sl && strcmp(path + len - sl, suffixes[i]) == 0 && path + len - sl > name)
			dot = path + len - sl;
	}
	if (!dot) {
		dot = strrchr(name, '.');
		if (!dot || dot == name)
			dot = path + len;
	}
	return xasprintf("%.*s-%s%s", (int)(dot - path), path, tag, dot);
}

int export_trees(const struct export_source *s, size_t n, const char *path, bool folded,
	long interval_us, char **cause)
{
	struct atomic_file *f;
	FILE *out;
	int rc = 0;

	*cause = NULL;
	if (!folded) {
		for (size_t i = 0; i < n; i++) {
			char *p = i == 0 ? xstrdup(path) : export_sibling_path(path, s[i].tag), *why = NULL;

			if (s[i].t && export_tree(s[i].t, s[i].ft, p, false, interval_us, &why) < 0) {
				if (!*cause)
					*cause = why;
				else
					free(why);
				rc = -1;
			}
			free(p);
		}
		return rc;
	}
	f = atomic_file_open(path, cause);
	if (!f)
		return -1;
	out = atomic_file_stream(f);
	/* A failed write stays with the file, and the commit reports it with its reason. */
	for (size_t i = 0; i < n; i++)
		if (s[i].t)
			(void)calltree_write_folded_under(s[i].t, s[i].ft, s[i].frame, out);
	return atomic_file_commit(f, cause);
}
