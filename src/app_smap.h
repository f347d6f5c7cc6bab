/* app_smap.h: one target process's source maps for the engines that watch it (its main
 * thread's and its workers'): a smapcache whose loads end with a wake-up of the loop. */
#ifndef NTOP_APP_SMAP_H
#define NTOP_APP_SMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct smapcache;
struct func_info;

/* The maps of process pid's scripts and the text of its files, read with pid's rights through
 * its root (asuser.h), both taken now: call it at attach. */
struct app_smap *app_smap_create(struct loop *l, pid_t pid, bool maps);
/* The same for process pid now (--follow's next process): what was read as the last one is
 * forgotten. May wait for a read in progress (ASUSER_TIMEOUT_S at most). Accepts NULL. */
void app_smap_retarget(struct app_smap *s, pid_t pid);
/* The cache for the engines; NULL when maps are off (--no-source-maps). */
struct smapcache *app_smap_cache(const struct app_smap *s);
/* Line line1 (V8's, 1-based) of fi's script, for the detail screen's hot lines: where (its
 * place: in the original source when fi is source-mapped, unless generated) and text (raw: the caller makes it
 * safe), and note, a sentence on fi's source map ("" when mapped or nothing to say). False
 * when there is no text. */
bool app_smap_line_text(struct app_smap *s, const struct func_info *fi, uint32_t line1,
	bool generated, char *where, size_t where_cap, char *text, size_t text_cap, char *note,
	size_t note_cap);
/* After every engine that borrows the cache is freed. Accepts NULL. */
void app_smap_free(struct app_smap *s);

#endif
