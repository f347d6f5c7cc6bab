/* strbuf.c: see strbuf.h. */
#include "config.h"

#include "strbuf.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(struct strbuf *sb)
{
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->data);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->data)
		sb->data[0] = '\0';
}

static void strbuf_reserve(struct strbuf *sb, size_t extra)
{
	sb->data = xreallocarray_grow(sb->data, &sb->cap, sb->len + extra + 1, 1);
}

void strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
	strbuf_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
	strbuf_append(sb, s, strlen(s));
}

void strbuf_putc(struct strbuf *sb, char c)
{
	strbuf_append(sb, &c, 1);
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	strbuf_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void strbuf_json_string(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	strbuf_putc(sb, '"');
	while (i < n) {
		unsigned char c = u[i];
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			strbuf_append(sb, esc, 2);
			i++;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			char esc[2] = { '\\', c == '\n' ? 'n' : c == '\t' ? 't' : 'r' };
			strbuf_append(sb, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_printf(sb, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			strbuf_putc(sb, (char)c);
			i++;
		} else {
			/* Copy a valid UTF-8 sequence whole; anything else becomes U+FFFD. C1 controls
			 * are escaped: JSON lines end up on terminals too (tail -f). */
			size_t seq = util_utf8_seq(s + i, n - i);
			if (seq == 2 && c == 0xc2 && u[i + 1] < 0xa0) {
				strbuf_printf(sb, "\\u%04x", u[i + 1]);
				i += 2;
			} else if (seq) {
				strbuf_append(sb, s + i, seq);
				i += seq;
			} else {
				strbuf_puts(sb, "\\ufffd");
				i++;
			}
		}
	}
	strbuf_putc(sb, '"');
}

void strbuf_json_double(struct strbuf *sb, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_printf(sb, "%.0f", v);
	else
		strbuf_printf(sb, "%.3f", v);
}
