/* origins.h: where each function of a function table came from in the original sources
 * (TypeScript, a bundle's modules), by the scripts' source maps (smapcache.h). Every function
 * is looked up once; one whose script's map is still loading is asked again at the next
 * update. The answer goes into the table (functab_set_origin), where every view, report and
 * export finds it. */
#ifndef NTOP_ORIGINS_H
#define NTOP_ORIGINS_H

#include <stddef.h>
#include <stdint.h>

struct functab;
struct smapcache;

struct origins {
	size_t next;          /* the first function not looked up yet */
	uint32_t *pending;    /* functions whose map was loading */
	size_t n_pending, cap_pending;
	size_t mapped;        /* functions mapped so far */
};

void origins_init(struct origins *o);
void origins_free(struct origins *o);
/* Looks up the functions added since the last update and those still pending. Returns how
 * many were mapped by this call. */
size_t origins_update(struct origins *o, struct functab *ft, struct smapcache *c);
/* An original source's path as shown: a path relative to the script's folder is joined to it
 * ("../src/main.ts" of /srv/app/dist/main.js: /srv/app/src/main.ts); a scheme such as
 * webpack:// is kept. The caller frees it. */
char *origins_source_path(const char *script_url, const char *source_path);

#endif
