/* attach.h: finding and opening a target's inspector, and nothing else (no websocket, no
 * protocol session, no curses).
 *
 * By PID: check the process exists, is ours to signal and is Node; refuse wrappers (naming
 * their node child) and processes where attach by signal is disabled; use an inspector that
 * is already listening, else send SIGUSR1 (only when Node's handler is installed) and wait,
 * bounded, for the listener, found from /proc (never assumed to be 9229). A target in another
 * network namespace (a container) is reached by creating the sockets in its namespace
 * (netns.h), which needs CAP_SYS_ADMIN; without it, attach refuses before signalling. By host
 * and port: only loopback addresses unless allow_remote. Either way the inspector is confirmed with
 * GET /json/version and the websocket path taken from GET /json/list; the host and port we
 * connect to are always the ones we chose, never ones a reply names. */
#ifndef NTOP_ATTACH_H
#define NTOP_ATTACH_H

#include "inspector_ws.h"
#include "netns.h"

#include <stdbool.h>
#include <sys/types.h>


struct attach_opts {
	pid_t pid;           /* > 0: attach by PID; 0: use host and port */
	const char *host;    /* for --port; default "127.0.0.1" */
	int port;            /* for --port */
	bool allow_remote;
	double timeout_s;    /* bound on every wait (listener to appear, HTTP replies) */
	bool no_signal;      /* by PID: use an inspector that is open, never send SIGUSR1 */
	bool no_eval;        /* --no-eval: nothing is evaluated, not even to see it started */
};

struct attach_result {
	pid_t pid;              /* the target's PID, or 0 if it could not be found (--port) */
	char host[256];         /* numeric address to connect to (IPv6 without brackets) */
	char host_header[300];  /* what to send as Host: "127.0.0.1:9230" or "[::1]:9230" */
	int port;
	char ws_path[512];      /* path of the webSocketDebuggerUrl, starting with '/' */
	char node_version[64];  /* "v20.20.2" */
	char title[512];        /* the target's title from /json/list */
	bool opened_by_us;      /* the inspector was not listening until we signalled */
	/* A target in a container: the network namespace its inspector listens in (pid 0: ours),
	 * and its PID inside its own PID namespace (NStgid's last field; 0: it shares ours). */
	struct netns_ref netns;
	pid_t container_pid;
};

/* Returns EXIT_OK (0) or one of enum ntop_exit with *cause set to one sentence (no trailing
 * newline) that the caller frees. */
int attach_target(const struct attach_opts *o, struct attach_result *r, char **cause);

/* Moves an inspector that ntop-js opened (r->opened_by_us) off its port: the target closes it
 * and opens it again on a free port of the same address, so that the next process of a
 * service can open its own on the port they all share (9229 unless told otherwise). r then
 * describes the new one. Returns EXIT_OK or one of enum ntop_exit with *cause. */
int attach_move_inspector(const struct attach_opts *o, struct attach_result *r, char **cause);

/* Closes an inspector that ntop-js opened, for a target it attached to but will not watch
 * (the session ended meanwhile). Returns EXIT_OK or one of enum ntop_exit with *cause. */
int attach_close_inspector(const struct attach_opts *o, const struct attach_result *r,
	char **cause);

/* True if the host is a loopback address or "localhost". */
bool attach_host_is_loopback(const char *host);

/* True while the process exists (kill(pid, 0) succeeds or fails with EPERM) and is not a
 * zombie. */
bool attach_pid_alive(pid_t pid);

#endif
