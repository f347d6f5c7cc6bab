/* netns.c: see netns.h. */
#include "config.h"

#include "netns.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool netns_is_foreign(const struct netns_ref *ref)
{
	return ref && ref->pid > 0;
}

int netns_probe(pid_t pid, struct netns_ref *ref, int *errno_out)
{
	struct stat mine, theirs;
	char path[64];

	ref->pid = 0;
	ref->ino = 0;
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	if (stat("/proc/self/ns/net", &mine) < 0 || stat(path, &theirs) < 0) {
		if (errno_out)
			*errno_out = errno;
		return -1;
	}
	if (mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino)
		return 0;
	ref->pid = pid;
	ref->ino = (unsigned long long)theirs.st_ino;
	return 1;
}

static int netns_fail(int err, int *errno_out, char **cause, char *msg)
{
	if (errno_out)
		*errno_out = err;
	*cause = msg;
	return -1;
}

int netns_enter(const struct netns_ref *ref, int *saved_fd, int *errno_out, char **cause)
{
	struct stat st;
	char path[64];
	int self, target, err;

	*saved_fd = -1;
	*cause = NULL;
	if (!netns_is_foreign(ref))
		return 0;
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)ref->pid);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0) {
		err = errno;
		return netns_fail(err, errno_out, cause, xasprintf("cannot open the network "
			"namespace of PID %d: %s.", (int)ref->pid, strerror(err)));
	}
	/* The PID may have been reused since the namespace was found. */
	if (ref->ino && (fstat(target, &st) < 0 || (unsigned long long)st.st_ino != ref->ino)) {
		close(target);
		return netns_fail(ESTALE, errno_out, cause, xasprintf("PID %d is no longer in "
			"the network namespace ntop-js found it in.", (int)ref->pid));
	}
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = errno;
		close(target);
		return netns_fail(err, errno_out, cause, xasprintf("cannot open ntop-js's own "
			"network namespace: %s.", strerror(err)));
	}
	if (setns(target, CLONE_NEWNET) < 0) {
		err = errno;
		close(target);
		close(self);
		return netns_fail(err, errno_out, cause, xasprintf("cannot enter the network "
			"namespace of PID %d: %s.", (int)ref->pid, strerror(err)));
	}
	close(target);
	*saved_fd = self;
	return 0;
}

void netns_leave(int saved_fd)
{
	if (saved_fd < 0)
		return;
	if (setns(saved_fd, CLONE_NEWNET) < 0)
		util_die(1, "cannot return to ntop-js's own network namespace: %s.", strerror(errno));
	close(saved_fd);
}
