/* sourcemap.h: source maps (revision 3), parsed and kept compact, and the lookup of a
 * generated position (V8's 0-based frame line and column) in them: the original source, line,
 * column and function name. Pure data: no files, no sockets; maps are untrusted input.
 *
 * A map is read in one pass with jsonpull's reader (no tree: a bundle's map is tens of MB). Its
 * mappings are checked whole but kept as the map wrote them (base64 VLQ), with a checkpoint of
 * the decoder's state every few dozen segments to search by; a lookup decodes forward from the
 * nearest. Of the map's text only the mappings and sourcesContent are kept (the rest is given
 * back), with each original line's offset; a line's text is decoded when asked for.
 * doc/bench/sourcemap.md has the costs. */
#ifndef NTOP_SOURCEMAP_H
#define NTOP_SOURCEMAP_H

#include <stddef.h>
#include <stdint.h>

/* Bounds on what a map may hold; past them it is refused, not truncated. */
#define SOURCEMAP_MAX_SOURCES 100000
#define SOURCEMAP_MAX_NAMES (1u << 22)
#define SOURCEMAP_MAX_SEGMENTS (1u << 25) /* a 64 MB map holds fewer */
#define SOURCEMAP_MAX_GEN_LINES (1u << 22)
/* Segments on lines written out of order, kept decoded (20 bytes each). */
#define SOURCEMAP_MAX_UNSORTED (1u << 21)
#define SOURCEMAP_MAX_SECTIONS 4096
/* Original lines and columns, and generated columns, above this are lies. */
#define SOURCEMAP_MAX_POSITION ((1u << 30) - 1)
/* A name or source path longer than this is refused. */
#define SOURCEMAP_MAX_STRING 4096
/* How much of one original line sourcemap_source_line() and the name finder look at. */
#define SOURCEMAP_MAX_LINE_BYTES 4096

#define SOURCEMAP_NONE UINT32_MAX

struct sourcemap;

/* Where a generated position came from. Strings belong to the map. */
struct sourcemap_pos {
	uint32_t source;         /* index into the map's sources */
	const char *source_path; /* sourceRoot joined with the source, as the map says it */
	uint32_t line;           /* 0-based */
	uint32_t column;         /* 0-based */
	const char *name;        /* the segment's names entry, or NULL */
};

/* Parses a map held in buf (len bytes), taking buf over (freed on failure too; kept while the
 * map holds sourcesContent). Returns the map, or NULL with one sentence in *err. */
struct sourcemap *sourcemap_parse(char *buf, size_t len, char **err);
void sourcemap_free(struct sourcemap *m);

/* Bytes the map holds (arrays, strings and kept text), for a cache's budget. */
size_t sourcemap_bytes(const struct sourcemap *m);
uint32_t sourcemap_source_count(const struct sourcemap *m);
const char *sourcemap_source_path(const struct sourcemap *m, uint32_t source);
size_t sourcemap_segment_count(const struct sourcemap *m);

/* Looks up a generated position: the segment at or before the column on that line (the first
 * of the line for column 0, where V8 puts a script's top level). Returns 1 and fills *out,
 * or 0 when that position is not mapped. */
int sourcemap_lookup(const struct sourcemap *m, uint32_t gen_line0, uint32_t gen_col0,
	struct sourcemap_pos *out);

/* The text of 1-based original line line1 of source (from sourcesContent), decoded, at most
 * cap bytes of it (and of SOURCEMAP_MAX_LINE_BYTES) copied into buf with no NUL. Returns the
 * number of bytes, or -1 when the map has no such text. The text is the target's: sanitize
 * it before showing it. */
long sourcemap_source_line(const struct sourcemap *m, uint32_t source, uint32_t line1,
	char *buf, size_t cap);

/* The function name at an original position whose segment has none: the identifier just
 * before the '(' there (frames point at a function's parameter list; tsc maps a generic's to
 * its '<'), or the identifier at the position when a '(' follows it. Copies it NUL-terminated into buf (cap > 1) and returns
 * its length, or 0 when none is found (no text, an anonymous function). */
size_t sourcemap_name_at(const struct sourcemap *m, const struct sourcemap_pos *pos, char *buf,
	size_t cap);

/* The name at position pos in the text of one line (the rule above, on plain text). */
size_t sourcemap_name_in_line(const char *line, size_t len, uint32_t col, char *buf, size_t cap);

#endif
