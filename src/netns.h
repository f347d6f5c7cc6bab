/* netns.h: creating sockets in a target's network namespace. A Node process in a container
 * opens its inspector on the container's own loopback, which the host's 127.0.0.1 does not
 * reach; a socket created after setns(2) into the target's namespace does, and stays there
 * after the thread returns to its own. setns changes only the calling thread, so enter, create
 * and connect, and leave on the same thread, with nothing else in between.
 *
 * Entering needs CAP_SYS_ADMIN (over the target's namespace); without it netns_enter fails
 * with EPERM, and the caller explains the ways out. */
#ifndef NTOP_NETNS_H
#define NTOP_NETNS_H

#include <stdbool.h>
#include <sys/types.h>

/* Where to create a target's sockets: pid 0 means ntop-js's own namespace. ino is the
 * namespace's inode when it was found, checked again on every entry, so that a PID reused by
 * another process is not entered by mistake. */
struct netns_ref {
	pid_t pid;
	unsigned long long ino;
};

/* 1 if PID's network namespace is not ours (*ref then names it), 0 if it is (*ref is ours),
 * -1 if either cannot be read (*ref is ours, *errno_out set). Compares the namespaces' device
 * and inode numbers, as jattach does. */
int netns_probe(pid_t pid, struct netns_ref *ref, int *errno_out);
/* Moves the calling thread into ref's namespace. Returns 0 with *saved_fd to hand to
 * netns_leave (-1 when ref is NULL or ours: nothing to do), or -1 with *errno_out (EPERM: no
 * CAP_SYS_ADMIN; EACCES: the process may not be inspected; ENOENT: it is gone; ESTALE: its
 * PID now lives in another namespace) and *cause, one sentence the caller frees. */
int netns_enter(const struct netns_ref *ref, int *saved_fd, int *errno_out, char **cause);
/* Returns the calling thread to the namespace netns_enter left, and closes saved_fd (-1 does
 * nothing). Fatal if it fails: every later socket would be created in the target's namespace. */
void netns_leave(int saved_fd);
/* True when ref names a namespace other than ours. */
bool netns_is_foreign(const struct netns_ref *ref);

#endif
