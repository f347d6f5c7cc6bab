/* Unit tests for inlinefix.c: a real profile of a warm Node 20 process whose hot function has
 * its helpers inlined (tests/fixtures/inlinefix, made by its record.js with default flags),
 * repaired with the real best-effort coverage of the same process; and what the repair must
 * refuse (a changed file, malformed coverage). */
#include "config.h"

#include "aggregate.h"
#include "fixture.h"
#include "functab.h"
#include "inlinefix.h"
#include "jsonpull.h"
#include "profile.h"
#include "tap.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The texts the fixture's URLs name (file:///FIXTURE/x.js), from the source tree (dir: the
 * fixture's directory, "inlinefix" when NULL); "changed" gives lib.js with a line added, as a
 * file edited after the target loaded it. */
struct texts {
	const char *dir;
	bool changed;
	char *bufs[4];
	int n;
};

static int text_of(void *ud, const char *path, const char **text, size_t *len, const char **why)
{
	struct texts *t = ud;
	const char *base = strrchr(path, '/');
	char name[64];
	char *buf;

	snprintf(name, sizeof name, "%s%s", t->dir ? t->dir : "inlinefix", base ? base : "/none");
	buf = fixture_read_text(name, len);
	if (!buf) {
		*why = "no such file";
		return -1;
	}
	if (t->changed) {
		char *more = xasprintf("// edited after the target loaded it: a line added, as a deploy adds it\n%s", buf);
		free(buf);
		buf = more;
		*len = strlen(buf);
	}
	t->bufs[t->n++ % 4] = buf;
	*text = buf;
	return 1;
}

static void texts_free(struct texts *t)
{
	for (int i = 0; i < 4 && i < t->n; i++)
		free(t->bufs[i]);
	memset(t, 0, sizeof(*t));
}

/* Self time share (of JS time) of the function named name, in w. */
static double self_pct(const struct window_stats *w, const struct functab *ft, const char *name)
{
	double us = 0;

	for (size_t i = 0; i < w->n_funcs; i++)
		if (!strcmp(functab_get(ft, w->funcs[i].func)->name, name))
			us += w->funcs[i].self_us;
	return w->js_us > 0 ? 100 * us / w->js_us : 0;
}

static size_t rows_named(const struct window_stats *w, const struct functab *ft, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n_funcs; i++)
		n += !strcmp(functab_get(ft, w->funcs[i].func)->name, name);
	return n;
}

static bool diag_false(const char *why)
{
	printf("# %s\n", why);
	return false;
}

static uint64_t hits_of(const struct profile *p)
{
	uint64_t h = 0;

	for (size_t i = 0; i < p->n_nodes; i++)
		h += p->nodes[i].hit_count;
	return h;
}

/* Nodes in preorder, samples on nodes, ticks in bounds, and the hit counts V8 gave (which
 * need not equal the samples) moved, not made up. */
static bool preorder_ok(const struct profile *p, uint64_t want_hits)
{
	uint64_t hits = 0;

	if (!p->n_nodes || p->nodes[0].parent != -1)
		return diag_false("no root");
	for (size_t i = 1; i < p->n_nodes; i++)
		if (p->nodes[i].parent < 0 || (size_t)p->nodes[i].parent >= i)
			return diag_false("a parent after its child");
	for (size_t s = 0; s < p->n_samples; s++)
		if (p->samples[s] >= p->n_nodes)
			return diag_false("a sample on no node");
	for (size_t i = 0; i < p->n_nodes; i++) {
		hits += p->nodes[i].hit_count;
		if ((size_t)p->nodes[i].ticks_first + p->nodes[i].ticks_count > p->n_ticks)
			return diag_false("ticks past the end");
	}
	if (hits != want_hits)
		printf("# hit counts %llu, were %llu\n", (unsigned long long)hits,
			(unsigned long long)want_hits);
	return hits == want_hits;
}

static int load_from(const char *dir, struct functab *ft, struct profile *p,
	struct json_span *cov, char **cov_buf)
{
	char *pname = xasprintf("%s/profile.json", dir), *cname = xasprintf("%s/coverage.json", dir);
	size_t len, clen;
	char *buf = fixture_read(pname, &len), *err = NULL;
	int r;

	*cov_buf = fixture_read(cname, &clen);
	free(pname);
	free(cname);
	if (!buf || !*cov_buf)
		return -1;
	r = profile_parse(buf, len, ft, p, &err);
	free(buf);
	free(err);
	if (r || json_validate(*cov_buf, clen, cov))
		return -1;
	return 0;
}

static int load(struct functab *ft, struct profile *p, struct json_span *cov, char **cov_buf)
{
	return load_from("inlinefix", ft, p, cov, cov_buf);
}

static void release(struct profile *p, struct inlinefix *x, struct functab *ft, char *cov_buf,
	char *err, struct texts *t)
{
	profile_release(p);
	inlinefix_free(x);
	functab_free(ft);
	free(cov_buf);
	free(err);
	texts_free(t);
}

static void test_repair(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct json_span cov;
	char *cov_buf = NULL, *err = NULL;
	struct inlinefix *x = inlinefix_new();
	struct inlinefix_stats st = {0};
	struct window_stats before, after;
	struct texts t = {0};
	size_t n_samples;
	uint64_t hits;

	window_stats_init(&before);
	window_stats_init(&after);
	if (load(ft, &p, &cov, &cov_buf)) {
		ok(0, "the fixture loads");
		return;
	}
	n_samples = p.n_samples;
	hits = hits_of(&p);
	aggregate_window(&p, ft, -INFINITY, &before);
	ok(self_pct(&before, ft, "hot") > 95, "as V8 gives it, hot() has all the time (%.1f %%)",
		self_pct(&before, ft, "hot"));

	/* before the coverage, nothing is known: nothing moves, and coverage is asked for */
	inlinefix_apply(x, &p, ft, &st);
	is_int(st.moved, 0, "without coverage nothing moves");
	ok(inlinefix_wants_coverage(x), "and coverage is wanted");

	is_int(inlinefix_take_coverage(x, cov, &err), 3, "the coverage names main.js, lib.js and record.js");
	ok(!inlinefix_wants_coverage(x), "the coverage is no longer wanted");
	inlinefix_apply(x, &p, ft, &st);
	is_int(st.moved, 0, "nothing moves before the texts are read");
	ok(inlinefix_resolve(x, text_of, &t), "the texts make the scripts usable");

	memset(&st, 0, sizeof st);
	inlinefix_apply(x, &p, ft, &st);
	ok(preorder_ok(&p, hits), "the repaired profile is a well-formed preorder with every sample on a node");
	is_int(p.n_samples, n_samples, "no sample is lost");
	aggregate_window(&p, ft, -INFINITY, &after);
	is_num(after.js_us, before.js_us, 1, "the JS time is the same");
	/* the recording's line ticks: scale (nested) 536, mix32 (lib.js) 162 + 28 on a line
	 * round2 shares, round2 104 (+ 28): within a sample or two of interleaving */
	ok(self_pct(&after, ft, "scale") > 55, "the nested closure gets its time (%.1f %%)",
		self_pct(&after, ft, "scale"));
	ok(self_pct(&after, ft, "mix32") > 17, "the helper in another file gets its time (%.1f %%)",
		self_pct(&after, ft, "mix32"));
	ok(self_pct(&after, ft, "round2") > 10, "the helper in the same file gets its time (%.1f %%)",
		self_pct(&after, ft, "round2"));
	ok(self_pct(&after, ft, "hot") < 10, "hot() keeps its own lines only (%.1f %%)",
		self_pct(&after, ft, "hot"));
	is_int(rows_named(&after, ft, "mix32"), 1,
		"mix32's samples join the node V8 gave it below hot(): one row, not two");
	ok(st.moved > 0.85 * st.samples, "%llu of %llu samples moved",
		(unsigned long long)st.moved, (unsigned long long)st.samples);

	/* the same profile again changes nothing more: moved ticks are now the callees' own */
	{
		struct inlinefix_stats again = {0};
		inlinefix_apply(x, &p, ft, &again);
		is_int(again.moved, 0, "a repaired profile needs no more repair");
	}
	window_stats_free(&before);
	window_stats_free(&after);
	release(&p, x, ft, cov_buf, err, &t);
}

/* tests/fixtures/inlinefix-deep: hot() runs step(), a helper of its own file inlined into it,
 * and below it, through viaReal() (a real frame), deepWork() of deep.js, whose lines cover
 * step()'s. step()'s line ticks are step()'s: a function of another file that is neither
 * called by hot() by name nor a child of its node is not where they ran. */
static void test_deeper_other_file(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct json_span cov;
	char *cov_buf = NULL, *err = NULL;
	struct inlinefix *x = inlinefix_new();
	struct inlinefix_stats st = {0};
	struct window_stats before, after;
	struct texts t = { .dir = "inlinefix-deep" };

	window_stats_init(&before);
	window_stats_init(&after);
	if (load_from("inlinefix-deep", ft, &p, &cov, &cov_buf)) {
		ok(0, "the second fixture loads");
		return;
	}
	aggregate_window(&p, ft, -INFINITY, &before);
	ok(self_pct(&before, ft, "hot") > 90 && self_pct(&before, ft, "deepWork") > 0.5,
		"as V8 gives it, hot() has %.1f %%, deepWork() %.1f %% below it",
		self_pct(&before, ft, "hot"), self_pct(&before, ft, "deepWork"));
	is_int(inlinefix_take_coverage(x, cov, &err), 2, "the coverage names main.js and deep.js");
	ok(inlinefix_resolve(x, text_of, &t), "the texts make the scripts usable");
	inlinefix_apply(x, &p, ft, &st);
	aggregate_window(&p, ft, -INFINITY, &after);
	/* the recording: hot() 854 samples, 835 of them on step()'s lines 10 and 11; deepWork 16 */
	ok(self_pct(&after, ft, "step") > 85, "step() gets its lines' time (%.1f %%)",
		self_pct(&after, ft, "step"));
	ok(self_pct(&after, ft, "deepWork") < 2 * self_pct(&before, ft, "deepWork") + 0.5,
		"deepWork() keeps only its own (%.1f %%, was %.1f %%)", self_pct(&after, ft, "deepWork"),
		self_pct(&before, ft, "deepWork"));
	window_stats_free(&before);
	window_stats_free(&after);
	release(&p, x, ft, cov_buf, err, &t);
}

/* The profile of "name" (cold or profile) in fixture dir, into p (sharing ft). */
static int load_profile(const char *dir, const char *name, struct functab *ft, struct profile *p)
{
	char *pname = xasprintf("%s/%s.json", dir, name), *buf, *err = NULL;
	size_t len;
	int r = -1;

	buf = fixture_read(pname, &len);
	free(pname);
	if (buf)
		r = profile_parse(buf, len, ft, p, &err);
	free(buf);
	free(err);
	return r;
}

/* A fixture recorded with record.js --cold: the warm profile repaired alone (by y), and after
 * the cold one (by x), each aggregated. */
struct past_run {
	struct functab *ft;
	struct profile cold, warm, alone;
	struct json_span cov;
	char *cov_buf, *err;
	struct inlinefix *x, *y;
	struct window_stats before, after, guessed;
	struct texts t;
};

static bool past_run_load(struct past_run *pr, const char *dir, const char *second)
{
	memset(pr, 0, sizeof(*pr));
	pr->ft = functab_create();
	pr->x = inlinefix_new();
	pr->y = inlinefix_new();
	pr->t.dir = dir;
	window_stats_init(&pr->before);
	window_stats_init(&pr->after);
	window_stats_init(&pr->guessed);
	if (load_from(dir, pr->ft, &pr->warm, &pr->cov, &pr->cov_buf) ||
	    load_profile(dir, "cold", pr->ft, &pr->cold) ||
	    load_profile(dir, "profile", pr->ft, &pr->alone)) {
		ok(0, "the fixture %s loads", dir);
		return false;
	}
	aggregate_window(&pr->warm, pr->ft, -INFINITY, &pr->before);
	is_int(inlinefix_take_coverage(pr->x, pr->cov, &pr->err), 2, "the coverage names main.js and %s",
		second);
	is_int(inlinefix_take_coverage(pr->y, pr->cov, &pr->err), 2, "(and again, for a repair with no past)");
	ok(inlinefix_resolve(pr->x, text_of, &pr->t) && inlinefix_resolve(pr->y, text_of, &pr->t),
		"the texts make the scripts usable");
	inlinefix_apply(pr->y, &pr->alone, pr->ft, NULL);
	aggregate_window(&pr->alone, pr->ft, -INFINITY, &pr->guessed);
	inlinefix_apply(pr->x, &pr->cold, pr->ft, NULL);
	inlinefix_apply(pr->x, &pr->warm, pr->ft, NULL);
	ok(preorder_ok(&pr->warm, hits_of(&pr->alone)), "the repaired profile is well formed");
	aggregate_window(&pr->warm, pr->ft, -INFINITY, &pr->after);
	return true;
}

static void past_run_free(struct past_run *pr)
{
	window_stats_free(&pr->before);
	window_stats_free(&pr->after);
	window_stats_free(&pr->guessed);
	profile_release(&pr->cold);
	profile_release(&pr->alone);
	inlinefix_free(pr->y);
	release(&pr->warm, pr->x, pr->ft, pr->cov_buf, pr->err, &pr->t);
}

/* tests/fixtures/inlinefix-dispatch, shaped like piscina's worker: task() in main.js runs
 * primeCount() of task.js through a variable (never by name), and V8 inlined primeCount() and
 * its isPrime() into it, whose lines fall inside helpers at the top of main.js. The warm
 * profile alone cannot tell whose lines they are (main.js's helper is the guess, wrongly); after
 * the first 300 ms of the same process (cold.json: every call a frame), the repair knows that
 * task() runs primeCount() and gives isPrime() its time. */
static void test_dispatch(void)
{
	struct past_run pr;

	if (!past_run_load(&pr, "inlinefix-dispatch", "task.js"))
		return;
	ok(self_pct(&pr.before, pr.ft, "task") > 90 && self_pct(&pr.before, pr.ft, "isPrime") == 0,
		"as V8 gives it, task() has %.1f %% and isPrime() none", self_pct(&pr.before, pr.ft, "task"));
	ok(self_pct(&pr.guessed, pr.ft, "isPrime") < 5, "the warm profile alone: isPrime() %.1f %% "
		"(its lines go to main.js's helper)", self_pct(&pr.guessed, pr.ft, "isPrime"));
	/* the recording: task() 98 %, of it lines 9 and 8 (isPrime's loop) 815 of 847 ticks */
	ok(self_pct(&pr.after, pr.ft, "isPrime") > 80, "after the cold profile: isPrime() %.1f %%",
		self_pct(&pr.after, pr.ft, "isPrime"));
	ok(self_pct(&pr.after, pr.ft, "task") < 10, "task() keeps %.1f %%",
		self_pct(&pr.after, pr.ft, "task"));
	past_run_free(&pr);
}

/* tests/fixtures/inlinefix-overlap: tick() in main.js (lines 11-18) loops over priceLines()
 * of pricing.js, whose unitPrice() has its hot loop on lines 12 and 13; once warm V8 inlined
 * both into tick(), and the warm profile has tick() alone with 829 ticks on line 13, a line
 * of tick()'s own. In the process's first 300 ms (cold.json) pricing.js's code ran as a real
 * frame below tick() with ticks on that line and tick() had none there: the line is
 * unitPrice()'s. */
static void test_overlap(void)
{
	struct past_run pr;

	if (!past_run_load(&pr, "inlinefix-overlap", "pricing.js"))
		return;
	ok(self_pct(&pr.before, pr.ft, "tick") > 90 && self_pct(&pr.before, pr.ft, "unitPrice") < 1,
		"as V8 gives it, tick() has %.1f %%, unitPrice() %.1f %%",
		self_pct(&pr.before, pr.ft, "tick"), self_pct(&pr.before, pr.ft, "unitPrice"));
	ok(self_pct(&pr.guessed, pr.ft, "tick") > 90, "the warm profile alone: tick() keeps its line "
		"(%.1f %%): it could be its own", self_pct(&pr.guessed, pr.ft, "tick"));
	ok(self_pct(&pr.after, pr.ft, "unitPrice") > 80, "after the cold profile: unitPrice() %.1f %%",
		self_pct(&pr.after, pr.ft, "unitPrice"));
	ok(self_pct(&pr.after, pr.ft, "tick") < 10, "tick() keeps %.1f %%",
		self_pct(&pr.after, pr.ft, "tick"));
	past_run_free(&pr);
}

/* The same recording as a session meets it: the cold profile comes before the coverage and the
 * texts (the first window after the attach), is held, and is learned from once they are known. */
static void test_overlap_held(void)
{
	struct functab *ft = functab_create();
	struct profile cold, warm;
	struct json_span cov;
	char *cov_buf = NULL, *err = NULL;
	struct inlinefix *x = inlinefix_new();
	struct window_stats after;
	struct texts t = {.dir = "inlinefix-overlap"};

	window_stats_init(&after);
	if (load_from("inlinefix-overlap", ft, &warm, &cov, &cov_buf) ||
	    load_profile("inlinefix-overlap", "cold", ft, &cold)) {
		ok(0, "the fixture inlinefix-overlap loads");
		return;
	}
	inlinefix_apply(x, &cold, ft, NULL);
	ok(inlinefix_wants_coverage(x), "the cold profile, before any coverage, asks for it");
	is_int(inlinefix_take_coverage(x, cov, &err), 2, "the coverage names main.js and pricing.js");
	ok(inlinefix_resolve(x, text_of, &t), "the texts make the scripts usable");
	inlinefix_apply(x, &warm, ft, NULL);
	aggregate_window(&warm, ft, -INFINITY, &after);
	ok(self_pct(&after, ft, "unitPrice") > 80, "the cold profile held: unitPrice() %.1f %%",
		self_pct(&after, ft, "unitPrice"));
	ok(self_pct(&after, ft, "tick") < 10, "tick() keeps %.1f %%", self_pct(&after, ft, "tick"));
	window_stats_free(&after);
	profile_release(&cold);
	release(&warm, x, ft, cov_buf, err, &t);
}

static void test_refusals(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	struct json_span cov, bad;
	char *cov_buf = NULL, *err = NULL;
	struct inlinefix *x = inlinefix_new();
	struct inlinefix_stats st = {0}, total;
	struct texts t = {.changed = true};
	const char *junk = "{\"result\":[{\"url\":\"file:///a.js\",\"functions\":[{\"functionName\":1}]}]}";

	if (load(ft, &p, &cov, &cov_buf)) {
		ok(0, "the fixture loads");
		return;
	}
	inlinefix_take_coverage(x, cov, &err);
	ok(!inlinefix_resolve(x, text_of, &t), "files changed since the target loaded them are not used");
	inlinefix_get_stats(x, &total);
	is_int(total.scripts_unusable, 3, "all three are counted unusable");
	inlinefix_apply(x, &p, ft, &st);
	is_int(st.moved, 0, "and nothing moves");

	ok(!json_validate(junk, strlen(junk), &bad), "(the malformed coverage is valid JSON)");
	{
		struct inlinefix *y = inlinefix_new();
		is_int(inlinefix_take_coverage(y, bad, &err), -1, "a function entry without a name string is refused");
		ok(err && strstr(err, "coverage"), "with a sentence: %s", err ? err : "(none)");
		inlinefix_free(y);
	}
	release(&p, x, ft, cov_buf, err, &t);
}

/* A text given as is, for coverage written by hand. */
static int text_fixed(void *ud, const char *path, const char **text, size_t *len, const char **why)
{
	(void)path;
	(void)why;
	*text = ud;
	*len = strlen(ud);
	return 1;
}

/* Minified code (a long line of many functions) is refused: line ticks cannot tell them apart. */
/* A script of n functions "function fK(a)" PRE K POST, per_line on a line (0: all on one),
 * followed by trailer; true when the repair can use it. */
static bool script_usable(int n, const char *pre, const char *post, int per_line,
	const char *trailer, unsigned *unusable)
{
	char *text = xstrdup(""), *covj, *err = NULL;
	struct inlinefix *x = inlinefix_new();
	struct inlinefix_stats st;
	struct json_span span;
	bool usable;

	covj = xstrdup("{\"result\":[{\"url\":\"file:///m.js\",\"functions\":[");
	for (int k = 0; k < n; k++) {
		const char *sep = !k ? "" : per_line && k % per_line == 0 ? "\n" : " ";
		size_t start = strlen(text) + strlen(sep);
		char *fn = xasprintf("function f%d(a)%s%d%s", k, pre, k, post);
		char *more = xasprintf("%s%s%s", text, sep, fn);
		char *c = xasprintf("%s%s{\"functionName\":\"f%d\",\"ranges\":[{\"startOffset\":%zu,"
			"\"endOffset\":%zu,\"count\":1}]}", covj, k ? "," : "", k, start, strlen(more));
		free(fn);
		free(text);
		free(covj);
		text = more;
		covj = c;
	}
	{
		char *c = xasprintf("%s]}]}", covj), *t = xasprintf("%s%s", text, trailer);
		free(covj);
		free(text);
		covj = c;
		text = t;
	}
	if (json_validate(covj, strlen(covj), &span) || inlinefix_take_coverage(x, span, &err) != 1)
		ok(0, "(the hand-written coverage is taken)");
	usable = inlinefix_resolve(x, text_fixed, text);
	inlinefix_get_stats(x, &st);
	*unusable = st.scripts_unusable;
	inlinefix_free(x);
	free(text);
	free(covj);
	free(err);
	return usable;
}

static void test_minified(void)
{
	char map[2600] = "\n//# sourceMappingURL=data:application/json;base64,";
	unsigned unusable;

	memset(map + strlen(map), 'A', sizeof map - strlen(map) - 2);
	map[sizeof map - 2] = '\n';
	map[sizeof map - 1] = '\0';
	ok(!script_usable(200, "{return a+", "}", 0, "", &unusable) && unusable == 1,
		"a minified line of 200 functions is not used, and counted unusable");
	/* esbuild's bundle of tests/targets/ts: 333 characters on a line, an inline map below */
	ok(!script_usable(3, "{return a+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"
		"+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+", "}", 0, map, &unusable),
		"a minified line of 3 functions with an inline source map below is not used");
	/* with the map line counted, 4 functions on 3 lines would average 900 characters */
	ok(script_usable(4, " { return a + ", "; }", 2, map, &unusable) && !unusable,
		"4 short functions on 2 lines with the same map line below are used (the map is left out)");
	ok(script_usable(3, " {\n\treturn a + ", ";\n}", 1, map, &unusable) && !unusable,
		"and 3 functions on 9 lines");
}

int main(void)
{
	test_repair();
	test_deeper_other_file();
	test_dispatch();
	test_overlap();
	test_overlap_held();
	test_refusals();
	test_minified();
	return done_testing();
}
