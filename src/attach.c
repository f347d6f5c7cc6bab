/* attach.c: see attach.h. */
#include "config.h"
#include "attach.h"
#include "inspector_ws.h"

#include "exitcode.h"
#include "http.h"
#include "procfs.h"
#include "strbuf.h"
#include "util.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ATTACH_DEFAULT_TIMEOUT_S 5.0
#define ATTACH_POLL_S 0.020
/* The target reports a busy port at once; give it this long before blaming the port. */
#define ATTACH_BUSY_GRACE_S 1.0
/* An app's own server that never answers must not eat the whole timeout. */
#define ATTACH_PROBE_MAX_S 1.0
#define ATTACH_CHILD_DEPTH 4
#define ATTACH_CHILD_MAX 256

struct attach_endpoint {
	char host[INET6_ADDRSTRLEN];
	char host_header[INET6_ADDRSTRLEN + 10];
	int port;
	struct netns_ref ns; /* where its sockets are created; attach_endpoint_set leaves it */
};

static int attach_fail(char **cause, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void attach_close_late(const struct attach_result *r, int pidfd,
	const struct procfs_status *st, const struct procfs_inspect_addr *want,
	const struct procfs_inodes *before, double timeout_s, char **cause);

static int attach_fail(char **cause, int code, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(*cause);
	*cause = xstrdup(buf);
	return code;
}

bool attach_host_is_loopback(const char *host)
{
	char buf[INET6_ADDRSTRLEN + 2];
	struct in_addr a4;
	struct in6_addr a6;
	size_t n;

	if (!host || !host[0])
		return false;
	n = strlen(host);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)host[i] <= 0x20 || (unsigned char)host[i] >= 0x7f)
			return false;
	if (host[0] == '[' && n >= 2 && host[n - 1] == ']' && n - 2 < sizeof(buf)) {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		host = buf;
	}
	if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
		return true;
	/* inet_aton accepts what getaddrinfo accepts ("127.1", "0x7f.0.0.1"). */
	if (!strchr(host, ':') && inet_aton(host, &a4))
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
			(IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

bool attach_pid_alive(pid_t pid)
{
	struct procfs_status st;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	/* A zombie (or a process on its way out) has exited as far as anyone can tell. */
	if (procfs_status_read(pid, &st, NULL) == 0 && (st.state == 'Z' || st.state == 'X'))
		return false;
	return true;
}

static void attach_endpoint_set(struct attach_endpoint *ep, const char *numeric, int port)
{
	snprintf(ep->host, sizeof(ep->host), "%s", numeric);
	if (strchr(numeric, ':'))
		snprintf(ep->host_header, sizeof(ep->host_header), "[%s]:%d", numeric, port);
	else
		snprintf(ep->host_header, sizeof(ep->host_header), "%s:%d", numeric, port);
	ep->port = port;
}

/* Where to connect for a listener: wildcards through loopback, v4-mapped as IPv4. */
static void attach_endpoint_from_listener(const struct procfs_listener *l,
	struct attach_endpoint *ep)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char buf[INET6_ADDRSTRLEN];

	if (procfs_listener_is_wildcard(l)) {
		attach_endpoint_set(ep, l->family == AF_INET ? "127.0.0.1" : "::1", l->port);
		return;
	}
	if (l->family == AF_INET6 && memcmp(l->addr, mapped, 12) == 0)
		inet_ntop(AF_INET, l->addr + 12, buf, sizeof(buf));
	else
		procfs_listener_addr_str(l, buf, sizeof(buf));
	attach_endpoint_set(ep, buf, l->port);
}

/* "node.js/v20.20.2" -> "v20.20.2". */
static int attach_parse_version(const char *body, size_t len, char *out, size_t outsz)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "Browser");
	const char *v;
	size_t n;
	int rc = -1;

	if (!cJSON_IsObject(root) || !cJSON_IsString(b) || !b->valuestring)
		goto out;
	if (strncmp(b->valuestring, "node.js/", 8) != 0)
		goto out;
	v = b->valuestring + 8;
	n = strlen(v);
	if (n == 0 || n >= outsz)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'z') ||
			(v[i] >= 'A' && v[i] <= 'Z') || v[i] == '.' || v[i] == '-' || v[i] == '+'))
			goto out;
	memcpy(out, v, n + 1);
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

static bool attach_path_ok(const char *p, size_t outsz)
{
	size_t n = strlen(p);

	if (n < 2 || n >= outsz || p[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f || p[i] == '#')
			return false;
	return true;
}

/* Keeps only the path of ws://host:port/ID: the host and port are ours to choose. */
static int attach_ws_path(const char *url, char *out, size_t outsz)
{
	const char *p, *slash;

	if (strncasecmp(url, "ws://", 5) == 0)
		p = url + 5;
	else if (strncasecmp(url, "wss://", 6) == 0)
		p = url + 6;
	else
		return -1;
	slash = strchr(p, '/');
	if (!slash || !attach_path_ok(slash, outsz))
		return -1;
	memcpy(out, slash, strlen(slash) + 1);
	return 0;
}

/* The first target of type "node" in /json/list. */
static int attach_parse_list(const char *body, size_t len, struct attach_result *r,
	char **cause, const char *addr)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *t;
	int rc = EXIT_PROTOCOL;

	if (!cJSON_IsArray(root)) {
		attach_fail(cause, EXIT_PROTOCOL, "%s answered /json/list with something that is not "
			"a JSON array of targets.", addr);
		goto out;
	}
	cJSON_ArrayForEach(t, root) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(t, "type");
		const cJSON *ws = cJSON_GetObjectItemCaseSensitive(t, "webSocketDebuggerUrl");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(t, "title");
		char idpath[sizeof(r->ws_path)];

		if (!cJSON_IsObject(t) || !cJSON_IsString(type) || strcmp(type->valuestring, "node") != 0)
			continue;
		if (cJSON_IsString(ws)) {
			if (attach_ws_path(ws->valuestring, r->ws_path, sizeof(r->ws_path)) < 0) {
				attach_fail(cause, EXIT_PROTOCOL, "%s listed a malformed "
					"webSocketDebuggerUrl.", addr);
				goto out;
			}
		} else if (cJSON_IsString(id)) {
			/* Node's websocket path is "/" + id when the URL is left out. */
			snprintf(idpath, sizeof(idpath), "/%s", id->valuestring);
			if (!attach_path_ok(idpath, sizeof(r->ws_path))) {
				attach_fail(cause, EXIT_PROTOCOL, "%s listed a malformed target id.", addr);
				goto out;
			}
			memcpy(r->ws_path, idpath, strlen(idpath) + 1);
		} else {
			attach_fail(cause, EXIT_PROTOCOL, "%s listed a node target without a "
				"websocket URL.", addr);
			goto out;
		}
		if (cJSON_IsString(title))
			util_sanitize(title->valuestring, strlen(title->valuestring), r->title,
				sizeof(r->title));
		else
			r->title[0] = '\0';
		rc = EXIT_OK;
		goto out;
	}
	attach_fail(cause, EXIT_PROTOCOL, "%s lists no target of type \"node\".", addr);
out:
	cJSON_Delete(root);
	return rc;
}

/* A GET that maps failures to exit statuses. */
static int attach_get(const struct attach_endpoint *ep, const char *path, double timeout_s,
	char **body, size_t *len, char **cause)
{
	int status = 0, err = 0, code;
	char *msg = NULL;

	if (http_get(&ep->ns, ep->host, ep->port, ep->host_header, path, timeout_s, &status, body,
		len, &err, &msg) < 0) {
		if (err == ECONNREFUSED)
			code = attach_fail(cause, EXIT_UNREACHABLE, "no inspector listens on %s "
				"(connection refused).", ep->host_header);
		else if (err == ETIMEDOUT)
			code = attach_fail(cause, EXIT_TIMEOUT, "%s", msg);
		else if (err == EPROTO || err == EMSGSIZE)
			code = attach_fail(cause, EXIT_PROTOCOL, "%s", msg);
		else if (netns_is_foreign(&ep->ns) && (err == EPERM || err == EACCES))
			code = attach_fail(cause, EXIT_PERMISSION, "%s", msg);
		else
			code = attach_fail(cause, EXIT_UNREACHABLE, "%s", msg);
		free(msg);
		return code;
	}
	if (status != 200) {
		free(*body);
		*body = NULL;
		return attach_fail(cause, EXIT_PROTOCOL, "%s answered GET %s with HTTP status %d, "
			"which Node's inspector would not%s.", ep->host_header, path, status,
			status == 404 ? " (unless --inspect-publish-uid hides its HTTP endpoints)" : "");
	}
	return EXIT_OK;
}

/* GET /json/version: EXIT_OK when Node's inspector answers. */
static int attach_probe(const struct attach_endpoint *ep, double timeout_s, char *version,
	size_t versz, char **cause)
{
	char *body = NULL;
	size_t len = 0;
	int code = attach_get(ep, "/json/version", timeout_s, &body, &len, cause);

	if (code != EXIT_OK)
		return code;
	if (attach_parse_version(body, len, version, versz) < 0)
		code = attach_fail(cause, EXIT_PROTOCOL, "%s answers HTTP but is not Node's "
			"inspector (its /json/version names no node.js Browser).", ep->host_header);
	free(body);
	return code;
}

static int attach_fetch_list(const struct attach_endpoint *ep, double timeout_s,
	struct attach_result *r, char **cause)
{
	char *body = NULL;
	size_t len = 0;
	int code = attach_get(ep, "/json/list", timeout_s, &body, &len, cause);

	if (code != EXIT_OK)
		return code;
	code = attach_parse_list(body, len, r, cause, ep->host_header);
	free(body);
	return code;
}

static void attach_result_set_endpoint(struct attach_result *r, const struct attach_endpoint *ep)
{
	r->netns = ep->ns;
	snprintf(r->host, sizeof(r->host), "%s", ep->host);
	snprintf(r->host_header, sizeof(r->host_header), "%s", ep->host_header);
	r->port = ep->port;
}

/* Where r's inspector takes one-shot evaluations. */
static struct inspector_ws attach_ws(const struct attach_result *r)
{
	return (struct inspector_ws){ &r->netns, r->host, r->port, r->host_header, r->ws_path };
}

static double attach_min(double a, double b)
{
	return a < b ? a : b;
}

/* Probes the target's listeners (port `first` first) that are not in skip or rejected.
 * Returns true with *ep and version set when one is Node's inspector. */
static bool attach_find_inspector(const struct procfs_listeners *ls,
	const struct procfs_inodes *owned, const struct procfs_inodes *skip,
	struct procfs_inodes *rejected, int first, double deadline_s,
	struct attach_endpoint *ep, char *version, size_t versz)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ls->n; i++) {
			const struct procfs_listener *l = &ls->v[i];
			char *why = NULL;
			double left_s = deadline_s - util_now_mono_s();
			int code;

			if ((pass == 0) != (l->port == first))
				continue;
			if (!procfs_inodes_has(owned, l->inode) || procfs_inodes_has(rejected, l->inode))
				continue;
			if (skip && procfs_inodes_has(skip, l->inode))
				continue;
			if (left_s < 0.05)
				left_s = 0.05;
			attach_endpoint_from_listener(l, ep);
			code = attach_probe(ep, attach_min(left_s, ATTACH_PROBE_MAX_S), version, versz, &why);
			free(why);
			if (code == EXIT_OK)
				return true;
			/* A refusal can be a listener still being set up: try it again later. */
			if (code != EXIT_UNREACHABLE)
				procfs_inodes_add(rejected, l->inode);
		}
	}
	return false;
}

static void attach_user_name(uid_t uid, char *out, size_t outsz)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name)
		util_sanitize(res->pw_name, strlen(res->pw_name), out, outsz);
	else
		snprintf(out, outsz, "uid %u", (unsigned)uid);
}

static int attach_fail_permission(pid_t pid, char **cause)
{
	struct procfs_status st;
	char user[64];

	if (procfs_status_read(pid, &st, NULL) < 0)
		return attach_fail(cause, EXIT_PERMISSION, "PID %d belongs to another user: ntop-js "
			"must run as that user or as root.", (int)pid);
	if (st.uid == geteuid())
		return attach_fail(cause, EXIT_PERMISSION, "PID %d (%s) is yours but its open files "
			"cannot be read (it is not dumpable, or /proc hides it): ntop-js must run as "
			"root to attach to it.", (int)pid, st.name);
	attach_user_name(st.uid, user, sizeof(user));
	return attach_fail(cause, EXIT_PERMISSION, "PID %d (%s) belongs to %s (uid %u): ntop-js "
		"must run as that user or as root.", (int)pid, st.name, user, (unsigned)st.uid);
}

/* A node process among PID's descendants (breadth first, a few levels), or 0. */
static pid_t attach_find_node_child(pid_t pid)
{
	struct procfs_pids q = { 0 };
	size_t level_end, head = 0;
	pid_t found = 0;

	procfs_children_read(pid, &q, NULL);
	level_end = q.n;
	for (int depth = 1; depth <= ATTACH_CHILD_DEPTH && head < q.n && !found; depth++) {
		for (; head < level_end && !found; head++) {
			struct procfs_status st;
			if (procfs_status_read(q.v[head], &st, NULL) == 0 && st.state != 'Z' &&
				procfs_looks_like_node(q.v[head], &st))
				found = q.v[head];
			else if (q.n < ATTACH_CHILD_MAX)
				procfs_children_read(q.v[head], &q, NULL);
		}
		level_end = q.n;
	}
	procfs_pids_free(&q);
	return found;
}

/* Would a listener keep Node from binding want's host and port? */
static bool attach_listener_conflicts(const struct procfs_listener *l,
	const struct procfs_inspect_addr *want)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (l->port != want->port)
		return false;
	if (procfs_listener_is_wildcard(l))
		return true;
	if (strcasecmp(want->host, "localhost") == 0)
		return procfs_listener_is_loopback(l);
	if (inet_pton(AF_INET, want->host, &a4) == 1) {
		if (a4.s_addr == 0)
			return l->family == AF_INET;
		return l->family == AF_INET && memcmp(l->addr, &a4, 4) == 0;
	}
	if (inet_pton(AF_INET6, want->host, &a6) == 1) {
		if (IN6_IS_ADDR_UNSPECIFIED(&a6))
			return true;
		return l->family == AF_INET6 && memcmp(l->addr, &a6, 16) == 0;
	}
	return true; /* a host name: any listener on the port is the likely culprit */
}

static int attach_fail_busy(pid_t pid, const struct procfs_status *st,
	const struct procfs_listener *l, bool own, char **cause)
{
	pid_t holder = own ? 0 : procfs_inode_owner(l->inode, pid);
	struct procfs_status hst;

	if (own)
		return attach_fail(cause, EXIT_PORT_BUSY, "PID %d (%s) could not open its inspector: "
			"port %d is already taken by a server of its own; restart it with "
			"--inspect-port set to a free port (or 0).", (int)pid, st->name, l->port);
	if (holder > 0 && procfs_status_read(holder, &hst, NULL) == 0)
		return attach_fail(cause, EXIT_PORT_BUSY, "PID %d (%s) could not open its inspector: "
			"port %d is already taken by PID %d (%s); free that port (close the other "
			"debugger or inspector) and try again.", (int)pid, st->name, l->port,
			(int)holder, hst.name);
	return attach_fail(cause, EXIT_PORT_BUSY, "PID %d (%s) could not open its inspector: "
		"port %d is already taken by another process; free that port and try again.",
		(int)pid, st->name, l->port);
}

/* Reads the target's socket inodes and the listeners of its namespace. */
static int attach_read_sockets(pid_t pid, struct procfs_inodes *fds, struct procfs_listeners *ls,
	int *err)
{
	fds->n = 0;
	ls->n = 0;
	if (procfs_socket_inodes_read(pid, fds, err) < 0)
		return -1;
	return procfs_listeners_read(pid, ls, err);
}

static bool attach_pidfd_exited(int pidfd);

/* After SIGUSR1: waits for a new listener of the target that is Node's inspector. */
static int attach_wait_listener(pid_t pid, int pidfd, const struct procfs_status *st,
	const struct procfs_inspect_addr *want, const struct procfs_inodes *before,
	double t0_s, double deadline_s, double timeout_s, struct attach_endpoint *ep,
	char *version, size_t versz, char **cause)
{
	struct procfs_inodes fds = { 0 }, rejected = { 0 };
	struct procfs_listeners ls = { 0 };
	int code = EXIT_TIMEOUT;

	for (;;) {
		struct procfs_status now_st;
		double now_s = util_now_mono_s();
		int err = 0;

		if (attach_pidfd_exited(pidfd) || procfs_status_read(pid, &now_st, &err) < 0 ||
			now_st.state == 'Z') {
			code = attach_fail(cause, EXIT_TARGET_GONE, "PID %d (%s) exited while ntop-js "
				"waited for its inspector.", (int)pid, st->name);
			break;
		}
		if (attach_read_sockets(pid, &fds, &ls, &err) == 0) {
			if (attach_find_inspector(&ls, &fds, before, &rejected, want->port, deadline_s,
				ep, version, versz)) {
				code = EXIT_OK;
				break;
			}
			if (want->port > 0 && now_s - t0_s >= ATTACH_BUSY_GRACE_S) {
				const struct procfs_listener *busy = NULL;
				/* Another process's socket, or one of the target's own that was there
				 * before the signal (and so is not its inspector). */
				for (size_t i = 0; i < ls.n && !busy; i++)
					if ((!procfs_inodes_has(&fds, ls.v[i].inode) ||
						procfs_inodes_has(before, ls.v[i].inode)) &&
						attach_listener_conflicts(&ls.v[i], want))
						busy = &ls.v[i];
				if (busy) {
					code = attach_fail_busy(pid, st, busy,
						procfs_inodes_has(&fds, busy->inode), cause);
					break;
				}
			}
		}
		if (util_now_mono_s() >= deadline_s) {
			code = attach_fail(cause, EXIT_TIMEOUT, "PID %d (%s) did not open its inspector "
				"within %.3g s of SIGUSR1 (if the app listens for SIGUSR1 itself, "
				"Node does not open it).", (int)pid, st->name, timeout_s);
			break;
		}
		util_sleep_s(attach_min(ATTACH_POLL_S, deadline_s - util_now_mono_s() + 0.001));
	}
	procfs_inodes_free(&fds);
	procfs_inodes_free(&rejected);
	procfs_listeners_free(&ls);
	return code;
}

/* Refuses a process that must not get SIGUSR1, naming a node child when there is one. */
static int attach_refuse_signal(pid_t pid, const struct procfs_status *st, char **cause)
{
	pid_t child;

	if (!(st->sig_cgt & PROCFS_SIGUSR1_MASK) && (st->sig_blk & PROCFS_SIGUSR1_MASK))
		return attach_fail(cause, EXIT_SIGNAL_DISABLED, "PID %d (%s) blocks SIGUSR1, so its "
			"inspector cannot be opened by signal (attach by signal is disabled, e.g. by "
			"--disable-sigusr1); restart it with --inspect=127.0.0.1:0 and use --port.",
			(int)pid, st->name);
	child = attach_find_node_child(pid);
	if (child > 0)
		return attach_fail(cause, EXIT_NOT_NODE, "PID %d is %s, not Node; its child PID %d "
			"is node: run ntop-js --pid %d.", (int)pid, st->name, (int)child, (int)child);
	if (st->sig_cgt & PROCFS_SIGUSR1_MASK)
		return attach_fail(cause, EXIT_NOT_NODE, "PID %d (%s) handles SIGUSR1 but does not "
			"look like Node, so ntop-js will not signal it; if it is Node under another "
			"name, open its inspector yourself (kill -USR1 %d) and use --port.", (int)pid,
			st->name, (int)pid);
	if (procfs_looks_like_node(pid, st))
		return attach_fail(cause, EXIT_SIGNAL_DISABLED, "PID %d (%s) runs Node but has no "
			"SIGUSR1 handler (still starting up, or built or started without attach by "
			"signal); try again, or restart it with --inspect=127.0.0.1:0 and use --port.",
			(int)pid, st->name);
	return attach_fail(cause, EXIT_NOT_NODE, "PID %d is %s, not Node (it has no SIGUSR1 "
		"handler, and the signal would kill it).", (int)pid, st->name);
}

/* A pidfd pins the process: if it exits and its PID is reused between our checks and the
 * signal, the signal fails instead of reaching a stranger. -1 where unsupported. */
static int attach_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* A pidfd turns readable when its process exits (even before it is reaped). */
static bool attach_pidfd_exited(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&pfd, 1, 0) > 0;
}

static int attach_send_sigusr1(pid_t pid, int pidfd)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, pidfd, SIGUSR1, NULL, 0);
#endif
	(void)pidfd;
	return kill(pid, SIGUSR1);
}

/* Before anything is signalled: can ntop-js create sockets in the target's namespace? */
static int attach_check_netns(pid_t pid, const struct procfs_status *st,
	const struct netns_ref *ns, char **cause)
{
	char *why = NULL;
	int saved, err = 0, code;

	if (netns_enter(ns, &saved, &err, &why) == 0) {
		netns_leave(saved);
		return EXIT_OK;
	}
	if (err == EPERM)
		code = attach_fail(cause, EXIT_PERMISSION, "PID %d (%s) runs in another network "
			"namespace (a container), and ntop-js needs CAP_SYS_ADMIN to reach its inspector "
			"there; run it with that capability (as root), or inside that namespace (nsenter "
			"-t %d -n ntop-js --pid %d), or on Kubernetes from a debug container (kubectl debug "
			"--target=<container>).",
			(int)pid, st->name, (int)pid, (int)pid);
	else if (err == EACCES)
		code = attach_fail_permission(pid, cause);
	else if (err == ENOENT || err == ESRCH || err == ESTALE)
		code = attach_fail(cause, EXIT_NO_PROCESS, "PID %d has exited.", (int)pid);
	else
		code = attach_fail(cause, EXIT_UNREACHABLE, "%s", why);
	free(why);
	return code;
}

/* The process behind *pid (a thread id stands for its process, and *pid becomes it), its
 * status in st: EXIT_OK, or why not. */
static int attach_pid_status(pid_t *pid, struct procfs_status *st, char **cause)
{
	int err = 0;

	if (kill(*pid, 0) < 0) {
		if (errno == EPERM)
			return attach_fail_permission(*pid, cause);
		return attach_fail(cause, EXIT_NO_PROCESS, "no process with PID %d.", (int)*pid);
	}
	if (procfs_status_read(*pid, st, &err) < 0) {
		if (err == ENOENT || err == ESRCH)
			return attach_fail(cause, EXIT_NO_PROCESS, "no process with PID %d.", (int)*pid);
		if (err == EACCES || err == EPERM)
			return attach_fail_permission(*pid, cause);
		return attach_fail(cause, EXIT_INTERNAL, "cannot read /proc/%d/status: %s.", (int)*pid,
			strerror(err));
	}
	if (st->tgid > 0)
		*pid = st->tgid;
	return EXIT_OK;
}

/* Opens the inspector of a process that has none open with SIGUSR1, and waits for it to
 * listen: EXIT_OK with ep filled, or why not (an inspector that came too late is closed). */
static int attach_by_signal(pid_t pid, int pidfd, struct procfs_status *st,
	struct procfs_inspect_addr *want, struct procfs_inodes *fds, double timeout_s,
	struct attach_endpoint *ep, struct attach_result *r, char **cause)
{
	double t0_s;
	int code;

	/* Only Node's own handler makes SIGUSR1 safe: anything else dies or misbehaves. */
	if (!(st->sig_cgt & PROCFS_SIGUSR1_MASK) || !procfs_looks_like_node(pid, st))
		return attach_refuse_signal(pid, st, cause);
	t0_s = util_now_mono_s();
	if (attach_send_sigusr1(pid, pidfd) < 0) {
		if (errno == EPERM)
			return attach_fail_permission(pid, cause);
		return attach_fail(cause, EXIT_TARGET_GONE, "PID %d (%s) exited before it could "
			"be signalled.", (int)pid, st->name);
	}
	code = attach_wait_listener(pid, pidfd, st, want, fds, t0_s, t0_s + timeout_s, timeout_s, ep,
		r->node_version, sizeof(r->node_version), cause);
	if (code == EXIT_TIMEOUT)
		attach_close_late(r, pidfd, st, want, fds, timeout_s, cause);
	return code;
}

static int attach_by_pid(const struct attach_opts *o, struct attach_result *r, char **cause)
{
	double timeout_s = o->timeout_s > 0 ? o->timeout_s : ATTACH_DEFAULT_TIMEOUT_S;
	struct procfs_inodes fds = { 0 }, rejected = { 0 };
	struct procfs_listeners ls = { 0 };
	struct procfs_inspect_addr want;
	struct procfs_status st;
	struct attach_endpoint ep = { 0 };
	pid_t pid = o->pid;
	int code, err = 0, pidfd = -1;

	code = attach_pid_status(&pid, &st, cause);
	if (code != EXIT_OK)
		return code;
	/* Every check below reads the process the pidfd pins. */
	pidfd = attach_pidfd_open(pid);
	if (pidfd < 0 && errno == ESRCH)
		return attach_fail(cause, EXIT_NO_PROCESS, "no process with PID %d.", (int)pid);
	if (procfs_status_read(pid, &st, &err) < 0) {
		code = attach_fail(cause, EXIT_NO_PROCESS, "no process with PID %d.", (int)pid);
		goto out;
	}
	/* Node 24 names its main thread, and so the process, "MainThread", and Node 26
	 * "node-MainThread": messages say node. */
	if ((strcmp(st.name, "MainThread") == 0 || strcmp(st.name, "node-MainThread") == 0) &&
	    procfs_looks_like_node(pid, &st))
		snprintf(st.name, sizeof st.name, "node");
	if (st.state == 'Z' || st.state == 'X') {
		code = attach_fail(cause, EXIT_NO_PROCESS, "PID %d has exited (a zombie waiting for "
			"its parent).", (int)pid);
		goto out;
	}
	r->pid = pid;
	if (attach_read_sockets(pid, &fds, &ls, &err) < 0) {
		if (err == EACCES || err == EPERM)
			code = attach_fail_permission(pid, cause);
		else if (err == ENOENT || err == ESRCH)
			code = attach_fail(cause, EXIT_NO_PROCESS, "no process with PID %d.", (int)pid);
		else
			code = attach_fail(cause, EXIT_INTERNAL, "cannot read the sockets of PID %d: %s.",
				(int)pid, strerror(err));
		goto out;
	}
	procfs_inspect_addr_read(pid, &want);
	if (st.ns_levels > 1)
		r->container_pid = st.ns_tgid;
	/* Unknown counts as ours: another user's namespace cannot be read, nor entered. */
	if (netns_probe(pid, &ep.ns, NULL) > 0) {
		code = attach_check_netns(pid, &st, &ep.ns, cause);
		if (code != EXIT_OK)
			goto out;
	}
	/* An inspector that is already open is used as is, even when signals are disabled. */
	if (attach_find_inspector(&ls, &fds, NULL, &rejected, want.port,
		util_now_mono_s() + timeout_s, &ep, r->node_version, sizeof(r->node_version))) {
		r->opened_by_us = false;
		attach_result_set_endpoint(r, &ep);
		code = attach_fetch_list(&ep, timeout_s, r, cause);
		goto out;
	}
	if (o->no_signal) {
		code = attach_fail(cause, EXIT_UNREACHABLE, "PID %d (%s) has no inspector open.",
			(int)pid, st.name);
		goto out;
	}
	code = attach_by_signal(pid, pidfd, &st, &want, &fds, timeout_s, &ep, r, cause);
	if (code != EXIT_OK)
		goto out;
	r->opened_by_us = true;
	attach_result_set_endpoint(r, &ep);
	code = attach_fetch_list(&ep, timeout_s, r, cause);
	if (code == EXIT_OK && !o->no_eval) {
		struct inspector_ws ws = attach_ws(r);

		inspector_settle(&ws, pid, timeout_s);
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	procfs_inodes_free(&fds);
	procfs_inodes_free(&rejected);
	procfs_listeners_free(&ls);
	return code;
}

/* The local process listening on ep's port, if it looks like Node; else 0. */
static pid_t attach_port_owner(const struct attach_endpoint *ep)
{
	struct procfs_listeners ls = { 0 };
	struct procfs_inspect_addr want;
	pid_t owner = 0;

	if (procfs_listeners_read(0, &ls, NULL) < 0)
		goto out;
	procfs_inspect_addr_init(&want);
	snprintf(want.host, sizeof(want.host), "%s", ep->host);
	want.port = ep->port;
	for (size_t i = 0; i < ls.n && !owner; i++) {
		struct procfs_status st;
		pid_t p;

		if (!attach_listener_conflicts(&ls.v[i], &want))
			continue;
		p = procfs_inode_owner(ls.v[i].inode, 0);
		if (p > 0 && procfs_status_read(p, &st, NULL) == 0 && procfs_looks_like_node(p, &st))
			owner = p;
	}
out:
	procfs_listeners_free(&ls);
	return owner;
}

static int attach_by_port(const struct attach_opts *o, struct attach_result *r, char **cause)
{
	double timeout_s = o->timeout_s > 0 ? o->timeout_s : ATTACH_DEFAULT_TIMEOUT_S;
	const char *host = o->host && o->host[0] ? o->host : "127.0.0.1";
	struct addrinfo hints = { 0 }, *res = NULL, *ai;
	struct attach_endpoint ep = { 0 };
	char name[256];
	size_t n = strlen(host);
	int code = EXIT_UNREACHABLE, rc;
	bool tried = false, local = false;

	if (o->port <= 0 || o->port > 65535)
		return attach_fail(cause, EXIT_USAGE, "invalid inspector port %d (expected 1 to "
			"65535).", o->port);
	if (n >= sizeof(name))
		return attach_fail(cause, EXIT_USAGE, "the host name is too long.");
	if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
		memcpy(name, host + 1, n - 2);
		name[n - 2] = '\0';
	} else {
		memcpy(name, host, n + 1);
	}
	if (!o->allow_remote && !attach_host_is_loopback(name))
		return attach_fail(cause, EXIT_USAGE, "refusing to connect to %s: an inspector runs "
			"any code it is sent (remote code execution), so ntop-js only connects to "
			"loopback addresses unless --allow-remote is given.", name);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0)
		return attach_fail(cause, EXIT_UNREACHABLE, "cannot resolve %s: %s.", name,
			gai_strerror(rc));
	/* localhost may resolve to ::1 first while Node listens on 127.0.0.1: try each. */
	for (ai = res; ai; ai = ai->ai_next) {
		char num[INET6_ADDRSTRLEN];

		if (getnameinfo(ai->ai_addr, ai->ai_addrlen, num, sizeof(num), NULL, 0,
			NI_NUMERICHOST) != 0)
			continue;
		if (!o->allow_remote && !attach_host_is_loopback(num))
			continue;
		tried = true;
		attach_endpoint_set(&ep, num, o->port);
		code = attach_probe(&ep, timeout_s, r->node_version, sizeof(r->node_version), cause);
		if (code == EXIT_OK || code == EXIT_PROTOCOL)
			break;
	}
	freeaddrinfo(res);
	if (!tried)
		return attach_fail(cause, EXIT_USAGE, "%s resolves to no loopback address; use "
			"--allow-remote to connect to it anyway.", name);
	if (code != EXIT_OK)
		return code;
	attach_result_set_endpoint(r, &ep);
	local = attach_host_is_loopback(ep.host);
	code = attach_fetch_list(&ep, timeout_s, r, cause);
	if (code == EXIT_OK && local)
		r->pid = attach_port_owner(&ep);
	return code;
}

int attach_target(const struct attach_opts *o, struct attach_result *r, char **cause)
{
	int code;

	memset(r, 0, sizeof(*r));
	*cause = NULL;
	if (o->pid < 0)
		return attach_fail(cause, EXIT_USAGE, "invalid PID %d.", (int)o->pid);
	code = o->pid > 0 ? attach_by_pid(o, r, cause) : attach_by_port(o, r, cause);
	if (code == EXIT_OK) {
		free(*cause);
		*cause = NULL;
	}
	return code;
}

int attach_close_inspector(const struct attach_opts *o, const struct attach_result *r,
	char **cause)
{
	double timeout_s = o->timeout_s > 0 ? o->timeout_s : ATTACH_DEFAULT_TIMEOUT_S;
	struct inspector_ws ws = attach_ws(r);
	char *reply = NULL, *why = NULL;
	int code;

	*cause = NULL;
	if (inspector_eval_closing(&ws, "i.close()", timeout_s, &reply, &why) < 0) {
		code = attach_fail(cause, EXIT_UNREACHABLE, "cannot close the inspector of PID %d on "
			"port %d: %s", (int)r->pid, r->port, why ? why : "no connection.");
		free(why);
		return code;
	}
	if (reply) {
		free(reply);
		return attach_fail(cause, EXIT_PROTOCOL, "PID %d would not close its inspector on "
			"port %d.", (int)r->pid, r->port);
	}
	return EXIT_OK;
}

/* SIGUSR1 was sent, but the inspector did not open in time: Node opens it on the main thread,
 * so a thread busy in a long task opens it when the task ends, after ntop-js gave up, and it
 * would stay open. Waits as long again (5 s at least) for it and closes it if it comes; the
 * cause says which. */
static void attach_close_late(const struct attach_result *r, int pidfd,
	const struct procfs_status *st, const struct procfs_inspect_addr *want,
	const struct procfs_inodes *before, double timeout_s, char **cause)
{
	double wait_s = timeout_s > 5 ? timeout_s : 5, t0_s = util_now_mono_s();
	struct attach_result late = *r;
	struct attach_endpoint ep;
	char *why = NULL, *reply = NULL, *old = *cause;
	size_t n = old ? strlen(old) : 0;

	memset(&ep, 0, sizeof ep);
	if (old && n && old[n - 1] == '.')
		n--;
	if (attach_wait_listener(r->pid, pidfd, st, want, before, t0_s, t0_s + wait_s, wait_s, &ep,
			late.node_version, sizeof late.node_version, &why) != EXIT_OK) {
		*cause = xasprintf("%.*s; ntop-js waited %.3g s more: if it opens later, it stays open "
			"until the process exits.", (int)n, old ? old : "", wait_s);
	} else {
		struct inspector_ws late_ws;

		free(why);
		why = NULL;
		attach_result_set_endpoint(&late, &ep);
		late_ws = attach_ws(&late);
		/* the main thread that was slow to open it is slow to close it too */
		if (attach_fetch_list(&ep, wait_s, &late, &why) == EXIT_OK &&
		    inspector_eval_closing(&late_ws, "i.close()", wait_s, &reply, &why) == 0 && !reply)
			*cause = xasprintf("%.*s; it opened %.1f s later, and ntop-js closed it again.",
				(int)n, old ? old : "", util_now_mono_s() - t0_s);
		else
			*cause = xasprintf("%.*s; it opened later on port %d, and ntop-js could not see it "
				"close (a close sent runs once the main thread is free).", (int)n,
				old ? old : "", late.port);
	}
	free(reply);
	free(why);
	free(old);
}

int attach_move_inspector(const struct attach_opts *o, struct attach_result *r, char **cause)
{
	double timeout_s = o->timeout_s > 0 ? o->timeout_s : ATTACH_DEFAULT_TIMEOUT_S;
	double deadline_s = util_now_mono_s() + timeout_s;
	struct attach_opts find = *o;
	struct inspector_ws ws;
	struct strbuf body;
	char *reply = NULL, *why = NULL, old_path[sizeof r->ws_path];
	int old_port = r->port, code;

	*cause = NULL;
	snprintf(old_path, sizeof old_path, "%s", r->ws_path);
	/* Both in one evaluation: the reply is the close frame, and the target is never left
	 * without the inspector it had. The host is the address it listened on. */
	strbuf_init(&body);
	strbuf_puts(&body, "i.close();i.open(0,");
	strbuf_json_string(&body, r->host, strlen(r->host));
	strbuf_puts(&body, ")");
	ws = attach_ws(r);
	code = inspector_eval_closing(&ws, body.data, timeout_s, &reply, &why);
	strbuf_free(&body);
	if (code < 0) {
		code = attach_fail(cause, EXIT_UNREACHABLE, "cannot move the inspector of PID %d off "
			"port %d: %s", (int)r->pid, old_port, why ? why : "no connection.");
		free(why);
		return code;
	}
	if (reply) {
		/* An answer instead of the close: the code failed and the inspector stays. */
		free(reply);
		return attach_fail(cause, EXIT_PROTOCOL, "PID %d would not move its inspector off "
			"port %d (Node refused to close and reopen it).", (int)r->pid, old_port);
	}
	find.pid = r->pid;
	find.no_signal = true;
	for (;;) {
		struct attach_result nr;
		double left_s = deadline_s - util_now_mono_s();

		find.timeout_s = left_s > 0.2 ? left_s : 0.2;
		code = attach_target(&find, &nr, &why);
		/* Reopened: a new target id. The free port the kernel picks is, now and then, the
		 * one just closed, so the port alone cannot tell. */
		if (code == EXIT_OK && (nr.port != old_port || strcmp(nr.ws_path, old_path) != 0)) {
			*r = nr;
			r->opened_by_us = true; /* still ours to close at the end */
			return EXIT_OK;
		}
		if (code != EXIT_OK && code != EXIT_UNREACHABLE && code != EXIT_TIMEOUT) {
			*cause = why;
			return code;
		}
		free(why);
		why = NULL;
		if (util_now_mono_s() >= deadline_s)
			return attach_fail(cause, EXIT_TIMEOUT, "PID %d did not reopen its inspector "
				"on a free port within %.3g s.", (int)r->pid, timeout_s);
		util_sleep_s(ATTACH_POLL_S * 2);
	}
}
