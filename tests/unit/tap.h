/* tap.h: the unit tests' harness: TAP output in a handful of macros. */
#ifndef NTOP_TAP_H
#define NTOP_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do { \
	int ok_c_ = (cond) ? 1 : 0; \
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!ok_c_) { tap_failed++; printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	ok(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define is_num(got, want, tol, ...) do { \
	double g_ = (double)(got), w_ = (double)(want); \
	ok(fabs(g_ - w_) <= (tol), __VA_ARGS__); \
	if (!(fabs(g_ - w_) <= (tol))) printf("#   got %.6g, want %.6g\n", g_, w_); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int same_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	ok(same_, __VA_ARGS__); \
	if (!same_) printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define done_testing() (printf("1..%d\n", tap_n), tap_failed ? 1 : 0)

#endif
