/* Unit tests for smapcache: real scripts and maps (the tsc and esbuild fixtures) copied into a
 * temporary directory that plays the target's root; a lookup answers "pending" while the
 * worker loads the map and "mapped" after the notify and poll; failures are remembered with
 * their reason and not read again; the budget drops the least recently used map; a change of
 * reader does not wait for a hung load, whose answer is dropped. */
#include "config.h"

#include "smapcache.h"
#include "asuser.h"
#include "tap.h"
#include "fixture.h"
#include "util.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int pipe_fd[2], gate_fd[2];
static volatile bool gated;

/* Opens the gate from a signal: a test that would otherwise wait for ever ends (failing). */
static void on_alarm(int sig)
{
	char b = 1;
	(void)sig;
	if (write(gate_fd[1], &b, 1) < 0)
		return;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the loop's wake-up does: a byte down a pipe, from the worker. While gated, the worker
 * first waits for the test's byte, so the test sees the load in progress for sure. */
static void notify(void *ud)
{
	char b = 1;
	(void)ud;
	if (gated && read(gate_fd[0], &b, 1) != 1)
		perror("read");
	if (write(pipe_fd[1], &b, 1) < 0)
		perror("write");
}

/* Waits (up to 10 s) for the worker's byte, then polls, as the loop would. */
static bool wait_load(struct smapcache *c)
{
	struct pollfd p = { .fd = pipe_fd[0], .events = POLLIN };
	char b;

	if (poll(&p, 1, 10000) != 1 || read(pipe_fd[0], &b, 1) != 1)
		return false;
	return smapcache_poll(c);
}

static void copy_fixture(const char *dir, const char *name, const char *as)
{
	char path[512];
	size_t len;
	char *buf = fixture_read(name, &len);
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, as);
	f = fopen(path, "w");
	if (f && buf)
		fwrite(buf, 1, len, f);
	if (f)
		fclose(f);
	free(buf);
}

int main(void)
{
	char dir[] = "/tmp/ntop-smapcache-XXXXXX", path[512];
	struct smapcache_result r;
	struct smapcache_stats st;
	struct smapcache *c;
	enum smapcache_status s;

	signal(SIGALRM, on_alarm);
	if (!mkdtemp(dir) || pipe(pipe_fd) < 0 || pipe(gate_fd) < 0) {
		ok(0, "a temporary directory and a pipe");
		return done_testing();
	}
	snprintf(path, sizeof path, "%s/dist", dir);
	mkdir(path, 0700);
	copy_fixture(dir, "sourcemap/tsc-cjs/main.js", "dist/main.js");
	copy_fixture(dir, "sourcemap/tsc-cjs/main.js.map", "dist/main.js.map");
	copy_fixture(dir, "sourcemap/esbuild/bundle.min.js", "dist/bundle.min.js");
	copy_fixture(dir, "sourcemap/esbuild/bundle.min.js.map", "dist/bundle.min.js.map");
	copy_fixture(dir, "sourcemap/src/main.ts", "dist/plain.js"); /* no comment */

	char *err = NULL;
	struct asuser *reader = asuser_open_dir(dir, NULL, &err);
	ok(reader != NULL, "a reader of the directory%s%s", err ? ": " : "", err ? err : "");
	free(err);
	c = smapcache_create(reader, 64 << 20, notify, NULL);

	/* main.js line 7 (0-based 6) col 16: hotLoop's '(' */
	gated = true;
	s = smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	is_int(s, SMAPCACHE_PENDING, "the first lookup is pending");
	ok(smapcache_busy(c), "a load runs");
	is_int(smapcache_lookup(c, "/dist/main.js", 6, 16, &r), SMAPCACHE_PENDING,
		"the lookup is pending again while the worker is at it");
	char g = 1;
	ok(write(gate_fd[1], &g, 1) == 1, "the worker is let go");
	ok(wait_load(c), "the worker notifies, and the poll takes the map");
	gated = false;
	s = smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	is_int(s, SMAPCACHE_MAPPED, "then it is mapped");
	ok(s == SMAPCACHE_MAPPED && r.pos.line == 5 && !strcmp(r.pos.source_path, "../src/main.ts"),
		"to main.ts line 6");
	if (s == SMAPCACHE_MAPPED) {
		char name[32];
		ok(sourcemap_name_at(r.map, &r.pos, name, sizeof name) && !strcmp(name, "hotLoop"),
			"the map is there for the name");
	}
	s = smapcache_lookup(c, "file://" "/dist/./main.js", 6, 16, &r);
	is_int(s, SMAPCACHE_MAPPED, "the file:// url of the same script is the same entry");
	ok(!smapcache_busy(c), "nothing is read again for it");
	is_int(smapcache_lookup(c, "/dist/main.js", 0, 5, &r), SMAPCACHE_NONE,
		"a position the map does not cover: none");
	ok(r.reason && strstr(r.reason, "not in the source map"), "saying so");

	/* failures, remembered */
	is_int(smapcache_lookup(c, "node:internal/timers", 1, 1, &r), SMAPCACHE_NONE,
		"node:internal: none at once");
	ok(r.reason && strstr(r.reason, "not a file"), "reason: %s", r.reason ? r.reason : "");
	is_int(smapcache_lookup(c, "", 0, 0, &r), SMAPCACHE_NONE, "evaluated code (no url): none");
	ok(r.reason && strstr(r.reason, "no url"), "reason: %s", r.reason ? r.reason : "");
	is_int(smapcache_lookup(c, "/dist/plain.js", 1, 1, &r), SMAPCACHE_PENDING, "plain.js pending");
	ok(wait_load(c), "its load ends");
	is_int(smapcache_lookup(c, "/dist/plain.js", 1, 1, &r), SMAPCACHE_NONE, "no map");
	ok(r.reason && strstr(r.reason, "no sourceMappingURL"), "reason: %s",
		r.reason ? r.reason : "");
	is_int(smapcache_lookup(c, "/dist/missing.js", 1, 1, &r), SMAPCACHE_PENDING, "missing.js");
	ok(wait_load(c), "its load ends");
	is_int(smapcache_lookup(c, "/dist/missing.js", 1, 1, &r), SMAPCACHE_NONE, "a missing script");
	ok(r.reason && strstr(r.reason, "cannot open"), "reason: %s", r.reason ? r.reason : "");
	smapcache_get_stats(c, &st);
	unsigned long loads = st.loads;
	is_int(smapcache_lookup(c, "/dist/plain.js", 2, 2, &r), SMAPCACHE_NONE, "asked again: none");
	ok(!smapcache_busy(c), "and nothing is read again");
	smapcache_get_stats(c, &st);
	is_int(st.loads, loads, "no load started");
	is_int(st.maps, 1, "one map held");
	is_int(st.failures, 4, "four failures remembered");
	smapcache_free(c);

	/* the budget: room for the bundle's map or main.js's, not both */
	/* the minified bundle is one line: hotLoop's '(' is after the last "function " before
	 * its Math.sqrt */
	size_t blen;
	char *bundle = fixture_read_text("sourcemap/esbuild/bundle.min.js", &blen);
	uint32_t hot_col = 0;
	if (bundle && strstr(bundle, "Math.sqrt(")) {
		const char *m = strstr(bundle, "Math.sqrt("), *f = NULL, *q = bundle;
		while ((q = strstr(q, "function ")) && q < m)
			f = q++;
		hot_col = f ? (uint32_t)(strchr(f, '(') - bundle) : 0;
	}
	free(bundle);
	/* each map's size, measured alone; the budget then holds either but not both */
	size_t one, two, budget;
	c = smapcache_create(reader, 1 << 20, notify, NULL);
	smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	wait_load(c);
	smapcache_get_stats(c, &st);
	one = st.bytes;
	smapcache_lookup(c, "/dist/bundle.min.js", 0, 100, &r);
	wait_load(c);
	smapcache_get_stats(c, &st);
	two = st.bytes - one;
	ok(one > 0 && two > 0 && st.maps == 2, "main.js's map takes %zu bytes, the bundle's %zu",
		one, two);
	smapcache_free(c);
	budget = (one > two ? one : two) + (one < two ? one : two) / 2;
	c = smapcache_create(reader, budget, notify, NULL);
	smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	wait_load(c);
	smapcache_lookup(c, "/dist/bundle.min.js", 0, 100, &r);
	wait_load(c);
	s = smapcache_lookup(c, "/dist/bundle.min.js", 0, hot_col, &r);
	is_int(s, SMAPCACHE_MAPPED, "the bundle is mapped");
	is_str(s == SMAPCACHE_MAPPED ? r.pos.name : NULL, "hotLoop", "its minified hotLoop named");
	smapcache_get_stats(c, &st);
	ok(st.maps == 1 && st.evictions == 1 && st.bytes <= budget,
		"main.js's map was dropped for it within a budget of %zu (%lu held, %zu bytes)", budget,
		st.maps, st.bytes);
	is_int(smapcache_lookup(c, "/dist/main.js", 6, 16, &r), SMAPCACHE_PENDING,
		"main.js is loaded again when asked for");
	ok(wait_load(c), "loaded");
	smapcache_free(c);

	/* a map larger than the whole budget is a failure with its reason, not a loop */
	c = smapcache_create(reader, 100, notify, NULL);
	smapcache_lookup(c, "/dist/bundle.min.js", 0, 100, &r);
	wait_load(c);
	is_int(smapcache_lookup(c, "/dist/bundle.min.js", 0, 100, &r), SMAPCACHE_NONE,
		"a map over the budget: none");
	ok(r.reason && strstr(r.reason, "more than"), "reason: %s", r.reason ? r.reason : "");
	/* freed with a load in flight: it waits for it */
	smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	smapcache_free(c);
	ok(1, "freed while a load runs");
	smapcache_free(NULL);

	/* a file's text, for the hot lines: loaded off the loop too, remembered */
	c = smapcache_create(reader, 1 << 20, notify, NULL);
	const char *text, *why;
	size_t tlen;
	is_int(smapcache_text(c, "/dist/plain.js", &text, &tlen, &why), SMAPCACHE_PENDING,
		"a file's text is pending first");
	/* (a byte of the load freed above may still be in the pipe) */
	for (int i = 0; i < 3 && smapcache_busy(c); i++)
		wait_load(c);
	ok(!smapcache_busy(c), "loaded");
	ok(smapcache_text(c, "/dist/plain.js", &text, &tlen, &why) == SMAPCACHE_MAPPED &&
		tlen > 0 && text[tlen] == '\0', "then it is there (%zu bytes)", tlen);
	smapcache_text(c, "/dist/missing.js", &text, &tlen, &why);
	for (int i = 0; i < 3 && smapcache_busy(c); i++)
		wait_load(c);
	ok(smapcache_text(c, "/dist/missing.js", &text, &tlen, &why) == SMAPCACHE_NONE && why &&
		strstr(why, "cannot open"), "a missing file: none, saying why (%s)", why ? why : "");
	/* another reader (--follow's next process): nothing read through the last one stays */
	struct asuser *other = asuser_open_dir(dir, NULL, &err);
	smapcache_lookup(c, "/dist/main.js", 6, 16, &r); /* in flight while the reader changes */
	smapcache_set_reader(c, other);
	is_int(smapcache_text(c, "/dist/plain.js", &text, &tlen, &why), SMAPCACHE_PENDING,
		"after the reader changes, a text is read again");
	for (int i = 0; i < 3 && smapcache_busy(c); i++)
		wait_load(c);
	is_int(smapcache_lookup(c, "/dist/main.js", 6, 16, &r), SMAPCACHE_MAPPED,
		"and the map that was loading is loaded again, and mapped");
	smapcache_free(c);
	asuser_free(other);

	/* --follow's next process while a load hangs: the reader changes at once (the loop is not
	 * held), the last reader may be freed, and the hung load's answer, read as the last
	 * process, is dropped: the next process's root has no /dist/main.js */
	char empty[] = "/tmp/ntop-smapcache-next-XXXXXX";
	struct asuser *last = asuser_open_dir(dir, NULL, &err);
	struct asuser *next = mkdtemp(empty) ? asuser_open_dir(empty, NULL, &err) : NULL;
	ok(last && next, "readers of two roots");
	c = smapcache_create(last, 1 << 20, notify, NULL);
	gated = true;
	is_int(smapcache_lookup(c, "/dist/main.js", 6, 16, &r), SMAPCACHE_PENDING,
		"a load runs, and hangs");
	double t0 = now_s();
	alarm(3); /* a join would wait for the gate: the alarm opens it */
	smapcache_set_reader(c, next);
	double took = now_s() - t0;
	asuser_free(last);
	ok(took < 1.0, "the reader changes without waiting for the hung load (%.2f s)", took);
	ok(write(gate_fd[1], &g, 1) == 1 || took >= 1.0, "the hung load ends");
	alarm(0);
	gated = false;
	for (int i = 0; i < 3 && smapcache_busy(c); i++)
		wait_load(c);
	ok(!smapcache_busy(c), "the loads are over");
	s = smapcache_lookup(c, "/dist/main.js", 6, 16, &r);
	ok(s == SMAPCACHE_NONE && r.reason && strstr(r.reason, "cannot open"),
		"what the hung load read as the last process is dropped: read again, as the next "
		"(%s)", s == SMAPCACHE_MAPPED ? "mapped" : r.reason ? r.reason : "pending");
	smapcache_free(c);
	asuser_free(next);
	rmdir(empty);
	asuser_free(reader);

	/* clean up */
	const char *names[] = { "dist/main.js", "dist/main.js.map", "dist/bundle.min.js",
		"dist/bundle.min.js.map", "dist/plain.js", "dist" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (unlink(path) < 0)
			rmdir(path);
	}
	rmdir(dir);
	close(pipe_fd[0]);
	close(pipe_fd[1]);
	close(gate_fd[0]);
	close(gate_fd[1]);
	return done_testing();
}
