/* strbuf.h: a growable byte buffer, always NUL-terminated. */
#ifndef NTOP_STRBUF_H
#define NTOP_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *data; /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
};

void strbuf_init(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_append(struct strbuf *sb, const char *s, size_t n);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted JSON string; control characters are escaped and invalid UTF-8 is
 * replaced with U+FFFD, so the output is always valid JSON. */
void strbuf_json_string(struct strbuf *sb, const char *s, size_t n);
/* Appends a JSON number; non-finite values become 0. */
void strbuf_json_double(struct strbuf *sb, double v);

#endif
