/* smapfind.c: see smapfind.h. */
#include "config.h"

#include "smapfind.h"
#include "asuser.h"
#include "sourcemap.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void smap_ref_free(struct smap_ref *ref)
{
	free(ref->path);
	free(ref->data);
	ref->path = ref->data = NULL;
	ref->len = 0;
}

/* Target text in a message: safe for a terminal, and short. */
static const char *shown(const char *s, char *buf, size_t cap)
{
	return util_sanitize(s, strnlen(s, 200), buf, cap);
}

/* ---- the comment --------------------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int sourcemap_find_url(const char *text, size_t len, char **url)
{
	static const char key[] = "sourceMappingURL=";
	const size_t klen = sizeof key - 1;
	size_t i = len;

	/* from the end: the last comment that stands on a line of its own wins */
	while (i > klen + 3) {
		const char *hit = NULL;
		size_t j;
		for (j = i - klen; j >= 4; j--)
			if (text[j] == 's' && !memcmp(text + j, key, klen)) {
				hit = text + j;
				break;
			}
		if (!hit)
			return 0;
		i = j; /* next time, search before this one */
		/* "//# " or "//@ " just before, and only blanks before it on its line */
		if (!((hit[-2] == '#' || hit[-2] == '@') && hit[-1] == ' ' && hit[-3] == '/' &&
				hit[-4] == '/'))
			continue;
		size_t k = (size_t)(hit - text) - 4;
		while (k > 0 && blank(text[k - 1]))
			k--;
		if (k > 0 && text[k - 1] != '\n')
			continue;
		const char *u = hit + klen, *end = text + len, *e = u;
		while (e < end && (unsigned char)*e > ' ' && *e != 0x7f) /* no control bytes, NUL */
			e++;
		const char *t = e;
		while (t < end && blank(*t))
			t++;
		if ((t < end && *t != '\n') || e == u)
			continue; /* more text after the URL: not the comment (a string that holds one) */
		if ((size_t)(e - u) > SMAPFIND_MAX_PATH && strncmp(u, "data:", 5))
			continue;
		*url = xstrndup(u, (size_t)(e - u));
		return 1;
	}
	return 0;
}

/* ---- URLs and paths ------------------------------------------------------------------ */

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* A data: URL's map: application/json, base64 (with any parameters such as a charset). */
static int decode_data_url(const char *url, struct smap_ref *ref, char **err)
{
	const char *comma = strchr(url, ',');
	size_t mlen, n, o = 0, i;
	unsigned acc = 0;
	int bits = 0;

	if (!comma)
		return *err = xstrdup("the inline source map's data: URL has no comma."), -1;
	mlen = (size_t)(comma - url);
	if (mlen < 21 || strncasecmp(url, "data:application/json", 21) ||
			(url[21] != ';' && url[21] != ','))
		return *err = xstrdup("the inline source map is not application/json."), -1;
	if (mlen < 28 || strncasecmp(comma - 7, ";base64", 7))
		return *err = xstrdup("the inline source map is not base64."), -1;
	n = strlen(comma + 1);
	if (n / 4 * 3 > SMAPFIND_MAX_MAP_BYTES)
		return *err = xasprintf("the inline source map is larger than %zu MB.",
			SMAPFIND_MAX_MAP_BYTES >> 20), -1;
	ref->data = xmalloc(n / 4 * 3 + 4);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)comma[1 + i];
		if (c == '=')
			break;
		int v = b64val(c);
		if (v < 0) {
			smap_ref_free(ref);
			return *err = xasprintf("the inline source map has a byte that is not base64 "
				"(at %zu).", i), -1;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			ref->data[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	for (; i < n; i++)
		if (comma[1 + i] != '=') {
			smap_ref_free(ref);
			return *err = xstrdup("the inline source map has bytes after its padding."), -1;
		}
	ref->data[o] = '\0';
	ref->len = o;
	return 0;
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Normalises an absolute path of n bytes: percent-decoded when it came from a URL, "." and
 * ".." resolved, "//" collapsed. */
static int normalise(const char *in, size_t n, bool url, char **out, char **err)
{
	char *o = xmalloc(n + 2), sb[256];
	size_t len = 0, i = 0;

	if (!n || in[0] != '/') {
		free(o);
		return *err = xasprintf("%s is not an absolute path.",
			shown(in, sb, sizeof sb)), -1;
	}
	while (i < n) {
		while (i < n && in[i] == '/')
			i++;
		if (i >= n)
			break;
		size_t start = len;
		o[len++] = '/';
		while (i < n && in[i] != '/') {
			char c = in[i++];
			if (url && c == '%' && i + 1 < n && hexv(in[i]) >= 0 && hexv(in[i + 1]) >= 0) {
				c = (char)(hexv(in[i]) * 16 + hexv(in[i + 1]));
				i += 2;
			}
			if (c == '\0' || (url && c == '/')) {
				free(o);
				return *err = xasprintf("%s has an encoded NUL or slash.",
					shown(in, sb, sizeof sb)), -1;
			}
			o[len++] = c;
		}
		size_t seg = len - start - 1;
		if (seg == 1 && o[start + 1] == '.') {
			len = start;
		} else if (seg == 2 && o[start + 1] == '.' && o[start + 2] == '.') {
			if (start == 0) {
				free(o);
				return *err = xasprintf("%s leads out of the root.",
					shown(in, sb, sizeof sb)), -1;
			}
			len = start;
			while (len > 0 && o[len - 1] != '/')
				len--;
			len = len ? len - 1 : 0;
		}
	}
	if (!len)
		o[len++] = '/';
	o[len] = '\0';
	if (len > SMAPFIND_MAX_PATH) {
		free(o);
		return *err = xstrdup("the path is too long."), -1;
	}
	*out = o;
	return 0;
}

int smapfind_url_path(const char *url, char **path, char **err)
{
	char sb[256];

	if (!strncmp(url, "file://", 7)) {
		const char *p = url + 7;
		if (strncmp(p, "localhost/", 10) == 0)
			p += 9;
		size_t n = strcspn(p, "?#");
		return normalise(p, n, true, path, err);
	}
	if (url[0] == '/')
		return normalise(url, strlen(url), false, path, err);
	if (!url[0])
		return *err = xstrdup("the script has no url (evaluated code)."), -1;
	return *err = xasprintf("%s is not a file.", shown(url, sb, sizeof sb)), -1;
}

/* True if s starts with a URL scheme ("http:", "webpack:"). */
static bool has_scheme(const char *s)
{
	size_t i = 0;
	if (!((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
		return false;
	while (s[i] && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.'))
		i++;
	return s[i] == ':';
}

int smapfind_resolve(const char *script, const char *url, struct smap_ref *ref, char **err)
{
	char *spath = NULL, *joined, sb[256];
	int rc;

	memset(ref, 0, sizeof *ref);
	if (!strncasecmp(url, "data:", 5))
		return decode_data_url(url, ref, err);
	if (!strncmp(url, "file://", 7))
		return smapfind_url_path(url, &ref->path, err);
	if (has_scheme(url))
		return *err = xasprintf("the source map is at %s, which is not a file.",
			shown(url, sb, sizeof sb)), -1;
	size_t n = strcspn(url, "?#");
	if (url[0] == '/')
		return normalise(url, n, true, &ref->path, err);
	if (smapfind_url_path(script, &spath, err) < 0)
		return -1;
	/* relative to the script's directory */
	*strrchr(spath, '/') = '\0';
	joined = xasprintf("%s/%.*s", spath, (int)n, url);
	rc = normalise(joined, strlen(joined), true, &ref->path, err);
	free(joined);
	free(spath);
	return rc;
}

struct sourcemap *smapfind_load(const struct asuser *u, const char *script, char **err)
{
	struct smap_ref ref = { 0 };
	struct sourcemap *m = NULL;
	char *path = NULL, *text = NULL, *url = NULL, sb[256];
	size_t len;

	if (smapfind_url_path(script, &path, err) < 0)
		return NULL;
	if (asuser_read(u, path, 0, true, ASUSER_TIMEOUT_S, &text, &len, err) < 0)
		goto out;
	if (!sourcemap_find_url(text, len, &url) && len == SMAPFIND_TAIL_BYTES &&
			!memchr(text, '\n', len - 1)) {
		/* one long last line: perhaps an inline map whose comment starts further back */
		free(text);
		text = NULL;
		if (asuser_read(u, path, SMAPFIND_MAX_MAP_BYTES / 3 * 4 + (1 << 20), false,
				ASUSER_TIMEOUT_S, &text, &len, err) < 0)
			goto out;
		sourcemap_find_url(text, len, &url);
	}
	free(text);
	text = NULL;
	if (!url) {
		*err = xasprintf("%s has no sourceMappingURL comment.", shown(path, sb, sizeof sb));
		goto out;
	}
	if (smapfind_resolve(path, url, &ref, err) < 0)
		goto out;
	if (ref.path) {
		if (asuser_read(u, ref.path, SMAPFIND_MAX_MAP_BYTES, false, ASUSER_TIMEOUT_S,
				&ref.data, &ref.len, err) < 0)
			goto out;
	}
	m = sourcemap_parse(ref.data, ref.len, err);
	ref.data = NULL;
out:
	smap_ref_free(&ref);
	free(url);
	free(text);
	free(path);
	return m;
}
