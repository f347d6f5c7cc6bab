/* Unit tests for the command line: defaults, clamps with notices, conflicts. */
#include "config.h"

#include "exitcode.h"
#include "options.h"
#include "tap.h"

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

	is_int(parse(&o, &msg, "--help", NULL, NULL, NULL), 0, "--help parses");
	ok(o.help, "help flag set");
	ok(strstr(options_usage(), "--no-eval") != NULL, "usage lists --no-eval");
	ok(strstr(options_usage(), "--leave-jit") != NULL, "usage lists --leave-jit");
	ok(strstr(options_usage(), "--no-cpu") != NULL, "usage lists --no-cpu");
	return done_testing();
}
