/* view_incidents.c: the incidents screen (I): what --trigger caught, live or in --replay's log,
 * newest first: when, what fired, the value, the span its profile covers and its hottest
 * function; one selected (Up/Down) and opened (Enter) for its top functions and where its
 * bundle is. The rows are the model's (model.h), already bounded and made safe. */
#include "config.h"

#include "view_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define INC_KEYS "I/Esc back  Up/Down select  Enter open  m memory  l loop  ? help  q quit"

/* The i-th row shown (0: the newest). */
static const struct incident_summary *inc_row(const struct model *m, size_t i)
{
	return i < m->n_incidents ? &m->incidents[m->n_incidents - 1 - i] : NULL;
}

/* "03:12:45", with the date when it is not today's. */
static void inc_when(double t_s, double now_wall_s, char *out, size_t outsz)
{
	time_t t = t_s >= 0 && t_s < 253402300800.0 ? (time_t)t_s : 0, now = (time_t)now_wall_s;
	struct tm tm, tn;

	/* a time from a log file may be anything: past year 9999 it is not one */
	if (!(t_s >= 0 && t_s < 253402300800.0) || !localtime_r(&t, &tm) ||
	    !localtime_r(&now, &tn)) {
		snprintf(out, outsz, "?");
		return;
	}
	strftime(out, outsz, tm.tm_year == tn.tm_year && tm.tm_yday == tn.tm_yday ?
		"%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
}

/* What the trigger measured: "93 %", "512 ms", "2.1 GiB", "growing". */
static void inc_value(const struct incident_summary *s, char *out, size_t outsz)
{
	if (!isfinite(s->value))
		snprintf(out, outsz, "growing");
	else if (strcmp(s->unit, "bytes") == 0)
		view_fmt_bytes(s->value, out, outsz);
	else if (s->unit[0])
		snprintf(out, outsz, "%.0f %s", s->value, s->unit);
	else
		snprintf(out, outsz, "%.0f", s->value);
}

/* "-60s +10s": the profile from before the firing to after it. */
static void inc_span(const struct incident_summary *s, char *out, size_t outsz)
{
	snprintf(out, outsz, "-%.0fs +%.0fs", fmax(0, s->fired_s - s->from_s),
		fmax(0, s->to_s - s->fired_s));
}

/* The opened incident: what fired, what its profile covers, its top functions, its bundle. */
static void inc_detail(struct view *v, const struct incident_summary *s, struct grid *g, int y,
	int bottom, double now_wall_s)
{
	char buf[512], when[32], from[32], to[32], val[32], pct[16];
	int x;

	inc_when(s->fired_s, now_wall_s, when, sizeof when);
	inc_value(s, val, sizeof val);
	x = view_put_at(g, 0, y, GA_HEADER, "  ");
	x = view_put_fit(v, g, x, y, GA_HEADER, s->trigger, g->width - x, false) + x;
	snprintf(buf, sizeof buf, "  fired at %s, read %s", when, val);
	view_put_at(g, x, y++, GA_NORMAL, buf);
	if (y >= bottom)
		return;
	inc_when(s->from_s, now_wall_s, from, sizeof from);
	inc_when(s->to_s, now_wall_s, to, sizeof to);
	snprintf(buf, sizeof buf, "  its profile covers %s to %s (%.0f s)", from, to,
		fmax(0, s->to_s - s->from_s));
	view_put_at(g, 0, y++, GA_NORMAL, buf);
	if (y < bottom && s->name[0]) {
		x = view_put_at(g, 0, y, GA_DIM, "  bundle: ");
		snprintf(buf, sizeof buf, "%s%s%s", s->dir, s->dir[0] ? "/" : "", s->name);
		view_put_fit(v, g, x, y++, GA_NORMAL, buf, g->width - x, true);
	}
	if (++y >= bottom)
		return;
	if (!s->n_top) {
		view_put_at(g, 0, y, GA_DIM, "  Its profile holds no sample.");
		return;
	}
	view_put_at(g, 0, y++, GA_TITLE, "   SELF%  FUNCTION");
	for (size_t i = 0; i < s->n_top && y < bottom; i++, y++) {
		view_fmt_pct(s->top[i].self_pct, pct, sizeof pct);
		view_put_right(g, 0, y, GA_NORMAL, pct, 8);
		x = view_put_fit(v, g, 10, y, GA_NORMAL, s->top[i].function, g->width / 2 - 10,
			false) + 10;
		if (s->top[i].where[0])
			view_put_fit(v, g, x + 2, y, GA_DIM, s->top[i].where, g->width - x - 2, true);
	}
}

static void inc_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	int bottom = view_draw_bottom(v, m, g, INC_KEYS), y = 0, x, room;
	char buf[160], when[32], val[32], span[32];

	x = view_put_at(g, 0, y, GA_HEADER, "INCIDENTS");
	if (m->incidents_total > m->n_incidents)
		snprintf(buf, sizeof buf, "  the latest %zu of %llu", m->n_incidents,
			(unsigned long long)m->incidents_total);
	else
		snprintf(buf, sizeof buf, "  %zu", m->n_incidents);
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	{
		enum grid_attr attr;
		const char *badge = view_link_badge(m, &attr);

		if (badge)
			view_put_at(g, view_put_at(g, x, y, attr, "  "), y, attr, badge);
	}
	y++;
	if (!m->n_incidents) {
		if (y + 1 < bottom)
			view_put_at(g, 0, y + 1, GA_DIM, m->replay ? "The log holds no incident." :
				"No incident yet: --trigger arms them (with --incident-dir), "
				"see the man page.");
		return;
	}
	/* rows count from the newest: new ones move the selected incident down, and it stays */
	if (m->incidents_total > v->inc_seen_total && v->inc_seen_total &&
	    (v->inc_sel > 0 || v->inc_open))
		v->inc_sel += (size_t)(m->incidents_total - v->inc_seen_total);
	v->inc_seen_total = m->incidents_total;
	if (v->inc_sel >= m->n_incidents)
		v->inc_sel = m->n_incidents - 1;
	y++;
	if (y >= bottom)
		return;
	view_put_at(g, 0, y++, GA_TITLE, " WHEN                 TRIGGER               VALUE      "
		"SPAN        HOTTEST");
	room = bottom - y - (v->inc_open ? 12 : 0);
	if (room < 3)
		room = 3;
	if (v->inc_sel < v->inc_top)
		v->inc_top = v->inc_sel;
	if (v->inc_sel >= v->inc_top + (size_t)room)
		v->inc_top = v->inc_sel - (size_t)room + 1;
	for (size_t i = v->inc_top; i < m->n_incidents && y < bottom &&
	     (int)(i - v->inc_top) < room; i++, y++) {
		const struct incident_summary *s = inc_row(m, i);
		enum grid_attr a = i == v->inc_sel ? GA_SELECTED : GA_NORMAL;

		if (i == v->inc_sel)
			grid_put(g, 0, y, GA_SELECTED, "", g->width);
		inc_when(s->fired_s, now_wall_s, when, sizeof when);
		inc_value(s, val, sizeof val);
		inc_span(s, span, sizeof span);
		grid_put(g, 1, y, a, when, 20);
		view_put_fit(v, g, 22, y, a, s->trigger, 21, false);
		grid_put(g, 44, y, a, val, 10);
		grid_put(g, 55, y, a, span, 11);
		if (s->n_top && g->width > 67)
			view_put_fit(v, g, 67, y, a, s->top[0].function, g->width - 67, false);
	}
	if (v->inc_open && y + 1 < bottom)
		inc_detail(v, inc_row(m, v->inc_sel), g, y + 1, bottom, now_wall_s);
}

/* Esc closes an opened incident, then goes back (I, a shared key, goes back at once): to the
 * table, or to a replay's memory screen. */
static enum view_action inc_back(struct view *v, const struct model *m, int key)
{
	if (!v->inc_open)
		v->screen = m->replay ? VS_MEMORY : VS_TABLE;
	v->inc_open = false;
	return VA_REDRAW;
}

static enum view_action inc_move(struct view *v, const struct model *m, int key)
{
	size_t n = m->n_incidents;

	if (key == VK_UP && v->inc_sel > 0)
		v->inc_sel--;
	else if (key == VK_DOWN && v->inc_sel + 1 < n)
		v->inc_sel++;
	else if (key == VK_HOME)
		v->inc_sel = 0;
	else if (key == VK_END)
		v->inc_sel = n ? n - 1 : 0;
	return VA_REDRAW;
}

static enum view_action inc_open(struct view *v, const struct model *m, int key)
{
	v->inc_open = m->n_incidents > 0 && !v->inc_open;
	return VA_REDRAW;
}

static enum view_action inc_memory(struct view *v, const struct model *m, int key)
{
	v->screen = VS_MEMORY;
	return VA_REDRAW;
}

/* Help lists them in its section for this screen (rank 0). */
static const struct binding inc_bindings[] = {
	{ { VK_ESC, VK_BACKSPACE }, "Esc", "close the opened incident, then back to the table (as "
		"I at once)", 0, inc_back },
	{ { VK_UP, VK_DOWN, VK_HOME, VK_END }, "Up, Down", "select an incident (the newest is "
		"first)", 0, inc_move },
	{ { VK_ENTER, '\n', '\r' }, "Enter", "open or close the selected incident: what fired, "
		"the span its profile covers, its hottest functions and where its bundle is", 0,
		inc_open },
	{ { 'm' }, NULL, NULL, 0, inc_memory },
};

static const char *const inc_key_bars[] = { INC_KEYS, NULL };

const struct screen screen_incidents = {
	.name = "incidents",
	.key_bars = inc_key_bars,
	.draw = inc_draw,
	.bindings = inc_bindings,
	.n_bindings = sizeof(inc_bindings) / sizeof(inc_bindings[0]),
	.shared_keys = true,
	.help_title = "INCIDENTS SCREEN (I)",
	.help_section = 5,
};
