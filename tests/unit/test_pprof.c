/* test_pprof.c: pprof profiles (pprof.h) from the real recordings in tests/fixtures, read back
 * by a small protobuf reader of our own and checked against what the recordings hold.
 *
 * With --write DIR it writes fib.pb.gz, graph.pb.gz and heap.pb.gz into DIR, and DIR/expect
 * with a line per CPU file: its name, its hottest function (by self time) and its number of
 * samples, tab-separated, for tests/integration/pprof_tool.sh to check go tool pprof against. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tap.h"
#include "fixture.h"
#include "calltree.h"
#include "functab.h"
#include "heapprof.h"
#include "pprof.h"
#include "profile.h"
#include "util.h"

/* ---- a protobuf reader, enough for perftools.profiles.Profile ---- */

struct pb {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t pb_varint(struct pb *b)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end) {
			b->bad = true;
			return 0;
		}
		v |= (uint64_t)(*b->p & 0x7f) << shift;
		if (!(*b->p++ & 0x80))
			return v;
	}
	b->bad = true;
	return 0;
}

/* The next field: 1 with its number and either its varint (*v) or its bytes (*sub), 0 at
 * the end, -1 on bad input. */
static int pb_next(struct pb *b, unsigned *field, uint64_t *v, struct pb *sub)
{
	uint64_t key, n;

	if (b->bad)
		return -1;
	if (b->p >= b->end)
		return 0;
	key = pb_varint(b);
	*field = (unsigned)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = pb_varint(b);
		sub->p = sub->end = NULL;
		break;
	case 2:
		n = pb_varint(b);
		if (b->bad || n > (uint64_t)(b->end - b->p))
			return -1;
		*sub = (struct pb){ b->p, b->p + n, false };
		b->p += n;
		*v = 0;
		break;
	default:
		return -1; /* ntop-js writes no fixed-width fields */
	}
	return b->bad ? -1 : 1;
}

/* A repeated varint field, packed (bytes) or not. */
static size_t pb_repeated(uint64_t **arr, size_t n, uint64_t v, struct pb *sub)
{
	if (!sub->p) {
		*arr = realloc(*arr, (n + 1) * sizeof(**arr));
		(*arr)[n++] = v;
		return n;
	}
	while (sub->p < sub->end && !sub->bad) {
		uint64_t x = pb_varint(sub);
		*arr = realloc(*arr, (n + 1) * sizeof(**arr));
		(*arr)[n++] = x;
	}
	return n;
}

struct d_sample {
	uint64_t *locs, *vals;
	size_t n_locs, n_vals;
	int64_t label_key, label_str; /* the first label */
	size_t n_labels;
};

struct d_loc {
	uint64_t id, mapping_id, function_id;
	int64_t line;
	size_t n_lines;
};

struct d_func {
	uint64_t id;
	int64_t name, system_name, filename, start_line;
};

struct d_prof {
	char **strings;
	size_t n_strings;
	int64_t st_type[4], st_unit[4];
	size_t n_st;
	struct d_sample *samples;
	size_t n_samples;
	struct d_loc *locs;
	size_t n_locs;
	struct d_func *funcs;
	size_t n_funcs;
	size_t n_mappings;
	uint64_t mapping_id;
	bool mapping_symbolized;
	int64_t time_nanos, duration_nanos, period, pt_type, pt_unit, default_st;
};

static int d_value_type(struct pb *sub, int64_t *type, int64_t *unit)
{
	unsigned f;
	uint64_t v;
	struct pb s;
	int r;

	while ((r = pb_next(sub, &f, &v, &s)) == 1) {
		if (f == 1)
			*type = (int64_t)v;
		else if (f == 2)
			*unit = (int64_t)v;
	}
	return r;
}

static int d_sample(struct pb *sub, struct d_sample *out)
{
	unsigned f, lf;
	uint64_t v, lv;
	struct pb s, ls;
	int r;

	memset(out, 0, sizeof(*out));
	while ((r = pb_next(sub, &f, &v, &s)) == 1) {
		if (f == 1)
			out->n_locs = pb_repeated(&out->locs, out->n_locs, v, &s);
		else if (f == 2)
			out->n_vals = pb_repeated(&out->vals, out->n_vals, v, &s);
		else if (f == 3 && s.p) {
			int64_t key = 0, str = 0;
			while ((r = pb_next(&s, &lf, &lv, &ls)) == 1) {
				if (lf == 1)
					key = (int64_t)lv;
				else if (lf == 2)
					str = (int64_t)lv;
			}
			if (r < 0)
				return -1;
			if (out->n_labels++ == 0) {
				out->label_key = key;
				out->label_str = str;
			}
		}
	}
	return r;
}

static int d_location(struct pb *sub, struct d_loc *out)
{
	unsigned f, lf;
	uint64_t v, lv;
	struct pb s, ls;
	int r;

	memset(out, 0, sizeof(*out));
	while ((r = pb_next(sub, &f, &v, &s)) == 1) {
		if (f == 1)
			out->id = v;
		else if (f == 2)
			out->mapping_id = v;
		else if (f == 4 && s.p) {
			out->n_lines++;
			while ((r = pb_next(&s, &lf, &lv, &ls)) == 1) {
				if (lf == 1)
					out->function_id = lv;
				else if (lf == 2)
					out->line = (int64_t)lv;
			}
			if (r < 0)
				return -1;
		}
	}
	return r;
}

static int d_function(struct pb *sub, struct d_func *out)
{
	unsigned f;
	uint64_t v;
	struct pb s;
	int r;

	memset(out, 0, sizeof(*out));
	while ((r = pb_next(sub, &f, &v, &s)) == 1) {
		switch (f) {
		case 1: out->id = v; break;
		case 2: out->name = (int64_t)v; break;
		case 3: out->system_name = (int64_t)v; break;
		case 4: out->filename = (int64_t)v; break;
		case 5: out->start_line = (int64_t)v; break;
		}
	}
	return r;
}

static int d_mapping(struct pb *sub, struct d_prof *d)
{
	unsigned f;
	uint64_t v;
	struct pb s;
	int r;
	bool fn = false, file = false, line = false;

	while ((r = pb_next(sub, &f, &v, &s)) == 1) {
		if (f == 1)
			d->mapping_id = v;
		fn |= f == 7 && v;
		file |= f == 8 && v;
		line |= f == 9 && v;
	}
	d->mapping_symbolized = fn && file && line;
	d->n_mappings++;
	return r;
}

#define GROW(arr, n) ((arr) = realloc((arr), ((n) + 1) * sizeof(*(arr))))

static int decode(const unsigned char *buf, size_t len, struct d_prof *d)
{
	struct pb b = { buf, buf + len, false }, s;
	unsigned f;
	uint64_t v;
	int r;

	memset(d, 0, sizeof(*d));
	while ((r = pb_next(&b, &f, &v, &s)) == 1) {
		int rr = 0;
		if (f != 9 && f != 10 && f != 12 && f != 14 && !s.p)
			return -1; /* every other field of Profile is a message or a string */
		switch (f) {
		case 1:
			if (d->n_st < 4)
				rr = d_value_type(&s, &d->st_type[d->n_st], &d->st_unit[d->n_st]);
			d->n_st++;
			break;
		case 2:
			GROW(d->samples, d->n_samples);
			rr = d_sample(&s, &d->samples[d->n_samples++]);
			break;
		case 3:
			rr = d_mapping(&s, d);
			break;
		case 4:
			GROW(d->locs, d->n_locs);
			rr = d_location(&s, &d->locs[d->n_locs++]);
			break;
		case 5:
			GROW(d->funcs, d->n_funcs);
			rr = d_function(&s, &d->funcs[d->n_funcs++]);
			break;
		case 6:
			GROW(d->strings, d->n_strings);
			d->strings[d->n_strings] = malloc((size_t)(s.end - s.p) + 1);
			memcpy(d->strings[d->n_strings], s.p, (size_t)(s.end - s.p));
			d->strings[d->n_strings++][s.end - s.p] = '\0';
			break;
		case 9: d->time_nanos = (int64_t)v; break;
		case 10: d->duration_nanos = (int64_t)v; break;
		case 11: rr = d_value_type(&s, &d->pt_type, &d->pt_unit); break;
		case 12: d->period = (int64_t)v; break;
		case 14: d->default_st = (int64_t)v; break;
		default: return -1;
		}
		if (rr < 0)
			return -1;
	}
	return r;
}

static void d_free(struct d_prof *d)
{
	for (size_t i = 0; i < d->n_strings; i++)
		free(d->strings[i]);
	free(d->strings);
	for (size_t i = 0; i < d->n_samples; i++) {
		free(d->samples[i].locs);
		free(d->samples[i].vals);
	}
	free(d->samples);
	free(d->locs);
	free(d->funcs);
	memset(d, 0, sizeof(*d));
}

static const char *d_str(const struct d_prof *d, int64_t i)
{
	return i >= 0 && (size_t)i < d->n_strings ? d->strings[i] : NULL;
}

static const struct d_loc *d_loc_by_id(const struct d_prof *d, uint64_t id)
{
	for (size_t i = 0; i < d->n_locs; i++)
		if (d->locs[i].id == id)
			return &d->locs[i];
	return NULL;
}

static const struct d_func *d_func_by_id(const struct d_prof *d, uint64_t id)
{
	for (size_t i = 0; i < d->n_funcs; i++)
		if (d->funcs[i].id == id)
			return &d->funcs[i];
	return NULL;
}

/* Every reference resolves, ids are unique, locations and functions deduplicated as
 * pprof-nodejs does. Returns NULL or what is wrong. */
static const char *d_check(const struct d_prof *d)
{
	if (d->n_strings == 0 || d->strings[0][0] != '\0')
		return "string 0 is not \"\"";
	if (d->n_mappings != 1 || d->mapping_id != 1 || !d->mapping_symbolized)
		return "not one symbolized mapping with id 1";
	for (size_t i = 0; i < d->n_samples; i++) {
		if (d->samples[i].n_vals != d->n_st)
			return "a sample's values do not match the sample types";
		if (d->samples[i].n_locs == 0)
			return "a sample without a location";
		for (size_t k = 0; k < d->samples[i].n_locs; k++)
			if (!d_loc_by_id(d, d->samples[i].locs[k]))
				return "a sample names an unknown location";
	}
	for (size_t i = 0; i < d->n_locs; i++) {
		const struct d_loc *l = &d->locs[i];
		if (l->id == 0 || d_loc_by_id(d, l->id) != l)
			return "a location id is 0 or repeated";
		if (l->mapping_id != 1 || l->n_lines != 1 || !d_func_by_id(d, l->function_id))
			return "a location without its mapping or its one line";
	}
	for (size_t i = 0; i < d->n_funcs; i++) {
		const struct d_func *fn = &d->funcs[i];
		if (fn->id == 0 || d_func_by_id(d, fn->id) != fn)
			return "a function id is 0 or repeated";
		if (!d_str(d, fn->name) || !d_str(d, fn->filename) || !d_str(d, fn->system_name))
			return "a function's strings are not in the table";
		for (size_t j = i + 1; j < d->n_funcs; j++)
			if (d->funcs[j].name == fn->name && d->funcs[j].filename == fn->filename)
				return "two functions of one script and name";
	}
	return NULL;
}

static unsigned char *gunzip(const unsigned char *gz, size_t n, size_t *out_len)
{
	z_stream zs;
	size_t cap = 1 << 16;
	unsigned char *out = malloc(cap);
	int r;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return NULL;
	zs.next_in = (unsigned char *)gz;
	zs.avail_in = (uInt)n;
	do {
		if (zs.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		r = inflate(&zs, Z_NO_FLUSH);
	} while (r == Z_OK);
	*out_len = zs.total_out;
	inflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

/* Encodes p gzipped, inflates and decodes it. */
static int roundtrip(const struct pprof *p, struct d_prof *d)
{
	unsigned char *gz, *raw;
	size_t n, raw_len;
	char *cause = NULL;
	int rc;

	if (pprof_encode_gzip(p, &gz, &n, &cause) < 0) {
		printf("# %s\n", cause);
		free(cause);
		return -1;
	}
	raw = n > 2 && gz[0] == 0x1f && gz[1] == 0x8b ? gunzip(gz, n, &raw_len) : NULL;
	free(gz);
	if (!raw)
		return -1;
	rc = decode(raw, raw_len, d);
	free(raw);
	return rc;
}

/* ---- what a recording holds, read without pprof.c ---- */

struct expect {
	uint64_t samples;    /* outside (idle) and after the trim */
	uint64_t self_us;
	const char *hot_name, *hot_url; /* most self time */
	uint64_t hot_us;
};

static void expect_of(const struct profile *p, const struct functab *ft, double trim,
	struct expect *e)
{
	size_t nf = functab_count(ft);
	uint64_t *self = calloc(nf ? nf : 1, sizeof(*self));
	double ts = p->start_time_us;

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < p->n_samples; i++) {
		uint32_t func = p->nodes[p->samples[i]].func;
		int64_t dt = p->time_deltas[i];
		ts += (double)dt;
		if (ts <= trim || functab_get(ft, func)->kind == FUNC_IDLE)
			continue;
		e->samples++;
		e->self_us += dt > 0 ? (uint64_t)dt : 0;
		self[func] += dt > 0 ? (uint64_t)dt : 0;
	}
	/* by (script, name), as pprof's functions are */
	for (size_t f = 0; f < nf; f++) {
		const struct func_info *fi = functab_get(ft, (uint32_t)f);
		uint64_t sum = 0;
		for (size_t g = 0; g < nf; g++) {
			const struct func_info *gi = functab_get(ft, (uint32_t)g);
			if (strcmp(fi->url, gi->url) == 0 &&
			    strcmp(functab_display_name(fi), functab_display_name(gi)) == 0)
				sum += self[g];
		}
		if (sum > e->hot_us) {
			e->hot_us = sum;
			e->hot_name = functab_display_name(fi);
			e->hot_url = fi->url;
		}
	}
	free(self);
}

struct totals {
	uint64_t v0, v1;
	const char *hot_name, *hot_file;
	uint64_t hot_v1;
};

/* Sums of the decoded samples, and the function with the most of value 1 at the leaf. */
static void totals_of(const struct d_prof *d, struct totals *t)
{
	uint64_t *flat = calloc(d->n_funcs + 1, sizeof(*flat));

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < d->n_samples; i++) {
		const struct d_sample *s = &d->samples[i];
		const struct d_loc *leaf = d_loc_by_id(d, s->locs[0]);
		t->v0 += s->vals[0];
		t->v1 += s->vals[1];
		for (size_t f = 0; f < d->n_funcs; f++)
			if (d->funcs[f].id == leaf->function_id)
				flat[f] += s->vals[1];
	}
	for (size_t f = 0; f < d->n_funcs; f++) {
		if (flat[f] > t->hot_v1) {
			t->hot_v1 = flat[f];
			t->hot_name = d_str(d, d->funcs[f].name);
			t->hot_file = d_str(d, d->funcs[f].filename);
		}
	}
	free(flat);
}

static bool load(const char *name, struct functab *ft, struct profile *p)
{
	size_t len;
	char *err = NULL, *json = fixture_read(name, &len);
	bool good = json && profile_parse(json, len, ft, p, &err) == 0;

	if (!good)
		printf("# %s: %s\n", name, err ? err : "unreadable");
	free(err);
	free(json);
	return good;
}

static void test_cpu_fixture(const char *name, long interval_us)
{
	struct functab *ft = functab_create();
	struct calltree *t = calltree_create(1000);
	struct pprof *pp = pprof_create(PPROF_CPU, interval_us * 1000);
	struct profile p;
	struct expect e;
	struct totals tot;
	struct d_prof d;
	const char *why;

	if (!load(name, ft, &p)) {
		ok(0, "%s parsed", name);
		goto out;
	}
	calltree_add(t, &p, -INFINITY);
	pprof_add_calltree(pp, t, ft);
	pprof_set_time(pp, 1700000000000000000LL, 5000000000LL);
	if (roundtrip(pp, &d) != 0) {
		ok(0, "%s: the pprof file gunzips and decodes", name);
		profile_release(&p);
		goto out;
	}
	ok(1, "%s: the pprof file gunzips and decodes", name);
	why = d_check(&d);
	ok(why == NULL, "%s: every id resolves, functions one per (script, name) (%s)", name,
		why ? why : "ok");
	is_str(d_str(&d, d.st_type[0]), "samples", "%s: sample type 0 is samples", name);
	is_str(d_str(&d, d.st_unit[0]), "count", "%s: ... counted", name);
	is_str(d_str(&d, d.st_type[1]), "cpu", "%s: sample type 1 is cpu", name);
	is_str(d_str(&d, d.st_unit[1]), "nanoseconds", "%s: ... in nanoseconds", name);
	is_str(d_str(&d, d.pt_type), "cpu", "%s: period type cpu", name);
	is_str(d_str(&d, d.pt_unit), "nanoseconds", "%s: ... nanoseconds", name);
	is_int(d.period, interval_us * 1000, "%s: the period is the sampling interval", name);
	is_str(d_str(&d, d.default_st), "cpu", "%s: cpu is the default sample type", name);
	is_int(d.time_nanos, 1700000000000000000LL, "%s: time_nanos", name);
	is_int(d.duration_nanos, 5000000000LL, "%s: duration_nanos", name);

	expect_of(&p, ft, -INFINITY, &e);
	totals_of(&d, &tot);
	is_int(tot.v0, e.samples, "%s: every sample but (idle) counted once (%" PRIu64 ")", name,
		e.samples);
	is_int(tot.v1, e.self_us * 1000, "%s: cpu time is the samples' timeDeltas", name);
	is_str(tot.hot_name, e.hot_name, "%s: the hottest function is the recording's", name);
	is_str(tot.hot_file, e.hot_url, "%s: ... from its script", name);
	is_int(tot.hot_v1, e.hot_us * 1000, "%s: ... with its self time", name);

	/* lines: the function's 1-based line, and start_line the same */
	{
		bool lines = true;
		for (size_t i = 0; i < d.n_locs; i++) {
			const struct d_func *fn = d_func_by_id(&d, d.locs[i].function_id);
			if (d.locs[i].line < 0 || (fn->start_line && d.locs[i].line == 0))
				lines = false;
		}
		ok(lines, "%s: locations carry lines", name);
	}
	d_free(&d);

	/* the same from the window's profile directly, and with half of it trimmed */
	{
		struct pprof *pw = pprof_create(PPROF_CPU, interval_us * 1000);
		double mid = p.start_time_us;
		struct expect e2;

		for (size_t i = 0; i < p.n_samples / 2; i++)
			mid += (double)p.time_deltas[i];
		pprof_add_profile(pw, &p, ft, mid);
		expect_of(&p, ft, mid, &e2);
		if (roundtrip(pw, &d) == 0) {
			totals_of(&d, &tot);
			ok(e2.samples < e.samples && e2.samples > 0, "%s: the trim keeps some", name);
			is_int(tot.v0, e2.samples, "%s: a window's profile after its trim: samples",
				name);
			is_int(tot.v1, e2.self_us * 1000, "%s: ... and time", name);
			ok(d_check(&d) == NULL, "%s: ... consistent", name);
			d_free(&d);
		} else {
			ok(0, "%s: a window's profile decodes", name);
		}
		pprof_free(pw);
	}
	profile_release(&p);
out:
	pprof_free(pp);
	calltree_free(t);
	functab_free(ft);
}

/* Merging two windows: pprof's totals are the sum. */
static void test_two_windows(void)
{
	struct functab *ft = functab_create();
	struct calltree *t = calltree_create(10);
	struct pprof *pp = pprof_create(PPROF_CPU, 100000);
	struct profile p;
	struct expect e;
	struct totals tot;
	struct d_prof d;

	if (!load("profile-graph.json", ft, &p)) {
		ok(0, "profile-graph.json parsed");
		goto out;
	}
	/* past max_samples the tree drops its timeline: the counts must not suffer */
	calltree_add(t, &p, -INFINITY);
	calltree_add(t, &p, -INFINITY);
	pprof_add_calltree(pp, t, ft);
	expect_of(&p, ft, -INFINITY, &e);
	if (roundtrip(pp, &d) == 0) {
		totals_of(&d, &tot);
		is_int(tot.v0, 2 * e.samples, "two windows: samples add up past the timeline's cap");
		is_int(tot.v1, 2 * e.self_us * 1000, "two windows: ... and time");
		is_int(d.n_samples, pprof_sample_count(pp), "one Sample per stack written");
		d_free(&d);
	} else {
		ok(0, "two windows decode");
	}
	profile_release(&p);
out:
	pprof_free(pp);
	calltree_free(t);
	functab_free(ft);
}

/* Count "nodeId" in the samples list: the sampled objects. */
static uint64_t count_samples(const char *json)
{
	const char *s = strstr(json, "\"samples\"");
	uint64_t n = 0;

	while (s && (s = strstr(s, "\"nodeId\"")) != NULL) {
		n++;
		s++;
	}
	return n;
}

static void test_heap(const char *name)
{
	struct functab *ft = functab_create(), *ft2 = functab_create();
	struct pprof *pp = pprof_create(PPROF_HEAP, 32768);
	struct alloc_table at;
	struct totals tot;
	struct d_prof d;
	size_t len;
	char *err = NULL, *json = fixture_read_text(name, &len);

	alloc_table_init(&at);
	if (!json || heapprof_parse(json, len, ft2, &at, &err) != 0) {
		ok(0, "%s parsed (%s)", name, err ? err : "unreadable");
		goto out;
	}
	ok(pprof_add_heap_json(pp, json, len, ft, &err) == 0, "%s: read for pprof (%s)", name,
		err ? err : "ok");
	if (roundtrip(pp, &d) != 0) {
		ok(0, "%s: decodes", name);
		goto out;
	}
	ok(d_check(&d) == NULL, "%s: consistent (%s)", name, d_check(&d) ? d_check(&d) : "ok");
	is_str(d_str(&d, d.st_type[0]), "inuse_objects", "%s: inuse_objects", name);
	is_str(d_str(&d, d.st_unit[0]), "count", "%s: ... count", name);
	is_str(d_str(&d, d.st_type[1]), "inuse_space", "%s: inuse_space", name);
	is_str(d_str(&d, d.st_unit[1]), "bytes", "%s: ... bytes", name);
	is_str(d_str(&d, d.pt_type), "space", "%s: period type space", name);
	is_int(d.period, 32768, "%s: period the sampling interval in bytes", name);
	totals_of(&d, &tot);
	is_int(tot.v1, (uint64_t)llround(at.total_live_bytes), "%s: live bytes as heapprof sums them",
		name);
	is_int(tot.v0, count_samples(json), "%s: every sampled object counted", name);
	ok(d.n_samples > 0, "%s: %zu allocation stacks", name, d.n_samples);
	d_free(&d);
out:
	free(err);
	free(json);
	alloc_table_free(&at);
	pprof_free(pp);
	functab_free(ft);
	functab_free(ft2);
}

static void test_heap_bad(void)
{
	struct functab *ft = functab_create();
	struct pprof *pp = pprof_create(PPROF_HEAP, 32768);
	const char *bad = "{\"head\":{\"callFrame\":{\"functionName\":\"a\",\"url\":\"x\","
		"\"lineNumber\":1,\"columnNumber\":1},\"selfSize\":5,\"id\":1,\"children\":[]},"
		"\"samples\":[{\"size\":-1,\"nodeId\":1}]}";
	char *err = NULL;

	ok(pprof_add_heap_json(pp, bad, strlen(bad), ft, &err) < 0 && err,
		"a bad heap profile is refused (%s)", err ? err : "no message");
	is_int(pprof_sample_count(pp), 0, "... and adds nothing");
	free(err);
	pprof_free(pp);
	functab_free(ft);
}

/* Stacks by hand: idle dropped, the root skipped, labels kept, one location per function. */
static void test_by_hand(void)
{
	struct functab *ft = functab_create();
	uint32_t root = functab_intern(ft, "(root)", 6, "", 0, -1, -1);
	uint32_t idle = functab_intern(ft, "(idle)", 6, "", 0, -1, -1);
	uint32_t a = functab_intern(ft, "a", 1, "file:///x.js", 12, 9, 4);
	uint32_t a2 = functab_intern(ft, "a", 1, "file:///x.js", 12, 30, 2);
	uint32_t anon = functab_intern(ft, "", 0, "file:///x.js", 12, 40, 0);
	uint32_t bad = functab_intern(ft, "b\xff\xc3", 3, "file:///\xe9.js", 12, 1, 0);
	struct pprof *pp = pprof_create(PPROF_CPU, 1000000);
	struct pprof_label lab[2] = { { "thread", "main" }, { "bad", NULL } };
	uint32_t s1[] = { a, root }, s2[] = { idle, root }, s3[] = { a2, a, root },
		s4[] = { anon, a }, s5[] = { root }, s6[] = { bad };
	struct d_prof d;

	pprof_add_sample(pp, ft, s1, 2, 3, 30, lab, 2);
	pprof_add_sample(pp, ft, s2, 2, 100, 1000, NULL, 0);
	pprof_add_sample(pp, ft, s3, 3, 1, 10, NULL, 0);
	pprof_add_sample(pp, ft, s4, 2, 2, 20, NULL, 0);
	pprof_add_sample(pp, ft, s5, 1, 5, 50, NULL, 0);
	pprof_add_sample(pp, ft, s6, 1, 1, 1, NULL, 0);
	is_int(pprof_sample_count(pp), 4, "(idle) and the root alone are left out");
	if (roundtrip(pp, &d) != 0) {
		ok(0, "by hand: decodes");
		goto out;
	}
	ok(d_check(&d) == NULL, "by hand: consistent");
	is_int(d.n_locs, 4, "a location per (script, line, column, name)");
	is_int(d.n_funcs, 3, "a function per (script, name): a's two share one");
	{
		const struct d_func *fb = d_func_by_id(&d,
			d_loc_by_id(&d, d.samples[3].locs[0])->function_id);
		is_str(d_str(&d, fb->name), "b\xef\xbf\xbd\xef\xbf\xbd",
			"bytes that are not UTF-8 become U+FFFD in names");
		is_str(d_str(&d, fb->filename), "file:///\xef\xbf\xbd.js", "... and file names");
	}
	is_int(d.samples[0].n_locs, 1, "the root is not a frame");
	is_int(d.samples[1].n_locs, 2, "leaf first: two frames");
	ok(d.samples[1].locs[0] != d.samples[1].locs[1], "... distinct locations");
	is_int(d_loc_by_id(&d, d.samples[0].locs[0])->line, 10, "line is lineNumber + 1");
	is_int(d_loc_by_id(&d, d.samples[1].locs[0])->line, 31, "... for the other a too");
	is_str(d_str(&d, d_func_by_id(&d, d_loc_by_id(&d, d.samples[2].locs[0])->function_id)->name),
		"(anonymous)", "an unnamed function is (anonymous)");
	is_int(d.samples[0].n_labels, 1, "a label without a value is left out");
	is_str(d_str(&d, d.samples[0].label_key), "thread", "label key");
	is_str(d_str(&d, d.samples[0].label_str), "main", "label value");
	is_int(d.samples[0].vals[0], 3, "values kept");
	is_int(d.samples[0].vals[1], 30, "... both");
	d_free(&d);
out:
	pprof_free(pp);
	functab_free(ft);
}

/* A function a source map places is named and placed in its original source, V8's name kept
 * as the system name; functions of one original file and name share a Function. */
static void test_mapped(void)
{
	struct functab *ft = functab_create();
	uint32_t e = functab_intern(ft, "e", 1, "file:///srv/dist/app.min.js", 27, 0, 4810);
	uint32_t t = functab_intern(ft, "t", 1, "file:///srv/dist/app.min.js", 27, 0, 9120);
	uint32_t plain = functab_intern(ft, "main", 4, "file:///srv/main.js", 19, 3, 9);
	struct pprof *pp = pprof_create(PPROF_CPU, 1000000);
	uint32_t s1[] = { e, plain }, s2[] = { t, plain };
	struct d_prof d;

	/* e is seen once before its map has loaded */
	pprof_add_sample(pp, ft, s1, 2, 1, 10, NULL, 0);
	functab_set_origin(ft, e, "unitPrice", 9, "/srv/src/pricing.ts", 19, 13, 16);
	functab_set_origin(ft, t, "unitPrice", 9, "/srv/src/pricing.ts", 19, 40, 2);
	pprof_add_sample(pp, ft, s1, 2, 1, 10, NULL, 0);
	pprof_add_sample(pp, ft, s2, 2, 1, 10, NULL, 0);
	if (roundtrip(pp, &d) != 0) {
		ok(0, "mapped: decodes");
		goto out;
	}
	ok(d_check(&d) == NULL, "mapped: consistent");
	const struct d_func *f0 = d_func_by_id(&d, d_loc_by_id(&d, d.samples[0].locs[0])->function_id);
	is_str(d_str(&d, f0->name), "e", "before its map loaded: V8's name");
	d.samples++; /* the rest: after */
	const struct d_loc *le = d_loc_by_id(&d, d.samples[0].locs[0]);
	const struct d_func *fe = d_func_by_id(&d, le->function_id);
	is_str(d_str(&d, fe->name), "unitPrice", "a mapped function has its original name");
	is_str(d_str(&d, fe->system_name), "e", "... and V8's as the system name");
	is_str(d_str(&d, fe->filename), "/srv/src/pricing.ts", "... its original file");
	is_int(le->line, 14, "... and original line, 1-based");
	is_int(fe->start_line, 14, "... as the function's start line");
	const struct d_loc *lt = d_loc_by_id(&d, d.samples[1].locs[0]);
	ok(lt != le && lt->function_id == le->function_id && lt->line == 41,
		"two minified functions of one original name and file: two locations, one function");
	const struct d_func *fm = d_func_by_id(&d, d_loc_by_id(&d, d.samples[0].locs[1])->function_id);
	ok(!strcmp(d_str(&d, fm->name), "main") && !strcmp(d_str(&d, fm->filename),
		"file:///srv/main.js"), "an unmapped function keeps V8's name and url");
	d.samples--;
	d_free(&d);
out:
	pprof_free(pp);
	functab_free(ft);
}

/* Two threads' tables in one profile: the same index names different functions in each, and
 * each sample keeps its thread's label. */
static void test_two_tables(void)
{
	struct functab *a = functab_create(), *b = functab_create();
	uint32_t fa = functab_intern(a, "mainWork", 8, "file:///app.js", 14, 3, 0);
	uint32_t fb = functab_intern(b, "taskWork", 8, "file:///task.js", 15, 7, 0);
	struct pprof *pp = pprof_create(PPROF_CPU, 1000000);
	struct pprof_label la[] = { { "thread", "main" } }, lb[] = { { "thread", "1 pool" } };
	struct d_prof d;

	ok(fa == fb, "the same index in both tables");
	pprof_add_sample(pp, a, &fa, 1, 5, 50, la, 1);
	pprof_add_sample(pp, b, &fb, 1, 7, 70, lb, 1);
	pprof_add_sample(pp, a, &fa, 1, 1, 10, la, 1);
	if (roundtrip(pp, &d) != 0) {
		ok(0, "two tables: decodes");
		goto out;
	}
	ok(d_check(&d) == NULL, "two tables: consistent");
	is_int(d.n_locs, 2, "a location for each table's function");
	const struct d_func *f0 = d_func_by_id(&d, d_loc_by_id(&d, d.samples[0].locs[0])->function_id);
	const struct d_func *f1 = d_func_by_id(&d, d_loc_by_id(&d, d.samples[1].locs[0])->function_id);
	ok(!strcmp(d_str(&d, f0->name), "mainWork") && !strcmp(d_str(&d, f1->name), "taskWork"),
		"each sample names its own table's function");
	is_int(d.samples[2].locs[0], d.samples[0].locs[0], "the first table's location is reused");
	is_str(d_str(&d, d.samples[1].label_str), "1 pool", "and the thread label is kept");
	d_free(&d);
out:
	pprof_free(pp);
	functab_free(a);
	functab_free(b);
}

static void test_save(void)
{
	char dir[] = "/tmp/ntop-pprof-XXXXXX", *path, *cause = NULL, *gz;
	struct functab *ft = functab_create();
	struct calltree *t = calltree_create(1000);
	struct profile p;
	struct d_prof d;
	size_t n, raw_len;
	unsigned char *raw;

	ok(pprof_path_is_pprof("x.pb.gz") && pprof_path_is_pprof("/a/b.pprof") &&
		!pprof_path_is_pprof("x.cpuprofile") && !pprof_path_is_pprof(".pb.gz") &&
		!pprof_path_is_pprof("x.gz") && !pprof_path_is_pprof(NULL),
		"pprof paths are told by their suffix");
	if (!mkdtemp(dir) || !load("profile-fib.json", ft, &p)) {
		ok(0, "save: set up");
		goto out;
	}
	calltree_add(t, &p, -INFINITY);
	path = xasprintf("%s/x.pb.gz", dir);
	ok(pprof_save_calltree(t, ft, 0, 1700000000000000000LL, path, &cause) == 0,
		"pprof_save_calltree writes (%s)", cause ? cause : "ok");
	gz = fixture_read_file(path, &n);
	raw = gz ? gunzip((unsigned char *)gz, n, &raw_len) : NULL;
	if (raw && decode(raw, raw_len, &d) == 0) {
		double span_ns = calltree_span_us(t) * 1000;
		ok(d.period > 0, "the mean interval stands for an unknown one (%" PRId64 " ns)",
			d.period);
		is_num(d.duration_nanos, span_ns, 1, "duration is the tree's span");
		is_num(d.time_nanos, 1700000000000000000.0 - span_ns, 1024,
			"time_nanos is its end less its span");
		d_free(&d);
	} else {
		ok(0, "the saved file decodes");
	}
	free(raw);
	free(gz);
	unlink(path);
	rmdir(dir);
	free(path);
	free(cause);
	profile_release(&p);
out:
	calltree_free(t);
	functab_free(ft);
}

/* --write DIR: files for the real consumers. */
static int write_files(const char *dir)
{
	const char *cpu[] = { "profile-fib.json", "fib.pb.gz", "profile-graph.json", "graph.pb.gz" };
	char *path = xasprintf("%s/expect", dir), *cause = NULL;
	FILE *ex = fopen(path, "w");
	int rc = 0;

	free(path);
	if (!ex)
		return 1;
	for (int i = 0; i < 4; i += 2) {
		struct functab *ft = functab_create();
		struct calltree *t = calltree_create(1000000);
		struct profile p;
		struct expect e;

		if (!load(cpu[i], ft, &p)) {
			rc = 1;
		} else {
			calltree_add(t, &p, -INFINITY);
			expect_of(&p, ft, -INFINITY, &e);
			path = xasprintf("%s/%s", dir, cpu[i + 1]);
			if (pprof_save_calltree(t, ft, 1000, 1700000000000000000LL, path, &cause) < 0)
				rc = 1;
			fprintf(ex, "%s\t%s\t%" PRIu64 "\n", cpu[i + 1], e.hot_name, e.samples);
			free(path);
			profile_release(&p);
		}
		calltree_free(t);
		functab_free(ft);
	}
	{
		struct functab *ft = functab_create();
		struct pprof *pp = pprof_create(PPROF_HEAP, 32768);
		size_t len;
		char *json = fixture_read_text("heap-sampling-2.json", &len);

		path = xasprintf("%s/heap.pb.gz", dir);
		if (!json || pprof_add_heap_json(pp, json, len, ft, &cause) < 0 ||
		    pprof_save(pp, path, &cause) < 0)
			rc = 1;
		free(json);
		free(path);
		pprof_free(pp);
		functab_free(ft);
	}
	if (cause)
		fprintf(stderr, "test_pprof: %s\n", cause);
	free(cause);
	return fclose(ex) != 0 || rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return write_files(argv[2]);
	test_by_hand();
	test_mapped();
	test_two_tables();
	test_cpu_fixture("profile-fib.json", 1000);
	test_cpu_fixture("profile-graph.json", 100);
	test_two_windows();
	test_heap("heap-sampling-1.json");
	test_heap("heap-sampling-2.json");
	test_heap("heap-sampling-deep.json");
	test_heap_bad();
	test_save();
	return done_testing();
}
