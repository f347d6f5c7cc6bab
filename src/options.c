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
	"      --no-requests      do not follow the target's HTTP requests and calls (by default\n"
	"                         they are read through Node's diagnostics_channel)\n"
	"      --no-source-maps   show positions as V8 gives them (by default a script's source\n"
	"                         map, found from its sourceMappingURL comment, gives the\n"
	"                         original function names, files and lines: TypeScript, bundles)\n"
	"      --list             list this machine's Node processes and exit\n"
	"\n"
	"Sampling:\n"
	"  -d, --delay SECS       length of each CPU window (default 1, 0.05 to 3600)\n"
	"  -i, --interval USEC    sampling interval in microseconds (default 1000, 100 to 1000000)\n"
	"      --later-interval USEC  sample every USEC after the first 5 s (default: -i\n"
	"                         throughout): a second inspector session samples at it from\n"
	"                         the attach, and the windows are its own from then on (not\n"
	"                         on Node 18)\n"
	"      --no-eval          never run code in the target: profile with Profiler.start/stop\n"
	"                         per window instead (stalls large apps at every window, and\n"
	"                         cannot close an inspector that ntop-js opened)\n"
	"      --inlining MODE    how functions V8 inlined get their time, up to Node 24:\n"
	"                         repair: V8's inlining kept, their time given back from the\n"
	"                         profile's lines (the default, with --pid);\n"
	"                         off: V8's inlining switched off while attached (the\n"
	"                         default with --port or minified code hot; exact, at a\n"
	"                         fifth of a busy server);\n"
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
	"      --diff A B         compare two profiles (.cpuprofile or pprof) function by\n"
	"                         function (self and total shares, what changed most\n"
	"                         first), and exit; --json: one object; -t N: N rows\n"
	"      --baseline FILE    compare with FILE, a profile saved before a deploy: the live\n"
	"                         view's rows carry their change against it from the start;\n"
	"                         with -b the run ends with the comparison, as --diff would\n"
	"      --follow           when the target exits, wait for it to come back and re-attach\n"
	"\n"
	"Incidents (for unattended runs):\n"
	"      --trigger EXPR     write an incident when EXPR holds (repeatable): cpu>80%,\n"
	"                         block>300ms, lag>100ms, p99>2s, p99[GET /x/:id]>500ms,\n"
	"                         rss>2G, heap>1G, heap=growing; :DURATION after it asks\n"
	"                         that it hold that long (cpu>80%:10s). The profiler then\n"
	"                         runs all the time at -i 20000 with --inlining repair\n"
	"                         unless given\n"
	"      --incident-dir DIR where incidents go, one directory each (made mode 0700):\n"
	"                         the CPU profile from --keep before to --after after it\n"
	"                         (.cpuprofile and pprof), memory, event loop and blocks\n"
	"      --keep SECS        seconds of CPU windows kept before a firing (default 60)\n"
	"      --after SECS       seconds recorded after it (default 10)\n"
	"      --cooldown SECS    no new incident until SECS after the last (default 60)\n"
	"      --incident-max N   incidents kept, the oldest removed first (default 20)\n"
	"      --incident-bytes SIZE  bytes of incidents kept (default 256M)\n"
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
	"  -V, --version          show the version, the libraries, and what is done to each\n"
	"                         Node version's JIT, and exit\n"
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

/* What an option's value is; apply_row reads and stores each kind. */
enum opt_kind {
	K_FLAG,   /* no value: sets a bool */
	K_CONST,  /* no value: sets an enum to the row's value */
	K_STRING, /* kept as given, after the row's check if it has one */
	K_INT,    /* an integer in [min, max] (int, long or size_t field), else refused */
	K_LONG,
	K_SIZE,
	K_NUMBER, /* a number in [min, max] (double field), else refused */
	K_SECS,   /* a number clamped to [min, max] with a notice (double field) */
	K_FUNC,   /* the row's handler does it all */
};

/* Row flags. */
#define R_ENDS 1u     /* parsing stops there and succeeds (--help, --version) */
#define R_NONNEG 2u   /* K_SECS: a negative value is refused */
#define R_POSITIVE 4u /* K_SECS: 0 and below are refused */
#define R_ZERO_OFF 8u /* K_SECS: 0 means off, kept without clamping */

struct opt_row;
/* Both return 0, -1 for "invalid value" or EXIT_USAGE with *msg set. */
typedef int (*opt_check)(const char *arg, char **msg);
typedef int (*opt_handler)(struct options *o, const struct opt_row *r, const char *arg,
	char **msg);

struct opt_row {
	const char *name;   /* the long name, without -- */
	char letter;        /* the short one, or 0 */
	enum opt_kind kind;
	size_t at;          /* the field in struct options */
	double min, max;
	const char *unit;   /* in K_SECS's clamp notice */
	unsigned flags;
	int value;          /* K_CONST */
	opt_check check;    /* K_STRING */
	opt_handler handle; /* K_FUNC */
};

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

/* v within the row's range, or the nearest end of it with a notice. */
static double clamp_row(struct options *o, const struct opt_row *r, double v)
{
	if (v < r->min || v > r->max) {
		double c = v < r->min ? r->min : r->max;
		notice(o, xasprintf("--%s %g %s is out of range; using %g %s.", r->name, v, r->unit,
			c, r->unit));
		return c;
	}
	return v;
}

static int opt_pid(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	long l;

	if (parse_long(arg, (long)r->min, (long)r->max, &l) < 0)
		return -1;
	if (!o->pid) {
		o->pid = (pid_t)l;
		return 0;
	}
	if (o->n_more_pids == OPT_PIDS_MAX - 1) {
		*msg = xasprintf("at most %d --pid options.", OPT_PIDS_MAX);
		return EXIT_USAGE;
	}
	o->more_pids[o->n_more_pids++] = (pid_t)l;
	return 0;
}

static int check_match(const char *arg, char **msg)
{
	if (arg[0])
		return 0;
	*msg = xstrdup("--match needs some text to look for in command lines.");
	return EXIT_USAGE;
}

static int check_user(const char *arg, char **msg)
{
	if (arg[0])
		return 0;
	*msg = xstrdup("--user needs a user name or uid.");
	return EXIT_USAGE;
}

static int opt_serve_allow_host(struct options *o, const struct opt_row *r, const char *arg,
	char **msg)
{
	/* a DNS name as a Host header carries it, without the port */
	if (!arg[0] || strlen(arg) > 253 || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != strlen(arg)) {
		*msg = xstrdup("--serve-allow-host takes a host name (letters, digits, - and ., "
			"without a port).");
		return EXIT_USAGE;
	}
	if (o->n_serve_allow_host == OPT_SERVE_ALLOW_HOST_MAX) {
		*msg = xasprintf("--serve-allow-host is given more than %d times.",
			OPT_SERVE_ALLOW_HOST_MAX);
		return EXIT_USAGE;
	}
	o->serve_allow_host[o->n_serve_allow_host++] = arg;
	return 0;
}

static int check_push_name(const char *arg, char **msg)
{
	if (push_name_ok(arg))
		return 0;
	*msg = xstrdup("--push-name takes 1 to 128 of the letters, digits and . _ - / : "
		"(Pyroscope's application names).");
	return EXIT_USAGE;
}

static int check_push_tenant(const char *arg, char **msg)
{
	if (push_name_ok(arg))
		return 0;
	*msg = xstrdup("--push-tenant takes 1 to 128 of the letters, digits and . _ - / :.");
	return EXIT_USAGE;
}

static int opt_delay(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	double d;

	if (parse_double(arg, &d) < 0)
		return -1;
	o->delay_s = clamp_row(o, r, d);
	o->delay_set = true;
	return 0;
}

static int opt_interval(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	double d;

	if (parse_double(arg, &d) < 0)
		return -1;
	/* V8 does not validate the interval: 0 means its default, a negative one
	 * breaks the profile, and 1 costs a fifth of the target's CPU. */
	o->interval_us = (long)clamp_row(o, r, floor(d));
	o->interval_set = true;
	return 0;
}

static int opt_later_interval(struct options *o, const struct opt_row *r, const char *arg,
	char **msg)
{
	double d;

	if (parse_double(arg, &d) < 0)
		return -1;
	o->later_interval_us = d == 0 ? 0 : (long)clamp_row(o, r, floor(d));
	return 0;
}

static int opt_inlining(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	if (!strcmp(arg, "repair"))
		o->inlining = JIT_REPAIR;
	else if (!strcmp(arg, "off"))
		o->inlining = JIT_OFF;
	else if (!strcmp(arg, "keep"))
		o->inlining = JIT_KEEP;
	else if (!strcmp(arg, "auto"))
		o->inlining = JIT_AUTO;
	else {
		*msg = xasprintf("--inlining takes repair, off, keep or auto, not '%.40s'.", arg);
		return EXIT_USAGE;
	}
	return 0;
}

static int opt_trigger(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	if (o->n_triggers >= OPT_TRIGGERS_MAX) {
		*msg = xasprintf("at most %d --trigger are watched at once.", OPT_TRIGGERS_MAX);
		return EXIT_USAGE;
	}
	if (trigger_parse(arg, &o->triggers[o->n_triggers], msg) < 0)
		return EXIT_USAGE;
	o->n_triggers++;
	return 0;
}

static int opt_incident_bytes(struct options *o, const struct opt_row *r, const char *arg,
	char **msg)
{
	double b;

	if (trigger_parse_size(arg, &b) < 0 || b < 1024.0 * 1024) {
		*msg = xasprintf("--incident-bytes takes a size of 1M or more (e.g. 512M, 2G), "
			"not '%.40s'.", arg);
		return EXIT_USAGE;
	}
	o->incident_bytes = b;
	return 0;
}

static int check_sort(const char *arg, char **msg)
{
	return settings_sort_parse(arg, &(enum view_column){ 0 }) < 0 ? -1 : 0;
}

static int check_mode(const char *arg, char **msg)
{
	return settings_mode_parse(arg, &(enum model_mode){ 0 }) < 0 ? -1 : 0;
}

static int check_filter(const char *arg, char **msg)
{
	return strlen(arg) >= sizeof ((struct view_settings *)0)->filter ? -1 : 0;
}

#define AT(field) offsetof(struct options, field)
#define FLAG(n, l, field) { .name = n, .letter = l, .kind = K_FLAG, .at = AT(field) }
#define CONST(n, field, v) { .name = n, .kind = K_CONST, .at = AT(field), .value = v }
#define STRING(n, l, field, c) { .name = n, .letter = l, .kind = K_STRING, .at = AT(field), \
	.check = c }
#define NUMBER(k, n, l, field, lo, hi) { .name = n, .letter = l, .kind = k, .at = AT(field), \
	.min = lo, .max = hi }
#define SECS(n, field, lo, hi, f) { .name = n, .kind = K_SECS, .at = AT(field), .min = lo, \
	.max = hi, .unit = "s", .flags = f }
#define FUNC(n, l, h, lo, hi, u) { .name = n, .letter = l, .kind = K_FUNC, .min = lo, .max = hi, \
	.unit = u, .handle = h }

/* Every option: a new one is a row here and its lines in usage_text (and a default in
 * options_defaults if it has one). K_FUNC rows give their handler min, max and unit. */
static const struct opt_row rows[] = {
	FUNC("pid", 'p', opt_pid, 1, 0x7fffffffL, NULL),
	FLAG("children", 0, children),
	STRING("match", 0, match, check_match),
	STRING("user", 0, user, check_user),
	NUMBER(K_INT, "port", 0, port, 1, 65535),
	STRING("host", 0, host, NULL),
	FLAG("allow-remote", 0, allow_remote),
	STRING("serve", 0, serve, NULL),
	STRING("serve-token-file", 0, serve_token_file, NULL),
	FUNC("serve-allow-host", 0, opt_serve_allow_host, 0, 0, NULL),
	FUNC("delay", 'd', opt_delay, OPT_DELAY_MIN_S, OPT_DELAY_MAX_S, "s"),
	FUNC("interval", 'i', opt_interval, OPT_INTERVAL_MIN_US, OPT_INTERVAL_MAX_US, "us"),
	FUNC("later-interval", 0, opt_later_interval, OPT_INTERVAL_MIN_US, OPT_INTERVAL_MAX_US, "us"),
	FLAG("no-eval", 0, no_eval),
	CONST("leave-jit", inlining, JIT_KEEP),
	CONST("repair-inlining", inlining, JIT_REPAIR),
	FUNC("inlining", 0, opt_inlining, 0, 0, NULL),
	FLAG("no-workers", 0, no_workers),
	FLAG("no-requests", 0, no_requests),
	FLAG("no-source-maps", 0, no_source_maps),
	FLAG("no-cpu", 0, no_cpu),
	SECS("max-pause", max_pause_s, 0, 3600, R_NONNEG),
	/* under 10 ms the loop's own timer (10 ms) could not confirm one */
	SECS("block-threshold", block_threshold_s, 0.02, 3600, R_NONNEG | R_ZERO_OFF),
	SECS("cpu-every", cpu_every_s, 1, OPT_CPU_EVERY_MAX_S, R_POSITIVE),
	STRING("push", 0, push, NULL),
	NUMBER(K_LONG, "push-every", 0, push_every_s, 5, 3600),
	STRING("push-name", 0, push_name, check_push_name),
	STRING("push-tenant", 0, push_tenant, check_push_tenant),
	SECS("timeout", timeout_s, OPT_TIMEOUT_MIN_S, OPT_TIMEOUT_MAX_S, 0),
	FLAG("batch", 'b', batch),
	FLAG("json", 0, json),
	NUMBER(K_LONG, "iterations", 'n', iterations, 1, 1000000000L),
	NUMBER(K_SIZE, "top", 't', top_n, 1, 100000),
	STRING("output", 'o', output, NULL),
	STRING("folded", 0, folded, NULL),
	FLAG("list", 0, list),
	STRING("sort", 0, sort, check_sort),
	FLAG("reverse", 0, reverse_set),
	STRING("mode", 0, mode, check_mode),
	STRING("filter", 0, filter, check_filter),
	FLAG("hide-internals", 0, hide_internals),
	FLAG("hide-node-modules", 0, hide_node_modules),
	NUMBER(K_NUMBER, "threshold", 0, threshold_pct, 0, 100),
	FLAG("no-color", 0, no_color),
	STRING("save-dir", 0, save_dir, NULL),
	FLAG("no-config", 0, no_config),
	SECS("mem-interval", mem_interval_s, 0.1, 3600, R_NONNEG | R_ZERO_OFF),
	SECS("growth-window", growth_window_s, 30, 30 * 86400.0, 0),
	FLAG("alloc", 0, alloc),
	SECS("alloc-interval", alloc_interval_s, 5, 86400, 0),
	STRING("log", 0, log_path, NULL),
	STRING("replay", 0, replay_path, NULL),
	STRING("diff", 0, diff_a, NULL),
	STRING("baseline", 0, baseline, NULL),
	FLAG("follow", 0, follow),
	FUNC("trigger", 0, opt_trigger, 0, 0, NULL),
	STRING("incident-dir", 0, incident_dir, NULL),
	SECS("keep", keep_s, 5, 3600, 0),
	SECS("after", after_s, 0, 600, R_NONNEG),
	SECS("cooldown", cooldown_s, 0, 86400, R_NONNEG),
	NUMBER(K_LONG, "incident-max", 0, incident_max, 1, 100000),
	FUNC("incident-bytes", 0, opt_incident_bytes, 0, 0, NULL),
	{ .name = "help", .letter = 'h', .kind = K_FLAG, .at = AT(help), .flags = R_ENDS },
	{ .name = "version", .letter = 'V', .kind = K_FLAG, .at = AT(version), .flags = R_ENDS },
};

#define N_ROWS (sizeof rows / sizeof rows[0])
/* getopt_long's value for a row: its letter, or past every char for a long-only one */
#define ROW_VAL_BASE 256

_Static_assert(sizeof(enum jit_method) == sizeof(int), "K_CONST stores an int");

/* getopt_long's tables from the rows: ":" first, so that a missing value is told apart. */
static void getopt_tables(struct option *lo, char *shorts)
{
	size_t i, n = 0;

	shorts[n++] = ':';
	for (i = 0; i < N_ROWS; i++) {
		bool arg = rows[i].kind != K_FLAG && rows[i].kind != K_CONST;

		lo[i] = (struct option){ rows[i].name, arg ? required_argument : no_argument, NULL,
			rows[i].letter ? rows[i].letter : ROW_VAL_BASE + (int)i };
		if (rows[i].letter) {
			shorts[n++] = rows[i].letter;
			if (arg)
				shorts[n++] = ':';
		}
	}
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	shorts[n] = '\0';
}

static const struct opt_row *row_of(int c)
{
	size_t i;

	if (c >= ROW_VAL_BASE)
		return (size_t)(c - ROW_VAL_BASE) < N_ROWS ? &rows[c - ROW_VAL_BASE] : NULL;
	for (i = 0; i < N_ROWS; i++)
		if (rows[i].letter && rows[i].letter == c)
			return &rows[i];
	return NULL;
}

static int apply_secs(struct options *o, const struct opt_row *r, const char *arg, double *out)
{
	double d;

	if (parse_double(arg, &d) < 0 || (r->flags & R_NONNEG && d < 0) ||
	    (r->flags & R_POSITIVE && d <= 0))
		return -1;
	*out = d == 0 && r->flags & R_ZERO_OFF ? 0 : clamp_row(o, r, d);
	return 0;
}

/* Reads arg as the row says and stores it. Returns as the handlers do. */
static int apply_row(struct options *o, const struct opt_row *r, const char *arg, char **msg)
{
	char *field = (char *)o + r->at;
	long l;
	double d;
	int rc;

	switch (r->kind) {
	case K_FLAG:
		*(bool *)field = true;
		return 0;
	case K_CONST:
		*(int *)field = r->value;
		return 0;
	case K_STRING:
		if (r->check && (rc = r->check(arg, msg)) != 0)
			return rc;
		*(const char **)field = arg;
		return 0;
	case K_INT:
	case K_LONG:
	case K_SIZE:
		if (parse_long(arg, (long)r->min, (long)r->max, &l) < 0)
			return -1;
		if (r->kind == K_INT)
			*(int *)field = (int)l;
		else if (r->kind == K_LONG)
			*(long *)field = l;
		else
			*(size_t *)field = (size_t)l;
		return 0;
	case K_NUMBER:
		if (parse_double(arg, &d) < 0 || d < r->min || d > r->max)
			return -1;
		*(double *)field = d;
		return 0;
	case K_SECS:
		return apply_secs(o, r, arg, (double *)field);
	case K_FUNC:
		return r->handle(o, r, arg, msg);
	}
	return -1;
}

static void options_defaults(struct options *o)
{
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
	o->keep_s = 60;
	o->after_s = 10;
	o->cooldown_s = 60;
	o->incident_max = 20;
	o->incident_bytes = 256.0 * 1024 * 1024;
}

/* What getopt_long left: a command after "--", or a slip. */
static int check_leftover(int argc, char **argv, struct options *o, char **msg)
{
	if (optind >= argc) {
		if (o->diff_a) {
			*msg = xstrdup("--diff compares two profiles: ntop-js --diff A.cpuprofile "
				"B.cpuprofile.");
			return EXIT_USAGE;
		}
		return 0;
	}
	/* --diff A B: B is the one word left */
	if (o->diff_a && optind == argc - 1 && strcmp(argv[optind - 1], "--") != 0) {
		o->diff_b = argv[optind];
		return 0;
	}
	/* Only what follows "--" is a command: anything else is a slip. */
	if (optind == 1 || strcmp(argv[optind - 1], "--") != 0) {
		*msg = xasprintf("unexpected argument '%s'; to start a program, put it after "
			"-- (see ntop-js --help).", argv[optind]);
		return EXIT_USAGE;
	}
	o->command = argv + optind;
	return 0;
}

/* The cross-option checks about what is watched and how, in the order they were written. */
static int options_check_targets(struct options *o, char **msg)
{
	if ((o->pid != 0) + (o->port != 0) + (o->command != NULL) + o->list +
	    (o->replay_path != NULL) + (o->match != NULL || o->user != NULL) +
	    (o->diff_a != NULL) > 1) {
		*msg = xstrdup("give one of --pid, --match or --user, --port, --list, --replay, "
			"--diff or a command after --.");
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
	if (o->diff_a && (o->serve || o->push || o->log_path || o->output || o->folded)) {
		*msg = xstrdup("--diff prints a comparison and exits; it does not go with --serve, "
			"--push, --log, -o or --folded.");
		return EXIT_USAGE;
	}
	if (o->json && !o->diff_a)
		o->batch = true;
	if (o->baseline && (o->diff_a || o->replay_path || o->list)) {
		*msg = xstrdup("--baseline compares a live target with a saved profile; use --diff A B "
			"for two files.");
		return EXIT_USAGE;
	}
	if (o->baseline && o->no_cpu) {
		*msg = xstrdup("--no-cpu collects no CPU profile: --baseline has nothing to compare.");
		return EXIT_USAGE;
	}
	if (o->replay_path && o->serve) {
		*msg = xstrdup("--serve serves a live target; --replay shows a log and watches none.");
		return EXIT_USAGE;
	}
	if (o->replay_path && o->batch) {
		*msg = xstrdup("--replay shows a log on the terminal; it has no batch mode.");
		return EXIT_USAGE;
	}
	if (o->batch && !o->pid && !o->port && !o->command && !o->match && !o->user && !o->diff_a) {
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
	return 0;
}

/* ...and about what ntop-js serves, sends and connects to. */
static int options_check_network(struct options *o, char **msg)
{
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
}

/* ...and about incidents (--trigger). */
static int options_check_incidents(struct options *o, char **msg)
{
	if (!o->n_triggers) {
		if (o->incident_dir) {
			*msg = xstrdup("--incident-dir is where --trigger writes its incidents; give "
				"one or more --trigger too.");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (o->replay_path || o->diff_a || o->list) {
		*msg = xstrdup("--trigger watches a live target; it does not go with --replay, "
			"--diff or --list.");
		return EXIT_USAGE;
	}
	if (!o->incident_dir) {
		*msg = xstrdup("--trigger needs --incident-dir DIR, where each incident is written.");
		return EXIT_USAGE;
	}
	if (o->no_cpu || o->cpu_every_s > 0) {
		*msg = xasprintf("--trigger keeps the CPU profile of the moments before it fires, so "
			"the profiler runs all the time (at a 20 ms interval); it does not go with %s.",
			o->no_cpu ? "--no-cpu" : "--cpu-every");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->n_triggers; i++) {
		const struct trigger *t = &o->triggers[i];
		double block_ms = o->block_threshold_s * 1e3;

		if (o->no_eval && (t->metric == TRIG_BLOCK || t->metric == TRIG_LAG ||
		    t->metric == TRIG_P99)) {
			*msg = xasprintf("--trigger %s is measured by an evaluation in the target, which "
				"--no-eval forbids.", t->text);
			return EXIT_USAGE;
		}
		if (t->metric == TRIG_BLOCK && block_ms <= 0) {
			*msg = xasprintf("--trigger %s needs blocked-loop events, which "
				"--block-threshold 0 turns off.", t->text);
			return EXIT_USAGE;
		}
		if (t->metric == TRIG_BLOCK && t->threshold < block_ms) {
			*msg = xasprintf("--trigger %s is under --block-threshold (%g ms): shorter blocks "
				"are not looked for; lower --block-threshold.", t->text, block_ms);
			return EXIT_USAGE;
		}
	}
	/* the flight recorder's cost: a twentieth of the default sampling (50 samples a second of
	 * a busy thread; the loop's timer then ticks every 20 ms too, engine_evloop.c), and V8's
	 * inlining left on (the repair names inlined functions), unless asked otherwise */
	if (!o->interval_set) {
		o->interval_us = 20000;
		o->interval_set = true;
	}
	if (o->inlining == JIT_AUTO)
		o->inlining = JIT_REPAIR;
	return 0;
}

static int options_check(struct options *o, char **msg)
{
	int rc = options_check_targets(o, msg);

	if (!rc)
		rc = options_check_network(o, msg);
	return rc ? rc : options_check_incidents(o, msg);
}

int options_parse(int argc, char **argv, struct options *o, char **msg)
{
	struct option lo[N_ROWS + 1];
	char shorts[2 + 2 * N_ROWS];
	const struct opt_row *r;
	int c, rc;

	options_defaults(o);
	getopt_tables(lo, shorts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == ':') {
			*msg = xasprintf("option %s needs a value.", argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (!(r = row_of(c))) {
			*msg = xasprintf("unknown option %s (see ntop-js --help).", argv[optind - 1]);
			return EXIT_USAGE;
		}
		rc = apply_row(o, r, optarg, msg);
		if (rc < 0) {
			*msg = xasprintf("invalid value '%s' for --%s (see ntop-js --help).", optarg,
				r->name);
			return EXIT_USAGE;
		}
		if (rc)
			return rc;
		if (r->flags & R_ENDS)
			return 0;
	}
	rc = check_leftover(argc, argv, o, msg);
	return rc ? rc : options_check(o, msg);
}

void options_free(struct options *o)
{
	size_t i;

	for (i = 0; i < o->n_notices; i++)
		free(o->notices[i]);
	o->n_notices = 0;
}
