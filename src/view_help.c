/* view_help.c: the help screen: what every column means (with the window and unit of the
 * percentages as they are now), every key and each screen's section, wrapped to the
 * terminal's width. The keys and the sections are read from the key tables the view
 * dispatches through (view.c's shared keys, each struct screen's bindings). Scrolls when the
 * terminal is short. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "util.h"
#include "view_priv.h"

#define HELP_KEYS "Esc, q or ? back  Up/Down/PgUp/PgDn scroll"
#define HELP_LABEL_COLS 18

struct help_entry {
	bool section;   /* a title or a paragraph, without a label */
	char label[48];
	char text[320];
};

struct help_list {
	struct help_entry *e;
	size_t n, max;
};

static void help_section(struct help_list *l, const char *text)
{
	if (l->n == l->max)
		return;
	l->e[l->n].section = true;
	l->e[l->n].label[0] = '\0';
	snprintf(l->e[l->n].text, sizeof(l->e[l->n].text), "%s", text);
	l->n++;
}

__attribute__((format(printf, 3, 4)))
static void help_entry(struct help_list *l, const char *label, const char *fmt, ...)
{
	va_list ap;

	if (l->n == l->max)
		return;
	l->e[l->n].section = false;
	snprintf(l->e[l->n].label, sizeof(l->e[l->n].label), "%s", label);
	va_start(ap, fmt);
	vsnprintf(l->e[l->n].text, sizeof(l->e[l->n].text), fmt, ap);
	va_end(ap);
	l->n++;
}

#define SECTION(t) help_section(L, t)
#define ENTRY(lab, ...) help_entry(L, lab, __VA_ARGS__)

/* The columns, with the window and unit of the percentages as they are now. */
static void help_columns(struct help_list *L, const struct model *m)
{
	char win[32], avg[32], label[3][48];

	view_mode_label(m, MODE_WINDOW, win, sizeof(win));
	view_mode_label(m, MODE_DECAYED, avg, sizeof(avg));
	snprintf(label[0], sizeof(label[0]), "SELF%%(%s)", win);
	snprintf(label[1], sizeof(label[1]), "SELF%%(%s)", avg);
	snprintf(label[2], sizeof(label[2]), "SELF%%(all)");

	SECTION("ntop-js shows the hot JavaScript functions of a running Node.js process.");
	SECTION("");
	SECTION("COLUMNS");
	ENTRY(label[0], "share of the sampled time spent in the function's own code during the "
		"last window (%s)", win);
	/* The decayed label is "avg <half-life>". */
	ENTRY(label[1], "the same as a decayed average: a window's weight halves every %s "
		"(the half-life)", avg + 4);
	ENTRY(label[2], "the same since attach or the last reset (r)");
	ENTRY("TOTAL%(...)", "share spent in the function and everything it calls, over the same "
		"window; a recursive function counts once per sample, so it never exceeds 100%%");
	ENTRY("SELF(tot)", "time in the function's own code since attach or the last reset");
	ENTRY("TOTAL(tot)", "time in the function and its callees since attach or the last reset");
	ENTRY("\xce\x94SELF \xce\x94TOTAL", "with a baseline pinned (b, or --baseline FILE): the "
		"function's SELF%% and TOTAL%% now minus its shares in the baseline, in points of one "
		"core (a point is 10 ms of CPU a second); a function of the baseline with no time now "
		"keeps a row with its loss");
	ENTRY("FUNCTION", "the function's name; without one, (native code), (evaluated code) or (anonymous)");
	ENTRY("LOCATION", "file:line, counting lines from 1; long paths lose their start");
	ENTRY("CPU line", "the sampled time split into JS (JavaScript), GC (garbage collector), "
		"program (native and VM work outside JS) and idle (the event loop waiting); then, "
		"from the kernel, the share of the last window the thread was ready to run but waited "
		"for a CPU (waited), and the share of its cgroup's CPU quota periods that ran out "
		"(throttled, with the quota in cores), in red from 10%%");
	ENTRY("REQ line", "once the target served HTTP: the last window's requests a second, their "
		"p99, the share of errors (5xx, aborted), the route with the highest p99, and the "
		"calls it made to other servers a second with their p99; \"(1 in N followed)\" above "
		"200 requests a second, where the figures are estimates");
	ENTRY("MEM line", "the target's resident memory (rss), V8 heap used/total, how fast the "
		"heap's post-GC floor grows per hour over the growth window, the verdict (growing, "
		"stable, shrinking or unknown) and a sparkline of heap used over the last 5 minutes");
	ENTRY("warnings", "LATE WINDOWS: profiles came late, sampling is behind; DISCONNECTED: "
		"the target is gone; REPLAY: a --log file shown, no target behind it; PAUSED: the display "
		"is frozen");
}

/* The row of b[0..n) at rank in help's KEYS list, or NULL. */
static const struct binding *help_at_rank(const struct binding *b, size_t n, int rank)
{
	for (size_t i = 0; i < n; i++)
		if (b[i].label && b[i].rank == rank)
			return &b[i];
	return NULL;
}

/* KEYS: the listed rows of the shared keys' table and of every screen's, by rank (a row
 * several screens bind is listed once). */
static void help_keys(struct help_list *L)
{
	const struct screen *s;
	int last = 0;

	for (size_t i = 0; i < view_n_shared_bindings; i++)
		if (view_shared_bindings[i].rank > last)
			last = view_shared_bindings[i].rank;
	for (size_t i = 0; (s = view_screen_at(i)); i++)
		for (size_t k = 0; k < s->n_bindings; k++)
			if (s->bindings[k].rank > last)
				last = s->bindings[k].rank;
	SECTION("");
	SECTION("KEYS");
	for (int rank = 1; rank <= last; rank++) {
		const struct binding *b = help_at_rank(view_shared_bindings,
			view_n_shared_bindings, rank);

		for (size_t i = 0; !b && (s = view_screen_at(i)); i++)
			b = help_at_rank(s->bindings, s->n_bindings, rank);
		if (b)
			ENTRY(b->label, "%s", b->help);
	}
}

/* Each screen's section: its title, then its rows of rank 0 that have a label. */
static void help_screens(struct help_list *L)
{
	const struct screen *s;
	int last = 0;

	for (size_t i = 0; (s = view_screen_at(i)); i++)
		if (s->help_section > last)
			last = s->help_section;
	for (int k = 1; k <= last; k++)
		for (size_t i = 0; (s = view_screen_at(i)); i++) {
			if (s->help_section != k || !s->help_title)
				continue;
			SECTION("");
			SECTION(s->help_title);
			for (size_t r = 0; r < s->n_bindings; r++)
				if (s->bindings[r].label && s->bindings[r].rank == 0)
					ENTRY(s->bindings[r].label, "%s", s->bindings[r].help);
		}
}

#undef SECTION
#undef ENTRY

/* Fills e[] (room for max) and returns the count. */
static size_t help_entries(const struct model *m, struct help_entry *e, size_t max)
{
	struct help_list l = { e, 0, max };

	help_columns(&l, m);
	help_keys(&l);
	help_screens(&l);
	return l.n;
}

static void help_push(char ***lines, size_t *n, size_t *cap, char *line)
{
	*lines = xreallocarray_grow(*lines, cap, *n + 1, sizeof(**lines));
	(*lines)[(*n)++] = line;
}

/* Appends the lines of one entry: the label, then its text wrapped at spaces. */
static void help_wrap(const struct help_entry *e, int width, char ***lines, size_t *n,
	size_t *cap)
{
	const char *s = e->text;
	int indent = e->section ? 0 : HELP_LABEL_COLS, room = width - indent;
	char prefix[64] = "";

	if (!e->section) {
		if ((int)strlen(e->label) + 3 > indent)
			help_push(lines, n, cap, xasprintf("  %s", e->label)); /* too long: own line */
		else
			snprintf(prefix, sizeof(prefix), "  %-*s", indent - 2, e->label);
	}
	if (room < 10)
		room = 10;
	do {
		int len = (int)strlen(s), cut = len;

		if (len > room) {
			cut = room;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		if (prefix[0])
			help_push(lines, n, cap, xasprintf("%s%.*s", prefix, cut, s));
		else
			help_push(lines, n, cap, xasprintf("%*s%.*s", indent, "", cut, s));
		prefix[0] = '\0';
		s += cut;
		while (*s == ' ')
			s++;
	} while (*s);
}

static void help_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	struct help_entry e[96];
	size_t n_e = help_entries(m, e, 96), n = 0, cap = 0;
	char **lines = NULL;
	int bottom = view_draw_bottom(v, m, g, HELP_KEYS);

	for (size_t i = 0; i < n_e; i++)
		help_wrap(&e[i], g->width, &lines, &n, &cap);
	v->help_lines = (int)n;
	v->help_page = bottom > 1 ? bottom : 1;
	if (v->help_top > v->help_lines - v->help_page)
		v->help_top = v->help_lines - v->help_page;
	if (v->help_top < 0)
		v->help_top = 0;
	for (int y = 0; y < bottom && (size_t)(v->help_top + y) < n; y++) {
		const char *s = lines[v->help_top + y];
		bool title = s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z';
		grid_put(g, 0, y, title ? GA_TITLE : GA_NORMAL, s, 0);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* Back to the screen help was opened from (the table for any other). */
static enum view_action help_back(struct view *v, const struct model *m, int key)
{
	v->screen = v->help_from == VS_DETAIL || v->help_from == VS_MEMORY ? v->help_from
		: VS_TABLE;
	return VA_REDRAW;
}

static enum view_action help_scroll(struct view *v, const struct model *m, int key)
{
	int old = v->help_top, page = v->help_page > 1 ? v->help_page : 1;

	switch (key) {
	case VK_UP: v->help_top--; break;
	case VK_DOWN: v->help_top++; break;
	case VK_PGUP: v->help_top -= page; break;
	case VK_HOME: v->help_top = 0; break;
	case VK_END: v->help_top = v->help_lines; break;
	default: v->help_top += page; break; /* PgDn, space */
	}
	if (v->help_top > v->help_lines - page)
		v->help_top = v->help_lines - page;
	if (v->help_top < 0)
		v->help_top = 0;
	return v->help_top != old ? VA_REDRAW : VA_NONE;
}

/* Help takes no shared key: its own are in its key bar. */
static const struct binding help_bindings[] = {
	{ { VK_ESC, VK_BACKSPACE, 127, 'q', '?', 'h', VK_F1 }, NULL, NULL, 0, help_back },
	{ { VK_UP, VK_DOWN, VK_PGUP, VK_PGDN, ' ', VK_HOME, VK_END }, NULL, NULL, 0,
		help_scroll },
};

static const char *const help_key_bars[] = { HELP_KEYS, NULL };

const struct screen screen_help = {
	.name = "help",
	.key_bars = help_key_bars,
	.draw = help_draw,
	.bindings = help_bindings,
	.n_bindings = sizeof(help_bindings) / sizeof(help_bindings[0]),
	.shared_keys = false,
};
