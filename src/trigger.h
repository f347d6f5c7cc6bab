/* trigger.h: --trigger EXPR, a condition on what a window measured that fires an incident.
 *
 * Grammar (one condition per --trigger; the man page has it whole):
 *   EXPR     := METRIC OP VALUE [":" DURATION]
 *   METRIC   := cpu | block | lag | p99 | rss | heap
 *   OP       := ">" | ">=" | "="   ("=" only for heap=growing)
 *   cpu      a percentage of the main thread's window that was not idle:  cpu>80%
 *   block    a blocked loop confirmed in the window, its length:           block>300ms
 *   lag      the event loop's delay, the window's 99th percentile:        lag>100ms
 *   p99      the slowest route's 99th percentile of the window:            p99>2s
 *            or one route's, named as the requests screen names it:        p99[GET /api/:id]>500ms
 *   rss      the process's resident memory:                                rss>2G
 *   heap     V8's heap used, or the growth verdict:                        heap>1.5G, heap=growing
 *   DURATION how long it must hold (every window over that time):          cpu>80%:10s
 * Times take ms, s or m (a bare number is ms for block, lag and p99); sizes take K, M, G or T
 * (powers of 1024; B or iB after them is allowed; a bare number is bytes).
 * Pure: no I/O, unit-tested (tests/unit/test_trigger.c). */
#ifndef NTOP_TRIGGER_H
#define NTOP_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>

enum trigger_metric {
	TRIG_CPU,      /* percent */
	TRIG_BLOCK,    /* ms */
	TRIG_LAG,      /* ms */
	TRIG_P99,      /* ms */
	TRIG_RSS,      /* bytes */
	TRIG_HEAP,     /* bytes */
	TRIG_GROWING,  /* heap=growing */
	TRIG_METRIC_COUNT
};

/* A route as the requests screen keys it (requests.h's REQ_KEY_LEN, checked in app_incident.c),
 * and an expression that holds one with its measure, value and hold. */
#define TRIGGER_ROUTE_MAX 160
#define TRIGGER_TEXT_MAX 256

struct trigger {
	char text[TRIGGER_TEXT_MAX]; /* as given, for the incident and the log */
	enum trigger_metric metric;
	char route[TRIGGER_ROUTE_MAX]; /* p99[ROUTE]: that route's; "": the slowest route's */
	bool or_equal;         /* ">=" */
	double threshold;      /* in the metric's unit above */
	double hold_s;         /* 0: the first window that meets it fires */
	/* state */
	double since_s;        /* when it began to hold without a break; NAN: it does not */
};

/* What one window measured, as the triggers read it; NAN (or -1 for growing) where it was not
 * measured, which never meets a condition and breaks a hold. */
struct trigger_input {
	double time_s;         /* the window's end, unix seconds */
	double busy_pct;       /* the main thread's non-idle share of the window's samples */
	double block_ms;       /* the longest blocked loop confirmed in it; 0: none (NAN: not looked for) */
	double lag_p99_ms;
	double p99_ms;         /* the slowest route's (NAN without requests) */
	/* one route's p99 in the window (NAN: no request of it finished); NULL: none known */
	double (*route_p99_ms)(const void *ctx, const char *route);
	const void *route_ctx;
	double rss_bytes;
	double heap_used_bytes;
	int growing;           /* 1 growing, 0 not (stable, shrinking), -1 not known yet */
};

/* Parses one expression into t (state cleared). Returns 0, or -1 with *msg set to one
 * sentence naming the fault (the caller frees it). */
int trigger_parse(const char *expr, struct trigger *t, char **msg);
/* A size with an optional K/M/G/T suffix (powers of 1024), into bytes. Returns 0 or -1. */
int trigger_parse_size(const char *s, double *bytes);
/* A duration with an optional ms/s/m/h suffix (bare: bare_unit_s seconds each). Returns 0 or -1. */
int trigger_parse_duration(const char *s, double bare_unit_s, double *seconds);

/* Whether in meets t's condition (ignoring the hold). */
bool trigger_met(const struct trigger *t, const struct trigger_input *in);
/* Feeds one window: true when t fires, that is, the condition has now held for hold_s (from
 * the end of the first window that met it, less that window's own span, span_s). A trigger
 * that fired starts its hold again. */
bool trigger_feed(struct trigger *t, const struct trigger_input *in, double span_s);
/* The measured value t compares, from in, in t's unit (NAN if not measured); for heap=growing
 * 1 or 0. */
double trigger_value(const struct trigger *t, const struct trigger_input *in);
/* "cpu", "block", ...: the metric's name as the grammar spells it. */
const char *trigger_metric_name(enum trigger_metric m);
/* "%", "ms", "bytes" or "" (growing). */
const char *trigger_metric_unit(enum trigger_metric m);

#endif
