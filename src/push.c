/* push.c: see push.h. */
#include "config.h"

#include "push.h"
#include "loop.h"
#include "strbuf.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the URL and names ---- */

/* Where a URL's credentials end: its last '@' (a password's '/', '?' or '#' left unencoded
 * stays a credential, never a path), or NULL. */
static const char *userinfo_end(const char *arg)
{
	const char *scheme = strstr(arg, "://");

	return scheme ? strrchr(scheme + 3, '@') : NULL;
}

void push_redact_url(const char *arg, char *out, size_t size)
{
	const char *at = arg ? userinfo_end(arg) : NULL;
	char *shown;

	if (!arg)
		arg = "";
	shown = at ? xasprintf("%.*s***%s", (int)(strstr(arg, "://") + 3 - arg), arg, at) :
		xstrdup(arg);
	util_sanitize(shown, strlen(shown), out, size);
	free(shown);
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "Basic BASE64(USER:PASSWORD)" from the percent-encoded userinfo [p, end). */
static int basic_auth(const char *p, const char *end, char *out, size_t size)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char raw[256];
	size_t n = 0, o;

	for (; p < end; p++) {
		int c = (unsigned char)*p;

		if (c == '%') {
			if (end - p < 3 || hex_digit(p[1]) < 0 || hex_digit(p[2]) < 0)
				return -1;
			c = hex_digit(p[1]) * 16 + hex_digit(p[2]);
			p += 2;
		}
		if (n == sizeof raw || c < 0x20 || c == 0x7f)
			return -1;
		raw[n++] = (unsigned char)c;
	}
	if (n == 0 || 6 + (n + 2) / 3 * 4 >= size)
		return -1;
	o = (size_t)snprintf(out, size, "Basic ");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)raw[i] << 16 | (i + 1 < n ? (unsigned)raw[i + 1] << 8 : 0) |
			(i + 2 < n ? raw[i + 2] : 0);

		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return 0;
}

int push_parse_url(const char *arg, struct push_url *u, char **cause)
{
	const char *p, *host_end, *path, *at;
	char clean[128];
	size_t n;

	memset(u, 0, sizeof *u);
	u->port = 80;
	push_redact_url(arg, clean, sizeof clean);
	if (!arg || strncmp(arg, "http://", 7) != 0) {
		*cause = xasprintf("--push takes an http:// URL (ntop-js speaks no TLS), not '%s'.",
			clean);
		return -1;
	}
	p = arg + 7;
	if ((at = userinfo_end(arg)) != NULL) {
		if (basic_auth(p, at, u->auth, sizeof u->auth) < 0) {
			*cause = xasprintf("--push: the user and password in '%s' must be 1 to 255 "
				"bytes, percent-encoded where a URL needs it.", clean);
			return -1;
		}
		p = at + 1;
	}
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (!host_end)
			goto bad;
		n = (size_t)(host_end - p - 1);
		if (n == 0 || n >= sizeof u->host)
			goto bad;
		memcpy(u->host, p + 1, n);
		host_end++;
	} else {
		host_end = p + strcspn(p, ":/?#");
		n = (size_t)(host_end - p);
		if (n == 0 || n >= sizeof u->host)
			goto bad;
		memcpy(u->host, p, n);
	}
	if (*host_end == ':') {
		char *end;
		long port;

		errno = 0;
		port = strtol(host_end + 1, &end, 10);
		if (end == host_end + 1 || errno || port < 1 || port > 65535 ||
		    (*end && *end != '/'))
			goto bad;
		u->port = (int)port;
		path = end;
	} else if (*host_end == '\0' || *host_end == '/') {
		path = host_end;
	} else {
		goto bad;
	}
	/* a prefix only: the query and fragment are ntop-js's to write */
	n = strlen(path);
	if (strpbrk(path, "?# \t\r\n") || n >= sizeof u->base)
		goto bad;
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
			goto bad;
	while (n > 0 && path[n - 1] == '/')
		n--;
	memcpy(u->base, path, n);
	u->base[n] = '\0';
	if (strcmp(u->host, "localhost") == 0) {
		strcpy(u->host, "127.0.0.1");
	} else {
		unsigned char buf[sizeof(struct in6_addr)];

		if (inet_pton(AF_INET, u->host, buf) != 1 && inet_pton(AF_INET6, u->host, buf) != 1) {
			char h[80];
			util_sanitize(u->host, strlen(u->host), h, sizeof h);
			*cause = xasprintf("--push: '%s' is not a numeric address; ntop-js resolves no "
				"host names, so give the server's IP address (or localhost).", h);
			return -1;
		}
	}
	if (strchr(u->host, ':'))
		snprintf(u->shown, sizeof u->shown, "http://[%s]:%d%s", u->host, u->port, u->base);
	else
		snprintf(u->shown, sizeof u->shown, "http://%s:%d%s", u->host, u->port, u->base);
	return 0;
bad:
	*cause = xasprintf("--push takes http://HOST[:PORT][/PREFIX] with a numeric host, not "
		"'%s'.", clean);
	return -1;
}

static bool name_byte_ok(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == '.' || c == '_' || c == '-' || c == '/' || c == ':';
}

bool push_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_byte_ok((unsigned char)name[i]))
			return false;
	return true;
}

void push_name_clean(const char *name, char *out, size_t size)
{
	size_t i = 0;

	if (size == 0)
		return;
	if (!name || !name[0])
		name = "node";
	for (; name[i] && i + 1 < size && i < 128; i++)
		out[i] = name_byte_ok((unsigned char)name[i]) ? name[i] : '_';
	out[i] = '\0';
}

void push_query_escape(struct strbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			strbuf_putc(b, (char)c);
		} else {
			strbuf_putc(b, '%');
			strbuf_putc(b, hex[c >> 4]);
			strbuf_putc(b, hex[c & 15]);
		}
	}
}

/* ---- the request and the reply ---- */

void push_build_request(struct strbuf *b, const struct push_url *u, const struct push_meta *m,
	const void *gz, size_t len)
{
	char boundary[64];
	uint64_t h = util_mix64((uint64_t)m->from * 1000003u ^ (uint64_t)len);
	size_t body_len;
	static const char part_head[] =
		"Content-Disposition: form-data; name=\"profile\"; filename=\"profile.pprof\"\r\n"
		"Content-Type: application/octet-stream\r\n\r\n";

	/* a boundary that the gzipped bytes do not contain */
	do {
		snprintf(boundary, sizeof boundary, "ntopjs-%016llx", (unsigned long long)h);
		h = util_mix64(h + 1);
	} while (len >= strlen(boundary) && memmem(gz, len, boundary, strlen(boundary)));
	body_len = 2 + strlen(boundary) + 2 + (sizeof part_head - 1) + len + 2 + 2 +
		strlen(boundary) + 4;
	strbuf_printf(b, "POST %s/ingest?name=", u->base);
	push_query_escape(b, m->name);
	strbuf_printf(b, "&from=%lld&until=%lld&format=pprof&spyName=ntop-js&sampleRate=%ld "
		"HTTP/1.1\r\n", m->from, m->until, m->sample_rate);
	if (strchr(u->host, ':'))
		strbuf_printf(b, "Host: [%s]:%d\r\n", u->host, u->port);
	else
		strbuf_printf(b, "Host: %s:%d\r\n", u->host, u->port);
	strbuf_printf(b, "User-Agent: ntop-js/%s\r\n", PACKAGE_VERSION);
	if (u->auth[0])
		strbuf_printf(b, "Authorization: %s\r\n", u->auth);
	strbuf_printf(b, "Content-Type: multipart/form-data; boundary=%s\r\n", boundary);
	strbuf_printf(b, "Content-Length: %zu\r\n", body_len);
	if (m->tenant && m->tenant[0])
		strbuf_printf(b, "X-Scope-OrgID: %s\r\n", m->tenant);
	strbuf_puts(b, "Connection: close\r\n\r\n");
	strbuf_printf(b, "--%s\r\n", boundary);
	strbuf_puts(b, part_head);
	strbuf_append(b, gz, len);
	strbuf_printf(b, "\r\n--%s--\r\n", boundary);
}

int push_parse_status(const char *buf, size_t len, int *status)
{
	static const char prefix[] = "HTTP/1.";
	size_t n = len < sizeof prefix - 1 ? len : sizeof prefix - 1;
	const char *eol;

	if (memcmp(buf, prefix, n) != 0)
		return -1;
	eol = memchr(buf, '\n', len);
	if (!eol)
		return len >= PUSH_MAX_REPLY_HEAD ? -1 : 0;
	/* HTTP/1.x NNN[ reason] */
	if ((size_t)(eol - buf) < 12 || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ' ||
	    buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9' || (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n'))
		return -1;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	return 1;
}

enum push_verdict push_classify(int status)
{
	if (status >= 200 && status < 300)
		return PUSH_DELIVERED;
	if (status >= 400 && status < 500 && status != 429)
		return PUSH_REFUSED;
	return PUSH_RETRY;
}

double push_backoff_next(double cur)
{
	double next = cur <= 0 ? PUSH_BACKOFF_MIN_S : cur * 2;

	return next > PUSH_BACKOFF_MAX_S ? PUSH_BACKOFF_MAX_S : next;
}

/* ---- the client ---- */

struct item {
	struct item *next;
	char *name;
	long long from, until;
	long sample_rate;
	unsigned char *gz;
	size_t len;
};

enum state { ST_IDLE, ST_CONNECTING, ST_WRITING, ST_READING };

struct push {
	struct push_url url;
	char *tenant;
	struct push_handlers h;
	void *ud;
	struct item *head, *tail;
	size_t n, bytes, dropped, refused, delivered;
	bool said_drop, said_refused, said_down;
	/* the connection */
	enum state st;
	int fd, ep_fd;
	bool watched;
	struct strbuf req;
	size_t req_off;
	char reply[PUSH_MAX_REPLY_HEAD];
	size_t reply_len;
	double deadline;             /* of the request in flight */
	double backoff;              /* the last retry's delay; 0: the server answers */
	bool waiting;                /* a retry is due when the timer fires */
	bool finishing;              /* push_finish: no retries */
	bool failed;                 /* push_finish: a request failed */
	struct loop_timer *timer;    /* the request's deadline or the retry's time */
};

static void say(struct push *p, char *msg)
{
	if (p->h.notice)
		p->h.notice(p->ud, msg);
	free(msg);
}

static void item_free(struct item *it)
{
	free(it->name);
	free(it->gz);
	free(it);
}

static void pop(struct push *p)
{
	struct item *it = p->head;

	p->head = it->next;
	if (!p->head)
		p->tail = NULL;
	p->n--;
	p->bytes -= it->len;
	item_free(it);
}

struct push *push_create(const struct push_url *u, const char *tenant,
	const struct push_handlers *h, void *ud)
{
	struct push *p = xcalloc(1, sizeof *p);

	p->url = *u;
	p->tenant = tenant ? xstrdup(tenant) : NULL;
	if (h)
		p->h = *h;
	p->ud = ud;
	p->fd = p->ep_fd = -1;
	strbuf_init(&p->req);
	return p;
}

size_t push_queued(const struct push *p) { return p->n; }
size_t push_queued_bytes(const struct push *p) { return p->bytes; }
size_t push_dropped(const struct push *p) { return p->dropped; }
size_t push_refused(const struct push *p) { return p->refused; }
size_t push_delivered(const struct push *p) { return p->delivered; }
double push_backoff(const struct push *p) { return p->waiting ? p->backoff : 0; }

static void conn_close(struct push *p)
{
	if (p->fd >= 0) {
		if (p->ep_fd >= 0)
			epoll_ctl(p->ep_fd, EPOLL_CTL_DEL, p->fd, NULL);
		close(p->fd);
	}
	p->fd = -1;
	p->st = ST_IDLE;
	strbuf_reset(&p->req);
	p->req_off = 0;
	p->reply_len = 0;
	if (p->timer)
		loop_timer_cancel(p->timer);
}

static void kick(struct push *p);

/* The request in flight failed (no connection, no answer, 5xx, 429): retry it later. */
static void fail(struct push *p, const char *why)
{
	conn_close(p);
	if (p->finishing) {
		p->failed = true;
		return;
	}
	p->backoff = push_backoff_next(p->backoff);
	if (!p->said_down) {
		p->said_down = true;
		say(p, xasprintf("--push: %s %s; profiles wait (up to %d) and are retried until it "
			"takes them.", p->url.shown, why, PUSH_QUEUE_MAX));
	}
	p->waiting = true;
	if (p->timer)
		loop_timer_arm(p->timer, p->backoff);
}

static void answered(struct push *p, int status)
{
	enum push_verdict v = push_classify(status);
	char why[64];

	conn_close(p);
	if (v == PUSH_RETRY) {
		snprintf(why, sizeof why, "answered %d", status);
		fail(p, why);
		return;
	}
	if (v == PUSH_DELIVERED) {
		p->delivered++;
		if (p->said_down && !p->finishing)
			say(p, xasprintf("--push: %s takes profiles again.", p->url.shown));
		p->said_down = false;
	} else {
		p->refused++;
		if (!p->said_refused) {
			p->said_refused = true;
			say(p, xasprintf("--push: %s refused a profile with status %d, so it is dropped "
				"(later refusals are counted, not said).", p->url.shown, status));
		}
	}
	p->backoff = 0;
	pop(p);
	kick(p);
}

static void ep_mod(struct push *p, uint32_t events)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof ev);
	ev.events = events;
	epoll_ctl(p->ep_fd, EPOLL_CTL_MOD, p->fd, &ev);
}

static void do_read(struct push *p);

static void do_write(struct push *p)
{
	while (p->req_off < p->req.len) {
		ssize_t n = send(p->fd, p->req.data + p->req_off, p->req.len - p->req_off,
			MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p->req_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		/* a server may answer (413, 400) and close before the body is all sent */
		p->st = ST_READING;
		ep_mod(p, EPOLLIN | EPOLLRDHUP);
		do_read(p);
		return;
	}
	p->st = ST_READING;
	ep_mod(p, EPOLLIN | EPOLLRDHUP);
}

static void do_read(struct push *p)
{
	for (;;) {
		ssize_t n = recv(p->fd, p->reply + p->reply_len, sizeof p->reply - p->reply_len,
			MSG_DONTWAIT);
		int status, r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			fail(p, "closed the connection without an answer");
			return;
		}
		p->reply_len += (size_t)n;
		r = push_parse_status(p->reply, p->reply_len, &status);
		if (r < 0) {
			fail(p, "answered with something other than HTTP");
			return;
		}
		if (r > 0) {
			answered(p, status);
			return;
		}
	}
}

static void on_events(void *ud)
{
	struct push *p = ud;
	struct epoll_event ev[4];
	int n = epoll_wait(p->ep_fd, ev, 4, 0);

	if (n <= 0 || p->fd < 0)
		return;
	if (p->st == ST_CONNECTING) {
		int err = 0;
		socklen_t sl = sizeof err;

		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 || err) {
			char *why = xasprintf("cannot be reached (%s)", strerror(err ? err : errno));
			fail(p, why);
			free(why);
			return;
		}
		p->st = ST_WRITING;
		ep_mod(p, EPOLLOUT);
	}
	if (p->st == ST_WRITING)
		do_write(p);
	else if (p->st == ST_READING)
		do_read(p);
}

/* Starts sending the oldest profile, unless one is in flight or a retry waits. */
static void kick(struct push *p)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct epoll_event ev;
	struct push_meta m;
	int family;

	if (p->st != ST_IDLE || p->waiting || !p->head || p->ep_fd < 0)
		return;
	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, p->url.host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		family = a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p->url.port);
		sl = sizeof *a;
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		inet_pton(AF_INET6, p->url.host, &a->sin6_addr);
		family = a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p->url.port);
		sl = sizeof *a;
	}
	memset(&m, 0, sizeof m);
	m.name = p->head->name;
	m.tenant = p->tenant;
	m.from = p->head->from;
	m.until = p->head->until;
	m.sample_rate = p->head->sample_rate;
	strbuf_reset(&p->req);
	push_build_request(&p->req, &p->url, &m, p->head->gz, p->head->len);
	p->req_off = 0;
	p->reply_len = 0;
	p->deadline = util_now_mono_s() + PUSH_TIMEOUT_S;
	p->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		char *why = xasprintf("cannot be reached (no socket: %s)", strerror(errno));
		fail(p, why);
		free(why);
		return;
	}
	memset(&ev, 0, sizeof ev);
	ev.events = EPOLLOUT;
	if (epoll_ctl(p->ep_fd, EPOLL_CTL_ADD, p->fd, &ev) < 0) {
		fail(p, "cannot be watched by the event loop");
		return;
	}
	p->st = ST_CONNECTING;
	if (connect(p->fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		char *why = xasprintf("cannot be reached (%s)", strerror(errno));
		fail(p, why);
		free(why);
		return;
	}
	if (p->timer)
		loop_timer_arm(p->timer, PUSH_TIMEOUT_S);
}

/* The request's deadline, or a retry's time. */
static void on_timer(void *ud)
{
	struct push *p = ud;

	if (p->st != ST_IDLE) {
		fail(p, "did not answer within 10 s");
		return;
	}
	p->waiting = false;
	kick(p);
}

int push_start(struct push *p, struct loop *l, char **cause)
{
	p->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (p->ep_fd < 0) {
		*cause = xasprintf("--push: cannot create an epoll set: %s.", strerror(errno));
		return -1;
	}
	if (loop_watch_fd(l, p->ep_fd, on_events, p) < 0) {
		*cause = xstrdup("--push: the event loop cannot watch the client's socket.");
		close(p->ep_fd);
		p->ep_fd = -1;
		return -1;
	}
	p->watched = true;
	p->timer = loop_timer_create(l, on_timer, p);
	kick(p);
	return 0;
}

void push_enqueue(struct push *p, const char *name, long long from, long long until,
	long sample_rate, const void *gz, size_t len)
{
	struct item *it = xcalloc(1, sizeof *it);

	it->name = xstrdup(name);
	it->from = from;
	it->until = until;
	it->sample_rate = sample_rate;
	it->gz = xmalloc(len ? len : 1);
	memcpy(it->gz, gz, len);
	it->len = len;
	if (p->tail)
		p->tail->next = it;
	else
		p->head = it;
	p->tail = it;
	p->n++;
	p->bytes += len;
	/* past the bounds the oldest go, but never the one in flight (its bytes are sent) */
	while ((p->n > PUSH_QUEUE_MAX || p->bytes > PUSH_QUEUE_MAX_BYTES) && p->n > 1) {
		struct item *victim = p->head;

		if (p->st != ST_IDLE) {
			victim = p->head->next;
			if (!victim || victim == it)
				break;
			p->head->next = victim->next;
			if (p->tail == victim)
				p->tail = p->head;
			p->n--;
			p->bytes -= victim->len;
			item_free(victim);
		} else {
			pop(p);
		}
		p->dropped++;
		if (!p->said_drop) {
			p->said_drop = true;
			say(p, xasprintf("--push: %s has not taken the profiles for a while: the queue "
				"is full (%d profiles or %zu MB), so the oldest are dropped.", p->url.shown,
				PUSH_QUEUE_MAX, PUSH_QUEUE_MAX_BYTES >> 20));
		}
	}
	kick(p);
}

void push_finish(struct push *p, double bound_s)
{
	double end = util_now_mono_s() + bound_s;
	size_t left;

	if (!p || p->ep_fd < 0)
		return;
	p->finishing = true;
	p->waiting = false;
	/* a request in flight keeps its deadline if that is sooner */
	if (p->st != ST_IDLE && p->deadline < end)
		end = p->deadline;
	while ((p->head || p->st != ST_IDLE) && !p->failed) {
		struct pollfd pfd = { p->ep_fd, POLLIN, 0 };
		double now = util_now_mono_s();
		int r;

		kick(p);
		if (p->st == ST_IDLE || now >= end)
			break;
		r = poll(&pfd, 1, (int)((end - now) * 1000) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0)
			on_events(p);
	}
	conn_close(p);
	left = p->n;
	if (left)
		say(p, xasprintf("--push: %zu profile%s not delivered to %s before the exit.", left,
			left == 1 ? " was" : "s were", p->url.shown));
}

void push_free(struct push *p)
{
	if (!p)
		return;
	conn_close(p);
	loop_timer_free(p->timer);
	p->timer = NULL;
	if (p->ep_fd >= 0 && !p->watched)
		close(p->ep_fd);
	while (p->head)
		pop(p);
	strbuf_free(&p->req);
	free(p->tenant);
	free(p);
}
