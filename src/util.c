/* util.c: see util.h. */
#include "config.h"

#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void (*die_hook)(void);

void util_set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

void util_die(int status, const char *fmt, ...)
{
	va_list ap;
	void (*hook)(void) = die_hook;

	die_hook = NULL; /* a failure inside the hook must not recurse */
	if (hook)
		hook();
	fputs("ntop-js: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void out_of_memory(size_t n)
{
	util_die(1, "out of memory (allocating %zu bytes).", n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

void *xreallocarray_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap;

	if (need <= c)
		return p;
	if (c < 16)
		c = 16;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			out_of_memory(SIZE_MAX);
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		out_of_memory(SIZE_MAX);
	p = xrealloc(p, c * elem);
	*cap = c;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		util_die(1, "cannot format a message.");
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void util_sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

double util_now_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double util_now_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t util_utf8_seq(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

char *util_sanitize(const char *in, size_t len, char *out, size_t outsz)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;

	if (outsz == 0)
		return out;
	while (i < len && o + 1 < outsz) {
		size_t n = util_utf8_seq(in + i, len - i);
		if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f))
			n = 0;
		/* C1 controls (U+0080..U+009F) act as escapes on some terminals. */
		if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			n = 0;
		if (n == 0) {
			out[o++] = '?';
			i++;
			continue;
		}
		if (o + n >= outsz)
			break;
		memcpy(out + o, s + i, n);
		o += n;
		i += n;
	}
	out[o] = '\0';
	return out;
}

const char *util_display_url(const char *url)
{
	if (strncmp(url, "file://", 7) == 0)
		return url + 7;
	return url;
}
