/* trigger.c: see trigger.h. */
#include "config.h"

#include "trigger.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static const struct {
	const char *name;
	enum trigger_metric metric;
} metrics[] = {
	{ "cpu", TRIG_CPU }, { "block", TRIG_BLOCK }, { "lag", TRIG_LAG }, { "p99", TRIG_P99 },
	{ "rss", TRIG_RSS }, { "heap", TRIG_HEAP },
};

const char *trigger_metric_name(enum trigger_metric m)
{
	switch (m) {
	case TRIG_CPU: return "cpu";
	case TRIG_BLOCK: return "block";
	case TRIG_LAG: return "lag";
	case TRIG_P99: return "p99";
	case TRIG_RSS: return "rss";
	case TRIG_HEAP: return "heap";
	case TRIG_GROWING: return "heap";
	case TRIG_METRIC_COUNT: break;
	}
	return "?";
}

const char *trigger_metric_unit(enum trigger_metric m)
{
	switch (m) {
	case TRIG_CPU: return "%";
	case TRIG_BLOCK: case TRIG_LAG: case TRIG_P99: return "ms";
	case TRIG_RSS: case TRIG_HEAP: return "bytes";
	default: return "";
	}
}

/* A finite, non-negative number at the start of s; *end after it. */
static int leading_number(const char *s, double *v, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	*v = strtod(s, &e);
	if (errno || e == s || !isfinite(*v) || *v < 0)
		return -1;
	/* decimal only: strtod also reads 0x50 and 0x1p4 */
	for (const char *c = s; c < e; c++)
		if (*c == 'x' || *c == 'X')
			return -1;
	*end = e;
	return 0;
}

int trigger_parse_size(const char *s, double *bytes)
{
	const char *u;
	double v, m = 1;

	if (leading_number(s, &v, &u) < 0)
		return -1;
	switch (toupper((unsigned char)*u)) {
	case 'K': m = 1024.0; u++; break;
	case 'M': m = 1024.0 * 1024; u++; break;
	case 'G': m = 1024.0 * 1024 * 1024; u++; break;
	case 'T': m = 1024.0 * 1024 * 1024 * 1024; u++; break;
	default: break;
	}
	if (m > 1 && (*u == 'i' || *u == 'I'))
		u++;
	if (*u == 'B' || *u == 'b')
		u++;
	if (*u || !isfinite(v * m))
		return -1;
	*bytes = v * m;
	return 0;
}

int trigger_parse_duration(const char *s, double bare_unit_s, double *seconds)
{
	const char *u;
	double v;

	if (leading_number(s, &v, &u) < 0)
		return -1;
	if (!*u)
		v *= bare_unit_s;
	else if (!strcmp(u, "ms"))
		v /= 1000.0;
	else if (!strcmp(u, "s"))
		;
	else if (!strcmp(u, "m") || !strcmp(u, "min"))
		v *= 60;
	else if (!strcmp(u, "h"))
		v *= 3600;
	else
		return -1;
	if (!isfinite(v))
		return -1;
	*seconds = v;
	return 0;
}

static int fail(char **msg, const char *expr, const char *why)
{
	*msg = xasprintf("--trigger %s: %s", expr, why);
	return -1;
}

int trigger_parse(const char *expr, struct trigger *t, char **msg)
{
	char buf[TRIGGER_TEXT_MAX], *colon, *value;
	const char *p = expr;
	size_t n = 0, i;
	bool found = false;

	memset(t, 0, sizeof *t);
	t->since_s = NAN;
	if (strlen(expr) >= sizeof buf)
		return fail(msg, "(too long)", "an expression is at most 255 characters long.");
	/* the metric's name */
	while (isalpha((unsigned char)p[n]) || isdigit((unsigned char)p[n]))
		n++;
	for (i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
		if (strlen(metrics[i].name) == n && !strncasecmp(p, metrics[i].name, n)) {
			t->metric = metrics[i].metric;
			found = true;
		}
	}
	if (!found)
		return fail(msg, expr, n ? "unknown measure: it is one of cpu, block, lag, p99, rss "
			"and heap (e.g. cpu>80%)." : "it starts with a measure: cpu, block, lag, p99, rss "
			"or heap (e.g. cpu>80%).");
	p += n;
	/* p99[ROUTE]: one route's */
	if (t->metric == TRIG_P99 && *p == '[') {
		const char *end = strchr(p + 1, ']');

		if (!end)
			return fail(msg, expr, "the route after p99[ ends with ] (e.g. "
				"p99[GET /api/items/:id]>500ms).");
		if (end == p + 1 || (size_t)(end - p - 1) >= sizeof t->route)
			return fail(msg, expr, "the route in p99[...] is 1 to 159 characters, as the "
				"requests screen names it (e.g. p99[GET /api/items/:id]>500ms).");
		memcpy(t->route, p + 1, (size_t)(end - p - 1));
		t->route[end - p - 1] = '\0';
		for (const char *c = t->route; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return fail(msg, expr, "the route in p99[...] has a control character.");
		p = end + 1;
	}
	/* the comparison */
	if (p[0] == '>' && p[1] == '=') {
		t->or_equal = true;
		p += 2;
	} else if (p[0] == '>') {
		p++;
	} else if (p[0] == '=' && t->metric == TRIG_HEAP) {
		p++;
		t->metric = TRIG_GROWING;
	} else {
		return fail(msg, expr, t->metric == TRIG_HEAP ? "heap is followed by > or >= and a "
			"size, or by =growing." : "the measure is followed by > or >= and a value.");
	}
	snprintf(buf, sizeof buf, "%s", p);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (trigger_parse_duration(colon + 1, 1, &t->hold_s) < 0 || t->hold_s > 7 * 86400)
			return fail(msg, expr, "the time after ':' is not a duration of up to a week "
				"(e.g. :10s, :2m).");
	}
	value = buf;
	switch (t->metric) {
	case TRIG_GROWING:
		if (strcasecmp(value, "growing"))
			return fail(msg, expr, "heap= is only followed by growing (heap=growing).");
		t->threshold = 1;
		break;
	case TRIG_CPU: {
		const char *u;
		if (leading_number(value, &t->threshold, &u) < 0 || (*u && strcmp(u, "%")) ||
		    t->threshold > 100)
			return fail(msg, expr, "cpu is compared with a percentage from 0 to 100 "
				"(e.g. cpu>80%).");
		break;
	}
	case TRIG_BLOCK: case TRIG_LAG: case TRIG_P99: {
		double s;
		if (trigger_parse_duration(value, 0.001, &s) < 0 || s > 86400)
			return fail(msg, expr, "the value is not a time of up to a day (e.g. 300ms, 2s).");
		t->threshold = s * 1000.0;
		break;
	}
	case TRIG_RSS: case TRIG_HEAP:
		if (trigger_parse_size(value, &t->threshold) < 0)
			return fail(msg, expr, "the value is not a size (e.g. 512M, 2G).");
		break;
	default:
		break;
	}
	snprintf(t->text, sizeof t->text, "%s", expr);
	return 0;
}

double trigger_value(const struct trigger *t, const struct trigger_input *in)
{
	switch (t->metric) {
	case TRIG_CPU: return in->busy_pct;
	case TRIG_BLOCK: return in->block_ms;
	case TRIG_LAG: return in->lag_p99_ms;
	case TRIG_P99:
		if (!t->route[0])
			return in->p99_ms;
		return in->route_p99_ms ? in->route_p99_ms(in->route_ctx, t->route) : NAN;
	case TRIG_RSS: return in->rss_bytes;
	case TRIG_HEAP: return in->heap_used_bytes;
	case TRIG_GROWING: return in->growing < 0 ? NAN : in->growing;
	default: return NAN;
	}
}

bool trigger_met(const struct trigger *t, const struct trigger_input *in)
{
	double v = trigger_value(t, in);

	if (isnan(v))
		return false;
	if (t->metric == TRIG_GROWING)
		return v == 1;
	return t->or_equal ? v >= t->threshold : v > t->threshold;
}

bool trigger_feed(struct trigger *t, const struct trigger_input *in, double span_s)
{
	if (!trigger_met(t, in)) {
		t->since_s = NAN;
		return false;
	}
	if (isnan(t->since_s))
		t->since_s = in->time_s - (isfinite(span_s) && span_s > 0 ? span_s : 0);
	/* a hundredth of a second of slack: windows are timed, not exact */
	if (in->time_s - t->since_s + 0.01 < t->hold_s)
		return false;
	t->since_s = NAN;
	return true;
}
