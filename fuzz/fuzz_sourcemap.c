/* fuzz_sourcemap: the source-map parser, its lookups, and the search for a script's map, on
 * hostile input.
 *
 * The input is a map's JSON text (plain or an index map), as a script's map file or inline
 * data: URL holds it. An accepted map is looked up at every segment-bearing line's first
 * columns and at a spread of others, with the name finder and the original line's text for
 * every hit. The harness checks what sourcemap.h promises: a sentence on failure (and none on
 * success); a hit's source index inside the sources and its path theirs; text no longer than
 * asked. The same bytes then go through the comment search and, when one is found, through
 * smapfind_resolve (a data: URL decoded and parsed too); and as a frame's url through
 * smapfind_url_path, whose result must be normalised (absolute, no "." or ".." segments). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smapfind.h"
#include "sourcemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_sourcemap"
#include "fuzz_check.h"

static void exercise(const struct sourcemap *m)
{
	static const uint32_t cols[] = { 0, 1, 2, 3, 7, 16, 40, 100, 1000, 65536, UINT32_MAX };
	uint32_t nsrc = sourcemap_source_count(m);
	char text[256], name[64];

	CHECK(sourcemap_bytes(m) > 0, "a map takes room");
	for (uint32_t line = 0; line < 64; line++)
		for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
			struct sourcemap_pos pos;
			if (!sourcemap_lookup(m, line, cols[k], &pos))
				continue;
			CHECK(pos.source < nsrc, "source %u of %u", pos.source, nsrc);
			CHECK(pos.source_path == sourcemap_source_path(m, pos.source), "its path");
			long n = sourcemap_source_line(m, pos.source, pos.line + 1, text, sizeof text);
			CHECK(n >= -1 && n <= (long)sizeof text, "line text of %ld bytes", n);
			size_t nn = sourcemap_name_at(m, &pos, name, sizeof name);
			CHECK(nn < sizeof name && (nn == 0 || strlen(name) == nn), "name of %zu", nn);
		}
	sourcemap_lookup(m, UINT32_MAX, 0, &(struct sourcemap_pos){ 0 });
	sourcemap_source_line(m, nsrc, 1, text, sizeof text);
	sourcemap_source_line(m, 0, UINT32_MAX, text, sizeof text);
}

static void parse_checked(const char *bytes, size_t size)
{
	char *buf = malloc(size ? size : 1), *err = NULL;
	if (!buf)
		return;
	memcpy(buf, bytes, size);
	struct sourcemap *m = sourcemap_parse(buf, size, &err);
	CHECK(!m == !!err, "a sentence exactly on failure (%s)", err ? err : "none");
	if (err)
		CHECK(!strncmp(err, "invalid source map", 18) && err[strlen(err) - 1] == '.',
			"one sentence: %s", err);
	if (m)
		exercise(m);
	sourcemap_free(m);
	free(err);
}

static void check_path(const char *p)
{
	CHECK(p[0] == '/', "absolute: %s", p);
	CHECK(!strstr(p, "/../") && !strstr(p, "/./") && !strstr(p, "//"), "normalised: %s", p);
	size_t n = strlen(p);
	CHECK(n == 1 || (strcmp(p + n - 2, "/.") && (n < 3 || strcmp(p + n - 3, "/..")) &&
		p[n - 1] != '/'), "no trailing dot segment: %s", p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char *url = NULL, *err = NULL, *path = NULL;
	struct smap_ref ref;

	parse_checked(text, size);

	if (sourcemap_find_url(text, size, &url) == 1) {
		CHECK(url[0] && !strpbrk(url, " \t\r\n"), "a trimmed URL: %s", url);
		if (smapfind_resolve("/app/dist/main.js", url, &ref, &err) == 0) {
			CHECK(!err && (!ref.path != !ref.data), "a path or a map");
			if (ref.path)
				check_path(ref.path);
			if (ref.data)
				parse_checked(ref.data, ref.len);
			smap_ref_free(&ref);
		} else {
			CHECK(err && err[strlen(err) - 1] == '.', "one sentence");
		}
		free(err), err = NULL;
		free(url);
	}

	/* the bytes as a frame's url */
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (smapfind_url_path(s, &path, &err) == 0) {
		check_path(path);
		free(path);
	} else {
		CHECK(err && err[strlen(err) - 1] == '.', "one sentence");
	}
	free(err);
	free(s);
	return 0;
}
