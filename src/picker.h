/* picker.h: choosing a Node process when ntop-js is started without a target. The list is
 * drawn into a grid and steered by keys (pure, tested without a terminal); picker_run drives
 * it on the terminal. */
#ifndef NTOP_PICKER_H
#define NTOP_PICKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct grid;
struct node_proc;

struct picker {
	struct node_proc *procs;
	size_t n;
	size_t sel, top;
};

enum picker_result { PICKER_NONE, PICKER_REDRAW, PICKER_CHOSEN, PICKER_QUIT };

void picker_draw(const struct picker *p, struct grid *g);
enum picker_result picker_key(struct picker *p, int key, int page_rows);
/* Shows the list on the terminal (opened and closed here) and returns the chosen PID, 0 if
 * the user quit, or -1 with *cause. */
pid_t picker_run(bool color, char **cause);

#endif
