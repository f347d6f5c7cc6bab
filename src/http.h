/* http.h: a minimal blocking HTTP GET for the inspector's /json endpoints (HTTP/1.0 replies
 * with Content-Length). Used only while attaching, before the event loop starts. */
#ifndef NTOP_HTTP_H
#define NTOP_HTTP_H

#include <stddef.h>

#define HTTP_MAX_BODY (1024 * 1024)

struct netns_ref;

/* GETs path from host:port (host numeric) over a socket created in the network namespace ns
 * (NULL: ours), sending host_header as Host. On success returns 0 with *status and a
 * NUL-terminated *body (caller frees). On failure returns -1 and sets *cause; errno_out (if
 * not NULL) receives the socket error (ECONNREFUSED, ETIMEDOUT...), or netns_enter's. */
int http_get(const struct netns_ref *ns, const char *host, int port, const char *host_header,
	const char *path, double timeout_s, int *status, char **body, size_t *body_len,
	int *errno_out, char **cause);

/* Sends one inspector message (a JSON-RPC text) over a websocket (created in ns, as with
 * http_get) to host:port's path and
 * returns the first text frame that comes back in *reply (caller frees), or *reply NULL when
 * the inspector closed the connection first (as a command that closes it does). Returns 0, or
 * -1 with *cause. Blocking, bounded by timeout_s, for use before the event loop. */
int http_ws_command(const struct netns_ref *ns, const char *host, int port,
	const char *host_header, const char *path, const char *message, double timeout_s,
	char **reply, char **cause);

#endif
