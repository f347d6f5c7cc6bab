/* test_netns: entering a process's network namespace to create a socket there, and coming
 * back. The namespace checks need root (unshare(2) and setns(2)); without it they are skipped. */
#include "config.h"
#include "netns.h"

#include "tap.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/sockios.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The inode of the network namespace a socket belongs to, or 0. */
static unsigned long long socket_netns_ino(int fd)
{
	struct stat st;
	int nsfd = ioctl(fd, SIOCGSKNS);
	unsigned long long ino = 0;

	if (nsfd >= 0 && fstat(nsfd, &st) == 0)
		ino = (unsigned long long)st.st_ino;
	if (nsfd >= 0)
		close(nsfd);
	return ino;
}

static unsigned long long own_netns_ino(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* A child in a network namespace of its own; 0 if one cannot be made here. */
static pid_t child_in_new_netns(void)
{
	int fds[2];
	char c = 0;
	pid_t pid;

	if (pipe(fds) < 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = 0;
	}
	close(fds[0]);
	return pid;
}

/* In a child without CAP_SYS_ADMIN, entering must fail with EPERM. */
static int enter_without_cap_sys_admin(const struct netns_ref *ref)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		char *why = NULL;
		int saved, err = 0;

		if (syscall(SYS_capget, &hdr, data) < 0)
			_exit(3);
		data[0].effective &= ~(1u << CAP_SYS_ADMIN);
		data[0].permitted &= ~(1u << CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &hdr, data) < 0)
			_exit(3);
		if (netns_enter(ref, &saved, &err, &why) == 0)
			_exit(1);
		_exit(err == EPERM && why && strstr(why, "cannot enter") ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	struct netns_ref ref, stale;
	char *why = NULL;
	int saved = 7, err = 0, fd;
	unsigned long long ours = own_netns_ino();
	pid_t child;

	ok(netns_probe(getpid(), &ref, &err) == 0 && ref.pid == 0, "our own namespace is ours");
	ok(!netns_is_foreign(&ref) && !netns_is_foreign(NULL), "ours and NULL are not foreign");
	ok(netns_enter(&ref, &saved, &err, &why) == 0 && saved == -1 && !why,
		"entering our own namespace does nothing");
	netns_leave(saved);
	ok(netns_enter(NULL, &saved, &err, &why) == 0 && saved == -1, "NULL: nothing to enter");
	err = 0;
	ok(netns_probe(0x7ffffff0, &ref, &err) < 0 && err == ENOENT && ref.pid == 0,
		"no such PID: unknown, ENOENT");

	child = geteuid() == 0 ? child_in_new_netns() : 0;
	if (!child) {
		printf("# skipped: no new network namespace here (needs root)\n");
		return done_testing();
	}
	ok(netns_probe(child, &ref, &err) == 1 && ref.pid == child && ref.ino != 0 &&
		ref.ino != ours, "a child after unshare(CLONE_NEWNET) is in another namespace");
	ok(netns_enter(&ref, &saved, &err, &why) == 0 && saved >= 0, "entered it");
	is_int(own_netns_ino() == ref.ino, 1, "this thread is in the child's namespace");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	netns_leave(saved);
	is_int(own_netns_ino() == ours, 1, "back in our own namespace");
	ok(fd >= 0 && socket_netns_ino(fd) == ref.ino,
		"a socket created in between belongs to the child's namespace");
	if (fd >= 0)
		close(fd);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(fd >= 0 && socket_netns_ino(fd) == ours, "a socket created after it is ours");
	if (fd >= 0)
		close(fd);

	stale = ref;
	stale.ino ^= 1;
	free(why);
	why = NULL;
	ok(netns_enter(&stale, &saved, &err, &why) < 0 && err == ESTALE && saved == -1 && why &&
		strstr(why, "no longer"), "a PID in another namespace than found is not entered");
	printf("# %s\n", why ? why : "");
	is_int(own_netns_ino() == ours, 1, "still in our own namespace");
	free(why);
	why = NULL;
	is_int(enter_without_cap_sys_admin(&ref), 0, "without CAP_SYS_ADMIN: EPERM and a sentence");

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ok(netns_enter(&ref, &saved, &err, &why) < 0 && err == ENOENT && why,
		"a process that exited: ENOENT and a sentence");
	free(why);
	return done_testing();
}
