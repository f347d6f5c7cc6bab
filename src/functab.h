/* functab.h: the function table. Every function seen in any profile of the session is
 * interned once, keyed by (name, url, line, column), and keeps its index for the whole
 * session, so windows, the cumulative counters and the views can all refer to a function by
 * a small integer. Strings are decoded (no JSON escapes) but not sanitised: views must pass
 * them through util_sanitize() before they reach a terminal. */
#ifndef NTOP_FUNCTAB_H
#define NTOP_FUNCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum func_kind {
	FUNC_JS,      /* an ordinary function (including "(anonymous)" ones and natives) */
	FUNC_ROOT,    /* (root) */
	FUNC_PROGRAM, /* (program): native and VM work outside JS */
	FUNC_IDLE,    /* (idle): the event loop waiting */
	FUNC_GC,      /* (garbage collector) */
};

struct func_info {
	const char *name;   /* "" for anonymous functions */
	const char *url;    /* as V8 gives it ("" for none, "file:///...", "node:internal/...") */
	int32_t line;       /* 0-based, as in the protocol; -1 if unknown */
	int32_t column;     /* 0-based; -1 if unknown */
	enum func_kind kind;
	const char *deopt_reason; /* the latest non-empty deoptReason seen, or NULL */
	/* Where the script's source map puts it (origins.c): the original function name ("" when
	 * the map names none), source path as the map gives it, 0-based line and column; only
	 * when mapped is true. */
	bool mapped;
	const char *orig_name, *orig_url;
	int32_t orig_line, orig_column;
};

struct functab;

struct functab *functab_create(void);
void functab_free(struct functab *ft);
/* A number no other table of this process has had: for keying by table where a freed one's
 * address may come back. */
unsigned long long functab_serial(const struct functab *ft);
/* Returns the index of the function, adding it if new. Special names are recognised only with
 * an empty url. */
uint32_t functab_intern(struct functab *ft, const char *name, size_t name_len,
	const char *url, size_t url_len, int32_t line, int32_t column);
void functab_set_deopt(struct functab *ft, uint32_t func, const char *reason, size_t len);
const struct func_info *functab_get(const struct functab *ft, uint32_t func);
/* Records where a source map puts func (the strings are copied). */
void functab_set_origin(struct functab *ft, uint32_t func, const char *name, size_t name_len,
	const char *url, size_t url_len, int32_t line, int32_t column);
/* The name to show: the function's own, or for one without a name what it is: "(native
 * code)" (no script, no position: a C++ function or builtin V8 does not name), "(evaluated
 * code)" (a position but no script: eval, new Function, Runtime.evaluate), "(anonymous)". */
const char *functab_display_name(const struct func_info *fi);
/* With a source map: the original name (the generated one where the map names none), and
 * the original source and 0-based line; without one, as V8 gives them. */
const char *functab_shown_name(const struct func_info *fi);
const char *functab_shown_url(const struct func_info *fi);
int32_t functab_shown_line(const struct func_info *fi);
size_t functab_count(const struct functab *ft);
/* Whether fi is Node's or V8's own code rather than the application's: a node: (or, before
 * Node 16, internal/) script, native code (no script and no position: a builtin such as
 * JSON.parse, or one of Node's C++ bindings), or one of the VM's pseudo-functions ((root),
 * (program), ...). Evaluated code (no script but a position: eval, new Function,
 * Runtime.evaluate) is the application's, since the application wrote it. */
bool functab_is_internal(const struct func_info *fi);

struct json_reader;
/* Reads the V8 call frame object (Runtime.CallFrame: functionName, url, scriptId, lineNumber,
 * columnNumber; other members are skipped) at the reader's cursor and interns it into *func.
 * CPU and heap profiles both come through here, so that a function has one entry whichever
 * profiler named it. Returns 0, or -1 with the reader's sentence. */
int functab_read_call_frame(struct functab *ft, struct json_reader *r, uint32_t *func);

#endif
