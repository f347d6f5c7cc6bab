/* view.c: see view.h. This file holds the view's life cycle, the key dispatch (the one-line
 * prompt, the table of keys shared by the screens, then the screen's own table), the table of
 * screens it dispatches to, and the helpers the screens share; the screens themselves are in view_table.c, view_detail.c, view_help.c,
 * view_memory.c, view_evloop.c and view_all.c. */
#include "config.h"

#include "view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "functab.h"
#include "grid.h"
#include "memseries.h"
#include "pause.h"
#include "util.h"
#include "view_priv.h"

/* Characters that need the locale's help, with their ASCII stand-ins. */
static void view_set_glyphs(struct view *v, bool uni, bool uni_blocks, bool braille)
{
	static const char *const blocks_uni[8] = { "\xe2\x96\x81", "\xe2\x96\x82",
		"\xe2\x96\x83", "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
		"\xe2\x96\x87", "\xe2\x96\x88" };
	static const char *const blocks_ascii[8] = { "_", ".", ",", "-", "~", "=", "*", "#" };

	v->ellipsis = uni ? "\xe2\x80\xa6" : "~";
	v->arrow_down = uni ? "\xe2\x96\xbc" : "v";
	v->arrow_up = uni ? "\xe2\x96\xb2" : "^";
	v->delta = uni ? "\xce\x94" : "d";
	for (int i = 0; i < 8; i++)
		v->blocks[i] = uni_blocks ? blocks_uni[i] : blocks_ascii[i];
	v->gap_mark = uni_blocks ? "\xc2\xa6" : "|";
	v->axis_v = uni_blocks ? "\xe2\x94\x82" : "|";
	v->axis_h = uni_blocks ? "\xe2\x94\x80" : "-";
	v->axis_corner = uni_blocks ? "\xe2\x94\x94" : "+";
	v->braille = braille;
}

struct view *view_create(const struct view_settings *s)
{
	struct view *v = xcalloc(1, sizeof(*v));

	if (s)
		v->s = *s;
	else
		v->s.sort = COL_SELF_PCT;
	/* (a change against a baseline: none is pinned yet) */
	if ((unsigned)v->s.sort >= COL_DSELF_PCT)
		v->s.sort = COL_SELF_PCT;
	if ((unsigned)v->s.mode >= MODE_COUNT)
		v->s.mode = MODE_WINDOW;
	if (!(v->s.threshold_pct >= 0) || v->s.threshold_pct > 100)
		v->s.threshold_pct = 0;
	v->s.filter[sizeof(v->s.filter) - 1] = '\0';
	v->screen = VS_TABLE;
	v->blk_sel = UINT64_MAX;
	v->sel_func = VIEW_NONE;
	v->detail = VIEW_NONE;
	v->page_rows = 10;
	v->zoom = VZ_5MIN;
	view_set_glyphs(v, false, false, false);
	return v;
}

void view_free(struct view *v)
{
	if (!v)
		return;
	free(v->all);
	free(v->rows);
	for (int i = 0; i < MODE_COUNT; i++)
		free(v->frozen[i]);
	free(v->callers);
	free(v->callees);
	free(v);
}

const struct view_settings *view_settings(const struct view *v)
{
	return &v->s;
}

bool view_paused(const struct view *v)
{
	return v->paused;
}

uint32_t view_detail_func(const struct view *v)
{
	return v->screen == VS_DETAIL ? v->detail : UINT32_MAX;
}

/* --- shared helpers --- */

const struct func_info *view_func(const struct model *m, uint32_t func)
{
	if (!m->ft || func >= functab_count(m->ft))
		return NULL;
	return functab_get(m->ft, func);
}

const char *view_func_name(const struct model *m, uint32_t func)
{
	const struct func_info *fi = view_func(m, func);

	if (!fi || !fi->name)
		return "(unknown)";
	/* the original sources' name (a source map), unless g asked for V8's */
	return m->show_generated ? functab_display_name(fi) : functab_shown_name(fi);
}

void view_func_location(const struct model *m, uint32_t func, bool with_column, char *out,
	size_t outsz)
{
	const struct func_info *fi = view_func(m, func);
	bool orig = fi && fi->mapped && !m->show_generated;
	const char *url;
	long line, col;

	out[0] = '\0';
	if (!fi || !fi->url || !fi->url[0])
		return;
	url = util_display_url(orig ? fi->orig_url : fi->url);
	line = orig ? fi->orig_line : fi->line;
	col = orig ? fi->orig_column : fi->column;
	/* V8's lines and columns are 0-based; editors count from 1. */
	if (line >= 0 && with_column && col >= 0)
		snprintf(out, outsz, "%s:%ld:%ld", url, line + 1, col + 1);
	else if (line >= 0)
		snprintf(out, outsz, "%s:%ld", url, line + 1);
	else
		snprintf(out, outsz, "%s", url);
}

bool view_func_internal(const struct model *m, uint32_t func)
{
	const struct func_info *fi = view_func(m, func);

	return fi && functab_is_internal(fi);
}

static int view_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* ASCII case folding is enough for names and paths; other bytes compare as they are. */
bool view_contains_ci(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);

	if (nl == 0)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < nl && hay[i] && view_lower((unsigned char)hay[i]) ==
			view_lower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

bool view_row_matches(const struct model *m, uint32_t func, const char *needle)
{
	char loc[1024];

	if (view_contains_ci(view_func_name(m, func), needle))
		return true;
	view_func_location(m, func, false, loc, sizeof(loc));
	return view_contains_ci(loc, needle);
}

void view_fmt_time(double us, char *out, size_t outsz)
{
	double s = isfinite(us) && us > 0 ? us / 1e6 : 0;
	long t;

	if (s < 59.995) {
		snprintf(out, outsz, "%.2fs", s);
		return;
	}
	t = lround(s);
	if (t < 3600)
		snprintf(out, outsz, "%ldm%02lds", t / 60, t % 60);
	else if ((t = lround(s / 60)) < 100 * 60)
		snprintf(out, outsz, "%ldh%02ldm", t / 60, t % 60);
	else
		snprintf(out, outsz, "%.0fh", s / 3600);
}

void view_fmt_pct(double pct, char *out, size_t outsz)
{
	if (!isfinite(pct) || pct < 0)
		pct = 0;
	snprintf(out, outsz, "%.1f%%", pct);
}

enum grid_attr view_heat(double pct)
{
	if (pct >= 40)
		return GA_HEAT4;
	if (pct >= 15)
		return GA_HEAT3;
	if (pct >= 5)
		return GA_HEAT2;
	if (pct >= 1)
		return GA_HEAT1;
	return GA_NORMAL;
}

static void view_fmt_secs(double s, char *out, size_t outsz)
{
	if (!isfinite(s) || s <= 0)
		snprintf(out, outsz, "?");
	else if (s >= 100)
		snprintf(out, outsz, "%.0fs", s);
	else
		snprintf(out, outsz, "%.3gs", s);
}

void view_mode_label(const struct model *m, enum model_mode mode, char *out, size_t outsz)
{
	char secs[32];

	switch (mode) {
	case MODE_WINDOW:
		view_fmt_secs(m->delay_s > 0 ? m->delay_s : m->last_window_ms / 1000, secs,
			sizeof(secs));
		snprintf(out, outsz, "%s", secs);
		break;
	case MODE_DECAYED:
		view_fmt_secs(m->half_life_s, secs, sizeof(secs));
		snprintf(out, outsz, "avg %s", secs);
		break;
	default:
		snprintf(out, outsz, "all");
		break;
	}
}

int view_put_fit(const struct view *v, struct grid *g, int x, int y, enum grid_attr attr,
	const char *text, int cols, bool from_left)
{
	int tc, w;

	if (cols <= 0)
		return 0;
	tc = grid_text_cols(text);
	if (tc <= cols)
		return grid_put(g, x, y, attr, text, cols);
	if (cols == 1)
		return grid_put(g, x, y, attr, v->ellipsis, 1);
	if (!from_left) {
		w = grid_put(g, x, y, attr, text, cols - 1);
		return w + grid_put(g, x + w, y, attr, v->ellipsis, 1);
	}
	/* Drop characters from the left until the rest fits after the ellipsis. */
	{
		size_t len = strlen(text), i = 0;
		while (i < len && tc > cols - 1) {
			char one[5];
			size_t n = util_utf8_seq(text + i, len - i);
			if (n == 0)
				n = 1;
			memcpy(one, text + i, n);
			one[n] = '\0';
			tc -= grid_text_cols(one);
			i += n;
		}
		w = grid_put(g, x, y, attr, v->ellipsis, 1);
		return w + grid_put(g, x + w, y, attr, text + i, cols - w);
	}
}

void view_put_right(struct grid *g, int x, int y, enum grid_attr attr, const char *text, int cols)
{
	int w = grid_text_cols(text);

	if (cols <= 0)
		return;
	if (w > cols)
		grid_put(g, x, y, attr, text, cols);
	else
		grid_put(g, x + cols - w, y, attr, text, w);
}

/* The key bar (ASCII) cut after the last whole "key action" pair that fits. */
static void view_put_keys(struct grid *g, int x, int y, const char *keys)
{
	size_t room = x < g->width ? (size_t)(g->width - x) : 0, cut = strlen(keys);

	if (cut > room) {
		const char *p = keys;
		cut = 0;
		while ((p = strstr(p, "  ")) && (size_t)(p - keys) <= room) {
			cut = (size_t)(p - keys);
			p += 2;
		}
		if (cut == 0)
			cut = room;
	}
	grid_put(g, x, y, GA_KEYBAR, keys, (int)cut);
}

int view_status_line(int height)
{
	return height >= 6 ? height - 2 : -1;
}

int view_put_at(struct grid *g, int x, int y, enum grid_attr attr, const char *text)
{
	return x + grid_put(g, x, y, attr, text, 0);
}

int view_draw_bottom(struct view *v, const struct model *m, struct grid *g, const char *keys)
{
	int y = g->height - 1, sy = view_status_line(g->height), x = 0;

	if (y < 0)
		return 0;
	if (v->prompt == VP_SNAPSHOT || v->prompt == VP_START_CPU || v->prompt == VP_ALLOC) {
		char q[512];
		const char *p = q;
		int w = g->width, n_lines = 0, start[3], len[3];

		/* The question (ASCII) wraps at spaces over as many of the bottom lines as it needs,
		 * three at most. */
		if (v->prompt == VP_SNAPSHOT)
			view_snapshot_question(m, q, sizeof(q));
		else if (v->prompt == VP_ALLOC)
			view_alloc_question(m, q, sizeof(q));
		else
			view_start_cpu_question(m, q, sizeof(q));
		while (*p && n_lines < 3) {
			int l = (int)strlen(p), cut = l;
			if (l > w) {
				cut = w;
				while (cut > 0 && p[cut] != ' ')
					cut--;
				if (cut == 0)
					cut = w;
			}
			start[n_lines] = (int)(p - q);
			len[n_lines++] = cut;
			p += cut;
			while (*p == ' ')
				p++;
		}
		if (n_lines > g->height)
			n_lines = g->height;
		for (int i = 0; i < n_lines; i++) {
			int ly = g->height - n_lines + i;
			grid_fill_attr(g, 0, ly, w, GA_WARN);
			grid_put(g, 0, ly, GA_WARN, q + start[i], len[i]);
		}
		return g->height - n_lines;
	}
	if (v->prompt != VP_NONE) {
		const char *label = v->prompt == VP_SEARCH ? "Search: " : "Filter: ";
		x = grid_put(g, 0, y, GA_KEYBAR, label, 0);
		x += grid_put(g, x, y, GA_NORMAL, v->input, 0);
		x += grid_put(g, x, y, GA_KEYBAR, "_", 0);
		if (x + 30 < g->width)
			grid_put(g, x + 2, y, GA_DIM, v->prompt == VP_SEARCH ?
				"Enter: find  Esc: cancel" : "Enter: apply (empty clears)  Esc: cancel", 0);
	} else {
		grid_fill_attr(g, 0, y, g->width, GA_KEYBAR);
		if (v->paused)
			x = grid_put(g, 0, y, GA_WARN, "PAUSED ", 0);
		view_put_keys(g, x, y, keys);
	}
	if (sy < 0)
		return y;
	if (v->msg[0])
		grid_put(g, 0, sy, GA_WARN, v->msg, 0);
	else if (m->status[0])
		grid_put(g, 0, sy, m->status_is_error ? GA_WARN : GA_STATUS, m->status, 0);
	return sy;
}

/* --- keys --- */

static void view_input_append(struct view *v, int key)
{
	char u[4];
	size_t n;

	if (key < 0x80) {
		u[0] = (char)key;
		n = 1;
	} else if (key < 0x800) {
		u[0] = (char)(0xc0 | (key >> 6));
		u[1] = (char)(0x80 | (key & 0x3f));
		n = 2;
	} else {
		u[0] = (char)(0xe0 | (key >> 12));
		u[1] = (char)(0x80 | ((key >> 6) & 0x3f));
		u[2] = (char)(0x80 | (key & 0x3f));
		n = 3;
	}
	if (v->input_len + n >= sizeof(v->input))
		return;
	memcpy(v->input + v->input_len, u, n);
	v->input_len += n;
	v->input[v->input_len] = '\0';
}

/* --- starting the CPU profiler (--no-cpu) --- */

const char *view_no_target(const struct model *m)
{
	return m->replay ? "A replay has no live target" : "No target is connected";
}

const char *view_link_badge(const struct model *m, enum grid_attr *attr)
{
	*attr = m->replay ? GA_DIM : GA_WARN;
	return m->replay ? "REPLAY" : !m->connected ? "DISCONNECTED" : NULL;
}

int view_put_incidents(const struct model *m, struct grid *g, int x, int y)
{
	char buf[64];

	if (!m->incidents_total)
		return x;
	snprintf(buf, sizeof buf, "INCIDENTS %llu (I)", (unsigned long long)m->incidents_total);
	return view_put_at(g, x, y, GA_WARN, buf);
}

int view_put_link(const struct model *m, struct grid *g, int x, int y)
{
	enum grid_attr attr;
	const char *badge = view_link_badge(m, &attr);

	if (badge) {
		x = view_put_at(g, x, y, attr, "  ");
		x = view_put_at(g, x, y, attr, badge);
	}
	if (m->incidents_total) {
		x = view_put_at(g, x, y, GA_NORMAL, "  ");
		x = view_put_incidents(m, g, x, y);
	}
	return x;
}

/* Sets the view's message and returns true if the profiler cannot be started now. */
static bool start_cpu_refused(struct view *v, const struct model *m)
{
	if (!m->connected)
		snprintf(v->msg, sizeof(v->msg), "%s: no CPU profiler to start.", view_no_target(m));
	else if (m->cpu_starting)
		snprintf(v->msg, sizeof(v->msg), "The CPU profiler is starting.");
	else if (!m->cpu_off)
		snprintf(v->msg, sizeof(v->msg), "The CPU profiler is already running.");
	else if (m->cpu_refused[0])
		snprintf(v->msg, sizeof(v->msg), "%s", m->cpu_refused);
	else
		return false;
	return true;
}

/* The latest heap used, for a question ("unknown" before the first reading). */
static void heap_now(const struct model *m, char *out, size_t outsz)
{
	const struct mem_sample *last = view_mem_last(m);
	double heap = last ? last->v[MEM_HEAP_USED] : NAN;

	snprintf(out, outsz, "unknown");
	if (isfinite(heap))
		view_fmt_bytes(heap, out, outsz);
}

void view_start_cpu_question(const struct model *m, char *out, size_t outsz)
{
	char h[32], p[48];

	heap_now(m, h, sizeof(h));
	if (isfinite(m->cpu_pause_s)) {
		pause_format(m->cpu_pause_s, p, sizeof(p));
		snprintf(out, outsz, "Start the CPU profiler? It will pause the target %s while V8 "
			"lists its code (heap %s). y/n", p, h);
		return;
	}
	/* The sizes are measured (doc/bench/pause.md). */
	snprintf(out, outsz, "Start the CPU profiler? The target pauses while V8 lists its code: "
		"about 0.1 s for a small app, 1 to 1.6 s with a 2 GB heap (heap now %s). y/n", h);
}

void view_alloc_question(const struct model *m, char *out, size_t outsz)
{
	char h[32], p[48];

	heap_now(m, h, sizeof(h));
	pause_format(m->gc_pause_s, p, sizeof(p));
	snprintf(out, outsz, "Start allocation sampling? Each profile fetch forces a full GC, which "
		"will pause the target %s (heap %s). y/n", p, h);
}

enum view_action view_alloc_ask(struct view *v, const struct model *m)
{
	if (!m->connected) {
		snprintf(v->msg, sizeof(v->msg), "%s: no allocation sampling.", view_no_target(m));
		return VA_REDRAW;
	}
	if (!m->alloc_on && isfinite(m->gc_pause_s) && m->gc_pause_s > m->max_pause_s) {
		v->prompt = VP_ALLOC;
		return VA_REDRAW;
	}
	return VA_ALLOC_TOGGLE;
}

enum view_action view_start_cpu_ask(struct view *v, const struct model *m)
{
	if (start_cpu_refused(v, m))
		return VA_REDRAW;
	v->prompt = VP_START_CPU;
	return VA_REDRAW;
}

static enum view_action view_prompt_key(struct view *v, const struct model *m, int key)
{
	if (v->prompt == VP_SNAPSHOT) {
		v->prompt = VP_NONE;
		if (key != 'y' && key != 'Y')
			return VA_REDRAW; /* anything else cancels */
		if (m->snapshot_running) {
			snprintf(v->msg, sizeof(v->msg),
				"heap snapshot in progress: wait for it to finish");
			return VA_REDRAW;
		}
		return VA_SNAPSHOT;
	}
	if (v->prompt == VP_ALLOC) {
		v->prompt = VP_NONE;
		return key == 'y' || key == 'Y' ? VA_ALLOC_TOGGLE : VA_REDRAW;
	}
	if (v->prompt == VP_START_CPU) {
		v->prompt = VP_NONE;
		if (key != 'y' && key != 'Y')
			return VA_REDRAW;
		return start_cpu_refused(v, m) ? VA_REDRAW : VA_START_CPU;
	}
	switch (key) {
	case VK_ESC:
		v->prompt = VP_NONE;
		return VA_REDRAW;
	case VK_ENTER:
	case '\n':
	case '\r':
		if (v->prompt == VP_FILTER) {
			v->prompt = VP_NONE;
			snprintf(v->s.filter, sizeof(v->s.filter), "%s", v->input);
			return VA_SETTINGS;
		}
		v->prompt = VP_NONE;
		snprintf(v->search, sizeof(v->search), "%s", v->input);
		if (v->search[0] && !view_search_next(v, m, false))
			snprintf(v->msg, sizeof(v->msg), "No function or location contains \"%s\".",
				v->search);
		return VA_REDRAW;
	case VK_BACKSPACE:
	case 127:
	case 8:
		while (v->input_len > 0) {
			unsigned char c = (unsigned char)v->input[--v->input_len];
			if ((c & 0xc0) != 0x80)
				break; /* the first byte of the last character */
		}
		v->input[v->input_len] = '\0';
		return VA_REDRAW;
	case 21: /* Ctrl-U */
		v->input_len = 0;
		v->input[0] = '\0';
		return VA_REDRAW;
	default:
		if ((key >= 0x20 && key < 0x7f) ||
		    (key >= 0xa0 && key < 0x10000 && (key < 0xd800 || key > 0xdfff))) {
			view_input_append(v, key);
			return VA_REDRAW;
		}
		return VA_NONE;
	}
}

void view_table_freeze(struct view *v, const struct model *m)
{
	for (int i = 0; i < MODE_COUNT; i++) {
		v->n_frozen[i] = model_rows(m, (enum model_mode)i, &v->frozen[i], &v->frozen_cap[i]);
		v->frozen_split[i] = model_split(m, (enum model_mode)i);
	}
}

void view_baseline_changed(struct view *v, const struct model *m)
{
	if (v->paused)
		view_table_freeze(v, m);
}

/* --- the keys shared by every screen with shared_keys --- */

static enum view_action shared_help(struct view *v, const struct model *m, int key)
{
	v->help_from = v->screen;
	v->screen = VS_HELP;
	v->help_top = 0;
	return VA_REDRAW;
}

static enum view_action shared_quit(struct view *v, const struct model *m, int key)
{
	return VA_QUIT;
}

static enum view_action shared_reset(struct view *v, const struct model *m, int key)
{
	return VA_RESET;
}

static enum view_action shared_save(struct view *v, const struct model *m, int key)
{
	return VA_SAVE;
}

static enum view_action shared_start_cpu(struct view *v, const struct model *m, int key)
{
	return view_start_cpu_ask(v, m);
}

static enum view_action shared_thread(struct view *v, const struct model *m, int key)
{
	if (!m->threads_watched || m->n_threads < 2) {
		snprintf(v->msg, sizeof v->msg, m->threads_watched ? "the target has no worker "
			"thread" : "worker threads are not watched (--no-workers)");
		return VA_REDRAW;
	}
	return VA_THREAD;
}

static enum view_action shared_generated(struct view *v, const struct model *m, int key)
{
	return VA_GENERATED;
}

/* On the screen it opens, T is that screen's own key (back). */
static enum view_action shared_all(struct view *v, const struct model *m, int key)
{
	if (!m->threads_watched || m->n_threads < 2) {
		snprintf(v->msg, sizeof v->msg, "T shows every thread and process side by side: "
			"there is only one here");
		return VA_REDRAW;
	}
	if (v->screen == VS_ALL)
		return VIEW_UNHANDLED;
	v->screen = VS_ALL;
	v->all_top = 0;
	return VA_REDRAW;
}

static enum view_action shared_evloop(struct view *v, const struct model *m, int key)
{
	v->screen = v->screen == VS_EVLOOP ? VS_TABLE : VS_EVLOOP;
	v->blk_stack = false;
	return VA_REDRAW;
}

static enum view_action shared_requests(struct view *v, const struct model *m, int key)
{
	v->screen = v->screen == VS_REQUESTS ? VS_TABLE : VS_REQUESTS;
	v->req_open = false;
	return VA_REDRAW;
}

static enum view_action shared_incidents(struct view *v, const struct model *m, int key)
{
	v->screen = v->screen != VS_INCIDENTS ? VS_INCIDENTS : m->replay ? VS_MEMORY : VS_TABLE;
	v->inc_open = false;
	v->inc_sel = v->inc_top = 0;
	v->inc_seen_total = m->incidents_total;
	return VA_REDRAW;
}

static enum view_action shared_window(struct view *v, const struct model *m, int key)
{
	v->s.mode = (enum model_mode)((v->s.mode + 1) % MODE_COUNT);
	return VA_SETTINGS;
}

static enum view_action shared_pause(struct view *v, const struct model *m, int key)
{
	v->paused = !v->paused;
	v->mem_frozen_end_s = 0;
	if (v->paused)
		view_table_freeze(v, m);
	return VA_REDRAW;
}

/* Ctrl-C (3) quits before any table is asked, even at a prompt; its row is for help. */
const struct binding view_shared_bindings[] = {
	{ { 'q', 3 }, "q, Ctrl-C", "quit (on this screen q only comes back)", 1, shared_quit },
	{ { '?', 'h', VK_F1 }, "?, h, F1", "this help", 2, shared_help },
	{ { 'w' }, "w", "percentages over the last window, then a decayed average, then since "
		"attach", 5, shared_window },
	{ { 'p', ' ' }, "p, space", "pause the display: sampling goes on, and scrolling, sorting, "
		"search and filter still work on the frozen rows", 6, shared_pause },
	{ { 'r' }, "r", "reset the counters: SELF/TOTAL times, averages, call tree", 15,
		shared_reset },
	{ { 's' }, "s", "save the profile collected so far", 16, shared_save },
	{ { 't' }, "t", "show the next thread: the main thread, then each worker "
		"(worker_threads), then each other process watched (--pid again, --children, "
		"--match); the table, details, memory and loop screens are that thread's, s saves "
		"its profile", 18, shared_thread },
	{ { 'g' }, "g", "names, files and lines as V8 gives them (compiled, bundled code) or, by "
		"default, as the scripts' source maps trace them back (TypeScript, the bundle's "
		"modules)", 19, shared_generated },
	{ { 'T' }, "T", "every thread and process watched side by side: each one's hottest "
		"functions in its latest window, with the thread or process they ran in (T or Esc "
		"comes back)", 20, shared_all },
	{ { 'l' }, "l", "the event-loop screen: the loop's reading, its charts and the blocks (l "
		"or Esc comes back)", 21, shared_evloop },
	{ { 'e' }, "e", "the requests screen: the HTTP routes (rate, in flight, p50, p99, max, "
		"errors, what they wait on) and the destinations called, over the last window or "
		"since attach (w) (e or Esc comes back)", 25, shared_requests },
	{ { 'I' }, "I", "the incidents screen: what --trigger caught (live, or in --replay's log), "
		"newest first, each opened for its hottest functions and its bundle (I or Esc comes "
		"back)", 26, shared_incidents },
	{ { 'c' }, "c", "start the CPU profiler when it is off (--no-cpu, or held back by "
		"--max-pause), after a y/n confirmation with the predicted pause (V8 lists its code)",
		22, shared_start_cpu },
};
const size_t view_n_shared_bindings = sizeof(view_shared_bindings) /
	sizeof(view_shared_bindings[0]);

const struct binding *view_binding_find(const struct binding *b, size_t n, int key)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < VIEW_BINDING_KEYS && b[i].keys[k]; k++)
			if (b[i].keys[k] == key)
				return &b[i];
	return NULL;
}

/* Runs the row of b[0..n) that lists key; VIEW_UNHANDLED when none does. */
static enum view_action view_run(const struct binding *b, size_t n, struct view *v,
	const struct model *m, int key)
{
	const struct binding *r = key ? view_binding_find(b, n, key) : NULL;

	return r ? r->act(v, m, key) : VIEW_UNHANDLED;
}

void view_thread_changed(struct view *v)
{
	v->sel_func = VIEW_NONE;
	v->sel = v->top = 0;
	v->depth = 0;
	v->detail_sel = 0;
	v->paused = false;
	v->mem_frozen_end_s = 0;
	v->blk_sel = UINT64_MAX;
	v->blk_top = 0;
	v->blk_stack = false;
	if (v->screen == VS_DETAIL)
		v->screen = VS_TABLE;
}

void view_show_memory(struct view *v)
{
	v->screen = VS_MEMORY;
}

/* The screens by number; an unknown one shows the table. */
static const struct screen *const view_screens[] = {
	[VS_TABLE] = &screen_table,
	[VS_DETAIL] = &screen_detail,
	[VS_HELP] = &screen_help,
	[VS_MEMORY] = &screen_memory,
	[VS_EVLOOP] = &screen_evloop,
	[VS_ALL] = &screen_all,
	[VS_REQUESTS] = &screen_requests,
	[VS_INCIDENTS] = &screen_incidents,
};

const struct screen *view_screen_at(size_t i)
{
	return i < sizeof(view_screens) / sizeof(view_screens[0]) ? view_screens[i] : NULL;
}

static const struct screen *view_screen_now(const struct view *v)
{
	size_t i = (size_t)v->screen;

	if (i < sizeof(view_screens) / sizeof(view_screens[0]) && view_screens[i])
		return view_screens[i];
	return &screen_table;
}

enum view_action view_key(struct view *v, const struct model *m, int key)
{
	const struct screen *s = view_screen_now(v);
	bool had_msg = v->msg[0] != '\0';
	enum view_action a = VIEW_UNHANDLED;

	v->msg[0] = '\0';
	if (key == 3) /* Ctrl-C */
		return VA_QUIT;
	if (key == VK_RESIZE)
		return VA_REDRAW;
	if (v->prompt != VP_NONE)
		a = view_prompt_key(v, m, key);
	else {
		if (s->shared_keys)
			a = view_run(view_shared_bindings, view_n_shared_bindings, v, m, key);
		if (a == VIEW_UNHANDLED)
			a = view_run(s->bindings, s->n_bindings, v, m, key);
		if (a == VIEW_UNHANDLED)
			a = VA_NONE;
	}
	return a == VA_NONE && had_msg ? VA_REDRAW : a;
}

void view_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	/* The ellipsis, arrows, blocks and braille only where the locale can show them (ncurses
	 * agrees: it measures with the same wcwidth). */
	bool uni = wcwidth(0x2026) == 1 && wcwidth(0x25bc) == 1 && wcwidth(0x25b2) == 1 &&
		wcwidth(0x394) == 1;
	bool uni_blocks = wcwidth(0x2581) == 1 && wcwidth(0x2588) == 1 && wcwidth(0xa6) == 1 &&
		wcwidth(0x2500) == 1 && wcwidth(0x2502) == 1 && wcwidth(0x2514) == 1;
	bool braille = wcwidth(0x2800) == 1 && wcwidth(0x2801) == 1 && wcwidth(0x28ff) == 1;

	view_set_glyphs(v, uni, uni_blocks, braille);
	if (!v->paused)
		v->mem_frozen_end_s = 0;
	grid_clear(g);
	if (g->width <= 0 || g->height <= 0)
		return;
	view_screen_now(v)->draw(v, m, g, now_wall_s);
}
