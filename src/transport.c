/* transport.c: see transport.h. */
#include "config.h"

#include "transport.h"
#include "loop.h"
#include "netns.h"
#include "util.h"

#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>

struct out_msg {
	struct out_msg *next;
	size_t len;
	unsigned char *buf; /* LWS_PRE bytes of headroom, then the payload */
};

struct transport {
	struct loop *loop;
	struct lws *wsi;
	const struct transport_handlers *h;
	void *ud;
	size_t max_message;
	char *in;           /* the message being reassembled */
	size_t in_len, in_cap;
	bool in_overflow;
	struct out_msg *out_head, *out_tail;
	bool open, closed, closing;
	bool too_large;     /* ntop-js ended the connection: a message was over the limit */
	size_t bytes_received;
	bool delivering;      /* inside on_message: the buffer may be taken */
	char *host, *host_header, *path;
};

/* A frame header may announce any length: reserve at most this much before the bytes come. */
#define TRANSPORT_PREALLOC_MAX_BYTES ((size_t)64 << 20)

/* No keepalive: Node drops the connection on any ping (see transport.h). */
static const lws_retry_bo_t transport_no_keepalive = {
	.secs_since_valid_ping = 0,
	.secs_since_valid_hangup = 0,
};

static void transport_report_closed(struct transport *t, const char *why)
{
	struct out_msg *m;

	t->wsi = NULL;
	t->open = false;
	while ((m = t->out_head)) {
		t->out_head = m->next;
		free(m->buf);
		free(m);
	}
	t->out_tail = NULL;
	if (!t->closed) {
		t->closed = true;
		t->h->on_closed(t->ud, why);
	}
}

static int transport_receive(struct transport *t, struct lws *wsi, const char *in, size_t len)
{
	if (lws_is_first_fragment(wsi)) {
		size_t expect = len + lws_remaining_packet_payload(wsi);
		t->in_len = 0;
		t->in_overflow = false;
		/* A header announcing too much is refused at once, not after waiting for it. */
		if (expect > t->max_message || expect < len) {
			t->in_overflow = true;
			return -1;
		}
		if (expect > TRANSPORT_PREALLOC_MAX_BYTES)
			expect = TRANSPORT_PREALLOC_MAX_BYTES;
		if (expect > t->in_cap) {
			t->in = xrealloc(t->in, expect + 1);
			t->in_cap = expect;
		}
	}
	t->bytes_received += len;
	if (t->in_overflow)
		return 0;
	if (t->in_len + len > t->max_message) {
		t->in_overflow = true;
		return -1;
	}
	if (!t->in || t->in_len + len > t->in_cap) {
		size_t cap = t->in_cap ? t->in_cap : 65536;
		while (cap < t->in_len + len)
			cap *= 2;
		t->in = xrealloc(t->in, cap + 1);
		t->in_cap = cap;
	}
	memcpy(t->in + t->in_len, in, len);
	t->in_len += len;
	if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
		t->in[t->in_len] = '\0';
		t->delivering = true;
		t->h->on_message(t->ud, t->in, t->in_len);
		t->delivering = false;
		/* A large message's buffer is not kept: sessions are long and profiles spiky. */
		if (t->in_cap > (4u << 20)) {
			free(t->in);
			t->in = NULL;
			t->in_cap = 0;
		}
		t->in_len = 0;
	}
	return 0;
}

static int transport_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
	void *in, size_t len)
{
	struct transport *t = lws_get_opaque_user_data(wsi);
	struct out_msg *m;

	if (!t)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		t->open = true;
		t->h->on_open(t->ud);
		if (t->out_head && t->wsi)
			lws_callback_on_writable(t->wsi);
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (lws_frame_is_binary(wsi))
			return 0;
		if (transport_receive(t, wsi, in, len) < 0) {
			char *why = xasprintf("the target sent a message larger than %zu MB; "
				"ntop-js closed the connection.", t->max_message >> 20);
			t->too_large = true;
			lws_set_opaque_user_data(wsi, NULL);
			transport_report_closed(t, why);
			free(why);
			return -1;
		}
		break;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		m = t->out_head;
		if (!m) {
			if (t->closing)
				return -1; /* the end of the connection, without a close frame: below */
			break;
		}
		if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len) {
			lws_set_opaque_user_data(wsi, NULL);
			transport_report_closed(t, "the connection to the inspector failed while sending.");
			return -1;
		}
		t->out_head = m->next;
		if (!t->out_head)
			t->out_tail = NULL;
		free(m->buf);
		free(m);
		if (t->out_head)
			lws_callback_on_writable(wsi);
		else if (t->closing) {
			/* No close frame (lws sends none without a reason): Node answers one with a
			 * close frame of its own, whose write a concurrent inspector.close() also
			 * makes, and the second write's callback finds the connection freed by the
			 * first (a SIGSEGV that kills the target). The end of the connection alone
			 * ends the session just as well, without a write. */
			return -1;
		}
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
		char detail[160], *why;
		/* lws's reason may quote the peer's handshake: it must not reach the terminal raw. */
		util_sanitize(in && len ? (const char *)in : "connection failed",
			in && len ? strnlen(in, len) : 17, detail, sizeof detail);
		why = xasprintf("cannot open the inspector's websocket at %s%s (%s).",
			t->host_header, t->path, detail);
		lws_set_opaque_user_data(wsi, NULL);
		transport_report_closed(t, why);
		free(why);
		break;
	}
	case LWS_CALLBACK_CLIENT_CLOSED:
		lws_set_opaque_user_data(wsi, NULL);
		transport_report_closed(t, "the inspector closed the connection.");
		break;
	default:
		break;
	}
	return 0;
}

static const struct lws_protocols transport_lws_protocol = {
	.name = "ntop-js-inspector",
	.callback = transport_callback,
	.rx_buffer_size = 65536, /* 16x fewer callbacks on big profiles than the 4 KiB default */
};

const struct lws_protocols *transport_protocol(void)
{
	return &transport_lws_protocol;
}

struct transport *transport_connect(struct loop *l, const struct netns_ref *ns, const char *host,
	int port, const char *host_header, const char *path, size_t max_message_bytes,
	const struct transport_handlers *h, void *ud, char **cause)
{
	struct lws_client_connect_info ci;
	struct transport *t = xcalloc(1, sizeof *t);
	struct lws *wsi;
	char *why = NULL;
	int saved;

	t->loop = l;
	t->h = h;
	t->ud = ud;
	t->max_message = max_message_bytes;
	t->host = xstrdup(host);
	t->host_header = xstrdup(host_header);
	t->path = xstrdup(path);

	memset(&ci, 0, sizeof ci);
	ci.context = loop_lws_context(l);
	ci.vhost = loop_lws_vhost(l);
	ci.address = t->host;
	ci.port = port;
	ci.path = t->path;
	ci.host = t->host_header;
	ci.origin = NULL;
	ci.protocol = NULL;
	ci.local_protocol_name = transport_lws_protocol.name;
	ci.ietf_version_or_minus_one = -1;
	ci.opaque_user_data = t;
	ci.retry_and_idle_policy = &transport_no_keepalive;
	/* A redirect could send ntop-js to another host or port than the one it was given. */
	ci.ssl_connection = LCCSCF_HTTP_NO_FOLLOW_REDIRECT;
	ci.pwsi = &t->wsi;
	if (netns_enter(ns, &saved, NULL, &why) < 0) {
		*cause = why;
		transport_free(t);
		return NULL;
	}
	/* With a numeric address (no asynchronous DNS in lws 4.1) and a free header table (the
	 * pool is as large as the fd limit), lws creates and connects the socket inside this
	 * call, so it is born in the target's namespace; its connect failures end it, with no
	 * retry on a new socket, since a numeric address resolves to one result. */
	wsi = lws_client_connect_via_info(&ci);
	netns_leave(saved);
	if (!wsi && !t->closed) {
		*cause = xasprintf("cannot connect to the inspector at %s.", host_header);
		transport_free(t);
		return NULL;
	}
	/* A socket lws deferred would be created later, in ntop-js's own namespace. */
	if (wsi && netns_is_foreign(ns) && lws_get_socket_fd(wsi) < 0) {
		*cause = xasprintf("cannot connect to the inspector at %s inside the network "
			"namespace of PID %d: the websocket library deferred the connection.",
			host_header, (int)ns->pid);
		lws_set_opaque_user_data(wsi, NULL);
		lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
		t->wsi = NULL;
		transport_free(t);
		return NULL;
	}
	return t;
}

int transport_send(struct transport *t, const char *msg, size_t len)
{
	struct out_msg *m;

	if (!t->open || !t->wsi || t->closing)
		return -1;
	m = xcalloc(1, sizeof *m);
	m->buf = xmalloc(LWS_PRE + len);
	memcpy(m->buf + LWS_PRE, msg, len);
	m->len = len;
	if (t->out_tail)
		t->out_tail->next = m;
	else
		t->out_head = m;
	t->out_tail = m;
	lws_callback_on_writable(t->wsi);
	return 0;
}

char *transport_take_message(struct transport *t)
{
	char *buf = t->in;

	if (!t->delivering || !buf)
		return NULL;
	t->in = NULL;
	t->in_cap = 0;
	return buf;
}

void transport_close(struct transport *t)
{
	if (!t || t->closed)
		return;
	t->closing = true;
	if (t->wsi && t->open) {
		lws_callback_on_writable(t->wsi);
	} else {
		/* Still in the handshake, which may never end: drop the connection now. */
		if (t->wsi) {
			lws_set_opaque_user_data(t->wsi, NULL);
			lws_set_timeout(t->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
		}
		transport_report_closed(t, "closed.");
	}
}

void transport_free(struct transport *t)
{
	struct out_msg *m;

	if (!t)
		return;
	if (t->wsi)
		lws_set_opaque_user_data(t->wsi, NULL);
	while ((m = t->out_head)) {
		t->out_head = m->next;
		free(m->buf);
		free(m);
	}
	free(t->in);
	free(t->host);
	free(t->host_header);
	free(t->path);
	free(t);
}

size_t transport_bytes_received(const struct transport *t)
{
	return t->bytes_received;
}

bool transport_too_large(const struct transport *t)
{
	return t->too_large;
}

const char *transport_library_version(void)
{
	return lws_get_library_version();
}
