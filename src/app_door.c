/* app_door.c: the inspectors ntop-js opened are closed, whatever ended the session.
 *
 * The engine closes the inspector over its own connection (engine_door.c). What it could not
 * close is closed here over a connection of its own: the session never started (a refused
 * --log, a terminal too small for the live view), its connection was lost while the target
 * runs on, a second signal cut the leave short, or the service's other processes were
 * attached but never handed to an engine.
 *
 * SIGUSR1 opens more than the target's inspector: Node's cluster primary, whenever its
 * inspector starts, sends SIGUSR1 on to each of its workers, which open theirs. So before a
 * watched process is signalled, its Node descendants' listening sockets are noted; at the
 * end, a descendant that listens on an inspector it did not have then (and that its own
 * options do not open) has it closed, or named when it cannot be. */
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
#include <string.h>

/* A Node descendant of a watched process, as it was before ntop-js signalled. */
struct kin_proc {
	pid_t pid, root;
	unsigned long long start;     /* tells it from a later process with its PID */
	struct procfs_inodes sockets; /* its listening sockets then */
};

struct app_kin {
	struct kin_proc *v;
	size_t n, cap;
	struct procfs_pids roots;     /* the processes signalled, with their start times */
	unsigned long long *root_start;
	size_t cap_roots;
	struct procfs_pids handled;   /* closed or named already */
};

/* The sockets pid itself listens on (not other processes' of its network namespace). */
static int own_listeners(pid_t pid, struct procfs_listeners *ls, struct procfs_inodes *out)
{
	struct procfs_inodes mine = { 0 };
	int err, rc = -1;

	ls->n = 0;
	if (procfs_listeners_read(pid, ls, &err) == 0 &&
	    procfs_socket_inodes_read(pid, &mine, &err) == 0) {
		for (size_t i = 0; i < ls->n; i++)
			if (procfs_inodes_has(&mine, ls->v[i].inode))
				procfs_inodes_add(out, ls->v[i].inode);
		rc = 0;
	}
	procfs_inodes_free(&mine);
	return rc;
}

/* True if pid itself (not another process of its network namespace) listens on r's port. */
static bool door_still_listening(const struct attach_result *r)
{
	struct procfs_listeners ls = { 0 };
	struct procfs_inodes mine = { 0 };
	bool found = false;

	if (own_listeners(r->pid, &ls, &mine) == 0)
		for (size_t i = 0; i < ls.n && !found; i++)
			found = ls.v[i].port == r->port && procfs_inodes_has(&mine, ls.v[i].inode);
	procfs_listeners_free(&ls);
	procfs_inodes_free(&mine);
	return found;
}

static void door_close(struct app *a, const struct attach_result *r, bool said)
{
	struct attach_opts ao = { 0 };
	char *why = NULL, *msg;

	if (r->pid <= 0 || !attach_pid_alive(r->pid) || !door_still_listening(r))
		return;
	if (a->opt.no_eval && said)
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

void app_close_opened(struct app *a, const struct attach_result *r, bool said)
{
	door_close(a, r, said);
}

/* ---- the watched processes' descendants ---- */

static struct kin_proc *kin_find(struct app_kin *k, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].pid == pid && k->v[i].start == start)
			return &k->v[i];
	return NULL;
}

static bool started_at(pid_t pid, unsigned long long start)
{
	unsigned long long t;

	return procfs_start_time(pid, &t) == 0 && t == start;
}

/* pid and its Node descendants (service.c's walk: bounded depth and count). */
static void kin_list(pid_t pid, struct procfs_pids *out)
{
	char *cause = NULL;

	/* past SERVICE_MAX the list holds the first ones: enough to go on with */
	service_expand(&pid, 1, true, NULL, NULL, out, &cause);
	free(cause);
}

void app_note_kin(struct app *a, pid_t pid)
{
	struct procfs_pids now = { 0 };
	struct procfs_listeners ls = { 0 };
	struct app_kin *k;
	unsigned long long start;

	if (pid <= 0 || procfs_start_time(pid, &start) < 0)
		return;
	if (!a->kin)
		a->kin = xcalloc(1, sizeof *a->kin);
	k = a->kin;
	if (!procfs_pids_has(&k->roots, pid)) {
		procfs_pids_add(&k->roots, pid);
		k->root_start = xreallocarray_grow(k->root_start, &k->cap_roots, k->roots.n,
			sizeof *k->root_start);
		k->root_start[k->roots.n - 1] = start;
	}
	kin_list(pid, &now);
	for (size_t i = 1; i < now.n; i++) {
		struct kin_proc *p;
		unsigned long long t;

		if (procfs_start_time(now.v[i], &t) < 0 || kin_find(k, now.v[i], t))
			continue;
		k->v = xreallocarray_grow(k->v, &k->cap, k->n + 1, sizeof *k->v);
		p = &k->v[k->n++];
		*p = (struct kin_proc){ now.v[i], pid, t, { 0 } };
		own_listeners(p->pid, &ls, &p->sockets);
	}
	procfs_listeners_free(&ls);
	procfs_pids_free(&now);
}

/* The descendants to look at now: those of every root still running, and those noted at
 * attach that still run (a root that exited left them to init). root_of: whose each is. */
static void kin_now(const struct app_kin *k, struct procfs_pids *out, struct procfs_pids *root_of)
{
	for (size_t r = 0; r < k->roots.n; r++) {
		struct procfs_pids now = { 0 };

		if (!started_at(k->roots.v[r], k->root_start[r]))
			continue;
		kin_list(k->roots.v[r], &now);
		for (size_t i = 1; i < now.n; i++)
			if (!procfs_pids_has(out, now.v[i])) {
				procfs_pids_add(out, now.v[i]);
				procfs_pids_add(root_of, k->roots.v[r]);
			}
		procfs_pids_free(&now);
	}
	for (size_t i = 0; i < k->n; i++)
		if (!procfs_pids_has(out, k->v[i].pid) && started_at(k->v[i].pid, k->v[i].start)) {
			procfs_pids_add(out, k->v[i].pid);
			procfs_pids_add(root_of, k->v[i].root);
		}
}

/* True if a client is connected to pid's port (from its namespace's /proc/PID/net/tcp and
 * tcp6: rows ESTABLISHED on that local port). */
static bool port_in_use(pid_t pid, int port)
{
	static const char *const files[] = { "tcp", "tcp6" };
	bool used = false;

	for (size_t f = 0; f < 2 && !used; f++) {
		char path[64], *buf = NULL, *line, *save = NULL;
		size_t len = 0;

		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid, files[f]);
		if (procfs_file_read(path, 64u << 20, &buf, &len, NULL) < 0)
			continue;
		for (line = strtok_r(buf, "\n", &save); line && !used;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned local_port;
			char st[3];

			/* "sl: local_address:PORT rem_address:PORT st ..." */
			if (sscanf(line, " %*[^:]: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %2s", &local_port,
			    st) == 2)
				used = (int)local_port == port && strcmp(st, "01") == 0;
		}
		free(buf);
	}
	return used;
}

/* The inspector of descendant pid that ntop-js made it open, if any: one on a socket it
 * did not listen on before the signal, in a process whose own options do not open one.
 * Returns true with *r set. */
static bool kin_opened(struct app *a, pid_t pid, struct attach_result *r)
{
	struct procfs_listeners ls = { 0 };
	struct procfs_inodes now = { 0 };
	struct procfs_inspect_addr opts;
	struct attach_opts ao = { 0 };
	const struct kin_proc *then = NULL;
	unsigned long long start;
	bool fresh = false, found = false;
	char *cause = NULL;

	if (procfs_start_time(pid, &start) < 0 || own_listeners(pid, &ls, &now) < 0)
		goto out;
	then = kin_find(a->kin, pid, start);
	if (!then) {
		/* started since: its own --inspect opened it, not ntop-js */
		procfs_inspect_addr_read(pid, &opts);
		if (opts.opens)
			goto out;
	}
	for (size_t i = 0; i < now.n && !fresh; i++)
		fresh = !then || !procfs_inodes_has(&then->sockets, now.v[i]);
	if (!fresh)
		goto out;
	ao.pid = pid;
	ao.no_signal = true;
	ao.timeout_s = a->opt.timeout_s;
	if (attach_target(&ao, r, &cause) != EXIT_OK)
		goto out;
	found = true;
	/* a process has one inspector: the one it had before the signal is not ntop-js's */
	for (size_t i = 0; i < ls.n && then; i++)
		if (ls.v[i].port == r->port && procfs_inodes_has(&then->sockets, ls.v[i].inode))
			found = false;
out:
	free(cause);
	procfs_listeners_free(&ls);
	procfs_inodes_free(&now);
	return found;
}

/* Closes (or names) each inspector a watched process's descendant opened because of
 * ntop-js; those watched by engines of their own have their own doors. */
static void kin_close(struct app *a)
{
	struct procfs_pids pids = { 0 }, roots = { 0 };

	if (!a->kin)
		return;
	kin_now(a->kin, &pids, &roots);
	for (size_t i = 0; i < pids.n; i++) {
		struct attach_result r;
		char *why = NULL, *msg;
		struct attach_opts ao = { 0 };

		if (watch_has_pid(a, pids.v[i]) || procfs_pids_has(&a->kin->handled, pids.v[i]) ||
		    !kin_opened(a, pids.v[i], &r))
			continue;
		procfs_pids_add(&a->kin->handled, pids.v[i]);
		if (port_in_use(r.pid, r.port)) {
			/* a debugger (or another ntop-js) is using it: closing would end its session */
			msg = xasprintf("the inspector of PID %d stays open on port %d: it opened when "
				"that of PID %d did (Node's cluster passes SIGUSR1 on to its workers), and a "
				"client is connected to it.", (int)r.pid, r.port, (int)roots.v[i]);
		} else if (a->opt.no_eval) {
			msg = xasprintf("the inspector of PID %d stays open on port %d: it opened when "
				"that of PID %d did (Node's cluster passes SIGUSR1 on to its workers), and "
				"--no-eval forbids running the code that closes it.", (int)r.pid, r.port,
				(int)roots.v[i]);
		} else {
			ao.timeout_s = a->opt.timeout_s;
			r.opened_by_us = true;
			if (attach_close_inspector(&ao, &r, &why) == EXIT_OK)
				continue;
			msg = why;
		}
		app_say(a, true, msg);
		free(msg);
	}
	procfs_pids_free(&pids);
	procfs_pids_free(&roots);
}

void app_kin_free(struct app *a)
{
	if (!a->kin)
		return;
	for (size_t i = 0; i < a->kin->n; i++)
		procfs_inodes_free(&a->kin->v[i].sockets);
	free(a->kin->v);
	procfs_pids_free(&a->kin->roots);
	free(a->kin->root_start);
	procfs_pids_free(&a->kin->handled);
	free(a->kin);
	a->kin = NULL;
}

void app_close_left_open(struct app *a)
{
	bool main_open = a->engine ? engine_inspector_left_open(a->engine) : a->target.opened_by_us;

	if (!a->door_checked) {
		a->door_checked = true;
		if (main_open)
			/* a session that ran has said so already (engine.c) */
			door_close(a, &a->target, a->engine_started);
		/* attached for watch_start_service, which never came */
		for (size_t i = 0; i < a->n_members; i++)
			if (i != a->main_member && a->members[i].code == EXIT_OK &&
			    a->members[i].r.opened_by_us)
				door_close(a, &a->members[i].r, a->engine_started);
	}
	kin_close(a);
}

void app_close_at_exit(struct app *a)
{
	app_close_left_open(a);
	watch_close_left_open(a);
}
