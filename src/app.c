/* app.c: see app.h. */
#include "config.h"

#include "app.h"
#include "app_priv.h"
#include "aggregate.h"
#include "attach.h"
#include "calltree.h"
#include "discover.h"
#include "engine.h"
#include "evloop.h"
#include "exitcode.h"
#include "export.h"
#include "functab.h"
#include "launch.h"
#include "loop.h"
#include "memlog.h"
#include "memseries.h"
#include "model.h"
#include "procfs.h"
#include "options.h"
#include "pause.h"
#include "picker.h"
#include "report.h"
#include "service.h"
#include "settings.h"
#include "strbuf.h"
#include "transport.h"
#include "tui.h"
#include "util.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define APP_MAX_MESSAGE_BYTES ((size_t)512 << 20)
/* With --later-interval, the first seconds sample at -i (the first windows an operator reads,
 * and the target's code compiled again after the attach), then at it (doc/benchmarks.md
 * section 25: not the default, as code V8 optimizes after the switch lost inlined frames). */
#define APP_LATER_AFTER_S 5.0

void app_log(struct app *a, const char *json, size_t len)
{
	char *cause = NULL;

	if (!a->log)
		return;
	if (memlog_write(a->log, json, len, util_now_wall_s(), &cause) < 0) {
		/* Say it once and stop logging rather than fail the session. */
		char *msg = xasprintf("%s Logging stopped.", cause);
		fprintf(stderr, "ntop-js: %s\n", msg);
		free(msg);
		free(cause);
		memlog_close(a->log);
		a->log = NULL;
	}
}

void app_log_attach(struct app *a)
{
	strbuf_reset(&a->line);
	strbuf_puts(&a->line, "{\"type\":\"attach\",\"time\":");
	strbuf_printf(&a->line, "%.3f", util_now_wall_s());
	strbuf_printf(&a->line, ",\"target\":{\"pid\":%d,\"node_version\":", (int)a->target.pid);
	strbuf_json_string(&a->line, a->target.node_version, strlen(a->target.node_version));
	strbuf_puts(&a->line, ",\"title\":");
	strbuf_json_string(&a->line, a->target.title, strlen(a->target.title));
	strbuf_puts(&a->line, "}}");
	app_log(a, a->line.data, a->line.len);
}

void app_log_exit(struct app *a, const char *why)
{
	strbuf_reset(&a->line);
	strbuf_printf(&a->line, "{\"type\":\"target_exit\",\"time\":%.3f,\"reason\":",
		util_now_wall_s());
	strbuf_json_string(&a->line, why ? why : "ntop-js left", strlen(why ? why : "ntop-js left"));
	strbuf_putc(&a->line, '}');
	app_log(a, a->line.data, a->line.len);
}

/* The session could not start after the log was opened: the terminal back, the sentence on
 * stderr, and the log closed with the reason (its last sync). Takes cause. */
static int app_fail_start(struct app *a, char *cause, int status)
{
	tui_free(a->tui);
	a->tui = NULL;
	fprintf(stderr, "ntop-js: %s\n", cause);
	if (a->log) {
		app_log_exit(a, cause);
		memlog_close(a->log);
		a->log = NULL;
	}
	free(cause);
	return status;
}

/* Messages go to the status line under the live view, else to stderr. */
void app_say(struct app *a, bool is_error, const char *msg)
{
	if (a->tui)
		tui_status(a->tui, is_error, msg);
	else
		fprintf(stderr, "ntop-js: %s\n", msg);
}

/* A target in a container is named by its PID in there too. */
void app_container_of(const struct attach_result *t, struct report_target *rt)
{
	rt->container = t->container_pid > 0 || netns_is_foreign(&t->netns);
	rt->container_pid = t->container_pid > 0 ? (int)t->container_pid : (int)t->pid;
}

/* The batch report and the log record of the main thread's window. */
static void app_main_print(struct app *a, const struct window_stats *w,
	const struct report_target *rt, struct report_window *rw)
{
	const char *others = "";

	rw->threads_json = NULL;
	rw->processes_json = NULL;
	if (a->log || a->opt.batch)
		others = watch_report_others(a, rw, a->log || a->opt.json,
			a->opt.batch && !a->opt.json);
	if (a->log) {
		/* The log's record is the window's JSON object with its type in front. */
		strbuf_reset(&a->line);
		report_json_window(&a->line, "window", rt, rw, w, engine_cumulative(a->engine),
			engine_functab(a->engine));
		/* one record a line: the log adds its own newline */
		app_log(a, a->line.data, a->line.len - (a->line.len > 0 &&
			a->line.data[a->line.len - 1] == '\n'));
	}
	if (!a->opt.batch)
		return;
	strbuf_reset(&a->out);
	if (a->opt.json)
		report_json_window(&a->out, NULL, rt, rw, w, engine_cumulative(a->engine),
			engine_functab(a->engine));
	else {
		report_text_window(&a->out, rt, rw, w, engine_cumulative(a->engine),
			engine_functab(a->engine));
		strbuf_puts(&a->out, others);
	}
	if (a->output_broken)
		return;
	if (fwrite(a->out.data, 1, a->out.len, stdout) != a->out.len || fflush(stdout) != 0) {
		/* The reader went away (ntop-js -b | head): leave the target and stop quietly. */
		a->output_broken = true;
		watch_stop(a);
	}
}

/* The live view after the main thread's window: the THREADS line and the table across them,
 * and the window itself unless another thread is shown (that one gets its own). */
static void app_main_view(struct app *a, const struct window_stats *w,
	const struct app_window *win)
{
	struct model_thread th[MODEL_THREADS_MAX], main_thread = { 0, "main",
		w->sampled_us > 0, w->sampled_us > 0 ? 100.0 * (1 - w->idle_us / w->sampled_us)
		: NAN, NAN, false, false, 0 };
	size_t n;

	/* with other processes, the main one goes by its PID too */
	if (watch_n_processes(a)) {
		main_thread.pid = (int)a->target.pid;
		main_thread.name[0] = '\0';
	}
	n = watch_summary(a, &main_thread, th, MODEL_THREADS_MAX);
	if (a->engine_cfg.workers || watch_n_processes(a)) {
		size_t all = watch_n_threads(a) + 1;

		tui_on_threads(a->tui, th, n, all > n ? all - n : 0);
		watch_table_all(a, engine_cpu_on(a->engine) ? w : NULL);
	}
	if (watch_shows_main(a)) {
		tui_on_contention(a->tui, win->rw.contention);
		tui_on_requests(a->tui, win->rw.requests, win->rw.window_ms);
		tui_on_window(a->tui, w, (w->end_us - w->start_us) / 1000.0);
	} else {
		tui_redraw(a->tui);
	}
}

/* The main thread's window (app_watch.c built its report): the root of the batch report and
 * the log record, with the other engines' latest windows inside; the live view's THREADS
 * line; and -n. */
void app_main_window(struct app *a, const struct window_stats *w, struct app_window *win)
{
	struct report_target rt = { (int)a->target.pid, a->target.node_version, a->target.title, -1,
		NULL, false, 0 };

	app_container_of(&a->target, &rt);
	/* After the stop the main thread runs on only until the workers have left: not reported. */
	if (!a->stopping)
		app_main_print(a, w, &rt, &win->rw);
	if (a->tui)
		app_main_view(a, w, win);
	app_incident_on_window(a, w, &win->rw);
	/* -n: counted here, not by the engine, so that the workers leave first. */
	if (a->opt.iterations && ++a->windows >= (size_t)a->opt.iterations && !a->stopping)
		watch_stop(a);
}

/* A reading of the main thread's memory (its growth is the watch's): the log's record. */
void app_main_memory(struct app *a, const struct mem_sample *m)
{
	char *rec = memlog_mem_record(m);

	app_log(a, rec, strlen(rec));
	free(rec);
}

/* The main thread's collections: the log keeps them, so that --replay's growth rule is the
 * live one. */
void app_main_post_gc(struct app *a, double end_s, double dur_s, const double *used,
	const double *ago_s, size_t n)
{
	char *rec;

	if (!a->log)
		return;
	rec = memlog_post_gc_record(end_s, dur_s, used, ago_s, n);
	app_log(a, rec, strlen(rec));
	free(rec);
}

/* The main engine's session is over (app_watch.c passes it on). */
void app_main_finished(struct app *a, int status, const char *why)
{
	app_log_exit(a, why);
	/* Stopping: the main thread ran on only while the workers left; a target that exited
	 * meanwhile ends the session as the stop would have. */
	if (a->stopping && status == EXIT_TARGET_GONE) {
		status = EXIT_OK;
		why = NULL;
	}
	watch_main_ended(a);
	if (a->opt.follow && status == EXIT_TARGET_GONE && a->signals == 0 && !a->launch &&
	    !a->stopping) {
		app_follow_start(a, why);
		return;
	}
	a->finished = true;
	a->status = status;
	a->why = why ? xstrdup(why) : NULL;
	/* now, not at quit: the live view may stay up for hours after a failure */
	app_close_left_open(a);
	/* The live view stays up after the target is gone, with what was collected, until the
	 * user quits; the status line says what happened. */
	if (a->tui && status != EXIT_OK && a->signals == 0) {
		char *msg = xasprintf("%s Press q to quit, s to save.", why ? why : "the session ended.");
		tui_set_connected(a->tui, false);
		tui_status(a->tui, true, msg);
		free(msg);
		return;
	}
	watch_end(a);
}

static void app_save(void *ud)
{
	struct app *a = ud;
	char *msg = NULL;
	int rc = export_snapshot(watch_shown_engine(a), a->opt.save_dir, watch_shown_pid(a),
		watch_shown_thread_id(a), &msg);

	app_say(a, rc < 0, msg);
	free(msg);
}

static void app_quit(void *ud)
{
	struct app *a = ud;

	if (a->finished)
		watch_end(a);
	else if (a->following || a->replay)
		loop_stop(a->loop);
	else
		watch_stop(a);
}

static void app_reset(void *ud)
{
	struct app *a = ud;

	/* the engine the live view shows: its counters are the ones on the screen */
	engine_reset_cumulative(watch_shown_engine(a));
	tui_after_reset(a->tui);
	app_say(a, false, "cumulative times reset");
}

static void app_settings_changed(void *ud, const struct view_settings *s)
{
	struct app *a = ud;
	char *cause = NULL;

	struct view_settings keep = *s;

	/* a sort by a change against the baseline lasts as long as the baseline: not kept */
	if (keep.sort >= COL_DSELF_PCT)
		keep.sort = a->settings.view.sort;
	if (memcmp(&a->settings.view, &keep, sizeof keep) == 0)
		return;
	a->settings.view = keep;
	if (a->settings_path && settings_save(&a->settings, a->settings_path, &cause) < 0) {
		app_say(a, true, cause);
		free(cause);
	}
}

static void app_alloc_toggle(void *ud)
{
	struct app *a = ud;

	if (a->opt.no_eval) {
		/* The heap profiler evaluates nothing, but it does force GCs: allowed. */
	}
	engine_set_alloc(a->engine, !engine_alloc_on(a->engine));
	if (engine_alloc_on(a->engine)) {
		char p[48], *msg;

		pause_format(engine_gc_pause_s(a->engine), p, sizeof p);
		msg = xasprintf("allocation sampling on; the first profile comes within 30 s (each "
			"fetch forces a full GC in the target: %s with this heap)", p);
		app_say(a, false, msg);
		free(msg);
	} else {
		app_say(a, false, "allocation sampling off");
	}
}

static void app_snapshot(void *ud)
{
	struct app *a = ud;
	char *path, *cause = NULL;

	path = xasprintf("%s/ntop-js-%d-%.0f.heapsnapshot", a->opt.save_dir, (int)a->target.pid,
		util_now_wall_s());
	if (engine_heap_snapshot(a->engine, path, &cause) < 0) {
		app_say(a, true, cause);
		free(cause);
	} else {
		char *msg = xasprintf("taking a heap snapshot into %s; the target is paused", path);
		app_say(a, false, msg);
		free(msg);
	}
	free(path);
}

static void app_start_cpu(void *ud)
{
	struct app *a = ud;
	char *cause = NULL;

	if (engine_start_cpu(a->engine, &cause) < 0) {
		app_say(a, true, cause);
		free(cause);
		return;
	}
	app_say(a, false, "starting the CPU profiler; the target pauses while V8 lists its code");
}

/* The detail screen's hot lines: from the shown process's scripts and maps. */
static bool app_line_text(void *ud, struct engine *e, uint32_t func, uint32_t line1,
	bool generated, char *where, size_t where_cap, char *text, size_t text_cap, char *note,
	size_t note_cap)
{
	const struct func_info *fi = func < functab_count(engine_functab(e)) ?
		functab_get(engine_functab(e), func) : NULL;

	if (!fi)
		return false;
	return app_smap_line_text(watch_smap_of(ud, e), fi, line1, generated, where, where_cap, text,
		text_cap, note, note_cap);
}

const struct tui_actions app_tui_actions = {
	.quit = app_quit,
	.save = app_save,
	.reset = app_reset,
	.settings_changed = app_settings_changed,
	.alloc_toggle = app_alloc_toggle,
	.snapshot = app_snapshot,
	.start_cpu = app_start_cpu,
	.thread_next = watch_show_next,
	.line_text = app_line_text,
};

void app_on_signal(void *ud, int sig)
{
	struct app *a = ud;

	if (sig == SIGUSR2) {
		app_save(a);
		return;
	}
	if (sig == SIGWINCH) {
		if (a->tui)
			tui_resize(a->tui);
		return;
	}
	/* The first signal leaves the target cleanly; a second one does not wait for it. */
	if (a->following || a->replay) {
		a->following = false;
		loop_stop(a->loop);
		return;
	}
	if (a->signals++ > 0)
		loop_stop(a->loop);
	else if (a->finished)
		watch_end(a);
	else
		watch_stop(a);
}

/* Writes the exports asked for on the command line. Returns 0, or EXIT_INTERNAL. */
/* -o and --folded: the main thread's tree, and with workers or other processes theirs too
 * (a file each beside -o's, their stacks in --folded's under a frame naming each). */
static int app_write_exports(struct app *a)
{
	const char *paths[2] = { a->opt.output, a->opt.folded };
	struct export_source *src;
	char *cause = NULL;
	size_t n;
	int i, rc = 0;

	if (!engine_calltree(a->engine))
		return 0;
	src = watch_export_sources(a, &n);
	for (i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		if ((n > 1 ? export_trees(src, n, paths[i], i == 1, a->settings.interval_us, &cause) :
		    export_tree(src[0].t, src[0].ft, paths[i], i == 1, a->settings.interval_us,
		    &cause)) < 0) {
			fprintf(stderr, "ntop-js: %s\n", cause);
			free(cause);
			rc = EXIT_INTERNAL;
		}
	}
	free(src);
	return rc;
}

/* Defaults, then the settings file, then the command line. */
static void app_load_settings(struct app *a)
{
	char *cause = NULL;

	settings_defaults(&a->settings);
	if (!a->opt.no_config) {
		a->settings_path = settings_path();
		if (a->settings_path && settings_load(&a->settings, a->settings_path, &cause) < 0) {
			fprintf(stderr, "ntop-js: %s\n", cause);
			free(cause);
		}
	}
	if (a->opt.delay_set)
		a->settings.delay_s = a->opt.delay_s;
	if (a->opt.interval_set)
		a->settings.interval_us = a->opt.interval_us;
	if (a->opt.sort)
		settings_sort_parse(a->opt.sort, &a->settings.view.sort);
	if (a->opt.reverse_set)
		a->settings.view.reverse = true;
	if (a->opt.mode)
		settings_mode_parse(a->opt.mode, &a->settings.view.mode);
	if (a->opt.filter)
		snprintf(a->settings.view.filter, sizeof a->settings.view.filter, "%s", a->opt.filter);
	if (a->opt.hide_internals)
		a->settings.view.hide_internals = true;
	if (a->opt.hide_node_modules)
		a->settings.view.hide_node_modules = true;
	if (a->opt.threshold_pct >= 0)
		a->settings.view.threshold_pct = a->opt.threshold_pct;
	if (a->opt.no_color || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]))
		a->settings.view.color = false;
}

static int app_list(void)
{
	struct node_proc *procs = NULL;
	size_t n = discover_node_processes(&procs);
	struct strbuf sb;

	strbuf_init(&sb);
	discover_format_table(procs, n, &sb);
	fwrite(sb.data, 1, sb.len, stdout);
	strbuf_free(&sb);
	free(procs);
	return 0;
}

/* In launch mode, once the started program has exited: one sentence with its exit status
 * and where its output went (NULL otherwise). */
static char *app_launch_gone(struct app *a)
{
	int status;
	double deadline = util_now_mono_s() + 0.5;

	if (!a->launch)
		return NULL;
	/* It may still be on its way out. */
	while (!launch_exited(a->launch, &status)) {
		if (util_now_mono_s() > deadline)
			return NULL;
		usleep(20000);
	}
	if (WIFEXITED(status))
		return xasprintf("%s exited with status %d; its output is in %s.", a->opt.command[0],
			WEXITSTATUS(status), launch_log_path(a->launch));
	return xasprintf("%s was killed by signal %d; its output is in %s.", a->opt.command[0],
		WIFSIGNALED(status) ? WTERMSIG(status) : 0, launch_log_path(a->launch));
}

/* In launch mode, a failure to attach names the program's log too (a new string). */
static char *app_launch_cause(struct app *a, const char *cause)
{
	size_t n = cause ? strlen(cause) : 0;

	if (!cause)
		return xstrdup("cannot attach.");
	if (!a->launch)
		return xstrdup(cause);
	if (n && cause[n - 1] == '.')
		n--;
	return xasprintf("%.*s; the program's output is in %s.", (int)n, cause,
		launch_log_path(a->launch));
}

/* Launch mode: the inspector that attach opened by signal leaves Node's shared port (9229
 * unless the program's options name another) for a free one, as a service's processes do,
 * so that another ntop-js can open its own there. Left where it is if it cannot move: it is
 * closed at the end all the same. */
static void app_launch_move(struct app *a, const struct attach_opts *ao)
{
	char *why = NULL;

	if (!a->launch || !a->target.opened_by_us || a->opt.no_eval)
		return;
	if (attach_move_inspector(ao, &a->target, &why) != EXIT_OK)
		fprintf(stderr, "ntop-js: %s\n", why);
	free(why);
}

/* Starts the command after "--" and points the target at it. */
static int app_launch(struct app *a)
{
	char *cause = NULL, *log_path;
	const char *tmp = getenv("TMPDIR");
	int fd;

	log_path = xasprintf("%s/ntop-js-%d-XXXXXX.log", tmp && tmp[0] ? tmp : "/tmp", (int)getpid());
	/* created exclusively (no link followed), and used through this descriptor only */
	fd = mkostemps(log_path, 4, O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ntop-js: cannot create a log file for the program: %s.\n",
			strerror(errno));
		free(log_path);
		return EXIT_INTERNAL;
	}
	a->launch = launch_start(a->opt.command, fd, log_path, a->opt.timeout_s, &cause);
	free(log_path);
	if (!a->launch) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_TARGET_GONE;
	}
	a->opt.pid = launch_target_pid(a->launch);
	return EXIT_OK;
}

static int app_session(struct app *a, struct attach_opts *ao, const sigset_t *held);

static int app_run(struct app *a)
{
	struct attach_opts ao;
	sigset_t stop_sigs, held;
	char *cause = NULL;
	int rc;

	/* before anything is attached or started: a busy port fails first */
	if ((rc = app_serve_open(a)) != EXIT_OK)
		return rc;
	/* and so does a --log path that is refused (a planted link, another user's file) */
	if (a->opt.log_path && !(a->log = memlog_open(a->opt.log_path, &rc, &cause))) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return rc;
	}
	/* and an --incident-dir that is refused */
	if ((rc = app_incident_open(a)) != EXIT_OK)
		return rc;
	/* and a --baseline that is not a profile */
	if ((rc = app_baseline_open(a)) != EXIT_OK)
		return rc;
	if (a->opt.command && (rc = app_launch(a)) != EXIT_OK)
		return rc;
	if (!a->opt.pid && !a->opt.port && !a->opt.match && !a->opt.user) {
		pid_t pid = picker_run(a->settings.view.color, &cause);
		if (pid < 0) {
			fprintf(stderr, "ntop-js: %s\n", cause);
			free(cause);
			return EXIT_USAGE;
		}
		if (pid == 0)
			return EXIT_OK;
		a->opt.pid = pid;
	}

	memset(&ao, 0, sizeof ao);
	ao.pid = a->opt.pid;
	ao.host = a->opt.host;
	ao.port = a->opt.port;
	ao.allow_remote = a->opt.allow_remote;
	ao.timeout_s = a->opt.timeout_s;
	ao.no_eval = a->opt.no_eval;
	/* A signal that ends ntop-js while it opens an inspector waits until the inspector is
	 * there to be closed again; the loop takes it over (app_session). */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop_sigs, &held);
	if (a->opt.n_more_pids || a->opt.children || a->opt.match || a->opt.user) {
		rc = watch_attach_service(a, &ao, &cause);
	} else {
		app_note_kin(a, ao.pid);
		rc = attach_target(&ao, &a->target, &cause);
	}
	if (rc != EXIT_OK) {
		char *gone = app_launch_gone(a), *msg = gone ? gone : app_launch_cause(a, cause);
		/* A started program that died under us explains the failure better. */
		fprintf(stderr, "ntop-js: %s\n", msg);
		free(msg);
		free(cause);
		app_close_left_open(a);
		sigprocmask(SIG_SETMASK, &held, NULL);
		return gone ? EXIT_TARGET_GONE : rc;
	}
	rc = app_session(a, &ao, &held);
	/* whatever ended it, nothing ntop-js opened stays open */
	app_close_at_exit(a);
	sigprocmask(SIG_SETMASK, &held, NULL);
	return rc;
}

/* Attached: watches the target until the session ends. held: the signal mask to restore once
 * the loop catches the signals. */
/* The engine's settings, from the options (a->smap is made here: the scripts' files, for the
 * hot lines' text, even without their maps). */
static void app_engine_config(struct app *a, struct engine_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->delay_s = a->settings.delay_s;
	cfg->interval_us = a->settings.interval_us;
	cfg->later_interval_us = a->opt.later_interval_us;
	cfg->later_after_s = APP_LATER_AFTER_S;
	cfg->no_eval = a->opt.no_eval;
	cfg->no_cpu = a->opt.no_cpu;
	cfg->max_pause_s = a->opt.max_pause_s;
	cfg->cpu_every_s = a->opt.cpu_every_s;
	cfg->evloop = true;
	cfg->requests = !a->opt.no_requests;
	cfg->block_ms = a->opt.block_threshold_s * 1e3;
	cfg->ask_pause = !a->opt.batch;
	cfg->jit_method = a->opt.inlining;
	cfg->timeout_s = a->opt.timeout_s;
	cfg->iterations = 0; /* -n: app_main_window, so that the workers leave first */
	cfg->workers = !a->opt.no_workers;
	cfg->max_message_bytes = APP_MAX_MESSAGE_BYTES;
	/* Kept always: the live view's callers and callees, s and SIGUSR2 need it. */
	cfg->calltree_max_samples = APP_CALLTREE_MAX_SAMPLES;
	cfg->mem_interval_s = a->opt.mem_interval_s;
	cfg->mem_detail_interval_s = 10.0;
	cfg->alloc = a->opt.alloc;
	cfg->alloc_interval_s = a->opt.alloc_interval_s;
	if (a->target.pid > 0)
		a->smap = app_smap_create(a->loop, a->target.pid, !a->opt.no_source_maps);
	cfg->smap = app_smap_cache(a->smap);
}

/* The live view (or, in batch mode, a line saying where a started program's output goes). */
static int app_start_view(struct app *a, const struct engine_config *cfg)
{
	char *cause = NULL;

	if (!a->opt.batch) {
		a->tui = tui_create(a->loop, a->engine, &a->target, cfg->delay_s, cfg->interval_us,
			cfg->no_cpu, &a->settings.view, &app_tui_actions, a, &cause);
		if (!a->tui)
			return app_fail_start(a, cause, EXIT_USAGE);
		app_baseline_show(a);
		if (a->launch) {
			char *msg = xasprintf("started %s (PID %d); its output goes to %s",
				a->opt.command[0], (int)launch_child_pid(a->launch),
				launch_log_path(a->launch));
			tui_status(a->tui, false, msg);
			free(msg);
		}
	} else if (a->launch) {
		fprintf(stderr, "ntop-js: started %s (PID %d); its output goes to %s\n",
			a->opt.command[0], (int)launch_child_pid(a->launch), launch_log_path(a->launch));
	}
	return EXIT_OK;
}

/* After the loop: the view and the log closed, the last push, the exports written; the
 * session's exit status. */
static int app_session_end(struct app *a)
{
	int rc;

	tui_free(a->tui);
	a->tui = NULL;
	/* an incident under way is written with what it has (and logged) */
	app_incident_end(a);
	if (a->log && !a->finished)
		app_log_exit(a, "ntop-js left");
	memlog_close(a->log);
	a->log = NULL;
	/* the last partial interval, bounded: the exit never waits for a server that is down */
	app_push_finish(a);

	/* Whatever ended the session, what was collected is written (and compared). */
	rc = app_write_exports(a);
	if (a->baseline && a->opt.batch) {
		int r = app_baseline_report(a);

		rc = rc != EXIT_OK ? rc : r;
	}
	if (a->why) {
		char *gone = a->status == EXIT_TARGET_GONE ? app_launch_gone(a) : NULL;
		fprintf(stderr, "ntop-js: %s\n", gone ? gone : a->why);
		free(gone);
	}
	return a->status != EXIT_OK ? a->status : rc;
}

static int app_session(struct app *a, struct attach_opts *ao, const sigset_t *held)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGWINCH };
	struct engine_config cfg;
	struct engine_transport tp;
	struct engine_clock clock;
	char *cause = NULL;
	int rc;

	app_launch_move(a, ao);
	a->loop = loop_create(transport_protocol(), &cause);
	if (!a->loop) {
		fprintf(stderr, "ntop-js: %s\n", cause);
		free(cause);
		return EXIT_INTERNAL;
	}
	if (loop_catch_signals(a->loop, sigs, (int)(sizeof sigs / sizeof sigs[0]), app_on_signal,
			a) < 0) {
		fprintf(stderr, "ntop-js: cannot install signal handlers: %s.\n", strerror(errno));
		return EXIT_INTERNAL;
	}
	if ((rc = app_serve_start(a)) != EXIT_OK)
		return rc;
	if ((rc = app_push_start(a)) != EXIT_OK)
		return rc;

	app_engine_config(a, &cfg);
	engine_io_websocket(a->loop, &tp, &clock);
	a->engine_cfg = cfg;
	a->engine_clock = clock;
	watch_init(a);
	a->engine = watch_main(a, &tp, &clock, &a->target, &cfg);
	app_follow_init(a);
	if (a->opt.follow)
		app_follow_remember(a);
	if (a->log)
		app_log_attach(a);
	if ((rc = app_start_view(a, &cfg)) != EXIT_OK)
		return rc;
	if (engine_start(a->engine, &cause) < 0)
		return app_fail_start(a, cause, EXIT_UNREACHABLE);
	a->engine_started = true;
	app_rescan_start(a, ao);
	watch_start_service(a);
	if (a->opt.no_eval && !a->opt.no_cpu)
		app_say(a, false, "--no-eval: V8's profiler restarts at every window, which pauses a "
			"large app for the time it takes to list its functions again.");
	/* a signal that came while attaching is handled now, by the loop */
	sigprocmask(SIG_SETMASK, held, NULL);
	loop_run(a->loop);
	return app_session_end(a);
}

static void app_die_hook(void)
{
	/* A fatal error must not leave the terminal in curses mode. */
	tui_restore_terminal();
}

int app_main(int argc, char **argv)
{
	struct app a;
	char *msg = NULL;
	size_t i;
	int rc;

	memset(&a, 0, sizeof a);
	setlocale(LC_CTYPE, "");
	/* Profiles come and go every window: serve large ones from mmap so that their pages go
	 * back to the system at once instead of staying in the heap's high-water mark. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	/* A closed stdout reader must not kill ntop-js before it has left the target. */
	signal(SIGPIPE, SIG_IGN);
	util_set_die_hook(app_die_hook);
	rc = options_parse(argc, argv, &a.opt, &msg);
	if (rc != 0) {
		fprintf(stderr, "ntop-js: %s\n", msg);
		free(msg);
		return rc;
	}
	if (a.opt.help) {
		fputs(options_usage(), stdout);
		return 0;
	}
	if (a.opt.version) {
		struct strbuf v;

		strbuf_init(&v);
		version_text(&v);
		fputs(v.data, stdout);
		strbuf_free(&v);
		return 0;
	}
	if (a.opt.list)
		return app_list();
	for (i = 0; i < a.opt.n_notices; i++)
		fprintf(stderr, "ntop-js: %s\n", a.opt.notices[i]);
	if (a.opt.diff_a)
		return app_diff(&a.opt);
	app_load_settings(&a);
	/* Without a terminal (a pipe, a cron job) the live view makes no sense: print reports. */
	if (!a.opt.batch && (a.opt.pid || a.opt.port || a.opt.command || a.opt.match ||
	    a.opt.user) &&
	    (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)))
		a.opt.batch = true;
	strbuf_init(&a.out);
	strbuf_init(&a.line);
	watch_create(&a);
	rc = a.opt.replay_path ? app_replay(&a) : app_run(&a);
	app_follow_free(&a);
	app_rescan_free(&a);
	/* the workers' engines talk through the main one's session */
	watch_free(&a);
	watch_main_free(&a);
	app_kin_free(&a);
	/* after every engine that borrows its cache */
	app_smap_free(a.smap);
	app_serve_free(&a);
	app_push_free(&a);
	app_incident_free(&a);
	app_baseline_free(&a);
	memlog_close(a.log); /* a session that ended before its loop ran */
	loop_free(a.loop);
	app_replay_free(&a);
	strbuf_free(&a.line);
	if (a.launch)
		launch_stop(a.launch, 2.0);
	strbuf_free(&a.out);
	free(a.why);
	free(a.settings_path);
	options_free(&a.opt);
	return rc;
}
