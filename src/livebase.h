/* livebase.h: a saved profile as the live view's baseline (--baseline FILE without -b): the
 * Δ columns compare the session with the profile of an earlier build from the first window.
 *
 * Each time it is applied, the session's functions with time (its cumulative counters) are
 * matched with the file's as --diff matches two profiles (profdiff.h: name, url and line;
 * then name and url at another line, an edited file's functions in line order; then name and
 * the url's last component), and the model's baseline is set from the file's shares, in points
 * of one core as the live columns are (shares of every sample, idle included). A function of
 * the file that the session has not run yet is named in the session's table, so that its row
 * can show what it lost. Pure data: no I/O. */
#ifndef NTOP_LIVEBASE_H
#define NTOP_LIVEBASE_H

struct cumulative;
struct functab;
struct model;
struct window_stats;

struct livebase;

/* w and ft (the file's profile, aggregated whole) are borrowed for the life of the result. */
struct livebase *livebase_create(const struct window_stats *w, const struct functab *ft);
void livebase_free(struct livebase *lb);
/* Sets m's baseline (model_set_baseline) against cum, whose functions are session_ft's; the
 * file's functions the session has not met are added to session_ft. */
void livebase_apply(struct livebase *lb, struct model *m, const struct cumulative *cum,
	struct functab *session_ft);

#endif
