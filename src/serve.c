/* serve.c: see serve.h. */
#include "config.h"

#include "serve.h"
#include "exitcode.h"
#include "loop.h"
#include "strbuf.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections accepted per turn of the loop: the rest wait in the backlog, so that a flood
 * cannot hold the loop. */
#define SERVE_ACCEPTS_PER_TURN 32
/* The kernel's queue of connections not yet accepted (capped by net.core.somaxconn): deep,
 * so that a flood of connections, each taking the slot of an older one as it is accepted,
 * does not fill it and make the kernel drop a real client's SYN (retried only after 1 s). */
#define SERVE_BACKLOG 4096
/* When every slot is taken, a connection still sending its request's head gives its slot up
 * to the next in the kernel's queue once it has had this long: enough for a client that
 * sends its request with the connection, and the kernel's queue, served in order, brings a
 * real client's turn soon however fast a flood reconnects. */
#define SERVE_RECLAIM_AFTER_S 0.1
#define SERVE_TICK_S 1.0

enum conn_state { CONN_FREE, CONN_READING, CONN_WAITING, CONN_WRITING };

struct serve_conn {
	struct serve *s;
	int fd;
	enum conn_state state;
	char *in;                    /* SERVE_MAX_HEAD bytes while reading */
	size_t in_len;
	char *out;                   /* the whole response */
	size_t out_len, out_off;
	double deadline;             /* monotonic; 0: none (waiting) */
	double since;                /* monotonic: when it was accepted */
};

struct serve {
	int listen_fd, ep_fd, port;
	bool watched;                /* ep_fd belongs to the loop */
	bool listen_paused;          /* out of descriptors: accepting again at the next tick */
	bool listen_full;            /* no slot: accepting again once one frees or may be taken */
	struct loop_timer *tick;
	struct loop_timer *resume;   /* when a slot may be taken back (listen_full) */
	struct serve_handlers h;
	void *ud;
	size_t n_conns;
	struct serve_conn conns[SERVE_MAX_CONNS];
};

/* ---- requests ---- */

static bool is_tchar(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool header_is(const char *name, const char *colon, const char *want)
{
	size_t n = strlen(want);

	return (size_t)(colon - name) == n && strncasecmp(name, want, n) == 0;
}

/* A header's value [v, ve) without the spaces around it into out; false if it does not fit
 * (out is then ""). */
static bool header_value(const char *v, const char *ve, char *out, size_t size)
{
	while (v < ve && (*v == ' ' || *v == '\t'))
		v++;
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	out[0] = '\0';
	if ((size_t)(ve - v) >= size)
		return false;
	memcpy(out, v, (size_t)(ve - v));
	out[ve - v] = '\0';
	return true;
}

enum serve_parse serve_parse_request(const char *buf, size_t len, struct serve_request *r)
{
	const char *end = NULL, *p, *line_end, *sp1, *sp2;
	size_t head_len, n;
	bool host_seen = false;

	memset(r, 0, sizeof *r);
	/* The head ends at the first empty line (CRLF, or a bare LF as RFC 9112 tolerates). */
	for (size_t i = 0; i + 1 < len && i < SERVE_MAX_HEAD; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n') {
			end = buf + i + 2;
			break;
		}
		if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			end = buf + i + 4;
			break;
		}
	}
	if (!end)
		return len >= SERVE_MAX_HEAD ? SERVE_TOO_LARGE : SERVE_NEED_MORE;
	head_len = (size_t)(end - buf);
	if (head_len > SERVE_MAX_HEAD)
		return SERVE_TOO_LARGE;
	/* No NUL or other control byte but CR, LF and tab anywhere in the head. */
	for (size_t i = 0; i < head_len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f)
			return SERVE_BAD;
	}
	line_end = memchr(buf, '\n', head_len);
	n = (size_t)(line_end - buf);
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	/* METHOD SP TARGET SP HTTP/1.x */
	sp1 = memchr(buf, ' ', n);
	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) >= sizeof r->method)
		return SERVE_BAD;
	for (p = buf; p < sp1; p++)
		if (!is_tchar((unsigned char)*p))
			return SERVE_BAD;
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - buf));
	if (!sp2 || sp2 == sp1 + 1 || sp1[1] != '/')
		return SERVE_BAD;
	if ((size_t)(buf + n - (sp2 + 1)) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return SERVE_BAD;
	for (p = sp1 + 1; p < sp2; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return SERVE_BAD;
	memcpy(r->method, buf, (size_t)(sp1 - buf));
	{
		const char *target = sp1 + 1, *q = memchr(target, '?', (size_t)(sp2 - target));
		size_t path_len = (size_t)((q ? q : sp2) - target);
		size_t query_len = q ? (size_t)(sp2 - q - 1) : 0;

		if (path_len >= sizeof r->path || query_len >= sizeof r->query)
			return SERVE_BAD;
		memcpy(r->path, target, path_len);
		if (q)
			memcpy(r->query, q + 1, query_len);
	}
	/* Header lines: NAME ":" VALUE, the name a token. */
	for (p = line_end + 1; p < end; ) {
		const char *le = memchr(p, '\n', (size_t)(end - p)), *colon;
		size_t ln = (size_t)(le - p);

		if (ln > 0 && p[ln - 1] == '\r')
			ln--;
		if (ln == 0)
			break;
		colon = memchr(p, ':', ln);
		if (!colon || colon == p)
			return SERVE_BAD;
		for (const char *k = p; k < colon; k++)
			if (!is_tchar((unsigned char)*k))
				return SERVE_BAD;
		if (header_is(p, colon, "Authorization"))
			(void)header_value(colon + 1, p + ln, r->authorization, sizeof r->authorization);
		if (header_is(p, colon, "Host")) {
			/* RFC 9112: more than one Host, or one not understood, is a 400 */
			if (host_seen || !header_value(colon + 1, p + ln, r->host, sizeof r->host))
				return SERVE_BAD;
			host_seen = true;
		}
		p = le + 1;
	}
	return SERVE_OK;
}

bool serve_query_param(const char *query, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);

	for (const char *p = query; p && *p; ) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);

		if (len > nl && p[nl] == '=' && strncmp(p, name, nl) == 0) {
			if (len - nl - 1 >= size)
				return false;
			memcpy(out, p + nl + 1, len - nl - 1);
			out[len - nl - 1] = '\0';
			return true;
		}
		p = amp ? amp + 1 : NULL;
	}
	return false;
}

/* The host of a Host header's value without its port: "[::1]:80" is "[::1]", "a:80" "a". */
static size_t host_trim_port(const char *h, size_t len)
{
	const char *colon = memrchr(h, ':', len), *bracket = memrchr(h, ']', len);

	return colon && (!bracket || colon > bracket) ? (size_t)(colon - h) : len;
}

/* An IP address literal that no client resolves through DNS: dotted IPv4 (inet_pton takes
 * no other form) outside 0.0.0.0/8, or a bracketed IPv6 address other than [::], without a
 * zone. */
static bool host_is_ip(const char *h, size_t len)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned char bin[sizeof(struct in6_addr)];

	if (len >= 4 && h[0] == '[' && h[len - 1] == ']') {
		if (len - 2 >= sizeof buf || memchr(h, '%', len))
			return false;
		memcpy(buf, h + 1, len - 2);
		buf[len - 2] = '\0';
		if (inet_pton(AF_INET6, buf, bin) != 1)
			return false;
		for (size_t i = 0; i < sizeof bin; i++)
			if (bin[i])
				return true;
		return false;
	}
	if (len >= INET_ADDRSTRLEN)
		return false;
	memcpy(buf, h, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, bin) == 1 && bin[0] != 0;
}

static bool host_is(const char *h, size_t len, const char *name)
{
	return strlen(name) == len && strncasecmp(h, name, len) == 0;
}

bool serve_host_allowed(const char *host, const char *const *names, size_t n)
{
	size_t len = host_trim_port(host, strlen(host));

	if (len == 0 || host_is_ip(host, len) || host_is(host, len, "localhost") ||
	    host_is(host, len, "localhost6"))
		return true;
	for (size_t i = 0; i < n; i++)
		if (names[i] && host_is(host, len, names[i]))
			return true;
	return false;
}

int serve_parse_addr(const char *arg, char *host, size_t host_size, int *port, char **cause)
{
	const char *colon, *port_s;
	size_t hl;
	char *end;
	long v;
	unsigned char bin[sizeof(struct in6_addr)];

	if (!arg || !arg[0])
		goto bad;
	colon = strrchr(arg, ':');
	if (!colon) {
		snprintf(host, host_size, "127.0.0.1");
		port_s = arg;
	} else {
		const char *h = arg;
		hl = (size_t)(colon - arg);
		if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
			h = arg + 1;
			hl -= 2;
		} else if (memchr(arg, ':', hl)) {
			goto bad; /* a bare IPv6 address: its port cannot be told apart */
		}
		if (hl == 0 || hl >= host_size)
			goto bad;
		memcpy(host, h, hl);
		host[hl] = '\0';
		if (strcmp(host, "localhost") == 0)
			snprintf(host, host_size, "127.0.0.1");
		port_s = colon + 1;
	}
	if (!port_s[0] || port_s[0] == '-' || port_s[0] == '+')
		goto bad;
	errno = 0;
	v = strtol(port_s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		goto bad;
	if (inet_pton(AF_INET, host, bin) != 1 && inet_pton(AF_INET6, host, bin) != 1)
		goto bad;
	*port = (int)v;
	return 0;
bad:
	{
		char clean[128];
		util_sanitize(arg ? arg : "", arg ? strlen(arg) : 0, clean, sizeof clean);
		*cause = xasprintf("--serve takes PORT or ADDRESS:PORT with a numeric address "
			"([ADDRESS]:PORT for IPv6), not '%s'.", clean);
	}
	return -1;
}

/* ---- connections ---- */

static void ep_set(struct serve *s, struct serve_conn *c, uint32_t events, int op)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof ev);
	ev.events = events;
	ev.data.ptr = c;
	if (epoll_ctl(s->ep_fd, op, c->fd, &ev) < 0 && op != EPOLL_CTL_DEL) {
		/* cannot watch it: it cannot be served either */
		c->deadline = 1;
	}
}

/* Watches the listening socket again after a pause (level-triggered: what waits in the
 * kernel's queue is seen at once). */
static void listen_resume(struct serve *s)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof ev);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	if (epoll_ctl(s->ep_fd, EPOLL_CTL_ADD, s->listen_fd, &ev) == 0 || errno == EEXIST)
		s->listen_paused = s->listen_full = false;
}

static void conn_close(struct serve_conn *c)
{
	struct serve *s = c->s;
	bool waiting = c->state == CONN_WAITING;

	epoll_ctl(s->ep_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
	c->fd = -1;
	c->state = CONN_FREE;
	s->n_conns--;
	if (s->listen_full)
		listen_resume(s);
	if (waiting && s->h.on_gone)
		s->h.on_gone(s->ud, c);
}

static void conn_write(struct serve_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += (size_t)n;
			/* idle timeout: counted from the client's last read */
			c->deadline = util_now_mono_s() + SERVE_WRITE_TIMEOUT_S;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		break; /* the client went away */
	}
	conn_close(c);
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 421: return "Misdirected Request";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Unknown";
	}
}

void serve_respond(struct serve_conn *c, int status, const char *content_type,
	const void *body, size_t len)
{
	struct strbuf b;

	if (c->state != CONN_READING && c->state != CONN_WAITING)
		return;
	if (len > SERVE_MAX_RESPONSE) {
		serve_respond_text(c, 500, "the response would pass ntop-js's size cap.");
		return;
	}
	strbuf_init(&b);
	strbuf_printf(&b, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		"Connection: close\r\nCache-Control: no-store\r\n%s\r\n", status, status_text(status),
		content_type, len, status == 405 ? "Allow: GET\r\n" : status == 401 ?
		"WWW-Authenticate: Bearer realm=\"ntop-js\"\r\n" : "");
	if (len)
		strbuf_append(&b, body, len);
	free(c->in);
	c->in = NULL;
	c->out = b.data;
	c->out_len = b.len;
	c->out_off = 0;
	c->state = CONN_WRITING;
	c->deadline = util_now_mono_s() + SERVE_WRITE_TIMEOUT_S;
	ep_set(c->s, c, EPOLLOUT, EPOLL_CTL_MOD);
	conn_write(c);
}

void serve_respond_text(struct serve_conn *c, int status, const char *text)
{
	char *body = xasprintf("%s\n", text);

	serve_respond(c, status, "text/plain; charset=utf-8", body, strlen(body));
	free(body);
}

static void conn_read(struct serve_conn *c)
{
	struct serve *s = c->s;
	struct serve_request r;
	enum serve_parse pr;
	ssize_t n;

	if (c->state == CONN_WAITING) {
		/* only its close is watched: anything else sent is ignored */
		char sink[512];
		n = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			conn_close(c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, SERVE_MAX_HEAD - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->in_len += (size_t)n;
	pr = serve_parse_request(c->in, c->in_len, &r);
	switch (pr) {
	case SERVE_NEED_MORE:
		return;
	case SERVE_TOO_LARGE:
		serve_respond_text(c, 431, "the request's head is larger than 8 KiB.");
		return;
	case SERVE_BAD:
		serve_respond_text(c, 400, "not an HTTP/1.1 request.");
		return;
	case SERVE_OK:
		break;
	}
	/* Until answered, watched for the client's close only. */
	c->state = CONN_WAITING;
	c->deadline = 0;
	ep_set(s, c, EPOLLRDHUP, EPOLL_CTL_MOD);
	s->h.on_request(s->ud, c, &r);
}

/* A slot for a new connection: a free one, else that of the oldest connection still sending
 * its request's head if it has had SERVE_RECLAIM_AFTER_S (to be closed for it), so that
 * clients which connect and say nothing cannot keep a real request out. NULL when none can
 * be had yet: *retry_s is then when one can (0: only once a connection closes). */
static struct serve_conn *conn_slot(struct serve *s, double now, double *retry_s)
{
	struct serve_conn *oldest = NULL;

	for (size_t k = 0; k < SERVE_MAX_CONNS; k++) {
		struct serve_conn *c = &s->conns[k];

		if (c->state == CONN_FREE)
			return c;
		if (c->state == CONN_READING && (!oldest || c->since < oldest->since))
			oldest = c;
	}
	*retry_s = 0;
	if (oldest && now - oldest->since < SERVE_RECLAIM_AFTER_S) {
		*retry_s = oldest->since + SERVE_RECLAIM_AFTER_S - now;
		return NULL;
	}
	return oldest;
}

static void serve_accept(struct serve *s)
{
	for (int i = 0; i < SERVE_ACCEPTS_PER_TURN; i++) {
		double now = util_now_mono_s(), retry_s;
		struct serve_conn *c = conn_slot(s, now, &retry_s);
		int fd;

		if (!c) {
			/* the rest wait in the kernel's queue, in order, until a slot can be had */
			epoll_ctl(s->ep_fd, EPOLL_CTL_DEL, s->listen_fd, NULL);
			s->listen_full = true;
			if (retry_s > 0)
				loop_timer_arm(s->resume, retry_s);
			return;
		}
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* level-triggered: stop listening until the next tick, or spin */
				epoll_ctl(s->ep_fd, EPOLL_CTL_DEL, s->listen_fd, NULL);
				s->listen_paused = true;
				loop_timer_arm(s->tick, SERVE_TICK_S);
			}
			return;
		}
		if (c->state != CONN_FREE)
			conn_close(c); /* its slot is taken back */
		c->s = s;
		c->fd = fd;
		c->state = CONN_READING;
		c->in = xmalloc(SERVE_MAX_HEAD);
		c->in_len = 0;
		c->out = NULL;
		c->out_len = c->out_off = 0;
		c->since = now;
		c->deadline = c->since + SERVE_HEAD_TIMEOUT_S;
		s->n_conns++;
		ep_set(s, c, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_ADD);
		if (!loop_timer_armed(s->tick))
			loop_timer_arm(s->tick, SERVE_TICK_S);
		/* a request that came with the connection is read now, before more accepts can
		 * take its slot */
		conn_read(c);
	}
}

static void serve_on_events(void *ud)
{
	struct serve *s = ud;
	struct epoll_event ev[32];
	int n = epoll_wait(s->ep_fd, ev, 32, 0);

	for (int i = 0; i < n; i++) {
		struct serve_conn *c = ev[i].data.ptr;

		if (!c) {
			serve_accept(s);
			continue;
		}
		/* an earlier event of this batch may have closed it */
		if (c->state == CONN_FREE)
			continue;
		if (c->state == CONN_WRITING) {
			if (ev[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
				conn_write(c);
		} else if (ev[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
			conn_read(c);
		}
	}
}

/* Drops the connections past their deadline; runs while any is open. */
static void serve_on_tick(void *ud)
{
	struct serve *s = ud;
	double now = util_now_mono_s();

	for (size_t k = 0; k < SERVE_MAX_CONNS; k++) {
		struct serve_conn *c = &s->conns[k];
		if (c->state != CONN_FREE && c->deadline > 0 && now >= c->deadline)
			conn_close(c);
	}
	if (s->listen_paused)
		listen_resume(s);
	if (s->n_conns || s->listen_paused)
		loop_timer_arm(s->tick, SERVE_TICK_S);
}

/* A slot can be taken back now: accepting again. */
static void serve_on_resume(void *ud)
{
	struct serve *s = ud;

	if (s->listen_full)
		listen_resume(s);
}

/* ---- the server ---- */

struct serve *serve_open(const char *host, int port, int *status, char **cause)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct serve *s;
	int fd, one = 1, family;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		family = a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		sl = sizeof *a;
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		family = a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		sl = sizeof *a;
	} else {
		*status = EXIT_USAGE;
		*cause = xstrdup("--serve: the address is not a numeric IPv4 or IPv6 address.");
		return NULL;
	}
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*status = EXIT_INTERNAL;
		*cause = xasprintf("--serve: cannot create a socket: %s.", strerror(errno));
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, SERVE_BACKLOG) < 0) {
		int err = errno;
		close(fd);
		*status = err == EADDRINUSE ? EXIT_PORT_BUSY :
			err == EADDRNOTAVAIL || err == EACCES ? EXIT_USAGE : EXIT_INTERNAL;
		*cause = err == EADDRINUSE ?
			xasprintf("--serve: port %d on %s is already in use.", port, host) :
			xasprintf("--serve: cannot listen on %s port %d: %s.", host, port, strerror(err));
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->listen_fd = fd;
	s->ep_fd = -1;
	sl = sizeof ss;
	s->port = getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 ?
		ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
		((struct sockaddr_in6 *)&ss)->sin6_port) : port;
	for (size_t k = 0; k < SERVE_MAX_CONNS; k++)
		s->conns[k].fd = -1;
	return s;
}

int serve_port(const struct serve *s)
{
	return s->port;
}

int serve_start(struct serve *s, struct loop *l, const struct serve_handlers *h, void *ud,
	char **cause)
{
	struct epoll_event ev;

	s->h = *h;
	s->ud = ud;
	s->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep_fd < 0) {
		*cause = xasprintf("--serve: cannot create an epoll set: %s.", strerror(errno));
		return -1;
	}
	memset(&ev, 0, sizeof ev);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL; /* the listening socket */
	if (epoll_ctl(s->ep_fd, EPOLL_CTL_ADD, s->listen_fd, &ev) < 0 ||
	    loop_watch_fd(l, s->ep_fd, serve_on_events, s) < 0) {
		*cause = xstrdup("--serve: the event loop cannot watch the server's socket.");
		close(s->ep_fd);
		s->ep_fd = -1;
		return -1;
	}
	s->watched = true;
	s->tick = loop_timer_create(l, serve_on_tick, s);
	s->resume = loop_timer_create(l, serve_on_resume, s);
	return 0;
}

void serve_free(struct serve *s)
{
	if (!s)
		return;
	s->listen_full = false;
	for (size_t k = 0; k < SERVE_MAX_CONNS; k++)
		if (s->conns[k].state != CONN_FREE)
			conn_close(&s->conns[k]);
	loop_timer_free(s->tick);
	loop_timer_free(s->resume);
	close(s->listen_fd);
	if (s->ep_fd >= 0 && !s->watched)
		close(s->ep_fd);
	free(s);
}
