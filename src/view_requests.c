/* view_requests.c: the requests screen (e): the target's HTTP routes and the destinations it
 * calls, over the last window or (w) since attach, sorted (1-4), a route selected (Up/Down)
 * and opened (Enter) for its latency by octave and what it waits on. The rows are the
 * engine's (requests.h), already bounded and made safe. */
#include "config.h"

#include "requests.h"
#include "view_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQ_KEYS "e/Esc back  Up/Down select  Enter route  1-4 sort  w window/since attach  " \
	"l loop  m memory  ? help  q quit"
/* Columns right of the route: rate, in flight, p50, p99, max, errors. */
#define REQ_NUM_COLS 47
#define REQ_WAIT_COLS 28
/* Octaves shown in a route's latency, at most. */
#define REQ_OCTAVES 12

/* The rows shown: the last window's, or (w: "since attach") the totals. */
static bool req_since(const struct view *v)
{
	return v->s.mode == MODE_CUMULATIVE;
}

static const struct req_window *req_rows(const struct view *v, const struct model *m,
	double *span_s)
{
	if (req_since(v)) {
		*span_s = m->req_since_s;
		return m->req_total;
	}
	*span_s = m->req_window_ms / 1e3;
	return m->req_last;
}

/* "105ms", "1.2s", "0.4ms"; "-" for none. */
static void req_ms(double ms, char *out, size_t outsz)
{
	if (!isfinite(ms))
		snprintf(out, outsz, "-");
	else if (ms < 10)
		snprintf(out, outsz, "%.1fms", ms);
	else if (ms < 1000)
		snprintf(out, outsz, "%.0fms", ms);
	else
		snprintf(out, outsz, "%.1fs", ms / 1000);
}

/* The sort: 0 requests (the most first), 1 p99 (the slowest first), 2 errors, 3 name. */
static int req_cmp(const void *a, const void *b, void *ctx)
{
	const struct req_row *rows = ((const struct req_row *const *)ctx)[0];
	int key = *(const int *)((const struct req_row *const *)ctx)[1];
	const struct req_row *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
	double kx, ky;

	switch (key) {
	case 1:
		kx = req_row_quantile(x, 0.99);
		ky = req_row_quantile(y, 0.99);
		kx = isfinite(kx) ? kx : -1;
		ky = isfinite(ky) ? ky : -1;
		break;
	case 2:
		kx = (double)x->errors;
		ky = (double)y->errors;
		break;
	case 3:
		return strcmp(x->key, y->key);
	default:
		kx = (double)x->count;
		ky = (double)y->count;
		break;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Indices of rows[0..n) in the screen's order into order (room for REQ_ROWS_MAX). */
static size_t req_order(const struct view *v, const struct req_row *rows, size_t n,
	size_t *order)
{
	const void *ctx[2] = { rows, &v->req_sort };

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, req_cmp, (void *)ctx);
	return n;
}

static const char *const sort_names[] = { "REQ/S", "P99", "ERR%", "ROUTE" };

/* The figures' columns right of the name: heading, offset, width, and the sort that
 * highlights it (-1: none). */
static const struct {
	const char *heading;
	int at, width, sort;
} req_cols[] = {
	{ "REQ/S", 0, 8, 0 }, { "INFL", 8, 5, -1 }, { "P50", 13, 8, -1 },
	{ "P99", 21, 8, 1 }, { "MAX", 29, 8, -1 }, { "ERR%", 37, 8, 2 },
};

/* A row's figures from column x: rate, in flight, p50, p99, max, errors. */
static void req_numbers(struct grid *g, int x, int y, const struct req_row *r, double span_s,
	enum grid_attr attr)
{
	char buf[6][32];

	snprintf(buf[0], sizeof buf[0], "%.1f", span_s > 0 ? (double)r->count / span_s : 0);
	snprintf(buf[1], sizeof buf[1], "%llu", (unsigned long long)r->in_flight);
	req_ms(req_row_quantile(r, 0.5), buf[2], sizeof buf[2]);
	req_ms(req_row_quantile(r, 0.99), buf[3], sizeof buf[3]);
	req_ms(r->count ? r->max_ms : NAN, buf[4], sizeof buf[4]);
	snprintf(buf[5], sizeof buf[5], "%.1f%%",
		r->count ? 100.0 * (double)r->errors / (double)r->count : 0);
	for (size_t i = 0; i < sizeof req_cols / sizeof *req_cols; i++)
		view_put_right(g, x + req_cols[i].at, y, i == 5 && r->errors ? GA_WARN : attr, buf[i],
			req_cols[i].width);
}

static void req_headings(struct view *v, struct grid *g, int y, int name_w, bool client,
	bool waits)
{
	grid_put(g, 1, y, !client && v->req_sort == 3 ? GA_SORTED : GA_TITLE,
		client ? "DESTINATION" : "ROUTE", name_w);
	for (size_t i = 0; i < sizeof req_cols / sizeof *req_cols; i++)
		view_put_right(g, 1 + name_w + req_cols[i].at, y,
			!client && req_cols[i].sort == v->req_sort ? GA_SORTED : GA_TITLE,
			client && i == 0 ? "CALLS/S" : req_cols[i].heading, req_cols[i].width);
	if (waits)
		grid_put(g, 1 + name_w + REQ_NUM_COLS + 2, y, GA_TITLE, "WAITS ON", 0);
}

/* A route's latency by octave (its quarter-octave buckets, four a line), then its waits. */
static int req_route_detail(const struct view *v, const struct req_row *r, struct grid *g,
	int y, int bottom, bool context)
{
	int x;
	char buf[200], lo[16], hi[16], p50[16], p99[16], mx[16];
	uint64_t oct[REQ_BUCKETS / 4 + 1] = { 0 }, most = 0;
	int first = -1, last = -1, bar_w = g->width - 30;

	grid_put(g, 2, y, GA_HEADER, r->key, g->width - 2);
	if (++y >= bottom)
		return y;
	req_ms(req_row_quantile(r, 0.5), p50, sizeof p50);
	req_ms(req_row_quantile(r, 0.99), p99, sizeof p99);
	req_ms(r->count ? r->max_ms : NAN, mx, sizeof mx);
	req_ms(r->count ? r->sum_ms / (double)r->count : NAN, lo, sizeof lo);
	snprintf(buf, sizeof buf, "  %llu requests, %llu errors; p50 %s  p99 %s  max %s  mean %s",
		(unsigned long long)r->count, (unsigned long long)r->errors, p50, p99, mx, lo);
	view_put_at(g, 0, y++, GA_NORMAL, buf);
	for (size_t i = 0; i < r->n_waits && r->sampled && y < bottom; i++) {
		req_ms(req_wait_mean_ms(r, i), lo, sizeof lo);
		snprintf(buf, sizeof buf, "%s a request (%.0f%% of its time)", lo,
			100 * req_wait_share(r, i));
		x = view_put_at(g, 0, y, GA_DIM, "  waits on ");
		x = view_put_fit(v, g, x, y, GA_NORMAL, r->waits[i].host, REQ_HOST_LEN, false) + x;
		x = view_put_at(g, x, y, GA_DIM, ": ");
		view_put_at(g, x, y++, GA_NORMAL, buf);
	}
	if (!context && y < bottom)
		view_put_at(g, 0, y++, GA_DIM, "  (what it waits on: Node 24 and later)");
	for (size_t i = 0; i < REQ_BUCKETS; i++)
		oct[(i + 3) / 4] += r->hist[i];
	for (int k = 0; k <= REQ_BUCKETS / 4; k++)
		if (oct[k]) {
			if (first < 0)
				first = k;
			last = k;
			if (oct[k] > most)
				most = oct[k];
		}
	if (first < 0 || y >= bottom || bar_w < 4)
		return y;
	if (last - first >= REQ_OCTAVES)
		first = last - REQ_OCTAVES + 1;
	view_put_at(g, 0, y++, GA_TITLE, "  LATENCY           REQUESTS");
	for (int k = first; k <= last && y < bottom; k++) {
		/* octave k: buckets 4k-3 .. 4k, from BASE 2^(k-1) to BASE 2^k ms (0: the first) */
		int n = (int)((double)oct[k] / (double)most * bar_w + 0.5);

		req_ms(k == 0 ? 0 : REQ_BUCKET_BASE_MS * exp2(k - 1), lo, sizeof lo);
		req_ms(REQ_BUCKET_BASE_MS * exp2(k), hi, sizeof hi);
		snprintf(buf, sizeof buf, "  %7s-%-7s %8llu ", lo, hi, (unsigned long long)oct[k]);
		view_put_at(g, 0, y, GA_NORMAL, buf);
		for (int j = 0; j < n && 29 + j < g->width; j++)
			grid_put(g, 29 + j, y, GA_HEAT2, v->blocks[7], 1);
		y++;
	}
	return y;
}

static void req_draw(struct view *v, const struct model *m, struct grid *g, double now_wall_s)
{
	int bottom = view_draw_bottom(v, m, g, REQ_KEYS), y = 0, x, name_w;
	double span_s = NAN;
	const struct req_window *w = req_rows(v, m, &span_s);
	size_t order[REQ_ROWS_MAX], n, corder[REQ_ROWS_MAX], cn;
	char buf[160], span[32];
	bool waits;

	x = view_put_at(g, 0, y, GA_HEADER, "REQUESTS");
	if (req_since(v)) {
		view_fmt_span(isfinite(span_s) ? span_s : 0, span, sizeof span);
		snprintf(buf, sizeof buf, "  since attach (%s)", span);
	} else {
		snprintf(buf, sizeof buf, "  last window (%.1fs)", m->req_window_ms / 1e3);
	}
	x = view_put_at(g, x, y, GA_NORMAL, buf);
	snprintf(buf, sizeof buf, "  sorted by %s", sort_names[v->req_sort % 4]);
	view_put_at(g, x, y++, GA_DIM, buf);
	if (!m->requests_read) {
		if (y < bottom)
			view_put_at(g, 0, y, GA_DIM, m->no_eval ? "HTTP requests are not read with "
				"--no-eval." : "HTTP requests are read on the main thread (t), and not "
				"with --no-requests.");
		return;
	}
	if (!w || (w->n_server == 0 && w->n_client == 0)) {
		if (y < bottom)
			view_put_at(g, 0, y, GA_DIM, w ? "No HTTP request or call finished or was in "
				"flight here." : "Waiting for the first reading of the target's requests.");
		return;
	}
	waits = w->context && g->width >= 40 + REQ_NUM_COLS + REQ_WAIT_COLS;
	name_w = g->width - 2 - REQ_NUM_COLS - (waits ? REQ_WAIT_COLS + 2 : 0);
	if (name_w < 12)
		name_w = 12;
	n = req_order(v, w->server, w->n_server, order);
	cn = req_order(v, w->client, w->n_client, corder);
	if (v->req_sel >= n)
		v->req_sel = n ? n - 1 : 0;
	y++;
	if (n && y < bottom) {
		/* the routes: as many as fit above the calls (or the opened route) */
		int room = bottom - y - 1 - (v->req_open ? 10 : (int)(cn ? cn + 2 : 0));

		if (room < 3)
			room = 3;
		req_headings(v, g, y++, name_w, false, waits);
		if (v->req_sel < v->req_top)
			v->req_top = v->req_sel;
		if (v->req_sel >= v->req_top + (size_t)room)
			v->req_top = v->req_sel - (size_t)room + 1;
		for (size_t i = v->req_top; i < n && y < bottom && (int)(i - v->req_top) < room; i++) {
			const struct req_row *r = &w->server[order[i]];
			enum grid_attr a = i == v->req_sel ? GA_SELECTED : GA_NORMAL;

			if (i == v->req_sel)
				grid_put(g, 0, y, GA_SELECTED, "", g->width);
			view_put_fit(v, g, 1, y, a, r->key, name_w, false);
			req_numbers(g, 1 + name_w, y, r, span_s, a);
			if (waits && isfinite(req_wait_share(r, 0))) {
				snprintf(buf, sizeof buf, "%3.0f%% ", 100 * req_wait_share(r, 0));
				x = view_put_at(g, 1 + name_w + REQ_NUM_COLS + 2, y, a, buf);
				view_put_fit(v, g, x, y, a, r->waits[0].host, g->width - x, false);
			}
			y++;
		}
		y++;
	}
	if (v->req_open && n) {
		req_route_detail(v, &w->server[order[v->req_sel]], g, y, bottom, w->context);
		return;
	}
	if (cn && y < bottom) {
		view_put_at(g, 0, y++, GA_HEADER, "CALLS");
		if (y < bottom)
			req_headings(v, g, y++, name_w, true, false);
		for (size_t i = 0; i < cn && y < bottom; i++) {
			const struct req_row *r = &w->client[corder[i]];

			view_put_fit(v, g, 1, y, GA_NORMAL, r->key, name_w, false);
			req_numbers(g, 1 + name_w, y, r, span_s, GA_NORMAL);
			y++;
		}
	}
}

/* Esc closes an opened route, then goes back (e, a shared key, goes back at once). */
static enum view_action req_back(struct view *v, const struct model *m, int key)
{
	if (!v->req_open)
		v->screen = VS_TABLE;
	v->req_open = false;
	return VA_REDRAW;
}

static enum view_action req_move(struct view *v, const struct model *m, int key)
{
	double span;
	const struct req_window *w = req_rows(v, m, &span);
	size_t n = w ? w->n_server : 0;

	if (key == VK_UP && v->req_sel > 0)
		v->req_sel--;
	else if (key == VK_DOWN && v->req_sel + 1 < n)
		v->req_sel++;
	else if (key == VK_HOME)
		v->req_sel = 0;
	else if (key == VK_END)
		v->req_sel = n ? n - 1 : 0;
	return VA_REDRAW;
}

static enum view_action req_open(struct view *v, const struct model *m, int key)
{
	v->req_open = !v->req_open;
	return VA_REDRAW;
}

static enum view_action req_sort(struct view *v, const struct model *m, int key)
{
	v->req_sort = key - '1';
	v->req_sel = v->req_top = 0;
	return VA_REDRAW;
}

static enum view_action req_memory(struct view *v, const struct model *m, int key)
{
	v->screen = VS_MEMORY;
	return VA_REDRAW;
}

/* Help lists them in its section for this screen (rank 0). */
static const struct binding req_bindings[] = {
	{ { VK_ESC, VK_BACKSPACE }, "Esc", "close the opened route, then back to the table (as e "
		"at once)", 0, req_back },
	{ { VK_UP, VK_DOWN, VK_HOME, VK_END }, "Up, Down", "select a route", 0, req_move },
	{ { VK_ENTER, '\n', '\r' }, "Enter", "open or close the selected route: its latency by "
		"octave and the destinations it waits on", 0, req_open },
	{ { '1', '2', '3', '4' }, "1-4", "sort the routes: 1 requests, 2 p99, 3 errors, 4 route",
		0, req_sort },
	{ { 'm' }, NULL, NULL, 0, req_memory },
};

static const char *const req_key_bars[] = { REQ_KEYS, NULL };

const struct screen screen_requests = {
	.name = "requests",
	.key_bars = req_key_bars,
	.draw = req_draw,
	.bindings = req_bindings,
	.n_bindings = sizeof(req_bindings) / sizeof(req_bindings[0]),
	.shared_keys = true,
	.help_title = "REQUESTS SCREEN (e)",
	.help_section = 4,
};
