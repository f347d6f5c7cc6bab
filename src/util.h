/* util.h: allocation that never returns NULL, and small helpers shared by every module.
 *
 * Allocation failure is fatal: util_die() runs the registered cleanup hook (the terminal
 * layer restores the screen there) before printing one sentence and exiting. */
#ifndef NTOP_UTIL_H
#define NTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (an array of *cap elements of size elem) so that it holds at least need. */
void *xreallocarray_grow(void *p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Called once before a fatal exit (restore the terminal, close the target session). */
void util_set_die_hook(void (*hook)(void));
_Noreturn void util_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic and wall clocks. */
double util_now_mono_s(void);
/* Sleeps s seconds, through signals. */
void util_sleep_s(double s);
double util_now_wall_s(void);

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0 if there is none. */
size_t util_utf8_seq(const char *s, size_t n);

/* Copies text from the target into out (NUL-terminated, at most outsz-1 bytes) so that it is
 * safe for a terminal: control characters and invalid UTF-8 become '?'. Returns out. */
char *util_sanitize(const char *in, size_t len, char *out, size_t outsz);

/* Strips a file:// prefix (and percent-decoding of the path is not attempted). */
const char *util_display_url(const char *url);

/* A 64-bit finalizer (MurmurHash3's fmix64): spreads a key's bits for the hash tables. */
static inline uint64_t util_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif
