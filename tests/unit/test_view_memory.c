/* Unit tests for memory in the view: the header's memory line and the memory screen, drawn
 * from a series of synthetic readings (a leak under a GC sawtooth), heap spaces and
 * allocation tables with known functions. No terminal involved. */
#include "config.h"

#include "view.h"
#include "evloop.h"
#include "functab.h"
#include "grid.h"
#include "heapprof.h"
#include "memseries.h"
#include "tseries.h"
#include "model.h"
#include "view_priv.h"
#include "tap.h"
#include "view_fixture.h"

#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOW 1700000000.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
/* Heap used climbs 0.4 MiB a second and a GC drops it every 20 s; its floor grows
 * 60 MiB an hour. */
#define LEAK_PER_S (60 * MIB / 3600)
#define HISTORY_S 7200
#define GAP_AGO_S 1800

enum { F_LEAK, F_PARSE, F_HANDLER, F_POOL, F_COUNT };

struct fixture {
	struct functab *ft;
	uint32_t id[F_COUNT];
	struct memseries *mem;
	struct alloc_site live_sites[F_COUNT], growth_sites[F_COUNT];
	struct alloc_table live, growth;
	struct model m;
};

static void reading(struct memseries *s, double t)
{
	struct mem_sample r;
	double age = t - (NOW - HISTORY_S), saw = fmod(age, 20) * 0.4 * MIB;

	r.t_s = t;
	r.v[MEM_HEAP_USED] = 40 * MIB + LEAK_PER_S * age + saw;
	r.v[MEM_HEAP_TOTAL] = 64 * MIB + LEAK_PER_S * age;
	r.v[MEM_RSS] = 120 * MIB + 1.5 * LEAK_PER_S * age;
	/* process.memoryUsage() is read less often */
	r.v[MEM_EXTERNAL] = fmod(age, 5) < 1 ? 3 * MIB : NAN;
	r.v[MEM_ARRAY_BUFFERS] = NAN;
	memseries_add(s, &r);
}

static void fixture_init(struct fixture *fx)
{
	static const struct { const char *name, *url; int line; double live, growth; } f[] = {
		[F_LEAK] = { "leakyCache", "file:///app/cache.js", 41, 30 * MIB, 18 * MIB },
		[F_PARSE] = { "parseJson", "file:///app/parse.js", 7, 25 * MIB, 0.5 * MIB },
		[F_HANDLER] = { "handler", "file:///app/server.js", 99, 3 * MIB, -1 * MIB },
		[F_POOL] = { "bufferPool", "file:///app/node_modules/pool/index.js", 0, 1 * MIB,
			2 * MIB },
	};
	static const char *const space[] = { "old_space", "new_space", "large_object_space",
		"code_space", "read_only_space", "new_large_object_space", "code_large_object_space",
		"shared_space", "trusted_space" };
	struct mem_growth gr;

	memset(fx, 0, sizeof(*fx));
	fx->ft = functab_create();
	fx->mem = memseries_create();
	for (double t = NOW - HISTORY_S; t <= NOW; t += 1) {
		if (t == NOW - GAP_AGO_S)
			memseries_mark_gap(fx->mem, t - 0.5);
		reading(fx->mem, t);
	}
	for (int i = 0; i < F_COUNT; i++) {
		fx->id[i] = functab_intern(fx->ft, f[i].name, strlen(f[i].name), f[i].url,
			strlen(f[i].url), f[i].line, 4);
		fx->live_sites[i] = (struct alloc_site){ fx->id[i], f[i].live, f[i].growth };
	}
	/* The engine's tables: the latest by live bytes, the same sites by growth. */
	memcpy(fx->growth_sites, fx->live_sites, sizeof(fx->live_sites));
	fx->growth_sites[0] = fx->live_sites[F_LEAK];
	fx->growth_sites[1] = fx->live_sites[F_POOL];
	fx->growth_sites[2] = fx->live_sites[F_PARSE];
	fx->growth_sites[3] = fx->live_sites[F_HANDLER];
	fx->live = (struct alloc_table){ fx->live_sites, F_COUNT, F_COUNT, 59 * MIB, NOW - 48 };
	fx->growth = (struct alloc_table){ fx->growth_sites, F_COUNT, F_COUNT, 59 * MIB, NOW - 48 };

	model_init(&fx->m);
	fx->m.pid = 4242;
	fx->m.connected = true;
	fx->m.ft = fx->ft;
	fx->m.have_memory = true;
	fx->m.mem = fx->mem;
	fx->m.growth_window_s = 300;
	memseries_growth(fx->mem, 300, NOW, &gr);
	fx->m.growth_heap_bytes_per_hour = gr.heap_bytes_per_hour;
	fx->m.growth_rss_bytes_per_hour = gr.rss_bytes_per_hour;
	fx->m.growth_significant = gr.significant;
	fx->m.growth_span_s = gr.window_s;
	fx->m.growth_verdict = gr.verdict;
	for (size_t i = 0; i < sizeof(space) / sizeof(space[0]); i++) {
		struct model_heap_space *sp = &fx->m.spaces[fx->m.n_spaces++];
		snprintf(sp->name, sizeof(sp->name), "%s", space[i]);
		sp->used_bytes = (i == 0 ? 30 : 9 - (double)i) * MIB;
		sp->size_bytes = sp->used_bytes * 1.25;
		sp->growth_bytes = i == 0 ? 10 * MIB : i == 2 ? 2 * MIB : 0;
	}
	fx->m.alloc_on = true;
	fx->m.alloc_interval_s = 300;
	fx->m.alloc_next_wall_s = NOW + 252;
	fx->m.alloc = &fx->live;
	fx->m.alloc_growth = &fx->growth;
	fx->m.sys_mem_available_bytes = 12.3 * GIB;
}

static void fixture_free(struct fixture *fx)
{
	model_free(&fx->m);
	memseries_free(fx->mem);
	functab_free(fx->ft);
}

/* --- reading the grid --- */

/* Local time as the time axis shows it: with seconds on short spans. */
static void clock_label(double t, bool seconds, char *out, size_t outsz)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(out, outsz, seconds ? "%H:%M:%S" : "%H:%M", &tm);
}

/* --- tests --- */

static void test_memory_line(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	const struct mem_sample *lr = memseries_last(fx->mem);
	char want[128], a[32], b[32], c[32];
	struct grid g;
	int x;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	ok(fx->m.growth_verdict == MEM_GROWING, "the synthetic leak is growing by the growth rule");
	view_draw(v, &fx->m, &g, NOW);
	view_fmt_bytes(lr->v[MEM_RSS], a, sizeof(a));
	view_fmt_bytes(lr->v[MEM_HEAP_USED], b, sizeof(b));
	view_fmt_bytes(lr->v[MEM_HEAP_TOTAL], c, sizeof(c));
	snprintf(want, sizeof(want), "MEM rss %s  heap %s/%s  +", a, b, c);
	ok(strncmp(row(&g, 3), want, strlen(want)) == 0, "the memory line: rss, heap used/total");
	is_int(attr_at(&g, 0, 3), GA_HEADER, "MEM is a header label");
	view_fmt_bytes_signed(fx->m.growth_heap_bytes_per_hour, a, sizeof(a));
	snprintf(want, sizeof(want), "%s/h over 5m growing", a);
	ok(strstr(row(&g, 3), want) != NULL, "growth per hour over the window, and the verdict");
	is_num(fx->m.growth_heap_bytes_per_hour, 60 * MIB, 6 * MIB, "the rate is the leak's");
	x = find_cell(&g, 3, "growing");
	is_int(attr_at(&g, x, 3), GA_WARN, "growing is a warning");
	{
		int blocks = 0;
		for (int i = x + 9; i < g.width; i++)
			blocks += strncmp(cell(&g, i, 3), "\xe2\x96", 2) == 0;
		ok(blocks >= 15, "a sparkline of heap used follows (%d blocks)", blocks);
		ok(strcmp(cell(&g, 79, 3), "\xe2\x96\x88") == 0 &&
			strcmp(cell(&g, x + 9, 3), "\xe2\x96\x81") == 0,
			"it climbs from the lowest block to the highest with the leak");
	}
	ok(strstr(row(&g, 4), "functions") != NULL, "the settings line stays below it");
	ok(rows_fit(&g) && grid_bytes_ok(&g, false), "the table fits with the memory line");

	fx->m.growth_verdict = MEM_UNKNOWN;
	fx->m.growth_span_s = 0;
	view_draw(v, &fx->m, &g, NOW);
	x = find_cell(&g, 3, "unknown");
	ok(x > 0 && attr_at(&g, x, 3) == GA_DIM, "unknown is dim");
	ok(strstr(row(&g, 3), "/h over") == NULL, "and without a span there is no rate");
	fx->m.growth_verdict = MEM_GROWING;
	fx->m.growth_span_s = 300;

	fx->m.snapshot_running = true;
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 3), "growing  SNAPSHOT") != NULL, "a running snapshot shows");
	grid_resize(&g, 120, 24);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 3), "growing  heap snapshot in progress") != NULL,
		"in words where there is room");
	grid_resize(&g, 80, 24);
	fx->m.snapshot_running = false;

	fx->m.have_memory = false;
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 3), "MEM waiting for the first reading", 33) == 0 &&
		attr_at(&g, 0, 3) == GA_DIM, "before the first reading: waiting, dim");
	fx->m.have_memory = true;
	fx->m.no_eval = true;
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "no-eval") && !screen_has(&g, "eval"),
		"--no-eval is not mentioned on the table");
	fx->m.no_eval = false;
	view_free(v);
	grid_free(&g);
}

static bool col_has_data(const struct grid *g, int x, int axis_y)
{
	for (int y = 1; y < axis_y; y++)
		if (strcmp(cell(g, x, y), " ") != 0 && strcmp(cell(g, x, y), "\xc2\xa6") != 0)
			return true;
	return false;
}

/* The chart's plot: cells right of the y axis, from row 1 to the axis line. */
static int plot_cells(const struct grid *g, int axis_y, const char *glyph)
{
	int n = 0;

	for (int y = 1; y < axis_y; y++)
		for (int x = 8; x < g->width; x++)
			if (glyph ? strcmp(cell(g, x, y), glyph) == 0 : strcmp(cell(g, x, y), " ") != 0)
				n++;
	return n;
}

static bool is_braille(const char *ch)
{
	const unsigned char *u = (const unsigned char *)ch;

	return u[0] == 0xe2 && u[1] >= 0xa0 && u[1] <= 0xa3 && u[2] >= 0x80 && u[2] <= 0xbf &&
		u[3] == '\0';
}

/* Braille cells of the plot in a series' attribute (the last series drawn in the cell). */
static int plot_dots(const struct grid *g, int axis_y, int attr)
{
	int n = 0;

	for (int y = 1; y < axis_y; y++)
		for (int x = 8; x < g->width; x++)
			if (is_braille(cell(g, x, y)) && attr_at(g, x, y) == attr)
				n++;
	return n;
}

/* Every plot cell is braille, blank or the gap mark. */
static bool plot_all_braille(const struct grid *g, int axis_y)
{
	for (int y = 1; y < axis_y; y++)
		for (int x = 8; x < g->width; x++)
			if (!is_braille(cell(g, x, y)) && strcmp(cell(g, x, y), " ") != 0 &&
			    strcmp(cell(g, x, y), "\xc2\xa6") != 0)
				return false;
	return true;
}

static void test_screen(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	char label[32], want[128];
	struct grid g;
	int axis, y;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	is_int(view_key(v, &fx->m, 'm'), VA_REDRAW, "m opens the memory screen");
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	ok(strncmp(row(&g, 0), "MEMORY  zoom 5 min", 18) == 0, "the title says the zoom");
	axis = find_line(&g, "\xe2\x94\x94");
	ok(axis >= 6 && axis <= 10, "80x24: a compact chart (axis on line %d)", axis);
	ok(plot_all_braille(&g, axis), "a UTF-8 locale: the plot is braille");
	ok(plot_dots(&g, axis, GA_HEAT3) > 50, "heap used is drawn");
	ok(plot_dots(&g, axis, GA_HEAT1) > 20, "rss too");
	ok(plot_dots(&g, axis, GA_DIM) > 5, "external too");
	ok(strncmp(row(&g, 1), "   300M", 7) == 0, "the y axis starts at a round size");
	ok(strncmp(row(&g, 4), "   150M", 7) == 0, "its half is labelled");
	ok(strncmp(row(&g, axis), "      0", 7) == 0, "and it ends at 0");
	clock_label(NOW - 300, true, label, sizeof(label));
	ok(strstr(row(&g, axis + 1), label) != NULL, "the time axis starts 5 minutes ago (%s)",
		label);
	ok(strstr(row(&g, axis + 1), "now") != NULL, "and ends now");
	ok(strstr(row(&g, axis + 2), "\xe2\xa3\xbf\xe2\xa3\xbf heap used") &&
		strstr(row(&g, axis + 2), "\xe2\xa0\x92\xe2\xa0\x82 heap total") &&
		strstr(row(&g, axis + 2), "\xe2\xa0\x92\xe2\xa0\x92 rss") &&
		strstr(row(&g, axis + 2), "\xe2\xa0\x82\xe2\xa0\x82 external 3.0M"),
		"a legend with each line's pattern and latest value");

	/* Growth and heap spaces, side by side. */
	y = find_line(&g, "LAST");
	ok(y > axis && strstr(row(&g, y), "HEAP/h") && strstr(row(&g, y), "VERDICT") &&
		strstr(row(&g, y), "HEAP SPACE"), "growth beside the heap spaces");
	ok(strncmp(row(&g, y + 1), "1m ", 3) == 0 && strncmp(row(&g, y + 2), "5m* ", 4) == 0 &&
		strncmp(row(&g, y + 3), "1h ", 3) == 0 && strncmp(row(&g, y + 4), "24h ", 4) == 0,
		"spans 1m, 5m (the growth window, marked), 1h, 24h");
	ok(strstr(row(&g, y + 2), "growing") != NULL, "the 5 minute verdict");
	ok(strstr(row(&g, y + 3), "30m") != NULL, "1h covers only the 30 minutes since the gap");
	ok(strstr(row(&g, y + 1), "old") && strstr(row(&g, y + 1), "30.0M") &&
		strstr(row(&g, y + 1), "37.5M") && strstr(row(&g, y + 1), "+10.0M"),
		"the biggest space first: used, size, growth");
	ok(screen_has(&g, "smaller"), "spaces that do not fit are counted");

	/* Allocation sites. */
	y = find_line(&g, "allocation sampling on");
	ok(y < 0 && (y = find_line(&g, "alloc sampling on")) > 0 &&
		strstr(row(&g, y), "every 5m, next in 4m12s (each fetch forces a full GC)"),
		"allocation sampling: the interval and the next fetch, short at 80 columns");
	ok(y > 0 && strstr(row(&g, y + 1), "LIVE (retained, 59.0M sampled)") &&
		strstr(row(&g, y + 1), "GROWTH since first profile"), "both lists, side by side");
	ok(y > 0 && count_in(row(&g, y + 2), "leakyCache") == 2,
		"the leaking function is first in both");
	ok(y > 0 && strstr(row(&g, y + 2), "30.0M") && strstr(row(&g, y + 2), "+18.0M"),
		"with its live bytes and its growth");
	ok(y > 0 && strstr(row(&g, y + 2), "cache.js:42"), "and its location");
	ok(y > 0 && y + 3 < 22 && strstr(row(&g, y + 3), "parseJson") &&
		strstr(row(&g, y + 3), "bufferPool"), "then the next of each");
	ok(!screen_has(&g, "handler") || find_cell(&g, find_line(&g, "handler"), "handler") < 40,
		"a shrinking site is not in the growth list");
	ok(strstr(row(&g, 23), "m/Esc back") != NULL, "the key bar");
	ok(rows_fit(&g) && grid_bytes_ok(&g, false), "80x24: drawn inside the grid");

	/* Zoom. */
	is_int(view_key(v, &fx->m, '2'), VA_REDRAW, "2: one hour");
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "MEMORY  zoom 1 h", 16) == 0, "the title says 1 h");
	clock_label(NOW - 3600, false, label, sizeof(label));
	ok(strncmp(row(&g, axis + 1) + 8, label, strlen(label)) == 0,
		"the axis starts an hour ago (%s)", label);
	ok(plot_cells(&g, axis, "\xc2\xa6") >= 1, "the gap is marked");
	is_int(view_key(v, &fx->m, '2'), VA_NONE, "the same zoom again changes nothing");
	view_key(v, &fx->m, '3');
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "MEMORY  zoom 24 h", 17) == 0, "3: 24 h");
	clock_label(NOW - 86400, false, label, sizeof(label));
	ok(strncmp(row(&g, axis + 1) + 8, label, strlen(label)) == 0, "from a day ago");
	ok(plot_cells(&g, axis, NULL) > 0 && plot_cells(&g, axis, NULL) < 200,
		"two hours of data take the right end of a day");
	view_key(v, &fx->m, '4');
	view_draw(v, &fx->m, &g, NOW);
	clock_label(NOW - HISTORY_S, false, label, sizeof(label));
	snprintf(want, sizeof(want), "MEMORY  zoom all (2h since %s)", label);
	ok(strncmp(row(&g, 0), want, strlen(want)) == 0, "4: all, since the first reading");
	ok(col_has_data(&g, 8, axis) && col_has_data(&g, 79, axis),
		"the whole history fills the chart");
	view_key(v, &fx->m, '+');
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "zoom 24 h") != NULL, "+ zooms in");
	for (int i = 0; i < 3; i++)
		view_key(v, &fx->m, '-');
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "zoom 1 h") != NULL, "- zooms out, cycling from all back to 5 min and on");
	view_key(v, &fx->m, '1');

	/* The configured window, when it is not one of the fixed spans. */
	fx->m.growth_window_s = 600;
	view_draw(v, &fx->m, &g, NOW);
	y = find_line(&g, "LAST");
	ok(strncmp(row(&g, y + 2), "5m ", 3) == 0 && strncmp(row(&g, y + 3), "10m* ", 5) == 0,
		"--growth-window 600 adds a 10m line");
	fx->m.growth_window_s = 300;
	view_free(v);
	grid_free(&g);
}

static void test_keys(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	char heap[32], want[128];
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 80, 24);
	view_fmt_bytes(memseries_last(fx->mem)->v[MEM_HEAP_USED], heap, sizeof(heap));
	snprintf(want, sizeof(want), "heap %s, free memory 12.3G", heap);
	is_int(view_key(v, &fx->m, 'a'), VA_ALLOC_TOGGLE, "a on the table toggles allocation sampling");
	view_key(v, &fx->m, 'm');
	is_int(view_key(v, &fx->m, 'a'), VA_ALLOC_TOGGLE, "and on the memory screen");

	is_int(view_key(v, &fx->m, 'H'), VA_REDRAW, "H asks first");
	view_draw(v, &fx->m, &g, NOW);
	y = find_line(&g, "Take a heap snapshot?");
	ok(y >= 21 && strstr(row(&g, y), want),
		"the question shows the heap and the free memory");
	ok(screen_has(&g, "the target pauses while") &&
		screen_has(&g, "(about 2x the heap in memory). y/n"), "and what it costs");
	ok(!screen_has(&g, "WARNING"), "enough memory: no warning");
	ok(attr_at(&g, 0, 23) == GA_WARN && rows_fit(&g), "it wraps over the bottom lines");
	is_int(view_key(v, &fx->m, 'y'), VA_SNAPSHOT, "y confirms");
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "Take a heap"), "and closes the question");
	view_key(v, &fx->m, 'H');
	is_int(view_key(v, &fx->m, 'n'), VA_REDRAW, "n cancels");
	is_int(view_key(v, &fx->m, 'x'), VA_NONE, "and no snapshot is asked for");
	view_key(v, &fx->m, 'H');
	is_int(view_key(v, &fx->m, 'q'), VA_REDRAW, "any other key cancels, even q");
	fx->m.sys_mem_available_bytes = 100 * MIB;
	view_key(v, &fx->m, 'H');
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "WARNING: less than twice"), "short of memory: a warning");
	view_key(v, &fx->m, VK_ESC);
	fx->m.sys_mem_available_bytes = 12.3 * GIB;

	fx->m.snapshot_running = true;
	is_int(view_key(v, &fx->m, 'H'), VA_REDRAW, "H during a snapshot");
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "Take a heap") && strstr(row(&g, 22), "heap snapshot in progress"),
		"is refused: a snapshot is in progress");
	ok(strstr(row(&g, 0), "heap snapshot in progress") != NULL, "the title says so too");
	ok(view_key(v, &fx->m, 'y') != VA_SNAPSHOT, "y alone does nothing");
	fx->m.snapshot_running = false;

	view_key(v, &fx->m, 'm');
	is_int(view_key(v, &fx->m, 'H'), VA_REDRAW, "H on the table asks too");
	is_int(view_key(v, &fx->m, 'Y'), VA_SNAPSHOT, "Y confirms");
	fx->m.connected = false;
	view_key(v, &fx->m, 'H');
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "Take a heap") && screen_has(&g, "no heap snapshot"),
		"no target, no snapshot");
	fx->m.connected = true;

	/* Leaving, help, quitting. */
	view_key(v, &fx->m, 'm');
	is_int(view_key(v, &fx->m, 'm'), VA_REDRAW, "m again goes back");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 5), "FUNCTION") != NULL, "to the table");
	view_key(v, &fx->m, 'm');
	view_key(v, &fx->m, VK_ESC);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 5), "FUNCTION") != NULL, "so does Esc");
	view_key(v, &fx->m, 'm');
	is_int(view_key(v, &fx->m, '?'), VA_REDRAW, "? opens the help from the memory screen");
	grid_resize(&g, 100, 200);
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "  m ") && screen_has(&g, "the memory screen"), "the help has m");
	ok(screen_has(&g, "  a ") && screen_has(&g, "allocation sampling"), "and a");
	ok(screen_has(&g, "  H ") && screen_has(&g, "heap snapshot"), "and H");
	ok(screen_has(&g, "1, 2, 3, 4") && screen_has(&g, "5 min, 1 h, 24 h"), "and the zooms");
	ok(screen_has(&g, "MEM line"), "and explains the memory line");
	grid_resize(&g, 80, 24);
	view_key(v, &fx->m, VK_ESC);
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "MEMORY", 6) == 0, "Esc on the help comes back to the memory screen");
	is_int(view_key(v, &fx->m, 'q'), VA_QUIT, "q quits from the memory screen");
	is_int(view_key(v, &fx->m, 'x'), VA_NONE, "other keys do nothing");
	view_free(v);
	grid_free(&g);
}

static void test_states(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	const struct alloc_table *alloc = fx->m.alloc;
	char label[32];
	struct grid g;
	int axis, y;

	grid_init(&g);
	grid_resize(&g, 120, 40);
	view_key(v, &fx->m, 'm');

	/* Paused: the chart stops where it was. */
	view_key(v, &fx->m, 'p');
	view_draw(v, &fx->m, &g, NOW);
	view_draw(v, &fx->m, &g, NOW + 90);
	axis = find_line(&g, "\xe2\x94\x94");
	clock_label(NOW, true, label, sizeof(label));
	ok(strstr(row(&g, axis + 1), label) && !strstr(row(&g, axis + 1), "now"),
		"paused: the chart's right edge stays at the pause");
	view_key(v, &fx->m, 'p');
	view_draw(v, &fx->m, &g, NOW + 30);
	ok(strstr(row(&g, axis + 1), "now") != NULL, "resumed: it follows now again");

	/* A series that stopped long ago (a replay, a target gone) is drawn to its end. */
	view_draw(v, &fx->m, &g, NOW + 86400);
	ok(plot_dots(&g, axis, GA_HEAT3) > 50 && strstr(row(&g, axis + 1), label),
		"a stale series is drawn up to its last reading");

	/* A replay ends where its log ends, however recent, and says it is one. */
	fx->m.replay = true;
	view_draw(v, &fx->m, &g, NOW + 30);
	ok(strstr(row(&g, axis + 1), label) && !strstr(row(&g, axis + 1), "now"),
		"a replay: the axis ends at the log's last reading, not now");
	ok(screen_has(&g, "REPLAY") && !screen_has(&g, "DISCONNECTED") &&
		!screen_has(&g, "H heap snapshot"), "a replay: REPLAY, and no live target's keys");
	fx->m.replay = false;

	/* --no-eval: what is missing is said here. */
	fx->m.no_eval = true;
	fx->m.n_spaces = 0;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "external not read (--no-eval)"), "no external memory with --no-eval");
	ok(screen_has(&g, "heap spaces and external memory need code run in the target"),
		"nor heap spaces, and why");
	fx->m.no_eval = false;
	fx->m.n_spaces = 9;

	/* Without the table sorted by growth, the view ranks the latest table itself. */
	fx->m.alloc_growth = NULL;
	view_draw(v, &fx->m, &g, NOW);
	y = find_line(&g, "GROWTH since first profile");
	ok(y > 0 && strstr(row(&g, y + 1), "+18.0M leakyCache") &&
		strstr(row(&g, y + 2), "+2.0M bufferPool") && strstr(row(&g, y + 3), "parseJson"),
		"growth ranked from the latest table");
	fx->m.alloc_growth = &fx->growth;

	/* Allocation sampling off, with and without tables. */
	fx->m.alloc_on = false;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "allocation sampling off (tables from the profile of") &&
		screen_has(&g, "press a to start") && screen_has(&g, "leakyCache"),
		"off: the last tables stay, and a starts again");
	fx->m.alloc = fx->m.alloc_growth = NULL;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "allocation sampling off: press a to start") &&
		!screen_has(&g, "LIVE"), "off without a profile: one line");
	fx->m.alloc_on = true;
	fx->m.alloc_next_wall_s = NOW + 10;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "first profile in 10s") && screen_has(&g, "(no profile yet)"),
		"on, before the first profile");
	fx->m.alloc = alloc;
	fx->m.alloc_growth = &fx->growth;
	fx->m.alloc_next_wall_s = NOW + 252;

	/* No reading yet. */
	fx->m.have_memory = false;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "waiting for the first memory reading"), "before the first reading");
	ok(rows_fit(&g) && grid_bytes_ok(&g, false), "and drawn cleanly");
	fx->m.have_memory = true;
	view_free(v);
	grid_free(&g);
}

static void test_sizes(struct fixture *fx)
{
	static const int sizes[][2] = { { 200, 50 }, { 79, 24 }, { 60, 20 }, { 40, 12 },
		{ 20, 5 }, { 10, 3 }, { 1, 1 }, { 3, 30 }, { 80, 8 }, { 9, 40 }, { 0, 0 } };
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 200, 50);
	view_key(v, &fx->m, 'm');
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y = find_line(&g, "\xe2\x94\x94");
	ok(y >= 20, "200x50: a tall chart");
	ok(plot_dots(&g, y, GA_HEAT3) > 200 && plot_dots(&g, y, GA_HEAT2) > 100 &&
		plot_dots(&g, y, GA_HEAT1) > 100 && plot_dots(&g, y, GA_DIM) > 50,
		"every series has room: heap used, heap total, rss, external");
	ok(screen_has(&g, "code_large_object") && !screen_has(&g, "smaller"),
		"every heap space shows");
	ok(screen_has(&g, "next profile in 4m12s (each fetch forces a full GC in the target)"),
		"the whole allocation line");
	y = find_line(&g, "LIVE (retained");
	ok(y > 0 && strstr(row(&g, y + 1), "/app/cache.js:42") &&
		strstr(row(&g, y + 2), "/app/parse.js:8"), "sites with whole locations");
	ok(rows_fit(&g) && grid_bytes_ok(&g, false), "200x50 drawn inside");

	grid_resize(&g, 60, 30);
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y = find_line(&g, "LIVE (retained");
	ok(y > 0 && strstr(row(&g, y + 1), "leakyCache") && !strstr(row(&g, y), "GROWTH") &&
		screen_has(&g, "GROWTH since first profile"), "narrow: the lists are stacked");
	ok(find_line(&g, "HEAP SPACE") > find_line(&g, "LAST"), "and so are growth and spaces");

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		grid_resize(&g, sizes[i][0], sizes[i][1]);
		view_draw(v, &fx->m, &g, NOW);
		ok(rows_fit(&g) && grid_bytes_ok(&g, false), "%dx%d: memory screen inside the grid",
			sizes[i][0], sizes[i][1]);
		view_key(v, &fx->m, 'H');
		view_draw(v, &fx->m, &g, NOW);
		ok(rows_fit(&g) && grid_bytes_ok(&g, false), "%dx%d: the question too", sizes[i][0],
			sizes[i][1]);
		view_key(v, &fx->m, 'n');
		view_key(v, &fx->m, 'm');
		view_draw(v, &fx->m, &g, NOW);
		ok(rows_fit(&g) && grid_bytes_ok(&g, false), "%dx%d: the table with its memory line",
			sizes[i][0], sizes[i][1]);
		view_key(v, &fx->m, 'm');
	}
	view_free(v);
	grid_free(&g);
}

/* Random keys at random sizes on every screen: nothing may crash or leave the grid. */
static void test_random_keys(struct fixture *fx)
{
	static const int keyset[] = { 'm', 'm', '1', '2', '3', '4', '+', '-', 'a', 'H', 'y', 'n',
		'?', 'p', ' ', 'q', VK_ESC, VK_ENTER, VK_DOWN, VK_PGDN, 'w', '/', 'x', 'M', VK_RESIZE };
	struct view *v = view_create(NULL);
	struct grid g;
	unsigned seed = 4242;
	bool clean = true;

	grid_init(&g);
	for (int i = 0; i < 3000; i++) {
		seed = seed * 1103515245u + 12345u;
		view_key(v, &fx->m, keyset[(seed >> 16) % (sizeof(keyset) / sizeof(keyset[0]))]);
		if (i % 5 == 0) {
			seed = seed * 1103515245u + 12345u;
			grid_resize(&g, (int)((seed >> 16) % 150), (int)((seed >> 8) % 50));
		}
		fx->m.snapshot_running = i % 97 < 10;
		fx->m.no_eval = i % 301 < 50;
		view_draw(v, &fx->m, &g, NOW + (i % 13) * 40);
		clean = clean && grid_bytes_ok(&g, false) && rows_fit(&g);
	}
	fx->m.snapshot_running = fx->m.no_eval = false;
	ok(clean, "3000 random keys at random sizes: every drawing stays clean and inside");
	view_free(v);
	grid_free(&g);
}

/* --- the chart of known series --- */

#define LINE_N 10
#define X (NAN)

/* Readings a second apart from NOW, in MiB (X: not read), with a gap marked at reading
 * gap_at (-1: none). Charted over [NOW, NOW + LINE_N] on 20 dot columns, reading i takes dot
 * columns 2i and 2i + 1: one braille cell, or two ASCII cells. */
static struct memseries *line_series(const double *used, const double *total, const double *rss,
	const double *ext, int gap_at)
{
	struct memseries *s = memseries_create();

	for (int i = 0; i < LINE_N; i++) {
		struct mem_sample r = { NOW + i, { X, X, X, X, X } };

		if (i == gap_at)
			memseries_mark_gap(s, NOW + i);
		r.v[MEM_HEAP_USED] = used ? used[i] * MIB : X;
		r.v[MEM_HEAP_TOTAL] = total ? total[i] * MIB : X;
		r.v[MEM_RSS] = rss ? rss[i] * MIB : X;
		r.v[MEM_EXTERNAL] = ext ? ext[i] * MIB : X;
		memseries_add(s, &r);
	}
	return s;
}

/* Charts s (freed here) with rows plot rows, in the glyphs the view picks for the locale:
 * 10 braille cells or 20 ASCII ones. Returns the plot's rows as text, cells right of the y
 * axis; attrs[y][x] gets the cells' attributes. */
static void chart_of(struct memseries *s, bool braille, int rows, char text[][128],
	int attrs[][20])
{
	struct view *v = view_create(NULL);
	int pw = braille ? LINE_N : 2 * LINE_N;
	struct grid g, none;
	struct model m;

	model_init(&m);
	m.have_memory = true;
	m.mem = s;
	grid_init(&g);
	grid_init(&none);
	view_draw(v, &m, &none, NOW); /* picks the glyphs for the locale */
	grid_resize(&g, 8 + pw, rows + 3);
	view_mem_chart(v, &m, &g, 0, rows, NOW, NOW + LINE_N, false);
	for (int y = 0; y < rows; y++) {
		text[y][0] = '\0';
		for (int x = 0; x < pw; x++) {
			strcat(text[y], cell(&g, 8 + x, y));
			attrs[y][x] = attr_at(&g, 8 + x, y);
		}
	}
	grid_free(&g);
	model_free(&m);
	memseries_free(s);
	view_free(v);
}

/* Each row of the plot as wanted; the first row that differs is printed. */
static bool rows_are(char text[][128], const char *const *want, int rows)
{
	for (int y = 0; y < rows; y++)
		if (strcmp(text[y], want[y]) != 0) {
			printf("#   row %d is \"%s\", want \"%s\"\n", y, text[y], want[y]);
			return false;
		}
	return true;
}

/* A braille cell's dots, top to bottom (left column bits 0x01, 0x02, 0x04, 0x40; right 0x08,
 * 0x10, 0x20, 0x80). */
#define B_BOT "\xe2\xa3\x80"       /* U+28C0: both columns, row 4 */
#define B_3 "\xe2\xa0\xa4"         /* U+2824: both, row 3 */
#define B_2 "\xe2\xa0\x92"         /* U+2812: both, row 2 */
#define B_TOP "\xe2\xa0\x89"       /* U+2809: both, row 1 */
#define B_2L "\xe2\xa0\x82"        /* U+2802: left, row 2 */
#define B_RISE "\xe2\xa1\x96"      /* U+2856: left rows 2-4, right row 2 */
#define B_RISE_LOW "\xe2\xa0\x87"  /* U+2807: left rows 1-3 */
#define B_FALL "\xe2\xa1\x84"      /* U+2844: left rows 3-4 */
#define B_FALL_LOW "\xe2\xa3\x87"  /* U+28C7: left rows 1-4, right row 4 */
#define B_UP "\xe2\xa1\x8f"        /* U+284F: left rows 1-4, right row 1 */
#define B_UP_LOW "\xe2\xa0\x83"    /* U+2803: left rows 1-2 */
#define GAP "\xc2\xa6"

/* The same series in both modes: braille where the locale shows it, ASCII where not. The
 * y axis tops at 8 MiB (5 MiB for the gap), so that with 8 dots down reading v MiB is on dot
 * row 7 - floor(v) from the top. */
static void test_chart_lines(bool braille)
{
	static const double rising[LINE_N] = { 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 7.5, 7.5 };
	static const double steps[LINE_N] = { 0.5, 0.5, 6.5, 6.5, 6.5, 6.5, 0.5, 0.5, 0.5, 0.5 };
	static const double jump[LINE_N] = { 1, 1, 1, 1, 5, 5, 5, 5, 5, 5 };
	static const double sparse[LINE_N] = { 1, X, 1, X, 1, X, 1, X, 1, 1 };
	double f_used[LINE_N], f_total[LINE_N], f_rss[LINE_N], f_ext[LINE_N];
	const char *mode = braille ? "braille" : "ASCII";
	char text[8][128];
	int attrs[8][20];
	bool same;

	chart_of(line_series(rising, NULL, NULL, NULL, -1), braille, braille ? 2 : 8, text, attrs);
	if (braille) {
		static const char *const want[] = { "    " B_BOT B_3 B_2 B_TOP B_TOP B_TOP,
			B_BOT B_3 B_2 B_TOP "      " };
		ok(rows_are(text, want, 2), "braille: a rising line climbs a dot row a reading");
	} else {
		static const char *const want[] = { "              ######",
			"            ##      ", "          ##        ", "        ##          ",
			"      ##            ", "    ##              ", "  ##                ",
			"##                  " };
		ok(rows_are(text, want, 8), "ASCII: a rising line climbs a row a reading");
	}
	ok(attrs[braille ? 1 : 7][0] == GA_HEAT3, "%s: in heap used's attribute", mode);

	chart_of(line_series(NULL, NULL, steps, NULL, -1), braille, braille ? 2 : 8, text, attrs);
	if (braille) {
		static const char *const want[] = { "  " B_RISE B_2 B_2 B_2 B_FALL "   ",
			B_BOT B_BOT B_RISE_LOW "   " B_FALL_LOW B_BOT B_BOT B_BOT };
		ok(rows_are(text, want, 2), "braille: a steep rise and fall are joined by a "
			"vertical run of dots");
	} else {
		static const char *const want[] = { "                    ",
			"    ========        ", "    =       =       ", "    =       =       ",
			"    =       =       ", "    =       =       ", "    =       =       ",
			"====        ========" };
		ok(rows_are(text, want, 8), "ASCII: a steep rise and fall are joined");
	}
	ok(attrs[braille ? 0 : 1][braille ? 3 : 6] == GA_HEAT1, "%s: in rss's attribute", mode);

	for (int i = 0; i < LINE_N; i++) {
		f_rss[i] = 7.25;
		f_total[i] = 5.25;
		f_used[i] = 3.25;
		f_ext[i] = 1.25;
	}
	chart_of(line_series(f_used, f_total, f_rss, f_ext, -1), braille, 4, text, attrs);
	if (braille) {
		static const char *const want[] = {
			B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2,
			B_2 B_2L B_2 B_2L B_2 B_2L B_2 B_2L B_2 B_2L,
			B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2 B_2,
			B_2L B_2L B_2L B_2L B_2L B_2L B_2L B_2L B_2L B_2L };
		ok(rows_are(text, want, 4), "braille: flat lines: rss solid, heap total dashed, "
			"heap used solid, external dotted");
	} else {
		static const char *const want[] = { "====================", "--------------------",
			"####################", "...................." };
		ok(rows_are(text, want, 4), "ASCII: flat lines: rss, heap total, heap used, external");
	}
	same = true;
	for (int x = 0; x < (braille ? LINE_N : 2 * LINE_N); x++)
		same = same && attrs[0][x] == GA_HEAT1 && attrs[1][x] == GA_HEAT2 &&
			attrs[2][x] == GA_HEAT3 && attrs[3][x] == GA_DIM;
	ok(same, "%s: each line in its series' attribute", mode);

	chart_of(line_series(NULL, NULL, jump, NULL, 4), braille, braille ? 2 : 8, text, attrs);
	if (braille) {
		static const char *const want[] = { "    " B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP,
			B_3 B_3 B_3 B_3 GAP "     " };
		ok(rows_are(text, want, 2), "braille: a gap is marked and the lines on either "
			"side are not joined");
	} else {
		static const char *const want[] = { "        ============", "        |           ",
			"        |           ", "        |           ", "        |           ",
			"        |           ", "========|           ", "        |           " };
		ok(rows_are(text, want, 8), "ASCII: a gap is marked and not joined across");
	}
	ok(attrs[1][braille ? 4 : 8] == GA_DIM, "%s: the gap mark is dim", mode);

	chart_of(line_series(NULL, NULL, jump, NULL, -1), braille, braille ? 2 : 8, text, attrs);
	if (braille) {
		static const char *const want[] = { "    " B_UP B_TOP B_TOP B_TOP B_TOP B_TOP,
			B_3 B_3 B_3 B_3 B_UP_LOW "     " };
		ok(rows_are(text, want, 2), "braille: without the gap the same jump is joined");
	} else {
		static const char *const want[] = { "        ============", "        =           ",
			"        =           ", "        =           ", "        =           ",
			"        =           ", "========            ", "                    " };
		ok(rows_are(text, want, 8), "ASCII: without the gap the same jump is joined");
	}

	chart_of(line_series(NULL, NULL, sparse, NULL, -1), braille, braille ? 2 : 8, text, attrs);
	if (braille) {
		static const char *const want[] = {
			B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP B_TOP, "          " };
		ok(rows_are(text, want, 2), "braille: a series read every other second is one line");
	} else {
		ok(strcmp(text[0], "====================") == 0,
			"ASCII: a series read every other second is one line");
	}
}

/* Where the locale cannot show blocks and box lines, ASCII stands in. */
static void test_ascii(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;

	setlocale(LC_ALL, "C");
	grid_init(&g);
	grid_resize(&g, 80, 24);
	view_draw(v, &fx->m, &g, NOW);
	ok(grid_bytes_ok(&g, true) && strstr(row(&g, 3), "growing  _") && strstr(row(&g, 3), "#"),
		"C locale: an ASCII sparkline");
	view_key(v, &fx->m, 'm');
	view_key(v, &fx->m, '2');
	view_draw(v, &fx->m, &g, NOW);
	ok(grid_bytes_ok(&g, true) && screen_has(&g, "      0+-----"), "C locale: ASCII axes");
	ok(plot_cells(&g, find_line(&g, "      0+"), "|") >= 1, "and an ASCII gap mark");
	view_key(v, &fx->m, '1');
	view_draw(v, &fx->m, &g, NOW);
	ok(grid_bytes_ok(&g, true) && plot_cells(&g, find_line(&g, "      0+"), "#") > 50 &&
		plot_cells(&g, find_line(&g, "      0+"), "=") > 20, "C locale: an ASCII chart");
	ok(screen_has(&g, "# heap used") && screen_has(&g, "- heap total") &&
		screen_has(&g, "= rss") && screen_has(&g, ". external 3.0M"),
		"with its glyphs in the legend");
	test_chart_lines(false);
	view_free(v);
	grid_free(&g);
}

/* The event loop's line: under the CPU line once a reading came, the memory line below it. */
static void test_evloop_line(struct fixture *fx)
{
	static const char reply[] = "{\"r\":{\"u\":0.3712,\"s\":1001.5,\"n\":98,\"p50\":10100000,"
		"\"p99\":12345000,\"max\":340200000},\"k\":{\"TCPSocketWrap\":12,\"Timeout\":3}}";
	struct view *v = view_create(NULL);
	struct grid g;

	grid_init(&g);
	grid_resize(&g, 120, 24);
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "LOOP"), "loop: no line before a reading");
	evloop_parse(reply, strlen(reply), &fx->m.evloop);
	fx->m.have_evloop = true;
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 3), "LOOP busy 37.1%  lag p50 10ms p99 12ms max 340ms", 48) == 0,
		"loop: its line, busy share and lag: %s", row(&g, 3));
	ok(strstr(row(&g, 3), "handles TCPSocketWrap 12, Timeout 3") != NULL, "loop: the handles");
	ok(strncmp(row(&g, 4), "MEM", 3) == 0, "loop: the memory line below it");
	fx->m.evloop.lag_resolution_ms = 1000;
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 3), "lag(1000ms timer) p50 10ms") != NULL,
		"loop: a 1 s timer's lag (CPU profiler off) says so: %s", row(&g, 3));
	fx->m.evloop.lag_resolution_ms = 10;
	grid_resize(&g, 120, 15);
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "LOOP"), "loop: a short screen keeps its old header");
	fx->m.have_evloop = false;
	grid_free(&g);
	view_free(v);
}


/* A block at t_s ago, held_ms long, under processTimers > listOnTimeout > handler > func. */
static void add_block(struct fixture *fx, double ago_s, double held_ms, uint32_t func)
{
	struct model *m = &fx->m;
	struct model_block *k;
	static const char *const outer[] = { "processTimers", "listOnTimeout" };

	if (m->n_blocks == MODEL_BLOCKS_MAX) {
		memmove(m->blocks, m->blocks + 1, (MODEL_BLOCKS_MAX - 1) * sizeof *m->blocks);
		m->n_blocks--;
	}
	k = &m->blocks[m->n_blocks++];
	memset(k, 0, sizeof *k);
	k->wall_s = NOW - ago_s;
	k->b.start_us = 1e9;
	k->b.end_us = 1e9 + held_ms * 1e3;
	k->b.busy_ms = held_ms;
	k->b.lag_ms = held_ms - 4;
	k->b.share = 0.93;
	for (int i = 0; i < 2; i++)
		k->b.stack[k->b.depth++] = functab_intern(fx->ft, outer[i], strlen(outer[i]),
			"node:internal/timers", 20, 500 + i, 0);
	k->b.stack[k->b.depth++] = fx->id[F_HANDLER];
	k->b.stack[k->b.depth++] = func;
	m->blocks_total++;
}

/* The loop screen (l): why it is empty, the blocks newest first, a selection that stays on its
 * block as new ones come, and the stack on Enter. */
static void test_evloop_screen(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;
	int y, y2;
	static const char evil[] = "evil\x1b[31m\x07name";
	uint32_t evil_id = functab_intern(fx->ft, evil, strlen(evil), "file:///app/\x1b]0;x\x07.js",
		22, 3, 0);

	grid_init(&g);
	grid_resize(&g, 120, 30);
	fx->m.block_threshold_ms = 100;
	ok(view_key(v, &fx->m, 'l') == VA_REDRAW, "l opens the loop screen");
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	ok(strncmp(row(&g, 0), "EVENT LOOP  zoom 5 min", 22) == 0, "its title says the zoom: %s",
		row(&g, 0));
	ok(screen_has(&g, "Blocks of 100 ms or more, newest first (0 since attach)"),
		"the list's title");
	ok(screen_has(&g, "waiting for the first loop reading"), "no reading yet: the chart says so");
	ok(screen_has(&g, "No task has held the event loop for 100 ms or more since attach."),
		"no block yet: it says so");
	fx->m.block_threshold_ms = 0;
	fx->m.no_eval = true;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "need the loop's own readings, which --no-eval does not take"),
		"--no-eval: why there are none");
	fx->m.no_eval = false;
	fx->m.block_threshold_ms = 100;
	fx->m.cpu_off = true;
	fx->m.next_burst_in_s = NAN;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "the CPU profiler is off (c starts it)"), "--no-cpu: why there are none");
	fx->m.cpu_off = false;

	add_block(fx, 30, 312, fx->id[F_PARSE]);
	add_block(fx, 20, 1450, fx->id[F_LEAK]);
	add_block(fx, 10, 205, evil_id);
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y = find_line(&g, "TIME");
	ok(y > 0 && strstr(row(&g, y), "HELD") && strstr(row(&g, y), "SHARE"), "column headings");
	ok(strstr(row(&g, y + 1), "205 ms") && strstr(row(&g, y + 1), "evil") &&
		strstr(row(&g, y + 2), "1450 ms") && strstr(row(&g, y + 2), "leakyCache") &&
		strstr(row(&g, y + 3), "312 ms") && strstr(row(&g, y + 3), "parseJson"),
		"newest first, each with how long it held the loop and its function");
	ok(strstr(row(&g, y + 2), "93%") && strstr(row(&g, y + 2), "cache.js:42"),
		"with the share under the function and where it is");
	is_int(attr_at(&g, 0, y + 1), GA_SELECTED, "the newest is selected");
	ok(grid_bytes_ok(&g, false), "a hostile name and url reach the grid without control bytes");
	ok(strstr(row(&g, find_line(&g, "Blocks of")), "(3 since attach)") != NULL,
		"the list's title counts them");

	view_key(v, &fx->m, VK_DOWN);
	view_draw(v, &fx->m, &g, NOW);
	is_int(attr_at(&g, 0, y + 2), GA_SELECTED, "Down selects the older one");
	add_block(fx, 1, 150, fx->id[F_POOL]);
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, y + 1), "bufferPool") && attr_at(&g, 0, y + 3) == GA_SELECTED &&
		strstr(row(&g, y + 3), "leakyCache"), "a new block comes on top; the selection "
		"stays on its block");
	ok(view_key(v, &fx->m, VK_ENTER) == VA_REDRAW, "Enter opens its stack");
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y2 = find_line(&g, "Stack of the block at");
	y = find_line(&g, "TIME");
	ok(y2 > y + 4 && strstr(row(&g, y2), "1450 ms"), "the stack of the selected block");
	ok(!screen_has(&g, "\xe2\x94\x94"), "it takes the charts' place");
	ok(strstr(row(&g, y2 + 1), "leakyCache") && strstr(row(&g, y2 + 2), "handler") &&
		strstr(row(&g, y2 + 3), "listOnTimeout") && strstr(row(&g, y2 + 4), "processTimers"),
		"innermost first");
	is_int(attr_at(&g, 2, y2 + 4), GA_DIM, "Node's own frames dimmed");
	view_key(v, &fx->m, VK_ESC);
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "Stack of the block at"), "Esc closes the stack");
	view_key(v, &fx->m, VK_ESC);
	view_draw(v, &fx->m, &g, NOW);
	ok(!screen_has(&g, "EVENT LOOP"),
		"a second Esc goes back to the table");
	fx->m.have_evloop = true;
	fx->m.evloop.have_evloop = false;
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 3), "4 blocks (l)") != NULL, "the table's LOOP line counts the blocks: %s",
		row(&g, 3));

	/* small screens and every key on an empty list do not break it */
	view_key(v, &fx->m, 'l');
	for (int h = 1; h <= 12; h++)
		for (int w = 1; w <= 60; w += 7) {
			grid_resize(&g, w, h);
			view_key(v, &fx->m, h % 2 ? VK_ENTER : VK_END);
			view_draw(v, &fx->m, &g, NOW);
			if (!rows_fit(&g)) {
				ok(0, "loop screen %dx%d fits", w, h);
				h = 99;
				break;
			}
		}
	ok(1, "the loop screen draws at every size from 1x1 to 57x12");
	fx->m.n_blocks = 0;
	fx->m.blocks_total = 0;
	for (int k = VK_UP; k <= VK_END; k++)
		view_key(v, &fx->m, k);
	ok(view_key(v, &fx->m, VK_ENTER) == VA_REDRAW && v->msg[0], "Enter with no block: a message");
	fx->m.have_evloop = false;
	fx->m.block_threshold_ms = 0;
	grid_free(&g);
	view_free(v);
}

/* The rows of the grid that hold a chart's x axis (its corner), top to bottom. */
static int axis_rows(const struct grid *g, int *out, int max)
{
	int n = 0;

	for (int y = 0; y < g->height && n < max; y++)
		if (strcmp(cell(g, 7, y), "\xe2\x94\x94") == 0)
			out[n++] = y;
	return n;
}

/* The leftmost and rightmost plot columns between rows y0 and y1 (exclusive) with a dot of
 * attribute attr; -1 if none. */
static void dot_span(const struct grid *g, int y0, int y1, enum grid_attr attr, int *lo, int *hi)
{
	*lo = *hi = -1;
	for (int y = y0 + 1; y < y1; y++)
		for (int x = 8; x < g->width; x++)
			if (is_braille(cell(g, x, y)) && attr_at(g, x, y) == (int)attr) {
				if (*lo < 0 || x < *lo)
					*lo = x;
				if (x > *hi)
					*hi = x;
			}
}

/* The loop screen's charts: busy, lag (p99 band, max line) and handles over the zoom, a block
 * of the loop where it happened, the zoom keys, and why they are empty. */
static void test_evloop_charts(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct tseries *ls = tseries_create(EVLOOP_METRIC_COUNT);
	struct grid g;
	int ax[4], n, lo, hi, y;
	double spike_x;

	/* ten minutes of readings a second: 20 % busy, then 90 % for the last minute; p99 2 ms,
	 * max 5 ms, but 300 ms at one reading 100 s ago; handles from 10 to 60 */
	for (double t = NOW - 600; t <= NOW; t += 1) {
		double vals[EVLOOP_METRIC_COUNT];

		vals[EVLOOP_BUSY] = t > NOW - 60 ? 90 : 20;
		vals[EVLOOP_LAG_P50] = 0.5;
		vals[EVLOOP_LAG_P99] = 2;
		vals[EVLOOP_LAG_MAX] = t == NOW - 100 ? 300 : 5;
		vals[EVLOOP_HANDLES] = 10 + 50 * (t - (NOW - 600)) / 600;
		tseries_add(ls, t, vals);
	}
	fx->m.evloop_series = ls;
	fx->m.have_evloop = true;
	fx->m.evloop.have_evloop = true;
	fx->m.evloop.utilization = 0.9;
	fx->m.evloop.have_kinds = true;
	fx->m.connected = true;
	grid_init(&g);
	grid_resize(&g, 120, 40);
	view_key(v, &fx->m, 'l');
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	n = axis_rows(&g, ax, 4);
	is_int(n, 3, "120x40: three charts (busy, lag, handles)");
	if (n != 3)
		goto out;
	ok(strstr(row(&g, 2), "100%") != NULL, "busy's axis tops at 100%%: %s", row(&g, 2));
	ok(strstr(row(&g, ax[0] + 1), "500ms") != NULL, "lag's axis tops at a round 500 ms over the "
		"300 ms reading: %s", row(&g, ax[0] + 1));
	ok(strstr(row(&g, ax[1] + 1), "100") != NULL, "the handles' at 100 over 60: %s",
		row(&g, ax[1] + 1));
	ok(strstr(row(&g, ax[2] + 1), "now") != NULL, "time labels under the last chart");
	y = ax[2] + 2;
	ok(strstr(row(&g, y), "busy (top)") && strstr(row(&g, y), "lag p99") &&
		strstr(row(&g, y), "lag max") && strstr(row(&g, y), "handles and requests (bottom)"),
		"the legend names them: %s", row(&g, y));
	/* the 300 ms reading: the max line's only dots above the p99 band, where it happened */
	spike_x = 8 + (g.width - 8) * 200.0 / 300;
	dot_span(&g, ax[0], ax[1] - 1, GA_HEAT1, &lo, &hi);
	ok(lo >= 0 && fabs(lo - spike_x) <= 2 && hi - lo <= 2,
		"the lag chart's max line rises where the loop was held (x %d-%d, want ~%.0f)", lo,
		hi, spike_x);
	/* busy: 20 % then 90 % for the last fifth of the span */
	dot_span(&g, 1, ax[0], GA_HEAT2, &lo, &hi);
	ok(lo == 8 && hi == g.width - 1, "busy is drawn across the span (x %d-%d)", lo, hi);
	{
		int top_lo = -1;

		for (int x = 8; x < g.width && top_lo < 0; x++)
			if (is_braille(cell(&g, x, 2)))
				top_lo = x;
		ok(top_lo >= 8 + (g.width - 8) * 4 / 5 - 2, "and reaches its top row only in the last "
			"minute (from x %d)", top_lo);
	}
	/* 1 h: the ten minutes take the last sixth */
	is_int(view_key(v, &fx->m, '2'), VA_REDRAW, "2 zooms out to an hour");
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "EVENT LOOP  zoom 1 h", 20) == 0, "the title says so");
	axis_rows(&g, ax, 4);
	dot_span(&g, 1, ax[0], GA_HEAT2, &lo, &hi);
	ok(lo >= 8 + (g.width - 8) * 5 / 6 - 2 && hi == g.width - 1,
		"busy fills the last sixth (x %d-%d)", lo, hi);
	view_key(v, &fx->m, '4');
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "zoom all (10m since") != NULL, "4: all of it: %s", row(&g, 0));
	view_key(v, &fx->m, '-');
	view_draw(v, &fx->m, &g, NOW);
	ok(strncmp(row(&g, 0), "EVENT LOOP  zoom 5 min", 22) == 0, "- steps round to 5 min");
	ok(v->zoom == VZ_5MIN && (view_key(v, &fx->m, 'm'), v->screen == VS_MEMORY),
		"the memory screen shares the zoom");
	view_key(v, &fx->m, 'l');
	/* small screens keep the list: fewer charts */
	grid_resize(&g, 80, 24);
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	n = axis_rows(&g, ax, 4);
	ok(n >= 1 && n <= 2 && screen_has(&g, "Blocks"), "80x24: %d chart%s and the list", n,
		n == 1 ? "" : "s");
	grid_resize(&g, 80, 15);
	view_draw(v, &fx->m, &g, NOW);
	is_int(axis_rows(&g, ax, 4), 1, "80x15: the lag chart alone");
	grid_resize(&g, 80, 12);
	view_draw(v, &fx->m, &g, NOW);
	ok(axis_rows(&g, ax, 4) == 0 && screen_has(&g, "Blocks"), "80x12: no room for a chart: "
		"the list");
	fx->m.evloop.have_kinds = false;
	grid_resize(&g, 120, 40);
	view_draw(v, &fx->m, &g, NOW);
	is_int(axis_rows(&g, ax, 4), 2, "no handle counts (Node < 17.3): no handles chart");
	fx->m.no_eval = true;
	fx->m.evloop_series = NULL;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "the loop is not read with --no-eval"), "--no-eval: the chart says why");
	fx->m.no_eval = false;
	fx->m.evloop_series = ls;
	for (int h = 1; h <= 30; h += 3)
		for (int w = 1; w <= 90; w += 11) {
			grid_resize(&g, w, h);
			view_draw(v, &fx->m, &g, NOW);
			if (!rows_fit(&g)) {
				ok(0, "loop charts %dx%d fit", w, h);
				h = 99;
				break;
			}
		}
	ok(1, "the loop screen with charts draws at every size to 89x28");
out:
	fx->m.evloop_series = NULL;
	fx->m.have_evloop = false;
	fx->m.evloop.have_evloop = false;
	fx->m.evloop.have_kinds = false;
	view_key(v, &fx->m, VK_ESC);
	grid_free(&g);
	view_free(v);
	tseries_free(ls);
}

/* Several processes: the line names each by PID with a total; t's screens name the process. */
static void test_processes_line(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 160, 30);
	fx->m.threads_watched = true;
	fx->m.n_threads = 4;
	memset(fx->m.threads, 0, 4 * sizeof fx->m.threads[0]);
	fx->m.threads[0] = (struct model_thread){ 0, "", true, 2.0, NAN, false, true, 1234 };
	fx->m.threads[1] = (struct model_thread){ 0, "", true, 70.4, 8e6, false, false, 1240 };
	fx->m.threads[2] = (struct model_thread){ 3, "pool", true, 50, 8e6, false, false, 0 };
	fx->m.threads[3] = (struct model_thread){ 0, "", false, NAN, NAN, true, false, 1241 };
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y = find_line(&g, "PROCESSES");
	ok(y == 3 && find_line(&g, "THREADS") < 0, "PROCESSES instead of THREADS (row %d)", y);
	ok(y >= 0 && strstr(row(&g, y), "PROCESSES  pid 1234 2%  pid 1240 70%  3 pool 50%  pid 1241 "
		"exited  total 122%"), "each process by PID, a worker by id, the gone one, and the sum "
		"of the busy ones: %s", y >= 0 ? row(&g, y) : "");
	fx->m.shown_pid = 1240;
	snprintf(fx->m.shown_thread_name, sizeof fx->m.shown_thread_name, "node server.js");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "PID 1240  node ") && strstr(row(&g, 0), "PROCESS") &&
		strstr(row(&g, 0), "node server.js") && !strstr(row(&g, 0), "THREAD"),
		"another process's screens: its PID, PROCESS and its title: %s", row(&g, 0));
	fx->m.shown_pid = 0;
	fx->m.shown_thread_name[0] = '\0';

	/* T: the table across them. */
	fx->m.all = calloc(2, sizeof *fx->m.all);
	fx->m.all_cap = 2;
	fx->m.n_all = 2;
	fx->m.all_sources = 3;
	fx->m.all_processes = true;
	fx->m.all[0] = (struct model_all_row){ "pid 1240", "priceOrder", "/srv/server.js:12", 70.4,
		80, false };
	fx->m.all[1] = (struct model_all_row){ "3 pool", "listOnTimeout", "node:internal/timers:581",
		2.5, 3, true };
	is_int(view_key(v, &fx->m, 'T'), VA_REDRAW, "T opens the table across them");
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	ok(strstr(row(&g, 0), "ALL PROCESSES  3 with a window, busy 122% of a core in all") != NULL,
		"its header: how many, and their sum: %s", row(&g, 0));
	y = find_line(&g, "SELF%");
	ok(y > 0 && strstr(row(&g, y), "PROCESS") && strstr(row(&g, y), "FUNCTION") &&
		strstr(row(&g, y), "LOCATION"), "a PROCESS column between the shares and the function");
	ok(y > 0 && strstr(row(&g, y + 1), "70.4") && strstr(row(&g, y + 1), "pid 1240") &&
		strstr(row(&g, y + 1), "priceOrder") && strstr(row(&g, y + 1), "/srv/server.js:12"),
		"each row: its share, its process, the function and where: %s", y > 0 ? row(&g, y + 1) : "");
	ok(y > 0 && strstr(row(&g, y + 2), "3 pool") && strstr(row(&g, y + 2), "listOnTimeout"),
		"a worker thread's row beside them");
	is_int(view_key(v, &fx->m, 'i'), VA_SETTINGS, "i hides Node's own code there too");
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "listOnTimeout") < 0 && find_line(&g, "priceOrder") > 0, "and it is gone");
	view_key(v, &fx->m, 'i');
	is_int(view_key(v, &fx->m, 'T'), VA_REDRAW, "T again");
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "ALL PROCESSES") < 0 && find_line(&g, "PROCESSES") == 3,
		"goes back to the table");
	fx->m.n_all = 0;
	fx->m.threads_watched = false;
	ok(view_key(v, &fx->m, 'T') == VA_REDRAW && strstr(v->msg, "only one here"),
		"T with one thread says so");
	fx->m.threads_watched = false;
	fx->m.n_threads = 0;
	grid_free(&g);
	view_free(v);
}

/* The THREADS line: each worker with how busy its last window was; names from the target are
 * made safe; no line without workers, nor on a short screen. */
static void test_threads_line(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;
	int y;

	grid_init(&g);
	grid_resize(&g, 120, 30);
	fx->m.have_evloop = true;
	fx->m.threads_watched = true;
	fx->m.n_threads = 4;
	memset(fx->m.threads, 0, 4 * sizeof fx->m.threads[0]);
	fx->m.threads[0] = (struct model_thread){ 0, "main", true, 3.2, NAN, false, true, 0 };
	fx->m.threads[1] = (struct model_thread){ 1, "", true, 97.4, 8e6, false, false, 0 };
	fx->m.threads[2] = (struct model_thread){ 2, "evil\x1b[31mname", true, 12, 8e6, false,
		false, 0 };
	fx->m.threads[3] = (struct model_thread){ 5, "churner", false, NAN, NAN, true, false, 0 };
	fx->m.threads_more = 2;
	view_draw(v, &fx->m, &g, NOW);
	dump(&g);
	y = find_line(&g, "THREADS");
	ok(y == 3, "the THREADS line under the CPU line (row %d)", y);
	ok(y >= 0 && strstr(row(&g, y), "1 97%") && strstr(row(&g, y), " 12%") &&
		strstr(row(&g, y), "5 churner exited") && strstr(row(&g, y), "+2 more"),
		"each worker's id, name and busy share, the exited, and how many more: %s",
		y >= 0 ? row(&g, y) : "");
	ok(grid_bytes_ok(&g, false), "a hostile thread name reaches the grid without control bytes");
	ok(y >= 0 && strstr(row(&g, y), "THREADS  main 3%  1 97%") && strstr(row(&g, y), "(t: next, T: all)"),
		"the main thread first, and the key that goes to the next");
	is_int(attr_at(&g, 9, y), GA_SELECTED, "the thread the screens show is highlighted");
	{
		/* row() frees the text it returned before: one call, its offset kept */
		const char *r = row(&g, y), *p = strstr(r, "97%");
		int x97 = p ? (int)(p - r) : -1;

		is_int(attr_at(&g, x97, y), GA_WARN, "a saturated worker stands out");
	}
	ok(find_line(&g, "LOOP ") == 4 && find_line(&g, "FUNCTION") == 7, "the LOOP line and the table "
		"move down one (%d, %d)", find_line(&g, "LOOP "), find_line(&g, "FUNCTION"));
	grid_resize(&g, 120, 17);
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "THREADS") < 0 && find_line(&g, "LOOP") == 3, "17 rows: no room for it");
	is_int(view_key(v, &fx->m, 't'), VA_THREAD, "t asks for the next thread");
	fx->m.shown_thread_id = 2;
	snprintf(fx->m.shown_thread_name, sizeof fx->m.shown_thread_name, "pool");
	view_draw(v, &fx->m, &g, NOW);
	ok(strstr(row(&g, 0), "THREAD 2 pool") != NULL, "a worker's screens say whose: %s", row(&g, 0));
	fx->m.shown_thread_id = 0;
	fx->m.have_evloop = false;
	grid_resize(&g, 120, 16);
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "THREADS") == 3 && find_line(&g, "LOOP ") < 0, "no loop line (--no-eval): "
		"the THREADS line still, from 16 rows");
	fx->m.have_evloop = true;
	fx->m.n_threads = 1;
	grid_resize(&g, 120, 30);
	view_draw(v, &fx->m, &g, NOW);
	ok(find_line(&g, "THREADS") < 0, "no worker: no line");
	ok(view_key(v, &fx->m, 't') == VA_REDRAW && strstr(v->msg, "no worker thread"),
		"t without workers says so");
	fx->m.threads_watched = false;
	ok(view_key(v, &fx->m, 't') == VA_REDRAW && strstr(v->msg, "--no-workers"),
		"and with --no-workers, why");
	fx->m.threads_watched = false;
	fx->m.threads_more = 0;
	fx->m.have_evloop = false;
	grid_free(&g);
	view_free(v);
}

/* --cpu-every, between bursts: the lines say when the next one comes, not --no-cpu's c. */
static void test_between_bursts(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	struct grid g;

	grid_init(&g);
	grid_resize(&g, 100, 24);
	fx->m.cpu_off = true;
	fx->m.next_burst_in_s = 12.3;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "between CPU bursts (--cpu-every): the next in 13 s"),
		"bursts: the sampling line says when the next burst comes");
	ok(screen_has(&g, "Between CPU bursts (--cpu-every): the profiler is off until the next one."),
		"bursts: the empty table says why it is empty");
	ok(!screen_has(&g, "--no-cpu"), "bursts: and nothing of --no-cpu");
	if (screen_has(&g, "--no-cpu"))
		dump(&g);
	fx->m.next_burst_in_s = NAN;
	fx->m.cpu_off = false;
	grid_free(&g);
	view_free(v);
}

/* --no-cpu: the table says the profiler is off and c asks before starting it. */
static void test_no_cpu(struct fixture *fx)
{
	struct view *v = view_create(NULL);
	char heap[32], want[64];
	struct grid g;

	grid_init(&g);
	grid_resize(&g, 100, 24);
	view_fmt_bytes(memseries_last(fx->mem)->v[MEM_HEAP_USED], heap, sizeof(heap));
	snprintf(want, sizeof(want), "(heap now %s)", heap);
	fx->m.cpu_off = true;
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "CPU not profiled (--no-cpu): c starts the profiler"),
		"the sampling line says the CPU is not profiled");
	ok(screen_has(&g, "not profiled") && !screen_has(&g, "JS 0.0%"), "no CPU split is shown");
	ok(screen_has(&g, "CPU profiling is off (--no-cpu): press c to start it."),
		"the empty table says how to start it");
	ok(strstr(row(&g, 23), "c start CPU profiler") != NULL, "the key bar leads with c");
	is_int(view_key(v, &fx->m, 'c'), VA_REDRAW, "c asks first");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "Start the CPU profiler?") && screen_has(&g, want) &&
		screen_has(&g, "2 GB heap"), "the question gives the pause and the heap");
	if (!screen_has(&g, want))
		dump(&g);
	ok(rows_fit(&g), "and fits the screen");
	is_int(view_key(v, &fx->m, 'n'), VA_REDRAW, "n cancels");
	is_int(view_key(v, &fx->m, 'y'), VA_NONE, "and a later y alone does nothing");
	view_key(v, &fx->m, 'm');
	is_int(view_key(v, &fx->m, 'c'), VA_REDRAW, "c asks on the memory screen too");
	is_int(view_key(v, &fx->m, 'y'), VA_START_CPU, "y starts the profiler");
	fx->m.cpu_starting = true;
	is_int(view_key(v, &fx->m, 'c'), VA_REDRAW, "c while it starts");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "The CPU profiler is starting."), "says it is starting");
	fx->m.cpu_starting = false;
	fx->m.cpu_off = false;
	view_key(v, &fx->m, 'c');
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "The CPU profiler is already running.") &&
		!screen_has(&g, "Start the CPU profiler?"), "c with the profiler running only says so");
	/* a target that collects precise coverage: c says why it cannot, and asks nothing */
	fx->m.cpu_off = true;
	snprintf(fx->m.cpu_refused, sizeof fx->m.cpu_refused, "the CPU profiler stays off: the "
		"target collects precise coverage (NODE_V8_COVERAGE).");
	is_int(view_key(v, &fx->m, 'c'), VA_REDRAW, "coverage: c");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "stays off: the target collects precise coverage") &&
		!screen_has(&g, "Start the CPU profiler?"), "coverage: c says why, and asks nothing");
	fx->m.cpu_refused[0] = '\0';
	fx->m.connected = false;
	view_key(v, &fx->m, 'c');
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "No target is connected") && !screen_has(&g, "Start the CPU"),
		"no target, nothing to start");
	fx->m.connected = true;
	fx->m.cpu_off = false;

	/* a: allocation sampling asks first when its forced GC would pause over --max-pause. */
	fx->m.gc_pause_s = 2.0;
	fx->m.max_pause_s = 0.2;
	fx->m.alloc_on = false;
	is_int(view_key(v, &fx->m, 'a'), VA_REDRAW, "a with a 2 s GC over a 0.2 s limit asks first");
	view_draw(v, &fx->m, &g, NOW);
	ok(screen_has(&g, "Start allocation sampling?") && screen_has(&g, "2.0 s (heap"),
		"with the predicted pause");
	is_int(view_key(v, &fx->m, 'y'), VA_ALLOC_TOGGLE, "y starts it");
	view_key(v, &fx->m, 'a');
	is_int(view_key(v, &fx->m, 'n'), VA_REDRAW, "n does not");
	fx->m.alloc_on = true;
	is_int(view_key(v, &fx->m, 'a'), VA_ALLOC_TOGGLE, "stopping it never asks");
	fx->m.alloc_on = false;
	fx->m.gc_pause_s = 0.05;
	is_int(view_key(v, &fx->m, 'a'), VA_ALLOC_TOGGLE, "a GC under the limit does not ask");
	fx->m.gc_pause_s = NAN;
	fx->m.max_pause_s = INFINITY;
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
	setenv("TZ", "UTC", 1);
	tzset();
	fixture_init(&fx);
	test_memory_line(&fx);
	test_screen(&fx);
	test_keys(&fx);
	test_no_cpu(&fx);
	test_between_bursts(&fx);
	test_evloop_line(&fx);
	test_evloop_screen(&fx);
	test_evloop_charts(&fx);
	test_threads_line(&fx);
	test_processes_line(&fx);
	test_states(&fx);
	test_sizes(&fx);
	test_random_keys(&fx);
	test_chart_lines(true);
	test_ascii(&fx);
	fixture_free(&fx);
	view_fixture_done();
	return done_testing();
}
