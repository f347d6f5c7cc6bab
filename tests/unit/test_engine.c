/* Unit tests for the engine, driven through a scripted transport and a clock the test moves:
 * the set-up's requests in eval and --no-eval mode, a window rotated and handed over with its
 * samples, the overlap of eval-mode windows trimmed, a profile over 1 MiB read on the inbox's
 * worker, Profiler.stop/start per window without eval, a reply that never comes (EXIT_TIMEOUT)
 * or throws (EXIT_PROTOCOL), the target leaving mid-window (the windows already made are kept),
 * a re-attach after it left (--follow), -n's polite end, CPU bursts (--cpu-every) and the
 * event-loop readings. The replies are shaped
 * like the recorded ones in fuzz/corpus/fuzz_envelope; the profile is tests/fixtures'. */
#include "config.h"

#include "aggregate.h"
#include "attach.h"
#include "cumulative.h"
#include "engine.h"
#include "evloop.h"
#include "exitcode.h"
#include "fixture.h"
#include "functab.h"
#include "loop.h"
#include "memseries.h"
#include "profile.h"
#include "strbuf.h"
#include "tap.h"
#include "transport.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TIMERS 16
#define MAX_SENT 256
#define DELAY_S 1.0
#define TIMEOUT_S 5.0
#define DOOR_KEY "Symbol.for('ntop-js.door')"

/* ---- the clock: time moves only in advance() ---- */

struct fake;

struct engine_timer {
	struct fake *f;
	void (*cb)(void *ud);
	void *ud;
	bool armed;
	double due_s;
};

/* One request the engine sent. */
struct sent {
	long long id;
	char method[64];
	char *expression;  /* Runtime.evaluate's, or the message of sendMessageToWorker; else NULL */
	char session[64];  /* NodeWorker calls' sessionId */
	long interval;     /* Profiler.setSamplingInterval's, else 0 */
	struct conn *c;    /* the connection it came on (answered there while it is open) */
	bool taken;        /* the test has answered it, or chosen not to */
	bool answered;     /* an answer was delivered (reply) */
};

/* One connection made by connect. */
struct conn {
	struct fake *f;
	const struct transport_handlers *h;
	void *ud;
	bool close_asked;   /* on_closed is due at the next advance() */
	bool closed;
};

struct fake {
	struct loop *loop;    /* the inbox's: one per engine, as in ntop-js */
	double now_s;
	struct engine_timer *timers[MAX_TIMERS];
	int n_timers;
	struct conn *conn;    /* the latest connection */
	struct conn *open[4]; /* every connection not freed yet (the coarse sampler's is a second) */
	int n_open;
	int connects, frees;
	struct sent sent[MAX_SENT];
	int n_sent;
	char prefix[64];      /* this engine's profile titles, read from its console.profile */
	/* the workers reported (on_worker): the latest one and the way to it */
	bool answer_door;     /* the door's evaluations wait for the test's answer */
	int workers_seen;
	struct engine_worker_info worker;
	struct engine_transport worker_tp;
	/* what the handlers saw */
	struct engine *e;
	int windows;
	bool stop_on_window;  /* loop_stop() at the next window */
	size_t last_samples;
	double last_fib_self_us;
	int notices;
	int finished;
	int status;
	char why[300];
};

static double fake_mono_s(void *ctx)
{
	return ((struct fake *)ctx)->now_s;
}

static double fake_wall_s(void *ctx)
{
	return 1.7e9 + ((struct fake *)ctx)->now_s;
}

static struct engine_timer *fake_timer_create(void *ctx, void (*cb)(void *ud), void *ud)
{
	struct fake *f = ctx;
	struct engine_timer *t = xcalloc(1, sizeof *t);

	if (f->n_timers == MAX_TIMERS)
		abort();
	t->f = f;
	t->cb = cb;
	t->ud = ud;
	f->timers[f->n_timers++] = t;
	return t;
}

static void fake_timer_arm(struct engine_timer *t, double delay_s)
{
	t->armed = true;
	t->due_s = t->f->now_s + (delay_s > 0 ? delay_s : 0);
}

static void fake_timer_cancel(struct engine_timer *t)
{
	t->armed = false;
}

static void fake_timer_free(struct engine_timer *t)
{
	struct fake *f = t->f;
	int i;

	for (i = 0; i < f->n_timers; i++)
		if (f->timers[i] == t)
			f->timers[i] = f->timers[--f->n_timers];
	free(t);
}

static const struct engine_clock fake_clock = {
	.mono_s = fake_mono_s,
	.wall_s = fake_wall_s,
	.timer_create = fake_timer_create,
	.timer_arm = fake_timer_arm,
	.timer_cancel = fake_timer_cancel,
	.timer_free = fake_timer_free,
};

/* ---- the transport: requests are recorded, replies are whatever the test delivers ---- */

static void *fake_connect(void *ctx, const struct attach_result *target, size_t max_bytes,
	const struct transport_handlers *h, void *ud, char **cause)
{
	struct fake *f = ctx;
	struct conn *c = xcalloc(1, sizeof *c);
	int i;

	/* What was asked on an earlier connection, now closed, can never be answered. */
	for (i = 0; i < f->n_sent; i++)
		if (!f->sent[i].c || f->sent[i].c->closed || f->sent[i].c->close_asked)
			f->sent[i].taken = true;
	c->f = f;
	c->h = h;
	c->ud = ud;
	f->conn = c;
	if (f->n_open < 4)
		f->open[f->n_open++] = c;
	f->connects++;
	return c;
}

/* Remembers the console.profile title prefix: the test's events must carry it. */
static void note_prefix(struct fake *f, const char *expr)
{
	const char *p = strstr(expr, "c.profile('");
	size_t n;

	if (!p || f->prefix[0])
		return;
	p += strlen("c.profile('");
	n = strcspn(p, "'");
	while (n && p[n - 1] >= '0' && p[n - 1] <= '9')
		n--;
	if (n < sizeof f->prefix)
		memcpy(f->prefix, p, n);
}

static int fake_send(void *conn, const char *data, size_t len)
{
	struct conn *c = conn;
	struct fake *f = c->f;
	cJSON *root, *id, *method, *expr;
	struct sent *s;

	if (c->close_asked || c->closed || f->n_sent == MAX_SENT)
		return -1;
	root = cJSON_ParseWithLength(data, len);
	id = cJSON_GetObjectItemCaseSensitive(root, "id");
	method = cJSON_GetObjectItemCaseSensitive(root, "method");
	expr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "params"),
		"expression");
	s = &f->sent[f->n_sent++];
	memset(s, 0, sizeof *s);
	s->c = c;
	{
		cJSON *iv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root,
			"params"), "interval");
		s->interval = cJSON_IsNumber(iv) ? (long)iv->valuedouble : 0;
	}
	s->id = cJSON_IsNumber(id) ? (long long)id->valuedouble : -1;
	snprintf(s->method, sizeof s->method, "%s", cJSON_IsString(method) ? method->valuestring : "?");
	if (cJSON_IsString(expr)) {
		s->expression = xstrdup(expr->valuestring);
		note_prefix(f, s->expression);
		/* The door's lease (engine_door.c) is left unanswered unless a test asks for it:
		 * the engine goes on without a reply, as without a lease. */
		s->taken = !f->answer_door && strstr(s->expression, DOOR_KEY) != NULL;
	}
	{
		cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params"),
			*sid = cJSON_GetObjectItemCaseSensitive(params, "sessionId"),
			*msg = cJSON_GetObjectItemCaseSensitive(params, "message");

		if (cJSON_IsString(sid))
			snprintf(s->session, sizeof s->session, "%s", sid->valuestring);
		if (cJSON_IsString(msg) && !s->expression)
			s->expression = xstrdup(msg->valuestring);
	}
	cJSON_Delete(root);
	return 0;
}

static char *fake_take_message(void *conn)
{
	return NULL;
}

static bool fake_too_large(const void *conn)
{
	return false;
}

static void fake_close(void *conn)
{
	struct conn *c = conn;

	c->close_asked = true;
}

static void fake_free(void *conn)
{
	struct conn *c = conn;
	struct fake *f = c->f;
	int i;

	if (f->conn == c)
		f->conn = NULL;
	for (i = 0; i < f->n_open; i++)
		if (f->open[i] == c)
			f->open[i--] = f->open[--f->n_open];
	for (i = 0; i < f->n_sent; i++)
		if (f->sent[i].c == c)
			f->sent[i].c = NULL;
	f->frees++;
	free(c);
}

/* ---- the engine's handlers ---- */

static void on_window(void *ud, const struct window_stats *w, double wall_s)
{
	struct fake *f = ud;
	const struct functab *ft = engine_functab(f->e);
	size_t i;

	f->windows++;
	if (f->stop_on_window)
		loop_stop(f->loop);
	f->last_samples = w->n_samples;
	f->last_fib_self_us = 0;
	for (i = 0; i < w->n_funcs; i++)
		if (strcmp(functab_get(ft, w->funcs[i].func)->name, "fibHot") == 0)
			f->last_fib_self_us += w->funcs[i].self_us;
}

static void on_notice(void *ud, const char *msg)
{
	((struct fake *)ud)->notices++;
}

static void on_finished(void *ud, int status, const char *why)
{
	struct fake *f = ud;

	f->finished++;
	f->status = status;
	snprintf(f->why, sizeof f->why, "%s", why ? why : "");
}

static void on_worker(void *ud, const struct engine_worker_info *w,
	const struct engine_transport *tp)
{
	struct fake *f = ud;

	f->workers_seen++;
	f->worker = *w;
	f->worker_tp = *tp;
}

static const struct engine_handlers handlers = {
	.on_window = on_window,
	.on_notice = on_notice,
	.on_finished = on_finished,
	.on_worker = on_worker,
};

/* ---- driving it ---- */

/* Delivers the closes the engine asked for, then fires the timers due by now + dt, in order. */
static void advance(struct fake *f, double dt)
{
	double end = f->now_s + dt;

	for (;;) {
		struct engine_timer *next = NULL;
		struct conn *closing = NULL;
		int i;

		for (i = 0; i < f->n_open && !closing; i++)
			if (f->open[i]->close_asked && !f->open[i]->closed)
				closing = f->open[i];
		if (closing) {
			closing->closed = true;
			closing->h->on_closed(closing->ud, "closed.");
			continue;
		}
		for (i = 0; i < f->n_timers; i++)
			if (f->timers[i]->armed && f->timers[i]->due_s <= end &&
			    (!next || f->timers[i]->due_s < next->due_s))
				next = f->timers[i];
		if (!next)
			break;
		if (next->due_s > f->now_s)
			f->now_s = next->due_s;
		next->armed = false;
		next->cb(next->ud);
	}
	f->now_s = end;
}

static void deliver(struct fake *f, const char *msg)
{
	if (f->conn && !f->conn->closed)
		f->conn->h->on_message(f->conn->ud, msg, strlen(msg));
}

/* The oldest request for method not yet taken: its id, or -1 (and a failed test). */
static long long take(struct fake *f, const char *method)
{
	int i;

	for (i = 0; i < f->n_sent; i++)
		if (!f->sent[i].taken && strcmp(f->sent[i].method, method) == 0) {
			f->sent[i].taken = true;
			return f->sent[i].id;
		}
	ok(0, "the engine sent %s", method);
	return -1;
}

static void reply(struct fake *f, long long id, const char *result)
{
	char *msg = xasprintf("{\"id\":%lld,\"result\":%s}", id, result);

	for (int i = 0; i < f->n_sent; i++)
		if (f->sent[i].id == id && (!f->sent[i].c || f->sent[i].c == f->conn))
			f->sent[i].answered = true;

	deliver(f, msg);
	free(msg);
}

/* Answers the oldest request for method not yet taken, on the connection it came on. */
static void answer(struct fake *f, const char *method, const char *result)
{
	int i;

	for (i = 0; i < f->n_sent; i++)
		if (!f->sent[i].taken && strcmp(f->sent[i].method, method) == 0)
			break;
	if (i == f->n_sent) {
		ok(0, "the engine sent %s", method);
		return;
	}
	f->sent[i].taken = f->sent[i].answered = true;
	if (f->sent[i].c && f->sent[i].c != f->conn) {
		char *msg = xasprintf("{\"id\":%lld,\"result\":%s}", f->sent[i].id, result);
		if (!f->sent[i].c->closed)
			f->sent[i].c->h->on_message(f->sent[i].c->ud, msg, strlen(msg));
		free(msg);
		return;
	}
	reply(f, f->sent[i].id, result);
}

/* Answers every request made on connection c not answered yet, as a live target would before
 * the connection ends (evaluations with undefined). */
static void answer_pending(struct fake *f, struct conn *c)
{
	for (int i = 0; i < f->n_sent && c && !c->closed; i++) {
		char *msg;

		if (f->sent[i].answered || f->sent[i].c != c)
			continue;
		f->sent[i].taken = f->sent[i].answered = true;
		msg = xasprintf("{\"id\":%lld,\"result\":%s}", f->sent[i].id,
			strcmp(f->sent[i].method, "Runtime.evaluate") == 0 ?
			"{\"result\":{\"type\":\"undefined\"}}" : "{}");
		c->h->on_message(c->ud, msg, strlen(msg));
		free(msg);
	}
}

/* The methods sent from request `from` on, space-separated. */
static void methods_since(const struct fake *f, int from, char *out, size_t outsz)
{
	size_t n = 0;
	int i;

	out[0] = '\0';
	for (i = from; i < f->n_sent && n < outsz; i++)
		n += (size_t)snprintf(out + n, outsz - n, "%s%s", n ? " " : "", f->sent[i].method);
}

/* Whether a request of this method was sent at all. */
static bool was_sent(const struct fake *f, const char *method)
{
	for (int i = 0; i < f->n_sent; i++)
		if (!strcmp(f->sent[i].method, method))
			return true;
	return false;
}

/* The last request's expression, or "". */
static const char *last_expression(const struct fake *f)
{
	return f->n_sent && f->sent[f->n_sent - 1].expression ? f->sent[f->n_sent - 1].expression : "";
}

/* A small profile of a busy fibHot: startTime, then one sample of node 3 per delta. */
static char *small_profile(double start_us, const int *deltas, int n)
{
	struct strbuf b;
	int i;

	strbuf_init(&b);
	strbuf_printf(&b, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\","
		"\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,"
		"\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"workload\",\"scriptId\":"
		"\"81\",\"url\":\"file:///app.js\",\"lineNumber\":3,\"columnNumber\":17},\"hitCount\":0,"
		"\"children\":[3]},{\"id\":3,\"callFrame\":{\"functionName\":\"fibHot\",\"scriptId\":"
		"\"81\",\"url\":\"file:///app.js\",\"lineNumber\":9,\"columnNumber\":15},\"hitCount\":%d,"
		"\"positionTicks\":[{\"line\":11,\"ticks\":%d}]}],\"startTime\":%.0f,", n, n, start_us);
	strbuf_puts(&b, "\"samples\":[");
	for (i = 0; i < n; i++)
		strbuf_puts(&b, i ? ",3" : "3");
	strbuf_printf(&b, "],\"endTime\":%.0f,\"timeDeltas\":[", start_us + 1000);
	for (i = 0; i < n; i++)
		strbuf_printf(&b, "%s%d", i ? "," : "", deltas[i]);
	strbuf_puts(&b, "]}");
	return b.data;
}

/* The event that ends window k in eval mode, as Node sends it, on connection c. */
static void profile_finished_on(struct fake *f, struct conn *c, unsigned k, const char *profile)
{
	char *msg = xasprintf("{\"method\":\"Profiler.consoleProfileFinished\",\"params\":{\"id\":"
		"\"%u\",\"location\":{\"scriptId\":\"12\",\"lineNumber\":0,\"columnNumber\":40},"
		"\"profile\":%s,\"title\":\"%s%u\"}}", k + 1, profile, f->prefix, k);

	if (c && !c->closed)
		c->h->on_message(c->ud, msg, strlen(msg));
	free(msg);
}

/* The same on the latest connection. */
static void profile_finished(struct fake *f, unsigned k, const char *profile)
{
	profile_finished_on(f, f->conn, k, profile);
}

/* The next make_engine's target had its inspector opened by ntop-js. */
static bool next_opened_by_us;

static void base_config(struct engine_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->delay_s = DELAY_S;
	cfg->interval_us = 1000;
	cfg->timeout_s = TIMEOUT_S;
	cfg->max_pause_s = 10;
	cfg->jit_method = JIT_KEEP;
	cfg->max_message_bytes = (size_t)64 << 20;
	cfg->calltree_max_samples = 100000;
}

static struct engine *make_engine(struct fake *f, const struct engine_config *cfg)
{
	struct engine_transport tp = {
		.connect = fake_connect, .send = fake_send, .take_message = fake_take_message,
		.too_large = fake_too_large, .close = fake_close, .free = fake_free, .ctx = f,
	};
	struct engine_clock clock = fake_clock;
	struct attach_result target;
	char *cause = NULL;

	memset(f, 0, sizeof *f);
	f->loop = loop_create(NULL, &cause);
	if (!f->loop)
		abort();
	f->now_s = 100;
	clock.ctx = f;
	memset(&target, 0, sizeof target);
	target.opened_by_us = next_opened_by_us;
	snprintf(target.host, sizeof target.host, "127.0.0.1");
	snprintf(target.host_header, sizeof target.host_header, "127.0.0.1:9229");
	target.port = 9229;
	snprintf(target.ws_path, sizeof target.ws_path, "/fake");
	f->e = engine_create(f->loop, &tp, &clock, &target, cfg, &handlers, f);
	return f->e;
}

static void free_fake(struct fake *f)
{
	int i;

	engine_free(f->e);
	loop_free(f->loop);
	for (i = 0; i < f->n_sent; i++)
		free(f->sent[i].expression);
}

/* Opens the connection the engine made and answers the set-up until the first window runs:
 * the pause reading, the profiler's enable and interval, the exit notification and the first
 * profile's start. */
static void answer_setup(struct fake *f, bool eval);

static void run_setup(struct fake *f, bool eval)
{
	if (!f->conn) {
		ok(0, "a connection to open");
		return;
	}
	f->conn->h->on_open(f->conn->ud);
	answer_setup(f, eval);
}

/* Answers the set-up's requests once the connection is open (run_setup). */
static void answer_setup(struct fake *f, bool eval)
{
	if (eval)
		answer(f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216,"
			"\"b\":1048576,\"k\":2097152,\"v\":\"11.3.244.8-node.19\"}}}");
	else
		answer(f, "Runtime.getHeapUsage", "{\"usedSize\":3672216,\"totalSize\":4431872}");
	answer(f, "Profiler.setSamplingInterval", "{}");
	answer(f, "Profiler.enable", "{}");
	answer(f, "NodeRuntime.notifyWhenWaitingForDisconnect", "{}");
	if (eval) {
		ok(strstr(last_expression(f), "c.profile('") != NULL && f->prefix[0],
			"eval: the first window starts with console.profile (%s0)", f->prefix);
		answer(f, "Runtime.evaluate", "{\"result\":{\"type\":\"undefined\"}}");
	} else {
		answer(f, "Profiler.start", "{}");
	}
}

static void start_and_setup(struct fake *f, bool eval)
{
	char *cause = NULL;

	if (engine_start(f->e, &cause) < 0) {
		ok(0, "engine_start: %s", cause);
		free(cause);
		return;
	}
	run_setup(f, eval);
}

/* Starts the engine and opens its connection, the set-up left to the test: false (and a
 * failed test) if it cannot start. */
static bool start_and_open(struct fake *f)
{
	char *cause = NULL;

	if (engine_start(f->e, &cause) < 0) {
		ok(0, "engine_start: %s", cause);
		free(cause);
		return false;
	}
	f->conn->h->on_open(f->conn->ud);
	return true;
}

/* A burst starts the profiler (after engine_start_cpu): enable, interval, first profile. */
static void answer_cpu_start(struct fake *f, bool eval)
{
	answer(f, "Profiler.setSamplingInterval", "{}");
	answer(f, "Profiler.enable", "{}");
	if (eval)
		answer(f, "Runtime.evaluate", "{\"result\":{\"type\":\"undefined\"}}");
	else
		answer(f, "Profiler.start", "{}");
}

/* The window timer fires: eval mode rotates with one evaluation; its id. */
static long long rotate(struct fake *f)
{
	int before = f->n_sent;

	advance(f, DELAY_S);
	if (f->n_sent != before + 1 || strcmp(f->sent[before].method, "Runtime.evaluate") != 0) {
		ok(0, "the window timer sent one Runtime.evaluate");
		return -1;
	}
	return take(f, "Runtime.evaluate");
}

/* ---- the tests ---- */

static char *fib_profile;
static size_t fib_expected_samples;

/* The fixture's samples after its first (the engine leaves that one out: it covers the
 * profiler's own start). */
static size_t count_fib_samples(void)
{
	struct functab *ft = functab_create();
	struct profile p;
	char *err = NULL;
	size_t i, n = 0;
	double t, first;

	if (profile_parse(fib_profile, strlen(fib_profile), ft, &p, &err) < 0) {
		free(err);
		functab_free(ft);
		return 0;
	}
	t = p.start_time_us;
	first = t + (p.n_samples && p.time_deltas[0] > 0 ? p.time_deltas[0] : 0);
	for (i = 0; i < p.n_samples; i++) {
		t += p.time_deltas[i];
		if (t > first)
			n++;
	}
	profile_release(&p);
	functab_free(ft);
	return n;
}

static void test_rotation(void)
{
	struct engine_config cfg;
	struct fake f;
	long long id;
	char want[200];

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	is_int(f.windows, 0, "rotation: no window before the timer");
	id = rotate(&f);
	snprintf(want, sizeof want, "c.profile('%s1');c.profileEnd('%s0')", f.prefix, f.prefix);
	ok(strstr(f.sent[f.n_sent - 1].expression, want) != NULL,
		"rotation: one evaluation starts window 1 and ends window 0");
	profile_finished(&f, 0, fib_profile);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.windows, 1, "rotation: the window is handed over");
	is_int(f.last_samples, fib_expected_samples, "rotation: with its samples (%zu)",
		fib_expected_samples);
	ok(f.last_fib_self_us > 0, "rotation: fibHot has self time (%.0f us)", f.last_fib_self_us);
	is_int(engine_cumulative(f.e)->n_samples, fib_expected_samples,
		"rotation: the cumulative counters have them");
	/* A profile whose title is not this session's (the app's own console.profile) is not a
	 * window. */
	id = rotate(&f);
	{
		char *other = xasprintf("{\"method\":\"Profiler.consoleProfileFinished\",\"params\":"
			"{\"id\":\"9\",\"location\":{\"scriptId\":\"81\",\"lineNumber\":1,\"columnNumber\":1},"
			"\"profile\":%s,\"title\":\"app\"}}", fib_profile);
		deliver(&f, other);
		free(other);
	}
	is_int(f.windows, 1, "rotation: another title is not a window");
	profile_finished(&f, 1, fib_profile);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.windows, 2, "rotation: the second window is handed over");
	is_int(f.finished, 0, "rotation: the session goes on");
	free_fake(&f);
}

#define PAUSE_READING "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216,\"b\":1048576," \
	"\"k\":2097152,\"v\":\"11.3.244.8-node.19\"}}}"
#define UNDEFINED "{\"result\":{\"type\":\"undefined\"}}"
/* The pause reading of a target run with NODE_V8_COVERAGE. */
#define COVERAGE_READING "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216," \
	"\"b\":1048576,\"k\":2097152,\"v\":\"11.3.244.8-node.19\",\"c\":true}}}"

/* --later-interval: a second connection whose profiler starts at the later interval before
 * the first session's; the windows are the first session's until later_after_s, then the
 * first profiler is disabled at a rotation and the windows are the second's (each session's
 * copy of the other's windows ignored); leaving disables the second's profiler first. A second
 * connection that cannot be opened leaves the first interval, said once. */
static void test_second(void)
{
	struct engine_config cfg;
	struct fake f;
	struct conn *c1, *c2;
	char methods[300];
	int from;

	base_config(&cfg);
	cfg.later_interval_us = 4000;
	cfg.later_after_s = 1.5;
	make_engine(&f, &cfg);
	if (!start_and_open(&f))
		return;
	c1 = f.conn;
	answer(&f, "Runtime.evaluate", PAUSE_READING);
	is_int(f.connects, 2, "second: a second connection once the pause is known");
	c2 = f.conn;
	c2->h->on_open(c2->ud);
	ok(f.n_sent && !strcmp(f.sent[f.n_sent - 1].method, "Profiler.setSamplingInterval") &&
		f.sent[f.n_sent - 1].interval == 4000 && f.sent[f.n_sent - 1].c == c2,
		"second: its interval, 4000, before anything else");
	answer(&f, "Profiler.setSamplingInterval", "{}");
	answer(&f, "Profiler.enable", "{}");
	ok(f.n_sent && f.sent[f.n_sent - 1].interval == 1000 && f.sent[f.n_sent - 1].c == c1,
		"second: then the first session's, 1000");
	answer(&f, "Profiler.setSamplingInterval", "{}");
	answer(&f, "Profiler.enable", "{}");
	answer(&f, "NodeRuntime.notifyWhenWaitingForDisconnect", "{}");
	answer(&f, "Runtime.evaluate", UNDEFINED);
	advance(&f, DELAY_S);
	profile_finished_on(&f, c2, 0, fib_profile);
	is_int(f.windows, 0, "second: its copy of a window is not read before the switch");
	profile_finished_on(&f, c1, 0, fib_profile);
	answer(&f, "Runtime.evaluate", UNDEFINED);
	is_int(f.windows, 1, "second: the first session's is");
	is_int(engine_interval_us(f.e), 1000, "second: at the first interval");
	from = f.n_sent;
	advance(&f, DELAY_S);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Runtime.evaluate Profiler.disable", "second: after later_after_s, a "
		"rotation, then the first session's profiler off");
	ok(f.sent[f.n_sent - 1].c == c1, "second: on the first connection");
	profile_finished_on(&f, c1, 1, fib_profile);
	profile_finished_on(&f, c2, 1, fib_profile);
	answer(&f, "Runtime.evaluate", UNDEFINED);
	answer(&f, "Profiler.disable", "{}");
	is_int(f.windows, 2, "second: the window that ended at the switch is the first's, once");
	is_int(engine_interval_us(f.e), 1000, "second: it was sampled at the first interval");
	advance(&f, DELAY_S);
	profile_finished_on(&f, c1, 2, fib_profile);
	is_int(f.windows, 2, "second: after the switch the first session's copy is not read");
	profile_finished_on(&f, c2, 2, fib_profile);
	answer(&f, "Runtime.evaluate", UNDEFINED);
	is_int(f.windows, 3, "second: the second's is");
	is_int(engine_interval_us(f.e), 4000, "second: at the later interval");
	from = f.n_sent;
	engine_stop(f.e);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Profiler.disable", "second: leaving disables one profiler at a time");
	ok(f.sent[f.n_sent - 1].c == c2, "second: the second session's first");
	answer(&f, "Profiler.disable", "{}");
	ok(c2->close_asked, "second: then its connection is closed");
	ok(f.sent[f.n_sent - 1].c == c1 && !strcmp(f.sent[f.n_sent - 1].method, "Profiler.disable"),
		"second: then the first session's profiler is disabled");
	answer(&f, "Profiler.disable", "{}");
	answer_pending(&f, c1);
	advance(&f, 0);
	is_int(f.finished, 1, "second: the session ends");
	is_int(f.status, EXIT_OK, "second: cleanly");
	is_int(f.notices, 0, "second: nothing to say");
	free_fake(&f);

	/* the second connection closes before it opens: the first interval stays */
	make_engine(&f, &cfg);
	if (!start_and_open(&f))
		return;
	c1 = f.conn;
	answer(&f, "Runtime.evaluate", PAUSE_READING);
	c2 = f.conn;
	c2->closed = true;
	c2->h->on_closed(c2->ud, "refused.");
	is_int(f.notices, 1, "second refused: said once");
	ok(f.n_sent && f.sent[f.n_sent - 1].interval == 1000 && f.sent[f.n_sent - 1].c == c1,
		"second refused: the first session goes on");
	answer(&f, "Profiler.setSamplingInterval", "{}");
	answer(&f, "Profiler.enable", "{}");
	answer(&f, "NodeRuntime.notifyWhenWaitingForDisconnect", "{}");
	answer(&f, "Runtime.evaluate", UNDEFINED);
	advance(&f, DELAY_S);
	profile_finished_on(&f, c1, 0, fib_profile);
	answer(&f, "Runtime.evaluate", UNDEFINED);
	from = f.n_sent;
	advance(&f, DELAY_S);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Runtime.evaluate", "second refused: no switch");
	profile_finished_on(&f, c1, 1, fib_profile);
	answer(&f, "Runtime.evaluate", UNDEFINED);
	is_int(f.windows, 2, "second refused: the windows go on");
	is_int(engine_interval_us(f.e), 1000, "second refused: at the first interval");
	is_int(f.finished, 0, "second refused: the session goes on");
	free_fake(&f);

	/* V8 10 (Node 18): no second profiler (its start's pause was seconds), said once */
	make_engine(&f, &cfg);
	if (!start_and_open(&f))
		return;
	c1 = f.conn;
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216,"
		"\"b\":1048576,\"k\":2097152,\"v\":\"10.2.154.26-node.39\"}}}");
	is_int(f.connects, 1, "V8 10: no second connection");
	is_int(f.notices, 1, "V8 10: said once");
	ok(f.n_sent && f.sent[f.n_sent - 1].interval == 1000 && f.sent[f.n_sent - 1].c == c1,
		"V8 10: the first session's interval, 1000");
	free_fake(&f);
}

static void test_trim(void)
{
	static const int d0[] = { 100, 100, 100 };      /* 1100, 1200, 1300 */
	static const int d1[] = { 10, 40, 100, 100 };   /* 1260, 1300, 1400, 1500 */
	struct engine_config cfg;
	struct fake f;
	char *p0 = small_profile(1000, d0, 3), *p1 = small_profile(1250, d1, 4);
	long long id;

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	id = rotate(&f);
	profile_finished(&f, 0, p0);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.last_samples, 2, "trim: the first window leaves out the profiler's start");
	id = rotate(&f);
	profile_finished(&f, 1, p1);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.windows, 2, "trim: two windows");
	is_int(f.last_samples, 2, "trim: the second leaves out the overlap (up to 1300 us)");
	is_int(engine_cumulative(f.e)->n_samples, 4, "trim: no sample counted twice");
	free(p0);
	free(p1);
	free_fake(&f);
}

static void on_guard(void *ud)
{
	loop_stop(ud);
}

/* A profile of over 1 MiB is read on the inbox's worker, and the reply sent after it waits
 * behind it: the window comes from the worker's parse, once the loop hears from it. */
static void test_large(void)
{
	struct engine_config cfg;
	struct fake f;
	struct loop_timer *guard;
	struct strbuf big;
	long long id;

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	id = rotate(&f);
	strbuf_init(&big);
	strbuf_puts(&big, fib_profile);
	while (big.len < ((size_t)1 << 20) + 4096)
		strbuf_puts(&big, "                                                                ");
	profile_finished(&f, 0, big.data);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.windows, 0, "large: the profile is being read on the worker");
	guard = loop_timer_create(f.loop, on_guard, f.loop);
	loop_timer_arm(guard, 10);
	f.stop_on_window = true;
	loop_run(f.loop);
	loop_timer_free(guard);
	is_int(f.windows, 1, "large: the window comes from the worker");
	is_int(f.last_samples, fib_expected_samples, "large: with its samples");
	ok(f.last_fib_self_us > 0, "large: in the session's function table");
	/* Past the rotation's deadline, before the next one's. */
	advance(&f, TIMEOUT_S + DELAY_S / 2);
	is_int(f.finished, 0, "large: the reply that waited behind it was delivered");
	strbuf_free(&big);
	free_fake(&f);
}

static void test_no_eval(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200], *reply_text;
	int from, i;
	bool evaluated = false;

	base_config(&cfg);
	cfg.no_eval = true;
	make_engine(&f, &cfg);
	start_and_setup(&f, false);
	reply_text = xasprintf("{\"profile\":%s}", fib_profile);
	for (i = 0; i < 2; i++) {
		from = f.n_sent;
		advance(&f, DELAY_S);
		methods_since(&f, from, methods, sizeof methods);
		is_str(methods, "Profiler.stop Profiler.start", "no-eval: window %d: stop, then start", i);
		answer(&f, "Profiler.stop", reply_text);
		answer(&f, "Profiler.start", "{}");
		is_int(f.windows, i + 1, "no-eval: window %d comes from the Profiler.stop reply", i);
		is_int(f.last_samples, fib_expected_samples, "no-eval: window %d has its samples", i);
	}
	for (i = 0; i < f.n_sent; i++)
		evaluated |= strcmp(f.sent[i].method, "Runtime.evaluate") == 0;
	ok(!evaluated, "no-eval: nothing evaluated in the target");
	free(reply_text);
	free_fake(&f);
}

static void test_timeout(void)
{
	struct engine_config cfg;
	struct fake f;
	char want[200];

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	rotate(&f); /* and never answered */
	advance(&f, TIMEOUT_S - DELAY_S / 2);
	is_int(f.finished, 0, "timeout: not before the deadline");
	advance(&f, DELAY_S);
	is_int(f.finished, 1, "timeout: the session ends once");
	is_int(f.status, EXIT_TIMEOUT, "timeout: with EXIT_TIMEOUT");
	snprintf(want, sizeof want, "the target did not answer the window rotation "
		"(console.profile) within %g s; it may be stopped or stuck in a long native call.",
		TIMEOUT_S);
	is_str(f.why, want, "timeout: the sentence says what was not answered");
	ok(f.conn && f.conn->closed, "timeout: the connection is closed");
	free_fake(&f);
}

/* A 2 GB heap: starting the profiler is predicted to pause the target far past --max-pause.
 * Batch mode (no ask_pause) refuses with EXIT_PAUSE and the sentence, and never touches the
 * Profiler domain. */
static void test_pause_refused(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200];
	int from;

	base_config(&cfg);
	cfg.max_pause_s = 0.2;
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	from = f.n_sent;
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":2147483648,"
		"\"b\":null,\"k\":null,\"v\":\"11.3.244.8-node.19\"}}}");
	advance(&f, 0);
	/* a target that still answers: the calls in flight are answered before the end */
	ok(f.conn && !f.conn->closed, "pause: the connection waits for the calls in flight");
	answer_pending(&f, f.conn);
	advance(&f, 0);
	is_int(f.finished, 1, "pause: the session ends");
	is_int(f.status, EXIT_PAUSE, "pause: with EXIT_PAUSE");
	ok(strstr(f.why, "starting the CPU profiler would pause the target") != NULL &&
		strstr(f.why, "--max-pause") != NULL, "pause: the sentence names the pause and the way out: %s",
		f.why);
	methods_since(&f, from, methods, sizeof methods);
	ok(strstr(methods, "Profiler.") == NULL, "pause: the Profiler domain was never touched (%s)",
		methods);
	free_fake(&f);
}

/* Memory readings: one Runtime.getHeapUsage every mem_interval_s, its sizes in the series (the
 * first one waits for the detail evaluation: external memory, heap spaces, the GC profiler);
 * a reply that lies (a negative size, a string) is not a reading, and ends nothing. */
static void test_memory(void)
{
	struct engine_config cfg;
	struct fake f;
	const struct mem_sample *m;

	base_config(&cfg);
	cfg.mem_interval_s = 0.4;
	cfg.mem_detail_interval_s = 1000;
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	advance(&f, 0.4);
	answer(&f, "Runtime.getHeapUsage", "{\"usedSize\":5000000,\"totalSize\":8000000}");
	ok(strstr(last_expression(&f), "ntopJsMemory") != NULL,
		"memory: the first reading asks for the detail evaluation too");
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"string\",\"value\":"
		"\"{\\\"e\\\":123456,\\\"a\\\":1000,\\\"g\\\":null,\\\"s\\\":[]}\"}}");
	advance(&f, 0);
	m = memseries_last(engine_memseries(f.e));
	ok(m && m->v[MEM_HEAP_USED] == 5000000 && m->v[MEM_HEAP_TOTAL] == 8000000 &&
		m->v[MEM_EXTERNAL] == 123456, "memory: heap used, total and external are in the series");
	advance(&f, 0.4);
	answer(&f, "Runtime.getHeapUsage", "{\"usedSize\":-7,\"totalSize\":\"lots\"}");
	advance(&f, 0);
	m = memseries_last(engine_memseries(f.e));
	ok(m && m->v[MEM_HEAP_USED] == 5000000,
		"memory: a negative or string size does not reach the series (heap used still 5000000)");
	is_int(f.finished, 0, "memory: a lying reply ends nothing");
	advance(&f, 0.4);
	answer(&f, "Runtime.getHeapUsage", "{\"usedSize\":6000000,\"totalSize\":8000000}");
	advance(&f, 0);
	m = memseries_last(engine_memseries(f.e));
	ok(m && m->v[MEM_HEAP_USED] == 6000000, "memory: the next reading is taken again");
	free_fake(&f);
}

/* A rotation that throws (the inspector module's console gone, say) is the protocol failing. */
static void test_exception(void)
{
	struct engine_config cfg;
	struct fake f;

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	reply(&f, rotate(&f), "{\"result\":{\"type\":\"object\",\"subtype\":\"error\","
		"\"className\":\"TypeError\",\"description\":\"TypeError: c.profile is not a function\"},"
		"\"exceptionDetails\":{\"exceptionId\":1,\"text\":\"Uncaught\",\"lineNumber\":0,"
		"\"columnNumber\":30,\"scriptId\":\"110\"}}");
	advance(&f, 0);
	/* the calls in flight unanswered: the connection is dropped after 3 s */
	advance(&f, 2.9);
	ok(f.conn && !f.conn->closed && !f.finished, "exception: 2.9 s on, still waiting for the "
		"answers in flight");
	advance(&f, 0.2);
	ok(f.finished && (!f.conn || f.conn->closed), "exception: 3 s on, the connection dropped");
	is_int(f.status, EXIT_PROTOCOL, "exception: EXIT_PROTOCOL");
	is_str(f.why, "the window rotation (console.profile) threw an exception in the target: "
		"TypeError: c.profile is not a function.", "exception: the sentence names what it threw");
	free_fake(&f);

	/* the details' exception first, its first line only, its control bytes made safe */
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	reply(&f, rotate(&f), "{\"result\":{\"type\":\"object\"},\"exceptionDetails\":{"
		"\"text\":\"Uncaught\",\"exception\":{\"type\":\"object\",\"description\":"
		"\"TypeError: Cannot redefine property: \\u001b[31mx\\n    at Object.<anonymous>\"}}}");
	advance(&f, 0);
	answer_pending(&f, f.conn);
	advance(&f, 0);
	is_str(f.why, "the window rotation (console.profile) threw an exception in the target: "
		"TypeError: Cannot redefine property: ?[31mx.", "exception: one line, made safe");
	free_fake(&f);
}

/* Eval-mode set-up and one window of the fixture. */
static void one_window(struct fake *f, unsigned k)
{
	long long id = rotate(f);

	profile_finished(f, k, fib_profile);
	reply(f, id, "{\"result\":{\"type\":\"undefined\"}}");
}

/* --follow's new process of the same program, as attach would find it. */
static void next_target(struct attach_result *again)
{
	memset(again, 0, sizeof *again);
	snprintf(again->host, sizeof again->host, "127.0.0.1");
	snprintf(again->host_header, sizeof again->host_header, "127.0.0.1:9230");
	again->port = 9230;
	snprintf(again->ws_path, sizeof again->ws_path, "/fake2");
}

static void test_leave_and_follow(void)
{
	struct engine_config cfg;
	struct attach_result again;
	struct fake f;
	char *cause = NULL;
	size_t funcs;

	base_config(&cfg);
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	one_window(&f, 0);
	funcs = functab_count(engine_functab(f.e));
	rotate(&f); /* window 1 runs: the target exits before its profile */
	deliver(&f, "{\"method\":\"NodeRuntime.waitingForDisconnect\",\"params\":{}}");
	advance(&f, 0);
	is_int(f.finished, 1, "leave: the session ends");
	is_int(f.status, EXIT_TARGET_GONE, "leave: with EXIT_TARGET_GONE");
	is_str(f.why, "the target exited.", "leave: the sentence");
	is_int(engine_windows_done(f.e), 1, "leave: the window made is kept");
	is_int(engine_cumulative(f.e)->n_samples, fib_expected_samples, "leave: so are its samples");
	ok(engine_calltree(f.e) != NULL, "leave: and the call tree");
	is_int(functab_count(engine_functab(f.e)), funcs, "leave: and the function table");
	advance(&f, 3 * DELAY_S);
	is_int(f.windows, 1, "leave: no window after the end");

	/* --follow: a new process of the same program. */
	next_target(&again);
	ok(engine_restart(f.e, &again, &cause) == 0, "follow: engine_restart");
	free(cause);
	is_int(f.frees, 1, "follow: the old connection is freed");
	is_int(f.connects, 2, "follow: a second connection");
	run_setup(&f, true);
	one_window(&f, 0);
	is_int(f.windows, 2, "follow: the new target's window is handed over");
	is_int(engine_windows_done(f.e), 2, "follow: counted after the first");
	is_int(engine_cumulative(f.e)->n_samples, 2 * fib_expected_samples,
		"follow: the cumulative counters keep the first target's samples");
	is_int(f.finished, 1, "follow: no second end so far");
	/* The peer drops the connection: lost, not a polite end. */
	f.conn->closed = true;
	f.conn->h->on_closed(f.conn->ud, "connection reset.");
	is_int(f.finished, 2, "follow: the second session ends when the connection drops");
	is_int(f.status, EXIT_TARGET_GONE, "follow: with EXIT_TARGET_GONE");
	is_str(f.why, "the connection to the target was lost: connection reset.",
		"follow: the sentence");
	free_fake(&f);
}

static void test_stop(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200];
	int from;

	base_config(&cfg);
	cfg.iterations = 1;
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	from = f.n_sent;
	one_window(&f, 0);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Runtime.evaluate Profiler.disable", "-n 1: the profiler is disabled after one window");
	answer(&f, "Profiler.disable", "{}");
	ok(f.conn && !f.conn->close_asked, "-n 1: the connection stays while a call waits for its answer");
	answer_pending(&f, f.conn);
	ok(f.conn && f.conn->close_asked, "-n 1: then the connection is closed");
	advance(&f, 0);
	is_int(f.finished, 1, "-n 1: the session ends");
	is_int(f.status, EXIT_OK, "-n 1: cleanly");
	free_fake(&f);
}

/* --cpu-every: a burst is one window. Its end sends profileEnd alone (no next profile), the
 * profiler is disabled, windows between carry no samples, and the next burst starts the
 * profiler again a period after the first began: a fresh profile, whose samples count again
 * (its first, which covers the start, left out as at attach). */
static void test_bursts(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200], want[200];
	long long id;
	int from, burst;

	base_config(&cfg);
	cfg.cpu_every_s = 3 * DELAY_S;
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	for (burst = 0; burst < 2; burst++) {
		id = rotate(&f);
		snprintf(want, sizeof want, "c.profileEnd('%s%d')", f.prefix, burst);
		ok(strstr(last_expression(&f), want) != NULL && !strstr(last_expression(&f), "c.profile('"),
			"bursts: burst %d ends with profileEnd alone", burst);
		from = f.n_sent;
		profile_finished(&f, (unsigned)burst, fib_profile);
		reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
		is_int(f.windows, 1 + 3 * burst, "bursts: burst %d is a window", burst);
		is_int(f.last_samples, fib_expected_samples, "bursts: burst %d has its samples", burst);
		ok(!engine_cpu_on(f.e), "bursts: the profiler is off after burst %d", burst);
		methods_since(&f, from, methods, sizeof methods);
		is_str(methods, "Profiler.disable", "bursts: and disabled in the target");
		answer(&f, "Profiler.disable", "{}");
		ok(fabs(engine_next_burst_in_s(f.e) - 2 * DELAY_S) < 1e-6,
			"bursts: the next is due a period after this one began (%.3f s)",
			engine_next_burst_in_s(f.e));
		from = f.n_sent;
		advance(&f, DELAY_S);
		is_int(f.windows, 2 + 3 * burst, "bursts: a window between");
		is_int(f.last_samples, 0, "bursts: with no samples");
		is_int(f.n_sent, from, "bursts: and nothing asked of the target");
		advance(&f, DELAY_S);
		is_int(f.windows, 3 + 3 * burst, "bursts: a second window between");
		methods_since(&f, from, methods, sizeof methods);
		is_str(methods, "Profiler.setSamplingInterval", "bursts: then the next burst starts the profiler");
		answer(&f, "Profiler.setSamplingInterval", "{}");
		answer(&f, "Profiler.enable", "{}");
		snprintf(want, sizeof want, "c.profile('%s%d')", f.prefix, burst + 1);
		ok(strstr(last_expression(&f), want) != NULL, "bursts: with a fresh profile (%s)", want);
		answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"undefined\"}}");
		ok(engine_cpu_on(f.e) && isnan(engine_next_burst_in_s(f.e)),
			"bursts: the profiler runs, no burst is pending");
	}
	is_int(f.finished, 0, "bursts: the session goes on");
	is_int(f.notices, 0, "bursts: with nothing to tell");
	free_fake(&f);
}

/* Without eval: the burst ends with Profiler.stop and no start. */
static void test_bursts_no_eval(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200], *reply_text;
	int from;

	base_config(&cfg);
	cfg.no_eval = true;
	cfg.cpu_every_s = 2 * DELAY_S;
	make_engine(&f, &cfg);
	start_and_setup(&f, false);
	reply_text = xasprintf("{\"profile\":%s}", fib_profile);
	from = f.n_sent;
	advance(&f, DELAY_S);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Profiler.stop", "bursts, no-eval: the burst ends with a stop alone");
	answer(&f, "Profiler.stop", reply_text);
	is_int(f.last_samples, fib_expected_samples, "bursts, no-eval: the burst is a window");
	answer(&f, "Profiler.disable", "{}");
	from = f.n_sent;
	advance(&f, DELAY_S);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Profiler.setSamplingInterval", "bursts, no-eval: the next starts a period later");
	answer_cpu_start(&f, false);
	ok(engine_cpu_on(f.e), "bursts, no-eval: and runs");
	free(reply_text);
	free_fake(&f);
}

/* A burst's profile that cannot be read costs that window, not the session: the profiler is
 * stopped all the same, and the next burst comes. The live view's c between bursts is a burst
 * too, and the next one comes a period after it. */
static void test_burst_invalid(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200];
	long long id;
	int from;
	char *cause = NULL;

	base_config(&cfg);
	cfg.cpu_every_s = 2 * DELAY_S;
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	id = rotate(&f);
	from = f.n_sent;
	profile_finished(&f, 0, "{\"nodes\":[]}");
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Profiler.disable", "burst invalid: the profiler is stopped");
	answer(&f, "Profiler.disable", "{}");
	ok(!engine_cpu_on(f.e) && f.finished == 0 && f.notices == 1,
		"burst invalid: the CPU is off, the session goes on, with a notice");
	from = f.n_sent;
	advance(&f, DELAY_S);
	methods_since(&f, from, methods, sizeof methods);
	is_str(methods, "Profiler.setSamplingInterval", "burst invalid: the next burst comes");
	answer_cpu_start(&f, true);
	/* ends at the next tick, then c by hand at once */
	id = rotate(&f);
	profile_finished(&f, 1, fib_profile);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	answer(&f, "Profiler.disable", "{}");
	ok(engine_start_cpu(f.e, &cause) == 0, "burst by hand: starts");
	free(cause);
	ok(fabs(engine_next_burst_in_s(f.e) - 0) < 1e-9, "burst by hand: starting (0 s)");
	answer_cpu_start(&f, true);
	id = rotate(&f);
	profile_finished(&f, 2, fib_profile);
	reply(&f, id, "{\"result\":{\"type\":\"undefined\"}}");
	answer(&f, "Profiler.disable", "{}");
	ok(fabs(engine_next_burst_in_s(f.e) - (2 * DELAY_S - DELAY_S)) < 1e-6,
		"burst by hand: the next a period after it (%.3f s)", engine_next_burst_in_s(f.e));
	free_fake(&f);
}

/* A burst whose start is predicted to pause the target over --max-pause is skipped, with a
 * notice, and the Profiler domain is not touched. (The live view held the first one back.) */
static void test_burst_skipped(void)
{
	struct engine_config cfg;
	struct fake f;
	char methods[200];
	int from;

	base_config(&cfg);
	cfg.cpu_every_s = 2 * DELAY_S;
	cfg.max_pause_s = 0.2;
	cfg.ask_pause = true;
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	from = f.n_sent;
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":2147483648,"
		"\"b\":null,\"k\":null,\"v\":\"11.3.244.8-node.19\"}}}");
	advance(&f, 3 * DELAY_S);
	is_int(f.finished, 0, "burst skipped: the session goes on");
	is_int(f.windows, 3, "burst skipped: windows tick");
	ok(f.notices >= 1, "burst skipped: with a notice (%d)", f.notices);
	methods_since(&f, from, methods, sizeof methods);
	ok(strstr(methods, "Profiler.") == NULL, "burst skipped: the Profiler domain was never "
		"touched (%s)", methods);
	ok(!engine_cpu_on(f.e) && !engine_cpu_starting(f.e), "burst skipped: the CPU stays off");
	ok(strstr(methods, "NodeRuntime.notifyWhenWaitingForDisconnect") != NULL,
		"held back: the target may still exit while watched");
	free_fake(&f);
}

/* Event-loop readings (cfg.evloop): an evaluation (ntopJsLoop) at each window tick, before the
 * rotation, so that the window is handed over with the latest reading (the target takes it at
 * a turn of its loop, and returns it with the next request). A reply that is not a reading keeps the last
 * one and costs nothing else; at detach the histogram is removed from the target. */
static void test_evloop(void)
{
	struct engine_config cfg;
	struct fake f;
	const struct evloop_reading *r;
	long long loop_id, rot_id;
	int i, from;
	bool removed = false;

	base_config(&cfg);
	cfg.evloop = true;
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	from = f.n_sent;
	advance(&f, DELAY_S);
	ok(f.n_sent == from + 2 && f.sent[from].expression &&
		strstr(f.sent[from].expression, "ntopJsLoop") && strstr(f.sent[from].expression, f.prefix) &&
		f.sent[from + 1].expression && strstr(f.sent[from + 1].expression, "c.profileEnd("),
		"loop: the reading goes before the rotation, under this session's nonce");
	loop_id = take(&f, "Runtime.evaluate");
	rot_id = take(&f, "Runtime.evaluate");
	reply(&f, loop_id, "{\"result\":{\"type\":\"string\",\"value\":\"{\\\"r\\\":{\\\"u\\\":0.25,"
		"\\\"s\\\":1000,\\\"n\\\":99,\\\"p50\\\":10000000,\\\"p99\\\":15000000,\\\"max\\\":"
		"310000000},\\\"k\\\":{\\\"Timeout\\\":4}}\"}}");
	profile_finished(&f, 0, fib_profile);
	reply(&f, rot_id, "{\"result\":{\"type\":\"undefined\"}}");
	is_int(f.windows, 1, "loop: the window is handed over");
	r = engine_evloop_last(f.e);
	ok(r && r->have_evloop && r->utilization == 0.25 && fabs(r->lag_max_ms - 310) < 1e-9 &&
		evloop_kind_count(r, "Timeout") == 4, "loop: with the latest reading");
	/* A reading the target botches: the last one stays, nothing ends. */
	advance(&f, DELAY_S);
	loop_id = take(&f, "Runtime.evaluate");
	rot_id = take(&f, "Runtime.evaluate");
	reply(&f, loop_id, "{\"result\":{\"type\":\"string\",\"value\":\"not json\"}}");
	profile_finished(&f, 1, fib_profile);
	reply(&f, rot_id, "{\"result\":{\"type\":\"undefined\"}}");
	r = engine_evloop_last(f.e);
	ok(f.windows == 2 && f.finished == 0 && r && r->utilization == 0.25,
		"loop: a botched reading keeps the last and ends nothing");
	/* A reading that never comes: no second one is sent meanwhile, windows go on. */
	from = f.n_sent;
	advance(&f, DELAY_S);
	take(&f, "Runtime.evaluate"); /* the reading, never answered */
	rot_id = take(&f, "Runtime.evaluate");
	profile_finished(&f, 2, fib_profile);
	reply(&f, rot_id, "{\"result\":{\"type\":\"undefined\"}}");
	from = f.n_sent;
	advance(&f, DELAY_S / 2);
	advance(&f, DELAY_S / 2);
	for (i = from; i < f.n_sent; i++)
		ok(!f.sent[i].expression || !strstr(f.sent[i].expression, "ntopJsLoop"),
			"loop: no second reading while one is on its way");
	is_int(f.windows, 3, "loop: the windows go on");
	engine_stop(f.e);
	for (i = 0; i < f.n_sent; i++)
		removed |= f.sent[i].expression && strstr(f.sent[i].expression, "Symbol.for('ntop-js.loop')") &&
			strstr(f.sent[i].expression, "o.h.disable()") && !strstr(f.sent[i].expression, "ntopJsLoop");
	ok(removed, "loop: leaving removes the histogram from the target");
	free_fake(&f);
}

/* With the CPU off (--no-cpu), the windows keep their cadence and carry the latest reading. */
static void test_evloop_no_cpu(void)
{
	struct engine_config cfg;
	struct fake f;
	long long id;

	base_config(&cfg);
	cfg.evloop = true;
	cfg.no_cpu = true;
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	answer(&f, "NodeRuntime.notifyWhenWaitingForDisconnect", "{}");
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216,"
		"\"b\":1048576,\"k\":2097152,\"v\":\"11.3.244.8-node.19\"}}}");
	advance(&f, DELAY_S);
	is_int(f.windows, 1, "loop, no CPU: the window keeps its cadence");
	id = take(&f, "Runtime.evaluate");
	ok(id >= 0 && strstr(f.sent[f.n_sent - 1].expression, "ntopJsLoop") != NULL,
		"loop, no CPU: a reading was asked for");
	reply(&f, id, "{\"result\":{\"type\":\"string\",\"value\":\"{\\\"r\\\":null,"
		"\\\"k\\\":{}}\"}}");
	ok(engine_evloop_last(f.e) && !engine_evloop_last(f.e)->have_evloop,
		"loop, no CPU: the first reading only starts the measurement");
	free_fake(&f);
}

/* A target collecting precise coverage (NODE_V8_COVERAGE): the Profiler domain is never
 * enabled (its disable would end the coverage), said once; the windows go on without profiles,
 * and starting the profiler later (c, a burst) is refused with the same sentence. */
static void test_coverage_target(void)
{
	struct engine_config cfg;
	struct fake f;
	char *cause = NULL;
	bool profiler = false;

	base_config(&cfg);
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	answer(&f, "Runtime.evaluate", COVERAGE_READING);
	is_int(f.notices, 1, "coverage: said once");
	advance(&f, DELAY_S);
	is_int(f.windows, 1, "coverage: the windows keep their cadence");
	ok(engine_start_cpu(f.e, &cause) == -1 && cause && strstr(cause, "NODE_V8_COVERAGE"),
		"coverage: starting the CPU profiler later is refused: %s", cause ? cause : "(none)");
	free(cause);
	advance(&f, DELAY_S);
	for (int i = 0; i < f.n_sent; i++)
		profiler |= !strncmp(f.sent[i].method, "Profiler.", 9) ||
			(f.sent[i].expression && strstr(f.sent[i].expression, "profile("));
	ok(!profiler, "coverage: nothing of the Profiler domain was sent, nor console.profile");
	ok(was_sent(&f, "NodeRuntime.notifyWhenWaitingForDisconnect"),
		"coverage: the target may still exit while watched (notifyWhenWaitingForDisconnect)");
	free_fake(&f);
}

/* --follow from a target that collects coverage to one that does not: the profiler the user
 * asked for runs again. */
static void test_coverage_follow(void)
{
	struct engine_config cfg;
	struct attach_result again;
	struct fake f;
	char *cause = NULL;

	base_config(&cfg);
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	answer(&f, "Runtime.evaluate", COVERAGE_READING);
	ok(!engine_cpu_on(f.e), "coverage, then follow: no profiler for the first target");
	deliver(&f, "{\"method\":\"NodeRuntime.waitingForDisconnect\",\"params\":{}}");
	advance(&f, 0);
	is_int(f.finished, 1, "coverage, then follow: the first target exits");
	next_target(&again);
	ok(engine_restart(f.e, &again, &cause) == 0, "coverage, then follow: engine_restart");
	free(cause);
	run_setup(&f, true);
	one_window(&f, 0);
	ok(engine_cpu_on(f.e) && !engine_cpu_refused(f.e, NULL),
		"coverage, then follow: the next target, without coverage, is profiled");
	is_int(engine_windows_done(f.e), 1, "coverage, then follow: its window has a profile");
	free_fake(&f);
}

/* Worker threads (engine_workers.c): NodeWorker.enable once the session runs; each worker
 * offered as a transport over the main session, its messages wrapped and unwrapped; what the
 * target sends that is not a worker, or not well formed, ignored; its exit and ntop-js's own
 * close both end its channel once. */
static struct {
	int opened, closed, messages;
	char last[256], why[128];
} wk;

static void wk_open(void *ud)
{
	wk.opened++;
}

static void wk_message(void *ud, const char *data, size_t len)
{
	wk.messages++;
	snprintf(wk.last, sizeof wk.last, "%.*s", (int)len, data);
}

static void wk_closed(void *ud, const char *why)
{
	wk.closed++;
	snprintf(wk.why, sizeof wk.why, "%s", why);
}

static const struct transport_handlers wk_handlers = {
	.on_open = wk_open, .on_message = wk_message, .on_closed = wk_closed,
};

static void test_workers(void)
{
	static const char msg[] = "{\"id\":1,\"method\":\"Profiler.enable\"}";
	struct fake f;
	struct engine_config cfg;
	struct engine_transport tp;
	void *conn, *conn2;
	char *cause = NULL;
	long long id;

	base_config(&cfg);
	cfg.no_cpu = true;
	cfg.workers = true;
	make_engine(&f, &cfg);
	if (!start_and_open(&f)) {
		free_fake(&f);
		return;
	}
	answer(&f, "NodeRuntime.notifyWhenWaitingForDisconnect", "{}");
	answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{\"u\":3672216,"
		"\"b\":1048576,\"k\":2097152,\"v\":\"11.3.244.8-node.19\"}}}");
	id = take(&f, "NodeWorker.enable");
	ok(id >= 0, "workers: NodeWorker.enable once the session runs");
	reply(&f, id, "{}");

	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":5,"
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"[worker 1] a\"}}}");
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\""
		"0123456789012345678901234567890123456789012345678901234567890123456789\","
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"[worker 1] a\"}}}");
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"2\","
		"\"workerInfo\":{\"type\":\"service_worker\",\"title\":\"[worker 1] a\"}}}");
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"3\","
		"\"workerInfo\":[]}}");
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"\","
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"[worker 1] a\"}}}");
	is_int(f.workers_seen, 0, "workers: a number, an overlong or empty session id, another type, "
		"a workerInfo that is not an object: none is a worker");

	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"7\","
		"\"workerInfo\":{\"workerId\":\"1\",\"type\":\"worker\",\"title\":"
		"\"[worker 3] pool\\u001b[31m\",\"url\":\"file:///app/w.js\"},"
		"\"waitingForDebugger\":false}}");
	is_int(f.workers_seen, 1, "workers: a worker is offered");
	ok(f.worker.thread_id == 3 && strncmp(f.worker.name, "pool", 4) == 0 &&
		!strchr(f.worker.name, 0x1b) && strcmp(f.worker.url, "file:///app/w.js") == 0,
		"workers: its thread id and name from Node's title, made safe (%ld \"%s\")",
		f.worker.thread_id, f.worker.name);
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"7\","
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"[worker 3] pool\"}}}");
	is_int(f.workers_seen, 1, "workers: the same session reported twice is one worker");
	tp = f.worker_tp;
	conn = tp.connect(tp.ctx, NULL, 0, &wk_handlers, NULL, &cause);
	ok(conn != NULL, "workers: its transport connects");
	is_int(wk.opened, 0, "workers: and opens from the loop, not inside connect");
	advance(&f, 0);
	is_int(wk.opened, 1, "workers: ...once");
	ok(tp.send(conn, msg, strlen(msg)) == 0 && f.n_sent > 0 &&
		strcmp(f.sent[f.n_sent - 1].method, "NodeWorker.sendMessageToWorker") == 0 &&
		strcmp(f.sent[f.n_sent - 1].session, "7") == 0 &&
		f.sent[f.n_sent - 1].expression && strcmp(f.sent[f.n_sent - 1].expression, msg) == 0,
		"workers: a message for it goes whole in sendMessageToWorker, to its session");
	reply(&f, f.sent[f.n_sent - 1].id, "{}");
	f.sent[f.n_sent - 1].taken = true;
	deliver(&f, "{\"method\":\"NodeWorker.receivedMessageFromWorker\",\"params\":{\"sessionId\":"
		"\"7\",\"message\":\"{\\\"id\\\":1,\\\"result\\\":{}}\"}}");
	ok(wk.messages == 1 && strcmp(wk.last, "{\"id\":1,\"result\":{}}") == 0,
		"workers: its replies come unwrapped (%s)", wk.last);
	deliver(&f, "{\"method\":\"NodeWorker.receivedMessageFromWorker\",\"params\":{\"sessionId\":"
		"\"8\",\"message\":\"{}\"}}");
	deliver(&f, "{\"method\":\"NodeWorker.receivedMessageFromWorker\",\"params\":{\"sessionId\":"
		"\"7\",\"message\":{}}}");
	deliver(&f, "{\"method\":\"NodeWorker.detachedFromWorker\",\"params\":{\"sessionId\":\"9\"}}");
	advance(&f, 0);
	ok(wk.messages == 1 && wk.closed == 0 && f.finished == 0, "workers: a message for another "
		"session, one that is not a string, the exit of an unknown worker: nothing");
	deliver(&f, "{\"method\":\"NodeWorker.detachedFromWorker\",\"params\":{\"sessionId\":\"7\"}}");
	is_int(wk.closed, 0, "workers: its exit reaches its engine from the loop");
	advance(&f, 0);
	ok(wk.closed == 1 && strcmp(wk.why, "the worker thread exited") == 0,
		"workers: ...once, saying so (%s)", wk.why);
	ok(tp.send(conn, msg, strlen(msg)) < 0, "workers: nothing more goes to it");

	/* Node numbers a session's workers from 1: an id may come back for another worker */
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"7\","
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"[worker 4] next\"}}}");
	is_int(f.workers_seen, 2, "workers: a closed session's id, reported again, is a new worker");
	conn2 = f.worker_tp.connect(f.worker_tp.ctx, NULL, 0, &wk_handlers, NULL, &cause);
	advance(&f, 0);
	is_int(wk.opened, 2, "workers: which opens");
	f.worker_tp.close(conn2);
	ok(f.n_sent > 0 && strcmp(f.sent[f.n_sent - 1].method, "NodeWorker.detach") == 0 &&
		strcmp(f.sent[f.n_sent - 1].session, "7") == 0,
		"workers: closing one detaches its session");
	advance(&f, 0);
	ok(wk.closed == 2 && strcmp(wk.why, "closed by ntop-js") == 0, "workers: and ends it once");
	tp.free(conn);
	f.worker_tp.free(conn2);
	/* one never connected: freed with the session (ASan would see a leak) */
	deliver(&f, "{\"method\":\"NodeWorker.attachedToWorker\",\"params\":{\"sessionId\":\"11\","
		"\"workerInfo\":{\"type\":\"worker\",\"title\":\"no title\"}}}");
	ok(f.workers_seen == 3 && f.worker.thread_id == -1 && strcmp(f.worker.name, "no title") == 0,
		"workers: a title not Node's: no thread id, the title as its name");
	engine_stop(f.e);
	advance(&f, 30);
	is_int(f.finished, 1, "workers: the main session ends");
	free_fake(&f);
}

/* The request (from `from` on) whose expression holds text, or NULL. */
static const struct sent *sent_with(const struct fake *f, int from, const char *text)
{
	for (int i = from; i < f->n_sent; i++)
		if (f->sent[i].expression && strstr(f->sent[i].expression, text))
			return &f->sent[i];
	return NULL;
}

/* The door's evaluation at set-up, answered with value (1: the lease is this session's). */
static void answer_door(struct fake *f, int value)
{
	char result[80];

	snprintf(result, sizeof result, "{\"result\":{\"type\":\"number\",\"value\":%d}}", value);
	answer(f, "Runtime.evaluate", result);
}

/* The inspector ntop-js opened (engine_door.c): a lease installed at set-up and renewed every
 * quarter of its length; closed at the polite leave; closed before the connection drops when
 * --max-pause refuses, but not when the target is on its way out; one that was open before is
 * never closed, unless the lease of an ntop-js that died was found on it. */
static void test_door(void)
{
	struct engine_config cfg;
	struct fake f;
	const struct sent *s;
	int from;

	base_config(&cfg);
	next_opened_by_us = true;
	make_engine(&f, &cfg);
	f.answer_door = true;
	if (!start_and_open(&f)) {
		free_fake(&f);
		next_opened_by_us = false;
		return;
	}
	s = sent_with(&f, 0, DOOR_KEY);
	ok(s && strstr(s->expression, "i.close()") && strstr(s->expression, ",60000,true,"),
		"door: the set-up installs a lease of a minute that closes the inspector");
	answer_door(&f, 1);
	answer_setup(&f, true);
	from = f.n_sent;
	for (unsigned w = 0; w < 16; w++) {
		int before = f.n_sent;

		advance(&f, DELAY_S);
		for (int k = before; k < f.n_sent; k++) {
			if (f.sent[k].taken || strcmp(f.sent[k].method, "Runtime.evaluate") != 0)
				continue;
			f.sent[k].taken = true;
			if (strstr(f.sent[k].expression, "c.profileEnd("))
				profile_finished(&f, w, fib_profile);
			reply(&f, f.sent[k].id, "{\"result\":{\"type\":\"undefined\"}}");
		}
	}
	s = sent_with(&f, from, "s.until=s.w+60000");
	ok(s && strstr(s->expression, DOOR_KEY), "door: the windows renew the lease after 15 s");
	from = f.n_sent;
	engine_stop(f.e);
	advance(&f, 0);
	answer(&f, "Profiler.disable", "{}");
	s = sent_with(&f, from, "i.close()");
	ok(s && strstr(s->expression, "delete g[k]"), "door: the leave removes the lease and closes");
	/* the target closes the inspector, and with it the connection, before any reply */
	f.conn->closed = true;
	f.conn->h->on_closed(f.conn->ud, "the inspector closed the connection.");
	advance(&f, 0);
	is_int(f.finished, 1, "door: the session ends");
	ok(!engine_inspector_left_open(f.e), "door: and nothing is left open");
	free_fake(&f);

	/* --max-pause refuses: the close goes over the working connection, and the target ends
	 * the connection itself (a client's end that crosses Node's inspector.close() kills it);
	 * one that does not (stopped, blocked) has it dropped after 3 s. */
	for (int closes = 1; closes >= 0; closes--) {
		base_config(&cfg);
		cfg.max_pause_s = 0.2;
		make_engine(&f, &cfg);
		start_and_open(&f);
		from = f.n_sent;
		answer(&f, "Runtime.evaluate", "{\"result\":{\"type\":\"object\",\"value\":{"
			"\"u\":2147483648,\"b\":null,\"k\":null,\"v\":\"11.3.244.8-node.19\"}}}");
		s = sent_with(&f, from, "i.close()");
		ok(s != NULL && f.conn && !f.conn->close_asked,
			"door %d: a refusal sends the close and leaves the connection to the target",
			closes);
		advance(&f, 2.9);
		ok(f.conn && !f.conn->close_asked && f.finished == 0,
			"door %d: still not ended by ntop-js 2.9 s later", closes);
		if (closes) {
			f.conn->closed = true;
			f.conn->h->on_closed(f.conn->ud, "the inspector closed the connection.");
			advance(&f, 0);
		} else {
			advance(&f, 0.2);
		}
		is_int(f.finished, 1, "door %d: the session ends", closes);
		is_int(f.status, EXIT_PAUSE, "door %d: with EXIT_PAUSE", closes);
		/* a target that did not end it may not have run the close: the application tries
		 * again over a connection of its own (app_close_left_open) */
		ok(engine_inspector_left_open(f.e) == !closes,
			closes ? "door 1: the target's end of the connection shows its inspector closed" :
			"door 0: a dropped connection leaves the close to the application's own try");
		free_fake(&f);
	}

	/* The target wants to exit: nothing is sent to hold it. */
	make_engine(&f, &cfg);
	start_and_setup(&f, true);
	from = f.n_sent;
	deliver(&f, "{\"method\":\"NodeRuntime.waitingForDisconnect\",\"params\":{}}");
	ok(sent_with(&f, from, "i.close()") == NULL, "door: a target on its way out is let go");
	advance(&f, 0);
	ok(engine_inspector_left_open(f.e), "door: which the application is told may be open");
	free_fake(&f);
	next_opened_by_us = false;

	/* Open before: never closed, unless an earlier ntop-js's lease was taken over. */
	for (int adopted = 0; adopted <= 1; adopted++) {
		base_config(&cfg);
		cfg.iterations = 1;
		make_engine(&f, &cfg);
		f.answer_door = true;
		start_and_open(&f);
		s = sent_with(&f, 0, DOOR_KEY);
		ok(s && strstr(s->expression, ",60000,false,"),
			"door %d: a target opened before is only asked for an earlier lease", adopted);
		answer_door(&f, adopted);
		answer_setup(&f, true);
		from = f.n_sent;
		one_window(&f, 0);
		answer(&f, "Profiler.disable", "{}");
		advance(&f, 0);
		if (adopted)
			ok(sent_with(&f, from, "i.close()") != NULL,
				"door: a lease of an ntop-js that died is taken over: its inspector closed");
		else
			ok(sent_with(&f, from, "i.close()") == NULL,
				"door: an inspector open before ntop-js came stays open");
		free_fake(&f);
	}
}

int main(void)
{
	size_t len;

	fib_profile = fixture_read_text("profile-fib.json", &len);
	ok(fib_profile != NULL, "the fixture");
	if (!fib_profile)
		return done_testing();
	fib_expected_samples = count_fib_samples();
	ok(fib_expected_samples > 100, "the fixture has samples (%zu)", fib_expected_samples);
	test_rotation();
	test_second();
	test_trim();
	test_large();
	test_no_eval();
	test_timeout();
	test_pause_refused();
	test_memory();
	test_exception();
	test_leave_and_follow();
	test_stop();
	test_bursts();
	test_bursts_no_eval();
	test_burst_skipped();
	test_burst_invalid();
	test_evloop();
	test_evloop_no_cpu();
	test_coverage_target();
	test_coverage_follow();
	test_workers();
	test_door();
	free(fib_profile);
	return done_testing();
}
