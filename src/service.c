/* service.c: see service.h. */
#include "config.h"

#include "service.h"
#include "discover.h"
#include "exitcode.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int service_add(struct procfs_pids *out, pid_t pid, char **cause)
{
	if (pid == getpid() || procfs_pids_has(out, pid))
		return 0;
	if (out->n == SERVICE_MAX) {
		*cause = xasprintf("more than %d processes to watch; name fewer (--pid) or a narrower "
			"--match.", SERVICE_MAX);
		return -1;
	}
	procfs_pids_add(out, pid);
	return 0;
}

/* The Node processes below pid, breadth first: a wrapper's (npm, sh) children are looked
 * through, a Node process's too (a cluster worker may fork its own). */
static int service_add_children(struct procfs_pids *out, pid_t pid, char **cause)
{
	struct procfs_pids q = { 0 };
	size_t level_end, head = 0;
	int rc = 0;

	procfs_children_read(pid, &q, NULL);
	level_end = q.n;
	for (int depth = 1; depth <= SERVICE_DEPTH && head < q.n && rc == 0; depth++) {
		for (; head < level_end && rc == 0; head++) {
			struct procfs_status st;

			if (procfs_status_read(q.v[head], &st, NULL) < 0 || st.state == 'Z')
				continue;
			if (procfs_looks_like_node(q.v[head], &st))
				rc = service_add(out, q.v[head], cause);
			if (q.n < 16 * SERVICE_MAX)
				procfs_children_read(q.v[head], &q, NULL);
		}
		level_end = q.n;
	}
	procfs_pids_free(&q);
	return rc;
}

/* A user name or a uid. */
static int service_user_uid(const char *user, uid_t *uid, char **cause)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	unsigned long v;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(user, &end, 10);
	if (*user && !*end && errno == 0 && v <= 0x7fffffffUL) {
		*uid = (uid_t)v;
		return 0;
	}
	*cause = xasprintf("no user \"%s\" on this machine.", user);
	return -1;
}

int service_expand(const pid_t *given, size_t n_given, bool children, const char *match,
	const char *user, struct procfs_pids *out, char **cause)
{
	*cause = NULL;
	out->n = 0;
	for (size_t i = 0; i < n_given; i++)
		if (service_add(out, given[i], cause) < 0)
			return -1;
	for (size_t i = 0; children && i < n_given; i++)
		if (service_add_children(out, given[i], cause) < 0)
			return -1;
	if (match || user) {
		struct node_proc *p = NULL;
		size_t n, found = 0;
		uid_t uid = 0;
		int rc = 0;

		if (user && service_user_uid(user, &uid, cause) < 0)
			return -1;
		n = discover_node_processes(&p);
		for (size_t i = 0; i < n && rc == 0; i++)
			if ((!match || strstr(p[i].command, match)) && (!user || p[i].uid == uid)) {
				rc = service_add(out, p[i].pid, cause);
				found++;
			}
		free(p);
		if (rc < 0)
			return -1;
		if (!found && match && user)
			*cause = xasprintf("no Node process of %s has \"%s\" in its command line "
				"(ntop-js --list shows them).", user, match);
		else if (!found && match)
			*cause = xasprintf("no Node process of this machine has \"%s\" in its command "
				"line (ntop-js --list shows them).", match);
		else if (!found)
			*cause = xasprintf("%s runs no Node process (ntop-js --list shows them).", user);
		if (!found)
			return -1;
	}
	return 0;
}

size_t service_attach(const struct procfs_pids *pids, const struct attach_opts *o, bool move,
	struct service_member *m)
{
	struct attach_opts one = *o;
	size_t ok = 0;

	for (size_t k = pids->n; k-- > 0;) {
		struct service_member *s = &m[k];

		memset(s, 0, sizeof *s);
		s->pid = pids->v[k];
		one.pid = s->pid;
		s->code = attach_target(&one, &s->r, &s->cause);
		if (s->code != EXIT_OK)
			continue;
		ok++;
		if ((pids->n > 1 || move) && s->r.opened_by_us) {
			char *why = NULL;

			/* On failure it stays where it is (and is closed at the end all the same); the
			 * next process then finds the port taken and says so. */
			if (attach_move_inspector(&one, &s->r, &why) != EXIT_OK)
				s->cause = why;
			else
				free(why);
		}
	}
	return ok;
}

void service_members_free(struct service_member *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].cause);
		m[i].cause = NULL;
	}
}
