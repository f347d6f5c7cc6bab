/* report_diff.h: ntop-js --diff A B's output: a text table or one JSON object (profdiff.h).
 * Names and urls are untrusted (they come from the files): sanitised in text, escaped in
 * JSON. The JSON keys are a public interface documented in ntop-js.1. */
#ifndef NTOP_REPORT_DIFF_H
#define NTOP_REPORT_DIFF_H

#include <stddef.h>

struct strbuf;
struct functab;
struct profdiff;

/* The two files as the user named them, the comparison, and each side's function table. */
struct report_diff {
	const char *file_a, *file_b;
	const struct profdiff *d;
	const struct functab *fta, *ftb;
};

/* At most top rows (0: all), largest change of self share first. */
void report_diff_text(struct strbuf *out, const struct report_diff *r, size_t top);
void report_diff_json(struct strbuf *out, const struct report_diff *r);

#endif
