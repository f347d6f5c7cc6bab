/* Unit tests for the screens: a model built from a hand-made profile, keys fed to the view,
 * and the grid read back as text. No terminal involved. */
#include "config.h"

#include "view.h"
#include "aggregate.h"
#include "cumulative.h"
#include "calltree.h"
#include "functab.h"
#include "grid.h"
#include "model.h"
#include "profile.h"
#include "requests.h"
#include "view_priv.h"
#include "tap.h"
#include "view_fixture.h"

#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NOW 1700000000.0

enum { F_ROOT, F_PROGRAM, F_IDLE, F_GC, F_MAIN, F_HOT, F_HELPER, F_ANON, F_NM, F_INTERNAL,
	F_EVIL, F_TINY, F_CJK, F_COUNT };

struct fixture {
	struct functab *ft;
	uint32_t id[F_COUNT];
	struct window_stats w;
	struct cumulative cum;
	struct calltree *ct;
	struct model m;
};

/* One profile: nodes (function, parent) in preorder, one sample per node with the given
 * weight (µs), and optional position ticks on one node. */
static void fixture_window(struct fixture *fx, size_t n, const int *fn, const int32_t *parent,
	const int64_t *weight_us, int ticks_node)
{
	static struct position_tick ticks[] = { { 12, 30 }, { 15, 10 } };
	struct profile p;

	memset(&p, 0, sizeof(p));
	p.nodes = calloc(n, sizeof(*p.nodes));
	p.samples = calloc(n, sizeof(*p.samples));
	p.time_deltas = calloc(n, sizeof(*p.time_deltas));
	for (size_t i = 0; i < n; i++) {
		p.nodes[i].func = fx->id[fn[i]];
		p.nodes[i].parent = parent[i];
		p.samples[i] = (uint32_t)i;
		p.time_deltas[i] = weight_us[i] * 10000; /* 400 -> 4 s */
		p.end_time_us += (double)p.time_deltas[i];
	}
	p.n_nodes = p.n_samples = n;
	if (ticks_node >= 0) {
		p.ticks = ticks;
		p.n_ticks = 2;
		p.nodes[ticks_node].ticks_first = 0;
		p.nodes[ticks_node].ticks_count = 2;
	}
	aggregate_window(&p, fx->ft, -INFINITY, &fx->w);
	cumulative_add(&fx->cum, &fx->w);
	calltree_add(fx->ct, &p, -INFINITY);
	model_on_window(&fx->m, &fx->w, 1000);
	free(p.nodes);
	free(p.samples);
	free(p.time_deltas);
}

static void fixture_init(struct fixture *fx)
{
	static const struct { const char *name, *url; int line; } f[F_COUNT] = {
		[F_ROOT] = { "(root)", "", -1 },
		[F_PROGRAM] = { "(program)", "", -1 },
		[F_IDLE] = { "(idle)", "", -1 },
		[F_GC] = { "(garbage collector)", "", -1 },
		[F_MAIN] = { "main", "file:///app/main.js", 0 },
		[F_HOT] = { "hotLoop", "file:///app/server.js", 9 },
		[F_HELPER] = { "helper", "file:///app/util.js", 19 },
		[F_ANON] = { "", "file:///app/anon.js", 2 },
		[F_NM] = { "lodashMap", "file:///app/node_modules/lodash/map.js", 4 },
		[F_INTERNAL] = { "processTicksAndRejections", "node:internal/process/task_queues", 94 },
		[F_EVIL] = { "\x1b[2Jevil\xff", "file:///app/evil.js", 0 },
		[F_TINY] = { "tiny", "file:///app/tiny.js", 0 },
		[F_CJK] = { "\xe5\x87\xa6\xe7\x90\x86", "file:///app/cjk.js", 0 },
	};
	/* root -> main -> hotLoop -> helper; main -> (anonymous), lodashMap;
	 * root -> processTicksAndRejections -> evil; root -> tiny, (program), (idle), (gc) */
	static const int fn[] = { F_ROOT, F_MAIN, F_HOT, F_HELPER, F_ANON, F_NM, F_INTERNAL,
		F_EVIL, F_TINY, F_PROGRAM, F_IDLE, F_GC };
	static const int32_t parent[] = { -1, 0, 1, 2, 1, 1, 0, 6, 0, 0, 0, 0 };
	static const int64_t weight[] = { 0, 20, 400, 100, 50, 60, 30, 40, 3, 100, 147, 50 };

	memset(fx, 0, sizeof(*fx));
	fx->ft = functab_create();
	for (int i = 0; i < F_COUNT; i++)
		fx->id[i] = functab_intern(fx->ft, f[i].name, strlen(f[i].name), f[i].url,
			strlen(f[i].url), f[i].line, 0);
	functab_set_deopt(fx->ft, fx->id[F_HOT], "Insufficient type feedback", 26);
	window_stats_init(&fx->w);
	cumulative_init(&fx->cum);
	fx->ct = calltree_create(10000);
	model_init(&fx->m);
	fx->m.pid = 4242;
	snprintf(fx->m.title, sizeof(fx->m.title), "node server.js");
	snprintf(fx->m.node_version, sizeof(fx->m.node_version), "v20.11.1");
	fx->m.attached_wall_s = NOW - 65;
	fx->m.delay_s = 1;
	fx->m.interval_us = 1000;
	fx->m.connected = true;
	fx->m.ft = fx->ft;
	fx->m.cum = &fx->cum;
	fx->m.ct = fx->ct;
	fixture_window(fx, 12, fn, parent, weight, 2);
}

static void fixture_free(struct fixture *fx)
{
	window_stats_free(&fx->w);
	cumulative_free(&fx->cum);
	calltree_free(fx->ct);
	model_free(&fx->m);
	functab_free(fx->ft);
}

/* Feeds s to the view a character at a time, \n as Enter. */
static enum view_action keys(struct view *v, const struct model *m, const char *s)
{
	enum view_action a = VA_NONE;
	for (; *s; s++)
		a = view_key(v, m, *s == '\n' ? VK_ENTER : (unsigned char)*s);
	return a;
}

static const int first_row = 6; /* at 24 lines: 5 header lines, then the headings */

static void test_table(struct fixture *fx)
{
	struct view_settings s = { .sort = COL_SELF_PCT, .mode = MODE_WINDOW };
	struct view *v = view_create(&s);
	struct grid g;
	int y, x;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "PID 4242") && strstr(row(&g, 0), "v20.11.1") &&
		strstr(row(&g, 0), "node server.js"), "header: the target");
	ok(strstr(row(&g, 0), "1m05s ago") != NULL, "header: time attached");
	ok(strstr(row(&g, 1), "last window 1.00s") != NULL, "header: the window length");
	ok(strstr(row(&g, 1), "12 samples") && strstr(row(&g, 1), "interval 1ms"),
		"header: samples and interval");
	ok(strstr(row(&g, 2), "JS 70.3%") && strstr(row(&g, 2), "GC 5.0%") &&
		strstr(row(&g, 2), "program 10.0%") && strstr(row(&g, 2), "idle 14.7%"),
		"header: the CPU split");
	ok(!strstr(row(&g, 2), "waited") && !strstr(row(&g, 2), "throttled"),
		"header: nothing of CPU waits the kernel did not tell");
	fx->m.runqueue_wait_ms = 0.4 * fx->m.last_window_ms;
	fx->m.throttled_ms = 0.02 * fx->m.last_window_ms;
	fx->m.throttled_periods_pct = 2;
	fx->m.quota_cores = 0.5;
	grid_resize(&g, 120, 24);
	view_draw(v, &fx->m, &g, NOW);
	x = find_cell(&g, 2, "waited 40%");
	ok(x >= 0 && attr_at(&g, x, 2) == GA_WARN, "header: the run-queue wait's share, red from 10%%");
	x = find_cell(&g, 2, "throttled 2% (quota 0.5 cores)");
	ok(x >= 0 && attr_at(&g, x, 2) == GA_NORMAL, "and the throttling with the quota, plain under 10%%");
	fx->m.quota_cores = INFINITY;
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 2), "waited 40%") && !strstr(row(&g, 2), "throttled"),
		"no quota: no throttling said");
	fx->m.runqueue_wait_ms = fx->m.throttled_ms = fx->m.throttled_periods_pct = NAN;
	fx->m.quota_cores = NAN;
	/* HTTP: a REQ line under the CPU line, the table one line lower */
	fx->m.have_requests = true;
	fx->m.req_per_s = 120;
	fx->m.req_p99_ms = 45;
	fx->m.req_errors_pct = 0.8;
	snprintf(fx->m.req_slowest, sizeof fx->m.req_slowest, "GET /report");
	fx->m.req_slowest_p99_ms = 190;
	snprintf(fx->m.req_slowest_wait, sizeof fx->m.req_slowest_wait, "10.0.0.7:8080");
	fx->m.req_slowest_wait_pct = 79;
	fx->m.calls_per_s = 30;
	fx->m.calls_p99_ms = 150;
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 3), "REQ 120/s  p99 45", 17) == 0 && strstr(row(&g, 3), "errors 0.8%") &&
		strstr(row(&g, 3), "slowest GET /report 190ms (79% on 10.0.0.7:8080)") &&
		strstr(row(&g, 3), "CALLS 30/s p99 150"),
		"header: the REQ line (%s)", row(&g, 3));
	x = find_cell(&g, 3, "errors 0.8%");
	ok(x >= 0 && attr_at(&g, x, 3) == GA_WARN, "errors in red");
	ok(strstr(row(&g, 6), "SELF%(1s)") != NULL, "the headings one line lower");
	fx->m.have_requests = false;
	grid_resize(&g, 80, 24);
	view_draw(v, &fx->m, &g, NOW);
	is_str(row(&g, 3), "                                                                                ",
		"the memory line is blank without memory data");
	ok(strstr(row(&g, 5), "SELF%(1s)") && !strstr(row(&g, 4), "FUNCTION"),
		"the headings follow the header");
	ok(strstr(row(&g, 5), "TOTAL%(1s)") && strstr(row(&g, 5), "SELF(tot)") &&
		strstr(row(&g, 5), "TOTAL(tot)") && strstr(row(&g, 5), "FUNCTION") &&
		strstr(row(&g, 5), "LOCATION"), "every column has a heading with its window");
	x = find_cell(&g, 5, "SELF%(1s)");
	is_int(attr_at(&g, x, 5), GA_SORTED, "the sort column's heading is highlighted");
	ok(strstr(row(&g, 5), "\xe2\x96\xbcSELF%(1s)") != NULL, "with an arrow pointing down");
	x = find_cell(&g, 5, "TOTAL%(1s)");
	is_int(attr_at(&g, x, 5), GA_TITLE, "other headings are not");

	ok(strstr(row(&g, first_row), "hotLoop") != NULL, "the hottest function is first");
	ok(strstr(row(&g, first_row), "40.0%") && strstr(row(&g, first_row), "50.0%"),
		"with its self and total share");
	ok(strstr(row(&g, first_row), " 4.00s") && strstr(row(&g, first_row), " 5.00s"),
		"and its self and total time");
	ok(strstr(row(&g, first_row), "server.js:10") && !screen_has(&g, "file:"),
		"its location is 1-based, without file://");
	is_int(attr_at(&g, 0, first_row), GA_SELECTED, "the first row is selected");
	ok(strstr(row(&g, first_row + 1), "helper") != NULL, "then the next by self time");
	x = find_cell(&g, first_row + 1, "10.0%");
	is_int(attr_at(&g, x, first_row + 1), GA_HEAT2, "10%% is warm (heat 2)");
	y = find_line(&g, "hotLoop");
	x = find_cell(&g, y, "40.0%");
	view_key(v, &fx->m, VK_DOWN);
	view_draw(v, &fx->m, &g, NOW);
	is_int(attr_at(&g, x, y), GA_HEAT4, "40%% is hot (heat 4)");
	ok(screen_has(&g, "(anonymous)"), "unnamed functions show as (anonymous)");
	y = find_line(&g, "lodashMap");
	ok(y > 0 && strstr(row(&g, y), "\xe2\x80\xa6") && strstr(row(&g, y), "map.js:5"),
		"long locations lose their start to an ellipsis");
	ok(screen_has(&g, "?[2Jevil?"), "escapes and invalid UTF-8 in names are sanitised");
	ok(grid_clean(&g), "no control byte reaches the grid");
	ok(rows_fit(&g), "every line is exactly 80 columns");
	ok(strstr(row(&g, 23), "q quit") && attr_at(&g, 0, 23) == GA_KEYBAR, "the key bar is last");

	/* Sorting. */
	is_int(view_key(v, &fx->m, '2'), VA_SETTINGS, "2 sorts by TOTAL%%");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "main") != NULL, "main has the largest total");
	x = find_cell(&g, 5, "TOTAL%(1s)");
	is_int(attr_at(&g, x, 5), GA_SORTED, "its heading is now highlighted");
	x = find_cell(&g, 5, "SELF%(1s)");
	is_int(attr_at(&g, x, 5), GA_TITLE, "and the old one is not");
	is_int(view_key(v, &fx->m, 'R'), VA_SETTINGS, "R reverses");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "tiny") != NULL, "reversed: the smallest total first");
	ok(strstr(row(&g, 5), "\xe2\x96\xb2TOTAL%(1s)") != NULL, "the arrow points up");
	ok(view_settings(v)->reverse && view_settings(v)->sort == COL_TOTAL_PCT,
		"the settings say so");
	keys(v, &fx->m, "R>");
	is_int(view_settings(v)->sort, COL_SELF_TIME, "> moves to the next column");
	keys(v, &fx->m, "<<<");
	is_int(view_settings(v)->sort, COL_LOCATION, "< wraps around");
	keys(v, &fx->m, "5");
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "helper") < find_line(&g, "hotLoop") &&
		find_line(&g, "hotLoop") < find_line(&g, "lodashMap") &&
		find_line(&g, "lodashMap") < find_line(&g, "main.js"), "5 sorts by name, A to Z");
	keys(v, &fx->m, "1");

	/* Modes. */
	is_int(view_key(v, &fx->m, 'w'), VA_SETTINGS, "w changes the mode");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 5), "SELF%(avg 5s)") != NULL, "decayed: the heading says avg and the half-life");
	ok(strstr(row(&g, 2), "half-life 5s") != NULL, "and so does the CPU line");
	view_key(v, &fx->m, 'w');
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 5), "SELF%(all)") && strstr(row(&g, 2), "since attach"),
		"cumulative: all");
	view_key(v, &fx->m, 'w');
	is_int(view_settings(v)->mode, MODE_WINDOW, "and back to the last window");

	/* Threshold, internals, node_modules. */
	is_int(keys(v, &fx->m, "++"), VA_SETTINGS, "+ raises the threshold");
	is_num(view_settings(v)->threshold_pct, 0.5, 1e-9, "in steps: 0, 0.1, 0.5");
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "tiny") && screen_has(&g, "threshold 0.5%"),
		"rows under the threshold are hidden, and the header says so");
	keys(v, &fx->m, "-");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "tiny"), "- lowers it again");
	keys(v, &fx->m, "-");
	is_int(view_key(v, &fx->m, '-'), VA_NONE, "not below 0");
	keys(v, &fx->m, "i");
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "processTicks") && screen_has(&g, "hiding node internals"),
		"i hides Node internals");
	ok(screen_has(&g, "?[2Jevil?"), "but not the code they call");
	keys(v, &fx->m, "iM");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "processTicks") && !screen_has(&g, "lodashMap"),
		"M hides node_modules, i shows internals again");
	keys(v, &fx->m, "M");

	/* Filter. */
	is_int(keys(v, &fx->m, "\\SERVER\n"), VA_SETTINGS, "a filter is a setting");
	is_str(view_settings(v)->filter, "SERVER", "kept as typed");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "hotLoop") && !screen_has(&g, "helper") && !screen_has(&g, "main.js"),
		"the filter matches locations too, ignoring case");
	ok(screen_has(&g, "filter \"SERVER\""), "the header shows the filter");
	keys(v, &fx->m, "\\");
	for (int i = 0; i < 6; i++)
		view_key(v, &fx->m, VK_BACKSPACE);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 23), "Filter: _") != NULL, "the prompt is at the bottom");
	keys(v, &fx->m, "\n");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "helper") && view_settings(v)->filter[0] == '\0', "empty clears it");

	/* Search. */
	view_key(v, &fx->m, VK_HOME);
	is_int(keys(v, &fx->m, "/util\n"), VA_REDRAW, "search");
	view_draw(v, &fx->m, &g, NOW);
	y = selected_line(&g);
	ok(y >= 0 && strstr(row(&g, y), "helper"), "Enter jumps to the match (in the location)");
	keys(v, &fx->m, "/app/\n");
	view_draw(v, &fx->m, &g, NOW);
	y = selected_line(&g);
	keys(v, &fx->m, "n");
	view_draw(v, &fx->m, &g, NOW);
	is_int(selected_line(&g), y + 1, "n jumps to the next match");
	keys(v, &fx->m, "/nosuchthing\n");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 22), "No function") != NULL, "a failed search says so");
	is_int(view_key(v, &fx->m, VK_ESC), VA_REDRAW, "Esc clears the search");
	keys(v, &fx->m, "/abc");
	is_int(view_key(v, &fx->m, VK_ESC), VA_REDRAW, "Esc cancels a prompt");
	is_int(view_key(v, &fx->m, 'q'), VA_QUIT, "after which q quits again");

	/* With the JIT left as it was, the header says what self time may hold. */
	fx->m.inlined_in_callers = true;
	snprintf(fx->m.inlining_caveat, sizeof(fx->m.inlining_caveat), "--leave-jit");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 1), "SELF MAY INCLUDE INLINED CALLEES (--leave-jit)") != NULL,
		"header: inlined callees may be in their callers' self time");
	x = find_cell(&g, 1, "SELF MAY");
	is_int(attr_at(&g, x, 1), GA_WARN, "as a warning");
	fx->m.inlined_in_callers = false;

	view_free(v);
	grid_free(&g);
}

static void test_pause_and_selection(struct fixture *fx)
{
	static const int fn[] = { F_ROOT, F_TINY, F_HELPER };
	static const int32_t parent[] = { -1, 0, 0 };
	static const int64_t weight[] = { 0, 900, 100 };
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	view_key(v, &fx->m, VK_DOWN);
	view_draw(v, &fx->m, &g, NOW);
	y = selected_line(&g);
	ok(y == first_row + 1 && strstr(row(&g, y), "helper"), "Down selects the second row");

	is_int(view_key(v, &fx->m, 'p'), VA_REDRAW, "p pauses");
	ok(view_paused(v), "the view is paused");
	fixture_window(fx, 3, fn, parent, weight, -1);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "hotLoop") != NULL, "paused: the rows stay frozen");
	ok(strstr(row(&g, 1), "PAUSED") && attr_at(&g, 0, 1) == GA_WARN, "the header says PAUSED");
	ok(strstr(row(&g, 23), "PAUSED") != NULL, "and so does the key bar");
	keys(v, &fx->m, "2");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "main") != NULL, "sorting works on the frozen rows");
	keys(v, &fx->m, "1 ");
	ok(!view_paused(v), "space resumes");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "tiny") != NULL, "resumed: the new window shows");
	y = selected_line(&g);
	ok(y == first_row + 1 && strstr(row(&g, y), "helper"),
		"the selection stayed on helper");

	/* Warnings. */
	fx->m.windows_late = 3;
	fx->m.connected = false;
	model_set_status(&fx->m, true, NOW, "cannot save: disk full");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 1), "3 LATE WINDOWS") && strstr(row(&g, 1), "DISCONNECTED"),
		"late windows and a lost target are shown");
	is_int(attr_at(&g, 0, 1), GA_WARN, "as warnings");
	ok(strstr(row(&g, 22), "disk full") && attr_at(&g, 0, 22) == GA_WARN,
		"an error status is a warning above the key bar");
	fx->m.windows_late = 0;
	fx->m.connected = true;
	fx->m.status[0] = '\0';
	view_free(v);
	grid_free(&g);
}

static void test_detail_and_help(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	is_int(view_detail_func(v), UINT32_MAX, "the table is not a detail");
	is_int(view_key(v, &fx->m, VK_ENTER), VA_REDRAW, "Enter opens the selected function");
	is_int(view_detail_func(v), fx->id[F_HOT], "the hottest one");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "hotLoop") != NULL, "the detail names it");
	ok(strstr(row(&g, 1), "/app/server.js:10:1") != NULL, "with its location");
	ok(screen_has(&g, "Insufficient type feedback"), "and V8's deoptimisation reason");
	y = find_line(&g, "CALLERS");
	ok(y > 0 && strstr(row(&g, y + 1), "main") && strstr(row(&g, y + 1), "100.0%") &&
		strstr(row(&g, y + 1), "5.00s"), "its caller, with its share and time");
	y = find_line(&g, "CALLEES");
	ok(y > 0 && strstr(row(&g, y + 1), "helper") && strstr(row(&g, y + 1), "20.0%"),
		"its callee, with its share");
	y = find_line(&g, "HOT LINES");
	ok(y > 0 && strstr(row(&g, y + 1), "line 12") && strstr(row(&g, y + 1), "75.0%") &&
		strstr(row(&g, y + 1), "30 ticks"), "the hottest line first");
	ok(y > 0 && strstr(row(&g, y + 2), "line 15") && strstr(row(&g, y + 2), "25.0%"),
		"then the next");
	ok(rows_fit(&g) && grid_clean(&g), "the detail fits the grid");

	view_key(v, &fx->m, VK_DOWN);
	is_int(view_key(v, &fx->m, VK_ENTER), VA_REDRAW, "Enter on a callee opens it");
	is_int(view_detail_func(v), fx->id[F_HELPER], "helper");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "No deoptimisation"), "no deoptimisation reported for helper");
	view_key(v, &fx->m, VK_ESC);
	is_int(view_detail_func(v), fx->id[F_HOT], "Esc goes back one level");
	view_key(v, &fx->m, VK_BACKSPACE);
	is_int(view_detail_func(v), UINT32_MAX, "and then to the table");

	is_int(view_key(v, &fx->m, '?'), VA_REDRAW, "? opens the help");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "SELF%(1s)") && screen_has(&g, "TOTAL%(...)"),
		"the help explains the percentage columns");
	{
		bool seen = false;
		for (int i = 0; i < 8 && !seen; i++) {
			view_key(v, &fx->m, VK_PGDN);
			view_draw(v, &fx->m, &g, NOW);
			seen = screen_has(&g, "save the profile");
		}
		ok(seen, "and scrolls to the keys");
	}
	view_key(v, &fx->m, VK_HOME);
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "SELF(tot)") && screen_has(&g, "TOTAL(tot)") &&
		screen_has(&g, "FUNCTION") && screen_has(&g, "LOCATION"), "and every other column");
	is_int(view_key(v, &fx->m, 'q'), VA_REDRAW, "q on the help goes back");
	is_int(view_detail_func(v), UINT32_MAX, "to the table");
	is_int(view_key(v, &fx->m, 'q'), VA_QUIT, "q on the table quits");
	is_int(view_key(v, &fx->m, 3), VA_QUIT, "so does Ctrl-C");
	is_int(view_key(v, &fx->m, 'r'), VA_RESET, "r resets");
	is_int(view_key(v, &fx->m, 's'), VA_SAVE, "s saves");
	is_int(view_key(v, &fx->m, 'x'), VA_NONE, "other keys do nothing");

	/* A session without memory readings: the memory screen says so. */
	is_int(view_key(v, &fx->m, 'm'), VA_REDRAW, "m opens the memory screen");
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "MEMORY", 6) == 0 && screen_has(&g, "memory is not read"),
		"without memory data it says so");
	ok(screen_has(&g, "allocation sampling off: press a to start"), "and how to sample");
	ok(rows_fit(&g) && grid_clean(&g), "the memory screen fits the grid");
	is_int(view_key(v, &fx->m, VK_ESC), VA_REDRAW, "Esc goes back");
	is_int(view_detail_func(v), UINT32_MAX, "to the table");
	view_free(v);
	grid_free(&g);
}

static void test_sizes(struct fixture *fx)
{
	static const int sizes[][2] = { { 200, 50 }, { 20, 5 }, { 10, 3 }, { 1, 1 }, { 3, 30 },
		{ 80, 8 }, { 80, 12 }, { 0, 0 } };
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 200, 50);
	view_draw(v, &fx->m, &g, NOW);
	y = find_line(&g, "lodashMap");
	ok(y > 0 && strstr(row(&g, y), "/app/node_modules/lodash/map.js:5"),
		"wide terminals show whole locations");
	ok(strstr(row(&g, 6), "hotLoop") && strstr(row(&g, 6), " /app/server.js:10 "),
		"200x50: the hot function is first, with its whole location");
	y = find_line(&g, "\xe5\x87\xa6\xe7\x90\x86");
	ok(y < 0, "a function without samples is not a row");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int screen = 0; screen < 4; screen++) {
			grid_resize(&g, sizes[i][0], sizes[i][1]);
			if (screen == 1)
				view_key(v, &fx->m, VK_ENTER);
			if (screen == 2)
				view_key(v, &fx->m, '?');
			if (screen == 3)
				view_key(v, &fx->m, 'm');
			view_draw(v, &fx->m, &g, NOW);
			ok(rows_fit(&g) && grid_clean(&g), "%dx%d screen %d: drawn inside the grid",
				sizes[i][0], sizes[i][1], screen);
			view_key(v, &fx->m, VK_ESC);
		}
	}
	/* 80x10: three header lines, the headings, four rows. */
	grid_resize(&g, 80, 10);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 4), "hotLoop") && strstr(row(&g, 3), "FUNCTION"),
		"80x10: a shorter header, then the table");
	is_int(view_key(v, &fx->m, VK_END), VA_REDRAW, "End moves to the last row");
	view_draw(v, &fx->m, &g, NOW);
	ok(selected_line(&g) == 7 && strstr(row(&g, 7), "tiny"),
		"the table scrolls to keep the selection visible");
	ok(!screen_has(&g, "hotLoop"), "the first rows scrolled away");
	is_int(view_key(v, &fx->m, VK_DOWN), VA_NONE, "Down on the last row does nothing");
	view_key(v, &fx->m, VK_PGUP);
	view_draw(v, &fx->m, &g, NOW);
	ok(selected_line(&g) == 4 && strstr(row(&g, 4), "(anonymous)"), "PgUp moves a page up");
	view_key(v, &fx->m, VK_HOME);
	view_draw(v, &fx->m, &g, NOW);
	ok(selected_line(&g) == 4 && strstr(row(&g, 4), "hotLoop"), "Home goes back to the top");

	grid_resize(&g, 20, 5);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 1), "hotLoop") && strstr(row(&g, 1), "40.0%"),
		"20x5: the share and the name still show");
	ok(strstr(row(&g, 0), "SELF%(1s)") != NULL, "with the heading");
	view_free(v);
	grid_free(&g);
}

static void test_wide_names(void)
{
	struct fixture fx;
	static const int fn[] = { F_ROOT, F_CJK, F_MAIN };
	static const int32_t parent[] = { -1, 0, 0 };
	static const int64_t weight[] = { 0, 600, 400 };
	struct view *v = view_create(NULL);
	struct grid g;
	int y1, y2;

	fixture_init(&fx);
	fixture_window(&fx, 3, fn, parent, weight, -1);
	grid_init(&g);
	grid_resize(&g, 80, 24);
	view_draw(v, &fx.m, &g, NOW);
	y1 = find_line(&g, "\xe5\x87\xa6\xe7\x90\x86");
	y2 = find_line(&g, "main");
	ok(y1 == first_row && y2 == first_row + 1, "a CJK name is drawn");
	ok(rows_fit(&g), "and takes two columns per character");
	is_int(find_cell(&g, y1, "/app/cjk.js"), find_cell(&g, y2, "/app/main.js"),
		"locations stay aligned after wide names");
	view_free(v);
	grid_free(&g);
	fixture_free(&fx);
}

/* Random keys at random sizes: nothing may crash (the sanitizers watch) or leave the grid. */
static void test_random_keys(struct fixture *fx)
{
	static const int keyset[] = { 'q', 'h', '?', '<', '>', '1', '4', '6', 'R', 'p', ' ', '/',
		'\\', 'n', 'N', 'i', 'M', '+', '-', 'w', 'r', 's', 'x', 'a', 'm', 'H', 'y', '2',
		VK_UP, VK_DOWN,
		VK_PGUP, VK_PGDN, VK_HOME, VK_END, VK_ENTER, VK_ESC, VK_BACKSPACE, VK_F1,
		VK_RESIZE, VK_LEFT, VK_RIGHT, 0x65e5, 0xe9, 127, 21, 3 };
	struct view *v = view_create(NULL);
	struct grid g;
	unsigned seed = 12345;
	bool clean = true;

	grid_init(&g);
	for (int i = 0; i < 3000; i++) {
		seed = seed * 1103515245u + 12345u;
		view_key(v, &fx->m, keyset[(seed >> 16) % (sizeof(keyset) / sizeof(keyset[0]))]);
		if (i % 7 == 0) {
			seed = seed * 1103515245u + 12345u;
			grid_resize(&g, (int)((seed >> 16) % 130), (int)((seed >> 8) % 45));
		}
		view_draw(v, &fx->m, &g, NOW);
		clean = clean && grid_clean(&g) && rows_fit(&g);
	}
	ok(clean, "3000 random keys at random sizes: every drawing stays clean and inside");
	view_free(v);
	grid_free(&g);
}

static void test_formats(void)
{
	char buf[64];

	view_fmt_time(1.234e6, buf, sizeof(buf));
	is_str(buf, "1.23s", "times under a minute: seconds");
	view_fmt_time(59.999e6, buf, sizeof(buf));
	is_str(buf, "1m00s", "rounding up to a minute");
	view_fmt_time((12 * 60 + 3) * 1e6, buf, sizeof(buf));
	is_str(buf, "12m03s", "minutes and seconds");
	view_fmt_time((3 * 3600 + 5 * 60 + 10) * 1e6, buf, sizeof(buf));
	is_str(buf, "3h05m", "hours and minutes");
	view_fmt_time(NAN, buf, sizeof(buf));
	is_str(buf, "0.00s", "not a number is zero");
	is_int(view_heat(0.5), GA_NORMAL, "under 1%% has no heat");
	is_int(view_heat(1), GA_HEAT1, "1%% is heat 1");
	is_int(view_heat(15), GA_HEAT3, "15%% is heat 3");

	/* Sizes and spans, for the memory line and screen. */
	view_fmt_bytes(812.3 * (1024.0 * 1024), buf, sizeof(buf));
	is_str(buf, "812.3M", "bytes: MiB with one decimal");
	view_fmt_bytes(1023, buf, sizeof(buf));
	is_str(buf, "1023B", "under a KiB: bytes");
	view_fmt_bytes(1023.97 * 1024, buf, sizeof(buf));
	is_str(buf, "1.0M", "never 1024.0 of a unit");
	view_fmt_bytes(12.3 * (1024.0 * 1024 * 1024), buf, sizeof(buf));
	is_str(buf, "12.3G", "GiB");
	view_fmt_bytes(NAN, buf, sizeof(buf));
	is_str(buf, "?", "not read: ?");
	view_fmt_bytes_signed(12.3 * (1024.0 * 1024), buf, sizeof(buf));
	is_str(buf, "+12.3M", "growth has a sign");
	view_fmt_bytes_signed(-1024, buf, sizeof(buf));
	is_str(buf, "-1.0K", "shrinking too");
	view_fmt_bytes_signed(0, buf, sizeof(buf));
	is_str(buf, "0B", "no growth: no sign");
	view_fmt_span(300, buf, sizeof(buf));
	is_str(buf, "5m", "spans: whole minutes");
	view_fmt_span(252, buf, sizeof(buf));
	is_str(buf, "4m12s", "minutes and seconds");
	view_fmt_span(86400, buf, sizeof(buf));
	is_str(buf, "24h", "a day is 24h");
	view_fmt_span(5400, buf, sizeof(buf));
	is_str(buf, "1h30m", "hours and minutes");
	view_fmt_span(3 * 86400 + 7200, buf, sizeof(buf));
	is_str(buf, "3d02h", "days and hours");
	view_fmt_span(-1, buf, sizeof(buf));
	is_str(buf, "?", "a negative span is unknown");
}

/* Rows dimmed and hidden by i are what the heap profile charges to callers: functab's test. */
static void test_internal_rows(void)
{
	struct functab *ft = functab_create();
	uint32_t native = functab_intern(ft, "writeUtf8String", 15, "", 0, -1, -1);
	uint32_t evaluated = functab_intern(ft, "gen_7_work", 10, "", 0, 2, 28);
	uint32_t node = functab_intern(ft, "listOnTimeout", 13, "node:internal/timers", 20, 511, 16);
	uint32_t app = functab_intern(ft, "handler", 7, "file:///app/server.js", 21, 9, 0);
	struct model m;

	model_init(&m);
	m.ft = ft;
	ok(view_func_internal(&m, native), "a native row is internal");
	ok(!view_func_internal(&m, evaluated), "an evaluated one is the application's");
	ok(view_func_internal(&m, node) && !view_func_internal(&m, app), "node: is, file:// is not");
	ok(!view_func_internal(&m, 999), "an unknown function is not");
	model_free(&m);
	functab_free(ft);
}

/* Every screen is one struct screen, and view_draw and view_key go through it: what the view
 * draws on each screen is what that screen's own draw does, and only help keeps the shared
 * keys away (q there goes back instead of quitting). */
static void test_screens(struct fixture *fx)
{
	static const struct { enum view_screen n; const struct screen *s; } all[] = {
		{ VS_TABLE, &screen_table }, { VS_DETAIL, &screen_detail }, { VS_HELP, &screen_help },
		{ VS_MEMORY, &screen_memory }, { VS_EVLOOP, &screen_evloop }, { VS_ALL, &screen_all },
		{ VS_REQUESTS, &screen_requests }, { VS_INCIDENTS, &screen_incidents },
	};
	struct grid a, b;

	grid_init(&a);
	grid_init(&b);
	grid_resize(&a, 100, 30);
	grid_resize(&b, 100, 30);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct view *v = view_create(NULL);
		bool same = true;

		v->screen = all[i].n;
		v->detail = fx->id[F_HOT];
		view_draw(v, &fx->m, &a, NOW);
		grid_clear(&b);
		all[i].s->draw(v, &fx->m, &b, NOW);
		for (int y = 0; y < a.height && same; y++) {
			char *t = grid_row_text(&b, y);
			same = strcmp(row(&a, y), t) == 0;
			free(t);
		}
		ok(all[i].s->name && all[i].s->name[0] && all[i].s->bindings &&
			same,
			"screen %s: named, and the view draws it through its entry", all[i].s->name);
		ok(all[i].s->shared_keys == (all[i].n != VS_HELP) &&
			view_key(v, &fx->m, 'q') == (all[i].n == VS_HELP ? VA_REDRAW : VA_QUIT),
			"screen %s: the shared keys as its entry says", all[i].s->name);
		view_free(v);
	}
	grid_free(&a);
	grid_free(&b);
}

/* The requests screen (e): routes and destinations from a reading, sorted, a route opened,
 * the window or since attach, and what it says when there is nothing to show. */
static void test_requests_screen(struct fixture *fx)
{
	static const char json[] = "{\"ctx\":true,\"s\":["
		"[\"GET /api/items/:id\",120,0,31,{\"35\":100,\"36\":20},2,2400,{}],"
		"[\"GET /report\",12,1,660,{\"43\":11,\"60\":1},1,1800,{\"10.0.0.7:8080\":1500},12,1800],"
		"[\"GET /\\u001b[2Jevil\",3,3,1,{\"10\":3},0,3,{}]],"
		"\"c\":[[\"10.0.0.7:8080\",24,0,70,{\"40\":24},1,1300,{}]]}";
	struct req_window *w = calloc(1, sizeof *w), *t = calloc(1, sizeof *t);
	struct model *m = &fx->m;
	struct view *v = view_create(NULL);
	struct grid g;
	int y, x;

	grid_init(&g);
	grid_resize(&g, 160, 30);
	ok(requests_parse(json, sizeof json - 1, w) == 0 && w->n_server == 3, "a reading parses");
	requests_add(t, w);
	requests_add(t, w);
	m->requests_read = true;
	m->req_last = w;
	m->req_total = t;
	m->req_window_ms = 1000;
	m->req_since_s = 60;
	is_int(view_key(v, m, 'e'), VA_REDRAW, "e opens the requests screen");
	view_draw(v, m, &g, NOW);
	ok(strncmp(row(&g, 0), "REQUESTS  last window (1.0s)  sorted by REQ/S", 45) == 0,
		"its title: the last window, sorted by requests (%s)", row(&g, 0));
	ok(strstr(row(&g, 2), "ROUTE") && strstr(row(&g, 2), "REQ/S") && strstr(row(&g, 2), "P99") &&
		strstr(row(&g, 2), "WAITS ON"), "headings (%s)", row(&g, 2));
	ok(strstr(row(&g, 3), "GET /api/items/:id") && strstr(row(&g, 3), "120.0") &&
		strstr(row(&g, 3), "0.0%"), "the busiest route first, its rate a second (%s)", row(&g, 3));
	ok(attr_at(&g, 1, 3) == GA_SELECTED, "and selected");
	ok(strstr(row(&g, 4), "GET /report") && strstr(row(&g, 4), "83%") &&
		strstr(row(&g, 4), "10.0.0.7:8080") && strstr(row(&g, 4), "8.3%"),
		"then /report: 83%% of its time waiting on 10.0.0.7:8080, errors 8.3%% (%s)", row(&g, 4));
	x = find_cell(&g, 4, "8.3%");
	ok(x >= 0 && attr_at(&g, x, 4) == GA_WARN, "errors in red");
	ok(strstr(row(&g, 5), "GET /?[2Jevil") || (strstr(row(&g, 5), "evil") &&
		!strchr(row(&g, 5), 0x1b)), "a hostile route is shown without its escape (%s)", row(&g, 5));
	for (y = 6; y < 20 && !strstr(row(&g, y), "CALLS"); y++)
		;
	ok(y < 20 && strstr(row(&g, y + 1), "DESTINATION") && strstr(row(&g, y + 1), "CALLS/S") &&
		strstr(row(&g, y + 2), "10.0.0.7:8080") && strstr(row(&g, y + 2), "24.0"),
		"then the calls, per destination");
	is_int(view_key(v, m, '2'), VA_REDRAW, "2 sorts by p99");
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 3), "GET /report") && strstr(row(&g, 0), "sorted by P99"),
		"the slowest first (%s)", row(&g, 3));
	is_int(view_key(v, m, VK_ENTER), VA_REDRAW, "Enter opens the selected route");
	view_draw(v, m, &g, NOW);
	for (y = 3; y < 28 && !strstr(row(&g, y), "waits on 10.0.0.7:8080"); y++)
		;
	ok(y < 28 && strstr(row(&g, y), "125ms a request (83% of its time)"),
		"it says what it waits on, a request and as a share (%s)", y < 28 ? row(&g, y) : "");
	for (y = 3; y < 28 && !strstr(row(&g, y), "LATENCY"); y++)
		;
	ok(y < 28 && strstr(row(&g, y + 1), "51ms-102ms") && strstr(row(&g, y + 1), " 11 "),
		"and its latency by octave: 11 between 51 and 102 ms (%s)", y < 28 ? row(&g, y + 1) : "");
	is_int(view_key(v, m, VK_ESC), VA_REDRAW, "Esc closes the route");
	ok(!v->req_open && v->screen == VS_REQUESTS, "and stays on the screen");
	is_int(view_key(v, m, 'w'), VA_SETTINGS, "w");
	is_int(view_key(v, m, 'w'), VA_SETTINGS, "w again: since attach");
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 0), "since attach (1m)") && strstr(row(&g, 3), "GET /report") &&
		strstr(row(&g, 3), "0.4"), "since attach: twice the requests over a minute (%s)", row(&g, 3));
	m->req_total = NULL;
	m->requests_read = false;
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 1), "read on the main thread") != NULL, "not read: says why (%s)", row(&g, 1));
	m->no_eval = true;
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 1), "--no-eval") != NULL, "--no-eval: says so");
	m->no_eval = false;
	is_int(view_key(v, m, 'e'), VA_REDRAW, "e goes back");
	ok(v->screen == VS_TABLE, "to the table");
	view_key(v, m, 'w');
	m->req_last = m->req_total = NULL;
	m->requests_read = false;
	grid_free(&g);
	view_free(v);
	free(w);
	free(t);
}

/* The incidents screen (I): the title's mark, the list newest first, one opened, text from a
 * log made safe, the ring's bound, and the way back (the table, or a replay's memory). */
static void test_incidents_screen(struct fixture *fx)
{
	struct model *m = &fx->m;
	struct view *v = view_create(NULL);
	struct incident_summary a = { .fired_s = NOW - 3600, .from_s = NOW - 3660, .to_s = NOW - 3590,
		.value = 93, .n_top = 2 }, b = { .fired_s = NOW - 60, .from_s = NOW - 120,
		.to_s = NOW - 50, .value = 2.5 * 1024 * 1024 * 1024 };
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 160, 30);
	snprintf(a.trigger, sizeof a.trigger, "cpu>80%%:5s");
	snprintf(a.unit, sizeof a.unit, "%%");
	snprintf(a.name, sizeof a.name, "incident-A");
	snprintf(a.dir, sizeof a.dir, "/var/lib/ntop-js/incidents");
	snprintf(a.top[0].function, sizeof a.top[0].function, "spikeHash");
	snprintf(a.top[0].where, sizeof a.top[0].where, "server.ts:12");
	a.top[0].self_pct = 61.5;
	snprintf(a.top[1].function, sizeof a.top[1].function, "evil\x1b]0;owned\x07");
	a.top[1].self_pct = 3;
	snprintf(b.trigger, sizeof b.trigger, "rss>2G\x1b[2J");
	snprintf(b.unit, sizeof b.unit, "bytes");
	view_key(v, m, 'I');
	view_draw(v, m, &g, NOW);
	ok(v->screen == VS_INCIDENTS && strstr(row(&g, 0), "INCIDENTS  0") &&
		strstr(row(&g, 2), "No incident yet: --trigger arms them"),
		"I with none: says how to arm them (%s)", row(&g, 2));
	model_add_incident(m, &a);
	model_add_incident(m, &b);
	view_key(v, m, 'I');
	ok(v->screen == VS_TABLE, "I again goes back to the table");
	view_draw(v, m, &g, NOW);
	ok(strncmp(row(&g, 1), "INCIDENTS 2 (I)  ", 17) == 0, "the table's sampling line marks "
		"them first (%s)", row(&g, 1));
	ok(attr_at(&g, 0, 1) == GA_WARN, "in red");
	view_key(v, m, 'I');
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 3), "rss>2G?[2J") && strstr(row(&g, 3), "2.5G") &&
		strstr(row(&g, 3), "-60s +10s") && !strchr(row(&g, 3), 0x1b),
		"the newest first, its trigger made safe, its value in bytes (%s)", row(&g, 3));
	ok(attr_at(&g, 1, 3) == GA_SELECTED, "and selected");
	ok(strstr(row(&g, 4), "cpu>80%:5s") && strstr(row(&g, 4), "93 %") &&
		strstr(row(&g, 4), "-60s +10s") && strstr(row(&g, 4), "spikeHash"),
		"then the older one: value, span, hottest function (%s)", row(&g, 4));
	view_key(v, m, VK_DOWN);
	is_int(view_key(v, m, VK_ENTER), VA_REDRAW, "Enter opens the selected one");
	view_draw(v, m, &g, NOW);
	for (y = 5; y < 28 && !strstr(row(&g, y), "fired at"); y++)
		;
	ok(y < 28 && strstr(row(&g, y), "cpu>80%:5s") && strstr(row(&g, y), "read 93 %"),
		"what fired and what it read (%s)", y < 28 ? row(&g, y) : "");
	ok(y < 26 && strstr(row(&g, y + 1), "its profile covers") && strstr(row(&g, y + 1), "(70 s)") &&
		strstr(row(&g, y + 2), "bundle: /var/lib/ntop-js/incidents/incident-A"),
		"the span its profile covers and its bundle (%s)", y < 26 ? row(&g, y + 2) : "");
	ok(y < 22 && strstr(row(&g, y + 4), "SELF%") && strstr(row(&g, y + 5), "61.5%") &&
		strstr(row(&g, y + 5), "spikeHash") && strstr(row(&g, y + 5), "server.ts:12") &&
		strstr(row(&g, y + 6), "evil?]0;owned?") && !strchr(row(&g, y + 6), 0x1b),
		"its top functions, a hostile name made safe (%s)", y < 22 ? row(&g, y + 6) : "");
	model_add_incident(m, &b);
	view_draw(v, m, &g, NOW);
	for (y = 5; y < 28 && !strstr(row(&g, y), "fired at"); y++)
		;
	ok(v->inc_sel == 2 && y < 28 && strstr(row(&g, y), "cpu>80%:5s"),
		"a new incident moves the rows: the opened one stays opened (%s)", y < 28 ? row(&g, y) : "");
	is_int(view_key(v, m, VK_ESC), VA_REDRAW, "Esc closes it");
	ok(!v->inc_open && v->screen == VS_INCIDENTS, "and stays on the screen");
	view_key(v, m, VK_ESC);
	ok(v->screen == VS_TABLE, "Esc again: the table");
	m->replay = true;
	view_key(v, m, 'I');
	view_key(v, m, VK_ESC);
	ok(v->screen == VS_MEMORY, "in a replay Esc goes back to the memory screen");
	m->replay = false;
	for (int i = 0; i < MODEL_INCIDENTS_MAX + 5; i++)
		model_add_incident(m, &b);
	ok(m->n_incidents == MODEL_INCIDENTS_MAX && m->incidents_total == MODEL_INCIDENTS_MAX + 8,
		"the model keeps the latest %d and counts them all", MODEL_INCIDENTS_MAX);
	v->screen = VS_INCIDENTS;
	view_draw(v, m, &g, NOW);
	ok(strstr(row(&g, 0), "the latest 32 of 40") != NULL, "the title says so (%s)", row(&g, 0));
	m->n_incidents = 0;
	m->incidents_total = 0;
	grid_free(&g);
	view_free(v);
}

/* Everything about a view a key can change. */
static bool same_view(const struct view *a, const struct view *b)
{
	return a->screen == b->screen && a->help_from == b->help_from &&
		a->prompt == b->prompt && a->paused == b->paused &&
		memcmp(&a->s, &b->s, sizeof(a->s)) == 0 && a->sel == b->sel &&
		a->sel_func == b->sel_func && a->top == b->top && a->all_top == b->all_top &&
		a->detail == b->detail && a->depth == b->depth && a->detail_sel == b->detail_sel &&
		a->help_top == b->help_top && a->zoom == b->zoom && a->blk_sel == b->blk_sel &&
		a->blk_stack == b->blk_stack && a->req_sel == b->req_sel &&
		a->req_sort == b->req_sort && a->req_open == b->req_open && a->inc_sel == b->inc_sel &&
		a->inc_open == b->inc_open && strcmp(a->msg, b->msg) == 0 &&
		strcmp(a->search, b->search) == 0 && strcmp(a->input, b->input) == 0;
}

static struct view *view_on(struct fixture *fx, enum view_screen n)
{
	struct view *v = view_create(NULL);

	if (n == VS_DETAIL)
		view_detail_open(v, fx->id[F_HOT], false);
	v->screen = n;
	snprintf(v->search, sizeof(v->search), "hot"); /* so that the table's Esc has work */
	return v;
}

/* The codes a help label names ("q, Ctrl-C", "<, >, 1-6", "arrows"); false for a word it
 * does not know. */
static bool label_codes(const char *label, int *codes, size_t *n)
{
	static const struct { const char *name; int code; } names[] = {
		{ "Ctrl-C", 3 }, { "F1", VK_F1 }, { "space", ' ' }, { "Enter", VK_ENTER },
		{ "Esc", VK_ESC }, { "Backspace", VK_BACKSPACE }, { "Up", VK_UP },
		{ "Down", VK_DOWN }, { "PgUp", VK_PGUP }, { "PgDn", VK_PGDN }, { "arrows", VK_UP },
		{ "arrows", VK_DOWN }, { "arrows", VK_PGUP }, { "arrows", VK_PGDN },
		{ "arrows", VK_HOME }, { "arrows", VK_END },
	};
	char buf[64], *save = NULL;

	*n = 0;
	snprintf(buf, sizeof(buf), "%s", label);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		size_t before = *n;
		if (strlen(t) == 1) {
			codes[(*n)++] = (unsigned char)t[0];
		} else if (strlen(t) == 3 && t[1] == '-' && t[0] < t[2]) {
			for (int c = t[0]; c <= t[2]; c++)
				codes[(*n)++] = c;
		} else {
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (strcmp(names[i].name, t) == 0)
					codes[(*n)++] = names[i].code;
		}
		if (*n == before)
			return false;
	}
	return *n > 0;
}

/* Whether some table (the shared keys' or a screen's) lists code. */
static bool code_bound(int code)
{
	const struct screen *s;

	if (view_binding_find(view_shared_bindings, view_n_shared_bindings, code))
		return true;
	for (size_t i = 0; (s = view_screen_at(i)); i++)
		if (s->bindings && view_binding_find(s->bindings, s->n_bindings, code))
			return true;
	return false;
}

/* A key bar's word names keys: one character, a range (1-4), a name label_codes knows, or
 * several joined by '/' ("m/Esc", "</>", "+/-"; "/" alone is the key itself). */
static bool bar_word_codes(const char *w, int *codes, size_t *n)
{
	char buf[64];
	size_t k = 0;

	for (const char *p = w; *p && k + 3 < sizeof(buf); p++) {
		if (*p == '/' && p != w && p[1]) {
			buf[k++] = ',';
			buf[k++] = ' ';
		} else if (*p != ',') {
			buf[k++] = *p;
		}
	}
	buf[k] = '\0';
	return k > 0 && label_codes(buf, codes, n);
}

/* Every key a screen's key bar names ("q quit  m/Esc back  1-4 +/- zoom": the leading words
 * of each item, up to the first that names no key) is bound on that screen. */
static void test_key_bars(void)
{
	const struct screen *s;
	size_t bars = 0, keys = 0, unbound = 0;

	for (size_t i = 0; (s = view_screen_at(i)); i++)
		for (size_t b = 0; s->key_bars && s->key_bars[b]; b++, bars++) {
			char buf[512], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", s->key_bars[b]);
			for (char *item = buf, *next; item && *item; item = next) {
				next = strstr(item, "  ");
				if (next) {
					*next = '\0';
					next += 2 + strspn(next + 2, " ");
				}
				for (char *w = strtok_r(item, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
					int c[16];
					size_t nc = 0;

					if (strcmp(w, "or") == 0)
						continue;
					if (!bar_word_codes(w, c, &nc))
						break;
					for (size_t j = 0; j < nc; j++, keys++)
						if (!(s->bindings && view_binding_find(s->bindings, s->n_bindings,
						    c[j])) && !(s->shared_keys && view_binding_find(
						    view_shared_bindings, view_n_shared_bindings, c[j]))) {
							printf("# the %s screen's key bar names %#x (\"%s\"), which "
								"it does not bind\n", s->name, c[j], w);
							unbound++;
						}
				}
			}
		}
	ok(bars >= 7 && keys >= 60 && unbound == 0,
		"every key the key bars name is bound on its screen (%zu bars, %zu keys)", bars, keys);
}

/* Every key code on every screen: a code its table (or, with shared_keys,
 * the shared one) lists runs that row's action, and nothing else; a code nobody lists gets
 * VA_NONE and leaves the view as it was. Then help: each KEYS label names codes its own row
 * binds, and every label help shows names codes some table binds. */
static void test_bindings(struct fixture *fx)
{
	static const enum view_screen screens[] = { VS_TABLE, VS_DETAIL, VS_HELP, VS_MEMORY,
		VS_EVLOOP, VS_ALL };
	int codes[0x80 + (VK_RESIZE - VK_UP + 1)];
	size_t n_codes = 0, n_tables = 0;
	struct grid g;
	int y0;

	for (int c = 0; c < 0x80; c++)
		codes[n_codes++] = c;
	for (int c = VK_UP; c <= VK_RESIZE; c++)
		codes[n_codes++] = c;
	for (size_t k = 0; k < sizeof(screens) / sizeof(screens[0]); k++) {
		const struct screen *s = view_screen_at((size_t)screens[k]);
		size_t wrong = 0, bound = 0;

		if (!s || !s->bindings || !s->n_bindings)
			continue;
		n_tables++;
		for (size_t i = 0; i < n_codes; i++) {
			int key = codes[i];
			const struct binding *r = NULL;
			struct view *a = view_on(fx, screens[k]), *b = view_on(fx, screens[k]);
			enum view_action got, want = VA_NONE;

			if (key == VK_RESIZE || key == 3) {
				/* view_key's own on any screen, even at a prompt: a redraw, quit */
				is_int(view_key(a, &fx->m, key), key == 3 ? VA_QUIT : VA_REDRAW,
					"screen %s: key %#x is view_key's own", s->name, key);
				view_free(a);
				view_free(b);
				continue;
			}
			if (s->shared_keys)
				r = view_binding_find(view_shared_bindings, view_n_shared_bindings, key);
			if (r && key != 0)
				want = r->act(b, &fx->m, key);
			if (!r || want == VIEW_UNHANDLED) {
				r = view_binding_find(s->bindings, s->n_bindings, key);
				want = r && key != 0 ? r->act(b, &fx->m, key) : VA_NONE;
				if (want == VIEW_UNHANDLED)
					want = VA_NONE;
			}
			bound += r != NULL;
			got = view_key(a, &fx->m, key);
			if (got != want || !same_view(a, b)) {
				printf("# screen %s, key %#x: got %d, its row gives %d%s\n", s->name, key,
					(int)got, (int)want, same_view(a, b) ? "" : " (views differ)");
				wrong++;
			}
			view_free(a);
			view_free(b);
		}
		ok(wrong == 0 && bound > 0, "screen %s: every code its tables list runs its row, "
			"every other one does nothing (%zu bound)", s->name, bound);
	}
	ok(n_tables == sizeof(screens) / sizeof(screens[0]), "every screen has a key table");

	/* Each listed row's label names only codes the row binds; a row without keys is a line of
	 * its screen's help section. */
	{
		const struct screen *s;
		size_t wrong = 0;

		for (size_t i = 0; (s = view_screen_at(i)) || i == 0; i++) {
			const struct binding *b = s ? s->bindings : view_shared_bindings;
			size_t nb = s ? s->n_bindings : view_n_shared_bindings;
			for (size_t r = 0; b && r < nb; r++) {
				int c[32];
				size_t nc;
				if (!b[r].label)
					continue;
				if (!b[r].keys[0]) {
					wrong += !b[r].help || b[r].rank != 0 || b[r].act;
					continue;
				}
				if (!label_codes(b[r].label, c, &nc) || !b[r].help) {
					printf("# row \"%s\": no key named, or no help\n", b[r].label);
					wrong++;
				}
				for (size_t j = 0; j < nc && !wrong; j++)
					if (view_binding_find(&b[r], 1, c[j]) != &b[r]) {
						printf("# row \"%s\" does not bind %#x\n", b[r].label, c[j]);
						wrong++;
					}
			}
			if (!s)
				break;
		}
		ok(wrong == 0, "every listed row's label names codes the row binds");
	}

	/* What help shows under KEYS is in a table. */
	grid_init(&g);
	grid_resize(&g, 200, 400);
	{
		struct view *v = view_create(NULL);
		size_t labels = 0, unbound = 0;

		view_key(v, &fx->m, '?');
		view_draw(v, &fx->m, &g, NOW);
		y0 = find_line(&g, "KEYS");
		for (int y = y0 + 1; y0 > 0 && y < g.height; y++) {
			char label[32];
			int c[32];
			size_t nc;
			const char *t = row(&g, y);

			if (strncmp(t, "  ", 2) != 0 || strspn(t, " ") == strlen(t))
				break; /* the blank line after the list */
			if (t[2] == ' ')
				continue; /* a wrapped text's next line */
			snprintf(label, sizeof(label), "%.16s", t + 2);
			for (size_t e = strlen(label); e > 0 && label[e - 1] == ' '; e--)
				label[e - 1] = '\0';
			labels++;
			if (!label_codes(label, c, &nc)) {
				printf("# help label \"%s\" names no key\n", label);
				unbound++;
			}
			for (size_t j = 0; j < nc; j++)
				if (!code_bound(c[j])) {
					printf("# help lists %#x (\"%s\"), no table binds it\n", c[j], label);
					unbound++;
				}
		}
		ok(labels == 27 && unbound == 0, "every key help lists is in a table (%zu labels)",
			labels);
		view_free(v);
	}
	grid_free(&g);
}

/* b pins the profile so far; the table then has each function's change beside SELF% and TOTAL%,
 * sortable (7, 8), and loses them when it is dropped. */
static void test_baseline_columns(struct fixture *fx)
{
	static const int fn[] = { F_ROOT, F_MAIN, F_HOT, F_HELPER, F_IDLE };
	static const int32_t parent[] = { -1, 0, 1, 2, 0 };
	static const int64_t weight[] = { 0, 0, 100, 500, 400 };
	struct view_settings s = { .sort = COL_SELF_PCT, .mode = MODE_WINDOW };
	struct view *v = view_create(&s);
	struct grid g;
	int xs, xd, xt, y;
	double hot0, helper0, tiny0, lowest = INFINITY;
	char want[32];

	grid_init(&g);
	grid_resize(&g, 100, 24);
	ok(view_key(v, &fx->m, 'b') == VA_BASELINE, "b asks for a baseline");
	ok(view_key(v, &fx->m, '7') == VA_NONE && v->s.sort == COL_SELF_PCT,
		"7 sorts nothing without a baseline");
	ok(model_pin_baseline(&fx->m, NOW), "the cumulative profile pinned");
	hot0 = fx->m.base_self_pct[fx->id[F_HOT]];
	helper0 = fx->m.base_self_pct[fx->id[F_HELPER]];
	tiny0 = fx->m.base_self_pct[fx->id[F_TINY]];
	ok(hot0 > 10 && helper0 < 50 && tiny0 >= MODEL_BASELINE_GONE_PCT,
		"in it hotLoop %.1f%%, helper %.1f%%, tiny %.1f%%", hot0, helper0, tiny0);
	/* the next window: hotLoop 10%, helper 50% */
	fixture_window(fx, 5, fn, parent, weight, -1);
	view_draw(v, &fx->m, &g, NOW);
	xs = find_cell(&g, 5, "TOTAL%(1s)");
	xd = find_cell(&g, 5, "\xce\x94SELF");
	xt = find_cell(&g, 5, "\xce\x94TOTAL");
	ok(xs >= 0 && xd > xs && xt > xd && find_cell(&g, 5, "SELF(tot)") > xt,
		"the changes' headings beside the shares: %s", row(&g, 5));
	y = find_line(&g, "helper");
	snprintf(want, sizeof want, "%+.1f", 50 - helper0);
	ok(y > 5 && strstr(row(&g, y), want), "helper: %s self (%s)", want, y > 0 ? row(&g, y) : "");
	view_key(v, &fx->m, VK_DOWN); /* (the selected row has the selection's colour) */
	view_draw(v, &fx->m, &g, NOW);
	ok(y > 5 && attr_at(&g, find_cell(&g, y, want), y) == GA_HEAT3, "a large gain stands out");
	view_key(v, &fx->m, VK_UP);
	y = find_line(&g, "hotLoop");
	snprintf(want, sizeof want, "%+.1f", 10 - hot0);
	ok(y > 5 && strstr(row(&g, y), want), "hotLoop: %s (%s)", want, y > 0 ? row(&g, y) : "");
	y = find_line(&g, "tiny");
	snprintf(want, sizeof want, "%+.1f", -tiny0);
	ok(y > 5 && strstr(row(&g, y), " 0.0%") && strstr(row(&g, y), want),
		"a function of the baseline with no time now has its row: %s", want);
	ok(view_key(v, &fx->m, '7') == VA_SETTINGS && v->s.sort == COL_DSELF_PCT, "7 sorts by the change");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, first_row), "helper") != NULL, "the largest gain first: %s",
		row(&g, first_row));
	ok(strstr(row(&g, 5), "\xe2\x96\xbc\xce\x94SELF") != NULL, "its heading marked");
	keys(v, &fx->m, "R");
	view_draw(v, &fx->m, &g, NOW);
	for (size_t i = 0; i < v->n_rows; i++)
		if (v->rows[i].dself_pct < lowest)
			lowest = v->rows[i].dself_pct;
	ok(v->n_rows && v->rows[0].dself_pct == lowest, "R: the largest loss first: %s",
		row(&g, first_row));
	keys(v, &fx->m, "R>");
	ok(v->s.sort == COL_DTOTAL_PCT, "> moves on to the total's change");
	keys(v, &fx->m, ">");
	ok(v->s.sort == COL_SELF_PCT, "and round to SELF%%");
	/* paused: a pin or a drop takes the frozen rows again */
	keys(v, &fx->m, "1p");
	model_drop_baseline(&fx->m);
	view_baseline_changed(v, &fx->m);
	view_draw(v, &fx->m, &g, NOW);
	ok(find_cell(&g, 5, "\xce\x94SELF") < 0 && find_line(&g, "tiny") < 0,
		"paused, dropped: the frozen rows lose their changes and the gone row");
	ok(model_pin_baseline(&fx->m, NOW), "pinned again");
	view_baseline_changed(v, &fx->m);
	view_draw(v, &fx->m, &g, NOW);
	y = find_line(&g, "helper");
	ok(y > 5 && !strchr(row(&g, y), '?') && find_cell(&g, 5, "\xce\x94SELF") > 0,
		"paused, pinned: the frozen rows have their changes (%s)", y > 0 ? row(&g, y) : "");
	keys(v, &fx->m, "p8");
	model_drop_baseline(&fx->m);
	view_draw(v, &fx->m, &g, NOW);
	ok(find_cell(&g, 5, "\xce\x94SELF") < 0 && find_line(&g, "tiny") < 0,
		"dropped: no change columns, no row for what has no time");
	ok(v->s.sort == COL_SELF_PCT, "and a sort by a change goes back to SELF%%");
	grid_free(&g);
	view_free(v);
}

int main(void)
{
	struct fixture fx;

	if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8") &&
	    !setlocale(LC_ALL, "en_US.UTF-8")) {
		printf("1..0 # SKIP no UTF-8 locale\n");
		return 0;
	}
	test_formats();
	test_internal_rows();
	fixture_init(&fx);
	test_table(&fx);
	test_detail_and_help(&fx);
	test_sizes(&fx);
	test_random_keys(&fx);
	test_pause_and_selection(&fx);
	test_screens(&fx);
	test_requests_screen(&fx);
	test_incidents_screen(&fx);
	test_bindings(&fx);
	test_key_bars();
	test_baseline_columns(&fx);
	fixture_free(&fx);
	test_wide_names();
	view_fixture_done();
	return done_testing();
}
