/* serve.h: a small HTTP/1.1 server inside ntop-js's one event loop (--serve), for the
 * Prometheus and pprof endpoints that app_serve.c answers.
 *
 * It never blocks the loop and is bounded against slow or hostile clients: one epoll set
 * watched by the loop holds the listening socket and every connection; at most
 * SERVE_MAX_CONNS connections, a request's head of at most SERVE_MAX_HEAD bytes that must
 * arrive within SERVE_HEAD_TIMEOUT_S of the accept, a response built in memory (at most
 * SERVE_MAX_RESPONSE bytes) that must leave within SERVE_WRITE_TIMEOUT_S of the client's last
 * read. When every slot is taken, new connections wait in the kernel's queue (in order) and
 * the next one takes the slot of the oldest connection that has not sent its whole request
 * within SERVE_RECLAIM_AFTER_S (serve.c): clients that connect and say nothing, however many
 * and however fast they reconnect, cannot keep a real request out. One request per
 * connection (Connection: close). */
#ifndef NTOP_SERVE_H
#define NTOP_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_MAX_CONNS 64
#define SERVE_MAX_HEAD 8192
#define SERVE_HEAD_TIMEOUT_S 5.0
#define SERVE_WRITE_TIMEOUT_S 10.0
#define SERVE_MAX_RESPONSE ((size_t)32 << 20)

struct loop;

/* ---- requests (pure, unit-tested) ---- */

struct serve_request {
	char method[16];
	char path[256];              /* without the query */
	char query[512];             /* after '?', "" for none */
	char authorization[256];     /* the Authorization header's value, "" for none (one too
	                                long for this is "" too, and so refused where one is
	                                required) */
	char host[256];              /* the Host header's value, "" for none (two Host headers,
	                                or one too long for this, are SERVE_BAD) */
};

enum serve_parse {
	SERVE_NEED_MORE,             /* the head is not complete yet */
	SERVE_OK,
	SERVE_BAD,                   /* not an HTTP/1.x request: 400 */
	SERVE_TOO_LARGE,             /* the head passes SERVE_MAX_HEAD: 431 */
};

/* Reads a request's head from the first len bytes received. */
enum serve_parse serve_parse_request(const char *buf, size_t len, struct serve_request *r);
/* The value of query parameter name into out (percent-decoding not needed for numbers: the
 * value is copied as sent). Returns true if present and it fits. */
bool serve_query_param(const char *query, const char *name, char *out, size_t size);

/* Whether a request's Host header (its value, port included) may be answered: as Node's
 * inspector decides against DNS rebinding, the host without its port must be empty, an IP
 * address literal (IPv4 dotted, not 0.x.x.x; IPv6 in brackets, not [::]), localhost or
 * localhost6, or one of names (n of them), compared without case. */
bool serve_host_allowed(const char *host, const char *const *names, size_t n);

/* Splits --serve's argument: "PORT" (127.0.0.1) or "ADDR:PORT" ("[V6]:PORT" for IPv6) into a
 * numeric host and port. Returns 0, or -1 with *cause. */
int serve_parse_addr(const char *arg, char *host, size_t host_size, int *port, char **cause);

/* ---- the server ---- */

struct serve;
struct serve_conn;

struct serve_handlers {
	/* A request: answer it now with serve_respond, or later (the connection waits, readable
	 * only for its close). */
	void (*on_request)(void *ud, struct serve_conn *c, const struct serve_request *r);
	/* A connection still waiting for its answer went away (the client left, a timeout, the
	 * server's end): c must not be used after. */
	void (*on_gone)(void *ud, struct serve_conn *c);
};

/* Listens on host:port (numeric). Returns the server, or NULL with *cause and *status
 * (EXIT_PORT_BUSY for a port in use, EXIT_USAGE for an address not of this machine,
 * EXIT_INTERNAL otherwise). */
struct serve *serve_open(const char *host, int port, int *status, char **cause);
/* The port it listens on (port 0 picks one). */
int serve_port(const struct serve *s);
/* Starts serving on the loop. Returns 0, or -1 with *cause. */
int serve_start(struct serve *s, struct loop *l, const struct serve_handlers *h, void *ud,
	char **cause);
/* Answers c (the body is copied) and closes it once written. */
void serve_respond(struct serve_conn *c, int status, const char *content_type,
	const void *body, size_t len);
/* A one-line text answer. */
void serve_respond_text(struct serve_conn *c, int status, const char *text);
/* Closes every connection (waiting ones through on_gone) and the sockets; call before the
 * loop is freed (its timer is the loop's). The epoll descriptor, once watched, is the loop's
 * to close. Accepts NULL. */
void serve_free(struct serve *s);

#endif
