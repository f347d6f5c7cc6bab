/* parsework.h: reading a large CPU profile off the main thread, so that the keyboard and the
 * screen stay responsive while a 30 MB profile is parsed (about 100 ms of work).
 *
 * The worker interns call frames into a function table of its own; when it is done, the main
 * thread maps them into the session's table (a few thousand lookups) and gets a profile that
 * is exactly what profile_parse() would have made. One job at a time. */
#ifndef NTOP_PARSEWORK_H
#define NTOP_PARSEWORK_H

#include <stdbool.h>
#include <stddef.h>

struct loop;
struct functab;
struct profile;
struct parsework;

/* Called on the main thread: p is valid during the call (the callee may keep nothing of it
 * past the call), or NULL with err set when the profile was invalid. */
typedef void (*parsework_done_fn)(void *ud, struct profile *p, const char *err);

struct parsework *parsework_create(struct loop *l, struct functab *ft, parsework_done_fn done,
	void *ud);
/* Waits for a running job (its result is dropped) and frees. */
void parsework_free(struct parsework *w);
bool parsework_busy(const struct parsework *w);
/* Waits for a running job and drops its result (the worker stays usable). */
void parsework_drop(struct parsework *w);
/* Parses the profile at [json, json+len), which lies inside buf; takes ownership of buf (freed
 * once parsed). Returns -1 (buf untouched, still the caller's) if no thread could be started. */
int parsework_submit(struct parsework *w, char *buf, const char *json, size_t len);

#endif
