/* options.c: see options.h. */
#include "config.h"

#include "options.h"
#include "attach.h"
#include "exitcode.h"
#include "serve.h"
#include "settings.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"Usage: ntop-js [OPTION]... --pid PID [--pid PID]... [--children]\n"
	"       ntop-js [OPTION]... --match TEXT [--user USER]\n"
	"       ntop-js [OPTION]... --port PORT [--host HOST]\n"
	"       ntop-js [OPTION]... -- COMMAND [ARG]...\n"
	"       ntop-js [OPTION]...            (pick one of this machine's Node processes)\n"
	"Show the hot functions of a running Node.js process, live, without restarting it.\n"
	"\n"
	"Target:\n"
	"  -p, --pid PID          attach to Node process PID (opens its inspector with SIGUSR1\n"
	"                         if it has none, and closes it again on exit); give it again\n"
	"                         to watch several processes of a service at once\n"
	"      --children         with --pid: also every Node process descended from it (a\n"
	"                         cluster primary's workers, PM2's apps), and those that\n"
	"                         start later (with --match and --user too)\n"
	"      --match TEXT       every Node process of this machine whose command line\n"
	"                         contains TEXT (and that ntop-js may signal)\n"
	"      --user USER        every Node process of USER (a name or uid); with --match,\n"
	"                         those of them whose command line has TEXT\n"
	"      --port PORT        attach to an inspector already listening on PORT\n"
	"      --host HOST        the inspector's address with --port (default 127.0.0.1)\n"
	"      --allow-remote     allow a non-loopback --host (an inspector runs any code)\n"
	"                         or --serve address\n"
	"      --serve [ADDR:]PORT  serve GET /metrics (Prometheus), /debug/pprof/profile and\n"
	"                         /debug/pprof/heap (with --alloc) over HTTP on ADDR (default\n"
	"                         127.0.0.1; loopback only unless --allow-remote)\n"
	"      --serve-token-file FILE  with --serve: answer only requests that carry\n"
	"                         \"Authorization: Bearer TOKEN\", TOKEN the file's first line\n"
	"      --serve-allow-host NAME  with --serve: also answer requests whose Host is NAME\n"
	"                         (by default only IP addresses and localhost; repeatable)\n"
	"      --push URL         send every thread's CPU profile to Grafana Pyroscope's\n"
	"                         /ingest at URL (http://ADDR[:PORT], numeric or localhost;\n"
	"                         loopback only unless --allow-remote), one per interval\n"
	"      --push-every SECS  seconds per pushed profile (default 15, 5 to 3600)\n"
	"      --push-name NAME   the application's name (default ntop-js.TITLE; labels pid\n"
	"                         and thread are added)\n"
	"      --push-tenant ID   send X-Scope-OrgID: ID (a multi-tenant Pyroscope)\n"
	"  -- COMMAND [ARG]...    start COMMAND (a node program) with an inspector on a free\n"
	"                         loopback port, watch it, and end it on quit; its output goes\n"
	"                         to a log file that the status line names\n"
	"      --no-workers       profile the main thread only (by default every worker_threads\n"
	"                         worker is profiled too, through the main thread's inspector)\n"
	"      --no-source-maps   show positions as V8 gives them (by default a script's source\n"
	"                         map, found from its sourceMappingURL comment, gives the\n"
	"                         original function names, files and lines: TypeScript, bundles)\n"
	"      --list             list this machine's Node processes and exit\n"
	"\n"
	"Sampling:\n"
	"  -d, --delay SECS       length of each CPU window (default 1, 0.05 to 3600)\n"
	"  -i, --interval USEC    sampling interval in microseconds (default 1000, 100 to 1000000)\n"
	"      --no-eval          never run code in the target: profile with Profiler.start/stop\n"
	"                         per window instead (stalls large apps at every window, and\n"
	"                         cannot close an inspector that ntop-js opened)\n"
	"      --inlining MODE    how functions V8 inlined get their time, up to Node 24:\n"
	"                         repair: V8's inlining kept, their time given back from the\n"
	"                         profile's lines (the default on Node 24, with --pid);\n"
	"                         off: V8's inlining switched off while attached (the\n"
	"                         default otherwise; exact, at a fifth of a busy server);\n"
	"                         keep: nothing done, inlined functions may be charged to\n"
	"                         their callers (ntop-js(1))\n"
	"      --leave-jit        the same as --inlining keep\n"
	"      --repair-inlining  the same as --inlining repair\n"
	"      --no-cpu           no CPU profiling: memory only, with no attach pause and no\n"
	"                         sampler cost (the live view starts the profiler on c)\n"
	"      --max-pause SECS   the longest pause ntop-js may cause without asking (default\n"
	"                         0.2): starting V8's profiler walks the heap (seconds on a\n"
	"                         multi-GB heap); over it the live view asks, batch refuses\n"
	"      --cpu-every SECS   CPU profiling in bursts, for long runs: one window (-d) of\n"
	"                         profile every SECS, the profiler off in between (each\n"
	"                         burst pays the start pause, and is skipped if that is over\n"
	"                         --max-pause); windows between carry memory only\n"
	"      --timeout SECS     how long to wait for the target to answer (default 10)\n"
	"      --block-threshold SECS  a task that holds the event loop this long is a\n"
	"                         blocked-loop event, shown with its stack (default 0.1; 0: none)\n"
	"\n"
	"Memory:\n"
	"      --mem-interval SECS   read the target's memory every SECS (default 1; 0: never)\n"
	"      --growth-window SECS  span of the heap growth rate and verdict (default 300)\n"
	"      --alloc            sample allocations (V8's sampling heap profiler) to show which\n"
	"                         functions hold memory and which hold more and more\n"
	"      --alloc-interval SECS  between allocation profiles (default 300); each one\n"
	"                         forces a full garbage collection in the target\n"
	"      --log FILE         append a JSON line per memory reading and per window to FILE,\n"
	"                         synced every minute (for unattended runs)\n"
	"      --replay FILE      show the memory charts of a --log file\n"
	"      --follow           when the target exits, wait for it to come back and re-attach\n"
	"\n"
	"Output:\n"
	"  -b, --batch            print one report per window on stdout, like top -b\n"
	"      --json             with -b: one JSON object per line per window\n"
	"  -n, --iterations N     stop after N windows\n"
	"  -t, --top N            functions per report (default 20)\n"
	"  -o, --output FILE      on exit, write the profile since attach as a .cpuprofile\n"
	"                         (DevTools, VS Code, speedscope; FILE.pb.gz: pprof)\n"
	"      --folded FILE      on exit, write folded stacks for flamegraph.pl\n"
	"                         (with workers or other processes: theirs too, -o's beside\n"
	"                         FILE as FILE-tID or FILE-pPID, --folded's under a first frame)\n"
	"\n"
	"Live view (settings also come from ~/.config/ntop-js/config):\n"
	"      --sort COLUMN      self, total, self-time, total-time, name or location\n"
	"      --reverse          sort in ascending order\n"
	"      --mode MODE        window (the last one), decayed (an average with a 5 s\n"
	"                         half-life) or cumulative (since attach)\n"
	"      --filter TEXT      show functions whose name or location contains TEXT\n"
	"      --hide-internals   hide Node's own code (node:, internal/, native)\n"
	"      --hide-node-modules  hide code under node_modules\n"
	"      --threshold PCT    hide functions under PCT % self and total\n"
	"      --no-color         no colours (also when NO_COLOR is set)\n"
	"      --save-dir DIR     where s and SIGUSR2 save profiles (default: current directory)\n"
	"      --no-config        ignore the settings file and do not write it\n"
	"\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Percentages are of the window's sampled time; SELF and TOTAL times are cumulative\n"
	"since attach. Exit status: 0 success, 2 usage, 3 no such process, 4 not Node,\n"
	"5 permission, 6 attach by signal disabled, 7 inspector or --serve port busy,\n"
	"8 inspector unreachable, 9 no reply in time, 10 target exited, 11 protocol error,\n"
	"12 it would pause the target longer than --max-pause, 1 other.\n"
	"See ntop-js(1).\n";

const char *options_usage(void)
{
	return usage_text;
}

enum { OPT_PORT = 256, OPT_HOST, OPT_ALLOW_REMOTE, OPT_NO_EVAL, OPT_TIMEOUT, OPT_JSON,
	OPT_FOLDED, OPT_LIST, OPT_SORT, OPT_REVERSE, OPT_MODE, OPT_FILTER, OPT_HIDE_INTERNALS,
	OPT_HIDE_NODE_MODULES, OPT_THRESHOLD, OPT_NO_COLOR, OPT_SAVE_DIR, OPT_NO_CONFIG,
	OPT_MEM_INTERVAL, OPT_GROWTH_WINDOW, OPT_ALLOC, OPT_ALLOC_INTERVAL, OPT_LOG, OPT_REPLAY,
	OPT_FOLLOW, OPT_LEAVE_JIT, OPT_REPAIR_INLINING, OPT_INLINING, OPT_NO_WORKERS, OPT_NO_CPU, OPT_MAX_PAUSE, OPT_CPU_EVERY, OPT_BLOCK_THRESHOLD,
	OPT_PUSH, OPT_PUSH_EVERY, OPT_PUSH_NAME, OPT_PUSH_TENANT,
	OPT_CHILDREN, OPT_MATCH, OPT_USER, OPT_SERVE, OPT_NO_SOURCE_MAPS,
	OPT_SERVE_TOKEN_FILE, OPT_SERVE_ALLOW_HOST };

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ "user", required_argument, NULL, OPT_USER },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "allow-remote", no_argument, NULL, OPT_ALLOW_REMOTE },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "serve-token-file", required_argument, NULL, OPT_SERVE_TOKEN_FILE },
	{ "serve-allow-host", required_argument, NULL, OPT_SERVE_ALLOW_HOST },
	{ "delay", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "no-eval", no_argument, NULL, OPT_NO_EVAL },
	{ "leave-jit", no_argument, NULL, OPT_LEAVE_JIT },
	{ "repair-inlining", no_argument, NULL, OPT_REPAIR_INLINING },
	{ "inlining", required_argument, NULL, OPT_INLINING },
	{ "no-workers", no_argument, NULL, OPT_NO_WORKERS },
	{ "no-source-maps", no_argument, NULL, OPT_NO_SOURCE_MAPS },
	{ "no-cpu", no_argument, NULL, OPT_NO_CPU },
	{ "max-pause", required_argument, NULL, OPT_MAX_PAUSE },
	{ "block-threshold", required_argument, NULL, OPT_BLOCK_THRESHOLD },
	{ "cpu-every", required_argument, NULL, OPT_CPU_EVERY },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "push-every", required_argument, NULL, OPT_PUSH_EVERY },
	{ "push-name", required_argument, NULL, OPT_PUSH_NAME },
	{ "push-tenant", required_argument, NULL, OPT_PUSH_TENANT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "batch", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "iterations", required_argument, NULL, 'n' },
	{ "top", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "hide-internals", no_argument, NULL, OPT_HIDE_INTERNALS },
	{ "hide-node-modules", no_argument, NULL, OPT_HIDE_NODE_MODULES },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "save-dir", required_argument, NULL, OPT_SAVE_DIR },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "mem-interval", required_argument, NULL, OPT_MEM_INTERVAL },
	{ "growth-window", required_argument, NULL, OPT_GROWTH_WINDOW },
	{ "alloc", no_argument, NULL, OPT_ALLOC },
	{ "alloc-interval", required_argument, NULL, OPT_ALLOC_INTERVAL },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char *opt_name(int c)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static void notice(struct options *o, char *msg)
{
	if (o->n_notices < sizeof o->notices / sizeof o->notices[0])
		o->notices[o->n_notices++] = msg;
	else
		free(msg);
}

static double clamp_double(struct options *o, const char *name, double v, double min, double max,
	const char *unit)
{
	if (v < min || v > max) {
		double c = v < min ? min : max;
		notice(o, xasprintf("%s %g %s is out of range; using %g %s.", name, v, unit, c, unit));
		return c;
	}
	return v;
}

int options_parse(int argc, char **argv, struct options *o, char **msg)
{
	long l;
	double d;
	int c;

	memset(o, 0, sizeof *o);
	o->host = "127.0.0.1";
	o->delay_s = 1.0;
	o->interval_us = 1000;
	o->top_n = 20;
	o->push_every_s = 15;
	o->timeout_s = 10.0;
	o->save_dir = ".";
	o->threshold_pct = -1;
	o->mem_interval_s = 1.0;
	o->growth_window_s = 300.0;
	o->alloc_interval_s = 300.0;
	o->max_pause_s = 0.2;
	o->block_threshold_s = 0.1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:i:bn:t:o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_long(optarg, 1, 0x7fffffffL, &l) < 0)
				goto bad_value;
			if (!o->pid) {
				o->pid = (pid_t)l;
				break;
			}
			if (o->n_more_pids == OPT_PIDS_MAX - 1) {
				*msg = xasprintf("at most %d --pid options.", OPT_PIDS_MAX);
				return EXIT_USAGE;
			}
			o->more_pids[o->n_more_pids++] = (pid_t)l;
			break;
		case OPT_CHILDREN:
			o->children = true;
			break;
		case OPT_MATCH:
			if (!optarg[0]) {
				*msg = xstrdup("--match needs some text to look for in command lines.");
				return EXIT_USAGE;
			}
			o->match = optarg;
			break;
		case OPT_USER:
			if (!optarg[0]) {
				*msg = xstrdup("--user needs a user name or uid.");
				return EXIT_USAGE;
			}
			o->user = optarg;
			break;
		case OPT_PORT:
			if (parse_long(optarg, 1, 65535, &l) < 0)
				goto bad_value;
			o->port = (int)l;
			break;
		case OPT_HOST:
			o->host = optarg;
			break;
		case OPT_ALLOW_REMOTE:
			o->allow_remote = true;
			break;
		case OPT_SERVE:
			o->serve = optarg;
			break;
		case OPT_SERVE_TOKEN_FILE:
			o->serve_token_file = optarg;
			break;
		case OPT_SERVE_ALLOW_HOST:
			/* a DNS name as a Host header carries it, without the port */
			if (!optarg[0] || strlen(optarg) > 253 || strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != strlen(optarg)) {
				*msg = xstrdup("--serve-allow-host takes a host name (letters, digits, - and ., "
					"without a port).");
				return EXIT_USAGE;
			}
			if (o->n_serve_allow_host == OPT_SERVE_ALLOW_HOST_MAX) {
				*msg = xasprintf("--serve-allow-host is given more than %d times.",
					OPT_SERVE_ALLOW_HOST_MAX);
				return EXIT_USAGE;
			}
			o->serve_allow_host[o->n_serve_allow_host++] = optarg;
			break;
		case OPT_PUSH:
			o->push = optarg;
			break;
		case OPT_PUSH_EVERY:
			if (parse_long(optarg, 5, 3600, &l) < 0)
				goto bad_value;
			o->push_every_s = l;
			break;
		case OPT_PUSH_NAME:
			if (!push_name_ok(optarg)) {
				*msg = xstrdup("--push-name takes 1 to 128 of the letters, digits and . _ - / : "
					"(Pyroscope's application names).");
				return EXIT_USAGE;
			}
			o->push_name = optarg;
			break;
		case OPT_PUSH_TENANT:
			if (!push_name_ok(optarg)) {
				*msg = xstrdup("--push-tenant takes 1 to 128 of the letters, digits and . _ - / :.");
				return EXIT_USAGE;
			}
			o->push_tenant = optarg;
			break;
		case 'd':
			if (parse_double(optarg, &d) < 0)
				goto bad_value;
			o->delay_s = clamp_double(o, "--delay", d, OPT_DELAY_MIN_S, OPT_DELAY_MAX_S, "s");
			o->delay_set = true;
			break;
		case 'i':
			if (parse_double(optarg, &d) < 0)
				goto bad_value;
			/* V8 does not validate the interval: 0 means its default, a negative one
			 * breaks the profile, and 1 costs a fifth of the target's CPU. */
			o->interval_us = (long)clamp_double(o, "--interval", floor(d),
				OPT_INTERVAL_MIN_US, OPT_INTERVAL_MAX_US, "us");
			o->interval_set = true;
			break;
		case OPT_NO_EVAL:
			o->no_eval = true;
			break;
		case OPT_NO_WORKERS:
			o->no_workers = true;
			break;
		case OPT_NO_SOURCE_MAPS:
			o->no_source_maps = true;
			break;
		case OPT_LEAVE_JIT:
			o->inlining = JIT_KEEP;
			break;
		case OPT_REPAIR_INLINING:
			o->inlining = JIT_REPAIR;
			break;
		case OPT_INLINING:
			if (!strcmp(optarg, "repair"))
				o->inlining = JIT_REPAIR;
			else if (!strcmp(optarg, "off"))
				o->inlining = JIT_OFF;
			else if (!strcmp(optarg, "keep"))
				o->inlining = JIT_KEEP;
			else if (!strcmp(optarg, "auto"))
				o->inlining = JIT_AUTO;
			else {
				*msg = xasprintf("--inlining takes repair, off, keep or auto, not '%.40s'.",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_NO_CPU:
			o->no_cpu = true;
			break;
		case OPT_CPU_EVERY:
			if (parse_double(optarg, &d) < 0 || d <= 0)
				goto bad_value;
			o->cpu_every_s = clamp_double(o, "--cpu-every", d, 1, OPT_CPU_EVERY_MAX_S, "s");
			break;
		case OPT_MAX_PAUSE:
			if (parse_double(optarg, &d) < 0 || d < 0)
				goto bad_value;
			o->max_pause_s = clamp_double(o, "--max-pause", d, 0, 3600, "s");
			break;
		case OPT_BLOCK_THRESHOLD:
			if (parse_double(optarg, &d) < 0 || d < 0)
				goto bad_value;
			/* under 10 ms the loop's own timer (10 ms) could not confirm one */
			o->block_threshold_s = d == 0 ? 0 : clamp_double(o, "--block-threshold", d,
				0.02, 3600, "s");
			break;
		case OPT_TIMEOUT:
			if (parse_double(optarg, &d) < 0)
				goto bad_value;
			o->timeout_s = clamp_double(o, "--timeout", d, OPT_TIMEOUT_MIN_S,
				OPT_TIMEOUT_MAX_S, "s");
			break;
		case 'b':
			o->batch = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'n':
			if (parse_long(optarg, 1, 1000000000L, &l) < 0)
				goto bad_value;
			o->iterations = l;
			break;
		case 't':
			if (parse_long(optarg, 1, 100000, &l) < 0)
				goto bad_value;
			o->top_n = (size_t)l;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FOLDED:
			o->folded = optarg;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_SORT:
			if (settings_sort_parse(optarg, &(enum view_column){ 0 }) < 0)
				goto bad_value;
			o->sort = optarg;
			break;
		case OPT_REVERSE:
			o->reverse_set = true;
			break;
		case OPT_MODE:
			if (settings_mode_parse(optarg, &(enum model_mode){ 0 }) < 0)
				goto bad_value;
			o->mode = optarg;
			break;
		case OPT_FILTER:
			if (strlen(optarg) >= sizeof ((struct view_settings *)0)->filter)
				goto bad_value;
			o->filter = optarg;
			break;
		case OPT_HIDE_INTERNALS:
			o->hide_internals = true;
			break;
		case OPT_HIDE_NODE_MODULES:
			o->hide_node_modules = true;
			break;
		case OPT_THRESHOLD:
			if (parse_double(optarg, &d) < 0 || d < 0 || d > 100)
				goto bad_value;
			o->threshold_pct = d;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_SAVE_DIR:
			o->save_dir = optarg;
			break;
		case OPT_NO_CONFIG:
			o->no_config = true;
			break;
		case OPT_MEM_INTERVAL:
			if (parse_double(optarg, &d) < 0 || d < 0)
				goto bad_value;
			o->mem_interval_s = d == 0 ? 0 : clamp_double(o, "--mem-interval", d, 0.1, 3600, "s");
			break;
		case OPT_GROWTH_WINDOW:
			if (parse_double(optarg, &d) < 0)
				goto bad_value;
			o->growth_window_s = clamp_double(o, "--growth-window", d, 30, 30 * 86400.0, "s");
			break;
		case OPT_ALLOC:
			o->alloc = true;
			break;
		case OPT_ALLOC_INTERVAL:
			if (parse_double(optarg, &d) < 0)
				goto bad_value;
			o->alloc_interval_s = clamp_double(o, "--alloc-interval", d, 5, 86400, "s");
			break;
		case OPT_LOG:
			o->log_path = optarg;
			break;
		case OPT_REPLAY:
			o->replay_path = optarg;
			break;
		case OPT_FOLLOW:
			o->follow = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		case 'V':
			o->version = true;
			return 0;
		case ':':
			*msg = xasprintf("option %s needs a value.", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			*msg = xasprintf("unknown option %s (see ntop-js --help).", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		/* Only what follows "--" is a command: anything else is a slip. */
		if (optind == 1 || strcmp(argv[optind - 1], "--") != 0) {
			*msg = xasprintf("unexpected argument '%s'; to start a program, put it after "
				"-- (see ntop-js --help).", argv[optind]);
			return EXIT_USAGE;
		}
		o->command = argv + optind;
	}
	if ((o->pid != 0) + (o->port != 0) + (o->command != NULL) + o->list +
	    (o->replay_path != NULL) + (o->match != NULL || o->user != NULL) > 1) {
		*msg = xstrdup("give one of --pid, --match or --user, --port, --list, --replay or a "
			"command after --.");
		return EXIT_USAGE;
	}
	if (o->children && !o->pid) {
		*msg = xstrdup("--children goes with --pid: the processes descended from it.");
		return EXIT_USAGE;
	}
	if (o->follow && (o->n_more_pids || o->children || o->match || o->user)) {
		*msg = xstrdup("--follow waits for one process; it does not go with several --pid, "
			"--children or --match.");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->n_more_pids; i++) {
		bool twice = o->more_pids[i] == o->pid;

		for (size_t j = 0; j < i && !twice; j++)
			twice = o->more_pids[j] == o->more_pids[i];
		if (twice) {
			*msg = xasprintf("PID %d is given twice.", (int)o->more_pids[i]);
			return EXIT_USAGE;
		}
	}
	if (o->json)
		o->batch = true;
	if (o->replay_path && o->serve) {
		*msg = xstrdup("--serve serves a live target; --replay shows a log and watches none.");
		return EXIT_USAGE;
	}
	if (o->replay_path && o->batch) {
		*msg = xstrdup("--replay shows a log on the terminal; it has no batch mode.");
		return EXIT_USAGE;
	}
	if (o->batch && !o->pid && !o->port && !o->command && !o->match && !o->user) {
		*msg = xstrdup("batch mode needs a target: --pid PID, --match TEXT, --user USER, "
			"--port PORT or -- COMMAND.");
		return EXIT_USAGE;
	}
	if (o->no_cpu && o->mem_interval_s == 0) {
		*msg = xstrdup("--no-cpu with --mem-interval 0 leaves nothing to watch.");
		return EXIT_USAGE;
	}
	if (o->no_cpu && o->cpu_every_s > 0) {
		*msg = xstrdup("--no-cpu and --cpu-every contradict each other: --cpu-every runs the "
			"CPU profiler in bursts, --no-cpu never.");
		return EXIT_USAGE;
	}
	/* A burst is one window: every other window at least, else it is not a burst. */
	if (o->cpu_every_s > 0 && o->cpu_every_s < 2 * o->delay_s) {
		*msg = xasprintf("--cpu-every %g is shorter than two windows (-d %g): a burst is one "
			"window, so make it at least %g s.", o->cpu_every_s, o->delay_s, 2 * o->delay_s);
		return EXIT_USAGE;
	}
	if (o->no_cpu && o->batch && (o->output || o->folded)) {
		*msg = xasprintf("--no-cpu collects no CPU profile: %s has nothing to write.",
			o->output ? "-o" : "--folded");
		return EXIT_USAGE;
	}
	if (o->serve && serve_parse_addr(o->serve, o->serve_host, sizeof o->serve_host,
	    &o->serve_port, msg) < 0)
		return EXIT_USAGE;
	if ((o->serve_token_file || o->n_serve_allow_host) && !o->serve) {
		*msg = xstrdup("--serve-token-file and --serve-allow-host go with --serve.");
		return EXIT_USAGE;
	}
	if (o->serve && !o->allow_remote && !attach_host_is_loopback(o->serve_host)) {
		*msg = xasprintf("--serve %s is not a loopback address; what ntop-js serves names "
			"the target's code, so it listens elsewhere only with --allow-remote.", o->serve);
		return EXIT_USAGE;
	}
	/* the live view can start the profiler (c); a batch run never will */
	if (o->push && o->no_cpu && o->batch) {
		*msg = xstrdup("--no-cpu collects no CPU profile: --push has nothing to send.");
		return EXIT_USAGE;
	}
	if (o->push && o->replay_path) {
		*msg = xstrdup("--push sends a live target's profiles; --replay shows a log and "
			"watches none.");
		return EXIT_USAGE;
	}
	if (o->push && push_parse_url(o->push, &o->push_url, msg) < 0)
		return EXIT_USAGE;
	if (o->push && !o->allow_remote && !attach_host_is_loopback(o->push_url.host)) {
		*msg = xasprintf("--push %s is not a loopback address; the profiles name the target's "
			"code, so ntop-js sends them elsewhere only with --allow-remote.", o->push_url.shown);
		return EXIT_USAGE;
	}
	if (!o->push && (o->push_name || o->push_tenant)) {
		*msg = xstrdup("--push-name and --push-tenant go with --push.");
		return EXIT_USAGE;
	}
	if (o->port && !o->allow_remote && !attach_host_is_loopback(o->host)) {
		*msg = xasprintf("--host %s is not a loopback address; an inspector lets its client run "
			"any code, so ntop-js connects to other hosts only with --allow-remote.", o->host);
		return EXIT_USAGE;
	}
	return 0;

bad_value:
	*msg = xasprintf("invalid value '%s' for --%s (see ntop-js --help).", optarg, opt_name(c));
	return EXIT_USAGE;
}

void options_free(struct options *o)
{
	size_t i;

	for (i = 0; i < o->n_notices; i++)
		free(o->notices[i]);
	o->n_notices = 0;
}
