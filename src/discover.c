/* discover.c: see discover.h. */
#include "config.h"
#include "discover.h"

#include "procfs.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DISCOVER_FILE_MAX_BYTES (1024u * 1024)
/* --list lines stay within this many columns; the command is cut to fit. */
#define DISCOVER_LINE_MAX_COLS 160

/* The listeners of each network namespace seen, read once per scan: most processes share
 * one namespace, and /proc/net/tcp can be large on a busy host. */
struct discover_netns {
	char id[64];
	struct procfs_listeners ls;
	bool ok;
};

struct discover_scan {
	struct discover_netns *ns;
	size_t n, cap;
	char own_ns[64];
};

static bool discover_parse_pid(const char *s, pid_t *out)
{
	long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = (pid_t)v;
	return v > 0;
}

static bool discover_read_link(const char *path, char *out, size_t outsz)
{
	ssize_t n = readlink(path, out, outsz - 1);

	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
}

/* The listeners of PID's network namespace, whose name is id ("net:[4026531992]"). A
 * container's are its own: /proc/PID/net/tcp shows the namespace PID lives in. */
static const struct procfs_listeners *discover_listeners_of(struct discover_scan *sc, pid_t pid,
	const char *id)
{
	struct discover_netns *ns;

	if (!id[0])
		return NULL;
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->ns[i].id, id) == 0)
			return sc->ns[i].ok ? &sc->ns[i].ls : NULL;
	sc->ns = xreallocarray_grow(sc->ns, &sc->cap, sc->n + 1, sizeof(*sc->ns));
	ns = &sc->ns[sc->n++];
	memset(ns, 0, sizeof(*ns));
	snprintf(ns->id, sizeof(ns->id), "%s", id);
	ns->ok = procfs_listeners_read(pid, &ns->ls, NULL) == 0;
	return ns->ok ? &ns->ls : NULL;
}

static void discover_scan_free(struct discover_scan *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		procfs_listeners_free(&sc->ns[i].ls);
	free(sc->ns);
}

/* The loopback port among the process's listeners that is its inspector. Only /proc is read:
 * no connection is made, so with port 0 ("any free port") and several listeners the first
 * socket the process opened is taken, as Node opens its inspector before running any code. */
static int discover_inspector_port(struct discover_scan *sc, pid_t pid, const char *ns_id)
{
	struct procfs_inodes fds = { 0 };
	struct procfs_inspect_addr want;
	const struct procfs_listeners *ls;
	const struct procfs_listener *best = NULL;

	if (procfs_socket_inodes_read(pid, &fds, NULL) < 0 || fds.n == 0) {
		procfs_inodes_free(&fds);
		return 0;
	}
	ls = discover_listeners_of(sc, pid, ns_id);
	if (!ls) {
		procfs_inodes_free(&fds);
		return 0;
	}
	procfs_inspect_addr_read(pid, &want);
	for (size_t i = 0; i < ls->n; i++) {
		const struct procfs_listener *l = &ls->v[i];

		if (!procfs_inodes_has(&fds, l->inode))
			continue;
		if (!procfs_listener_is_loopback(l) && !procfs_listener_is_wildcard(l))
			continue;
		if (want.port > 0) {
			if (l->port == want.port) {
				best = l;
				break;
			}
			continue;
		}
		/* Inodes mostly grow with creation time; the smallest is the earliest socket. */
		if (!best || l->inode < best->inode)
			best = l;
	}
	procfs_inodes_free(&fds);
	return best ? best->port : 0;
}

/* True for an argument that suggests a Node program: a script or a path under node. */
static bool discover_cmdline_nodeish(const char *cmd, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *a = cmd + i;
		size_t n = strnlen(a, len - i);

		if (memmem(a, n, "node", 4))
			return true;
		if ((n > 3 && memcmp(a + n - 3, ".js", 3) == 0) ||
			(n > 4 && (memcmp(a + n - 4, ".mjs", 4) == 0 ||
				memcmp(a + n - 4, ".cjs", 4) == 0)))
			return true;
		i += n + 1;
	}
	return false;
}

static void discover_user_name(uid_t uid, char *out, size_t outsz)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name &&
		res->pw_name[0]) {
		util_sanitize(res->pw_name, strlen(res->pw_name), out, outsz);
		return;
	}
	snprintf(out, outsz, "%u", (unsigned)uid);
}

/* Attach by signal works only where Node's handler is installed and we may signal. */
static enum discover_signal discover_signal_state(pid_t pid, const struct procfs_status *st)
{
	if (st->sig_cgt & PROCFS_SIGUSR1_MASK)
		return kill(pid, 0) == 0 ? DISCOVER_SIGNAL_OK : DISCOVER_SIGNAL_UNKNOWN;
	if (st->sig_blk & PROCFS_SIGUSR1_MASK)
		return DISCOVER_SIGNAL_DISABLED;
	return DISCOVER_SIGNAL_UNKNOWN;
}

static void discover_command(const char *cmd, size_t len, const struct procfs_status *st,
	char *out, size_t outsz)
{
	char *tmp;

	/* A process that rewrote its title pads it with NULs or spaces. */
	while (len && (cmd[len - 1] == '\0' || cmd[len - 1] == ' '))
		len--;
	if (len == 0) {
		snprintf(out, outsz, "[%s]", st->name);
		return;
	}
	tmp = xmalloc(len);
	for (size_t i = 0; i < len; i++)
		tmp[i] = cmd[i] ? cmd[i] : ' ';
	util_sanitize(tmp, len, out, outsz);
	free(tmp);
}

/* Its PID in its container: NStgid's last field when it has a PID namespace of its own; its
 * host PID when only its network namespace is; 0 on the host. */
static pid_t discover_container_pid(const struct discover_scan *sc, const struct procfs_status *st,
	pid_t pid, const char *ns_id)
{
	if (st->ns_levels > 1 && st->ns_tgid > 0)
		return st->ns_tgid;
	if (ns_id[0] && sc->own_ns[0] && strcmp(ns_id, sc->own_ns) != 0)
		return pid;
	return 0;
}

/* Fills *p for one PID; false if it is not a Node process (or is gone). */
static bool discover_one(struct discover_scan *sc, pid_t pid, struct node_proc *p)
{
	struct procfs_status st;
	char path[64], ns_id[64], *cmd = NULL;
	size_t cmd_len = 0;
	bool node;

	if (procfs_status_read(pid, &st, NULL) < 0 || st.state == 'Z' || st.state == 'X')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (procfs_file_read(path, DISCOVER_FILE_MAX_BYTES, &cmd, &cmd_len, NULL) < 0) {
		cmd = NULL;
		cmd_len = 0;
	}
	node = procfs_looks_like_node(pid, &st) ||
		((st.sig_cgt & PROCFS_SIGUSR1_MASK) && discover_cmdline_nodeish(cmd, cmd_len));
	if (!node || cmd_len == 0) {
		free(cmd);
		return false;
	}
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->uid = st.uid;
	discover_user_name(st.uid, p->user, sizeof(p->user));
	discover_command(cmd, cmd_len, &st, p->command, sizeof(p->command));
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if (!discover_read_link(path, ns_id, sizeof(ns_id)))
		ns_id[0] = '\0';
	p->inspector_port = discover_inspector_port(sc, pid, ns_id);
	p->container_pid = discover_container_pid(sc, &st, pid, ns_id);
	p->signal = discover_signal_state(pid, &st);
	free(cmd);
	return true;
}

static int discover_cmp_pid(const void *a, const void *b)
{
	const struct node_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

size_t discover_node_processes(struct node_proc **out)
{
	struct discover_scan sc = { 0 };
	struct node_proc *v = NULL;
	size_t n = 0, cap = 0;
	pid_t self = getpid();
	struct dirent *e;
	DIR *d;

	*out = NULL;
	if (!discover_read_link("/proc/self/ns/net", sc.own_ns, sizeof(sc.own_ns)))
		sc.own_ns[0] = '\0';
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		pid_t pid;

		if (!discover_parse_pid(e->d_name, &pid) || pid == self)
			continue;
		v = xreallocarray_grow(v, &cap, n + 1, sizeof(*v));
		if (discover_one(&sc, pid, &v[n]))
			n++;
	}
	closedir(d);
	discover_scan_free(&sc);
	if (n == 0) {
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), discover_cmp_pid);
	*out = v;
	return n;
}

/* Display columns of UTF-8 text (one per code point: wide characters are rare here). */
static size_t discover_cols(const char *s)
{
	size_t c = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			c++;
	return c;
}

/* Appends s padded with spaces to width columns. */
static void discover_put_padded(struct strbuf *out, const char *s, size_t width)
{
	size_t c = discover_cols(s);

	strbuf_puts(out, s);
	for (; c < width; c++)
		strbuf_putc(out, ' ');
}

/* Appends s right-aligned in width columns and a space; nothing when width is 0 (no column). */
static void discover_put_right(struct strbuf *out, const char *s, size_t width)
{
	if (width == 0)
		return;
	for (size_t c = discover_cols(s); c < width; c++)
		strbuf_putc(out, ' ');
	strbuf_puts(out, s);
	strbuf_putc(out, ' ');
}

/* Appends at most max_cols columns of s, never splitting a UTF-8 sequence; a cut command
 * ends in "..." (ASCII, so that any terminal shows it). */
static void discover_put_cut(struct strbuf *out, const char *s, size_t max_cols)
{
	size_t keep, i = 0;

	if (discover_cols(s) <= max_cols) {
		strbuf_puts(out, s);
		return;
	}
	keep = max_cols >= 3 ? max_cols - 3 : max_cols;
	for (size_t c = 0; c < keep && s[i]; c++) {
		size_t k = 1;
		while (s[i + k] && ((unsigned char)s[i + k] & 0xc0) == 0x80)
			k++;
		strbuf_append(out, s + i, k);
		i += k;
	}
	if (max_cols >= 3)
		strbuf_puts(out, "...");
}

static const char *discover_signal_label(enum discover_signal s)
{
	switch (s) {
	case DISCOVER_SIGNAL_OK:
		return "yes";
	case DISCOVER_SIGNAL_DISABLED:
		return "disabled";
	default:
		return "?";
	}
}

void discover_format_table(const struct node_proc *p, size_t n, struct strbuf *out)
{
	size_t w_pid = 3, w_ctr = 0, w_user = 4, w_insp = 9, w_sig = 6, used;
	char buf[64];

	for (size_t i = 0; i < n; i++) {
		size_t c;

		c = (size_t)snprintf(buf, sizeof(buf), "%d", (int)p[i].pid);
		if (c > w_pid)
			w_pid = c;
		if (p[i].container_pid > 0) {
			c = (size_t)snprintf(buf, sizeof(buf), "%d", (int)p[i].container_pid);
			w_ctr = c > w_ctr ? c : w_ctr;
			w_ctr = w_ctr < 3 ? 3 : w_ctr;
		}
		c = discover_cols(p[i].user);
		if (c > w_user)
			w_user = c;
		if (p[i].inspector_port > 0) {
			c = (size_t)snprintf(buf, sizeof(buf), "127.0.0.1:%d", p[i].inspector_port);
			if (c > w_insp)
				w_insp = c;
		}
		c = strlen(discover_signal_label(p[i].signal));
		if (c > w_sig)
			w_sig = c;
	}
	/* A user name cannot push the command off the line: it is at most 32 columns. */
	used = w_pid + 1 + (w_ctr ? w_ctr + 1 : 0) + w_user + 1 + w_insp + 1 + w_sig + 1;

	for (size_t k = 0; k < w_pid - 3; k++)
		strbuf_putc(out, ' ');
	strbuf_puts(out, "PID ");
	discover_put_right(out, "CTR", w_ctr);
	discover_put_padded(out, "USER", w_user + 1);
	discover_put_padded(out, "INSPECTOR", w_insp + 1);
	discover_put_padded(out, "SIGNAL", w_sig + 1);
	strbuf_puts(out, "COMMAND\n");

	for (size_t i = 0; i < n; i++) {
		size_t c = (size_t)snprintf(buf, sizeof(buf), "%d", (int)p[i].pid);

		for (; c < w_pid; c++)
			strbuf_putc(out, ' ');
		strbuf_puts(out, buf);
		strbuf_putc(out, ' ');
		if (p[i].container_pid > 0)
			snprintf(buf, sizeof(buf), "%d", (int)p[i].container_pid);
		else
			snprintf(buf, sizeof(buf), "-");
		discover_put_right(out, buf, w_ctr);
		discover_put_padded(out, p[i].user, w_user + 1);
		if (p[i].inspector_port > 0)
			snprintf(buf, sizeof(buf), "127.0.0.1:%d", p[i].inspector_port);
		else
			snprintf(buf, sizeof(buf), "-");
		discover_put_padded(out, buf, w_insp + 1);
		discover_put_padded(out, discover_signal_label(p[i].signal), w_sig + 1);
		discover_put_cut(out, p[i].command,
			used < DISCOVER_LINE_MAX_COLS ? DISCOVER_LINE_MAX_COLS - used : 0);
		strbuf_putc(out, '\n');
	}
}
