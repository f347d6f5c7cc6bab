/* test_blockscan: blocked-loop candidates from samples, their stacks, and their confirmation by
 * the loop's delay readings. Profiles are built as the protocol's JSON and parsed for real. */
#include "config.h"

#include "blockscan.h"
#include "functab.h"
#include "profile.h"
#include "strbuf.h"
#include "tap.h"

#include <stdlib.h>

/* Node ids: 1 (root) -> 2 (program), 3 (idle), 4 (garbage collector), 5 processTimers ->
 * 6 listOnTimeout -> 7 blockHere -> 8 spin; 5 -> 9 other; 1 -> 10 processImmediate -> 11 step
 * -> 12 spin; 10 -> 13 a, 14 b, 15 c. */
enum { ROOT = 1, PROG, IDLE, GC, TIMERS, LISTON, BLOCK, SPIN, OTHER, IMM, STEP, SPIN2, A, B, C };

static const char nodes_json[] =
	"\"nodes\":["
	"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\",\"scriptId\":\"0\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3,4,5,10]},"
	"{\"id\":2,\"callFrame\":{\"functionName\":\"(program)\",\"url\":\"\",\"scriptId\":\"0\",\"lineNumber\":-1,\"columnNumber\":-1}},"
	"{\"id\":3,\"callFrame\":{\"functionName\":\"(idle)\",\"url\":\"\",\"scriptId\":\"0\",\"lineNumber\":-1,\"columnNumber\":-1}},"
	"{\"id\":4,\"callFrame\":{\"functionName\":\"(garbage collector)\",\"url\":\"\",\"scriptId\":\"0\",\"lineNumber\":-1,\"columnNumber\":-1}},"
	"{\"id\":5,\"callFrame\":{\"functionName\":\"processTimers\",\"url\":\"node:internal/timers\",\"scriptId\":\"1\",\"lineNumber\":500,\"columnNumber\":0},\"children\":[6,9]},"
	"{\"id\":6,\"callFrame\":{\"functionName\":\"listOnTimeout\",\"url\":\"node:internal/timers\",\"scriptId\":\"1\",\"lineNumber\":520,\"columnNumber\":0},\"children\":[7]},"
	"{\"id\":7,\"callFrame\":{\"functionName\":\"blockHere\",\"url\":\"file:///app/loop.js\",\"scriptId\":\"2\",\"lineNumber\":14,\"columnNumber\":0},\"children\":[8]},"
	"{\"id\":8,\"callFrame\":{\"functionName\":\"spin\",\"url\":\"file:///app/loop.js\",\"scriptId\":\"2\",\"lineNumber\":8,\"columnNumber\":0}},"
	"{\"id\":9,\"callFrame\":{\"functionName\":\"other\",\"url\":\"file:///app/loop.js\",\"scriptId\":\"2\",\"lineNumber\":30,\"columnNumber\":0}},"
	"{\"id\":10,\"callFrame\":{\"functionName\":\"processImmediate\",\"url\":\"node:internal/timers\",\"scriptId\":\"1\",\"lineNumber\":400,\"columnNumber\":0},\"children\":[11,13,14,15]},"
	"{\"id\":11,\"callFrame\":{\"functionName\":\"step\",\"url\":\"file:///app/loop.js\",\"scriptId\":\"2\",\"lineNumber\":20,\"columnNumber\":0},\"children\":[12]},"
	"{\"id\":12,\"callFrame\":{\"functionName\":\"spin\",\"url\":\"file:///app/loop.js\",\"scriptId\":\"2\",\"lineNumber\":8,\"columnNumber\":0}},"
	"{\"id\":13,\"callFrame\":{\"functionName\":\"a\",\"url\":\"file:///app/x.js\",\"scriptId\":\"3\",\"lineNumber\":1,\"columnNumber\":0}},"
	"{\"id\":14,\"callFrame\":{\"functionName\":\"b\",\"url\":\"file:///app/x.js\",\"scriptId\":\"3\",\"lineNumber\":2,\"columnNumber\":0}},"
	"{\"id\":15,\"callFrame\":{\"functionName\":\"c\",\"url\":\"file:///app/x.js\",\"scriptId\":\"3\",\"lineNumber\":3,\"columnNumber\":0}}]";

/* A profile from a list of (node id, count) runs, starting at start_us; each sample of run i
 * comes delta_ms[i] after the one before (1 ms without delta_ms). */
struct run {
	int node, count;
};

static int parse_timed_runs(struct functab *ft, struct profile *p, double start_us,
	const struct run *runs, size_t n_runs, const int *delta_ms)
{
	struct strbuf sb;
	double total_ms = 0;
	int r;

	strbuf_init(&sb);
	for (size_t i = 0; i < n_runs; i++)
		total_ms += (double)runs[i].count * (delta_ms ? delta_ms[i] : 1);
	strbuf_printf(&sb, "{%s,\"startTime\":%.0f,\"endTime\":%.0f,\"samples\":[", nodes_json,
		start_us, start_us + 1000.0 * total_ms);
	for (size_t i = 0, k = 0; i < n_runs; i++)
		for (int j = 0; j < runs[i].count; j++, k++)
			strbuf_printf(&sb, "%s%d", k ? "," : "", runs[i].node);
	strbuf_puts(&sb, "],\"timeDeltas\":[");
	for (size_t i = 0, k = 0; i < n_runs; i++)
		for (int j = 0; j < runs[i].count; j++, k++)
			strbuf_printf(&sb, "%s%d", k ? "," : "", 1000 * (delta_ms ? delta_ms[i] : 1));
	strbuf_puts(&sb, "]}");
	r = profile_parse(sb.data, sb.len, ft, p, NULL);
	strbuf_free(&sb);
	return r;
}

static int parse_runs(struct functab *ft, struct profile *p, double start_us,
	const struct run *runs, size_t n_runs)
{
	return parse_timed_runs(ft, p, start_us, runs, n_runs, NULL);
}

#define T0 5e9

/* Parses a timed profile (parse_timed_runs), feeds it with trim_us, and releases it; returns
 * what the parse returned. */
static int feed_timed_runs(struct blockscan *b, struct functab *ft, double start_us,
	const struct run *runs, size_t n_runs, const int *delta_ms, double trim_us)
{
	struct profile p;
	int r = parse_timed_runs(ft, &p, start_us, runs, n_runs, delta_ms);

	if (r == 0)
		blockscan_feed(b, &p, ft, trim_us);
	profile_release(&p);
	return r;
}

/* 150 ms of a task, a hole of hole_ms with no sample, then 150 ms more of it: two profiles. */
static void feed_across_hole(struct blockscan *b, struct functab *ft, double hole_ms)
{
	const struct run before[] = { { IDLE, 10 }, { SPIN, 150 } }, after[] = { { SPIN, 150 },
		{ IDLE, 5 } };

	blockscan_reset(b);
	feed_timed_runs(b, ft, T0, before, 2, NULL, -INFINITY);
	feed_timed_runs(b, ft, T0 + (160.0 + hole_ms) * 1e3, after, 2, NULL, -INFINITY);
}

static const char *frame(const struct functab *ft, const struct evloop_block *k, size_t i)
{
	return i < k->depth ? functab_get(ft, k->stack[i])->name : "(none)";
}


static void test_one_block(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	/* idle, then a 300 ms timer task with three GC samples in it, then idle */
	const struct run runs[] = { { IDLE, 50 }, { SPIN, 100 }, { GC, 1 }, { SPIN, 100 },
		{ GC, 2 }, { BLOCK, 10 }, { SPIN, 87 }, { IDLE, 50 } };

	ok(parse_runs(ft, &p, T0, runs, sizeof runs / sizeof *runs) == 0, "the profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 1, "one 300 ms stretch: one candidate");
	is_int(blockscan_confirm(b, T0, T0 + 400e3, 295, 10, out, 8), 1,
		"a reading over it with a 295 ms delay confirms it");
	is_num(out[0].busy_ms, 300, 0.01, "it lasted 300 ms of samples");
	is_num(out[0].end_us - out[0].start_us, 300e3, 0.01, "from its first sample's start to its last");
	is_num(out[0].start_us, T0 + 50e3, 0.01, "starting when the loop stopped idling");
	is_int(out[0].depth, 4, "its stack is four frames deep");
	ok(strcmp(frame(ft, &out[0], 0), "processTimers") == 0 &&
		strcmp(frame(ft, &out[0], 1), "listOnTimeout") == 0 &&
		strcmp(frame(ft, &out[0], 2), "blockHere") == 0 &&
		strcmp(frame(ft, &out[0], 3), "spin") == 0,
		"processTimers > listOnTimeout > blockHere > spin");
	is_num(out[0].share, 287.0 / 300, 1e-9, "spin holds its share of the stretch");
	is_num(out[0].lag_ms, 295, 0, "with the delay that confirmed it");
	is_int(blockscan_pending(b), 0, "and nothing waits");
	profile_release(&p);
	blockscan_free(b);
	functab_free(ft);
}

static void test_short_and_split(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	/* 99 ms tasks, and 75 ms ones of other tasks between (program) samples: no candidate */
	const struct run runs[] = { { SPIN, 99 }, { IDLE, 5 }, { SPIN, 99 }, { PROG, 1 },
		{ SPIN2, 75 }, { PROG, 1 }, { SPIN, 75 }, { IDLE, 1 } };
	const struct run ends_busy[] = { { IDLE, 10 }, { SPIN, 80 } };
	const struct run starts_busy[] = { { SPIN, 80 }, { IDLE, 10 } };

	parse_runs(ft, &p, T0, runs, sizeof runs / sizeof *runs);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 0, "stretches under 100 ms, or split by the loop: none");
	profile_release(&p);

	/* a stretch that runs from one profile into the next is one */
	parse_runs(ft, &p, T0 + 1e6, ends_busy, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 0, "a stretch still running at a profile's end waits");
	profile_release(&p);
	parse_runs(ft, &p, T0 + 1e6 + 90e3, starts_busy, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 1, "and goes on in the next profile: one 160 ms candidate");
	profile_release(&p);

	/* ...but not across a gap: the loop may have run in between */
	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 2e6, ends_busy, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	parse_runs(ft, &p, T0 + 2e6 + 150e3, starts_busy, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 0, "two 80 ms pieces 60 ms apart are not one");
	profile_release(&p);

	/* samples before the trim point belong to the previous window */
	blockscan_reset(b);
	{
		const struct run r2[] = { { SPIN, 150 }, { IDLE, 10 } };
		parse_runs(ft, &p, T0 + 3e6, r2, 2);
		blockscan_feed(b, &p, ft, T0 + 3e6 + 60e3);
		is_int(blockscan_pending(b), 0, "trimmed: only 90 ms of it is this window's");
		profile_release(&p);
	}
	blockscan_free(b);
	functab_free(ft);
}

static void test_confirm(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	/* a saturated loop: 5 ms immediates back to back look like one 400 ms stretch */
	const struct run sat[] = { { IDLE, 1 }, { STEP, 40 }, { SPIN2, 360 }, { IDLE, 1 } };

	parse_runs(ft, &p, T0, sat, 4);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 1, "back-to-back short tasks make a candidate");
	is_int(blockscan_confirm(b, T0, T0 + 500e3, 12, 10, out, 8), 0,
		"which a reading whose longest delay was 12 ms does not confirm");
	is_int(blockscan_pending(b), 1, "it waits for the next reading (the delay may come late)");
	is_int(blockscan_confirm(b, T0 + 500e3, T0 + 1000e3, 15, 10, out, 8), 0, "nor the next");
	is_int(blockscan_confirm(b, T0 + 1500e3, T0 + 3000e3, 15, 10, out, 8), 0,
		"a reading that starts over a second after it...");
	is_int(blockscan_pending(b), 0, "...drops it");
	profile_release(&p);

	/* the delay recorded in the reading after the one the block ended in */
	{
		const struct run r[] = { { IDLE, 10 }, { SPIN, 200 }, { IDLE, 10 } };
		parse_runs(ft, &p, T0 + 10e6, r, 3);
		blockscan_feed(b, &p, ft, -INFINITY);
		is_int(blockscan_confirm(b, T0 + 9e6, T0 + 10e6 + 215e3, 3, 10, out, 8), 0,
			"a reading that ended just after the block, before the delay was recorded");
		is_int(blockscan_confirm(b, T0 + 10e6 + 215e3, T0 + 11e6, 198, 10, out, 8), 1,
			"the next one confirms it");
		is_num(out[0].busy_ms, 200, 0.01, "200 ms");
		profile_release(&p);
	}
	/* a candidate still waiting is not confirmed by a reading that ended before it */
	{
		const struct run r[] = { { IDLE, 10 }, { SPIN, 200 }, { IDLE, 10 } };
		parse_runs(ft, &p, T0 + 20e6, r, 3);
		blockscan_feed(b, &p, ft, -INFINITY);
		is_int(blockscan_confirm(b, T0 + 19e6, T0 + 20e6, 500, 10, out, 8), 0,
			"a reading over the time before it does not confirm it");
		is_int(blockscan_pending(b), 1, "it still waits");
		is_int(blockscan_confirm(b, T0 + 20e6, T0 + 21e6, NAN, 10, out, 8), 0,
			"a reading without delays (NAN) confirms nothing");
		profile_release(&p);
	}
	/* more confirmed than the caller takes: the rest wait for the next reading */
	{
		struct run r[41];
		size_t got;

		blockscan_reset(b);
		for (int i = 0; i < 20; i++) {
			r[2 * i] = (struct run){ IDLE, 5 };
			r[2 * i + 1] = (struct run){ SPIN, 120 };
		}
		r[40] = (struct run){ IDLE, 5 };
		parse_runs(ft, &p, T0 + 30e6, r, 41);
		blockscan_feed(b, &p, ft, -INFINITY);
		is_int(blockscan_pending(b), 20, "twenty 120 ms tasks: twenty candidates");
		got = blockscan_confirm(b, T0 + 30e6, T0 + 33e6, 150, 10, out, 8);
		is_int(got, 8, "a caller with room for 8 gets 8");
		is_int(blockscan_pending(b), 12, "the other 12 wait");
		is_int(blockscan_confirm(b, T0 + 31.5e6, T0 + 34e6, 20, 10, out, 8), 0,
			"a next reading without a long delay does not confirm them");
		is_int(blockscan_confirm(b, T0 + 31.5e6, T0 + 34e6, 150, 10, out, 8), 8,
			"one with it does, 8 more");
		profile_release(&p);
	}
	blockscan_free(b);
	functab_free(ft);
}

static void test_dominant(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	/* a task whose time is spread over three callees: the stack stops above them */
	const struct run spread[] = { { IDLE, 1 }, { A, 100 }, { B, 100 }, { C, 100 }, { IDLE, 1 } };
	const struct run gc[] = { { IDLE, 5 }, { GC, 150 }, { IDLE, 5 } };
	const struct run alloc[] = { { IDLE, 5 }, { SPIN, 50 }, { GC, 80 }, { SPIN, 20 }, { IDLE, 5 } };

	parse_runs(ft, &p, T0, spread, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	blockscan_confirm(b, T0, T0 + 400e3, 300, 10, out, 8);
	ok(out[0].depth == 1 && strcmp(frame(ft, &out[0], 0), "processImmediate") == 0,
		"time spread over three callees: the stack ends at their caller (%s)", frame(ft, &out[0], 0));
	is_num(out[0].share, 1, 1e-9, "which holds all of it");
	profile_release(&p);

	/* a long collection is a block too */
	parse_runs(ft, &p, T0 + 1e6, gc, 3);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 + 1e6, T0 + 2e6, 150, 10, out, 8), 1, "a 150 ms collection");
	is_str(frame(ft, &out[0], 0), "(garbage collector)", "is blamed on the collector");
	profile_release(&p);

	/* a task that allocates: its collections (more than half of the samples, as a coarse
	 * sampler can catch) do not move the block to its caller */
	parse_runs(ft, &p, T0 + 3e6, alloc, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 + 3e6, T0 + 4e6, 150, 10, out, 8), 1, "a task with collections");
	ok(out[0].depth == 4 && strcmp(frame(ft, &out[0], 3), "spin") == 0,
		"is blamed on its own function, not on its caller (%s)",
		out[0].depth ? frame(ft, &out[0], out[0].depth - 1) : "none");
	is_num(out[0].share, 70.0 / 150, 1e-9, "whose share is of the whole stretch");
	profile_release(&p);
	blockscan_free(b);
	functab_free(ft);
}

/* A recursion 5,000 frames deep: the stack is cut at BLOCK_MAX_DEPTH frames, nothing breaks. */
static void test_deep(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[2];
	struct strbuf sb;
	const int depth = 5000;

	strbuf_init(&sb);
	strbuf_puts(&sb, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
		"\"scriptId\":\"0\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"(idle)\",\"url\":\"\",\"scriptId\":\"0\","
		"\"lineNumber\":-1,\"columnNumber\":-1}}");
	for (int i = 3; i < 3 + depth; i++) {
		strbuf_printf(&sb, ",{\"id\":%d,\"callFrame\":{\"functionName\":\"r\",\"url\":"
			"\"file:///r.js\",\"scriptId\":\"9\",\"lineNumber\":1,\"columnNumber\":0}", i);
		if (i + 1 < 3 + depth)
			strbuf_printf(&sb, ",\"children\":[%d]", i + 1);
		strbuf_putc(&sb, '}');
	}
	strbuf_printf(&sb, "],\"startTime\":%.0f,\"endTime\":%.0f,\"samples\":[2", T0, T0 + 202e3);
	for (int i = 0; i < 200; i++)
		strbuf_printf(&sb, ",%d", 3 + depth - 1 - (i % 3));
	strbuf_puts(&sb, ",2],\"timeDeltas\":[1000");
	for (int i = 0; i < 201; i++)
		strbuf_puts(&sb, ",1000");
	strbuf_puts(&sb, "]}");
	ok(profile_parse(sb.data, sb.len, ft, &p, NULL) == 0, "a 5,000-deep profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0, T0 + 300e3, 200, 10, out, 2), 1, "its 200 ms stretch is a block");
	is_int(out[0].depth, BLOCK_MAX_DEPTH, "its stack is cut at %d frames", BLOCK_MAX_DEPTH);
	profile_release(&p);
	strbuf_free(&sb);
	blockscan_free(b);
	functab_free(ft);
}

/* The reading that saw a block's delay can come in before the profile that holds the block's
 * end (a large profile is parsed on a worker; a block that straddles a window ends in the next
 * profile): the block is still one, and confirmed once found. */
static void test_reading_first(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	/* 40 ms of the block at the end of one window's profile, 260 ms in the next */
	const struct run head[] = { { IDLE, 500 }, { SPIN, 40 } };
	const struct run tail[] = { { SPIN, 260 }, { IDLE, 700 } };

	parse_runs(ft, &p, T0, head, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_confirm(b, T0, T0 + 540e3, 2, 10, out, 8), 0, "the first window's reading: "
		"nothing yet");
	/* the next reading, taken at the loop's first turn after the block, comes in first */
	is_int(blockscan_confirm(b, T0 + 540e3, T0 + 810e3, 296, 10, out, 8), 0,
		"the reading that saw the 296 ms delay comes in before the block's profile: nothing yet");
	is_int(blockscan_take(b, out, 8), 0, "nothing to take");
	parse_runs(ft, &p, T0 + 540e3, tail, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_pending(b), 0, "then the profile: no candidate left waiting");
	is_int(blockscan_take(b, out, 8), 1, "one block, confirmed when found");
	is_num(evloop_block_ms(&out[0]), 300, 0.01, "300 ms, across the two profiles");
	is_num(out[0].lag_ms, 296, 0, "with the delay of the reading that came first");
	is_int(blockscan_take(b, out, 8), 0, "taken once");
	is_int(blockscan_confirm(b, T0 + 810e3, T0 + 1810e3, 3, 10, out, 8), 0,
		"and the next reading gives it no second time");

	/* a later candidate is not confirmed by an older reading's delay */
	parse_runs(ft, &p, T0 + 1810e3, (const struct run[]){ { IDLE, 190 }, { SPIN, 150 },
		{ IDLE, 10 } }, 3);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_take(b, out, 8) + blockscan_pending(b), 1,
		"a stretch after that reading's span waits for its own reading");
	is_int(blockscan_confirm(b, T0 + 1810e3, T0 + 2810e3, 4, 10, out, 8), 0,
		"which saw no delay: not a block");

	/* a stretch already running when the samples begin: its start, so its length, unknown */
	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 5e6, (const struct run[]){ { SPIN, 150 }, { IDLE, 10 } }, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_pending(b), 0, "the first profile begins in a task: no candidate");
	parse_runs(ft, &p, T0 + 6e6, (const struct run[]){ { SPIN, 150 }, { IDLE, 10 } }, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_pending(b), 0, "nor one that begins 840 ms after the last (a gap)");
	parse_runs(ft, &p, T0 + 6160e3, (const struct run[]){ { SPIN, 150 }, { IDLE, 10 } }, 2);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_pending(b), 1, "one that follows on from the last: its start was seen");
	blockscan_free(b);
	functab_free(ft);
}

/* The inspector answering a reading in the middle of a task shows as (program) samples: the
 * task goes on after them, and its block is one, if the loop's delay says that the loop did
 * not turn there. */
static void test_program_inside(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	const struct run cut[] = { { IDLE, 10 }, { SPIN, 150 }, { PROG, 3 }, { SPIN, 147 },
		{ IDLE, 10 } };
	const struct run halves[] = { { IDLE, 10 }, { SPIN, 75 }, { PROG, 2 }, { SPIN, 75 },
		{ IDLE, 10 } };
	const struct run long_prog[] = { { IDLE, 10 }, { SPIN, 150 }, { PROG, 60 }, { SPIN, 150 },
		{ IDLE, 10 } };

	parse_runs(ft, &p, T0, cut, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 1, "a task cut by 3 ms of (program): one candidate");
	is_int(blockscan_confirm(b, T0, T0 + 400e3, 296, 10, out, 8), 1,
		"a 296 ms delay (the loop did not turn in the (program) run) confirms it...");
	is_num(evloop_block_ms(&out[0]), 300, 0.01, "...as one 300 ms block");
	is_num(out[0].busy_ms, 297, 0.01, "of 297 ms of JavaScript samples");
	ok(out[0].depth == 4 && strcmp(frame(ft, &out[0], 3), "spin") == 0, "under spin");
	profile_release(&p);

	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 1e6, cut, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 + 1e6, T0 + 1.4e6, 148, 10, out, 8), 2,
		"a 148 ms delay: the loop may have turned there, so its parts are blocks of their own");
	is_num(evloop_block_ms(&out[0]), 150, 0.01, "the first, 150 ms");
	is_num(out[0].start_us, T0 + 1e6 + 10e3, 0.01, "from the task's start");
	is_num(evloop_block_ms(&out[1]), 147, 0.01, "the second, 147 ms");
	ok(!out[0].joined && !out[1].joined && out[1].lag_ms == 148, "neither joined, both confirmed");
	is_int(blockscan_pending(b), 0, "nothing waits");
	profile_release(&p);

	/* the proof is the timer's period: a slower timer may have ticked up to that much late,
	 * so a 165 ms delay passes the 150 ms part by a 10 ms timer's, not by a 20 ms one's */
	for (int timer_ms = 10; timer_ms <= 20; timer_ms += 10) {
		blockscan_reset(b);
		parse_runs(ft, &p, T0 + 1.5e6, cut, 5);
		blockscan_feed(b, &p, ft, -INFINITY);
		is_int(blockscan_confirm(b, T0 + 1.5e6, T0 + 1.9e6, 165, timer_ms, out, 8),
			timer_ms == 10 ? 1 : 2, "a 165 ms delay from a %d ms timer: %s", timer_ms,
			timer_ms == 10 ? "one block" : "its parts stand alone");
		profile_release(&p);
	}

	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 2e6, halves, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 + 2e6, T0 + 2.4e6, 76, 10, out, 8), 0,
		"two 75 ms parts and a 76 ms delay: two tasks, neither a block");
	is_int(blockscan_confirm(b, T0 + 2.4e6, T0 + 2.8e6, 145, 10, out, 8), 1,
		"a 145 ms delay (more than either part could cause): one block");
	is_num(evloop_block_ms(&out[0]), 152, 0.01, "of 152 ms");
	profile_release(&p);

	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 3e6, long_prog, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_pending(b), 2, "60 ms of (program) ends the stretch: two candidates");
	profile_release(&p);

	/* a joined one whose readings came first: split at once */
	blockscan_reset(b);
	is_int(blockscan_confirm(b, T0 + 3.5e6, T0 + 3.9e6, 149, 10, out, 8), 0, "a reading first");
	parse_runs(ft, &p, T0 + 3.5e6, cut, 5);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_take(b, out, 8), 2, "then the profile: its two parts, confirmed");

	/* the (program) run across two profiles */
	blockscan_reset(b);
	parse_runs(ft, &p, T0 + 4e6, (const struct run[]){ { IDLE, 10 }, { SPIN, 120 },
		{ PROG, 2 } }, 3);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	parse_runs(ft, &p, T0 + 4e6 + 132e3, (const struct run[]){ { PROG, 1 }, { SPIN, 100 },
		{ IDLE, 5 } }, 3);
	blockscan_feed(b, &p, ft, -INFINITY);
	profile_release(&p);
	is_int(blockscan_confirm(b, T0 + 4e6, T0 + 4.4e6, 220, 10, out, 8), 1,
		"a (program) run across two profiles: one block");
	is_num(evloop_block_ms(&out[0]), 223, 0.01, "of 223 ms");
	blockscan_free(b);
	functab_free(ft);
}

/* A sampler that ran late: at 20 ms sampling, the first sample of a 300 ms task came 70 ms
 * after the idle one before it (a loaded machine). The task began somewhere in that gap; the
 * stretch counts from one interval before its first sample, not from the gap's start. So
 * does a part after a (program) run. */
static void test_late_sampler(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 20000);
	struct profile p;
	struct evloop_block out[8];
	/* idle every 20 ms, spin 70 ms later, then every 20 ms for 300 ms */
	const struct run runs[] = { { IDLE, 5 }, { SPIN, 1 }, { SPIN, 15 }, { IDLE, 5 } };
	const int delta_ms[] = { 20, 70, 20, 20 };

	ok(parse_timed_runs(ft, &p, T0, runs, sizeof runs / sizeof *runs, delta_ms) == 0,
		"the late sampler's profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0, T0 + 800e3, 300, 20, out, 8), 1,
		"its 300 ms task is one candidate, confirmed by a 300 ms delay");
	is_num(evloop_block_ms(&out[0]), 320, 0.01,
		"it lasted from one interval before its first sample to its last: 320 ms, not 370");
	is_num(out[0].start_us, T0 + (100 + 50) * 1e3, 0.01, "starting 20 ms before its first sample");
	is_num(out[0].busy_ms, 320, 0.01, "and its first sample counts 20 ms of its time");
	profile_release(&p);
	blockscan_free(b);
	functab_free(ft);
}

/* A reading is taken at a turn of the loop, so one taken inside a stretch cuts it: the samples
 * may run on through the tasks around it (the reading's own code among them, slow on a loaded
 * machine) with no idle sample between. The longer side is the block: before the reading,
 * which then confirms it, or after it, for a later reading to confirm; a side shorter than the
 * threshold is none. */
static void test_reading_inside(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	const struct run tail[] = { { IDLE, 50 }, { SPIN, 300 }, { OTHER, 40 }, { IDLE, 50 } };
	const struct run after[] = { { IDLE, 50 }, { SPIN, 250 }, { IDLE, 50 } };
	const struct run short_after[] = { { IDLE, 50 }, { SPIN, 150 }, { IDLE, 50 } };

	ok(parse_runs(ft, &p, T0, tail, sizeof tail / sizeof *tail) == 0, "the profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 - 600e3, T0 + 360e3, 295, 10, out, 8), 1,
		"a reading taken 10 ms into the 40 ms after a 300 ms block confirms it");
	is_num(out[0].end_us, T0 + 360e3, 0.01, "which ends at the reading");
	is_num(evloop_block_ms(&out[0]), 305, 0.01,
		"305 ms (its 295 ms delay and the timer's 10 ms period at most), not the 340 of its samples");
	profile_release(&p);
	blockscan_free(b);

	b = blockscan_create(100, 1000);
	ok(parse_runs(ft, &p, T0, after, sizeof after / sizeof *after) == 0, "the profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 - 900e3, T0 + 110e3, 295, 10, out, 8), 0,
		"a reading 60 ms into a 250 ms stretch (with an earlier block's delay) does not confirm it");
	is_int(blockscan_confirm(b, T0 + 110e3, T0 + 400e3, 185, 10, out, 8), 1,
		"the next reading does");
	is_num(out[0].start_us, T0 + 110e3, 0.01, "from the first reading on");
	is_num(evloop_block_ms(&out[0]), 190, 0.01, "190 ms");
	profile_release(&p);
	blockscan_free(b);

	b = blockscan_create(100, 1000);
	ok(parse_runs(ft, &p, T0, short_after, sizeof short_after / sizeof *short_after) == 0,
		"the profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0 - 900e3, T0 + 110e3, 295, 10, out, 8), 0,
		"a reading 60 ms into a 150 ms stretch leaves 90 ms after it");
	is_int(blockscan_pending(b), 0, "which is no block");
	profile_release(&p);
	blockscan_free(b);
	functab_free(ft);
}

/* A block held the loop for at most its delay and one period of the loop's timer: samples
 * that make it longer ran before it, a task just before with no idle sample between (a 454 ms
 * block with a 442 ms delay read 543 ms at 20 ms sampling on a loaded machine). Its end, where
 * the delay was recorded, stays. */
static void test_delay_bounds(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct profile p;
	struct evloop_block out[8];
	const struct run runs[] = { { IDLE, 50 }, { OTHER, 96 }, { SPIN, 454 }, { IDLE, 50 } };

	ok(parse_runs(ft, &p, T0, runs, sizeof runs / sizeof *runs) == 0, "the profile parses");
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0, T0 + 1e6, 442, 20, out, 8), 1,
		"a 550 ms stretch confirmed by a 442 ms delay from a 20 ms timer");
	is_num(evloop_block_ms(&out[0]), 462, 0.01, "lasted 462 ms at most, not 550");
	is_num(out[0].end_us, T0 + 600e3, 0.01, "its end kept");
	is_num(out[0].busy_ms, 462, 0.01, "its time no longer than itself");
	is_num(out[0].lag_ms, 442, 0, "with its delay");

	blockscan_reset(b);
	blockscan_feed(b, &p, ft, -INFINITY);
	is_int(blockscan_confirm(b, T0, T0 + 1e6, 600, 20, out, 8), 1,
		"a delay longer than the stretch (another block in the reading)");
	is_num(evloop_block_ms(&out[0]), 550, 0.01, "leaves it as its samples say");
	profile_release(&p);
	blockscan_free(b);
	functab_free(ft);
}

/* A starved target's sampler stalls. Before a stretch's first sample, the stall may hide the
 * block's start, and the delay says how far back it goes (82 ms late at a 468 ms block's start,
 * it read 391 ms with a 470 ms delay); never back past the stall's start, and a delay shorter
 * than the stretch still bounds it. Across two overlapping profiles (the rotation runs inside
 * a block), a (program) run open at the first's end goes on in the second as within one. */
static void test_stalls(void)
{
	struct functab *ft = functab_create();
	struct blockscan *b = blockscan_create(100, 1000);
	struct evloop_block out[8];
	const struct run stall[] = { { IDLE, 50 }, { SPIN, 1 }, { SPIN, 390 }, { IDLE, 10 } };
	const int stall_ms[] = { 1, 82, 1, 1 };
	const struct run first[] = { { IDLE, 10 }, { SPIN, 170 }, { PROG, 25 } };
	const struct run second[] = { { SPIN, 80 }, { PROG, 32 }, { SPIN, 100 }, { IDLE, 5 } };
	const double lags[] = { 470, 600, 300 }, starts[] = { 52, 50, 212 };

	for (size_t i = 0; i < 3; i++) {
		blockscan_reset(b);
		ok(feed_timed_runs(b, ft, T0, stall, 4, stall_ms, -INFINITY) == 0,
			"the stalled profile parses");
		is_int(blockscan_confirm(b, T0, T0 + 600e3, lags[i], 10, out, 8), 1,
			"a 391 ms stretch after an 82 ms stall, confirmed by a %.0f ms delay", lags[i]);
		is_num(out[0].start_us, T0 + starts[i] * 1e3, 0.01, "began %.0f ms after the profile's "
			"start (%s)", starts[i], i == 0 ? "its delay before its end" : i == 1 ?
			"the stall's start, not further" : "its delay and a period before its end");
		is_num(out[0].end_us, T0 + 522e3, 0.01, "its end kept");
	}

	/* a reading inside the stretch keeps its later side: that began at the reading */
	blockscan_reset(b);
	feed_timed_runs(b, ft, T0, stall, 4, stall_ms, -INFINITY);
	is_int(blockscan_confirm(b, T0 - 900e3, T0 + 250e3, 295, 10, out, 8), 0,
		"a reading 118 ms into the stalled stretch (an earlier block's delay) cuts it");
	is_int(blockscan_confirm(b, T0 + 250e3, T0 + 600e3, 470, 10, out, 8), 1,
		"the next reading confirms its later side");
	is_num(out[0].start_us, T0 + 250e3, 0.01, "from the reading, not back in the stall");

	blockscan_reset(b);
	feed_timed_runs(b, ft, T0, first, 3, NULL, -INFINITY);
	/* the next profile began 100 ms into the first: trimmed to its last sample */
	feed_timed_runs(b, ft, T0 + 100e3, second, 4, NULL, T0 + 205e3);
	is_int(blockscan_confirm(b, T0, T0 + 600e3, 302, 10, out, 8), 1,
		"32 ms of (program) across a rotation inside a block: one block, confirmed by its delay");
	is_num(evloop_block_ms(&out[0]), 302, 0.01, "of 302 ms");
	is_num(out[0].start_us, T0 + 10e3, 0.01, "from its start");

	/* a hole between two profiles that do not overlap (the next began 40 ms after the last
	 * sample): bridged as a (program) run; 60 ms is too long, and what follows it has no
	 * known start */
	for (int hole_ms = 40; hole_ms <= 60; hole_ms += 20) {
		feed_across_hole(b, ft, hole_ms);
		if (hole_ms == 40) {
			is_int(blockscan_confirm(b, T0, T0 + 600e3, 340, 10, out, 8), 1,
				"a 40 ms hole between profiles, a 340 ms delay: one block");
			is_num(evloop_block_ms(&out[0]), 340, 0.01, "of 340 ms");
		} else {
			is_int(blockscan_confirm(b, T0, T0 + 600e3, 360, 10, out, 8), 1,
				"a 60 ms hole: the block before it only");
			is_num(evloop_block_ms(&out[0]), 150, 0.01, "of 150 ms");
		}
	}
	feed_across_hole(b, ft, 40);
	is_int(blockscan_confirm(b, T0, T0 + 600e3, 150, 10, out, 8), 2,
		"the 40 ms hole and a 150 ms delay: the loop may have turned there, two blocks");
	blockscan_free(b);
	functab_free(ft);
}

int main(void)
{
	test_one_block();
	test_short_and_split();
	test_confirm();
	test_dominant();
	test_deep();
	test_reading_first();
	test_program_inside();
	test_late_sampler();
	test_reading_inside();
	test_delay_bounds();
	test_stalls();
	return done_testing();
}
