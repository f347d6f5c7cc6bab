/* Unit tests for origins.c: a function table's functions traced back through real source maps
 * (tsc's, committed under tests/fixtures/sourcemap by its record.sh), once each, with those
 * whose map is loading asked again; and the original sources' paths as shown. */
#include "config.h"

#include "asuser.h"
#include "functab.h"
#include "origins.h"
#include "smapcache.h"
#include "tap.h"
#include "util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int notified;

static void on_notify(void *ud)
{
	(void)ud;
	atomic_store(&notified, 1);
}

static uint32_t fn(struct functab *ft, const char *name, const char *url, int line, int col)
{
	return functab_intern(ft, name, strlen(name), url, strlen(url), line, col);
}

static void test_update(void)
{
	struct functab *ft = functab_create();
	char *err = NULL;
	struct asuser *reader = asuser_open_dir("/", NULL, &err);
	struct smapcache *c = smapcache_create(reader, 16 << 20, on_notify, NULL);
	struct origins o;
	char *url = xasprintf("%s/tests/fixtures/sourcemap/tsc-cjs/main.js", SRCDIR);
	char *plain = xasprintf("%s/tests/unit/tap.h", SRCDIR);
	uint32_t hot, internal, nomap;
	const struct func_info *fi;
	int i;

	origins_init(&o);
	/* function hotLoop(n, scale) is line 7 of main.js; V8 points at its '(' */
	hot = fn(ft, "hotLoop", url, 6, 16);
	internal = fn(ft, "listOnTimeout", "node:internal/timers", 580, 24);
	nomap = fn(ft, "x", plain, 0, 0);
	is_int((int)origins_update(&o, ft, c), 0, "nothing mapped while the maps load");
	ok(o.n_pending == 2, "the two application scripts wait (%zu); Node's own is not asked",
		o.n_pending);
	for (i = 0; i < 500 && smapcache_busy(c); i++) {
		if (atomic_exchange(&notified, 0))
			smapcache_poll(c);
		else
			usleep(10000);
	}
	smapcache_poll(c);
	is_int((int)origins_update(&o, ft, c), 1, "then one is mapped");
	fi = functab_get(ft, hot);
	ok(fi->mapped && strcmp(fi->orig_name, "hotLoop") == 0,
		"hotLoop, its name read from the TypeScript (tsc's maps name nothing): %s",
		fi->mapped ? fi->orig_name : "-");
	ok(fi->mapped && fi->orig_line == 5 && strstr(fi->orig_url, "/tests/fixtures/sourcemap/src/main.ts") &&
		fi->orig_url[0] == '/', "at line 6 of src/main.ts, a full path: %s:%d",
		fi->mapped ? fi->orig_url : "-", fi->mapped ? fi->orig_line + 1 : 0);
	ok(!functab_get(ft, internal)->mapped && !functab_get(ft, nomap)->mapped,
		"Node's code and a script without a map stay as they are");
	ok(o.n_pending == 0, "and nothing waits any more");
	is_str(functab_shown_name(fi), "hotLoop", "functab_shown_name: the original");
	ok(functab_shown_line(fi) == 5 && functab_shown_url(fi) == fi->orig_url,
		"functab_shown_url and _line: the original place");
	is_int((int)origins_update(&o, ft, c), 0, "a second update asks nothing again");
	origins_free(&o);
	smapcache_free(c);
	asuser_free(reader);
	free(err);
	functab_free(ft);
	free(url);
	free(plain);
}

static void test_paths(void)
{
	char *p;

	p = origins_source_path("/srv/app/dist/main.js", "../src/main.ts");
	is_str(p, "/srv/app/src/main.ts", "a relative source beside the script's folder");
	free(p);
	p = origins_source_path("file:///srv/app/bundle/app.min.mjs", "../src/a%20b.ts");
	ok(p && strcmp(p, "/srv/app/src/a b.ts") == 0, "from a file:// script: %s", p ? p : "-");
	free(p);
	p = origins_source_path("/srv/app/dist/main.js", "webpack://app/./src/x.ts");
	is_str(p, "webpack://app/./src/x.ts", "a scheme of its own is kept");
	free(p);
	p = origins_source_path("/srv/app/dist/main.js", "/abs/src/y.ts");
	is_str(p, "/abs/src/y.ts", "an absolute path is kept");
	free(p);
	p = origins_source_path("/a/main.js", "../../../../etc/passwd");
	is_str(p, "../../../../etc/passwd", "one that climbs above / is shown as the map says it");
	free(p);
}

int main(void)
{
	test_update();
	test_paths();
	return done_testing();
}
