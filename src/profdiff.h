/* profdiff.h: two CPU profiles compared function by function (ntop-js --diff A B).
 *
 * Each profile is aggregated on its own (aggregate.h: self and total time per function over
 * the whole profile) into its own function table. A function of A and one of B are the same
 * when their name, url and line (and column, where both have one) agree; what is left is
 * matched by name and url (an edited file moves functions to other lines: then the pairs go in
 * line order; an unknown line moves nothing), then by name and the url's last component (the
 * same program under another directory: moved), else it is A's alone ("gone") or B's ("new"). Shares are of each profile's busy time: every sample but (idle).
 * Pure data: no I/O. */
#ifndef NTOP_PROFDIFF_H
#define NTOP_PROFDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct functab;
struct window_stats;

#define PROFDIFF_NONE UINT32_MAX

enum profdiff_match {
	PROFDIFF_SAME,  /* name, url and line */
	PROFDIFF_MOVED, /* name and url at another line, or name in another directory */
	PROFDIFF_GONE,  /* in A only */
	PROFDIFF_NEW,   /* in B only */
};

struct profdiff_row {
	uint32_t fa, fb;        /* the function in A's and B's table, or PROFDIFF_NONE */
	enum profdiff_match match;
	double self_a, self_b;  /* % of the profile's busy time */
	double total_a, total_b;
	double self_ms_a, self_ms_b;
};

struct profdiff {
	struct profdiff_row *rows; /* by the size of the self share's change, largest first */
	size_t n;
	double busy_ms_a, busy_ms_b;
	size_t samples_a, samples_b;
};

/* Compares a (aggregated with fta) with b (with ftb) into out, which profdiff_free releases.
 * Functions under min_pct of busy time in both, self and total, are left out. */
void profdiff_compute(const struct window_stats *a, const struct functab *fta,
	const struct window_stats *b, const struct functab *ftb, double min_pct,
	struct profdiff *out);
void profdiff_free(struct profdiff *d);

#endif
