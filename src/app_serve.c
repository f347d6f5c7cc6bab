/* app_serve.c: --serve: what the HTTP server (serve.c) answers. GET /metrics renders every
 * watched thread's and process's latest data (promfill.c, promtext.c); GET
 * /debug/pprof/profile?seconds=N waits for the next N seconds of windows of every thread and
 * process (the profiles ntop-js collects anyway, no profiler start of its own) and answers
 * them as one gzipped pprof profile, each sample labelled with its pid and thread. */
#include "config.h"

#include "app_priv.h"
#include "engine.h"
#include "exitcode.h"
#include "functab.h"
#include "loop.h"
#include "memseries.h"
#include "pprof.h"
#include "procfs.h"
#include "promfill.h"
#include "promtext.h"
#include "serve.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define APP_SERVE_MAX_PROFILES 4
#define APP_SERVE_DEFAULT_SECONDS 30
#define APP_SERVE_MAX_SECONDS 300
/* A profile whose windows stop coming (the target gone, a CPU burst over) is answered with
 * what it has this long after its span. */
#define APP_SERVE_PROFILE_GRACE_S 5.0
/* Past this many samples (a call-tree node a sample, each window), later windows are left
 * out: a profile's memory stays bounded whatever the code. */
#define APP_SERVE_PROFILE_MAX_SAMPLES 2000000
/* Targets in one /metrics: the main thread and up to this many others. */
#define APP_SERVE_MAX_TARGETS 257

struct pending_profile {
	struct serve_conn *c;        /* NULL: the slot is free */
	struct pprof *p;
	double due_mono;             /* when its span ends */
	double start_wall, end_wall; /* what its windows cover (NAN before the first) */
};

struct app_serve {
	struct serve *srv;
	char *token;                 /* --serve-token-file's: "Bearer TOKEN" required; NULL: none */
	struct loop_timer *late;     /* answers profiles whose windows stopped */
	struct pending_profile prof[APP_SERVE_MAX_PROFILES];
	struct strbuf body;
};

static const char index_text[] =
	"ntop-js\n"
	"/metrics                     Prometheus text exposition of every watched thread\n"
	"/debug/pprof/profile?seconds=N  every thread's and process's CPU profile of the next N "
	"seconds (gzipped pprof, labelled pid and thread; default 30, 1 to 300)\n"
	"/debug/pprof/heap            the latest allocation profile (with --alloc; gzipped pprof, "
	"inuse_space and inuse_objects)\n";

/* ---- /metrics ---- */

static void fill_one(struct app *a, struct engine *e, const struct attach_result *t,
	const char *thread, bool main_engine, struct promfill_store *st, struct prom_target *out)
{
	struct promfill_source src;
	struct contention_sample kernel;

	memset(&src, 0, sizeof src);
	src.pid = (int)t->pid;
	src.title = t->title;
	src.thread = thread;
	src.node_version = t->node_version[0] ? t->node_version : NULL;
	src.attached = e != NULL && !(main_engine && (a->finished || a->following));
	src.process_cpu_s = NAN;
	/* the process's, so once per process: with its main thread */
	if (strcmp(thread, "main") == 0 && t->pid > 0 && e &&
	    procfs_cpu_seconds(t->pid, &src.process_cpu_s) < 0)
		src.process_cpu_s = NAN;
	/* ...and the CPU its main thread could not get */
	if (strcmp(thread, "main") == 0 && t->pid > 0 && e) {
		contention_read(t->pid, t->pid, CONTENTION_CGROUP_ROOT, &kernel);
		src.kernel = &kernel;
	}
	src.top_n = a->opt.top_n;
	if (e) {
		src.mem = memseries_last(engine_memseries(e));
		src.growth = watch_growth_of(a, e);
		src.spaces = engine_heap_spaces(e, &src.n_spaces);
		src.evloop = engine_evloop_last(e);
		src.cum = engine_cumulative(e);
		src.ft = engine_functab(e);
		src.requests = engine_requests_totals(e);
	}
	promfill_target(&src, st, out);
}

static void serve_metrics(struct app *a, struct serve_conn *c)
{
	struct app_serve *s = a->serve;
	size_t others = watch_n_threads(a);
	size_t n = 0, cap = 1 + (others < APP_SERVE_MAX_TARGETS - 1 ? others :
		APP_SERVE_MAX_TARGETS - 1);
	struct prom_target *t = xcalloc(cap, sizeof *t);
	struct promfill_store *st = xcalloc(cap, sizeof *st);
	char (*names)[32] = xcalloc(cap, sizeof *names);

	fill_one(a, a->engine, &a->target, "main", true, &st[n], &t[n]);
	n++;
	for (size_t i = 0; n < cap; i++) {
		struct engine *e;
		const struct attach_result *target;
		const char *name;
		bool process;

		if (!watch_at(a, i, &e, &target, &name, &process))
			break;
		/* a worker with no name goes by its place, so that its series stay apart */
		if (!process && (!name || !name[0])) {
			snprintf(names[n], sizeof names[n], "worker %zu", i + 1);
			name = names[n];
		}
		fill_one(a, e, target, name, false, &st[n], &t[n]);
		/* a worker's title is its process's, as its pid is */
		if (!process)
			t[n].title = a->target.title;
		n++;
	}
	strbuf_reset(&s->body);
	promtext_render(&s->body, t, n, a->opt.top_n);
	serve_respond(c, 200, "text/plain; version=0.0.4; charset=utf-8", s->body.data,
		s->body.len);
	free(t);
	free(st);
	free(names);
}

/* ---- /debug/pprof/profile ---- */

static void profile_answer(struct app *a, struct pending_profile *pp)
{
	unsigned char *gz = NULL;
	size_t len = 0;
	char *cause = NULL;

	/* the span of the windows added (none: the wait itself) */
	if (isnan(pp->end_wall))
		pp->end_wall = util_now_wall_s();
	pprof_set_time(pp->p, (int64_t)(pp->start_wall * 1e9),
		(int64_t)((pp->end_wall - pp->start_wall) * 1e9));
	if (pprof_encode_gzip(pp->p, &gz, &len, &cause) < 0) {
		serve_respond_text(pp->c, 500, cause);
		free(cause);
	} else {
		serve_respond(pp->c, 200, "application/octet-stream", gz, len);
	}
	free(gz);
	pprof_free(pp->p);
	pp->p = NULL;
	pp->c = NULL;
	(void)a;
}

static void arm_late(struct app_serve *s)
{
	double first = INFINITY, now = util_now_mono_s();

	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++)
		if (s->prof[i].c && s->prof[i].due_mono < first)
			first = s->prof[i].due_mono;
	if (isfinite(first))
		loop_timer_arm(s->late, first + APP_SERVE_PROFILE_GRACE_S - now);
	else
		loop_timer_cancel(s->late);
}

static void on_late(void *ud)
{
	struct app *a = ud;
	struct app_serve *s = a->serve;
	double now = util_now_mono_s();

	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++)
		if (s->prof[i].c && now >= s->prof[i].due_mono + APP_SERVE_PROFILE_GRACE_S - 0.01)
			profile_answer(a, &s->prof[i]);
	arm_late(s);
}

void app_serve_on_window(struct app *a, const struct app_source *src, double wall_end_s,
	double window_s)
{
	struct app_serve *s = a->serve;
	const struct calltree *t = NULL;
	double now = util_now_mono_s();
	bool any = false;
	char pid[16], thread[24];
	struct pprof_label labels[3] = { { "pid", pid }, { "thread", thread },
		{ "thread_name", src->thread_name && src->thread_name[0] ? src->thread_name : NULL } };

	if (!s)
		return;
	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++)
		any = any || s->prof[i].c;
	if (!any)
		return;
	snprintf(pid, sizeof pid, "%d", src->pid);
	if (src->thread_id > 0)
		snprintf(thread, sizeof thread, "%ld", src->thread_id);
	else
		snprintf(thread, sizeof thread, "%s", src->thread_id == 0 ? "main" : "worker");
	/* the window's call tree is built only when asked for: only while a profile waits */
	if (src->e && engine_cpu_on(src->e))
		t = engine_window_calltree(src->e);
	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++) {
		struct pending_profile *pp = &s->prof[i];

		if (!pp->c)
			continue;
		if (t && pprof_sample_count(pp->p) < APP_SERVE_PROFILE_MAX_SAMPLES) {
			pprof_add_calltree_labeled(pp->p, t, engine_functab(src->e), labels, 3);
			/* the first window began before the request: the profile says so */
			if (isnan(pp->end_wall) || wall_end_s - window_s < pp->start_wall)
				pp->start_wall = wall_end_s - window_s;
			if (isnan(pp->end_wall) || wall_end_s > pp->end_wall)
				pp->end_wall = wall_end_s;
		}
		if (now >= pp->due_mono)
			profile_answer(a, pp);
	}
	arm_late(s);
}

static void serve_profile(struct app *a, struct serve_conn *c, const struct serve_request *r)
{
	struct app_serve *s = a->serve;
	char v[16], *end;
	long seconds = APP_SERVE_DEFAULT_SECONDS;
	struct pending_profile *pp = NULL;

	if (serve_query_param(r->query, "seconds", v, sizeof v)) {
		seconds = strtol(v, &end, 10);
		if (!v[0] || *end || seconds < 1 || seconds > APP_SERVE_MAX_SECONDS) {
			serve_respond_text(c, 400, "seconds must be a whole number from 1 to 300.");
			return;
		}
	}
	if (a->opt.no_cpu && !engine_cpu_on(a->engine)) {
		serve_respond_text(c, 503, "the CPU profiler is off (--no-cpu): there is no CPU "
			"profile to serve.");
		return;
	}
	if (a->finished || a->following) {
		serve_respond_text(c, 503, "ntop-js is not attached to its target any more.");
		return;
	}
	for (int i = 0; i < APP_SERVE_MAX_PROFILES && !pp; i++)
		if (!s->prof[i].c)
			pp = &s->prof[i];
	if (!pp) {
		serve_respond_text(c, 503, "4 profiles are already being collected; try again when "
			"one is done.");
		return;
	}
	pp->c = c;
	pp->p = pprof_create(PPROF_CPU, (int64_t)a->settings.interval_us * 1000);
	pp->due_mono = util_now_mono_s() + (double)seconds;
	pp->start_wall = util_now_wall_s();
	pp->end_wall = NAN;
	arm_late(s);
}

/* ---- /debug/pprof/heap ---- */

/* V8's sampling heap profiler's interval, as ntop-js starts it (engine_mem.c): pprof's period. */
#define APP_SERVE_HEAP_PERIOD_BYTES 32768

static void serve_heap(struct app *a, struct serve_conn *c)
{
	size_t len = 0;
	const char *json = engine_alloc_raw(a->engine, &len);
	struct functab *ft;
	struct pprof *p;
	unsigned char *out = NULL;
	size_t out_len = 0;
	char *err = NULL;

	if (!json) {
		serve_respond_text(c, 503, engine_alloc_on(a->engine) ? "no allocation profile yet: "
			"the first is fetched one --alloc-interval after sampling starts." : "allocation "
			"sampling is off: start ntop-js with --alloc (or press a in the live view).");
		return;
	}
	/* a table of its own: the profile's frames need not be the CPU profile's functions */
	ft = functab_create();
	p = pprof_create(PPROF_HEAP, APP_SERVE_HEAP_PERIOD_BYTES);
	pprof_set_time(p, (int64_t)(util_now_wall_s() * 1e9), 0);
	if (pprof_add_heap_json(p, json, len, ft, &err) < 0 ||
	    pprof_encode_gzip(p, &out, &out_len, &err) < 0) {
		char *msg = xasprintf("the allocation profile could not be converted: %s",
			err ? err : "unknown error.");
		serve_respond_text(c, 500, msg);
		free(msg);
	} else {
		serve_respond(c, 200, "application/octet-stream", out, out_len);
	}
	free(err);
	free(out);
	pprof_free(p);
	functab_free(ft);
}

/* ---- the server's callbacks ---- */

/* Whether r carries the bearer token (in constant time: a wrong guess tells nothing of how
 * much of it was right). */
static bool token_ok(const struct app_serve *s, const struct serve_request *r)
{
	size_t n = strlen(s->token), m = strlen(r->authorization);
	unsigned char diff = n != m;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)s->token[i] ^ (unsigned char)(i < m ? r->authorization[i] : 0);
	return diff == 0;
}

static void on_request(void *ud, struct serve_conn *c, const struct serve_request *r)
{
	struct app *a = ud;

	/* before the token: a page that rebinds a name to this address learns nothing */
	if (!serve_host_allowed(r->host, a->opt.serve_allow_host, a->opt.n_serve_allow_host)) {
		serve_respond_text(c, 421, "ntop-js answers a Host that is an IP address or "
			"localhost, or a name given with --serve-allow-host.");
		return;
	}
	if (a->serve->token && !token_ok(a->serve, r)) {
		serve_respond_text(c, 401, "this ntop-js needs \"Authorization: Bearer TOKEN\" "
			"(--serve-token-file).");
		return;
	}
	if (strcmp(r->method, "GET") != 0) {
		serve_respond_text(c, 405, "only GET is served.");
		return;
	}
	/* the loop runs only once the engine exists; kept safe should that change */
	if (!a->engine) {
		serve_respond_text(c, 503, "ntop-js has not attached yet.");
		return;
	}
	if (strcmp(r->path, "/metrics") == 0)
		serve_metrics(a, c);
	else if (strcmp(r->path, "/debug/pprof/profile") == 0)
		serve_profile(a, c, r);
	else if (strcmp(r->path, "/debug/pprof/heap") == 0)
		serve_heap(a, c);
	else if (strcmp(r->path, "/") == 0)
		serve_respond(c, 200, "text/plain; charset=utf-8", index_text, sizeof index_text - 1);
	else
		serve_respond_text(c, 404, "not found; GET / lists what ntop-js serves.");
}

static void on_gone(void *ud, struct serve_conn *c)
{
	struct app *a = ud;
	struct app_serve *s = a->serve;

	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++)
		if (s->prof[i].c == c) {
			pprof_free(s->prof[i].p);
			s->prof[i].p = NULL;
			s->prof[i].c = NULL;
		}
	arm_late(s);
}

static const struct serve_handlers handlers = { on_request, on_gone };

/* The token file: its first line, which must not be empty, in a file only its owner reads
 * (it guards what the target's code reveals). *token is "Bearer TOKEN". */
static int read_token(const char *path, char **token, char **cause)
{
	char buf[256], *nl;
	struct stat st;
	FILE *f = fopen(path, "r");

	*token = NULL;
	if (!f) {
		*cause = xasprintf("cannot read the token file %s: %s.", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
		fclose(f);
		*cause = xasprintf("the token file %s can be read by other users; make it the owner's "
			"alone (chmod 600).", path);
		return -1;
	}
	if (!fgets(buf, sizeof buf, f)) {
		buf[0] = '\0';
	}
	fclose(f);
	nl = buf + strcspn(buf, "\r\n");
	*nl = '\0';
	if (strlen(buf) < 8 || strlen(buf) > 200 || strspn(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._~+/=") != strlen(buf)) {
		*cause = xasprintf("the token file %s must hold a token of 8 to 200 letters, digits "
			"or -._~+/= on its first line.", path);
		return -1;
	}
	*token = xasprintf("Bearer %s", buf);
	return 0;
}

int app_serve_open(struct app *a)
{
	char *cause = NULL, *token = NULL;
	int status = EXIT_INTERNAL;
	struct serve *srv;

	if (!a->opt.serve)
		return EXIT_OK;
	if (a->opt.serve_token_file && read_token(a->opt.serve_token_file, &token, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	srv = serve_open(a->opt.serve_host, a->opt.serve_port, &status, &cause);
	if (!srv) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		free(token);
		return status;
	}
	a->serve = xcalloc(1, sizeof *a->serve);
	a->serve->srv = srv;
	a->serve->token = token;
	strbuf_init(&a->serve->body);
	return EXIT_OK;
}

int app_serve_start(struct app *a)
{
	char *cause = NULL;

	if (!a->serve)
		return EXIT_OK;
	a->serve->late = loop_timer_create(a->loop, on_late, a);
	if (serve_start(a->serve->srv, a->loop, &handlers, a, &cause) < 0) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

void app_serve_free(struct app *a)
{
	struct app_serve *s = a->serve;

	if (!s)
		return;
	/* the waiting profiles are dropped through on_gone */
	serve_free(s->srv);
	loop_timer_free(s->late);
	for (int i = 0; i < APP_SERVE_MAX_PROFILES; i++)
		pprof_free(s->prof[i].p);
	strbuf_free(&s->body);
	free(s->token);
	free(s);
	a->serve = NULL;
}
