/* loop.c: see loop.h. */
#include "config.h"

#include "loop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOP_MAX_WATCHES 8

struct loop_watch {
	struct loop *loop;
	int fd;
	void (*on_readable)(void *ud);
	void *ud;
};

struct loop_wake {
	struct loop *loop;
	void (*cb)(void *ud);
	void *ud;
	atomic_bool pending;
	struct loop_wake *next;
};

struct loop {
	struct lws_context *ctx;
	struct lws_vhost *vhost;
	struct lws_protocols protocols[3];
	bool stop;
	struct loop_watch watches[LOOP_MAX_WATCHES];
	int n_watches;
	int sig_pipe[2];
	int wake_pipe[2];           /* shared by every loop_wake; -1 until the first */
	bool wake_failed;
	struct loop_wake *wakes;
	void (*on_signal)(void *ud, int sig);
	void *sig_ud;
};

struct loop_timer {
	lws_sorted_usec_list_t sul; /* first, so the callback can find the timer */
	struct loop *loop;
	void (*cb)(void *ud);
	void *ud;
	bool armed;
	lws_usec_t due_us;          /* when it fires, on lws's clock */
};

static int sig_write_fd = -1;

static int loop_raw_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
	void *in, size_t len)
{
	struct loop_watch *w = lws_get_opaque_user_data(wsi);
	struct pollfd p;

	if (reason != LWS_CALLBACK_RAW_RX_FILE || !w)
		return 0;
	w->on_readable(w->ud);
	/* A hung-up terminal stays readable for ever: stop watching it rather than spin until
	 * the session ends (SIGHUP ends it). */
	p.fd = w->fd;
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
		lws_set_opaque_user_data(wsi, NULL);
		return -1;
	}
	return 0;
}

struct loop *loop_create(const struct lws_protocols *extra, char **cause)
{
	struct lws_context_creation_info info;
	struct loop *l = xcalloc(1, sizeof *l);
	int n = 0;

	l->sig_pipe[0] = l->sig_pipe[1] = -1;
	l->wake_pipe[0] = l->wake_pipe[1] = -1;
	l->protocols[n].name = "ntop-js-raw";
	l->protocols[n].callback = loop_raw_callback;
	n++;
	if (extra)
		l->protocols[n++] = *extra;
	/* protocols[n] stays zeroed: lws 4.1 ends the list with an empty entry. */

	/* Nothing of lws may reach the terminal: it would land on the curses screen. */
	lws_set_log_level(0, NULL);

	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = l->protocols;
	info.fd_limit_per_thread = 16;
	info.gid = -1;
	info.uid = -1;
	l->ctx = lws_create_context(&info);
	if (!l->ctx) {
		*cause = xstrdup("cannot start the event loop (libwebsockets context creation failed).");
		free(l);
		return NULL;
	}
	l->vhost = lws_get_vhost_by_name(l->ctx, "default");
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	lws_context_destroy(l->ctx);
	if (l->sig_pipe[0] >= 0) {
		close(l->sig_pipe[0]);
		close(l->sig_pipe[1]);
		sig_write_fd = -1;
	}
	if (l->wake_pipe[0] >= 0) {
		close(l->wake_pipe[0]);
		close(l->wake_pipe[1]);
	}
	free(l);
}

struct lws_context *loop_lws_context(struct loop *l)
{
	return l->ctx;
}

struct lws_vhost *loop_lws_vhost(struct loop *l)
{
	return l->vhost;
}

void loop_run(struct loop *l)
{
	l->stop = false;
	while (!l->stop)
		if (lws_service(l->ctx, 0) < 0)
			break;
}

void loop_stop(struct loop *l)
{
	l->stop = true;
	lws_cancel_service(l->ctx);
}

static void loop_timer_fire(lws_sorted_usec_list_t *sul)
{
	struct loop_timer *t = (struct loop_timer *)sul;

	t->armed = false;
	t->cb(t->ud);
}

struct loop_timer *loop_timer_create(struct loop *l, void (*cb)(void *ud), void *ud)
{
	struct loop_timer *t = xcalloc(1, sizeof *t);

	t->loop = l;
	t->cb = cb;
	t->ud = ud;
	return t;
}

void loop_timer_arm(struct loop_timer *t, double delay_s)
{
	lws_usec_t us, due;

	if (delay_s < 0)
		delay_s = 0;
	us = (lws_usec_t)(delay_s * LWS_US_PER_SEC);
	due = lws_now_usecs() + us;
	/* Re-armed for the same moment (an engine re-arms its deadline timer at every message):
	 * lws would take it out of its sorted list and put it back, which with dozens of engines
	 * (a worker thread's each) was 3 % of ntop-js's time. */
	if (t->armed && due >= t->due_us && due - t->due_us < 1000)
		return;
	t->armed = true;
	t->due_us = due;
	lws_sul_schedule(t->loop->ctx, 0, &t->sul, loop_timer_fire, us);
}

void loop_timer_cancel(struct loop_timer *t)
{
	if (t && t->armed) {
		lws_sul_cancel(&t->sul);
		t->armed = false;
	}
}

bool loop_timer_armed(const struct loop_timer *t)
{
	return t->armed;
}

void loop_timer_free(struct loop_timer *t)
{
	if (!t)
		return;
	loop_timer_cancel(t);
	free(t);
}

int loop_watch_fd(struct loop *l, int fd, void (*on_readable)(void *ud), void *ud)
{
	struct loop_watch *w;
	lws_adopt_desc_t desc;

	if (l->n_watches == LOOP_MAX_WATCHES)
		return -1;
	w = &l->watches[l->n_watches];
	w->loop = l;
	w->fd = fd;
	w->on_readable = on_readable;
	w->ud = ud;
	memset(&desc, 0, sizeof desc);
	desc.vh = l->vhost;
	desc.type = LWS_ADOPT_RAW_FILE_DESC;
	desc.fd.filefd = fd;
	desc.vh_prot_name = "ntop-js-raw";
	desc.opaque = w;
	if (!lws_adopt_descriptor_vhost_via_info(&desc))
		return -1;
	l->n_watches++;
	return 0;
}

/* Calls back every wake-up signalled since the last time. A callback may free wake-ups: the
 * list is walked again from its head after each call. */
static void loop_wake_readable(void *ud)
{
	struct loop *l = ud;
	char b[64];
	bool again = true;

	while (read(l->wake_pipe[0], b, sizeof b) > 0)
		;
	while (again) {
		again = false;
		for (struct loop_wake *w = l->wakes; w; w = w->next)
			if (atomic_exchange(&w->pending, false)) {
				w->cb(w->ud);
				again = true;
				break;
			}
	}
}

struct loop_wake *loop_wake_create(struct loop *l, void (*cb)(void *ud), void *ud)
{
	struct loop_wake *w;

	if (l->wake_pipe[0] < 0 && !l->wake_failed) {
		if (pipe(l->wake_pipe) == 0) {
			for (int i = 0; i < 2; i++) {
				fcntl(l->wake_pipe[i], F_SETFL, fcntl(l->wake_pipe[i], F_GETFL) | O_NONBLOCK);
				fcntl(l->wake_pipe[i], F_SETFD, FD_CLOEXEC);
			}
			if (loop_watch_fd(l, l->wake_pipe[0], loop_wake_readable, l) < 0) {
				close(l->wake_pipe[0]);
				close(l->wake_pipe[1]);
				l->wake_pipe[0] = l->wake_pipe[1] = -1;
			}
		}
		l->wake_failed = l->wake_pipe[0] < 0;
	}
	if (l->wake_pipe[0] < 0)
		return NULL;
	w = xcalloc(1, sizeof *w);
	w->loop = l;
	w->cb = cb;
	w->ud = ud;
	atomic_init(&w->pending, false);
	w->next = l->wakes;
	l->wakes = w;
	return w;
}

void loop_wake_signal(struct loop_wake *w)
{
	char b = 1;

	atomic_store(&w->pending, true);
	/* A full pipe already holds a wake-up for the loop. */
	while (write(w->loop->wake_pipe[1], &b, 1) < 0 && errno == EINTR)
		;
}

void loop_wake_free(struct loop_wake *w)
{
	if (!w)
		return;
	for (struct loop_wake **p = &w->loop->wakes; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	free(w);
}

static void loop_sig_handler(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (sig_write_fd >= 0 && write(sig_write_fd, &b, 1) < 0) {
		/* The pipe is full: a signal of this burst is already pending. */
	}
	errno = saved;
}

static void loop_sig_readable(void *ud)
{
	struct loop *l = ud;
	unsigned char buf[64];
	ssize_t n, i;

	while ((n = read(l->sig_pipe[0], buf, sizeof buf)) > 0)
		for (i = 0; i < n; i++)
			l->on_signal(l->sig_ud, buf[i]);
}

int loop_catch_signals(struct loop *l, const int *sigs, int n, void (*on_signal)(void *ud, int sig),
	void *ud)
{
	struct sigaction sa;
	int i;

	if (pipe(l->sig_pipe) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		fcntl(l->sig_pipe[i], F_SETFL, fcntl(l->sig_pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(l->sig_pipe[i], F_SETFD, FD_CLOEXEC);
	}
	l->on_signal = on_signal;
	l->sig_ud = ud;
	sig_write_fd = l->sig_pipe[1];
	if (loop_watch_fd(l, l->sig_pipe[0], loop_sig_readable, l) < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = loop_sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < n; i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -1;
	return 0;
}
