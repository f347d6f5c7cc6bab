/* app_door.c: the inspectors ntop-js opened are closed, whatever ended the session.
 *
 * The engine closes the inspector over its own connection (engine_door.c). What it could not
 * close is closed here over a connection of its own: the session never started (a refused
 * --log, a terminal too small for the live view), its connection was lost while the target
 * runs on, a second signal cut the leave short, or the service's other processes were
 * attached but never handed to an engine. */
#include "config.h"

#include "app_priv.h"
#include "attach.h"
#include "engine.h"
#include "exitcode.h"
#include "procfs.h"
#include "service.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

/* True if pid itself (not another process of its network namespace) listens on r's port. */
static bool door_still_listening(const struct attach_result *r)
{
	struct procfs_listeners ls = { 0 };
	struct procfs_inodes mine = { 0 };
	bool found = false;
	int err;

	if (procfs_listeners_read(r->pid, &ls, &err) == 0 &&
	    procfs_socket_inodes_read(r->pid, &mine, &err) == 0)
		for (size_t i = 0; i < ls.n && !found; i++)
			found = ls.v[i].port == r->port && procfs_inodes_has(&mine, ls.v[i].inode);
	procfs_listeners_free(&ls);
	procfs_inodes_free(&mine);
	return found;
}

static void door_close(struct app *a, const struct attach_result *r)
{
	struct attach_opts ao = { 0 };
	char *why = NULL, *msg;

	if (r->pid <= 0 || !attach_pid_alive(r->pid) || !door_still_listening(r))
		return;
	/* A session that ran has said so already (engine.c). */
	if (a->opt.no_eval && a->engine_started)
		return;
	if (a->opt.no_eval) {
		msg = xasprintf("the inspector of PID %d stays open on port %d: --no-eval forbids "
			"running the code that closes it.", (int)r->pid, r->port);
	} else {
		ao.timeout_s = a->opt.timeout_s;
		if (attach_close_inspector(&ao, r, &why) == EXIT_OK)
			return;
		msg = why;
	}
	app_say(a, true, msg);
	free(msg);
}

void app_close_left_open(struct app *a)
{
	bool main_open = a->engine ? engine_inspector_left_open(a->engine) : a->target.opened_by_us;

	if (a->door_checked)
		return;
	a->door_checked = true;
	if (main_open)
		door_close(a, &a->target);
	/* attached for app_start_service, which never came */
	for (size_t i = 0; i < a->n_members; i++)
		if (i != a->main_member && a->members[i].code == EXIT_OK &&
		    a->members[i].r.opened_by_us)
			door_close(a, &a->members[i].r);
}
