/* service.h: the processes of one service, to watch several at once: the PIDs given, the
 * Node processes descended from them (--children: a cluster primary's workers, PM2's apps),
 * or every Node process whose command line has a text (--match) or of a user (--user); and
 * attaching to them all when they share one inspector port. */
#ifndef NTOP_SERVICE_H
#define NTOP_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "attach.h"
#include "procfs.h"

/* How many processes one ntop-js watches at most. */
#define SERVICE_MAX 64
/* How deep --children looks below each PID given (a wrapper or two, then the workers). */
#define SERVICE_DEPTH 4

/* Fills out (reset first) with the given PIDs in order, then, with children, the Node
 * processes below each (breadth first, each once), then, with match or user (a name or a
 * uid), every Node process whose command line contains match and that belongs to user. At
 * most SERVICE_MAX; ntop-js itself never. Returns 0, or -1 with *cause (one sentence, caller
 * frees) when match or user finds nothing, the user does not exist, or the list would pass
 * SERVICE_MAX. */
int service_expand(const pid_t *given, size_t n_given, bool children, const char *match,
	const char *user, struct procfs_pids *out, char **cause);

/* The outcome of attaching to one process of the list. */
struct service_member {
	pid_t pid;
	int code;                 /* EXIT_OK, or enum ntop_exit with cause */
	char *cause;
	struct attach_result r;   /* when EXIT_OK */
};

/* Attaches to every PID of the list (o gives the timeout and such; its pid is ignored), into
 * m[0..pids->n-1]. Node's SIGUSR1 opens every process's inspector on the same port (9229
 * unless each was started with its own --inspect-port), and a cluster primary passes the
 * signal on to its workers: so the list is attached from its end (children before their
 * parent), and with several processes (or with move: more may come) each inspector that
 * ntop-js opened is moved to a free port (attach_move_inspector) before the next is
 * signalled. Returns how many attached. */
size_t service_attach(const struct procfs_pids *pids, const struct attach_opts *o, bool move,
	struct service_member *m);
/* Frees the causes. */
void service_members_free(struct service_member *m, size_t n);

#endif
