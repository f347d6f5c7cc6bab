/* Unit tests for parsework: a profile read on the worker thread comes back on the event loop
 * exactly as profile_parse() makes it, with its functions in the session's table; an invalid
 * one comes back as an error; a job still running when the worker is freed is dropped. */
#include "config.h"

#include "functab.h"
#include "loop.h"
#include "parsework.h"
#include "profile.h"
#include "tap.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct result {
	struct loop *loop;
	int calls;
	bool ok;
	size_t n_nodes, n_samples;
	char first_hot[64];
	char err[200];
	uint32_t func_of_node5;
};

static void on_done(void *ud, struct profile *p, const char *err)
{
	struct result *r = ud;

	r->calls++;
	r->ok = p != NULL;
	if (p) {
		r->n_nodes = p->n_nodes;
		r->n_samples = p->n_samples;
		r->func_of_node5 = p->n_nodes > 5 ? p->nodes[5].func : 0;
	} else {
		snprintf(r->err, sizeof r->err, "%s", err);
	}
	loop_stop(r->loop);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc(*len + 1);
	if (fread(buf, 1, *len, f) != *len) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

int main(void)
{
	struct result r = { 0 };
	char *cause = NULL, *json, *copy, *bad;
	size_t len;
	struct functab *ft_inline = functab_create(), *ft = functab_create();
	struct profile p;
	struct parsework *w;

	r.loop = loop_create(NULL, &cause);
	ok(r.loop != NULL, "event loop");
	json = read_file(SRCDIR "/tests/fixtures/profile-graph.json", &len);
	ok(json != NULL, "fixture read");
	if (!r.loop || !json)
		return done_testing();
	ok(profile_parse(json, len, ft_inline, &p, NULL) == 0, "inline parse");

	/* Some functions already in the session's table: the worker's must be mapped onto them. */
	functab_intern(ft, "already", 7, "file:///x.js", 12, 1, 2);
	w = parsework_create(r.loop, ft, on_done, &r);
	copy = xstrndup(json, len);
	ok(parsework_submit(w, copy, copy, len) == 0, "job submitted");
	ok(parsework_busy(w), "busy while the job runs");
	ok(parsework_submit(w, json, json, len) < 0, "a second job is refused while one runs");
	loop_run(r.loop);
	is_int(r.calls, 1, "done called once");
	ok(r.ok, "the profile came back");
	ok(!parsework_busy(w), "idle again");
	is_int(r.n_nodes, p.n_nodes, "same nodes as inline");
	is_int(r.n_samples, p.n_samples, "same samples as inline");
	{
		const struct func_info *a = functab_get(ft, r.func_of_node5);
		const struct func_info *b = functab_get(ft_inline, p.nodes[5].func);
		ok(a && b && strcmp(a->name, b->name) == 0 && strcmp(a->url, b->url) == 0 &&
			a->line == b->line, "node 5's function mapped into the session's table");
	}
	is_str(functab_get(ft, 0)->name, "already", "the table's earlier entries are kept");

	bad = xstrdup("{\"nodes\":[{\"id\":1,\"callFrame\":{}}]");
	ok(parsework_submit(w, bad, bad, strlen(bad)) == 0, "invalid job submitted");
	loop_run(r.loop);
	ok(!r.ok && r.err[0], "an invalid profile comes back as an error: %s", r.err);

	copy = xstrndup(json, len);
	ok(parsework_submit(w, copy, copy, len) == 0, "a job left running");
	r.calls = 0;
	parsework_free(w);
	is_int(r.calls, 0, "freeing the worker drops the running job's result");

	profile_release(&p);
	free(json);
	functab_free(ft);
	functab_free(ft_inline);
	loop_free(r.loop);
	return done_testing();
}
