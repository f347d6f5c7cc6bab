/* discover.h: the Node processes of this machine, for --list and the picker. Reads /proc
 * only: nothing is signalled, nothing is connected to (beyond what the current user may read). */
#ifndef NTOP_DISCOVER_H
#define NTOP_DISCOVER_H

#include <stddef.h>
#include <sys/types.h>

struct strbuf;

enum discover_signal {
	DISCOVER_SIGNAL_OK,       /* Node's SIGUSR1 handler is installed: attach by signal works */
	DISCOVER_SIGNAL_DISABLED, /* SIGUSR1 blocked: --disable-sigusr1 or the permission model */
	DISCOVER_SIGNAL_UNKNOWN,  /* another user's process, or no handler */
};

struct node_proc {
	pid_t pid;
	uid_t uid;
	char user[33];            /* login name, or the uid as text */
	char command[512];        /* the command line, spaces between arguments, sanitised */
	int inspector_port;       /* a loopback port the process listens on that looks like its
	                             inspector (from its --inspect options or 9229), or 0 */
	enum discover_signal signal;
	pid_t container_pid;      /* in a container (another PID or network namespace): its PID
	                             in there; 0 on the host */
};

/* Lists the processes that look like Node (their executable or comm is node/nodejs, or they
 * have Node's SIGUSR1 handler and a node-like command line), sorted by PID, excluding ntop-js
 * itself. Returns the count; *out is allocated (caller frees). */
size_t discover_node_processes(struct node_proc **out);
/* The --list table: PID, USER, INSPECTOR, SIGNAL, COMMAND; one header line. When a process
 * runs in a container, a CTR column after PID gives its PID in there ("-" on the host). */
void discover_format_table(const struct node_proc *p, size_t n, struct strbuf *out);

#endif
