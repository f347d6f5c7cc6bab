/* tui.c: see tui.h. */
#include "config.h"

#include "tui.h"
#include "aggregate.h"
#include "attach.h"
#include "contention.h"
#include "engine.h"
#include "grid.h"
#include "livebase.h"
#include "loop.h"
#include "memseries.h"
#include "model.h"
#include "pause.h"
#include "procfs.h"
#include "term.h"
#include "util.h"
#include "view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tui {
	struct loop *loop;
	struct engine *engine;
	struct model model;
	struct view *view;
	struct grid grid;
	const struct tui_actions *actions;
	void *ud;
	bool first_status; /* the status line still holds the "attached" message */
	/* --baseline FILE in the live view: the saved profile the main thread is compared with
	 * from the first window, until b drops it; main_engine is the one it applies to. */
	struct livebase *file_base;
	struct engine *main_engine;
};

/* The detail screen's hot lines, their text from the app (the scripts, their source maps). */
static void tui_pull_line_text(struct tui *t)
{
	struct model *m = &t->model;
	uint32_t func = view_detail_func(t->view);
	struct line_stat *lines = NULL;
	uint64_t sum;
	size_t n;

	m->n_line_text = 0;
	m->map_note[0] = '\0';
	m->line_text_func = func;
	if (func == UINT32_MAX || !t->actions->line_text)
		return;
	n = model_hot_lines(m, func, &lines, &sum);
	for (size_t i = 0; i < n && m->n_line_text < MODEL_LINE_TEXTS; i++) {
		struct model_line_text *lt = &m->line_text[m->n_line_text];
		char where[sizeof lt->where], text[sizeof lt->text], note[sizeof m->map_note];

		note[0] = '\0';
		if (!t->actions->line_text(t->ud, t->engine, func, lines[i].line, m->show_generated,
			where, sizeof where, text, sizeof text, note, sizeof note))
			where[0] = text[0] = '\0';
		/* target text: made safe here, before any view sees it */
		lt->line = lines[i].line;
		util_sanitize(where, strlen(where), lt->where, sizeof lt->where);
		util_sanitize(text, strlen(text), lt->text, sizeof lt->text);
		if (note[0] && !m->map_note[0])
			util_sanitize(note, strlen(note), m->map_note, sizeof m->map_note);
		m->n_line_text++;
	}
	free(lines);
}

static void tui_draw(struct tui *t)
{
	int w, h;

	term_size(&w, &h);
	if (w != t->grid.width || h != t->grid.height)
		grid_resize(&t->grid, w, h);
	else
		grid_clear(&t->grid);
	tui_pull_line_text(t);
	view_draw(t->view, &t->model, &t->grid, util_now_wall_s());
	term_draw(&t->grid);
}

/* The allocation state, read from the engine. */
static void tui_pull_alloc(struct tui *t)
{
	t->model.alloc_on = engine_alloc_on(t->engine);
	t->model.alloc_next_wall_s = engine_alloc_next_wall_s(t->engine);
	t->model.alloc_interval_s = engine_alloc_interval_s(t->engine);
	t->model.alloc = engine_alloc_latest(t->engine);
	t->model.alloc_growth = engine_alloc_by_growth(t->engine);
	t->model.snapshot_running = engine_snapshot_running(t->engine);
}

/* The latest blocked-loop events, read from the engine. */
static void tui_pull_blocks(struct tui *t)
{
	uint64_t total = engine_blocks_count(t->engine), i;
	struct model *m = &t->model;

	m->block_threshold_ms = engine_block_threshold_ms(t->engine);
	m->blocks_total = total;
	m->n_blocks = 0;
	for (i = total > MODEL_BLOCKS_MAX ? total - MODEL_BLOCKS_MAX : 0; i < total; i++) {
		const struct engine_block *k = engine_block_get(t->engine, i);

		if (k) {
			m->blocks[m->n_blocks].b = k->b;
			m->blocks[m->n_blocks++].wall_s = k->wall_s;
		}
	}
}

/* Why c cannot start the CPU profiler for this target, if it cannot. */
static void tui_pull_cpu_refused(struct tui *t)
{
	char *why = NULL;

	t->model.cpu_refused[0] = '\0';
	if (engine_cpu_refused(t->engine, &why))
		snprintf(t->model.cpu_refused, sizeof t->model.cpu_refused, "%s", why);
	free(why);
}

/* Whether windows carry profiles (--no-cpu until c), read from the engine. */
static void tui_pull_cpu(struct tui *t)
{
	t->model.cpu_off = !engine_cpu_on(t->engine);
	t->model.cpu_starting = engine_cpu_starting(t->engine);
	tui_pull_cpu_refused(t);
	t->model.next_burst_in_s = engine_next_burst_in_s(t->engine);
	if (engine_evloop_last(t->engine)) {
		t->model.have_evloop = true;
		t->model.evloop = *engine_evloop_last(t->engine);
	}
	t->model.evloop_series = engine_evloop_series(t->engine);
	tui_pull_blocks(t);
}

/* b: pins the cumulative profile as the baseline, or drops the one pinned. Nothing is reset:
 * the session's profile (what -o and s write) stays whole; r restarts the cumulative mode. */
static void tui_baseline(struct tui *t)
{
	struct model *m = &t->model;

	if (m->have_baseline) {
		model_drop_baseline(m);
		/* a saved profile's too: b pins the session's own next time */
		livebase_free(t->file_base);
		t->file_base = NULL;
		model_set_status(m, false, util_now_wall_s(), "baseline dropped");
	} else if (!model_pin_baseline(m, util_now_wall_s())) {
		model_set_status(m, true, util_now_wall_s(), "no CPU profile to pin as a baseline yet");
		return;
	} else {
		model_set_status(m, false, util_now_wall_s(), "baseline pinned (%.1f s of busy CPU): "
			"each row's change against it is beside SELF%% and TOTAL%% (r restarts the "
			"cumulative mode from here); b drops it", m->baseline_busy_s);
	}
	view_baseline_changed(t->view, m);
}

static void tui_on_keys(void *ud)
{
	struct tui *t = ud;
	bool redraw = false;
	int key;

	while ((key = term_read_key()) != -1) {
		if (key == VK_RESIZE) {
			redraw = true;
			continue;
		}
		switch (view_key(t->view, &t->model, key)) {
		case VA_NONE:
			break;
		case VA_REDRAW:
			redraw = true;
			break;
		case VA_QUIT:
			t->actions->quit(t->ud);
			return;
		case VA_SAVE:
			t->actions->save(t->ud);
			redraw = true;
			break;
		case VA_RESET:
			t->actions->reset(t->ud);
			redraw = true;
			break;
		case VA_SETTINGS:
			t->actions->settings_changed(t->ud, view_settings(t->view));
			redraw = true;
			break;
		case VA_ALLOC_TOGGLE:
			t->actions->alloc_toggle(t->ud);
			tui_pull_alloc(t);
			redraw = true;
			break;
		case VA_SNAPSHOT:
			t->actions->snapshot(t->ud);
			t->model.snapshot_running = engine_snapshot_running(t->engine);
			redraw = true;
			break;
		case VA_START_CPU:
			t->actions->start_cpu(t->ud);
			tui_pull_cpu(t);
			redraw = true;
			break;
		case VA_THREAD:
			if (t->actions->thread_next)
				t->actions->thread_next(t->ud);
			redraw = true;
			break;
		case VA_BASELINE:
			tui_baseline(t);
			redraw = true;
			break;
		case VA_GENERATED:
			t->model.show_generated = !t->model.show_generated;
			model_set_status(&t->model, false, util_now_wall_s(), "%s",
				t->model.show_generated ? "generated positions, as V8 gives them (g: original "
				"sources)" : "original sources, where a source map traces them (g: generated "
				"positions)");
			redraw = true;
			break;
		}
	}
	if (redraw)
		tui_draw(t);
}

struct tui *tui_create(struct loop *l, struct engine *e, const struct attach_result *target,
	double delay_s, long interval_us, bool cpu_off, const struct view_settings *settings,
	const struct tui_actions *actions, void *ud, char **cause)
{
	struct tui *t;

	if (term_open(settings->color, cause) < 0)
		return NULL;
	t = xcalloc(1, sizeof *t);
	t->loop = l;
	t->engine = e;
	t->main_engine = e;
	t->actions = actions;
	t->ud = ud;
	model_init(&t->model);
	t->model.pid = (int)target->pid;
	if (target->container_pid > 0 || netns_is_foreign(&target->netns))
		t->model.container_pid = target->container_pid > 0 ? (int)target->container_pid :
			(int)target->pid;
	/* Both were read from the target: keep what fits. */
	snprintf(t->model.title, sizeof t->model.title, "%.*s", (int)sizeof t->model.title - 1,
		target->title);
	snprintf(t->model.node_version, sizeof t->model.node_version, "%.*s",
		(int)sizeof t->model.node_version - 1, target->node_version);
	t->model.attached_wall_s = util_now_wall_s();
	t->model.delay_s = delay_s;
	t->model.interval_us = interval_us;
	t->model.connected = true;
	t->model.ft = engine_functab(e);
	t->model.cum = engine_cumulative(e);
	t->model.ct = engine_calltree(e);
	t->model.requests_read = engine_requests_on(e);
	t->view = view_create(settings);
	grid_init(&t->grid);
	if (loop_watch_fd(l, term_key_fd(), tui_on_keys, t) < 0) {
		*cause = xstrdup("cannot watch the keyboard.");
		tui_free(t);
		return NULL;
	}
	model_set_status(&t->model, false, util_now_wall_s(), "attached; the first window "
		"arrives in %g s", delay_s);
	t->first_status = true;
	if (cpu_off) {
		/* Memory only: its screen is what there is to see. */
		t->model.cpu_off = true;
		view_show_memory(t->view);
		model_set_status(&t->model, false, util_now_wall_s(), "attached for memory only "
			"(--no-cpu); c starts the CPU profiler");
	}
	tui_draw(t);
	return t;
}

void tui_free(struct tui *t)
{
	if (!t)
		return;
	term_close();
	view_free(t->view);
	grid_free(&t->grid);
	model_free(&t->model);
	livebase_free(t->file_base);
	free(t);
}

void tui_restore_terminal(void)
{
	term_close();
}

/* The saved profile against the main thread's counters so far, while the main thread is
 * shown (another thread's functions are another table's). */
static void tui_apply_file_base(struct tui *t)
{
	bool had = t->model.have_baseline;

	if (!t->file_base || t->engine != t->main_engine)
		return;
	livebase_apply(t->file_base, &t->model, engine_cumulative(t->engine),
		engine_functab_names(t->engine));
	if (!had)
		view_baseline_changed(t->view, &t->model);
}

void tui_set_file_baseline(struct tui *t, const struct window_stats *w,
	const struct functab *ft, const char *name)
{
	char safe[256];

	livebase_free(t->file_base);
	t->file_base = livebase_create(w, ft);
	tui_apply_file_base(t);
	util_sanitize(name, strlen(name), safe, sizeof safe);
	model_set_status(&t->model, false, util_now_wall_s(), "compared with %s (%.1f s of busy "
		"CPU): each row's change is beside SELF%% and TOTAL%%; b drops it", safe,
		t->model.baseline_busy_s);
	t->first_status = false;
}

void tui_on_window(struct tui *t, const struct window_stats *w, double window_ms)
{
	struct engine_jit_info jit;

	model_on_window(&t->model, w, window_ms);
	tui_apply_file_base(t);
	if (t->model.windows == 1 && !t->model.status_is_error && t->first_status)
		t->model.status[0] = '\0'; /* "the first window arrives in..." has arrived */
	t->first_status = false;
	t->model.windows = engine_windows_done(t->engine);
	t->model.windows_late = engine_windows_late(t->engine);
	t->model.interval_us = engine_interval_us(t->engine);
	engine_jit_info(t->engine, &jit);
	tui_pull_cpu(t);
	t->model.inlined_in_callers = !jit.exact && !t->model.cpu_off;
	snprintf(t->model.inlining_caveat, sizeof t->model.inlining_caveat, "%s",
		jit.caveat ? jit.caveat : "");
	tui_draw(t);
}

void tui_on_contention(struct tui *t, const struct contention_window *k)
{
	t->model.runqueue_wait_ms = k ? k->runqueue_wait_ms : NAN;
	t->model.throttled_ms = k ? k->throttled_ms : NAN;
	t->model.throttled_periods_pct = k ? k->throttled_periods_pct : NAN;
	t->model.quota_cores = k ? k->quota_cores : NAN;
}

/* The shown engine's requests: the REQ line's figures, and the screen's rows. */
static void tui_pull_requests(struct tui *t)
{
	struct model *m = &t->model;

	m->requests_read = t->engine && engine_requests_on(t->engine);
	m->req_total = t->engine ? engine_requests_totals(t->engine) : NULL;
	m->req_since_s = m->attached_wall_s > 0 ? util_now_wall_s() - m->attached_wall_s : NAN;
}

void tui_on_requests(struct tui *t, const struct req_window *w, double window_ms)
{
	model_on_requests(&t->model, w, window_ms);
	tui_pull_requests(t);
}

void tui_show_thread(struct tui *t, struct engine *e, long thread_id, int pid,
	const char *name)
{
	struct model *m = &t->model;

	if (t->engine == e)
		return;
	t->engine = e;
	m->ft = engine_functab(e);
	m->cum = engine_cumulative(e);
	m->ct = engine_calltree(e);
	m->shown_thread_id = thread_id;
	m->shown_pid = pid;
	util_sanitize(name ? name : "", name ? strlen(name) : 0, m->shown_thread_name,
		sizeof m->shown_thread_name);
	for (size_t i = 0; i < m->n_threads; i++)
		m->threads[i].shown = m->threads[i].thread_id == thread_id &&
			(m->threads[i].pid == pid || (!pid && m->threads[i].pid == m->pid));
	/* The rows and averages were the other thread's (its function table, its windows), and so
	 * was a baseline. */
	if (m->have_baseline)
		model_set_status(m, false, util_now_wall_s(), "baseline dropped: it was another "
			"thread's");
	model_drop_baseline(m);
	model_reset_decay(m);
	model_forget_window(m);
	m->windows = engine_windows_done(e);
	m->windows_late = engine_windows_late(e);
	m->have_evloop = false;
	m->evloop_series = NULL;
	m->runqueue_wait_ms = m->throttled_ms = m->throttled_periods_pct = m->quota_cores = NAN;
	m->have_requests = false;
	model_on_requests(m, NULL, 0);
	tui_pull_requests(t);
	m->n_blocks = 0;
	m->blocks_total = 0;
	tui_pull_cpu(t);
	tui_pull_alloc(t);
	if (m->have_memory)
		m->mem = engine_memseries(e);
	view_thread_changed(t->view);
	tui_draw(t);
}

void tui_status(struct tui *t, bool is_error, const char *msg)
{
	t->first_status = false;
	model_set_status(&t->model, is_error, util_now_wall_s(), "%s", msg);
	tui_draw(t);
}

void tui_on_incident(struct tui *t, const struct incident_summary *s)
{
	model_add_incident(&t->model, s);
	tui_draw(t);
}

void tui_set_incidents_total(struct tui *t, unsigned long long total)
{
	if (total > t->model.incidents_total)
		t->model.incidents_total = total;
	tui_draw(t);
}

void tui_ask_start_cpu(struct tui *t, double pause_s)
{
	char p[48];

	tui_pull_cpu(t);
	t->model.cpu_pause_s = pause_s;
	t->first_status = false;
	pause_format(pause_s, p, sizeof p);
	model_set_status(&t->model, false, util_now_wall_s(), "memory only for now: starting the "
		"CPU profiler would pause the target %s (over --max-pause)", p);
	view_show_memory(t->view);
	view_key(t->view, &t->model, 'c');
	tui_draw(t);
}

void tui_set_connected(struct tui *t, bool connected)
{
	t->model.connected = connected;
	tui_draw(t);
}

void tui_all_begin(struct tui *t, bool processes)
{
	model_all_begin(&t->model, processes);
}

void tui_all_add(struct tui *t, const char *source, const struct window_stats *w,
	const struct functab *ft)
{
	model_all_add(&t->model, source, w, ft);
}

void tui_all_end(struct tui *t)
{
	model_all_end(&t->model);
}

void tui_on_threads(struct tui *t, const struct model_thread *th, size_t n, size_t more)
{
	if (n > MODEL_THREADS_MAX) {
		more += n - MODEL_THREADS_MAX;
		n = MODEL_THREADS_MAX;
	}
	t->model.threads_watched = true;
	memcpy(t->model.threads, th, n * sizeof *th);
	t->model.n_threads = n;
	t->model.threads_more = more;
}

void tui_resize(struct tui *t)
{
	term_resize();
	tui_draw(t);
}

void tui_on_memory(struct tui *t, const struct mem_growth *growth, double growth_window_s,
	bool no_eval)
{
	const struct engine_heap_space *sp;
	size_t n, i;
	double avail;

	t->model.have_memory = true;
	t->model.mem = engine_memseries(t->engine);
	t->model.growth_window_s = growth_window_s;
	t->model.growth_heap_bytes_per_hour = growth->heap_bytes_per_hour;
	t->model.growth_rss_bytes_per_hour = growth->rss_bytes_per_hour;
	t->model.growth_span_s = growth->window_s;
	t->model.growth_verdict = (int)growth->verdict;
	t->model.growth_significant = growth->significant;
	t->model.no_eval = no_eval;
	sp = engine_heap_spaces(t->engine, &n);
	if (n > sizeof t->model.spaces / sizeof t->model.spaces[0])
		n = sizeof t->model.spaces / sizeof t->model.spaces[0];
	for (i = 0; i < n; i++) {
		snprintf(t->model.spaces[i].name, sizeof t->model.spaces[i].name, "%s", sp[i].name);
		t->model.spaces[i].used_bytes = sp[i].used_bytes;
		t->model.spaces[i].size_bytes = sp[i].size_bytes;
		t->model.spaces[i].growth_bytes = sp[i].used_bytes - sp[i].first_used_bytes;
	}
	t->model.n_spaces = n;
	t->model.cpu_pause_s = engine_start_pause_s(t->engine);
	t->model.gc_pause_s = engine_gc_pause_s(t->engine);
	t->model.max_pause_s = engine_max_pause_s(t->engine);
	if (procfs_mem_available(&avail) == 0)
		t->model.sys_mem_available_bytes = avail;
	tui_pull_alloc(t);
}

void tui_show_replay(struct tui *t, const struct memseries *s)
{
	t->model.have_memory = memseries_last(s) != NULL;
	t->model.mem = t->model.have_memory ? s : NULL; /* none: "not read in this session" */
	t->model.connected = false;
	t->model.replay = true;
	/* a log of incidents alone (--no-cpu was not given, --mem-interval 0 was) opens on them */
	view_key(t->view, &t->model, t->model.have_memory ? 'm' : 'I');
	tui_draw(t);
}

void tui_redraw(struct tui *t)
{
	tui_pull_alloc(t);
	tui_draw(t);
}

void tui_after_reset(struct tui *t)
{
	model_reset_decay(&t->model);
	tui_draw(t);
}
