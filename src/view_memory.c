/* view_memory.c: memory in the live view: the header's memory line (drawn on the table), the
 * memory screen (m) and its keys, and the heap snapshot confirmation (H).
 *
 * The screen, top to bottom: a title with the zoom; the chart of rss, heap used, heap total
 * and external over the zoom's span with its axes and legend (view_memchart.c); growth over
 * several spans beside V8's heap spaces (stacked when narrow); allocation sites by live bytes
 * and by growth since the first profile. Short terminals give the chart fewer rows and the
 * tables fewer lines; the chart takes what the tables leave. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "heapprof.h"
#include "memseries.h"
#include "util.h"
#include "view_priv.h"

#define MEMORY_KEYS "m/Esc back  1 5m  2 1h  3 24h  4 all  +/- zoom  a alloc sampling  " \
	"H heap snapshot  p pause  ? help  q quit"
/* a replay has no target to sample or snapshot, and nothing to go back to */
#define MEMORY_KEYS_REPLAY "1 5m  2 1h  3 24h  4 all  +/- zoom  I incidents  ? help  q quit"
#define ALLOC_ROWS_MAX 12

static const double zoom_span_s[VZ_COUNT] = { 300, 3600, 86400, 0 };
static const char *const zoom_name[VZ_COUNT] = { "5 min", "1 h", "24 h", "all" };

static const char *verdict_word(int verdict)
{
	return mem_verdict_name(verdict >= MEM_UNKNOWN && verdict <= MEM_SHRINKING ?
		(enum mem_verdict)verdict : MEM_UNKNOWN);
}

static enum grid_attr verdict_attr(int verdict)
{
	return verdict == MEM_GROWING ? GA_WARN : verdict == MEM_STABLE ||
		verdict == MEM_SHRINKING ? GA_NORMAL : GA_DIM;
}

/* A heap rate as shown beside its verdict: "~0" when it is not significant. */
static void view_fmt_heap_rate(double bytes_per_hour, bool significant, char *out, size_t outsz)
{
	if (isfinite(bytes_per_hour) && !significant)
		snprintf(out, outsz, "~0");
	else
		view_fmt_bytes_signed(bytes_per_hour, out, outsz);
}

/* --- the header's memory line --- */

void view_memory_line(const struct view *v, const struct model *m, struct grid *g, int y,
	double now_wall_s)
{
	const struct mem_sample *last = view_mem_last(m);
	char buf[256], a[32], b[32], c[32];
	int x;

	if (!last) {
		if (m->mem)
			grid_put(g, 0, y, GA_DIM, "MEM waiting for the first reading", 0);
		return;
	}
	x = view_put_at(g, 0, y, GA_HEADER, "MEM");
	view_fmt_bytes(last->v[MEM_RSS], a, sizeof(a));
	view_fmt_bytes(last->v[MEM_HEAP_USED], b, sizeof(b));
	view_fmt_bytes(last->v[MEM_HEAP_TOTAL], c, sizeof(c));
	snprintf(buf, sizeof(buf), " rss %s  heap %s/%s  ", a, b, c);
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	/* the rate beside the verdict agrees with it: one that is not significant reads ~0 */
	if (m->growth_span_s > 0 && isfinite(m->growth_heap_bytes_per_hour) &&
	    m->growth_verdict != MEM_UNKNOWN) {
		view_fmt_heap_rate(m->growth_heap_bytes_per_hour, m->growth_significant, a, sizeof(a));
		view_fmt_span(m->growth_span_s, b, sizeof(b));
		snprintf(buf, sizeof(buf), "%s/h over %s ", a, b);
		x = view_put_at(g, x, y, GA_NORMAL, buf);
	} else {
		x = view_put_at(g, x, y, GA_DIM, "growth ");
	}
	x = view_put_at(g, x, y, verdict_attr(m->growth_verdict), verdict_word(m->growth_verdict));
	if (m->snapshot_running)
		x = view_put_at(g, x, y, GA_WARN, g->width - x >= 27 ? "  heap snapshot in progress"
			: "  SNAPSHOT");
	if (x + 2 + 8 <= g->width)
		view_mem_sparkline(v, m, g, x + 2, y, g->width - x - 2,
			view_mem_end_s(NULL, m, now_wall_s));
}

/* --- the heap snapshot confirmation --- */

void view_snapshot_question(const struct model *m, char *out, size_t outsz)
{
	const struct mem_sample *last = view_mem_last(m);
	double heap = last ? last->v[MEM_HEAP_USED] : NAN, avail = m->sys_mem_available_bytes;
	char h[32] = "unknown", f[32] = "unknown";

	if (isfinite(heap))
		view_fmt_bytes(heap, h, sizeof(h));
	if (avail > 0 && isfinite(avail))
		view_fmt_bytes(avail, f, sizeof(f));
	snprintf(out, outsz, "Take a heap snapshot? heap %s, free memory %s; the target pauses "
		"while it is written (about 2x the heap in memory).%s y/n", h, f,
		isfinite(heap) && avail > 0 && avail < 2 * heap ?
		" WARNING: less than twice the heap is free." : "");
}

enum view_action view_snapshot_ask(struct view *v, const struct model *m)
{
	if (m->snapshot_running) {
		snprintf(v->msg, sizeof(v->msg), "heap snapshot in progress: wait for it to finish");
		return VA_REDRAW;
	}
	if (!m->connected) {
		snprintf(v->msg, sizeof(v->msg), "%s: no heap snapshot.", view_no_target(m));
		return VA_REDRAW;
	}
	v->prompt = VP_SNAPSHOT;
	return VA_REDRAW;
}

/* --- keys --- */

/* The charts' zoom (the memory and loop screens share it): 1-4 pick a span, + and - step. */
enum view_action view_zoom_key(struct view *v, const struct model *m, int key)
{
	enum view_zoom old = v->zoom;

	if (key >= '1' && key <= '4')
		v->zoom = (enum view_zoom)(key - '1');
	else if (key == '+' || key == '=')
		v->zoom = (enum view_zoom)((v->zoom + VZ_COUNT - 1) % VZ_COUNT);
	else if (key == '-' || key == '_')
		v->zoom = (enum view_zoom)((v->zoom + 1) % VZ_COUNT);
	return v->zoom != old ? VA_REDRAW : VA_NONE;
}

/* The left edge of the zoom's span ending at end_s; "all" starts at first_s (0: none), and
 * spans a minute at least. */
double view_zoom_from(const struct view *v, double end_s, double first_s)
{
	if (v->zoom == VZ_ALL)
		return first_s > 0 && first_s < end_s - 60 ? first_s : end_s - 60;
	return end_s - zoom_span_s[v->zoom];
}

/* "  zoom 5 min" (with the span and its start for "all") from x on row y; returns the next x. */
int view_zoom_title(const struct view *v, struct grid *g, int x, int y, double from_s,
	double to_s)
{
	char buf[160], span[32], since[32];

	x = view_put_at(g, x, y, GA_NORMAL, "  zoom ");
	x = view_put_at(g, x, y, GA_SORTED, zoom_name[v->zoom]);
	if (v->zoom == VZ_ALL) {
		view_fmt_span(to_s - from_s, span, sizeof(span));
		view_fmt_clock(from_s, to_s - from_s, since, sizeof(since));
		snprintf(buf, sizeof(buf), " (%s since %s)", span, since);
		x = view_put_at(g, x, y, GA_NORMAL, buf);
	}
	return x;
}

static enum view_action memory_back(struct view *v, const struct model *m, int key)
{
	if (m->replay) {
		snprintf(v->msg, sizeof(v->msg), "A replay shows the log's memory: q quits.");
		return VA_REDRAW;
	}
	v->screen = VS_TABLE;
	return VA_REDRAW;
}

static enum view_action memory_alloc(struct view *v, const struct model *m, int key)
{
	return view_alloc_ask(v, m);
}

static enum view_action memory_snapshot(struct view *v, const struct model *m, int key)
{
	return view_snapshot_ask(v, m);
}

/* Its keys are in help's KEYS list under the table's rows (m, a, H) and the detail's (Esc). */
static const struct binding memory_bindings[] = {
	{ { 0 }, "chart", "rss, heap used (the band shows the GC sawtooth), heap total and "
		"external memory over time; a broken bar marks a gap (the target restarted or "
		"ntop-js re-attached)", 0, NULL },
	{ { '1', '2', '3', '4' }, "1, 2, 3, 4", "zoom: the last 5 min, 1 h, 24 h, or all since "
		"the first reading", 0, view_zoom_key },
	{ { '+', '=', '-', '_' }, "+, -", "zoom in or out, cycling through the four spans", 0,
		view_zoom_key },
	{ { 0 }, "GROWTH", "bytes per hour of heap used (from its post-GC floor) and of rss over "
		"1 min, 5 min, 1 h, 24 h and the --growth-window (*), with the verdict and the span "
		"the data actually covers", 0, NULL },
	{ { 0 }, "HEAP SPACES", "V8's heap spaces: used, size, and growth since the first "
		"reading", 0, NULL },
	{ { 0 }, "LIVE", "allocation sites (functions) by the bytes they allocated that are still "
		"live, from the latest sampling heap profile", 0, NULL },
	{ { 0 }, "GROWTH since", "functions by the bytes added between the first profile and the "
		"latest: what a leak points at", 0, NULL },
	{ { 'm', VK_ESC, VK_BACKSPACE, 127, 8 }, NULL, NULL, 0, memory_back },
	{ { 'a' }, NULL, NULL, 0, memory_alloc },
	{ { 'H' }, NULL, NULL, 0, memory_snapshot },
};

/* --- growth and heap spaces --- */

/* The spans of the growth table: fixed ones and --growth-window (marked). */
static size_t growth_spans(const struct model *m, double *span, bool *configured)
{
	static const double fixed[] = { 60, 300, 3600, 86400 };
	double cfg = m->growth_window_s;
	size_t n = 0;
	bool placed = !(cfg > 0) || !isfinite(cfg);

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!placed && cfg < fixed[i] - 0.5) {
			span[n] = cfg;
			configured[n++] = true;
			placed = true;
		}
		span[n] = fixed[i];
		configured[n] = !placed && fabs(cfg - fixed[i]) <= 0.5;
		placed = placed || configured[n];
		n++;
	}
	if (!placed) {
		span[n] = cfg;
		configured[n++] = true;
	}
	return n;
}

/* Puts text in [cx, cx + cw) of a section that ends at right (cut there). */
static void put_col(struct grid *g, int cx, int y, int right, enum grid_attr attr,
	const char *text, int cw, bool right_align)
{
	if (cw > right - cx)
		cw = right - cx;
	if (cw <= 0)
		return;
	if (right_align)
		view_put_right(g, cx, y, attr, text, cw);
	else
		grid_put(g, cx, y, attr, text, cw);
}

static void draw_growth(const struct model *m, struct grid *g, int x, int y, int w, int rows,
	double end_s)
{
	double span[5];
	bool configured[5];
	size_t n = growth_spans(m, span, configured);
	int right = x + w;

	if (rows <= 0)
		return;
	grid_fill_attr(g, x, y, w, GA_TITLE);
	put_col(g, x, y, right, GA_TITLE, "LAST", 6, false);
	put_col(g, x + 7, y, right, GA_TITLE, "HEAP/h", 8, true);
	put_col(g, x + 16, y, right, GA_TITLE, "RSS/h", 8, true);
	put_col(g, x + 25, y, right, GA_TITLE, "VERDICT", 9, false);
	put_col(g, x + 35, y, right, GA_TITLE, "COVERS", 6, true);
	for (size_t i = 0; i < n && (int)i + 1 < rows; i++) {
		struct mem_growth gr;
		char buf[32];
		int ry = y + 1 + (int)i;

		memset(&gr, 0, sizeof(gr));
		gr.heap_bytes_per_hour = gr.rss_bytes_per_hour = NAN;
		if (m->have_memory && m->mem)
			memseries_growth(m->mem, span[i], end_s, &gr);
		view_fmt_span(span[i], buf, sizeof(buf));
		if (configured[i])
			strcat(buf, "*");
		put_col(g, x, ry, right, GA_NORMAL, buf, 6, false);
		if (!(gr.window_s > 0))
			gr.heap_bytes_per_hour = gr.rss_bytes_per_hour = NAN;
		if (gr.verdict == MEM_UNKNOWN)
			gr.heap_bytes_per_hour = NAN;
		view_fmt_heap_rate(gr.heap_bytes_per_hour, gr.significant, buf, sizeof(buf));
		put_col(g, x + 7, ry, right, GA_NORMAL, buf, 8, true);
		view_fmt_bytes_signed(gr.rss_bytes_per_hour, buf, sizeof(buf));
		put_col(g, x + 16, ry, right, GA_NORMAL, buf, 8, true);
		put_col(g, x + 25, ry, right, verdict_attr(gr.verdict), verdict_word(gr.verdict), 9,
			false);
		if (gr.window_s > 0)
			view_fmt_span(gr.window_s, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "-");
		put_col(g, x + 35, ry, right, gr.window_s < span[i] * 0.9 ? GA_DIM : GA_NORMAL, buf, 6,
			true);
	}
}

static int cmp_space_used(const void *pa, const void *pb)
{
	const struct model_heap_space *a = *(const struct model_heap_space *const *)pa;
	const struct model_heap_space *b = *(const struct model_heap_space *const *)pb;

	return a->used_bytes > b->used_bytes ? -1 : a->used_bytes < b->used_bytes;
}

static void draw_spaces(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int w, int rows)
{
	const struct model_heap_space *sp[16];
	size_t n = m->n_spaces < 16 ? m->n_spaces : 16, shown;
	int right, name_w, full_w = w;

	if (rows <= 0 || w <= 0)
		return;
	if (w > 64)
		w = 64; /* wider only pushes the numbers away from the names */
	right = x + w;
	name_w = w - 24;
	if (name_w < 4)
		name_w = 4;
	grid_fill_attr(g, x, y, w, GA_TITLE);
	put_col(g, x, y, right, GA_TITLE, "HEAP SPACE", name_w, false);
	put_col(g, x + name_w + 1, y, right, GA_TITLE, "USED", 7, true);
	put_col(g, x + name_w + 9, y, right, GA_TITLE, "SIZE", 7, true);
	put_col(g, x + name_w + 17, y, right, GA_TITLE, "GROWTH", 7, true);
	if (n == 0) {
		if (rows > 1)
			view_put_fit(v, g, x, y + 1, GA_DIM, m->no_eval ? "not read: heap spaces and "
				"external memory need code run in the target, which --no-eval forbids"
				: "no heap space statistics yet", full_w, false);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sp[i] = &m->spaces[i];
	qsort(sp, n, sizeof(sp[0]), cmp_space_used);
	shown = (size_t)(rows - 1);
	if (shown < n && shown > 1)
		shown--; /* the last line says how many more there are */
	for (size_t i = 0; i < n && i < shown; i++) {
		char name[48], buf[32], *suffix;
		int ry = y + 1 + (int)i;

		snprintf(name, sizeof(name), "%s", sp[i]->name);
		/* "_space" is in every name: the heading says it once. */
		suffix = strstr(name, "_space");
		if (suffix && suffix != name && suffix[6] == '\0')
			*suffix = '\0';
		view_put_fit(v, g, x, ry, GA_NORMAL, name, name_w < right - x ? name_w : right - x,
			false);
		view_fmt_bytes(sp[i]->used_bytes, buf, sizeof(buf));
		put_col(g, x + name_w + 1, ry, right, GA_NORMAL, buf, 7, true);
		view_fmt_bytes(sp[i]->size_bytes, buf, sizeof(buf));
		put_col(g, x + name_w + 9, ry, right, GA_NORMAL, buf, 7, true);
		view_fmt_bytes_signed(sp[i]->growth_bytes, buf, sizeof(buf));
		put_col(g, x + name_w + 17, ry, right, GA_NORMAL, buf, 7, true);
	}
	if (shown < n && shown + 1 < (size_t)rows) {
		char more[64];
		snprintf(more, sizeof(more), "and %zu smaller", n - shown);
		put_col(g, x, y + 1 + (int)shown, right, GA_DIM, more, w, false);
	}
}

/* --- allocation sites --- */

/* Whether a ranks before b: more bytes, then the lower function index (a stable order). */
static bool site_before(const struct alloc_site *a, const struct alloc_site *b, bool growth)
{
	double x = growth ? a->growth_bytes : a->live_bytes;
	double y = growth ? b->growth_bytes : b->live_bytes;

	return x != y ? x > y : a->func < b->func;
}

/* The top sites of t with a positive live (or growth) figure, best first. An insertion into
 * a short list: a table can hold thousands of sites, a screen shows a dozen. */
static size_t alloc_top(const struct alloc_table *t, bool growth, const struct alloc_site **out,
	size_t max)
{
	size_t k = 0;

	if (!t || !t->sites)
		return 0;
	for (size_t i = 0; i < t->n && max > 0; i++) {
		const struct alloc_site *s = &t->sites[i];
		double b = growth ? s->growth_bytes : s->live_bytes;
		size_t j;

		if (!isfinite(b) || b <= 0 || (k == max && !site_before(s, out[k - 1], growth)))
			continue;
		j = k < max ? k++ : max - 1;
		for (; j > 0 && site_before(s, out[j - 1], growth); j--)
			out[j] = out[j - 1];
		out[j] = s;
	}
	return k;
}

static void draw_site(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int w, const struct alloc_site *s, bool growth)
{
	char buf[1024];
	const char *name = view_func_name(m, s->func);
	int name_w, nx = x + 9;

	if (growth)
		view_fmt_bytes_signed(s->growth_bytes, buf, sizeof(buf));
	else
		view_fmt_bytes(s->live_bytes, buf, sizeof(buf));
	put_col(g, x, y, x + w, growth ? GA_WARN : GA_NORMAL, buf, 8, true);
	if (nx >= x + w)
		return;
	name_w = grid_text_cols(name);
	if (name_w > (x + w - nx) * 55 / 100 && x + w - nx >= 20)
		name_w = (x + w - nx) * 55 / 100;
	if (name_w > x + w - nx)
		name_w = x + w - nx;
	view_put_fit(v, g, nx, y, view_func_internal(m, s->func) ? GA_DIM : GA_NORMAL, name, name_w,
		false);
	view_func_location(m, s->func, false, buf, sizeof(buf));
	if (nx + name_w + 1 < x + w)
		view_put_fit(v, g, nx + name_w + 1, y, GA_DIM, buf, x + w - nx - name_w - 1, true);
}

static void draw_alloc_list(const struct view *v, const struct model *m, struct grid *g, int x,
	int y, int w, int rows, bool growth)
{
	const struct alloc_site *top[ALLOC_ROWS_MAX];
	const struct alloc_table *t = growth && m->alloc_growth ? m->alloc_growth : m->alloc;
	size_t n = alloc_top(t, growth, top, rows <= 1 ? 0 : rows - 1 > ALLOC_ROWS_MAX ?
		ALLOC_ROWS_MAX : (size_t)(rows - 1));
	char head[96], total[32];

	if (rows <= 0 || w <= 0)
		return;
	if (!growth && m->alloc && m->alloc->total_live_bytes > 0) {
		view_fmt_bytes(m->alloc->total_live_bytes, total, sizeof(total));
		snprintf(head, sizeof(head), "LIVE (retained, %s sampled)", total);
	} else {
		snprintf(head, sizeof(head), "%s", growth ? "GROWTH since first profile"
			: "LIVE (retained)");
	}
	grid_fill_attr(g, x, y, w, GA_TITLE);
	view_put_fit(v, g, x, y, GA_TITLE, head, w, false);
	for (size_t i = 0; i < n; i++)
		draw_site(v, m, g, x, y + 1 + (int)i, w, top[i], growth);
	if (n == 0 && rows > 1)
		view_put_fit(v, g, x + 2 < x + w ? x + 2 : x, y + 1, GA_DIM, !m->alloc ?
			"(no profile yet)" : growth ? "(nothing grew since the first profile)"
			: "(nothing live)", w > 2 ? w - 2 : w, false);
}

/* The state of allocation sampling, in one line (shorter for narrow screens). */
static void alloc_status(const struct model *m, double now_wall_s, bool narrow, char *out,
	size_t outsz)
{
	char every[32], next[32], when[32];
	const char *gc = narrow ? "(each fetch forces a full GC)"
		: "(each fetch forces a full GC in the target)";

	view_fmt_span(m->alloc_interval_s, every, sizeof(every));
	if (m->alloc_on) {
		const char *what = m->alloc ? "next profile" : "first profile";
		if (m->alloc_next_wall_s > now_wall_s) {
			view_fmt_span(m->alloc_next_wall_s - now_wall_s, next, sizeof(next));
			snprintf(out, outsz, "%s sampling on, every %s, %s in %s %s",
				narrow ? "alloc" : "allocation", every, narrow ? "next" : what, next,
				gc);
		} else {
			snprintf(out, outsz, "%s sampling on, every %s, %s due now %s",
				narrow ? "alloc" : "allocation", every, narrow ? "next" : what, gc);
		}
	} else if (m->alloc) {
		view_fmt_clock(m->alloc->time_s, 3600, when, sizeof(when));
		snprintf(out, outsz, "allocation sampling off (tables from the profile of %s): "
			"press a to start", when);
	} else {
		snprintf(out, outsz, "allocation sampling off: press a to start");
	}
}

/* The section's height when it has room: the status line, headings and rows. */
static int alloc_want(const struct model *m, bool side)
{
	const struct alloc_site *top[ALLOC_ROWS_MAX];
	int nl, ng;

	if (!m->alloc_on && !m->alloc)
		return 1;
	nl = (int)alloc_top(m->alloc, false, top, ALLOC_ROWS_MAX);
	ng = (int)alloc_top(m->alloc_growth ? m->alloc_growth : m->alloc, true, top,
		ALLOC_ROWS_MAX);
	nl = nl ? nl : 1;
	ng = ng ? ng : 1;
	return side ? 2 + (nl > ng ? nl : ng) : 3 + nl + ng;
}

static void draw_alloc(const struct view *v, const struct model *m, struct grid *g, int y,
	int rows, bool side, double now_wall_s)
{
	char line[256];
	int w = g->width, left = (w - 1) / 2, each;

	if (rows <= 0)
		return;
	alloc_status(m, now_wall_s, false, line, sizeof(line));
	if (grid_text_cols(line) > w)
		alloc_status(m, now_wall_s, true, line, sizeof(line));
	view_put_fit(v, g, 0, y, m->alloc_on ? GA_NORMAL : GA_DIM, line, w, false);
	if ((!m->alloc_on && !m->alloc) || rows < 2)
		return;
	if (side) {
		draw_alloc_list(v, m, g, 0, y + 1, left, rows - 1, false);
		draw_alloc_list(v, m, g, left + 1, y + 1, w - left - 1, rows - 1, true);
		return;
	}
	each = (rows - 1) / 2;
	draw_alloc_list(v, m, g, 0, y + 1, w, rows - 1 - each, false);
	draw_alloc_list(v, m, g, 0, y + rows - each, w, each, true);
}

/* --- the screen --- */

static void draw_title(const struct view *v, const struct model *m, struct grid *g,
	double from_s, double to_s)
{
	int x = view_put_at(g, 0, 0, GA_HEADER, "MEMORY");

	x = view_zoom_title(v, g, x, 0, from_s, to_s);
	if (m->snapshot_running)
		x = view_put_at(g, x, 0, GA_WARN, "  heap snapshot in progress");
	x = view_put_link(m, g, x, 0);
	view_put_at(g, x, 0, GA_DIM, VIEW_ZOOM_KEYS);
}

static void memory_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	int bottom = view_draw_bottom(v, m, g, m->replay ? MEMORY_KEYS_REPLAY : MEMORY_KEYS), w = g->width, rest, plot, tables;
	int growth_h, spaces_h, mid_want, mid, alloc_h, alloc_min, give, y;
	double end = view_mem_end_s(v, m, now_wall_s), spans[5];
	double from = view_zoom_from(v, end, m->mem ? memseries_first_time(m->mem) : 0);
	bool side = w >= 80, configured[5], live = end == now_wall_s && !v->paused;

	draw_title(v, m, g, from, end);
	/* Rows 1 .. bottom-1: the chart (plot, axis, labels, legend), then the tables. */
	rest = bottom - 1 - 3;
	if (rest < 1)
		return;
	growth_h = 1 + (int)growth_spans(m, spans, configured);
	spaces_h = 1 + (m->n_spaces ? (int)(m->n_spaces < 16 ? m->n_spaces : 16) : 1);
	mid_want = side ? (growth_h > spaces_h ? growth_h : spaces_h) : growth_h + spaces_h;
	/* The status line, the headings and a row of each list. */
	alloc_min = !m->alloc_on && !m->alloc ? 1 : side ? 3 : 5;
	plot = rest / 3 > 3 ? rest / 3 : rest < 3 ? rest : 3;
	tables = rest - plot;
	/* Growth (and the top heap space when stacked) first, then the allocation lists (they
	 * point at a leak), then the other heap spaces; what the tables leave goes to the
	 * chart. */
	mid = side ? growth_h : growth_h + 2;
	if (mid > tables)
		mid = tables;
	alloc_h = alloc_min < tables - mid ? alloc_min : tables - mid;
	give = tables - mid - alloc_h;
	if (give > alloc_want(m, side) - alloc_h)
		give = alloc_want(m, side) - alloc_h;
	alloc_h += give > 0 ? give : 0;
	give = tables - mid - alloc_h;
	mid += give < mid_want - mid ? give : mid_want - mid;
	plot += tables - mid - alloc_h;

	view_mem_chart(v, m, g, 1, plot, from, end, live);
	y = 1 + plot + 3;
	if (mid > 0) {
		if (side) {
			int gw = 41;
			draw_growth(m, g, 0, y, gw, mid, end);
			draw_spaces(v, m, g, gw + 2, y, w - gw - 2, mid);
		} else {
			int gh = mid < growth_h ? mid : growth_h;
			draw_growth(m, g, 0, y, w, gh, end);
			draw_spaces(v, m, g, 0, y + gh, w, mid - gh);
		}
	}
	draw_alloc(v, m, g, y + mid, alloc_h, side, now_wall_s);
}

static const char *const memory_key_bars[] = { MEMORY_KEYS, NULL };

const struct screen screen_memory = {
	.name = "memory",
	.key_bars = memory_key_bars,
	.draw = memory_draw,
	.bindings = memory_bindings,
	.n_bindings = sizeof(memory_bindings) / sizeof(memory_bindings[0]),
	.shared_keys = true,
	.help_title = "MEMORY SCREEN",
	.help_section = 1,
};
