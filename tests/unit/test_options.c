/* Unit tests for the command line: defaults, clamps with notices, conflicts. */
#include "config.h"

#include "exitcode.h"
#include "options.h"
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(struct options *o, char **msg, const char *a1, const char *a2, const char *a3,
	const char *a4)
{
	/* Static: options keep pointers into argv (the command after --), as into main's. */
	static char *argv[6];
	int argc = 1;

	argv[0] = (char *)"ntop-js";
	argv[1] = (char *)a1;
	argv[2] = (char *)a2;
	argv[3] = (char *)a3;
	argv[4] = (char *)a4;
	argv[5] = NULL;
	while (argc < 5 && argv[argc])
		argc++;
	*msg = NULL;
	return options_parse(argc, argv, o, msg);
}

/* Any number of arguments, NULL-terminated. */
static int parsel(struct options *o, char **msg, ...)
{
	static char *argv[160];
	int argc = 1;
	va_list ap;

	argv[0] = (char *)"ntop-js";
	va_start(ap, msg);
	while (argc < 159 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	*msg = NULL;
	return options_parse(argc, argv, o, msg);
}

/* A refusal with exactly this message. */
static void refused(const char *want, const char *why, ...)
{
	static char *argv[8];
	struct options o;
	char *msg = NULL;
	int argc = 1, rc;
	va_list ap;

	argv[0] = (char *)"ntop-js";
	va_start(ap, why);
	while (argc < 7 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	rc = options_parse(argc, argv, &o, &msg);
	is_int(rc, EXIT_USAGE, "%s refused", why);
	is_str(msg ? msg : "", want, "%s: the message", why);
	free(msg);
}

/* Accepted with exactly one clamp notice (want), or none (want NULL). */
static void clamped(struct options *o, const char *want, const char *why, const char *a1,
	const char *a2)
{
	char *msg;

	is_int(parsel(o, &msg, "-p1", a1, a2, NULL), 0, "%s accepted", why);
	if (want) {
		is_int(o->n_notices, 1, "%s: one notice", why);
		is_str(o->n_notices ? o->notices[0] : "", want, "%s: the notice", why);
	} else {
		is_int(o->n_notices, 0, "%s: no notice", why);
	}
}

static void table_cases(void)
{
	struct options o;
	char *msg;
	static char pids[OPT_PIDS_MAX + 1][16];
	static char *many[2 * (OPT_PIDS_MAX + 1) + 1];

	/* each kind's range error */
	refused("invalid value '0' for --port (see ntop-js --help).", "--port 0", "--port", "0", NULL);
	refused("invalid value '0' for --pid (see ntop-js --help).", "-p 0", "-p", "0", NULL);
	refused("invalid value '2147483648' for --pid (see ntop-js --help).", "a PID over 2^31-1",
		"--pid=2147483648", NULL);
	refused("invalid value '0' for --iterations (see ntop-js --help).", "-n 0", "-p1", "-n", "0",
		NULL);
	refused("invalid value '1000000001' for --iterations (see ntop-js --help).", "-n too many",
		"-p1", "-n1000000001", NULL);
	refused("invalid value '100001' for --top (see ntop-js --help).", "-t 100001", "-p1", "-t",
		"100001", NULL);
	refused("invalid value '3601' for --push-every (see ntop-js --help).", "--push-every 3601",
		"-p1", "--push-every", "3601", NULL);
	refused("invalid value '101' for --threshold (see ntop-js --help).", "--threshold 101",
		"-p1", "--threshold", "101", NULL);
	refused("invalid value '-1' for --threshold (see ntop-js --help).", "--threshold -1",
		"-p1", "--threshold", "-1", NULL);
	refused("invalid value '0' for --cpu-every (see ntop-js --help).", "--cpu-every 0",
		"-p1", "--cpu-every", "0", NULL);
	refused("invalid value '-1' for --max-pause (see ntop-js --help).", "--max-pause -1",
		"-p1", "--max-pause", "-1", NULL);
	refused("invalid value '-1' for --mem-interval (see ntop-js --help).", "--mem-interval -1",
		"-p1", "--mem-interval", "-1", NULL);
	refused("invalid value '-0.5' for --block-threshold (see ntop-js --help).",
		"--block-threshold -0.5", "-p1", "--block-threshold=-0.5", NULL);
	refused("invalid value 'abc' for --delay (see ntop-js --help).", "-d abc", "-p1", "-dabc",
		NULL);
	refused("invalid value '1x' for --interval (see ntop-js --help).", "-i 1x", "-p1", "-i", "1x",
		NULL);
	refused("invalid value 'inf' for --timeout (see ntop-js --help).", "--timeout inf", "-p1",
		"--timeout", "inf", NULL);
	refused("invalid value '' for --growth-window (see ntop-js --help).", "--growth-window ''",
		"-p1", "--growth-window", "", NULL);
	refused("invalid value 'x' for --alloc-interval (see ntop-js --help).", "--alloc-interval x",
		"-p1", "--alloc-interval", "x", NULL);
	refused("invalid value 'sideways' for --sort (see ntop-js --help).", "--sort sideways",
		"-p1", "--sort", "sideways", NULL);
	refused("invalid value 'upside' for --mode (see ntop-js --help).", "--mode upside",
		"-p1", "--mode", "upside", NULL);
	refused("--inlining takes repair, off, keep or auto, not 'fast'.", "--inlining fast", "-p1",
		"--inlining", "fast", NULL);

	/* the clamp notices */
	clamped(&o, "--delay 5000 s is out of range; using 3600 s.", "-d 5000", "-d", "5000");
	is_num(o.delay_s, 3600, 0, "-d clamped to an hour");
	ok(o.delay_set && !o.interval_set, "and marked set");
	options_free(&o);
	clamped(&o, "--interval 1 us is out of range; using 100 us.", "-i 1.7", "-i", "1.7");
	is_int(o.interval_us, 100, "-i 1.7 floored to 1, then clamped");
	options_free(&o);
	clamped(&o, NULL, "-i 150.9", "-i", "150.9");
	is_int(o.interval_us, 150, "-i 150.9 floored to 150");
	ok(o.interval_set, "and marked set");
	options_free(&o);
	clamped(&o, "--interval 2e+06 us is out of range; using 1e+06 us.", "-i 2e6", "-i", "2e6");
	is_int(o.interval_us, 1000000, "-i clamped to a second");
	options_free(&o);
	clamped(&o, "--timeout 0.1 s is out of range; using 0.5 s.", "--timeout 0.1", "--timeout",
		"0.1");
	is_num(o.timeout_s, 0.5, 0, "--timeout clamped");
	options_free(&o);
	clamped(&o, "--max-pause 5000 s is out of range; using 3600 s.", "--max-pause 5000",
		"--max-pause", "5000");
	options_free(&o);
	clamped(&o, NULL, "--max-pause 0", "--max-pause", "0");
	is_num(o.max_pause_s, 0, 0, "--max-pause 0 kept");
	options_free(&o);
	clamped(&o, "--cpu-every 0.5 s is out of range; using 1 s.", "--cpu-every 0.5 with -d 0.2",
		"--cpu-every=0.5", "-d0.2");
	is_num(o.cpu_every_s, 1, 0, "--cpu-every clamped to 1 s");
	options_free(&o);
	clamped(&o, "--block-threshold 0.001 s is out of range; using 0.02 s.",
		"--block-threshold 0.001", "--block-threshold", "0.001");
	is_num(o.block_threshold_s, 0.02, 0, "--block-threshold clamped");
	options_free(&o);
	clamped(&o, NULL, "--block-threshold 0", "--block-threshold", "0");
	is_num(o.block_threshold_s, 0, 0, "--block-threshold 0: off");
	options_free(&o);
	clamped(&o, NULL, "--mem-interval 0", "--mem-interval", "0");
	is_num(o.mem_interval_s, 0, 0, "--mem-interval 0: off");
	options_free(&o);
	clamped(&o, "--mem-interval 0.01 s is out of range; using 0.1 s.", "--mem-interval 0.01",
		"--mem-interval", "0.01");
	options_free(&o);
	clamped(&o, "--growth-window 10 s is out of range; using 30 s.", "--growth-window 10",
		"--growth-window", "10");
	options_free(&o);
	clamped(&o, "--alloc-interval 1 s is out of range; using 5 s.", "--alloc-interval 1",
		"--alloc-interval", "1");
	is_num(o.alloc_interval_s, 5, 0, "--alloc-interval clamped");
	options_free(&o);
	is_int(parsel(&o, &msg, "-p1", "-d", "0", "-d", "1e9", "-i", "0", "--timeout", "0",
		"--growth-window", "0", "--alloc-interval", "0", "--mem-interval", "1e9",
		"--block-threshold", "1e9", "--max-pause", "1e9", "--cpu-every", "1e9", NULL), 0,
		"ten clamps accepted");
	is_int(o.n_notices, 8, "the notices past eight dropped");
	is_str(o.notices[1], "--delay 1e+09 s is out of range; using 3600 s.",
		"the second in order");
	is_str(o.notices[7], "--block-threshold 1e+09 s is out of range; using 3600 s.",
		"the eighth in order");
	options_free(&o);

	/* a value missing at the end, an unknown option */
	refused("option --timeout needs a value.", "--timeout at the end", "-p1", "--timeout", NULL);
	refused("option -d needs a value.", "-d at the end", "-p1", "-d", NULL);
	refused("unknown option --bogus (see ntop-js --help).", "--bogus", "-p1", "--bogus", NULL);
	refused("unknown option -x (see ntop-js --help).", "-x", "-x", "-p1", NULL);
	refused("unknown option --help=1 (see ntop-js --help).", "a value for a flag",
		"--help=1", NULL);
	refused("unknown option --no (see ntop-js --help).", "an ambiguous prefix", "-p1", "--no",
		NULL);
	is_int(parsel(&o, &msg, "--thres", "5", "--iter=3", "-p1", NULL), 0,
		"unambiguous prefixes of long options");
	ok(o.threshold_pct == 5 && o.iterations == 3, "...mean their options");
	options_free(&o);

	/* more than OPT_PIDS_MAX --pid */
	for (int i = 0; i <= OPT_PIDS_MAX; i++) {
		snprintf(pids[i], sizeof pids[i], "%d", i + 1);
		many[2 * i] = (char *)"-p";
		many[2 * i + 1] = pids[i];
	}
	many[2 * OPT_PIDS_MAX] = NULL;
	is_int(parsel(&o, &msg, many[0], many[1], many[2], many[3], "-p", "3", "-p", "4", NULL), 0,
		"four --pid");
	options_free(&o);
	{
		/* 64 accepted, 65 refused */
		static char *argv[2 * (OPT_PIDS_MAX + 1) + 2];
		int rc;

		argv[0] = (char *)"ntop-js";
		for (int i = 0; i < 2 * OPT_PIDS_MAX; i++)
			argv[i + 1] = many[i];
		argv[2 * OPT_PIDS_MAX + 1] = NULL;
		rc = options_parse(2 * OPT_PIDS_MAX + 1, argv, &o, &msg);
		is_int(rc, 0, "%d --pid accepted", OPT_PIDS_MAX);
		is_int(o.n_more_pids, OPT_PIDS_MAX - 1, "the first and %d more", OPT_PIDS_MAX - 1);
		options_free(&o);
		argv[2 * OPT_PIDS_MAX + 1] = (char *)"-p";
		argv[2 * OPT_PIDS_MAX + 2] = pids[OPT_PIDS_MAX];
		msg = NULL;
		rc = options_parse(2 * OPT_PIDS_MAX + 3, argv, &o, &msg);
		is_int(rc, EXIT_USAGE, "%d --pid refused", OPT_PIDS_MAX + 1);
		is_str(msg ? msg : "", "at most 64 --pid options.", "the message");
		free(msg);
	}

	/* empty strings, a bad Host name */
	refused("--match needs some text to look for in command lines.", "an empty --match",
		"--match=", NULL);
	refused("--user needs a user name or uid.", "an empty --user", "--user", "", NULL);
	refused("--serve-allow-host takes a host name (letters, digits, - and ., without a port).",
		"--serve-allow-host with a port", "-p1", "--serve=9464", "--serve-allow-host",
		"a.example:80", NULL);
	refused("--serve-allow-host takes a host name (letters, digits, - and ., without a port).",
		"an empty --serve-allow-host", "-p1", "--serve=9464", "--serve-allow-host=", NULL);
	refused("--serve-token-file and --serve-allow-host go with --serve.",
		"--serve-allow-host without --serve", "-p1", "--serve-allow-host", "a.example", NULL);
	refused("--push-name takes 1 to 128 of the letters, digits and . _ - / : "
		"(Pyroscope's application names).", "--push-name ''", "-p1", "--push-name=", NULL);
	refused("--push-tenant takes 1 to 128 of the letters, digits and . _ - / :.",
		"--push-tenant a b", "-p1", "--push-tenant", "a b", NULL);
	is_int(parsel(&o, &msg, "-p1", "--serve", "9464", "--serve-allow-host", "a.example",
		"--serve-allow-host=b-1.example", NULL), 0, "--serve-allow-host twice");
	ok(o.n_serve_allow_host == 2 && !strcmp(o.serve_allow_host[0], "a.example") &&
		!strcmp(o.serve_allow_host[1], "b-1.example"), "both kept in order");
	options_free(&o);
	{
		static char *argv[2 * (OPT_SERVE_ALLOW_HOST_MAX + 1) + 4];
		int argc = 0, rc;

		argv[argc++] = (char *)"ntop-js";
		argv[argc++] = (char *)"-p1";
		argv[argc++] = (char *)"--serve=9464";
		for (int i = 0; i <= OPT_SERVE_ALLOW_HOST_MAX; i++) {
			argv[argc++] = (char *)"--serve-allow-host";
			argv[argc++] = (char *)"h.example";
		}
		argv[argc] = NULL;
		msg = NULL;
		rc = options_parse(argc, argv, &o, &msg);
		is_int(rc, EXIT_USAGE, "--serve-allow-host %d times refused",
			OPT_SERVE_ALLOW_HOST_MAX + 1);
		is_str(msg ? msg : "", "--serve-allow-host is given more than 16 times.", "the message");
		free(msg);
	}

	/* -h and -V end parsing before the checks */
	is_int(parsel(&o, &msg, "--children", "-h", "--bogus", NULL), 0,
		"-h returns before the cross-option checks and what follows");
	ok(o.help && !msg, "help set, no message");
	options_free(&o);
	is_int(parsel(&o, &msg, "-b", "-V", NULL), 0, "-V likewise");
	ok(o.version && o.batch && !o.help, "version set");
	options_free(&o);
	refused("invalid value 'x' for --pid (see ntop-js --help).", "a bad value before -h",
		"-px", "-h", NULL);

	/* defaults, flags and strings land where they belong */
	is_int(parsel(&o, &msg, NULL), 0, "no options");
	ok(!strcmp(o.host, "127.0.0.1") && o.top_n == 20 && o.push_every_s == 15 &&
		!strcmp(o.save_dir, ".") && o.threshold_pct == -1 && o.mem_interval_s == 1.0 &&
		o.growth_window_s == 300 && o.alloc_interval_s == 300 && o.max_pause_s == 0.2 &&
		o.block_threshold_s == 0.1 && o.iterations == 0 && o.port == 0 && !o.sort &&
		!o.mode && !o.filter && !o.delay_set && !o.interval_set && o.n_notices == 0,
		"the defaults");
	options_free(&o);
	is_int(parsel(&o, &msg, "-p1", "--no-eval", "--no-workers", "--no-source-maps",
		"--reverse", "--hide-internals", "--hide-node-modules", "--no-color", "--no-config",
		"--alloc", "--allow-remote", "--repair-inlining", "-b", NULL), 0, "every flag");
	ok(o.no_eval && o.no_workers && o.no_source_maps && o.reverse_set && o.hide_internals &&
		o.hide_node_modules && o.no_color && o.no_config && o.alloc && o.allow_remote &&
		o.inlining == JIT_REPAIR && o.batch && !o.json && !o.follow && !o.list &&
		!o.children && !o.no_cpu, "each sets its own");
	options_free(&o);
	is_int(parsel(&o, &msg, "--port", "9230", "--host", "localhost", "-o", "a.cpuprofile",
		"--folded", "f.txt", "--save-dir=/tmp", "--log", "l.log", "--sort", "name",
		"--mode", "cumulative", "--filter", "route", "--threshold", "0.5", "-n", "7",
		"-t100000", "--push", "http://127.0.0.1:4040", "--push-name", "api",
		"--push-tenant", "t1", "--push-every", "5", "--follow", NULL), 0, "every string");
	ok(o.port == 9230 && !strcmp(o.host, "localhost") && !strcmp(o.output, "a.cpuprofile") &&
		!strcmp(o.folded, "f.txt") && !strcmp(o.save_dir, "/tmp") &&
		!strcmp(o.log_path, "l.log") && !strcmp(o.sort, "name") &&
		!strcmp(o.mode, "cumulative") && !strcmp(o.filter, "route") &&
		o.threshold_pct == 0.5 && o.iterations == 7 && o.top_n == 100000 &&
		!strcmp(o.push_name, "api") && !strcmp(o.push_tenant, "t1") &&
		o.push_every_s == 5 && o.follow, "each kept in its own field");
	options_free(&o);
	is_int(parsel(&o, &msg, "--replay", "r.log", "--list", NULL), EXIT_USAGE,
		"--replay with --list refused");
	free(msg);
	is_int(parsel(&o, &msg, "--replay", "r.log", NULL), 0, "--replay alone");
	ok(o.replay_path && !strcmp(o.replay_path, "r.log"), "the log kept");
	options_free(&o);
	{
		static char longf[300], want[400];

		memset(longf, 'a', sizeof longf - 1);
		snprintf(want, sizeof want, "invalid value '%s' for --filter (see ntop-js --help).",
			longf);
		refused(want, "a --filter too long", "-p1", "--filter", longf, NULL);
	}
}

int main(void)
{
	struct options o;
	char *msg;

	is_int(parse(&o, &msg, "--pid", "123", NULL, NULL), 0, "--pid parses");
	is_int(o.pid, 123, "pid value");
	is_num(o.delay_s, 1.0, 0, "default delay 1 s");
	is_int(o.interval_us, 1000, "default interval 1000 us");
	is_num(o.timeout_s, 10.0, 0, "default timeout 10 s");
	ok(!o.batch && !o.json && !o.no_eval && o.inlining == JIT_AUTO, "flags off by default");
	options_free(&o);

	is_int(parse(&o, &msg, "--pid", "7", "--leave-jit", NULL), 0, "--leave-jit parses");
	ok(o.inlining == JIT_KEEP && !o.no_eval, "and leaves the JIT alone, nothing else");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid=7", "--inlining", "off", NULL), 0, "--inlining off parses");
	ok(o.inlining == JIT_OFF, "and switches V8's inlining off");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid=7", "--leave-jit", "--inlining=repair", NULL), 0,
		"--inlining repair parses");
	ok(o.inlining == JIT_REPAIR, "the last of --leave-jit and --inlining counts");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid=7", "--inlining", "fast", NULL), EXIT_USAGE,
		"--inlining refuses a mode it does not know");
	ok(msg && strstr(msg, "repair, off, keep or auto"), "and names the modes");
	free(msg);
	msg = NULL;
	options_free(&o);

	is_int(parse(&o, &msg, "--pid", "7", "--no-cpu", NULL), 0, "--no-cpu parses");
	ok(o.no_cpu && !o.no_eval && o.mem_interval_s > 0, "memory only, memory readings on");
	options_free(&o);
	is_int(parse(&o, &msg, "-bp1", "--no-cpu", "-ox.cpuprofile", NULL), EXIT_USAGE,
		"--no-cpu with -o in batch mode refused");
	ok(msg && strstr(msg, "-o has nothing to write"), "the message says why: %s", msg ? msg : "");
	free(msg);
	is_int(parse(&o, &msg, "-bp1", "--no-cpu", "--folded", "x.txt"), EXIT_USAGE,
		"and with --folded");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--no-cpu", "-ox.cpuprofile", NULL), 0,
		"but allowed in the live view, which can start the profiler");
	options_free(&o);
	is_int(parse(&o, &msg, "-p1", "--no-cpu", "--mem-interval", "0"), EXIT_USAGE,
		"--no-cpu without memory readings refused");
	ok(msg && strstr(msg, "nothing to watch"), "the message says why: %s", msg ? msg : "");
	free(msg);

	is_int(parse(&o, &msg, "-bp1", "-d10", "--cpu-every", "600"), 0, "--cpu-every parses");
	ok(o.cpu_every_s == 600 && !o.no_cpu, "a burst every 600 s, the CPU profiled then");
	options_free(&o);
	is_int(parse(&o, &msg, "-p1", NULL, NULL, NULL), 0, "without --cpu-every");
	is_num(o.cpu_every_s, 0, 0, "no bursts by default");
	options_free(&o);
	is_int(parse(&o, &msg, "-p1", "--cpu-every", "1.5", NULL), EXIT_USAGE,
		"--cpu-every under two windows refused");
	ok(msg && strstr(msg, "shorter than two windows (-d 1)") && strstr(msg, "at least 2 s"),
		"the message says why: %s", msg ? msg : "");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--cpu-every", "60", "--no-cpu"), EXIT_USAGE,
		"--cpu-every with --no-cpu refused");
	ok(msg && strstr(msg, "contradict"), "the message says why: %s", msg ? msg : "");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--cpu-every", "0", NULL), EXIT_USAGE, "--cpu-every 0 refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--cpu-every", "1e9", NULL), 0, "a huge --cpu-every accepted");
	is_num(o.cpu_every_s, 86400, 0, "and clamped to a day");
	options_free(&o);

	is_int(parse(&o, &msg, "-p", "5", "-i", "1"), 0, "tiny interval accepted");
	is_int(o.interval_us, 100, "interval clamped up to 100 us");
	is_int(o.n_notices, 1, "clamp explained");
	options_free(&o);

	is_int(parse(&o, &msg, "-p", "5", "-i", "-20"), 0, "negative interval accepted");
	is_int(o.interval_us, 100, "negative interval clamped");
	options_free(&o);

	is_int(parse(&o, &msg, "-p", "5", "-d", "0.001"), 0, "tiny delay accepted");
	is_num(o.delay_s, 0.05, 1e-12, "delay clamped to 0.05 s");
	options_free(&o);

	is_int(parse(&o, &msg, "-p", "5", "--json", NULL), 0, "--json parses");
	ok(o.batch, "--json implies batch");
	options_free(&o);

	is_int(parse(&o, &msg, "-p", "abc", NULL, NULL), EXIT_USAGE, "non-numeric pid refused");
	ok(msg && strstr(msg, "--pid"), "message names the option: %s", msg ? msg : "");
	free(msg);

	is_int(parse(&o, &msg, NULL, NULL, NULL, NULL), 0, "no target: the picker");
	options_free(&o);
	is_int(parse(&o, &msg, "-b", NULL, NULL, NULL), EXIT_USAGE, "batch mode without a target refused");
	free(msg);
	is_int(parse(&o, &msg, "-b", "--", "node", "app.js"), 0, "a command after --");
	ok(o.command && strcmp(o.command[0], "node") == 0 && strcmp(o.command[1], "app.js") == 0,
		"the command is kept whole");
	options_free(&o);
	is_int(parse(&o, &msg, "--sort", "sideways", "-p", "1"), EXIT_USAGE, "unknown sort column refused");
	free(msg);
	is_int(parse(&o, &msg, "--sort", "total", "-p", "1"), 0, "sort column accepted");
	options_free(&o);
	is_int(parse(&o, &msg, "--threshold", "101", "-p", "1"), EXIT_USAGE, "threshold over 100 refused");
	free(msg);
	is_int(parse(&o, &msg, "--list", "-p", "1", NULL), EXIT_USAGE, "--list with a target refused");
	free(msg);
	is_int(parse(&o, &msg, "--pid", "1", "--port", "9230"), EXIT_USAGE, "pid and port conflict");
	free(msg);
	is_int(parse(&o, &msg, "--port", "70000", NULL, NULL), EXIT_USAGE, "port out of range");
	free(msg);
	is_int(parse(&o, &msg, "--port", "9230", "--host", "10.1.2.3"), EXIT_USAGE,
		"remote host refused without --allow-remote");
	ok(msg && strstr(msg, "--allow-remote"), "message names --allow-remote");
	free(msg);
	is_int(parse(&o, &msg, "--port", "9230", "--host", "::1"), 0, "IPv6 loopback accepted");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid", "1", "--serve", "9464"), 0, "--serve PORT");
	ok(o.serve_port == 9464 && strcmp(o.serve_host, "127.0.0.1") == 0, "...on 127.0.0.1");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid", "1", "--serve", "0.0.0.0:9464"), EXIT_USAGE,
		"--serve on a non-loopback address refused without --allow-remote");
	ok(msg && strstr(msg, "--allow-remote"), "message names --allow-remote");
	free(msg);
	is_int(parse(&o, &msg, "--serve", "0.0.0.0:9464", "--allow-remote", "-p1"), 0,
		"...accepted with it");
	options_free(&o);
	is_int(parse(&o, &msg, "--pid", "1", "--serve", "host:80"), EXIT_USAGE,
		"--serve with a name refused");
	free(msg);
	is_int(parse(&o, &msg, "--replay", "x.log", "--serve", "9464"), EXIT_USAGE,
		"--serve with --replay refused");
	free(msg);
	is_int(parse(&o, &msg, "--pid", "1", "extra", NULL), EXIT_USAGE, "stray argument refused");
	free(msg);
	is_int(parse(&o, &msg, "--bogus", NULL, NULL, NULL), EXIT_USAGE, "unknown option refused");
	free(msg);
	/* Several processes. */
	is_int(parse(&o, &msg, "-p1", "-p", "2", "--pid=3"), 0, "--pid given three times");
	ok(o.pid == 1 && o.n_more_pids == 2 && o.more_pids[0] == 2 && o.more_pids[1] == 3,
		"the first is the main target, the others follow in order");
	options_free(&o);
	is_int(parse(&o, &msg, "-p1", "--children", NULL, NULL), 0, "--children with --pid");
	ok(o.children && o.pid == 1 && o.n_more_pids == 0, "sets children");
	options_free(&o);
	is_int(parse(&o, &msg, "--children", NULL, NULL, NULL), EXIT_USAGE, "--children alone refused");
	ok(msg && strstr(msg, "goes with --pid"), "the message says why: %s", msg ? msg : "");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "-p", "2", "-p1"), EXIT_USAGE, "a PID given twice refused");
	ok(msg && strstr(msg, "PID 1 is given twice"), "the message names it: %s", msg ? msg : "");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "-p2", "--follow", NULL), EXIT_USAGE,
		"--follow with several processes refused");
	free(msg);
	is_int(parse(&o, &msg, "-b", "--match", "server.js", NULL), 0, "--match is a target in batch mode");
	ok(o.match && strcmp(o.match, "server.js") == 0 && o.pid == 0, "the text kept");
	options_free(&o);
	is_int(parse(&o, &msg, "--match", "x", "-p1", NULL), EXIT_USAGE, "--match with --pid refused");
	free(msg);
	is_int(parse(&o, &msg, "--match", "", NULL, NULL), EXIT_USAGE, "an empty --match refused");
	free(msg);
	is_int(parse(&o, &msg, "-b", "--user", "www-data", NULL), 0, "--user is a target in batch mode");
	ok(o.user && strcmp(o.user, "www-data") == 0 && !o.match, "the user kept");
	options_free(&o);
	is_int(parse(&o, &msg, "--user", "1000", "--match", "server.js"), 0, "--user with --match");
	options_free(&o);
	is_int(parse(&o, &msg, "--user", "1000", "-p1", NULL), EXIT_USAGE, "--user with --pid refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--serve-token-file", "t", NULL), EXIT_USAGE,
		"--serve-token-file without --serve refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--serve", "9900", "--serve-token-file=t"), 0,
		"--serve-token-file with --serve");
	ok(o.serve_token_file && strcmp(o.serve_token_file, "t") == 0, "the file kept");
	options_free(&o);
	ok(strstr(options_usage(), "--children") && strstr(options_usage(), "--match") &&
		strstr(options_usage(), "--user"), "usage lists --children, --match and --user");

	is_int(parse(&o, &msg, "-p1", "--push", "http://localhost:4040", NULL), 0, "--push");
	ok(strcmp(o.push_url.host, "127.0.0.1") == 0 && o.push_url.port == 4040 &&
		o.push_every_s == 15, "...to 127.0.0.1:4040 every 15 s");
	options_free(&o);
	is_int(parse(&o, &msg, "-p1", "--push", "http://pyro:4040", NULL), EXIT_USAGE,
		"--push to a host name refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--push", "http://10.0.0.1", NULL), EXIT_USAGE,
		"--push to a non-loopback address refused without --allow-remote");
	free(msg);
	is_int(parse(&o, &msg, "--push", "http://10.0.0.1", "--allow-remote", "-p1"), 0,
		"...accepted with it");
	options_free(&o);
	is_int(parse(&o, &msg, "-bp1", "--no-cpu", "--push=http://127.0.0.1:1", NULL), EXIT_USAGE,
		"--push with --no-cpu in batch mode refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--push-every", "4", NULL), EXIT_USAGE,
		"--push-every under 5 refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--push-name", "a{b}", NULL), EXIT_USAGE,
		"--push-name with braces refused");
	free(msg);
	is_int(parse(&o, &msg, "-p1", "--push-tenant", "t1", NULL), EXIT_USAGE,
		"--push-tenant without --push refused");
	free(msg);

	table_cases();

	{
		/* every option --help names is one the parser knows */
		const char *u = options_usage();
		int n = 0, known = 0;

		while ((u = strstr(u, "--"))) {
			char name[40] = "--";
			size_t len = strspn(u + 2, "abcdefghijklmnopqrstuvwxyz-");

			u += 2;
			if (!len || len >= sizeof name - 2)
				continue;
			memcpy(name + 2, u, len);
			name[2 + len] = '\0';
			n++;
			parse(&o, &msg, name, NULL, NULL, NULL);
			known += !msg || strncmp(msg, "unknown option", 14) != 0;
			free(msg);
			options_free(&o);
		}
		ok(n > 50 && known == n, "the %d options --help names are all known (%d)", n, known);
	}

	is_int(parse(&o, &msg, "--help", NULL, NULL, NULL), 0, "--help parses");
	ok(o.help, "help flag set");
	ok(strstr(options_usage(), "--no-eval") != NULL, "usage lists --no-eval");
	ok(strstr(options_usage(), "--leave-jit") != NULL, "usage lists --leave-jit");
	ok(strstr(options_usage(), "--no-cpu") != NULL, "usage lists --no-cpu");
	return done_testing();
}
