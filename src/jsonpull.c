/* jsonpull.c: see jsonpull.h.
 *
 * Everything is iterative: nesting is tracked in a stack of "is object" bits, so hostile
 * input cannot exhaust the C stack. Strings are scanned 8 bytes at a time until a quote, a
 * backslash, a control or a non-ASCII byte shows up; numbers are converted while they are
 * scanned, without strtod() for the common exact cases and without allocating. */
#include "config.h"

#include "jsonpull.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static inline bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline size_t skip_ws(const char *b, size_t len, size_t p)
{
	while (p < len && is_ws((unsigned char)b[p]))
		p++;
	return p;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int json_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int h = json_hex_value(s[i]);
		if (h < 0)
			return -1;
		v = (v << 4) | (unsigned)h;
	}
	*out = v;
	return 0;
}

/* The type of value each byte can start, for a switch-free peek. */
static const unsigned char type_of_table[256] = {
	['{'] = JSON_T_OBJECT, ['['] = JSON_T_ARRAY, ['"'] = JSON_T_STRING, ['t'] = JSON_T_TRUE,
	['f'] = JSON_T_FALSE, ['n'] = JSON_T_NULL, ['-'] = JSON_T_NUMBER, ['0'] = JSON_T_NUMBER,
	['1'] = JSON_T_NUMBER, ['2'] = JSON_T_NUMBER, ['3'] = JSON_T_NUMBER, ['4'] = JSON_T_NUMBER,
	['5'] = JSON_T_NUMBER, ['6'] = JSON_T_NUMBER, ['7'] = JSON_T_NUMBER, ['8'] = JSON_T_NUMBER,
	['9'] = JSON_T_NUMBER,
};

static inline enum json_type type_of_byte(char c)
{
	return (enum json_type)type_of_table[(unsigned char)c];
}

enum json_type json_span_type(struct json_span v)
{
	return v.n && v.p ? type_of_byte(v.p[0]) : JSON_T_INVALID;
}

/* Scans the string whose opening quote is at *pos; *pos ends just past the closing quote. */
static int scan_string(const char *b, size_t len, size_t *pos)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t p = *pos + 1;

	for (;;) {
		/* A word with none of: '"', '\\', a byte < 0x20, a byte >= 0x80. Borrows can only
		 * flag bytes above a real match, so a flagged word always holds a special byte. */
		while (p + 8 <= len) {
			uint64_t w, q, s;
			memcpy(&w, b + p, 8);
			q = w ^ (ones * '"');
			s = w ^ (ones * '\\');
			uint64_t m = (((q - ones) & ~q) | ((s - ones) & ~s) | ((w - ones * 0x20) & ~w) | w) &
				highs;
			if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				p += (size_t)__builtin_ctzll(m) >> 3; /* the lowest flag is always real */
#endif
				break;
			}
			p += 8;
		}
		if (p >= len)
			return -1;
		unsigned char c = (unsigned char)b[p];
		if (c == '"') {
			*pos = p + 1;
			return 0;
		} else if (c == '\\') {
			unsigned u;
			if (p + 1 >= len)
				return -1;
			switch (b[p + 1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				p += 2;
				break;
			case 'u':
				if (len - p < 6 || hex4(b + p + 2, &u))
					return -1;
				p += 6;
				break;
			default:
				return -1;
			}
		} else if (c < 0x20) {
			return -1;
		} else if (c >= 0x80) {
			size_t n = util_utf8_seq(b + p, len - p);
			if (!n)
				return -1;
			p += n;
		} else {
			p++;
		}
	}
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The rare number that the exact fast path cannot convert: hand a NUL-terminated copy to
 * strtod (the span itself is not NUL-terminated). */
static double number_slow(const char *s, size_t n)
{
	char small[128];
	char *tmp = n < sizeof(small) ? small : xmalloc(n + 1);
	double v;

	memcpy(tmp, s, n);
	tmp[n] = '\0';
	v = strtod(tmp, NULL);
	if (tmp != small)
		free(tmp);
	return v;
}

/* Scans an RFC 8259 number at *pos and, if out is not NULL, converts it. */
static int scan_number(const char *b, size_t len, size_t *pos, double *out)
{
	size_t p = *pos, start = p;
	bool neg = false, exact = true;
	uint64_t mant = 0;
	int ndig = 0;  /* significant digits in mant */
	long exp10 = 0;

	if (p < len && b[p] == '-') {
		neg = true;
		p++;
	}
	if (p >= len)
		return -1;
	if (b[p] == '0') {
		p++;
	} else if (b[p] >= '1' && b[p] <= '9') {
		for (; p < len && is_digit(b[p]); p++) {
			if (ndig < 19) {
				mant = mant * 10 + (uint64_t)(b[p] - '0');
				ndig++;
			} else {
				exact = false;
			}
		}
	} else {
		return -1;
	}
	if (p < len && b[p] == '.') {
		p++;
		if (p >= len || !is_digit(b[p]))
			return -1;
		for (; p < len && is_digit(b[p]); p++) {
			if (ndig < 19) {
				mant = mant * 10 + (uint64_t)(b[p] - '0');
				if (mant)
					ndig++;
				exp10--;
			} else {
				exact = false;
			}
		}
	}
	if (p < len && (b[p] == 'e' || b[p] == 'E')) {
		bool eneg = false;
		long e = 0;
		p++;
		if (p < len && (b[p] == '+' || b[p] == '-'))
			eneg = b[p++] == '-';
		if (p >= len || !is_digit(b[p]))
			return -1;
		for (; p < len && is_digit(b[p]); p++)
			if (e < 100000)
				e = e * 10 + (b[p] - '0');
		exp10 += eneg ? -e : e;
	}
	*pos = p;
	if (!out)
		return 0;
	if (exact && exp10 == 0) {
		*out = (double)mant; /* an exact integer: the conversion rounds correctly */
	} else if (exact && mant <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
		/* both operands exact, so one IEEE operation gives the correctly rounded result */
		*out = exp10 < 0 ? (double)mant / pow10_exact[-exp10] : (double)mant * pow10_exact[exp10];
	} else {
		*out = number_slow(b + start, p - start);
		return 0;
	}
	if (neg)
		*out = -*out;
	return 0;
}

static int scan_literal(const char *b, size_t len, size_t *pos)
{
	static const char *const lits[] = {"true", "false", "null"};
	size_t p = *pos;

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		if (b[p] == lits[i][0]) {
			if (len - p < n || memcmp(b + p, lits[i], n) != 0)
				return -1;
			*pos = p + n;
			return 0;
		}
	}
	return -1;
}

/* Reads `"key" :` and leaves *pos at the member's value; the key's span is optional. */
static int scan_member_key(const char *b, size_t len, size_t *pos, struct json_span *key)
{
	size_t p = skip_ws(b, len, *pos), start = p;

	if (p >= len || b[p] != '"' || scan_string(b, len, &p))
		return -1;
	if (key)
		*key = (struct json_span){b + start, p - start};
	p = skip_ws(b, len, p);
	if (p >= len || b[p] != ':')
		return -1;
	*pos = p + 1;
	return 0;
}

/* Bit d of a container stack (one bit per open container). */
static inline bool bits_get(const uint64_t *bits, int d)
{
	return (bits[d >> 6] >> (d & 63)) & 1;
}

static inline void bits_put(uint64_t *bits, int d, bool v)
{
	uint64_t m = 1ull << (d & 63);

	bits[d >> 6] = v ? bits[d >> 6] | m : bits[d >> 6] & ~m;
}

/* Scans one complete value starting at *pos (whitespace first), with depth0 containers
 * already open around it. Iterative: the container stack is an array of bits. */
static int scan_value(const char *b, size_t len, size_t *pos, int depth0)
{
	uint64_t is_obj[JSON_MAX_DEPTH / 64] = { 0 };
	int depth = 0;
	size_t p = *pos;

	for (;;) {
		p = skip_ws(b, len, p);
		if (p >= len)
			return -1;
		switch (b[p]) {
		case '{':
		case '[': {
			bool obj = b[p] == '{';
			if (depth0 + depth + 1 > JSON_MAX_DEPTH)
				return -1;
			p = skip_ws(b, len, p + 1);
			if (p >= len)
				return -1;
			if (b[p] == (obj ? '}' : ']')) {
				p++;
				break; /* an empty container is a complete value */
			}
			bits_put(is_obj, depth, obj);
			depth++;
			if (obj && scan_member_key(b, len, &p, NULL))
				return -1;
			continue;
		}
		case '"':
			if (scan_string(b, len, &p))
				return -1;
			break;
		case 't': case 'f': case 'n':
			if (scan_literal(b, len, &p))
				return -1;
			break;
		default:
			if (b[p] != '-' && !is_digit(b[p]))
				return -1;
			if (scan_number(b, len, &p, NULL))
				return -1;
			break;
		}
		/* after a value: close containers, or step to the next element */
		for (;;) {
			if (depth == 0) {
				*pos = p;
				return 0;
			}
			p = skip_ws(b, len, p);
			if (p >= len)
				return -1;
			bool obj = bits_get(is_obj, depth - 1);
			if (b[p] == ',') {
				p++;
				if (obj && scan_member_key(b, len, &p, NULL))
					return -1;
				break;
			}
			if (b[p] != (obj ? '}' : ']'))
				return -1;
			p++;
			depth--;
		}
	}
}

int json_next_value(const char *buf, size_t len, size_t *pos, struct json_span *val)
{
	size_t p = skip_ws(buf, len, *pos), start = p;

	if (scan_value(buf, len, &p, 0))
		return -1;
	if (val)
		*val = (struct json_span){buf + start, p - start};
	*pos = p;
	return 0;
}

int json_validate(const char *buf, size_t len, struct json_span *val)
{
	size_t pos = 0;

	if (json_next_value(buf, len, &pos, val))
		return -1;
	return skip_ws(buf, len, pos) == len ? 0 : -1;
}

/* Shared by the object and array iterators: *pos == 0 means "at the opening bracket". */
static int container_next(struct json_span c, char open, char close, size_t *pos,
	struct json_span *key, struct json_span *val)
{
	const char *b = c.p;
	size_t len = c.n, p = *pos, start;
	bool first = p == 0;

	if (first) {
		if (len == 0 || b[0] != open)
			return -1;
		p = 1;
	}
	p = skip_ws(b, len, p);
	if (p >= len)
		return -1;
	if (b[p] == close) {
		*pos = p; /* stay on the bracket: further calls keep returning 0 */
		return 0;
	}
	if (!first) {
		if (b[p] != ',')
			return -1;
		p++;
	}
	if (key && scan_member_key(b, len, &p, key))
		return -1;
	p = skip_ws(b, len, p);
	start = p;
	if (scan_value(b, len, &p, 1))
		return -1;
	if (val)
		*val = (struct json_span){b + start, p - start};
	*pos = p;
	return 1;
}

int json_object_next(struct json_span obj, size_t *pos, struct json_span *key, struct json_span *val)
{
	struct json_span k;
	return container_next(obj, '{', '}', pos, key ? key : &k, val);
}

int json_array_next(struct json_span arr, size_t *pos, struct json_span *val)
{
	return container_next(arr, '[', ']', pos, NULL, val);
}

int json_object_get(struct json_span obj, const char *key, struct json_span *val)
{
	struct json_span k, v;
	size_t pos = 0;
	int r;

	while ((r = json_object_next(obj, &pos, &k, &v)) == 1) {
		if (json_string_eq(k, key)) {
			if (val)
				*val = v;
			return 1;
		}
	}
	return r;
}

static size_t utf8_put(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

long json_string_decode_into(struct json_span v, char *out)
{
	const char *b = v.p;
	size_t n = v.n, i = 1, o = 0;

	if (n < 2 || !b || b[0] != '"' || b[n - 1] != '"')
		return -1;
	n--; /* the closing quote */
	while (i < n) {
		unsigned char c = (unsigned char)b[i];
		if (c == '\\') {
			unsigned u, lo;
			if (i + 1 >= n)
				return -1;
			switch (b[i + 1]) {
			case '"': out[o++] = '"'; break;
			case '\\': out[o++] = '\\'; break;
			case '/': out[o++] = '/'; break;
			case 'b': out[o++] = '\b'; break;
			case 'f': out[o++] = '\f'; break;
			case 'n': out[o++] = '\n'; break;
			case 'r': out[o++] = '\r'; break;
			case 't': out[o++] = '\t'; break;
			case 'u':
				if (n - i < 6 || hex4(b + i + 2, &u))
					return -1;
				i += 6;
				if (u >= 0xd800 && u <= 0xdbff && n - i >= 6 && b[i] == '\\' &&
				    b[i + 1] == 'u' && hex4(b + i + 2, &lo) == 0 && lo >= 0xdc00 &&
				    lo <= 0xdfff) {
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				} else if (u >= 0xd800 && u <= 0xdfff) {
					u = 0xfffd; /* a lone surrogate has no UTF-8 form */
				}
				o += utf8_put(out + o, u);
				continue;
			default:
				return -1;
			}
			i += 2;
		} else if (c == '"' || c < 0x20) {
			return -1;
		} else if (c >= 0x80) {
			size_t k = util_utf8_seq(b + i, n - i);
			if (!k)
				return -1;
			memcpy(out + o, b + i, k);
			o += k;
			i += k;
		} else {
			out[o++] = (char)c;
			i++;
		}
	}
	return (long)o;
}

int json_string_decode(struct json_span v, char **out, size_t *out_len)
{
	char *buf;
	long n;

	if (v.n < 2)
		return -1;
	buf = xmalloc(v.n);
	n = json_string_decode_into(v, buf);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	if (out_len)
		*out_len = (size_t)n;
	return 0;
}

bool json_string_eq(struct json_span v, const char *s)
{
	size_t slen = strlen(s);
	char small[256];
	char *buf;
	long n;
	bool eq;

	if (v.n < 2 || !v.p || v.p[0] != '"' || v.p[v.n - 1] != '"')
		return false;
	if (!memchr(v.p + 1, '\\', v.n - 2))
		return v.n - 2 == slen && memcmp(v.p + 1, s, slen) == 0;
	if (v.n - 2 < slen)
		return false; /* escapes only shrink a string */
	buf = v.n <= sizeof(small) ? small : xmalloc(v.n);
	n = json_string_decode_into(v, buf);
	eq = n >= 0 && (size_t)n == slen && memcmp(buf, s, slen) == 0;
	if (buf != small)
		free(buf);
	return eq;
}

int json_number(struct json_span v, double *out)
{
	size_t p = 0;
	double d;

	if (json_span_type(v) != JSON_T_NUMBER || scan_number(v.p, v.n, &p, &d) || p != v.n)
		return -1;
	*out = d;
	return 0;
}

/* The pull cursor. */

void json_pull_init(struct json_pull *jp, const char *buf, size_t len)
{
	memset(jp, 0, sizeof(*jp));
	jp->buf = buf;
	jp->len = len;
}

static inline enum json_type pull_peek(struct json_pull *jp)
{
	size_t p = jp->pos;

	if (p < jp->len && !is_ws((unsigned char)jp->buf[p]))
		return type_of_byte(jp->buf[p]); /* the usual case: V8 sends no whitespace */
	jp->pos = p = skip_ws(jp->buf, jp->len, p);
	return p < jp->len ? type_of_byte(jp->buf[p]) : JSON_T_INVALID;
}

enum json_type json_pull_peek(struct json_pull *jp)
{
	return pull_peek(jp);
}

static int pull_begin(struct json_pull *jp, enum json_type t)
{
	if (pull_peek(jp) != t || jp->depth >= JSON_MAX_DEPTH)
		return -1;
	jp->pos++;
	jp->depth++;
	bits_put(jp->is_obj, jp->depth - 1, t == JSON_T_OBJECT);
	bits_put(jp->more, jp->depth - 1, false);
	return 0;
}

int json_pull_object_begin(struct json_pull *jp)
{
	return pull_begin(jp, JSON_T_OBJECT);
}

int json_pull_array_begin(struct json_pull *jp)
{
	return pull_begin(jp, JSON_T_ARRAY);
}

/* Steps to the next element of the innermost container: 1 at an element (past the comma),
 * 0 after consuming the closing bracket. */
static int pull_next(struct json_pull *jp, bool obj)
{
	size_t p;

	if (jp->depth == 0)
		return -1;
	if (bits_get(jp->is_obj, jp->depth - 1) != obj)
		return -1;
	p = skip_ws(jp->buf, jp->len, jp->pos);
	if (p >= jp->len)
		return -1;
	if (jp->buf[p] == (obj ? '}' : ']')) {
		jp->pos = p + 1;
		jp->depth--;
		return 0;
	}
	if (bits_get(jp->more, jp->depth - 1)) {
		if (jp->buf[p] != ',')
			return -1;
		p++;
	} else {
		bits_put(jp->more, jp->depth - 1, true);
	}
	jp->pos = p;
	return 1;
}

int json_pull_object_next(struct json_pull *jp, struct json_span *key)
{
	int r = pull_next(jp, true);

	if (r != 1)
		return r;
	return scan_member_key(jp->buf, jp->len, &jp->pos, key) ? -1 : 1;
}

int json_pull_array_next(struct json_pull *jp)
{
	return pull_next(jp, false);
}

int json_pull_number(struct json_pull *jp, double *out)
{
	double d;

	if (pull_peek(jp) != JSON_T_NUMBER)
		return -1;
	return scan_number(jp->buf, jp->len, &jp->pos, out ? out : &d);
}

int json_pull_string(struct json_pull *jp, struct json_span *out)
{
	size_t start;

	if (pull_peek(jp) != JSON_T_STRING)
		return -1;
	start = jp->pos;
	if (scan_string(jp->buf, jp->len, &jp->pos))
		return -1;
	if (out)
		*out = (struct json_span){jp->buf + start, jp->pos - start};
	return 0;
}

size_t json_pull_int_run(struct json_pull *jp, int64_t *out, size_t max)
{
	const char *b = jp->buf;
	size_t len = jp->len, p = jp->pos, n = 0;
	bool more;

	if (jp->depth == 0)
		return 0;
	if (bits_get(jp->is_obj, jp->depth - 1))
		return 0;
	more = bits_get(jp->more, jp->depth - 1);
	while (n < max) {
		size_t q = p, start;
		bool neg = false;
		int64_t v = 0;

		if (more) {
			if (q >= len || b[q] != ',')
				break;
			q++;
		}
		if (q < len && b[q] == '-') {
			neg = true;
			q++;
		}
		if (q >= len || !is_digit(b[q]))
			break;
		start = q;
		if (b[q] == '0')
			q++;
		else
			while (q < len && is_digit(b[q]) && q - start < 18)
				v = v * 10 + (b[q++] - '0');
		/* a longer number, a fraction, whitespace...: the general path decides */
		if (q >= len || (b[q] != ',' && b[q] != ']'))
			break;
		out[n++] = neg ? -v : v;
		p = q;
		more = true;
	}
	if (n) {
		jp->pos = p;
		bits_put(jp->more, jp->depth - 1, true);
	}
	return n;
}

int json_pull_value(struct json_pull *jp, struct json_span *out)
{
	size_t start;

	if (pull_peek(jp) == JSON_T_INVALID)
		return -1;
	start = jp->pos;
	if (scan_value(jp->buf, jp->len, &jp->pos, jp->depth))
		return -1;
	if (out)
		*out = (struct json_span){jp->buf + start, jp->pos - start};
	return 0;
}

int json_pull_finish(struct json_pull *jp)
{
	if (jp->depth != 0)
		return -1;
	jp->pos = skip_ws(jp->buf, jp->len, jp->pos);
	return jp->pos == jp->len ? 0 : -1;
}

/* Inspector envelopes. */

int json_envelope_parse(const char *buf, size_t len, struct protocol_msg *m)
{
	struct json_pull jp;
	struct json_span key, v;
	int r;

	memset(m, 0, sizeof(*m));
	json_pull_init(&jp, buf, len);
	if (json_pull_object_begin(&jp))
		goto bad;
	while ((r = json_pull_object_next(&jp, &key)) == 1) {
		if (json_pull_value(&jp, &v))
			goto bad;
		if (json_string_eq(key, "id")) {
			double d;
			if (json_number(v, &d) || d != floor(d) || fabs(d) > 9007199254740992.0)
				goto bad;
			m->has_id = true;
			m->id = (long long)d;
		} else if (json_string_eq(key, "method")) {
			if (json_span_type(v) != JSON_T_STRING)
				goto bad;
			m->method = v;
		} else if (json_string_eq(key, "params")) {
			m->params = v;
		} else if (json_string_eq(key, "result")) {
			m->result = v;
		} else if (json_string_eq(key, "error")) {
			m->error = v;
		}
	}
	if (r < 0 || json_pull_finish(&jp))
		goto bad;
	return 0;
bad:
	memset(m, 0, sizeof(*m));
	return -1;
}

void json_string_text(struct json_span v, struct json_scratch *s, const char **text, size_t *len)
{
	long n;

	if (v.n < 2) {
		*text = "";
		*len = 0;
		return;
	}
	if (!memchr(v.p + 1, '\\', v.n - 2)) {
		*text = v.p + 1;
		*len = v.n - 2;
		return;
	}
	if (s->cap < v.n) {
		free(s->buf);
		s->cap = v.n;
		s->buf = xmalloc(s->cap);
	}
	n = json_string_decode_into(v, s->buf);
	*text = s->buf;
	*len = n < 0 ? 0 : (size_t)n;
}

long json_key_unescape(struct json_span key, char *buf, size_t bufsz)
{
	if (key.n < 2 || key.n > bufsz || !memchr(key.p + 1, '\\', key.n - 2))
		return -1;
	return json_string_decode_into(key, buf);
}

int json_key_match(struct json_span k, int (*match)(const char *s, size_t n), int other)
{
	int r = match(k.p + 1, k.n - 2);
	char buf[128];
	long n;

	if (r == other && (n = json_key_unescape(k, buf, sizeof(buf))) >= 0)
		r = match(buf, (size_t)n);
	return r;
}

/* The reader. */

void json_reader_init(struct json_reader *r, const char *buf, size_t len, const char *doc)
{
	json_pull_init(&r->jp, buf, buf ? len : 0);
	r->doc = doc;
	r->err = NULL;
}

int json_reader_fail(struct json_reader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->err = xasprintf("%s: %s", r->doc, msg);
	return -1;
}

/* Whether the token at p (a key with its ':', a string, number or literal) runs into the end
 * of the input, so that the input was cut there rather than being malformed. */
static bool token_cut(const char *b, size_t len, size_t p)
{
	if (p >= len)
		return true;
	if (b[p] == '"') {
		for (p++; p < len && b[p] != '"'; p++)
			if (b[p] == '\\')
				p++;
		return p >= len || skip_ws(b, len, p + 1) >= len;
	}
	while (p < len && (is_digit(b[p]) || (b[p] >= 'a' && b[p] <= 'z') || b[p] == '-' ||
		b[p] == '+' || b[p] == '.' || b[p] == 'E'))
		p++;
	return p >= len;
}

/* The cursor does not move on a failed read, so what lies at it tells why it failed (a
 * failure deep inside a skipped value shows as malformed at the value's start). */
int json_reader_fail_json(struct json_reader *r)
{
	const struct json_pull *jp = &r->jp;
	size_t p = skip_ws(jp->buf, jp->len, jp->pos);

	if (token_cut(jp->buf, jp->len, p))
		return json_reader_fail(r, "truncated JSON (byte %zu)", jp->len);
	if (jp->depth >= JSON_MAX_DEPTH && (jp->buf[p] == '{' || jp->buf[p] == '['))
		return json_reader_fail(r, "JSON nested deeper than %d levels (byte %zu)",
			JSON_MAX_DEPTH, p);
	return json_reader_fail(r, "malformed JSON near byte %zu", p);
}

int json_read_begin(struct json_reader *r)
{
	if (pull_peek(&r->jp) != JSON_T_OBJECT)
		return json_reader_fail(r, "not a JSON object");
	return json_read_object(r, "the document");
}

int json_read_end(struct json_reader *r)
{
	if (r->jp.depth != 0)
		return json_reader_fail_json(r);
	if (json_pull_finish(&r->jp))
		return json_reader_fail(r, "trailing data at byte %zu", r->jp.pos);
	return 0;
}

static int read_begin(struct json_reader *r, enum json_type t, const char *what)
{
	if (pull_peek(&r->jp) != t)
		return json_reader_fail(r, "%s is not %s (byte %zu)", what,
			t == JSON_T_OBJECT ? "an object" : "an array", r->jp.pos);
	return pull_begin(&r->jp, t) ? json_reader_fail_json(r) : 0;
}

int json_read_object(struct json_reader *r, const char *what)
{
	return read_begin(r, JSON_T_OBJECT, what);
}

int json_read_array(struct json_reader *r, const char *what)
{
	return read_begin(r, JSON_T_ARRAY, what);
}

int json_read_member(struct json_reader *r, struct json_span *key)
{
	int got = pull_next(&r->jp, true);

	if (got == 1 && scan_member_key(r->jp.buf, r->jp.len, &r->jp.pos, key))
		got = -1;
	return got < 0 ? json_reader_fail_json(r) : got;
}

int json_read_element(struct json_reader *r)
{
	int got = pull_next(&r->jp, false);

	return got < 0 ? json_reader_fail_json(r) : got;
}

int json_read_string(struct json_reader *r, struct json_span *out, const char *what)
{
	if (pull_peek(&r->jp) != JSON_T_STRING)
		return json_reader_fail(r, "%s is not a string (byte %zu)", what, r->jp.pos);
	return json_pull_string(&r->jp, out) ? json_reader_fail_json(r) : 0;
}

/* (inline: CPU profiles hold millions of numbers) */
static inline int read_number(struct json_reader *r, double *out, const char *what)
{
	size_t at;

	if (pull_peek(&r->jp) != JSON_T_NUMBER)
		return json_reader_fail(r, "%s is not a number (byte %zu)", what, r->jp.pos);
	at = r->jp.pos;
	if (scan_number(r->jp.buf, r->jp.len, &r->jp.pos, out))
		return json_reader_fail_json(r);
	if (!isfinite(*out))
		return json_reader_fail(r, "%s is not finite (byte %zu)", what, at);
	return 0;
}

int json_read_number(struct json_reader *r, double *out, const char *what)
{
	return read_number(r, out, what);
}

int json_read_int(struct json_reader *r, double lo, double hi, double *out, const char *what)
{
	double d;

	if (read_number(r, &d, what))
		return -1;
	/* the range first: only then is the conversion defined */
	if (!(d >= lo && d <= hi) || d != (double)(int64_t)d)
		return json_reader_fail(r, "%s out of range or not an integer: %.17g", what, d);
	*out = d;
	return 0;
}

int json_read_skip(struct json_reader *r)
{
	return json_pull_value(&r->jp, NULL) ? json_reader_fail_json(r) : 0;
}
