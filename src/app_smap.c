/* app_smap.c: see app_smap.h. */
#include "config.h"

#include "app_smap.h"
#include "loop.h"
#include "smapcache.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* What the maps of one process may hold in memory: a large bundle's map with its sources is
 * 2x its size once parsed (doc/bench/sourcemap.md), so a few 20-30 MB bundles fit. */
#define APP_SMAP_BUDGET_BYTES ((size_t)128 << 20)

struct app_smap {
	struct smapcache *c;
	struct loop_wake *w;
};

static void app_smap_on_wake(void *ud)
{
	struct app_smap *s = ud;

	smapcache_poll(s->c);
}

/* From the cache's worker thread: s->w was set before the cache existed. */
static void app_smap_notify(void *ud)
{
	struct app_smap *s = ud;

	loop_wake_signal(s->w);
}

/* Whether pid sees other files than we do (its own mount namespace). */
static bool app_smap_foreign_root(pid_t pid)
{
	char path[64];
	struct stat mine, its;

	snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &mine) < 0 || stat(path, &its) < 0)
		return true; /* unknown: read through its root, which is right either way */
	return mine.st_ino != its.st_ino || mine.st_dev != its.st_dev;
}

struct app_smap *app_smap_create(struct loop *l, pid_t pid)
{
	struct app_smap *s = xcalloc(1, sizeof *s);
	char root[64];

	snprintf(root, sizeof root, "/proc/%d/root", (int)pid);
	s->w = loop_wake_create(l, app_smap_on_wake, s);
	s->c = smapcache_create(pid > 0 && app_smap_foreign_root(pid) ? root : NULL,
		APP_SMAP_BUDGET_BYTES, app_smap_notify, s);
	return s;
}

struct smapcache *app_smap_cache(const struct app_smap *s)
{
	return s ? s->c : NULL;
}

void app_smap_free(struct app_smap *s)
{
	if (!s)
		return;
	smapcache_free(s->c);
	loop_wake_free(s->w);
	free(s);
}
