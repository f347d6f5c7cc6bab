/* origins.c: see origins.h. */
#include "config.h"

#include "origins.h"
#include "functab.h"
#include "smapcache.h"
#include "smapfind.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void origins_init(struct origins *o)
{
	memset(o, 0, sizeof *o);
}

void origins_free(struct origins *o)
{
	free(o->pending);
	memset(o, 0, sizeof *o);
}

/* Scripts that can have a map: the application's (not Node's own, not evaluated code). */
static bool origins_wanted(const struct func_info *fi)
{
	return fi->kind == FUNC_JS && fi->url[0] && fi->line >= 0 && fi->column >= 0 &&
		!functab_is_internal(fi);
}

char *origins_source_path(const char *script_url, const char *source_path)
{
	char *script = NULL, *err = NULL, *joined, *norm = NULL, *slash;

	/* absolute, or with a scheme of its own (webpack://, file:// handled below) */
	if (source_path[0] == '/' || (strstr(source_path, "://") &&
	    strncmp(source_path, "file://", 7) != 0))
		return xstrdup(source_path);
	if (strncmp(source_path, "file://", 7) == 0) {
		if (smapfind_url_path(source_path, &norm, &err) == 0)
			return norm;
		free(err);
		return xstrdup(source_path);
	}
	if (smapfind_url_path(script_url, &script, &err) < 0) {
		free(err);
		return xstrdup(source_path);
	}
	slash = strrchr(script, '/');
	if (slash)
		slash[1] = '\0';
	/* a map's sources are URLs relative to it ("%20" for a space) */
	joined = xasprintf("file://%s%s", script, source_path);
	free(script);
	if (smapfind_url_path(joined, &norm, &err) < 0) {
		/* climbing above / and such: shown as the map says it */
		free(err);
		free(joined);
		return xstrdup(source_path);
	}
	free(joined);
	return norm;
}

/* 1 mapped, 0 pending, -1 no original position. */
static int origins_one(struct functab *ft, uint32_t func, struct smapcache *c)
{
	const struct func_info *fi = functab_get(ft, func);
	struct smapcache_result r;
	char name[256], *path;
	size_t name_len = 0;

	switch (smapcache_lookup(c, fi->url, (uint32_t)fi->line, (uint32_t)fi->column, &r)) {
	case SMAPCACHE_PENDING:
		return 0;
	case SMAPCACHE_NONE:
		return -1;
	case SMAPCACHE_MAPPED:
		break;
	}
	if (r.pos.name && r.pos.name[0]) {
		snprintf(name, sizeof name, "%s", r.pos.name);
		name_len = strlen(name);
	} else {
		name_len = sourcemap_name_at(r.map, &r.pos, name, sizeof name);
	}
	path = origins_source_path(fi->url, r.pos.source_path ? r.pos.source_path : "");
	functab_set_origin(ft, func, name, name_len, path, strlen(path), (int32_t)r.pos.line,
		(int32_t)r.pos.column);
	free(path);
	return 1;
}

size_t origins_update(struct origins *o, struct functab *ft, struct smapcache *c)
{
	size_t n = functab_count(ft), done = 0, keep = 0;

	if (!c)
		return 0;
	for (size_t i = 0; i < o->n_pending; i++) {
		int rc = origins_one(ft, o->pending[i], c);

		if (rc == 0)
			o->pending[keep++] = o->pending[i];
		done += rc > 0;
	}
	o->n_pending = keep;
	for (; o->next < n; o->next++) {
		uint32_t func = (uint32_t)o->next;
		int rc;

		if (!origins_wanted(functab_get(ft, func)))
			continue;
		rc = origins_one(ft, func, c);
		if (rc == 0) {
			if (o->n_pending == o->cap_pending) {
				o->cap_pending = o->cap_pending ? 2 * o->cap_pending : 64;
				o->pending = xrealloc(o->pending, o->cap_pending * sizeof *o->pending);
			}
			o->pending[o->n_pending++] = func;
		}
		done += rc > 0;
	}
	o->mapped += done;
	return done;
}
