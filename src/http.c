/* http.c: see http.h. */
#include "config.h"
#include "http.h"

#include "netns.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define HTTP_MAX_HEADER_BYTES (64 * 1024)

struct http_reply {
	int status;
	size_t header_len;     /* bytes up to and including the blank line */
	long long content_len; /* -1 if absent */
	bool chunked;
};

static void http_format_addr(const char *host, int port, char *buf, size_t n)
{
	if (strchr(host, ':'))
		snprintf(buf, n, "[%s]:%d", host, port);
	else
		snprintf(buf, n, "%s:%d", host, port);
}

static int http_fail(int err, int *errno_out, char **cause, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int http_fail(int err, int *errno_out, char **cause, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (errno_out)
		*errno_out = err;
	if (cause)
		*cause = xstrdup(buf);
	return -1;
}

/* 1 when fd is ready, 0 on timeout, -1 on error (errno set). */
static int http_wait(int fd, short events, double deadline_s)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		double left_s = deadline_s - util_now_mono_s();
		int ms, rc;

		if (left_s <= 0)
			return 0;
		ms = (int)(left_s * 1000.0) + 1;
		rc = poll(&pfd, 1, ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc > 0)
			return 1;
	}
}

static bool http_token_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* Parses the status line and headers once the blank line has arrived: 1 done, 0 need more,
 * -1 not HTTP. */
static int http_parse_head(const char *buf, size_t len, struct http_reply *rep)
{
	const char *end = NULL, *p, *line_end;
	size_t sep = 4;

	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n') {
			end = buf + i;
			sep = 2;
			break;
		}
		if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			end = buf + i;
			break;
		}
	}
	if (memcmp(buf, "HTTP/", len < 5 ? len : 5) != 0)
		return -1;
	if (!end)
		return len > HTTP_MAX_HEADER_BYTES ? -1 : 0;
	rep->header_len = (size_t)(end - buf) + sep;
	rep->content_len = -1;
	rep->chunked = false;
	/* "HTTP/1.x NNN reason" */
	if (end - buf < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ')
		return -1;
	for (int i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
	rep->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	p = memchr(buf, '\n', (size_t)(end - buf));
	while (p && p < end) {
		const char *colon, *v;
		size_t vn;

		p++;
		line_end = memchr(p, '\n', (size_t)(end - p));
		if (!line_end)
			line_end = end;
		colon = memchr(p, ':', (size_t)(line_end - p));
		if (colon) {
			size_t kn = (size_t)(colon - p);
			v = colon + 1;
			vn = (size_t)(line_end - v);
			while (vn && (*v == ' ' || *v == '\t')) {
				v++;
				vn--;
			}
			while (vn && (v[vn - 1] == '\r' || v[vn - 1] == ' ' || v[vn - 1] == '\t'))
				vn--;
			if (kn == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
				long long cl = 0;
				if (vn == 0 || vn > 12)
					return -1;
				for (size_t i = 0; i < vn; i++) {
					if (v[i] < '0' || v[i] > '9')
						return -1;
					cl = cl * 10 + (v[i] - '0');
				}
				if (rep->content_len >= 0 && rep->content_len != cl)
					return -1;
				rep->content_len = cl;
			} else if (kn == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
				for (size_t i = 0; i + 7 <= vn; i++)
					if (strncasecmp(v + i, "chunked", 7) == 0)
						rep->chunked = true;
			}
		}
		p = line_end < end ? line_end : NULL;
	}
	return 1;
}

/* Decodes a chunked body in place into out: 1 complete, 0 need more, -1 malformed. */
static int http_dechunk(const char *in, size_t len, struct strbuf *out)
{
	size_t i = 0;

	strbuf_reset(out);
	for (;;) {
		unsigned long long size = 0;
		size_t digits = 0;
		const char *nl;

		while (i < len && digits < 16) {
			char c = in[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				break;
			size = size * 16 + (unsigned)d;
			digits++;
			i++;
		}
		if (i >= len)
			return 0;
		if (digits == 0 || digits >= 16)
			return -1;
		nl = memchr(in + i, '\n', len - i); /* skips chunk extensions */
		if (!nl)
			return len - i > 1024 ? -1 : 0;
		i = (size_t)(nl - in) + 1;
		if (size == 0)
			return 1; /* trailers, if any, are not needed */
		if (size > HTTP_MAX_BODY || out->len + size > HTTP_MAX_BODY)
			return -1;
		if (len - i < size + 2)
			return 0;
		strbuf_append(out, in + i, (size_t)size);
		i += (size_t)size;
		if (in[i] == '\r')
			i++;
		if (i >= len || in[i] != '\n')
			return -1;
		i++;
	}
}

static int http_connect(const struct netns_ref *ns, const char *host, int port,
	const char *addr, double timeout_s, double deadline_s, int *errno_out, char **cause)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char portstr[16], *why = NULL;
	int fd, rc, err = 0, saved;
	socklen_t errlen = sizeof(err);

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0 || !res)
		return http_fail(EINVAL, errno_out, cause, "%s is not a numeric address.", addr);
	/* The socket belongs to the namespace it is created in, whatever the thread does next. */
	if (netns_enter(ns, &saved, &err, &why) < 0) {
		freeaddrinfo(res);
		rc = http_fail(err, errno_out, cause, "%s", why);
		free(why);
		return rc;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	err = errno;
	netns_leave(saved);
	if (fd < 0) {
		freeaddrinfo(res);
		return http_fail(err, errno_out, cause, "cannot create a socket for %s: %s.", addr,
			strerror(err));
	}
	rc = connect(fd, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (rc < 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		return http_fail(err, errno_out, cause, "cannot connect to %s: %s.", addr, strerror(err));
	}
	if (rc < 0) {
		rc = http_wait(fd, POLLOUT, deadline_s);
		if (rc == 0) {
			close(fd);
			return http_fail(ETIMEDOUT, errno_out, cause,
				"%s did not accept a connection within %.3g s.", addr, timeout_s);
		}
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
			err = errno;
		if (err) {
			close(fd);
			return http_fail(err, errno_out, cause, "cannot connect to %s: %s.", addr,
				strerror(err));
		}
	}
	return fd;
}

static int http_send_all(int fd, const char *buf, size_t len, double deadline_s)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int rc = http_wait(fd, POLLOUT, deadline_s);
			if (rc == 0)
				errno = ETIMEDOUT;
			if (rc <= 0)
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* Checks a request's address and header values before anything is sent: 0 with addr (300
 * bytes) formatted, or -1 after http_fail, naming what (an HTTP request, an inspector
 * command) and kind (HTTP, websocket). */
static int http_check_request(const char *host, int port, const char *host_header,
	const char *path, const char *what, const char *kind, char *addr, int *errno_out,
	char **cause)
{
	if (!host || !host[0] || strlen(host) > 255 || port <= 0 || port > 65535)
		return http_fail(EINVAL, errno_out, cause, "invalid address for %s.", what);
	http_format_addr(host, port, addr, 300);
	if (!path || path[0] != '/' || !http_token_ok(path, 2048) ||
		!http_token_ok(host_header, 300))
		return http_fail(EINVAL, errno_out, cause, "invalid %s request for %s.", kind, addr);
	return 0;
}

/* One GET's answer as it is read: where from, its deadline, and what has come. */
struct http_read {
	const char *addr, *path;
	double timeout_s, deadline_s;
	int *errno_out;
	char **cause;
	struct strbuf in, dechunked;
	struct http_reply rep;
	int head;       /* 1 once the head is parsed */
};

/* The head and the body so far: *complete once the whole answer is in (eof: the peer closed
 * the connection). 0, or -1 after http_fail. */
static int http_read_progress(struct http_read *r, bool eof, bool *complete)
{
	if (!r->head && r->in.len) {
		r->head = http_parse_head(r->in.data, r->in.len, &r->rep);
		if (r->head < 0)
			return http_fail(EPROTO, r->errno_out, r->cause,
				"%s answered GET %s with something that is not HTTP.", r->addr, r->path);
		if (r->head && r->rep.content_len > HTTP_MAX_BODY)
			return http_fail(EMSGSIZE, r->errno_out, r->cause,
				"%s announced a %lld-byte answer to GET %s (the limit is %d KiB).",
				r->addr, r->rep.content_len, r->path, HTTP_MAX_BODY / 1024);
	}
	if (r->head && r->rep.chunked) {
		int d = http_dechunk(r->in.data + r->rep.header_len, r->in.len - r->rep.header_len,
			&r->dechunked);
		if (d < 0)
			return http_fail(EPROTO, r->errno_out, r->cause,
				"%s sent a malformed or oversized chunked answer to GET %s.", r->addr, r->path);
		*complete = d > 0;
	} else if (r->head && r->rep.content_len >= 0) {
		*complete = r->in.len - r->rep.header_len >= (size_t)r->rep.content_len;
	}
	if (eof && !*complete) {
		if (!r->head || r->rep.chunked || r->rep.content_len >= 0)
			return http_fail(EPROTO, r->errno_out, r->cause, r->head ?
				"%s closed the connection in the middle of its answer to GET %s." :
				"%s closed the connection without an HTTP answer to GET %s.", r->addr, r->path);
		*complete = true; /* no length: the body ends at EOF */
	}
	return 0;
}

/* Reads until the answer is complete: 0, or -1 after http_fail. */
static int http_read_reply(int fd, struct http_read *r)
{
	char chunk[16384];
	bool complete = false;

	while (!complete) {
		ssize_t n = recv(fd, chunk, sizeof(chunk), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = http_wait(fd, POLLIN, r->deadline_s);
			if (w == 0)
				return http_fail(ETIMEDOUT, r->errno_out, r->cause,
					"%s did not answer GET %s within %.3g s.", r->addr, r->path, r->timeout_s);
			if (w > 0)
				continue;
		}
		if (n < 0) {
			int err = errno;
			return http_fail(err, r->errno_out, r->cause,
				"reading the answer of %s to GET %s failed: %s.", r->addr, r->path,
				strerror(err));
		}
		if (n > 0)
			strbuf_append(&r->in, chunk, (size_t)n);
		if (r->in.len > HTTP_MAX_HEADER_BYTES + HTTP_MAX_BODY + 65536)
			return http_fail(EMSGSIZE, r->errno_out, r->cause,
				"%s sent more than %d KiB for GET %s.", r->addr, HTTP_MAX_BODY / 1024, r->path);
		if (http_read_progress(r, n == 0, &complete) < 0)
			return -1;
	}
	return 0;
}

/* The complete answer's body, a copy: 0, or -1 after http_fail. */
static int http_take_body(struct http_read *r, char **body, size_t *body_len)
{
	size_t blen;

	if (r->rep.chunked) {
		*body = xstrndup(r->dechunked.data ? r->dechunked.data : "", r->dechunked.len);
		if (body_len)
			*body_len = r->dechunked.len;
		return 0;
	}
	blen = r->in.len - r->rep.header_len;
	if (r->rep.content_len >= 0 && blen > (size_t)r->rep.content_len)
		blen = (size_t)r->rep.content_len;
	if (blen > HTTP_MAX_BODY)
		return http_fail(EMSGSIZE, r->errno_out, r->cause, "%s sent more than %d KiB for GET %s.",
			r->addr, HTTP_MAX_BODY / 1024, r->path);
	*body = xstrndup(r->in.data + r->rep.header_len, blen);
	if (body_len)
		*body_len = blen;
	return 0;
}

int http_get(const struct netns_ref *ns, const char *host, int port, const char *host_header,
	const char *path, double timeout_s, int *status, char **body, size_t *body_len,
	int *errno_out, char **cause)
{
	double deadline_s = util_now_mono_s() + (timeout_s > 0 ? timeout_s : 0.001);
	char addr[300];
	struct strbuf req;
	struct http_read r = { .path = path, .timeout_s = timeout_s, .deadline_s = deadline_s,
		.errno_out = errno_out, .cause = cause };
	int fd, rc = -1;

	*body = NULL;
	if (body_len)
		*body_len = 0;
	if (cause)
		*cause = NULL;
	if (errno_out)
		*errno_out = 0;
	if (http_check_request(host, port, host_header, path, "an HTTP request", "HTTP", addr,
		errno_out, cause) < 0)
		return -1;
	r.addr = addr;
	fd = http_connect(ns, host, port, addr, timeout_s, deadline_s, errno_out, cause);
	if (fd < 0)
		return -1;

	strbuf_init(&req);
	strbuf_init(&r.in);
	strbuf_init(&r.dechunked);
	strbuf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\n"
		"Connection: close\r\n\r\n", path, host_header);
	if (http_send_all(fd, req.data, req.len, deadline_s) < 0) {
		int err = errno;
		http_fail(err, errno_out, cause, "cannot send GET %s to %s: %s.", path, addr,
			strerror(err));
	} else if (http_read_reply(fd, &r) == 0 && http_take_body(&r, body, body_len) == 0) {
		*status = r.rep.status;
		rc = 0;
	}
	close(fd);
	strbuf_free(&req);
	strbuf_free(&r.in);
	strbuf_free(&r.dechunked);
	return rc;
}

/* ---- one inspector command over a websocket ---- */

/* Sends one masked text frame (a client's frames must be masked; Node drops the connection
 * on any other kind). */
static int ws_send_text(int fd, const char *msg, size_t len, double deadline_s)
{
	/* Any fixed mask is valid; it guards proxies, not secrets. */
	static const unsigned char mask[4] = { 0x6e, 0x74, 0x6f, 0x70 };
	struct strbuf f;
	unsigned char hdr[14];
	size_t h = 0;
	int rc;

	hdr[h++] = 0x81; /* FIN, text */
	if (len < 126) {
		hdr[h++] = (unsigned char)(0x80 | len);
	} else if (len <= 0xffff) {
		hdr[h++] = 0x80 | 126;
		hdr[h++] = (unsigned char)(len >> 8);
		hdr[h++] = (unsigned char)len;
	} else {
		errno = EMSGSIZE;
		return -1;
	}
	memcpy(hdr + h, mask, 4);
	h += 4;
	strbuf_init(&f);
	strbuf_append(&f, (const char *)hdr, h);
	for (size_t i = 0; i < len; i++)
		strbuf_putc(&f, (char)((unsigned char)msg[i] ^ mask[i % 4]));
	rc = http_send_all(fd, f.data, f.len, deadline_s);
	strbuf_free(&f);
	return rc;
}

/* Reads what the socket has into in; 1 at EOF, 0 with more read, -1 on error or timeout. */
static int ws_read_some(int fd, struct strbuf *in, double deadline_s)
{
	char chunk[4096];

	for (;;) {
		ssize_t n = recv(fd, chunk, sizeof chunk, 0);

		if (n > 0) {
			strbuf_append(in, chunk, (size_t)n);
			return 0;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (http_wait(fd, POLLIN, deadline_s) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/* Sends the upgrade and reads its answer into in: the answer's head length, or -1 after
 * http_fail. */
static int ws_upgrade(int fd, const char *addr, const char *path, const char *host_header,
	struct strbuf *in, double deadline_s, char **cause)
{
	struct http_reply rep = { 0 };
	struct strbuf req;
	int head = 0, st, rc;

	strbuf_init(&req);
	strbuf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
		"Connection: Upgrade\r\nSec-WebSocket-Key: bnRvcC1qcyBtb3ZlIGl0IQ==\r\n"
		"Sec-WebSocket-Version: 13\r\n\r\n", path, host_header);
	rc = http_send_all(fd, req.data, req.len, deadline_s);
	strbuf_free(&req);
	if (rc < 0)
		return http_fail(errno, NULL, cause, "cannot send the websocket upgrade to %s: %s.",
			addr, strerror(errno));
	while (head == 0) {
		st = ws_read_some(fd, in, deadline_s);
		if (st < 0 || (st == 1 && head == 0))
			return http_fail(EPROTO, NULL, cause, "%s did not accept the websocket upgrade.",
				addr);
		if (in->len > HTTP_MAX_HEADER_BYTES)
			return http_fail(EMSGSIZE, NULL, cause, "%s sent an oversized upgrade answer.", addr);
		head = http_parse_head(in->data, in->len, &rep);
		if (head < 0 || (head > 0 && rep.status != 101))
			return http_fail(EPROTO, NULL, cause, "%s refused the websocket upgrade.", addr);
	}
	return (int)rep.header_len;
}

/* Looks at the frame at off: 1 with *reply set (a text frame) or left NULL (a close frame),
 * 0 when it is not all in yet, -1 after http_fail. Frames from the server are unmasked. */
static int ws_frame(const struct strbuf *in, size_t off, const char *addr, char **reply,
	char **cause)
{
	const unsigned char *b = (const unsigned char *)in->data + off;
	size_t have = in->len - off, hl = 2;
	unsigned long long plen;

	if (have < 2)
		return 0;
	plen = b[1] & 0x7f;
	if (plen == 126)
		hl = 4;
	else if (plen == 127)
		hl = 10;
	if (have < hl)
		return 0;
	if (hl == 4)
		plen = (unsigned long long)b[2] << 8 | b[3];
	else if (hl == 10)
		for (size_t i = 2; i < 10; i++)
			plen = (i == 2 ? 0 : plen << 8) | b[i];
	if (plen > HTTP_MAX_BODY || (b[1] & 0x80))
		return http_fail(EPROTO, NULL, cause, "%s sent a websocket frame that is masked or "
			"too large.", addr);
	if ((b[0] & 0x0f) == 0x8)
		return 1; /* closed */
	if (have >= hl + plen && (b[0] & 0x0f) == 0x1) {
		*reply = xstrndup((const char *)b + hl, (size_t)plen);
		return 1;
	}
	return 0;
}

int http_ws_command(const struct netns_ref *ns, const char *host, int port,
	const char *host_header, const char *path, const char *message, double timeout_s,
	char **reply, char **cause)
{
	double deadline_s = util_now_mono_s() + (timeout_s > 0 ? timeout_s : 0.001);
	char addr[300];
	struct strbuf in;
	int fd, rc = -1, st, off;

	*reply = NULL;
	*cause = NULL;
	if (http_check_request(host, port, host_header, path, "an inspector command", "websocket",
		addr, NULL, cause) < 0)
		return -1;
	fd = http_connect(ns, host, port, addr, timeout_s, deadline_s, NULL, cause);
	if (fd < 0)
		return -1;
	strbuf_init(&in);
	off = ws_upgrade(fd, addr, path, host_header, &in, deadline_s, cause);
	if (off < 0)
		goto out;
	if (ws_send_text(fd, message, strlen(message), deadline_s) < 0) {
		http_fail(errno, NULL, cause, "cannot send an inspector command to %s: %s.", addr,
			strerror(errno));
		goto out;
	}
	/* The first text frame is the reply; a close frame or the end of the connection means
	 * the command closed the inspector. */
	for (;;) {
		st = ws_frame(&in, (size_t)off, addr, reply, cause);
		if (st != 0) {
			rc = st > 0 ? 0 : -1;
			goto out;
		}
		st = ws_read_some(fd, &in, deadline_s);
		if (st == 1) {
			rc = 0; /* closed */
			goto out;
		}
		if (st < 0) {
			http_fail(errno, NULL, cause, "%s did not answer an inspector command within "
				"%.3g s.", addr, timeout_s);
			goto out;
		}
		if (in.len - (size_t)off > HTTP_MAX_BODY + 16) {
			http_fail(EMSGSIZE, NULL, cause, "%s sent too much.", addr);
			goto out;
		}
	}
out:
	close(fd);
	strbuf_free(&in);
	return rc;
}
