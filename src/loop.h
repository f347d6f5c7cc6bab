/* loop.h: the one event loop of ntop-js, built on libwebsockets' loop so that the websocket,
 * timers, signals and (later) the keyboard are all served by one poll.
 *
 * libwebsockets 4.1 as packaged has no external-poll support and lws_service() ignores its
 * timeout, so every other event source is adopted into lws: file descriptors as raw files,
 * signals through a self-pipe, timers as lws "sul" entries. */
#ifndef NTOP_LOOP_H
#define NTOP_LOOP_H

#include <stdbool.h>

struct loop;
struct loop_timer;
struct lws_context;
struct lws_vhost;
struct lws_protocols;

/* Creates the loop. extra is one more lws protocol (the transport's) or NULL. Returns NULL
 * and sets *cause on failure. */
struct loop *loop_create(const struct lws_protocols *extra, char **cause);
void loop_free(struct loop *l);
struct lws_context *loop_lws_context(struct loop *l);
struct lws_vhost *loop_lws_vhost(struct loop *l);

/* Runs until loop_stop(). */
void loop_run(struct loop *l);
void loop_stop(struct loop *l);

/* One-shot timers, re-armed by calling loop_timer_arm again. */
struct loop_timer *loop_timer_create(struct loop *l, void (*cb)(void *ud), void *ud);
void loop_timer_arm(struct loop_timer *t, double delay_s);
void loop_timer_cancel(struct loop_timer *t);
bool loop_timer_armed(const struct loop_timer *t);
void loop_timer_free(struct loop_timer *t);

/* Calls on_readable whenever fd is readable (fd is not closed by the loop). */
int loop_watch_fd(struct loop *l, int fd, void (*on_readable)(void *ud), void *ud);

/* Wake-ups from other threads: loop_wake_signal() may be called from any thread, and the
 * callback then runs on the loop. All of a loop's wake-ups share one pipe, watched once, so
 * that as many as there are engines (a worker thread's each) cost no descriptor, and one can
 * go away while the loop runs. Free one only when no thread can signal it any more. */
struct loop_wake;
struct loop_wake *loop_wake_create(struct loop *l, void (*cb)(void *ud), void *ud);
void loop_wake_signal(struct loop_wake *w);
void loop_wake_free(struct loop_wake *w);

/* Delivers the given signals as calls of on_signal from the loop (never from the handler). */
int loop_catch_signals(struct loop *l, const int *sigs, int n, void (*on_signal)(void *ud, int sig),
	void *ud);

#endif
