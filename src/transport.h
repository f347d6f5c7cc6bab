/* transport.h: the websocket to the inspector. It knows frames and buffers, nothing of the
 * protocol: it hands over whole text messages and sends whole text messages.
 *
 * Node's inspector drops the TCP connection on any ping, pong, binary, continuation or
 * compressed frame, so the transport sends one unfragmented masked text frame per message,
 * negotiates no extension, and turns off libwebsockets' idle keepalive ping (300 s by
 * default, which would end every long session). */
#ifndef NTOP_TRANSPORT_H
#define NTOP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

struct loop;
struct netns_ref;
struct transport;
struct lws_protocols;

struct transport_handlers {
	void (*on_open)(void *ud);
	void (*on_message)(void *ud, const char *data, size_t len);
	/* The connection failed or closed; why is one sentence. Called at most once. */
	void (*on_closed)(void *ud, const char *why);
};

/* The lws protocol the loop must be created with. */
const struct lws_protocols *transport_protocol(void);

/* Starts connecting, over a socket created in the network namespace ns (NULL: ours); the
 * result arrives through the handlers. Returns NULL and sets *cause if the attempt cannot even
 * start. Messages larger than max_message_bytes close the connection. */
struct transport *transport_connect(struct loop *l, const struct netns_ref *ns, const char *host,
	int port, const char *host_header, const char *path, size_t max_message_bytes,
	const struct transport_handlers *h, void *ud, char **cause);
/* Queues one text message. Returns -1 if the connection is not open. */
int transport_send(struct transport *t, const char *msg, size_t len);
/* Only inside on_message: takes the message's buffer (NUL-terminated, the data passed to
 * on_message lies inside it), which the caller must free. NULL if it cannot be taken. */
char *transport_take_message(struct transport *t);
/* Asks for a clean close; on_closed follows. */
void transport_close(struct transport *t);

/* The libwebsockets ntop-js runs with ("4.1.6-..."), for --version. */
const char *transport_library_version(void);
void transport_free(struct transport *t);
/* Bytes received so far (for the status line and benchmarks). */
size_t transport_bytes_received(const struct transport *t);
/* True if ntop-js ended the connection because a message was over max_message_bytes. */
bool transport_too_large(const struct transport *t);

#endif
