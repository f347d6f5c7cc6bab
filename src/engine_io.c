/* engine_io.c: the engine's real transport and clock (engine.h): the websocket of transport.c
 * and the timers of loop.c. Kept apart so that the engine itself never calls either. */
#include "config.h"

#include "engine.h"
#include "attach.h"
#include "loop.h"
#include "transport.h"
#include "util.h"

static void *ws_connect(void *ctx, const struct attach_result *t, size_t max_message_bytes,
	const struct transport_handlers *h, void *ud, char **cause)
{
	return transport_connect(ctx, &t->netns, t->host, t->port, t->host_header, t->ws_path,
		max_message_bytes, h, ud, cause);
}

static int ws_send(void *conn, const char *data, size_t len)
{
	return transport_send(conn, data, len);
}

static char *ws_take_message(void *conn)
{
	return transport_take_message(conn);
}

static bool ws_too_large(const void *conn)
{
	return transport_too_large(conn);
}

static void ws_close(void *conn)
{
	transport_close(conn);
}

static void ws_free(void *conn)
{
	transport_free(conn);
}

static double clock_mono_s(void *ctx)
{
	return util_now_mono_s();
}

static double clock_wall_s(void *ctx)
{
	return util_now_wall_s();
}

/* An engine_timer is a loop_timer under another name: the engine never looks inside. */
static struct engine_timer *clock_timer_create(void *ctx, void (*cb)(void *ud), void *ud)
{
	return (struct engine_timer *)loop_timer_create(ctx, cb, ud);
}

static void clock_timer_arm(struct engine_timer *t, double delay_s)
{
	loop_timer_arm((struct loop_timer *)t, delay_s);
}

static void clock_timer_cancel(struct engine_timer *t)
{
	loop_timer_cancel((struct loop_timer *)t);
}

static void clock_timer_free(struct engine_timer *t)
{
	loop_timer_free((struct loop_timer *)t);
}

void engine_io_websocket(struct loop *l, struct engine_transport *tp, struct engine_clock *clock)
{
	*tp = (struct engine_transport){
		.connect = ws_connect,
		.send = ws_send,
		.take_message = ws_take_message,
		.too_large = ws_too_large,
		.close = ws_close,
		.free = ws_free,
		.ctx = l,
	};
	*clock = (struct engine_clock){
		.mono_s = clock_mono_s,
		.wall_s = clock_wall_s,
		.timer_create = clock_timer_create,
		.timer_arm = clock_timer_arm,
		.timer_cancel = clock_timer_cancel,
		.timer_free = clock_timer_free,
		.ctx = l,
	};
}
