/* app_smap.h: one target process's source maps for the engines that watch it (its main
 * thread's and its workers'): a smapcache whose loads end with a wake-up of the loop. */
#ifndef NTOP_APP_SMAP_H
#define NTOP_APP_SMAP_H

#include <sys/types.h>

struct loop;
struct smapcache;

/* The maps of process pid's scripts, read through /proc/PID/root when it lives in another
 * mount namespace (a container), else from this system's files directly (so that --follow's
 * next process reads them too). */
struct app_smap *app_smap_create(struct loop *l, pid_t pid);
struct smapcache *app_smap_cache(const struct app_smap *s);
/* After every engine that borrows the cache is freed. Accepts NULL. */
void app_smap_free(struct app_smap *s);

#endif
