/* promtext.c: see promtext.h. */
#include "config.h"

#include "promtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

#define PROM_MAX_LABELS 16

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && c >= '0' && c <= '9';
}

bool prom_metric_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p, p == name, true))
			return false;
	return true;
}

bool prom_label_name_ok(const char *name)
{
	if (!name || !*name || strncmp(name, "__", 2) == 0)
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p, p == name, false))
			return false;
	return true;
}

/* Go's FormatFloat(v, 'g', -1, 64): the shortest digits that read back as v, in %e form when
 * the exponent is below -4 or at least 6 (Go's rule for the shortest precision). */
static void go_float(struct strbuf *out, double v)
{
	char buf[40], digits[20];
	int nd = 0, exp, p;
	const char *s;

	for (p = 1; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	s = buf;
	if (*s == '-') {
		strbuf_putc(out, '-');
		s++;
	}
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9' && nd < (int)sizeof(digits))
			digits[nd++] = *s;
	exp = *s == 'e' ? atoi(s + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (exp < -4 || exp >= 6) {
		strbuf_putc(out, digits[0]);
		if (nd > 1) {
			strbuf_putc(out, '.');
			strbuf_append(out, digits + 1, (size_t)nd - 1);
		}
		strbuf_printf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
		return;
	}
	/* the decimal point after digit exp (dp = exp + 1 digits before it) */
	if (exp < 0) {
		strbuf_puts(out, "0.");
		for (int i = -1; i > exp; i--)
			strbuf_putc(out, '0');
		strbuf_append(out, digits, (size_t)nd);
		return;
	}
	for (int i = 0; i <= exp; i++)
		strbuf_putc(out, i < nd ? digits[i] : '0');
	if (nd > exp + 1) {
		strbuf_putc(out, '.');
		strbuf_append(out, digits + exp + 1, (size_t)(nd - exp - 1));
	}
}

void prom_value(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_puts(out, "NaN");
	else if (isinf(v))
		strbuf_puts(out, v > 0 ? "+Inf" : "-Inf");
	else if (v == 0)
		strbuf_putc(out, '0'); /* -0 too, as Prometheus' Go client writes it */
	else
		go_float(out, v);
}

/* Text from the target as valid UTF-8 (a bad byte becomes U+FFFD), escaped for a label value
 * (quote too) or a HELP line. */
static void escaped(struct strbuf *out, const char *s, bool quote)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		size_t k = util_utf8_seq(s + i, n - i);
		if (k == 0) {
			strbuf_puts(out, "\xef\xbf\xbd");
			i++;
			continue;
		}
		if (s[i] == '\\')
			strbuf_puts(out, "\\\\");
		else if (s[i] == '\n')
			strbuf_puts(out, "\\n");
		else if (quote && s[i] == '"')
			strbuf_puts(out, "\\\"");
		else
			strbuf_append(out, s + i, k);
		i += k;
	}
}

int prom_family(struct strbuf *out, const char *name, enum prom_type type, const char *help)
{
	size_t n = name ? strlen(name) : 0;

	if (!prom_metric_name_ok(name))
		return -1;
	if (type == PROM_COUNTER && (n < 6 || strcmp(name + n - 6, "_total") != 0))
		return -1;
	strbuf_printf(out, "# HELP %s ", name);
	escaped(out, help, false);
	strbuf_printf(out, "\n# TYPE %s %s\n", name, type == PROM_COUNTER ? "counter" :
		type == PROM_HISTOGRAM ? "histogram" : "gauge");
	return 0;
}

int prom_sample(struct strbuf *out, const char *name, const struct prom_label *labels,
	size_t n_labels, double value)
{
	if (!prom_metric_name_ok(name) || n_labels > PROM_MAX_LABELS)
		return -1;
	for (size_t i = 0; i < n_labels; i++) {
		if (!prom_label_name_ok(labels[i].name))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(labels[i].name, labels[j].name) == 0)
				return -1;
	}
	strbuf_puts(out, name);
	for (size_t i = 0; i < n_labels; i++) {
		strbuf_printf(out, "%c%s=\"", i ? ',' : '{', labels[i].name);
		escaped(out, labels[i].value, true);
		strbuf_putc(out, '"');
	}
	if (n_labels)
		strbuf_putc(out, '}');
	strbuf_putc(out, ' ');
	prom_value(out, value);
	strbuf_putc(out, '\n');
	return 0;
}

/* ---- ntop-js's metrics ---- */

/* A target's labels, then up to three of the series' own. */
struct series {
	struct prom_label l[PROM_MAX_LABELS];
	size_t n;
	char pid[16];
};

static void series_of(struct series *s, const struct prom_target *t)
{
	s->n = 0;
	if (t->pid > 0) {
		snprintf(s->pid, sizeof s->pid, "%d", t->pid);
		s->l[s->n++] = (struct prom_label){ "pid", s->pid };
	}
	if (t->title)
		s->l[s->n++] = (struct prom_label){ "title", t->title };
	if (t->thread)
		s->l[s->n++] = (struct prom_label){ "thread", t->thread };
}

/* A sample with the target's labels and the extra ones; NAN values are left out (unknown,
 * not a measured NaN). */
static void put(struct strbuf *b, const char *name, const struct prom_target *t,
	const struct prom_label *extra, size_t n_extra, double v)
{
	struct series s;

	if (isnan(v))
		return;
	series_of(&s, t);
	for (size_t i = 0; i < n_extra && s.n < PROM_MAX_LABELS; i++)
		s.l[s.n++] = extra[i];
	(void)prom_sample(b, name, s.l, s.n, v);
}

/* The families of one plain value per target. */
static const struct {
	const char *name, *help;
	enum prom_type type;
} plain[] = {
	{ "process_resident_memory_bytes", "Resident memory size in bytes.", PROM_GAUGE },
	{ "nodejs_heap_size_used_bytes", "Process heap size used from Node.js in bytes.",
		PROM_GAUGE },
	{ "nodejs_heap_size_total_bytes", "Process heap size from Node.js in bytes.", PROM_GAUGE },
	{ "nodejs_external_memory_bytes", "Node.js external memory size in bytes.", PROM_GAUGE },
	{ "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
		PROM_COUNTER },
	{ "nodejs_eventloop_lag_seconds", "Lag of event loop in seconds (the latest reading's "
		"median).", PROM_GAUGE },
	{ "nodejs_eventloop_lag_p50_seconds", "The 50th percentile of the recorded event loop "
		"delays.", PROM_GAUGE },
	{ "nodejs_eventloop_lag_p99_seconds", "The 99th percentile of the recorded event loop "
		"delays.", PROM_GAUGE },
	{ "nodejs_eventloop_lag_max_seconds", "The maximum recorded event loop delay.",
		PROM_GAUGE },
	{ "nodejs_eventloop_utilization", "The share of time the event loop was busy, 0 to 1.",
		PROM_GAUGE },
	{ "ntopjs_cpu_runqueue_wait_seconds_total", "Time the main thread was ready to run but "
		"waited for a CPU, since it started (schedstat).", PROM_COUNTER },
	{ "ntopjs_cpu_throttled_seconds_total", "Time the process's cgroup was throttled by its CPU "
		"quota, since the cgroup was made.", PROM_COUNTER },
	{ "ntopjs_cpu_quota_cores", "The process's cgroup's CPU quota in cores (absent: none).",
		PROM_GAUGE },
	{ "ntopjs_cpu_cfs_periods_total", "The CPU quota's enforcement periods the process's "
		"cgroup has run in.", PROM_COUNTER },
	{ "ntopjs_cpu_cfs_throttled_periods_total", "The periods in which the cgroup used up its "
		"CPU quota and was throttled.", PROM_COUNTER },
};

/* plain[f]'s value for t. */
static double value_of(const struct prom_target *t, size_t f)
{
	const double v[] = { t->rss_bytes, t->heap_used_bytes, t->heap_total_bytes,
		t->external_bytes, t->process_cpu_s, t->lag_s, t->lag_p50_s, t->lag_p99_s,
		t->lag_max_s, t->evloop_utilization, t->runqueue_wait_s, t->throttled_s, t->quota_cores, t->periods,
		t->throttled_periods };

	return f < sizeof(v) / sizeof(v[0]) ? v[f] : NAN;
}

/* Writes the family's header and its samples from b, if it has any, and empties b. */
static void flush_family(struct strbuf *out, struct strbuf *b, const char *name,
	enum prom_type type, const char *help)
{
	if (b->len && prom_family(out, name, type, help) == 0)
		strbuf_append(out, b->data, b->len);
	strbuf_reset(b);
}

/* "v20.11.1" -> major, minor, patch as strings. */
static void version_parts(const char *v, char part[3][16])
{
	long x[3] = { 0, 0, 0 };

	if (v && (v[0] == 'v' || v[0] == 'V'))
		v++;
	if (v)
		(void)sscanf(v, "%ld.%ld.%ld", &x[0], &x[1], &x[2]);
	for (int i = 0; i < 3; i++)
		snprintf(part[i], 16, "%ld", x[i] >= 0 && x[i] < 1000000 ? x[i] : 0);
}

static const char *const verdicts[] = { "stable", "growing", "shrinking" };

/* The families with one value a target. */
static void prom_plain(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	for (size_t f = 0; f < sizeof(plain) / sizeof(plain[0]); f++) {
		for (size_t i = 0; i < n; i++)
			put(b, plain[f].name, &targets[i], NULL, 0, value_of(&targets[i], f));
		flush_family(out, b, plain[f].name, plain[f].type, plain[f].help);
	}
}

/* One heap-space family: each space's used bytes, or its size. */
static void prom_space_family(struct strbuf *out, struct strbuf *b,
	const struct prom_target *targets, size_t n, bool used, const char *name, const char *help)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < targets[i].n_spaces; k++) {
			struct prom_label l = { "space", targets[i].spaces[k].name };
			put(b, name, &targets[i], &l, 1, used ? targets[i].spaces[k].used_bytes :
				targets[i].spaces[k].size_bytes);
		}
	flush_family(out, b, name, PROM_GAUGE, help);
}

/* The heap spaces' used and total sizes. */
static void prom_spaces(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	prom_space_family(out, b, targets, n, true, "nodejs_heap_space_size_used_bytes",
		"Process heap space size used from Node.js in bytes.");
	prom_space_family(out, b, targets, n, false, "nodejs_heap_space_size_total_bytes",
		"Process heap space size from Node.js in bytes.");
}

/* The active resources by type. */
static void prom_resources(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < targets[i].n_resources; k++) {
			struct prom_label l = { "type", targets[i].resources[k].type };
			put(b, "nodejs_active_resources", &targets[i], &l, 1,
				(double)targets[i].resources[k].count);
		}
	flush_family(out, b, "nodejs_active_resources", PROM_GAUGE,
		"Number of active resources that are currently keeping the event loop alive, "
		"grouped by async resource type.");
}

/* Node's version, as a label set. */
static void prom_version(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char part[3][16];
		struct prom_label l[4];
		if (!targets[i].node_version)
			continue;
		version_parts(targets[i].node_version, part);
		l[0] = (struct prom_label){ "version", targets[i].node_version };
		l[1] = (struct prom_label){ "major", part[0] };
		l[2] = (struct prom_label){ "minor", part[1] };
		l[3] = (struct prom_label){ "patch", part[2] };
		put(b, "nodejs_version_info", &targets[i], l, 4, 1);
	}
	flush_family(out, b, "nodejs_version_info", PROM_GAUGE, "Node.js version info.");
}

/* Whether ntop-js is attached. */
static void prom_attached(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(b, "ntopjs_attached", &targets[i], NULL, 0, targets[i].attached ? 1 : 0);
	flush_family(out, b, "ntopjs_attached", PROM_GAUGE,
		"1 while ntop-js is attached to the target, 0 once it has left or lost it.");
}

/* The heap growth's rate and verdict. */
static void prom_growth(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	/* growth: only with a verdict, as the JSON's growth is null before one */
	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		bool known = t->growth_verdict && strcmp(t->growth_verdict, "unknown") != 0;
		if (known)
			put(b, "ntopjs_heap_growth_bytes_per_hour", t, NULL, 0,
				t->heap_growth_bytes_per_hour);
	}
	flush_family(out, b, "ntopjs_heap_growth_bytes_per_hour", PROM_GAUGE,
		"Growth of the heap's post-GC floor, in bytes per hour.");
	/* a state set: every verdict, 1 for the current one */
	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		if (!t->growth_verdict)
			continue;
		for (size_t k = 0; k < sizeof(verdicts) / sizeof(verdicts[0]); k++) {
			struct prom_label l = { "verdict", verdicts[k] };
			put(b, "ntopjs_heap_growth_verdict", t, &l, 1,
				strcmp(t->growth_verdict, verdicts[k]) == 0);
		}
	}
	flush_family(out, b, "ntopjs_heap_growth_verdict", PROM_GAUGE,
		"The heap growth verdict: 1 for the current one (all 0 while unknown).");
}

/* The sampled time by kind. */
static void prom_cpu(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		static const char *const kinds[] = { "js", "gc", "program", "idle" };
		double v[4] = { t->cpu_js_s, t->cpu_gc_s, t->cpu_program_s, t->cpu_idle_s };
		if (!t->cpu_known)
			continue;
		for (int k = 0; k < 4; k++) {
			struct prom_label l = { "kind", kinds[k] };
			put(b, "ntopjs_cpu_seconds_total", t, &l, 1, v[k]);
		}
	}
	flush_family(out, b, "ntopjs_cpu_seconds_total", PROM_COUNTER,
		"Sampled time since attach by kind: JavaScript, garbage collection, other VM and "
		"native work (program), the event loop waiting (idle).");
}

/* The hottest functions' self time. */
static void prom_top(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n, size_t top_n)
{
	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		for (size_t k = 0; k < t->n_top && k < top_n; k++) {
			char line[24];
			struct prom_label l[3];
			snprintf(line, sizeof line, "%ld", t->top[k].line > 0 ? t->top[k].line : 0);
			l[0] = (struct prom_label){ "function", t->top[k].function };
			l[1] = (struct prom_label){ "url", t->top[k].url };
			l[2] = (struct prom_label){ "line", line };
			put(b, "ntopjs_function_self_seconds_total", t, l, 3, t->top[k].self_s);
		}
	}
	flush_family(out, b, "ntopjs_function_self_seconds_total", PROM_COUNTER,
		"Self time since attach of the hottest functions (the top N only).");
}

const double prom_http_bounds_s[PROM_HTTP_BOUNDS] = { 0.0008, 0.0016, 0.0032, 0.0064, 0.0128,
	0.0256, 0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1.6384, 3.2768, 6.5536, 13.1072, 26.2144,
	52.4288 };

/* One value per row of one kind of requests: in flight (a gauge), or errors (a counter). */
static void prom_http_family(struct strbuf *out, struct strbuf *b,
	const struct prom_target *targets, size_t n, bool client, bool errors)
{
	const char *name = errors ? (client ? "ntopjs_http_client_request_errors_total" :
		"ntopjs_http_server_request_errors_total") : (client ? "http_client_active_requests" :
		"http_server_active_requests");

	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		const struct prom_http *h = client ? t->http_client : t->http_server;
		size_t nh = client ? t->n_http_client : t->n_http_server;

		for (size_t k = 0; k < nh; k++) {
			struct prom_label l[2] = {
				{ client ? "server_address" : "http_request_method", h[k].a },
				{ client ? "server_port" : "http_route", h[k].b },
			};
			put(b, name, t, l, 2, errors ? h[k].errors : h[k].in_flight);
		}
	}
	flush_family(out, b, name, errors ? PROM_COUNTER : PROM_GAUGE, errors ? (client ?
		"Outbound HTTP requests since attach that failed or were answered with a 5xx." :
		"HTTP server requests since attach answered with a 5xx or aborted.") : (client ?
		"Number of outbound HTTP requests in flight." : "Number of active HTTP server requests."));
}

/* The requests of one kind (server or client), under OpenTelemetry's names for HTTP metrics
 * (http.server.request.duration as http_server_request_duration_seconds, ...): a duration
 * histogram, the requests in flight, and ntop-js's own count of errors (5xx, aborted,
 * failed). */
static void prom_http(struct strbuf *out, struct strbuf *b, const struct prom_target *targets,
	size_t n, bool client)
{
	const char *an = client ? "server_address" : "http_request_method";
	const char *bn = client ? "server_port" : "http_route";
	const char *hist = client ? "http_client_request_duration_seconds" :
		"http_server_request_duration_seconds";
	char name[64], le[PROM_HTTP_BOUNDS + 1][32];

	/* the le labels, as Go writes the bounds */
	for (size_t j = 0; j <= PROM_HTTP_BOUNDS; j++) {
		struct strbuf v;

		strbuf_init(&v);
		if (j < PROM_HTTP_BOUNDS)
			prom_value(&v, prom_http_bounds_s[j]);
		else
			strbuf_puts(&v, "+Inf");
		snprintf(le[j], sizeof le[j], "%s", v.data ? v.data : "");
		strbuf_free(&v);
	}
	for (size_t i = 0; i < n; i++) {
		const struct prom_target *t = &targets[i];
		const struct prom_http *h = client ? t->http_client : t->http_server;
		size_t nh = client ? t->n_http_client : t->n_http_server;

		for (size_t k = 0; k < nh; k++) {
			struct prom_label l[3] = { { an, h[k].a }, { bn, h[k].b }, { "le", NULL } };

			snprintf(name, sizeof name, "%s_bucket", hist);
			for (size_t j = 0; j <= PROM_HTTP_BOUNDS; j++) {
				l[2].value = le[j];
				put(b, name, t, l, 3, j < PROM_HTTP_BOUNDS ? h[k].le[j] : h[k].count);
			}
			snprintf(name, sizeof name, "%s_sum", hist);
			put(b, name, t, l, 2, h[k].sum_s);
			snprintf(name, sizeof name, "%s_count", hist);
			put(b, name, t, l, 2, h[k].count);
		}
	}
	flush_family(out, b, hist, PROM_HISTOGRAM, client ?
		"Duration of HTTP client requests (http.get, https, fetch) since attach." :
		"Duration of HTTP server requests since attach.");
	prom_http_family(out, b, targets, n, client, false);
	prom_http_family(out, b, targets, n, client, true);
}

void promtext_render(struct strbuf *out, const struct prom_target *targets, size_t n,
	size_t top_n)
{
	struct strbuf b;

	strbuf_init(&b);
	prom_plain(out, &b, targets, n);
	prom_spaces(out, &b, targets, n);
	prom_resources(out, &b, targets, n);
	prom_version(out, &b, targets, n);
	prom_attached(out, &b, targets, n);
	prom_growth(out, &b, targets, n);
	prom_cpu(out, &b, targets, n);
	prom_top(out, &b, targets, n, top_n);
	prom_http(out, &b, targets, n, false);
	prom_http(out, &b, targets, n, true);
	strbuf_free(&b);
}
