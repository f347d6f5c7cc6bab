/* procfs.c: see procfs.h. */
#include "config.h"
#include "procfs.h"

#include "strbuf.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* /proc/net/tcp lists listeners before connections, so a busy server's file can be cut
 * at this size without losing a LISTEN row. */
#define PROCFS_NET_MAX_BYTES (16u * 1024 * 1024)
#define PROCFS_SMALL_MAX_BYTES (1024u * 1024)

/* Splits text into lines; returns false at the end. */
static bool procfs_line_next(const char **p, const char *end, const char **line, size_t *n)
{
	const char *s = *p, *nl;

	if (s >= end)
		return false;
	nl = memchr(s, '\n', (size_t)(end - s));
	*line = s;
	*n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*p = nl ? nl + 1 : end;
	return true;
}

static bool procfs_parse_hex_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d;
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return false;
		v = (v << 4) | (uint64_t)d;
	}
	*out = v;
	return true;
}

bool procfs_parse_dec(const char *s, size_t n, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (max - (unsigned long)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* Skips spaces and tabs; returns the first token of [s, s+n) through *tok. */
static size_t procfs_token(const char *s, size_t n, const char **tok, size_t *toklen)
{
	size_t i = 0, start;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	start = i;
	while (i < n && s[i] != ' ' && s[i] != '\t')
		i++;
	*tok = s + start;
	*toklen = i - start;
	return i;
}

/* NStgid's fields ("4242\t1"): all must be PIDs, else the field is ignored (it only adds
 * detail, and a process without it is still a process). */
static void procfs_status_nstgid(const char *v, size_t vn, struct procfs_status *st)
{
	const char *tok;
	size_t tn, pos = 0;
	unsigned long num = 0;
	int levels = 0;

	for (;;) {
		pos += procfs_token(v + pos, vn - pos, &tok, &tn);
		if (tn == 0)
			break;
		if (!procfs_parse_dec(tok, tn, INT_MAX, &num) || num == 0 || levels >= 64)
			return;
		levels++;
	}
	if (levels == 0)
		return;
	st->ns_tgid = (pid_t)num;
	st->ns_levels = levels;
}

int procfs_status_parse(const char *text, size_t len, struct procfs_status *st)
{
	const char *p = text, *end = text + len, *line;
	size_t n;
	bool have_name = false, have_uid = false, have_cgt = false;

	memset(st, 0, sizeof(*st));
	st->state = '?';
	while (procfs_line_next(&p, end, &line, &n)) {
		const char *colon = memchr(line, ':', n), *v, *tok;
		size_t key_n, vn, tn;
		unsigned long num;

		if (!colon)
			continue;
		key_n = (size_t)(colon - line);
		v = colon + 1;
		vn = n - key_n - 1;
		if (key_n == 4 && memcmp(line, "Name", 4) == 0) {
			while (vn && (*v == ' ' || *v == '\t')) {
				v++;
				vn--;
			}
			util_sanitize(v, vn, st->name, sizeof(st->name));
			have_name = true;
			continue;
		}
		procfs_token(v, vn, &tok, &tn);
		if (key_n == 5 && memcmp(line, "State", 5) == 0 && tn == 1) {
			st->state = tok[0];
		} else if (key_n == 4 && memcmp(line, "Tgid", 4) == 0) {
			if (procfs_parse_dec(tok, tn, INT_MAX, &num))
				st->tgid = (pid_t)num;
		} else if (key_n == 6 && memcmp(line, "NStgid", 6) == 0) {
			procfs_status_nstgid(v, vn, st);
		} else if (key_n == 4 && memcmp(line, "PPid", 4) == 0) {
			if (procfs_parse_dec(tok, tn, INT_MAX, &num))
				st->ppid = (pid_t)num;
		} else if (key_n == 3 && memcmp(line, "Uid", 3) == 0) {
			if (!procfs_parse_dec(tok, tn, UINT_MAX, &num))
				return -1;
			st->uid = (uid_t)num;
			have_uid = true;
		} else if (key_n == 6 && memcmp(line, "SigBlk", 6) == 0) {
			if (!procfs_parse_hex_u64(tok, tn, &st->sig_blk))
				return -1;
		} else if (key_n == 6 && memcmp(line, "SigIgn", 6) == 0) {
			if (!procfs_parse_hex_u64(tok, tn, &st->sig_ign))
				return -1;
		} else if (key_n == 6 && memcmp(line, "SigCgt", 6) == 0) {
			if (!procfs_parse_hex_u64(tok, tn, &st->sig_cgt))
				return -1;
			have_cgt = true;
		}
	}
	return have_name && have_uid && have_cgt ? 0 : -1;
}

int procfs_file_read(const char *path, size_t max_bytes, char **buf, size_t *len, int *errno_out)
{
	struct strbuf sb;
	char chunk[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*buf = NULL;
	*len = 0;
	if (fd < 0) {
		if (errno_out)
			*errno_out = errno;
		return -1;
	}
	strbuf_init(&sb);
	while (sb.len < max_bytes) {
		size_t want = sizeof(chunk);
		ssize_t got;

		if (want > max_bytes - sb.len)
			want = max_bytes - sb.len;
		got = read(fd, chunk, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			if (errno_out)
				*errno_out = errno;
			close(fd);
			strbuf_free(&sb);
			return -1;
		}
		if (got == 0)
			break;
		strbuf_append(&sb, chunk, (size_t)got);
	}
	close(fd);
	if (!sb.data)
		strbuf_append(&sb, "", 0);
	*buf = sb.data;
	*len = sb.len;
	return 0;
}

int procfs_status_read(pid_t pid, struct procfs_status *st, int *errno_out)
{
	char path[64], *buf;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, errno_out) < 0)
		return -1;
	rc = procfs_status_parse(buf, len, st);
	free(buf);
	if (rc < 0 && errno_out)
		*errno_out = EPROTO;
	return rc;
}

void procfs_listeners_free(struct procfs_listeners *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* "0100007F:240D" or 32 hex digits ":" 4 hex digits. */
static bool procfs_parse_sockaddr(const char *s, size_t n, int family, struct procfs_listener *l)
{
	size_t words = family == AF_INET ? 1 : 4;
	uint64_t v;

	if (n != words * 8 + 5 || s[words * 8] != ':')
		return false;
	memset(l->addr, 0, sizeof(l->addr));
	for (size_t i = 0; i < words; i++) {
		uint32_t w;
		if (!procfs_parse_hex_u64(s + i * 8, 8, &v))
			return false;
		/* The kernel printed each 32-bit word as read in host order: store it back so. */
		w = (uint32_t)v;
		memcpy(l->addr + i * 4, &w, 4);
	}
	if (!procfs_parse_hex_u64(s + words * 8 + 1, 4, &v))
		return false;
	l->port = (int)v;
	l->family = family;
	return true;
}

int procfs_net_tcp_parse(const char *text, size_t len, int family, struct procfs_listeners *out)
{
	const char *p = text, *end = text + len, *line, *tok;
	size_t n, tn, off;
	int added = 0;

	if (family != AF_INET && family != AF_INET6)
		return -1;
	if (!procfs_line_next(&p, end, &line, &n))
		return -1;
	procfs_token(line, n, &tok, &tn);
	if (tn != 2 || memcmp(tok, "sl", 2) != 0)
		return -1;
	/* A cut final line could carry a truncated inode: drop it. */
	if (len && text[len - 1] != '\n') {
		const char *last = text + len;
		while (last > p && last[-1] != '\n')
			last--;
		end = last;
	}
	while (procfs_line_next(&p, end, &line, &n)) {
		struct procfs_listener l;
		const char *f[10];
		size_t fl[10], i;
		unsigned long inode;
		uint64_t st;

		off = 0;
		for (i = 0; i < 10; i++) {
			off += procfs_token(line + off, n - off, &f[i], &fl[i]);
			if (fl[i] == 0)
				break;
		}
		if (i < 10)
			continue;
		if (!procfs_parse_hex_u64(f[3], fl[3], &st) || fl[3] != 2 || st != 0x0A)
			continue;
		if (!procfs_parse_sockaddr(f[1], fl[1], family, &l))
			continue;
		if (!procfs_parse_dec(f[9], fl[9], ULONG_MAX, &inode) || inode == 0)
			continue;
		l.inode = inode;
		out->v = xreallocarray_grow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = l;
		added++;
	}
	return added;
}

int procfs_listeners_read(pid_t pid, struct procfs_listeners *out, int *errno_out)
{
	static const struct {
		const char *file;
		int family;
	} files[] = { { "tcp", AF_INET }, { "tcp6", AF_INET6 } };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[64], *buf;
		size_t len;
		int err = 0;

		if (pid > 0)
			snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, files[i].file);
		else
			snprintf(path, sizeof(path), "/proc/self/net/%s", files[i].file);
		if (procfs_file_read(path, PROCFS_NET_MAX_BYTES, &buf, &len, &err) < 0) {
			if (files[i].family == AF_INET6 && err == ENOENT)
				continue;
			if (errno_out)
				*errno_out = err;
			return -1;
		}
		if (procfs_net_tcp_parse(buf, len, files[i].family, out) < 0) {
			free(buf);
			if (errno_out)
				*errno_out = EPROTO;
			return -1;
		}
		free(buf);
	}
	return 0;
}

void procfs_listener_addr_str(const struct procfs_listener *l, char *buf, size_t bufsz)
{
	if (bufsz == 0)
		return;
	if (!inet_ntop(l->family, l->addr, buf, (socklen_t)bufsz))
		buf[0] = '\0';
}

bool procfs_listener_is_wildcard(const struct procfs_listener *l)
{
	static const uint8_t zero[16];

	return memcmp(l->addr, zero, l->family == AF_INET ? 4 : 16) == 0;
}

bool procfs_listener_is_loopback(const struct procfs_listener *l)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t one[16] = { [15] = 1 };

	if (l->family == AF_INET)
		return l->addr[0] == 127;
	if (memcmp(l->addr, one, 16) == 0)
		return true;
	return memcmp(l->addr, mapped, 12) == 0 && l->addr[12] == 127;
}

void procfs_inodes_free(struct procfs_inodes *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

void procfs_inodes_add(struct procfs_inodes *s, unsigned long inode)
{
	if (procfs_inodes_has(s, inode))
		return;
	s->v = xreallocarray_grow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = inode;
}

bool procfs_inodes_has(const struct procfs_inodes *s, unsigned long inode)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == inode)
			return true;
	return false;
}

unsigned long procfs_socket_inode_parse(const char *link)
{
	size_t n;
	unsigned long v;

	if (strncmp(link, "socket:[", 8) != 0)
		return 0;
	n = strlen(link + 8);
	if (n < 2 || link[8 + n - 1] != ']')
		return 0;
	if (!procfs_parse_dec(link + 8, n - 1, ULONG_MAX, &v))
		return 0;
	return v;
}

/* Calls fn for each socket inode open in /proc/PID/fd. */
static int procfs_fd_walk(pid_t pid, void (*fn)(unsigned long, void *), void *arg, int *errno_out)
{
	char path[64], link[128];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) {
		if (errno_out)
			*errno_out = errno;
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		ssize_t n;
		unsigned long ino;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		ino = procfs_socket_inode_parse(link);
		if (ino)
			fn(ino, arg);
	}
	closedir(d);
	return 0;
}

static void procfs_collect_inode(unsigned long ino, void *arg)
{
	procfs_inodes_add(arg, ino);
}

int procfs_socket_inodes_read(pid_t pid, struct procfs_inodes *out, int *errno_out)
{
	return procfs_fd_walk(pid, procfs_collect_inode, out, errno_out);
}

void procfs_pids_free(struct procfs_pids *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

void procfs_pids_add(struct procfs_pids *p, pid_t pid)
{
	p->v = xreallocarray_grow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = pid;
}

bool procfs_pids_has(const struct procfs_pids *p, pid_t pid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i] == pid)
			return true;
	return false;
}

int procfs_children_parse(const char *text, size_t len, struct procfs_pids *out)
{
	size_t i = 0;
	int added = 0;

	while (i < len) {
		size_t start;
		unsigned long v;

		while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t'))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\n' && text[i] != '\t')
			i++;
		if (!procfs_parse_dec(text + start, i - start, INT_MAX, &v) || v == 0)
			return -1;
		procfs_pids_add(out, (pid_t)v);
		added++;
	}
	return added;
}

int procfs_children_read(pid_t pid, struct procfs_pids *out, int *errno_out)
{
	char path[96];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		if (errno_out)
			*errno_out = errno;
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char *buf;
		size_t len;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strlen(e->d_name) > 16)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		if (procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) < 0)
			continue;
		procfs_children_parse(buf, len, out);
		free(buf);
	}
	closedir(d);
	return 0;
}

const char *procfs_environ_get(const char *buf, size_t len, const char *name)
{
	size_t nl = strlen(name), i = 0;

	while (i < len) {
		const char *e = buf + i;
		const char *z = memchr(e, '\0', len - i);
		size_t el = z ? (size_t)(z - e) : len - i;

		/* The value must end in a NUL inside buf for the caller to use it as a string. */
		if (z && el > nl && memcmp(e, name, nl) == 0 && e[nl] == '=')
			return e + nl + 1;
		i += el + 1;
	}
	return NULL;
}

void procfs_cmdline_argv0(const char *buf, size_t len, char *out, size_t outsz)
{
	const char *z = memchr(buf, '\0', len);
	size_t n = z ? (size_t)(z - buf) : len;
	const char *base = buf;

	for (size_t i = 0; i < n; i++)
		if (buf[i] == '/')
			base = buf + i + 1;
	util_sanitize(base, (size_t)(buf + n - base), out, outsz);
}


struct procfs_owner_search {
	unsigned long inode;
	bool found;
};

static void procfs_match_inode(unsigned long ino, void *arg)
{
	struct procfs_owner_search *s = arg;

	if (ino == s->inode)
		s->found = true;
}

pid_t procfs_inode_owner(unsigned long inode, pid_t skip)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t owner = 0;

	if (!d)
		return 0;
	while (owner == 0 && (e = readdir(d)) != NULL) {
		struct procfs_owner_search s = { inode, false };
		unsigned long v;

		if (!procfs_parse_dec(e->d_name, strlen(e->d_name), INT_MAX, &v) || v == 0)
			continue;
		if ((pid_t)v == skip)
			continue;
		if (procfs_fd_walk((pid_t)v, procfs_match_inode, &s, NULL) == 0 && s.found)
			owner = (pid_t)v;
	}
	closedir(d);
	return owner;
}

/* "node", "nodejs", "node20", "node-20.1": not "node_exporter" or "nodemon-helper". */
static bool procfs_name_is_node(const char *name)
{
	const char *rest;

	if (strncasecmp(name, "nodejs", 6) == 0)
		rest = name + 6;
	else if (strncasecmp(name, "node", 4) == 0)
		rest = name + 4;
	else
		return false;
	for (; *rest; rest++)
		if (!isdigit((unsigned char)*rest) && *rest != '.' && *rest != '-')
			return false;
	return true;
}

bool procfs_looks_like_node(pid_t pid, const struct procfs_status *st)
{
	char path[64], link[PATH_MAX], base[256], *buf;
	const char *b;
	size_t len;
	ssize_t n;

	if (st && procfs_name_is_node(st->name))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		/* A replaced binary reads "/usr/bin/node (deleted)". */
		if (n > 10 && strcmp(link + n - 10, " (deleted)") == 0)
			link[n - 10] = '\0';
		b = strrchr(link, '/');
		if (procfs_name_is_node(b ? b + 1 : link))
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) == 0) {
		procfs_cmdline_argv0(buf, len, base, sizeof(base));
		free(buf);
		if (procfs_name_is_node(base))
			return true;
	}
	return false;
}

/* Reads "Key:   1234 kB" from /proc text. */
static int procfs_kb_field(const char *text, size_t len, const char *key, double *bytes)
{
	size_t klen = strlen(key), pos = 0;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == ':') {
			char buf[64], *end;
			unsigned long long kb;
			size_t m = n - klen - 1 < sizeof buf - 1 ? n - klen - 1 : sizeof buf - 1;

			memcpy(buf, line + klen + 1, m);
			buf[m] = '\0';
			errno = 0;
			kb = strtoull(buf, &end, 10);
			if (errno || end == buf)
				return -1;
			while (*end == ' ' || *end == '\t')
				end++;
			if (strcmp(end, "kB") != 0)
				return -1;
			*bytes = (double)kb * 1024.0;
			return 0;
		}
		pos += n + 1;
	}
	return -1;
}

int procfs_status_rss(const char *text, size_t len, double *rss_bytes)
{
	return procfs_kb_field(text, len, "VmRSS", rss_bytes);
}

int procfs_rss_read(pid_t pid, double *rss_bytes)
{
	char path[64], *buf = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) < 0)
		return -1;
	rc = procfs_status_rss(buf, len, rss_bytes);
	free(buf);
	return rc;
}

int procfs_mem_available(double *bytes)
{
	char *buf = NULL;
	size_t len;
	int rc;

	if (procfs_file_read("/proc/meminfo", PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) < 0)
		return -1;
	rc = procfs_kb_field(buf, len, "MemAvailable", bytes);
	free(buf);
	return rc;
}

int procfs_start_time(pid_t pid, unsigned long long *ticks)
{
	char path[64], *buf = NULL, *p;
	size_t len;
	int field, rc = -1;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) < 0)
		return -1;
	/* The command name (field 2) may hold spaces and parentheses: count from the last ')'. */
	p = memrchr(buf, ')', len);
	if (p) {
		for (field = 2, p++; *p && field < 22; p++)
			if (*p == ' ')
				field++;
		if (field == 22) {
			char *end;
			errno = 0;
			*ticks = strtoull(p, &end, 10);
			if (!errno && end != p)
				rc = 0;
		}
	}
	free(buf);
	return rc;
}

int procfs_age_s(pid_t pid, double *age_s)
{
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec now;

	if (hz <= 0 || procfs_start_time(pid, &ticks) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &now) < 0)
		return -1;
	*age_s = (double)now.tv_sec + now.tv_nsec / 1e9 - (double)ticks / (double)hz;
	return 0;
}

int procfs_cpu_seconds(pid_t pid, double *seconds)
{
	char path[64], *buf = NULL, *p;
	size_t len;
	int field, rc = -1;
	unsigned long long v[2];
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (hz <= 0 || procfs_file_read(path, PROCFS_SMALL_MAX_BYTES, &buf, &len, NULL) < 0)
		return -1;
	/* fields 14 and 15 (utime, stime), counted from the ')' that ends the command name */
	p = memrchr(buf, ')', len);
	if (p) {
		for (field = 2, p++; *p && field < 14; p++)
			if (*p == ' ')
				field++;
		if (field == 14) {
			char *end, *end2 = NULL;
			errno = 0;
			v[0] = strtoull(p, &end, 10);
			v[1] = end != p && *end == ' ' ? strtoull(end + 1, &end2, 10) : 0;
			if (!errno && end != p && *end == ' ' && end2 != end + 1) {
				*seconds = (double)(v[0] + v[1]) / (double)hz;
				rc = 0;
			}
		}
	}
	free(buf);
	return rc;
}
