/* version.c: see version.h. */
#include "config.h"

#include "version.h"

#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "jitplan.h"
#include "term.h"
#include "transport.h"

void version_text(struct strbuf *out)
{
	char what[256];
	struct jit_plan p;
	const char *lws = transport_library_version();
	size_t lws_n = strlen(lws);

	/* libwebsockets appends "-" and its git hash, empty in releases */
	while (lws_n && lws[lws_n - 1] == '-')
		lws_n--;
	strbuf_printf(out, "ntop-js %s\n", PACKAGE_VERSION);
	strbuf_printf(out, "libraries: %s, libwebsockets %.*s, cJSON %s, zlib %s\n",
		term_library_version(), (int)lws_n, lws, cJSON_Version(), zlibVersion());
	strbuf_puts(out, "what it does to a warm target's JIT by default (--inlining auto, with "
		"--pid; ntop-js(1)):\n");
	for (size_t i = 0; i < jit_n_known_versions; i++) {
		const struct jit_known *k = &jit_known_versions[i];
		int major = jit_v8_major(k->v8_version);

		jit_plan_make(k->v8_version, "", false, JIT_AUTO, true, &p);
		jit_plan_describe(&p, what, sizeof what);
		strbuf_printf(out, "  Node %-7s V8 %-3d %s\n", k->node, major, what);
	}
	jit_plan_make("99.0.0", "", false, JIT_AUTO, true, &p);
	jit_plan_describe(&p, what, sizeof what);
	strbuf_printf(out, "  %-19s %s\n", "later", what);
}
