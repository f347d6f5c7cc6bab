/* app_rescan.c: the processes of a service that start during the session (--children,
 * --match, --user): a worker a cluster primary forks again after one died, an app PM2
 * restarts, one more server of the same command. Every few seconds the service is listed again
 * (service_expand, as at the start); a Node process not seen before is attached once it is
 * still there at the next listing (so it has run for a while: Node installs its SIGUSR1
 * handler early in its start, but not at exec), then watched like the others.
 *
 * Attaching signals the process, waits for its inspector and moves it off the port the
 * service shares: a few hundred milliseconds the loop must not wait for, so it runs on a
 * thread of its own, one process at a time, and hands its result back through a loop wake. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "app_priv.h"
#include "exitcode.h"
#include "loop.h"
#include "service.h"
#include "util.h"

/* --children reads the tree below the PIDs given; --match and --user read every process of
 * the machine (doc/benchmarks.md 16), so they list less often. */
#define RESCAN_S 2.0
#define RESCAN_ALL_S 10.0

struct app_rescan {
	struct app *a;
	struct attach_opts ao;
	struct loop_timer *timer;
	double period_s;
	struct loop_wake *wake;
	struct procfs_pids seen;  /* attached, or tried: not again while listed */
	struct procfs_pids fresh; /* listed once, not yet twice */
	pthread_t thread;
	bool running;
	atomic_bool done;
	atomic_bool cancel;     /* the session is ending: the thread skips the move */
	struct service_member job; /* the thread's, until done */
};

static void *attach_thread(void *ud)
{
	struct app_rescan *r = ud;
	struct attach_opts one = r->ao;

	one.pid = r->job.pid;
	r->job.code = attach_target(&one, &r->job.r, &r->job.cause);
	if (r->job.code == EXIT_OK && r->job.r.opened_by_us && !atomic_load(&r->cancel)) {
		char *why = NULL;

		/* as service_attach: off the shared port, or the next one cannot open its own */
		if (attach_move_inspector(&one, &r->job.r, &why) != EXIT_OK)
			r->job.cause = why;
		else
			free(why);
	}
	atomic_store(&r->done, true);
	loop_wake_signal(r->wake);
	return NULL;
}

/* The thread's result: watched, or (undo: the session is ending) its inspector closed again. */
static void take_result(struct app_rescan *r, bool undo)
{
	struct app *a = r->a;
	struct service_member *s = &r->job;

	pthread_join(r->thread, NULL);
	r->running = false;
	atomic_store(&r->done, false);
	if (s->code == EXIT_OK && undo) {
		char *why = NULL;

		if (s->r.opened_by_us && attach_close_inspector(&r->ao, &s->r, &why) != EXIT_OK)
			app_say(a, true, why);
		free(why);
	} else if (s->code == EXIT_OK) {
		char *msg = xasprintf("PID %d joined the service", (int)s->pid);

		app_say(a, false, msg);
		free(msg);
		watch_add_process(a, &s->r);
	}
	if (s->cause) {
		char *msg = xasprintf("PID %d: %s", (int)s->pid, s->cause);

		app_say(a, s->code != EXIT_OK, msg);
		free(msg);
	}
	free(s->cause);
	memset(s, 0, sizeof *s);
}

static void on_wake(void *ud)
{
	struct app_rescan *r = ud;

	if (r->running && atomic_load(&r->done))
		take_result(r, r->a->stopping || r->a->finished);
}

static void on_timer(void *ud)
{
	struct app_rescan *r = ud;
	struct app *a = r->a;
	struct procfs_pids pids = { 0 }, fresh = { 0 };
	pid_t given[OPT_PIDS_MAX];
	size_t n_given = 0;
	char *cause = NULL;

	if (a->stopping || a->finished)
		return;
	loop_timer_arm(r->timer, r->period_s);
	if (a->opt.pid)
		given[n_given++] = a->opt.pid;
	for (size_t i = 0; i < a->opt.n_more_pids; i++)
		given[n_given++] = a->opt.more_pids[i];
	/* a failure here (a given PID gone, no match left) is not news: the next listing may do */
	if (service_expand(given, n_given, a->opt.children, a->opt.match, a->opt.user, &pids,
	    &cause) < 0) {
		free(cause);
		procfs_pids_free(&pids);
		return;
	}
	free(cause);
	/* a PID no longer listed is forgotten: it may come back as another process */
	size_t keep = 0;
	for (size_t i = 0; i < r->seen.n; i++)
		if (procfs_pids_has(&pids, r->seen.v[i]) ||
		    (r->running && r->seen.v[i] == r->job.pid))
			r->seen.v[keep++] = r->seen.v[i];
	r->seen.n = keep;
	for (size_t i = 0; i < pids.n; i++) {
		pid_t pid = pids.v[i];

		if (pid == a->target.pid || procfs_pids_has(&r->seen, pid))
			continue;
		if (!procfs_pids_has(&r->fresh, pid)) {
			procfs_pids_add(&fresh, pid); /* first listed: wait for the next */
			continue;
		}
		if (r->running || 1 + watch_processes_live(a) >= SERVICE_MAX) {
			procfs_pids_add(&fresh, pid); /* still waiting its turn */
			continue;
		}
		memset(&r->job, 0, sizeof r->job);
		r->job.pid = pid;
		atomic_store(&r->done, false);
		if (pthread_create(&r->thread, NULL, attach_thread, r) != 0) {
			procfs_pids_add(&fresh, pid); /* tried again at the next listing */
			continue;
		}
		procfs_pids_add(&r->seen, pid);
		r->running = true;
	}
	/* the fresh ones gone before their second listing are forgotten */
	procfs_pids_free(&r->fresh);
	r->fresh = fresh;
	procfs_pids_free(&pids);
}

void app_rescan_start(struct app *a, const struct attach_opts *ao)
{
	struct app_rescan *r;

	if (!(a->opt.children || a->opt.match || a->opt.user) || a->rescan)
		return;
	r = xcalloc(1, sizeof *r);
	r->a = a;
	r->ao = *ao;
	r->ao.pid = 0;
	atomic_init(&r->done, false);
	atomic_init(&r->cancel, false);
	r->period_s = a->opt.match || a->opt.user ? RESCAN_ALL_S : RESCAN_S;
	r->wake = loop_wake_create(a->loop, on_wake, r);
	if (!r->wake) {
		app_say(a, true, "new processes of the service will not be looked for (no way to "
			"wake the event loop)");
		free(r);
		return;
	}
	r->timer = loop_timer_create(a->loop, on_timer, r);
	/* every process of the first listing was attached or said why not: none again */
	for (size_t i = 0; i < a->n_members; i++)
		procfs_pids_add(&r->seen, a->members[i].pid);
	a->rescan = r;
	loop_timer_arm(r->timer, r->period_s);
}

void app_rescan_free(struct app *a)
{
	struct app_rescan *r = a->rescan;

	if (!r)
		return;
	/* the session is over: an attach under way is waited for (its steps are bounded by
	 * --timeout), not moved, and undone */
	atomic_store(&r->cancel, true);
	if (r->running)
		take_result(r, true);
	loop_timer_free(r->timer);
	loop_wake_free(r->wake);
	procfs_pids_free(&r->seen);
	procfs_pids_free(&r->fresh);
	free(r);
	a->rescan = NULL;
}
