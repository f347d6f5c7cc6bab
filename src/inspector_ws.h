/* inspector_ws.h: one-shot evaluations in a target over a websocket of their own, for attach
 * (closing or moving an inspector, the first evaluation in a process still starting). */
#ifndef NTOP_INSPECTOR_WS_H
#define NTOP_INSPECTOR_WS_H

#include "netns.h"

#include <sys/types.h>

/* The inspector module, for code run in the target: process.getBuiltinModule (or, on older
 * Node, the command line API's require) reaches it without touching globals, and its console
 * is one the app cannot override. */
#define INSPECTOR_MODULE \
	"(process.getBuiltinModule ? process.getBuiltinModule('inspector') : require('inspector'))"

/* Where an inspector takes evaluations: its network namespace, numeric address, port, the
 * Host header to send and the websocket's path (attach.h's attach_result holds them). */
struct inspector_ws {
	const struct netns_ref *ns;
	const char *host;
	int port;
	const char *host_header;
	const char *path;
};

/* Runs (function(i){BODY})(the inspector module) in the target, for code that closes the
 * inspector: the answer is then the close frame, and no reply (*reply NULL) means it ran.
 * Returns 0, or -1 with *why when no websocket could be had. */
int inspector_eval_closing(const struct inspector_ws *w, const char *body, double timeout_s,
	char **reply, char **why);

/* In a process (pid) younger than a minute, waits until no frame of Node's startup or of a
 * built-in module's first load is under an evaluation (5 s at most, timeout_s if shorter),
 * and loads the inspector module then (ntopJsSettle, inspector_ws.c). */
void inspector_settle(const struct inspector_ws *w, pid_t pid, double timeout_s);

#endif
