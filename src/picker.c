/* picker.c: see picker.h. */
#include "config.h"

#include "picker.h"
#include "discover.h"
#include "grid.h"
#include "term.h"
#include "util.h"
#include "keys.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

static const char *picker_signal_text(enum discover_signal s)
{
	return s == DISCOVER_SIGNAL_OK ? "yes" : s == DISCOVER_SIGNAL_DISABLED ? "disabled" : "?";
}

void picker_draw(const struct picker *p, struct grid *g)
{
	int rows = g->height - 4, y, x;
	size_t i;
	bool ctr = false;

	/* A CTR column (the PID inside a container) only when one of them runs in a container. */
	for (i = 0; i < p->n; i++)
		ctr = ctr || p->procs[i].container_pid > 0;
	x = ctr ? 8 : 0;
	grid_clear(g);
	grid_put(g, 0, 0, GA_HEADER, "ntop-js: choose a Node process to watch", 0);
	grid_printf(g, 0, 2, GA_TITLE, "%7s ", "PID");
	if (ctr)
		grid_printf(g, 8, 2, GA_TITLE, "%7s ", "CTR");
	grid_printf(g, 8 + x, 2, GA_TITLE, "%-10s %-16s %-8s %s", "USER", "INSPECTOR",
		"SIGNAL", "COMMAND");
	grid_fill_attr(g, 0, 2, g->width, GA_TITLE);
	if (p->n == 0)
		grid_put(g, 0, 3, GA_DIM, "No Node processes found (refreshing every 2 s).", 0);
	for (i = p->top, y = 3; i < p->n && y < 3 + rows; i++, y++) {
		const struct node_proc *np = &p->procs[i];
		char insp[32];
		enum grid_attr attr = i == p->sel ? GA_SELECTED : GA_NORMAL;

		if (np->inspector_port)
			snprintf(insp, sizeof insp, "127.0.0.1:%d", np->inspector_port);
		else
			snprintf(insp, sizeof insp, "-");
		grid_printf(g, 0, y, attr, "%7d ", (int)np->pid);
		if (ctr && np->container_pid > 0)
			grid_printf(g, 8, y, attr, "%7d ", (int)np->container_pid);
		else if (ctr)
			grid_printf(g, 8, y, attr, "%7s ", "-");
		grid_printf(g, 8 + x, y, attr, "%-10.10s %-16s %-8s ", np->user, insp,
			picker_signal_text(np->signal));
		grid_put(g, 45 + x, y, attr, np->command, 0);
		if (i == p->sel)
			grid_fill_attr(g, 0, y, g->width, GA_SELECTED);
	}
	grid_put(g, 0, g->height - 1, GA_KEYBAR,
		" Up/Down select   Enter watch   q quit ", 0);
	grid_fill_attr(g, 0, g->height - 1, g->width, GA_KEYBAR);
}

enum picker_result picker_key(struct picker *p, int key, int page_rows)
{
	size_t page = page_rows > 1 ? (size_t)page_rows : 1;

	switch (key) {
	case 'q': case 3: case VK_ESC:
		return PICKER_QUIT;
	case VK_ENTER:
		return p->n ? PICKER_CHOSEN : PICKER_NONE;
	case VK_UP: case 'k':
		if (p->sel > 0)
			p->sel--;
		break;
	case VK_DOWN: case 'j':
		if (p->sel + 1 < p->n)
			p->sel++;
		break;
	case VK_PGUP:
		p->sel = p->sel > page ? p->sel - page : 0;
		break;
	case VK_PGDN:
		p->sel = p->n ? (p->sel + page < p->n ? p->sel + page : p->n - 1) : 0;
		break;
	case VK_HOME:
		p->sel = 0;
		break;
	case VK_END:
		p->sel = p->n ? p->n - 1 : 0;
		break;
	case VK_RESIZE:
		break;
	default:
		return PICKER_NONE;
	}
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + page)
		p->top = p->sel - page + 1;
	return PICKER_REDRAW;
}

/* Reloads the list, keeping the selection on the same PID. */
static void picker_reload(struct picker *p)
{
	pid_t keep = p->n ? p->procs[p->sel].pid : 0;
	size_t i;

	free(p->procs);
	p->n = discover_node_processes(&p->procs);
	p->sel = 0;
	for (i = 0; i < p->n; i++)
		if (p->procs[i].pid == keep)
			p->sel = i;
	if (p->top > p->sel)
		p->top = p->sel;
}

pid_t picker_run(bool color, char **cause)
{
	struct picker p = { 0 };
	struct grid g;
	pid_t chosen = 0;
	bool done = false;
	double last = 0;

	if (term_open(color, cause) < 0)
		return -1;
	/* No event loop runs yet to turn Ctrl-C into a clean exit: take it as a key. */
	term_keys_raw();
	grid_init(&g);
	while (!done) {
		struct pollfd pfd = { term_key_fd(), POLLIN, 0 };
		int w, h, key;

		if (util_now_mono_s() - last >= 2.0) {
			picker_reload(&p);
			last = util_now_mono_s();
		}
		term_size(&w, &h);
		grid_resize(&g, w, h);
		picker_draw(&p, &g);
		term_draw(&g);
		poll(&pfd, 1, 500);
		while (!done && (key = term_read_key()) != -1) {
			switch (picker_key(&p, key, h - 4)) {
			case PICKER_CHOSEN:
				chosen = p.procs[p.sel].pid;
				done = true;
				break;
			case PICKER_QUIT:
				done = true;
				break;
			default:
				break;
			}
		}
	}
	grid_free(&g);
	free(p.procs);
	term_close();
	return chosen;
}
