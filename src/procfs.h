/* procfs.h: reading what Linux's /proc says about a process: its status and signal masks,
 * its listening TCP sockets, its socket inodes, its children, its command line and Node's
 * inspector options. The parsers take text, so tests feed them recorded files; the readers
 * are thin wrappers for a live PID. Everything read here is untrusted and validated. */
#ifndef NTOP_PROCFS_H
#define NTOP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SIGUSR1 (signal 10) in the SigCgt, SigBlk and SigIgn masks of /proc/PID/status. */
#define PROCFS_SIGUSR1_MASK (UINT64_C(1) << 9)

/* Node's inspector port when no option names one. */
#define PROCFS_INSPECT_DEFAULT_PORT 9229

struct procfs_status {
	char name[64];   /* comm, sanitised for a terminal */
	char state;      /* 'R', 'S', 'Z'...; '?' if absent */
	pid_t tgid;      /* the process a thread id belongs to */
	/* NStgid: the process's PID in each PID namespace from /proc's down to its own. A
	 * process in a container has more than one; the last is its PID in there. */
	pid_t ns_tgid;   /* the last field; 0 if absent or malformed */
	int ns_levels;   /* how many fields (1: /proc's own namespace) */
	pid_t ppid;
	uid_t uid;       /* real uid */
	uint64_t sig_blk;
	uint64_t sig_ign;
	uint64_t sig_cgt;
};

/* Parses the text of /proc/PID/status. Returns 0, or -1 if Name, Uid or SigCgt is missing or
 * malformed. */
int procfs_status_parse(const char *text, size_t len, struct procfs_status *st);
/* Returns 0, or -1 with *errno_out set (ENOENT when the process is gone). */
int procfs_status_read(pid_t pid, struct procfs_status *st, int *errno_out);

struct procfs_listener {
	int family;       /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network byte order; the first 4 bytes for AF_INET */
	int port;
	unsigned long inode;
};

struct procfs_listeners {
	struct procfs_listener *v;
	size_t n, cap;
};

void procfs_listeners_free(struct procfs_listeners *l);
/* Appends the LISTEN rows (st 0A) of one /proc/net/tcp (family AF_INET) or tcp6 (AF_INET6)
 * text. Malformed rows are skipped. Returns the number of rows appended, or -1 if the text
 * does not start with the expected header. */
int procfs_net_tcp_parse(const char *text, size_t len, int family, struct procfs_listeners *out);
/* Appends the listeners of the network namespace PID lives in (tcp then tcp6; pid 0 means
 * ours). A missing tcp6 file (no IPv6) is not an error. Returns 0 or -1 with *errno_out. */
int procfs_listeners_read(pid_t pid, struct procfs_listeners *out, int *errno_out);
/* The listener's address as text ("127.0.0.1", "::1"). */
void procfs_listener_addr_str(const struct procfs_listener *l, char *buf, size_t bufsz);
/* True for 0.0.0.0 and ::. */
bool procfs_listener_is_wildcard(const struct procfs_listener *l);
/* True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. */
bool procfs_listener_is_loopback(const struct procfs_listener *l);

struct procfs_inodes {
	unsigned long *v;
	size_t n, cap;
};

void procfs_inodes_free(struct procfs_inodes *s);
void procfs_inodes_add(struct procfs_inodes *s, unsigned long inode);
bool procfs_inodes_has(const struct procfs_inodes *s, unsigned long inode);
/* The inode of a /proc/PID/fd link text "socket:[INODE]", or 0 if it is not a socket. */
unsigned long procfs_socket_inode_parse(const char *link);
/* Appends the socket inodes of PID's open files. Returns 0, or -1 with *errno_out (EACCES
 * when the process belongs to someone else, ENOENT when it is gone). */
int procfs_socket_inodes_read(pid_t pid, struct procfs_inodes *out, int *errno_out);

struct procfs_pids {
	pid_t *v;
	size_t n, cap;
};

void procfs_pids_free(struct procfs_pids *p);
/* Appends pid; whether pid is in the list. */
void procfs_pids_add(struct procfs_pids *p, pid_t pid);
bool procfs_pids_has(const struct procfs_pids *p, pid_t pid);
/* Appends the space-separated PIDs of a /proc/PID/task/TID/children text. Returns the number
 * appended, or -1 on a malformed token. */
int procfs_children_parse(const char *text, size_t len, struct procfs_pids *out);
/* Appends the children of every thread of PID. Returns 0 or -1 with *errno_out. */
int procfs_children_read(pid_t pid, struct procfs_pids *out, int *errno_out);

/* Reads a whole /proc file (at most max_bytes) into a NUL-terminated buffer the caller
 * frees. Returns 0, or -1 with *errno_out, *buf NULL and *len 0. */
int procfs_file_read(const char *path, size_t max_bytes, char **buf, size_t *len, int *errno_out);
/* The value of NAME in a NUL-separated environ text, or NULL. Points into buf. */
const char *procfs_environ_get(const char *buf, size_t len, const char *name);
/* The basename of argv[0] in a NUL-separated cmdline text, copied into out ("" if none). */
void procfs_cmdline_argv0(const char *buf, size_t len, char *out, size_t outsz);

/* Where Node's inspector listens, from its options. */
struct procfs_inspect_addr {
	char host[256];
	int port;
	bool seen; /* an option named a host or port */
	bool opens; /* --inspect, --inspect-brk or --inspect-wait: open from the start */
};

void procfs_inspect_addr_init(struct procfs_inspect_addr *a);
/* Node's [host:]port syntax ("9230", "0.0.0.0", "[::1]:0", "localhost:9230"). Returns 0, or
 * -1 if malformed. host is "" when only a port is given (the host stays as it was); a host
 * alone means port 9229, as in Node. */
int procfs_hostport_parse(const char *arg, char *host, size_t hostsz, int *port);
/* Applies --inspect[=hp], --inspect-brk[=hp], --inspect-wait[=hp], --inspect-port[=]hp and
 * --debug-port[=]hp found in a NUL-separated argv (argv[0] first; scanning stops at the script
 * name or "--"). Later options win, so scan NODE_OPTIONS first and the command line second. */
void procfs_inspect_scan_argv(const char *buf, size_t len, struct procfs_inspect_addr *a);
/* The same for a NODE_OPTIONS value (space-separated, double quotes and backslashes). */
void procfs_inspect_scan_node_options(const char *value, struct procfs_inspect_addr *a);
/* Where a process's options put its inspector, from the texts of its /proc environ and
 * cmdline (either may be NULL): the defaults, then NODE_OPTIONS, then the command line, which
 * is Node's order, so the command line wins. */
void procfs_inspect_addr_scan(const char *env, size_t env_len, const char *cmd, size_t cmd_len,
	struct procfs_inspect_addr *a);
/* The same for a live PID. A file that cannot be read counts as empty: another user's
 * environ is private, and then only the command line is known. */
void procfs_inspect_addr_read(pid_t pid, struct procfs_inspect_addr *a);

/* The PID (other than skip) with an open file on socket INODE, scanning /proc/ * /fd; 0 if
 * none could be seen (other users' processes are invisible unless we are root). */
pid_t procfs_inode_owner(unsigned long inode, pid_t skip);
/* True if the process looks like Node: its executable or argv[0] is named node, or its comm
 * is "node". */
bool procfs_looks_like_node(pid_t pid, const struct procfs_status *st);

/* VmRSS of /proc/PID/status text, in bytes. Returns 0, or -1 if absent (a kernel thread, a
 * zombie) or malformed. */
int procfs_status_rss(const char *text, size_t len, double *rss_bytes);
int procfs_rss_read(pid_t pid, double *rss_bytes);
/* The process's start time (field 22 of /proc/PID/stat, clock ticks since boot). 0 or -1. */
int procfs_start_time(pid_t pid, unsigned long long *ticks);
/* Seconds since the process started (CLOCK_BOOTTIME, the clock its start time counts on). */
int procfs_age_s(pid_t pid, double *age_s);
/* The process's user and system CPU time in seconds (fields 14 and 15 of /proc/PID/stat).
 * 0 or -1. */
int procfs_cpu_seconds(pid_t pid, double *seconds);
/* MemAvailable of /proc/meminfo, in bytes. Returns 0 or -1. */
int procfs_mem_available(double *bytes);

/* A decimal number of n bytes at s, at most max (procfs.c, shared with procfs_inspect.c). */
bool procfs_parse_dec(const char *s, size_t n, unsigned long max, unsigned long *out);

#endif
