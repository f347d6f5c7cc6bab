/* view.h: the screens (the table of hot functions, the detail of one function, help, memory)
 * drawn into a grid, and the keys that steer them. Pure: a view reads the model, and a key changes
 * only the view's own state or asks the app for an action. Tests feed keys and read grids. */
#ifndef NTOP_VIEW_H
#define NTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "model.h"

struct grid;

enum view_action {
	VA_NONE,    /* nothing changed */
	VA_REDRAW,  /* the view changed: draw it again */
	VA_QUIT,
	VA_SAVE,    /* save the profiles (the app does it and reports in the status line) */
	VA_RESET,   /* reset the cumulative counters (the app resets the engine's) */
	VA_SETTINGS,/* a setting in view_settings changed: the app may persist it */
	VA_ALLOC_TOGGLE, /* start or stop allocation sampling */
	VA_SNAPSHOT,     /* the user confirmed a heap snapshot */
	VA_START_CPU,    /* the user confirmed starting the CPU profiler (--no-cpu) */
	VA_THREAD,       /* show the next thread of the target (the app switches the model) */
	VA_GENERATED,    /* g: switch between original (source-mapped) and generated positions */
	VA_BASELINE,     /* b: pin the cumulative profile as the baseline, or drop it */
};

/* The table's columns, in the order of their sort keys (1-8); the changes against a baseline
 * (shown beside the shares, and only while one is pinned) last. */
enum view_column { COL_SELF_PCT, COL_TOTAL_PCT, COL_SELF_TIME, COL_TOTAL_TIME, COL_NAME,
	COL_LOCATION, COL_DSELF_PCT, COL_DTOTAL_PCT, COL_COUNT };

/* What is worth keeping between sessions (the config file and the command line). */
struct view_settings {
	enum view_column sort;
	bool reverse;
	enum model_mode mode;
	bool hide_internals;     /* node: and internal URLs */
	bool hide_node_modules;
	double threshold_pct;    /* rows under this self% and total% are hidden */
	char filter[128];        /* substring of function or location */
	bool color;
};

struct view;

struct view *view_create(const struct view_settings *s);
void view_free(struct view *v);
const struct view_settings *view_settings(const struct view *v);

/* Handles one key; m is needed for selection and drill-down. */
enum view_action view_key(struct view *v, const struct model *m, int key);
/* Draws the current screen into g (already sized to the terminal). */
void view_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s);
bool view_paused(const struct view *v);
/* A baseline was pinned or dropped: paused rows are taken again, with their changes or
 * without. */
void view_baseline_changed(struct view *v, const struct model *m);
/* The model now shows another thread (another function table): forgets the selection, the
 * detail screen's functions and the pause. */
void view_thread_changed(struct view *v);
/* Opens the memory screen (from wherever the view is). */
void view_show_memory(struct view *v);
/* The function the detail screen shows, or UINT32_MAX on the table. */
uint32_t view_detail_func(const struct view *v);

#endif
