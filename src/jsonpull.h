/* jsonpull.h: a small validating JSON scanner that works on spans of one buffer, with no tree
 * and no copies. The protocol layer uses it to read a message's envelope (id, method, and
 * where params/result/error lie) without building a tree of a 30 MB profile; the CPU and heap
 * profile parsers walk their profile in one pass with its reader (struct json_reader).
 *
 * All functions treat the input as untrusted: they never read outside the span and report
 * malformed input with -1. Nesting deeper than JSON_MAX_DEPTH is malformed. */
#ifndef NTOP_JSONPULL_H
#define NTOP_JSONPULL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deep enough for V8's sampling heap profiles (a nested tree: two levels a frame, up to 128
 * frames, inside the message envelope), shallow enough to bound work on hostile input. The
 * heap profile parser relies on it to bound its tree to half as many levels. */
#define JSON_MAX_DEPTH 512

struct json_span {
	const char *p; /* first byte of the value (for a string: the opening quote) */
	size_t n;      /* length in bytes; n == 0 means absent */
};

enum json_type { JSON_T_INVALID, JSON_T_OBJECT, JSON_T_ARRAY, JSON_T_STRING, JSON_T_NUMBER,
	JSON_T_TRUE, JSON_T_FALSE, JSON_T_NULL };

/* Type of the value a span holds, from its first byte (the span must come from this module). */
enum json_type json_span_type(struct json_span v);

/* Skips whitespace and one complete, well-formed value starting at *pos; on success *pos is
 * just past it and *val (if not NULL) spans it. Returns 0, or -1 if malformed. */
int json_next_value(const char *buf, size_t len, size_t *pos, struct json_span *val);

/* Checks that [buf, buf+len) holds exactly one well-formed value (whitespace around it is fine). */
int json_validate(const char *buf, size_t len, struct json_span *val);

/* Iterates the members of an object: *pos starts at 0 (meaning "at the opening brace").
 * Returns 1 and sets key (the raw quoted key) and val, 0 at the end, -1 if malformed. */
int json_object_next(struct json_span obj, size_t *pos, struct json_span *key, struct json_span *val);
/* Iterates the elements of an array the same way. */
int json_array_next(struct json_span arr, size_t *pos, struct json_span *val);

/* Finds member key (an unescaped C string) in object obj. 1 found, 0 absent, -1 malformed. */
int json_object_get(struct json_span obj, const char *key, struct json_span *val);

/* True if v is a string equal to s (escapes in v are honoured). */
bool json_string_eq(struct json_span v, const char *s);
/* Decodes string v into a new NUL-terminated buffer (\u escapes become UTF-8; a lone surrogate
 * becomes U+FFFD). Returns 0, or -1 if v is not a valid string. *out_len may be NULL. */
int json_string_decode(struct json_span v, char **out, size_t *out_len);
/* A buffer for decoded strings, reused from one string to the next. */
struct json_scratch {
	char *buf;
	size_t cap;
};

/* The decoded text of string span v (validated by this module): the input bytes themselves
 * when it has no escape, else decoded into s, which grows as needed. Not NUL-terminated. */
void json_string_text(struct json_span v, struct json_scratch *s, const char **text, size_t *len);

/* The value of hex digit c, or -1; shared with sourcemap.c's percent-decoding. */
int json_hex_value(char c);

/* Reads number v as a double. Returns 0, or -1 if v is not a number. */
int json_number(struct json_span v, double *out);

/* Decodes string v into out, which must hold at least v.n bytes (a decoded string is never
 * longer than its raw form); no NUL is added. Returns the decoded length, or -1 if v is not a
 * valid string. For callers that decode many strings into one reusable buffer. */
long json_string_decode_into(struct json_span v, char *out);

/* A pull cursor over one buffer, for callers that walk a large document once (the profile
 * parser) and must not scan a container twice just to learn where it ends. Every byte is
 * validated as it is consumed; a caller that stops early has validated only what it read. */
struct json_pull {
	const char *buf;
	size_t len;
	size_t pos;
	int depth;        /* open containers */
	uint64_t is_obj[JSON_MAX_DEPTH / 64]; /* bit d-1: the container at depth d is an object */
	uint64_t more[JSON_MAX_DEPTH / 64];   /* bit d-1: it has an element already, a comma is due */
};

void json_pull_init(struct json_pull *jp, const char *buf, size_t len);
/* Skips whitespace and returns the type of the next value, without consuming it
 * (JSON_T_INVALID at the end of the buffer or on a byte that cannot start a value). */
enum json_type json_pull_peek(struct json_pull *jp);
/* Consumes '{'. Returns 0, or -1 if the next value is not an object or nesting is too deep. */
int json_pull_object_begin(struct json_pull *jp);
/* Reads the next member's key and its ':' (the cursor is then at the value, which the caller
 * must consume). Returns 1, 0 after consuming the closing '}', -1 if malformed. */
int json_pull_object_next(struct json_pull *jp, struct json_span *key);
int json_pull_array_begin(struct json_pull *jp);
/* Returns 1 when an element follows (the caller must consume it), 0 after consuming ']'. */
int json_pull_array_next(struct json_pull *jp);
/* Consume one scalar of the given kind; -1 if the next value is something else. */
int json_pull_number(struct json_pull *jp, double *out);
int json_pull_string(struct json_pull *jp, struct json_span *out);
/* A fast path for long arrays of integers (samples, timeDeltas): between two elements of an
 * array (just after json_pull_array_begin() or after consuming an element, not after
 * json_pull_array_next() returned 1), reads the following elements while they are plain
 * integers of at most 18 digits, with no whitespace, fraction or exponent, into out (at most
 * max of them), and returns how many it read. It stops, without consuming, at anything else,
 * which the caller then reads the usual way (json_pull_array_next() and friends), so it never
 * changes what is accepted. */
size_t json_pull_int_run(struct json_pull *jp, int64_t *out, size_t max);
/* Consumes (and validates) any one value; out may be NULL. */
int json_pull_value(struct json_pull *jp, struct json_span *out);
/* Returns 0 if every container is closed and only whitespace is left, else -1. */
int json_pull_finish(struct json_pull *jp);

/* A member key's text for matching against known names, when its raw bytes did not match:
 * the decoded key in buf (which holds bufsz bytes), for a key with escapes (legal JSON, though
 * V8 never writes one). Returns the decoded length, or -1 when there is nothing more to try:
 * no escape (the raw bytes were the text), longer than buf, or not a valid string. */
long json_key_unescape(struct json_span key, char *buf, size_t bufsz);

/* Which known key k (a raw quoted key) is, by match (the key's text and length -> a code, or
 * other): the raw bytes are tried first, as V8 never escapes keys; only a key that misses is
 * unescaped (up to 127 bytes) and tried again. */
int json_key_match(struct json_span k, int (*match)(const char *s, size_t n), int other);

/* A reader: the pull cursor as the profile parsers drive it. Data from the target is untrusted,
 * so every read names the type it expects, and the first failure becomes the one sentence the
 * user sees, after what the document is ("invalid heap profile: selfSize is not a number (byte
 * 212)"); later failures, on the way out, keep it. Byte offsets count from buf. */
struct json_reader {
	struct json_pull jp;
	const char *doc; /* "invalid profile" */
	char *err;       /* the first failure's sentence, or NULL; the caller frees it */
};

void json_reader_init(struct json_reader *r, const char *buf, size_t len, const char *doc);
/* Records a failure, if it is the first, and returns -1. */
int json_reader_fail(struct json_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records that the cursor stopped on bad JSON, saying which: the input ends (truncated), it
 * nests deeper than JSON_MAX_DEPTH, or it is malformed. Returns -1. */
int json_reader_fail_json(struct json_reader *r);

/* Each read returns -1 with a sentence on failure; `what` names the field in it. */

/* Opens the document, which must be an object ("not a JSON object" otherwise). */
int json_read_begin(struct json_reader *r);
/* After the document's object: nothing but whitespace may follow. */
int json_read_end(struct json_reader *r);
/* Opens the object or array at the cursor ("WHAT is not an object (byte N)"). */
int json_read_object(struct json_reader *r, const char *what);
int json_read_array(struct json_reader *r, const char *what);
/* The next member of the innermost object: 1 with its raw key (the cursor is then at the
 * value, which the caller must consume), 0 after its closing brace. */
int json_read_member(struct json_reader *r, struct json_span *key);
/* The next element of the innermost array: 1 when one follows, 0 after the closing bracket. */
int json_read_element(struct json_reader *r);
int json_read_string(struct json_reader *r, struct json_span *out, const char *what);
/* A finite number. */
int json_read_number(struct json_reader *r, double *out, const char *what);
/* An integer in [lo, hi] (bounds within ±2^63). */
int json_read_int(struct json_reader *r, double lo, double hi, double *out, const char *what);
/* Consumes (and validates) any one value: a member nobody asked for. */
int json_read_skip(struct json_reader *r);

/* The envelope of an inspector protocol message: a reply has an id and a result or an
 * error; an event has a method and params. Spans that are absent have n == 0. */
struct protocol_msg {
	bool has_id;
	long long id;
	struct json_span method; /* raw quoted string */
	struct json_span params;
	struct json_span result;
	struct json_span error;
};

/* Validates the whole message and fills m. Returns 0, or -1 if it is not a JSON object or
 * its id is not an integer. */
int json_envelope_parse(const char *buf, size_t len, struct protocol_msg *m);

#endif
