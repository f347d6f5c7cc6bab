/* fuzz_check.h: what every fuzz target checks with. Define FUZZ_TARGET (its name, a string)
 * before including. A failed CHECK prints the target, the condition and a message, and aborts:
 * libFuzzer keeps the input as a crash. */
#ifndef NTOP_FUZZ_CHECK_H
#define NTOP_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, FUZZ_TARGET ": check failed: %s: ", #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* A string bound for a terminal: NUL-terminated within its array of cap bytes, no C0
 * control byte or DEL. */
static inline void check_clean(const char *s, size_t cap)
{
	const char *z = memchr(s, '\0', cap);

	CHECK(z != NULL, "not NUL-terminated");
	for (const char *p = s; p < z; p++)
		CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte 0x%02x", (unsigned char)*p);
}

#endif
