/* app_watch.c: every engine ntop-js watches, one kind of object with one set of handlers and
 * one report builder: the main target's main thread (a->main; app.c makes its windows the
 * root of the report, and its end the session's), the target's worker threads, each profiled
 * by an engine of its own over its process's session (engine_workers.c), and the other
 * processes of a service (--pid again, --children, --match), each an engine on its own
 * websocket. The others' latest windows go into the main thread's batch report (report.h's
 * threads_json and processes_json) and, in the live view, its THREADS line; their engines
 * leave before the main one, which carries the workers' sessions. */
#include "config.h"

#include "aggregate.h"
#include "app_priv.h"
#include "contention.h"
#include "engine.h"
#include "exitcode.h"
#include "export.h"
#include "loop.h"
#include "memlog.h"
#include "memseries.h"
#include "model.h"
#include "report.h"
#include "requests.h"
#include "service.h"
#include "strbuf.h"
#include "tui.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A worker's engine that has not left this long after the stop is not waited for. */
#define WORKERS_LEAVE_GRACE_S 1.0
/* A worker's call tree (its callers and callees, s): the main thread's keeps 500,000 samples
 * of timeline; a worker's 20,000 (about 240 KB), merged beyond, for 32 workers to cost what
 * one main thread does. */
#define WORKER_CALLTREE_MAX_SAMPLES 20000
#define WORKER_MEM_INTERVAL_S 5.0

struct app_thread {
	struct app *a;
	struct engine *e;
	bool main;              /* the main target's main thread (a->main, not in a->watch->threads) */
	bool process;           /* another process (its own inspector), not a worker */
	pid_t parent_pid;       /* a worker of another process: that process (0: of the main one,
	                           or a process itself) */
	bool stop_sent;         /* engine_stop was called (a process waits for its workers) */
	bool graced;            /* a stop's grace ran out on it once already */
	struct engine_worker_info info;
	struct attach_result target;
	bool finished;          /* its engine finished: freed at the next reap */
	bool reported_exit;     /* its end is in a report */
	bool fresh;             /* a window since the last report */
	struct strbuf json;     /* its latest window (report_json_thread) */
	struct strbuf text;     /* ...and as text */
	const struct window_stats *last_w; /* its engine's latest window, for the T table */
	struct model_thread sum;
	struct app_smap *smap;  /* another process's source maps (a worker uses its process's) */
	struct mem_growth growth; /* its heap's growth, from its own readings */
	bool have_growth;
	uint64_t blocks_reported; /* blocked-loop events already in a window's report */
	/* The kernel's counters of the CPU it could not get, at its last window (of kernel_pid's
	 * main thread: a worker's kernel thread is not known). */
	struct contention_sample kernel;
	pid_t kernel_pid;
};

/* Every engine but the main thread's: worker threads and other processes. */
struct app_watch {
	struct app_thread **threads;
	size_t n_threads, cap_threads;
	struct loop_timer *threads_reap, *threads_grace;
	struct app_thread *shown;     /* the live view shows this one; NULL: the main thread */
	size_t n_processes;           /* other processes watched (watch_add_process), ever */
	struct strbuf threads_out;    /* the workers' part of a report: JSON */
	struct strbuf procs_out;      /* ...the other processes' */
	struct strbuf threads_text;   /* ...and text */
};

static void thread_free(struct app_thread *th)
{
	engine_free(th->e);
	app_smap_free(th->smap);
	strbuf_free(&th->json);
	strbuf_free(&th->text);
	free(th);
}

/* ---- every engine's handlers ---- */

/* Who th is, for --serve's profiles and --push: a worker thread belongs to its process. */
static struct app_source app_thread_source(const struct app_thread *th)
{
	if (th->main)
		return (struct app_source){ th->e, (int)th->a->target.pid, 0, "main" };
	if (th->process)
		return (struct app_source){ th->e, (int)th->target.pid, 0, "main" };
	return (struct app_source){ th->e, (int)(th->parent_pid ? th->parent_pid :
		th->a->target.pid), th->info.thread_id, th->info.name };
}

/* The engine the live view shows. */
static struct app_thread *shown_watch(const struct app *a)
{
	return a->watch->shown ? a->watch->shown : a->main;
}

/* The process whose main thread th is (0: none known: a worker, or a target reached by
 * --port whose PID is not known). */
static pid_t kernel_pid_of(const struct app_thread *th)
{
	if (th->main)
		return th->a->target.pid;
	return th->process ? th->target.pid : 0;
}

/* The CPU th could not get since its last window, into win (rw->contention stays NULL when
 * the kernel's counters are not known, or th's process changed: --follow). */
static void watch_kernel(struct app_thread *th, struct app_window *win)
{
	pid_t pid = kernel_pid_of(th);
	struct contention_sample now;

	if (pid <= 0)
		return;
	contention_read(pid, pid, CONTENTION_CGROUP_ROOT, &now);
	if (th->kernel_pid == pid) {
		contention_diff(&th->kernel, &now, &win->contention);
		win->rw.contention = &win->contention;
	}
	th->kernel = now;
	th->kernel_pid = pid;
}

/* The report of one window, built the same way for every engine: its time, span, memory and
 * growth, CPU state, event loop and the blocked-loop events not reported yet (held back while
 * there is no loop reading: they are reported inside it), a fresh allocation profile, the JIT
 * plan and the pause estimates. */
static void watch_report_window(struct app_thread *th, const struct window_stats *w,
	double wall_time_s, struct app_window *win)
{
	const struct app *a = th->a;
	struct engine *e = th->e;
	struct report_window *rw = &win->rw;
	uint64_t n_blocks = engine_blocks_count(e);

	memset(rw, 0, sizeof *rw);
	rw->time_s = wall_time_s;
	rw->window_ms = (w->end_us - w->start_us) / 1000.0;
	rw->interval_us = (double)engine_interval_us(e);
	rw->top_n = a->opt.top_n;
	rw->mem = memseries_last(engine_memseries(e));
	rw->growth = th->have_growth ? &th->growth : NULL;
	rw->cpu_off = !engine_cpu_on(e);
	rw->cpu_off_coverage = rw->cpu_off && engine_cpu_refused(e, NULL);
	rw->next_burst_in_s = engine_next_burst_in_s(e);
	rw->start_pause_est_s = engine_start_pause_s(e);
	rw->gc_pause_est_s = engine_gc_pause_s(e);
	if (engine_evloop_last(e)) {
		win->evloop = *engine_evloop_last(e);
		if (!rw->cpu_off)
			evloop_busy_from_profile(&win->evloop, w->sampled_us, w->idle_us);
		rw->evloop = &win->evloop;
	}
	for (; rw->evloop && th->blocks_reported < n_blocks; th->blocks_reported++) {
		const struct engine_block *k = engine_block_get(e, th->blocks_reported);

		if (k && rw->n_blocks < ENGINE_BLOCKS_KEPT)
			win->blocks[rw->n_blocks++] = *k;
	}
	rw->blocks = win->blocks;
	rw->alloc = engine_alloc_take_fresh(e) ? engine_alloc_latest(e) : NULL;
	engine_jit_info(e, &win->jit);
	rw->jit = rw->cpu_off ? NULL : &win->jit;
	/* HTTP: this window's reading, or none (empty lists) when it did not come in time */
	if (engine_requests_on(e)) {
		static const struct req_window none;
		const struct req_window *req = engine_requests_take(e);

		rw->requests = req ? req : &none;
	}
	watch_kernel(th, win);
}

/* A worker's or another process's window: kept for the main thread's report (and the T
 * table), its line in THREADS, and the live view when it is the one shown. */
static void thread_keep_window(struct app_thread *th, const struct window_stats *w,
	struct app_window *win)
{
	struct app *a = th->a;
	struct report_window *rw = &win->rw;
	struct report_target rt = { (int)th->target.pid, th->target.node_version, th->target.title,
		th->process ? -1 : th->info.thread_id, th->process ? NULL : th->info.name, false, 0 };

	if (th->process)
		app_container_of(&th->target, &rt);
	strbuf_reset(&th->json);
	(th->process ? report_json_process : report_json_thread)(&th->json, &rt, rw, w,
		engine_cumulative(th->e), engine_functab(th->e));
	strbuf_reset(&th->text);
	report_text_window(&th->text, &rt, rw, w, engine_cumulative(th->e), engine_functab(th->e));
	th->fresh = true;
	th->last_w = rw->cpu_off ? NULL : w;
	th->sum.have_window = !rw->cpu_off && w->sampled_us > 0;
	th->sum.busy_pct = w->sampled_us > 0 ? 100.0 * (1 - w->idle_us / w->sampled_us) : NAN;
	th->sum.heap_used_bytes = rw->mem ? rw->mem->v[MEM_HEAP_USED] : NAN;
	if (a->tui && a->watch->shown == th) {
		tui_on_contention(a->tui, rw->contention);
		tui_on_requests(a->tui, rw->requests, rw->window_ms);
		tui_on_window(a->tui, w, rw->window_ms);
	}
}

static void watch_on_window(void *ud, const struct window_stats *w, double wall_time_s)
{
	struct app_thread *th = ud;
	struct app *a = th->a;
	struct app_window win;
	struct app_source src = app_thread_source(th);

	watch_report_window(th, w, wall_time_s, &win);
	app_serve_on_window(a, &src, wall_time_s, win.rw.window_ms / 1000.0);
	app_push_on_window(a, &src, wall_time_s, win.rw.window_ms / 1000.0);
	if (th->main)
		app_main_window(a, w, &win);
	else
		thread_keep_window(th, w, &win);
}

/* Says msg, naming the thread or process it is about unless it is the main target's. */
static void watch_say(const struct app_thread *th, bool is_error, const char *msg)
{
	char *line;

	if (th->main) {
		app_say(th->a, is_error, msg);
		return;
	}
	line = th->process ? xasprintf("PID %d: %s", (int)th->target.pid, msg) :
		th->parent_pid ? xasprintf("PID %d worker %ld %s: %s", (int)th->parent_pid,
		th->info.thread_id, th->info.name, msg) :
		xasprintf("worker %ld %s: %s", th->info.thread_id, th->info.name, msg);
	app_say(th->a, is_error, line);
	free(line);
}

static void watch_on_notice(void *ud, const char *msg)
{
	watch_say(ud, false, msg);
}

/* A memory reading: the engine's own growth (its reports, /metrics, its memory screen). */
static void watch_on_memory(void *ud, const struct mem_sample *m)
{
	struct app_thread *th = ud;
	struct app *a = th->a;

	memseries_growth(engine_memseries(th->e), a->opt.growth_window_s, m->t_s, &th->growth);
	th->have_growth = true;
	if (th->main)
		app_main_memory(a, m);
	if (a->tui && shown_watch(a) == th)
		tui_on_memory(a->tui, &th->growth, a->opt.growth_window_s, a->opt.no_eval);
}

static void watch_on_post_gc(void *ud, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n)
{
	struct app_thread *th = ud;

	if (th->main)
		app_main_post_gc(th->a, end_s, dur_s, used, ago_s, n);
}

static void watch_on_alloc(void *ud)
{
	struct app_thread *th = ud;

	if (th->a->tui && shown_watch(th->a) == th)
		tui_redraw(th->a->tui);
}

static void watch_on_snapshot(void *ud, bool ok, const char *msg)
{
	struct app_thread *th = ud;

	watch_say(th, !ok, msg);
	if (th->a->tui)
		tui_redraw(th->a->tui);
}

/* Only the main engine asks (the others refuse a long pause by themselves and say so). */
static void watch_on_cpu_held(void *ud, double pause_s)
{
	struct app_thread *th = ud;

	if (th->a->tui)
		tui_ask_start_cpu(th->a->tui, pause_s);
}

static void thread_on_finished(struct app_thread *th, int status, const char *why)
{
	struct app *a = th->a;

	th->finished = true;
	th->sum.exited = true;
	{
		struct app_source src = app_thread_source(th);

		app_push_source_gone(a, &src);
	}
	if (a->watch->shown == th && a->tui) {
		char *msg = th->process ? xasprintf("PID %d is gone; showing PID %d",
			(int)th->target.pid, (int)a->target.pid) : xasprintf("worker thread %ld exited; "
			"showing the main thread", th->info.thread_id);
		watch_show(a, NULL);
		tui_status(a->tui, false, msg);
		free(msg);
	}
	/* A worker that could not be profiled says why, unless it simply exited (also before its
	 * session opened: unreachable); a process always does. */
	if (status != EXIT_OK && why && !a->stopping && (th->process ||
	    (status != EXIT_TARGET_GONE && status != EXIT_UNREACHABLE)))
		watch_say(th, false, why);
	/* Freed outside the engine's own callback. */
	loop_timer_arm(a->watch->threads_reap, 0);
}

static void watch_on_finished(void *ud, int status, const char *why)
{
	struct app_thread *th = ud;

	if (th->main)
		app_main_finished(th->a, status, why);
	else
		thread_on_finished(th, status, why);
}

static void worker_new(struct app *a, struct app_thread *parent,
	const struct engine_worker_info *w, const struct engine_transport *tp);

/* A worker thread of th's process started (or was running at attach). */
static void watch_on_worker(void *ud, const struct engine_worker_info *w,
	const struct engine_transport *tp)
{
	struct app_thread *th = ud;

	worker_new(th->a, th->main ? NULL : th, w, tp);
}

static const struct engine_handlers watch_handlers = {
	.on_window = watch_on_window,
	.on_notice = watch_on_notice,
	.on_finished = watch_on_finished,
	.on_memory = watch_on_memory,
	.on_post_gc = watch_on_post_gc,
	.on_alloc = watch_on_alloc,
	.on_snapshot = watch_on_snapshot,
	.on_cpu_held = watch_on_cpu_held,
	.on_worker = watch_on_worker,
};

static struct app_thread *thread_new(struct app *a);
static void thread_start(struct app *a, struct app_thread *th);

struct engine *watch_main(struct app *a, const struct engine_transport *tp,
	const struct engine_clock *clock, const struct attach_result *target,
	const struct engine_config *cfg)
{
	struct app_thread *th = thread_new(a);
	struct app_window first;

	th->main = true;
	th->e = engine_create(a->loop, tp, clock, target, cfg, &watch_handlers, th);
	a->main = th;
	watch_kernel(th, &first); /* the counters the first window starts from */
	return th->e;
}

void watch_main_free(struct app *a)
{
	if (a->main)
		thread_free(a->main);
	a->main = NULL;
	a->engine = NULL;
}

const struct mem_growth *watch_growth_of(const struct app *a, const struct engine *e)
{
	if (a->main && a->main->e == e)
		return a->main->have_growth ? &a->main->growth : NULL;
	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (a->watch->threads[i]->e == e)
			return a->watch->threads[i]->have_growth ? &a->watch->threads[i]->growth : NULL;
	return NULL;
}

/* A worker thread of the main process (parent NULL) or of another one: an engine on it,
 * through that process's session. */
static void worker_new(struct app *a, struct app_thread *parent,
	const struct engine_worker_info *w, const struct engine_transport *tp)
{
	struct app_thread *th;
	struct engine_config cfg = a->engine_cfg;

	if (a->stopping || a->finished || (parent && (parent->finished || parent->stop_sent)))
		return;
	th = thread_new(a);
	th->info = *w;
	th->target = parent ? parent->target : a->target;
	if (parent) {
		/* its process's scripts and maps */
		th->parent_pid = parent->target.pid;
		cfg.smap = app_smap_cache(parent->smap);
	}
	snprintf(th->target.title, sizeof th->target.title, "%s", w->name);
	th->target.opened_by_us = false; /* nothing to close in a worker */
	th->sum.thread_id = w->thread_id;
	util_sanitize(w->name, strlen(w->name), th->sum.name, sizeof th->sum.name);
	/* Its profiles and memory, its loop; the process's V8 flags are the main engine's, and
	 * what only the whole process has (allocation sampling's GCs, -n) stays with it. */
	cfg.workers = false;
	cfg.worker = true;
	cfg.iterations = 0;
	cfg.alloc = false;
	cfg.calltree_max_samples = WORKER_CALLTREE_MAX_SAMPLES;
	/* Every request to a worker goes through the main thread's inspector, which interrupts
	 * that thread: a worker's heap is read every 5 s at most (a window's loop reading and
	 * rotation stay), which took 32 workers' requests a second from about 130 to 100. */
	if (cfg.mem_interval_s > 0 && cfg.mem_interval_s < WORKER_MEM_INTERVAL_S)
		cfg.mem_interval_s = WORKER_MEM_INTERVAL_S;
	cfg.ask_pause = false;
	th->e = engine_create(a->loop, tp, &a->engine_clock, &th->target, &cfg, &watch_handlers, th);
	thread_start(a, th);
}

static struct app_thread *thread_new(struct app *a)
{
	struct app_thread *th = xcalloc(1, sizeof *th);

	th->a = a;
	strbuf_init(&th->json);
	strbuf_init(&th->text);
	th->sum.busy_pct = NAN;
	th->sum.heap_used_bytes = NAN;
	return th;
}

/* Lists th and starts its engine; one that cannot start is freed at the next reap. */
static void thread_start(struct app *a, struct app_thread *th)
{
	char *cause = NULL;

	if (a->watch->n_threads == a->watch->cap_threads) {
		a->watch->cap_threads = a->watch->cap_threads ? 2 * a->watch->cap_threads : 8;
		a->watch->threads = xrealloc(a->watch->threads, a->watch->cap_threads * sizeof *a->watch->threads);
	}
	a->watch->threads[a->watch->n_threads++] = th;
	if (engine_start(th->e, &cause) < 0) {
		th->finished = true;
		if (th->process)
			watch_say(th, false, cause);
		free(cause);
		/* its engine will not close what service_attach opened */
		if (th->process && th->target.opened_by_us)
			app_close_opened(a, &th->target, false);
		loop_timer_arm(a->watch->threads_reap, 0);
	}
}

void watch_add_process(struct app *a, const struct attach_result *r)
{
	struct app_thread *th = thread_new(a);
	struct engine_config cfg = a->engine_cfg;
	struct engine_transport tp;
	struct engine_clock clock;

	th->process = true;
	th->target = *r;
	th->info.thread_id = 0;
	th->sum.pid = (int)r->pid;
	a->watch->n_processes++;
	/* Its own inspector, profiler and memory, and its worker threads (thread_on_worker); -n
	 * and allocation sampling stay with the main process. A pause over --max-pause is refused
	 * (no one to ask for each process) and said. */
	cfg.workers = a->engine_cfg.workers;
	cfg.iterations = 0;
	cfg.alloc = false;
	cfg.ask_pause = false;
	cfg.calltree_max_samples = WORKER_CALLTREE_MAX_SAMPLES;
	th->smap = app_smap_create(a->loop, r->pid, !a->opt.no_source_maps);
	cfg.smap = app_smap_cache(th->smap);
	engine_io_websocket(a->loop, &tp, &clock);
	th->e = engine_create(a->loop, &tp, &a->engine_clock, &th->target, &cfg, &watch_handlers,
		th);
	{
		struct app_window first;

		watch_kernel(th, &first); /* the counters its first window starts from */
	}
	thread_start(a, th);
}

size_t watch_processes_live(const struct app *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->watch->n_threads; i++)
		n += a->watch->threads[i]->process && !a->watch->threads[i]->finished;
	return n;
}

/* Several processes (--pid again, --children, --match): every one is attached now; the
 * first of the list that attached is the main target, the others wait in a->members for
 * watch_start_service. Returns EXIT_OK, or the first process's failure when none attached. */
int watch_attach_service(struct app *a, const struct attach_opts *ao, char **cause)
{
	struct procfs_pids pids = { 0 };
	pid_t given[OPT_PIDS_MAX];
	size_t n_given = 0, main = SIZE_MAX;
	int rc;

	if (a->opt.pid)
		given[n_given++] = a->opt.pid;
	for (size_t i = 0; i < a->opt.n_more_pids; i++)
		given[n_given++] = a->opt.more_pids[i];
	if (service_expand(given, n_given, a->opt.children, a->opt.match,
	    a->opt.user, &pids, cause) < 0) {
		procfs_pids_free(&pids);
		return EXIT_USAGE;
	}
	/* before any is signalled: what their descendants had open then stays open */
	for (size_t i = 0; i < pids.n; i++)
		app_note_kin(a, pids.v[i]);
	a->members = xcalloc(pids.n, sizeof *a->members);
	a->n_members = pids.n;
	/* with --children, --match or --user more processes may come (app_rescan.c): even a lone
	 * first one leaves the shared port to them */
	service_attach(&pids, ao, a->opt.children || a->opt.match || a->opt.user, a->members);
	procfs_pids_free(&pids);
	for (size_t i = 0; i < a->n_members && main == SIZE_MAX; i++)
		if (a->members[i].code == EXIT_OK)
			main = i;
	if (main == SIZE_MAX) {
		rc = a->members[0].code;
		*cause = a->members[0].cause;
		a->members[0].cause = NULL;
		return rc;
	}
	a->target = a->members[main].r;
	a->main_member = main;
	return EXIT_OK;
}

/* The other processes of the service, once the main engine has started; what failed is
 * said once. */
void watch_start_service(struct app *a)
{
	for (size_t i = 0; i < a->n_members; i++) {
		struct service_member *s = &a->members[i];

		if (s->cause) {
			char *msg = xasprintf("PID %d: %s", (int)s->pid, s->cause);
			app_say(a, s->code != EXIT_OK, msg);
			free(msg);
		}
		if (s->code == EXIT_OK && i != a->main_member)
			watch_add_process(a, &s->r);
	}
	service_members_free(a->members, a->n_members);
	free(a->members);
	a->members = NULL;
	a->n_members = 0;
}

void watch_show(struct app *a, struct app_thread *th)
{
	a->watch->shown = th;
	if (!a->tui)
		return;
	if (th && th->process)
		tui_show_thread(a->tui, th->e, 0, (int)th->target.pid, th->target.title);
	else if (th && th->parent_pid)
		/* a worker of another process: its PID and thread */
		tui_show_thread(a->tui, th->e, th->info.thread_id > 0 ? th->info.thread_id : -1,
			(int)th->parent_pid, th->info.name);
	else
		tui_show_thread(a->tui, th ? th->e : a->engine, th ? (th->info.thread_id > 0 ?
			th->info.thread_id : -1) : 0, 0, th ? th->info.name : NULL);
	/* its own heap's growth at once, not at its next reading */
	if (shown_watch(a)->have_growth)
		tui_on_memory(a->tui, &shown_watch(a)->growth, a->opt.growth_window_s, a->opt.no_eval);
}

/* The threads in the order the PROCESSES/THREADS line shows them: the main process's
 * workers, then each other process followed by its own workers. Returns how many (all of
 * a->watch->threads, into out, which has room for them). */
static size_t threads_in_order(const struct app *a, struct app_thread **out)
{
	size_t n = 0;

	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (!a->watch->threads[i]->process && !a->watch->threads[i]->parent_pid)
			out[n++] = a->watch->threads[i];
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		struct app_thread *p = a->watch->threads[i];

		if (!p->process)
			continue;
		out[n++] = p;
		for (size_t k = 0; k < a->watch->n_threads; k++)
			if (a->watch->threads[k]->parent_pid == p->target.pid && !a->watch->threads[k]->process)
				out[n++] = a->watch->threads[k];
	}
	/* workers whose process is no longer listed (it cannot be: a process is freed after
	 * its workers), kept all the same */
	for (size_t i = 0; i < a->watch->n_threads && n < a->watch->n_threads; i++) {
		bool listed = false;
		for (size_t k = 0; k < n && !listed; k++)
			listed = out[k] == a->watch->threads[i];
		if (!listed)
			out[n++] = a->watch->threads[i];
	}
	return n;
}

void watch_show_next(void *ud)
{
	struct app *a = ud;
	struct app_thread **order = xcalloc(a->watch->n_threads + 1, sizeof *order);
	size_t n = threads_in_order(a, order), i = 0;

	/* main, then each live thread in the order of the line, then main again */
	if (a->watch->shown)
		for (; i < n && order[i] != a->watch->shown; i++)
			;
	for (i = a->watch->shown ? i + 1 : 0; i < n; i++)
		if (!order[i]->finished) {
			watch_show(a, order[i]);
			free(order);
			return;
		}
	free(order);
	watch_show(a, NULL);
}

struct engine *watch_shown_engine(const struct app *a)
{
	return a->watch->shown ? a->watch->shown->e : a->engine;
}

struct app_smap *watch_smap_of(const struct app *a, const struct engine *e)
{
	pid_t pid = 0;

	for (size_t i = 0; i < a->watch->n_threads && !pid; i++)
		if (a->watch->threads[i]->e == e) {
			if (a->watch->threads[i]->process)
				return a->watch->threads[i]->smap;
			pid = a->watch->threads[i]->parent_pid;
		}
	/* a worker of another process: its process's */
	for (size_t i = 0; pid && i < a->watch->n_threads; i++)
		if (a->watch->threads[i]->process && a->watch->threads[i]->target.pid == pid)
			return a->watch->threads[i]->smap;
	return a->smap;
}

int watch_shown_pid(const struct app *a)
{
	return (int)(a->watch->shown && (a->watch->shown->process || a->watch->shown->parent_pid) ?
		a->watch->shown->target.pid : a->target.pid);
}

long watch_shown_thread_id(const struct app *a)
{
	if (a->watch->shown && a->watch->shown->process)
		return 0;
	return a->watch->shown ? (a->watch->shown->info.thread_id > 0 ? a->watch->shown->info.thread_id : -1) : 0;
}

/* Whether a worker thread of process pid is still listed (live: not finished yet). */
static bool has_workers(const struct app *a, pid_t pid, bool live)
{
	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (a->watch->threads[i]->parent_pid == pid && (!live || !a->watch->threads[i]->finished))
			return true;
	return false;
}

/* Stops every live engine but those of processes whose workers have not finished yet: a
 * worker's engine leaves through its process's session, so the process leaves after them
 * (called again as workers finish). */
static void stop_threads(struct app *a)
{
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		struct app_thread *th = a->watch->threads[i];

		if (th->finished || th->stop_sent ||
		    (th->process && has_workers(a, th->target.pid, true)))
			continue;
		th->stop_sent = true;
		engine_stop(th->e);
	}
}

static size_t threads_live(const struct app *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->watch->n_threads; i++)
		n += !a->watch->threads[i]->finished;
	return n;
}

/* Frees the finished threads once their end is reported (or nothing reports), until ntop-js
 * stops; the main engine leaves once they all have, when ntop-js is stopping. */
static void app_on_threads_reap(void *ud)
{
	struct app *a = ud;
	size_t j = 0;

	/* workers first: a process's engine and maps outlive its workers' */
	for (int pass = 0; pass < 2; pass++) {
		j = 0;
		for (size_t i = 0; i < a->watch->n_threads; i++) {
			struct app_thread *th = a->watch->threads[i];

			/* once stopping, what they collected stays for -o and --folded
			 * (watch_free) */
			if (th->finished && !a->stopping && (th->reported_exit || !a->opt.batch) &&
			    (pass == 0 ? !th->process : !has_workers(a, th->target.pid, false)))
				thread_free(th);
			else
				a->watch->threads[j++] = th;
		}
		a->watch->n_threads = j;
	}
	if (a->stopping)
		stop_threads(a);
	if (a->stopping && threads_live(a) == 0) {
		loop_timer_cancel(a->watch->threads_grace);
		if (a->finished)
			loop_stop(a->loop);
		else
			engine_stop(a->engine);
	}
}

static void app_on_stop_grace(void *ud)
{
	struct app *a = ud;
	bool again = false;

	/* the processes still waiting for their workers leave now */
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		struct app_thread *th = a->watch->threads[i];

		if (th->finished)
			continue;
		if (!th->stop_sent) {
			th->stop_sent = true;
			engine_stop(th->e);
		}
		again |= !th->graced;
		th->graced = true;
	}
	if (!a->finished) {
		engine_stop(a->engine);
		return;
	}
	/* Their leave closes the inspectors they opened: it gets one more grace (its calls have
	 * deadlines of their own), then the loop ends all the same and app_close_at_exit closes
	 * what is left. */
	if (again)
		loop_timer_arm(a->watch->threads_grace, WORKERS_LEAVE_GRACE_S + a->opt.timeout_s);
	else
		loop_stop(a->loop);
}

void watch_create(struct app *a)
{
	a->watch = xcalloc(1, sizeof *a->watch);
	strbuf_init(&a->watch->threads_out);
	strbuf_init(&a->watch->procs_out);
	strbuf_init(&a->watch->threads_text);
}

void watch_init(struct app *a)
{
	a->watch->threads_reap = loop_timer_create(a->loop, app_on_threads_reap, a);
	a->watch->threads_grace = loop_timer_create(a->loop, app_on_stop_grace, a);
}

size_t watch_n_threads(const struct app *a)
{
	return a->watch->n_threads;
}

size_t watch_n_processes(const struct app *a)
{
	return a->watch->n_processes;
}

bool watch_shows_main(const struct app *a)
{
	return !a->watch->shown;
}

void watch_main_ended(struct app *a)
{
	loop_timer_cancel(a->watch->threads_grace);
}

void watch_stop(struct app *a)
{
	if (a->stopping) {
		engine_stop(a->engine);
		return;
	}
	a->stopping = true;
	if (threads_live(a) == 0) {
		engine_stop(a->engine);
		return;
	}
	stop_threads(a);
	loop_timer_arm(a->watch->threads_grace, WORKERS_LEAVE_GRACE_S + a->opt.timeout_s);
}

/* A thread or process named, with one state instead of a window ("exited", "late"):
 * {"target":{"pid":N},"late":true} for a process, with "thread_id" and "thread_name" first
 * for a worker. */
static void thread_report_state(const struct app_thread *th, struct strbuf *json, bool first,
	const char *state)
{
	if (th->process) {
		strbuf_printf(json, "%s{\"target\":{\"pid\":%d},\"%s\":true}", first ? "" : ",",
			(int)th->target.pid, state);
		return;
	}
	strbuf_printf(json, "%s{\"thread_id\":", first ? "" : ",");
	if (th->info.thread_id > 0)
		strbuf_printf(json, "%ld", th->info.thread_id);
	else
		strbuf_puts(json, "null");
	strbuf_puts(json, ",\"thread_name\":");
	strbuf_json_string(json, th->info.name, strlen(th->info.name));
	strbuf_printf(json, ",\"target\":{\"pid\":%d},\"%s\":true}", (int)th->target.pid,
		state);
}

/* A thread's or process's end, once, for the report. */
static void thread_report_exit(const struct app_thread *th, struct strbuf *json, bool first,
	struct strbuf *text)
{
	if (json)
		thread_report_state(th, json, first, "exited");
	if (text && th->process) {
		strbuf_printf(text, "PROCESS: pid %d is gone\n\n", (int)th->target.pid);
	} else if (text) {
		strbuf_printf(text, "THREAD: worker %ld", th->info.thread_id);
		if (th->info.name[0])
			strbuf_printf(text, " (%s)", th->info.name);
		if (th->parent_pid)
			strbuf_printf(text, " of pid %d", (int)th->parent_pid);
		strbuf_puts(text, " exited\n\n");
	}
}

void watch_end(struct app *a)
{
	if (threads_live(a) == 0) {
		loop_stop(a->loop);
		return;
	}
	/* The other processes' inspectors are still open: they leave first, politely. */
	if (!a->stopping) {
		a->stopping = true;
		stop_threads(a);
		loop_timer_arm(a->watch->threads_grace, WORKERS_LEAVE_GRACE_S + a->opt.timeout_s);
	}
}

/* The report's parts, into json and procs_json (reset first) and appended to text; any may be
 * NULL. */
static void report_others(struct app *a, struct strbuf *json, struct strbuf *procs_json,
	struct strbuf *text)
{
	bool first_thread = true, first_proc = true;

	if (json)
		strbuf_reset(json);
	if (procs_json)
		strbuf_reset(procs_json);
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		struct app_thread *th = a->watch->threads[i];
		struct strbuf *out = th->process ? procs_json : json;
		bool *first = th->process ? &first_proc : &first_thread;

		if (th->fresh) {
			if (out) {
				strbuf_puts(out, *first ? "" : ",");
				strbuf_puts(out, th->json.data ? th->json.data : "{}");
				*first = false;
			}
			if (text && th->text.data)
				strbuf_puts(text, th->text.data);
			th->fresh = false;
		} else if (out && !th->finished && th->json.len) {
			/* It has had windows, and this line's is late (a busy target or machine): said
			 * so, that a reader does not take it for gone. */
			thread_report_state(th, out, *first, "late");
			*first = false;
		}
		if (th->finished && !th->reported_exit) {
			thread_report_exit(th, out, *first, text);
			if (out)
				*first = false;
			th->reported_exit = true;
			loop_timer_arm(a->watch->threads_reap, 0);
		}
	}
	if (json && !json->data)
		strbuf_puts(json, "");
	if (procs_json && !procs_json->data)
		strbuf_puts(procs_json, "");
}

const char *watch_report_others(struct app *a, struct report_window *rw, bool json, bool text)
{
	struct app_watch *aw = a->watch;

	strbuf_reset(&aw->threads_text);
	rw->threads_json = NULL;
	rw->processes_json = NULL;
	if (!a->engine_cfg.workers && !aw->n_processes)
		return "";
	report_others(a, json ? &aw->threads_out : NULL, json ? &aw->procs_out : NULL,
		text ? &aw->threads_text : NULL);
	if (json && a->engine_cfg.workers)
		rw->threads_json = aw->threads_out.data ? aw->threads_out.data : "";
	if (json && aw->n_processes)
		rw->processes_json = aw->procs_out.data ? aw->procs_out.data : "";
	return aw->threads_text.data ? aw->threads_text.data : "";
}

struct export_source *watch_export_sources(const struct app *a, size_t *n)
{
	struct export_source *s = xcalloc(a->watch->n_threads + 1, sizeof *s);

	s[0].t = engine_calltree(a->engine);
	s[0].ft = engine_functab(a->engine);
	if (a->watch->n_processes)
		snprintf(s[0].frame, sizeof s[0].frame, "pid %d", (int)a->target.pid);
	else
		snprintf(s[0].frame, sizeof s[0].frame, "main");
	*n = 1;
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		const struct app_thread *th = a->watch->threads[i];
		struct export_source *e = &s[*n];

		e->t = engine_calltree(th->e);
		e->ft = engine_functab(th->e);
		if (!e->t)
			continue;
		if (th->process) {
			snprintf(e->tag, sizeof e->tag, "p%d", (int)th->target.pid);
			snprintf(e->frame, sizeof e->frame, "pid %d", (int)th->target.pid);
		} else if (th->parent_pid) {
			/* another process's worker: its ids are that process's own */
			snprintf(e->tag, sizeof e->tag, "p%d-t%ld", (int)th->parent_pid,
				th->info.thread_id);
			snprintf(e->frame, sizeof e->frame, "pid %d thread %ld%s%.40s",
				(int)th->parent_pid, th->info.thread_id, th->info.name[0] ? " " : "",
				th->info.name);
		} else {
			snprintf(e->tag, sizeof e->tag, "t%ld", th->info.thread_id);
			snprintf(e->frame, sizeof e->frame, "thread %ld%s%.48s", th->info.thread_id,
				th->info.name[0] ? " " : "", th->info.name);
		}
		(*n)++;
	}
	return s;
}

void watch_table_all(struct app *a, const struct window_stats *main_w)
{
	char src[64];

	tui_all_begin(a->tui, a->watch->n_processes > 0);
	if (a->watch->n_processes)
		snprintf(src, sizeof src, "pid %d", (int)a->target.pid);
	else
		snprintf(src, sizeof src, "main");
	tui_all_add(a->tui, src, main_w, engine_functab(a->engine));
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		const struct app_thread *th = a->watch->threads[i];
		char pid[24] = "";

		if (th->finished || !th->last_w)
			continue;
		if (th->parent_pid)
			snprintf(pid, sizeof pid, "pid %d ", (int)th->parent_pid);
		if (th->process)
			snprintf(src, sizeof src, "pid %d", (int)th->target.pid);
		else if (th->info.thread_id > 0)
			snprintf(src, sizeof src, "%s%ld%s%.40s", pid, th->info.thread_id,
				th->info.name[0] ? " " : "", th->info.name);
		else
			snprintf(src, sizeof src, "%s? %.40s", pid, th->info.name);
		tui_all_add(a->tui, src, th->last_w, engine_functab(th->e));
	}
	tui_all_end(a->tui);
}

size_t watch_summary(const struct app *a, const struct model_thread *main_thread,
	struct model_thread *out, size_t max)
{
	size_t n = 0;

	if (max == 0)
		return 0;
	out[n] = *main_thread;
	out[n++].shown = !a->watch->shown;
	struct app_thread **order = xcalloc(a->watch->n_threads + 1, sizeof *order);
	size_t k = threads_in_order(a, order);
	for (size_t i = 0; i < k && n < max; i++) {
		out[n] = order[i]->sum;
		out[n++].shown = a->watch->shown == order[i];
	}
	free(order);
	return n;
}

void watch_free(struct app *a)
{
	if (!a->watch)
		return;
	/* workers before processes: a worker's engine borrows its process's maps */
	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (!a->watch->threads[i]->process) {
			thread_free(a->watch->threads[i]);
			a->watch->threads[i] = NULL;
		}
	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (a->watch->threads[i])
			thread_free(a->watch->threads[i]);
	free(a->watch->threads);
	loop_timer_free(a->watch->threads_reap);
	loop_timer_free(a->watch->threads_grace);
	strbuf_free(&a->watch->threads_out);
	strbuf_free(&a->watch->procs_out);
	strbuf_free(&a->watch->threads_text);
	free(a->watch);
	a->watch = NULL;
}

void watch_close_left_open(struct app *a)
{
	for (size_t i = 0; i < a->watch->n_threads; i++) {
		struct app_thread *th = a->watch->threads[i];

		/* with --no-eval, a leave that ran has said so (engine.c) */
		if (th->process && engine_inspector_left_open(th->e))
			app_close_opened(a, &th->target, th->finished);
	}
}

bool watch_has_pid(const struct app *a, pid_t pid)
{
	if (pid == a->target.pid)
		return true;
	for (size_t i = 0; i < a->n_members; i++)
		if (a->members[i].code == EXIT_OK && a->members[i].r.pid == pid)
			return true;
	for (size_t i = 0; i < a->watch->n_threads; i++)
		if (a->watch->threads[i]->process && a->watch->threads[i]->target.pid == pid)
			return true;
	return false;
}

bool watch_at(const struct app *a, size_t i, struct engine **e,
	const struct attach_result **target, const char **name, bool *process)
{
	const struct app_thread *th;

	if (i >= a->watch->n_threads)
		return false;
	th = a->watch->threads[i];
	*e = th->finished ? NULL : th->e;
	*target = &th->target;
	*name = th->process ? "main" : th->info.name;
	*process = th->process;
	return true;
}
