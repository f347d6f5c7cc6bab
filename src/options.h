/* options.h: the command line. Parsing is pure (no I/O besides the notices it returns), so
 * the clamps and conflicts are unit-tested. */
#ifndef NTOP_OPTIONS_H
#define NTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "jitplan.h"
#include "push.h"
#include "trigger.h"

#define OPT_DELAY_MIN_S 0.05
#define OPT_DELAY_MAX_S 3600.0
#define OPT_INTERVAL_MIN_US 100
#define OPT_INTERVAL_MAX_US 1000000
#define OPT_TIMEOUT_MIN_S 0.5
#define OPT_TIMEOUT_MAX_S 3600.0
#define OPT_CPU_EVERY_MAX_S 86400.0

#define OPT_PIDS_MAX 64
#define OPT_SERVE_ALLOW_HOST_MAX 16
#define OPT_TRIGGERS_MAX 16

struct options {
	pid_t pid;            /* the first --pid: the main target */
	pid_t more_pids[OPT_PIDS_MAX - 1]; /* further --pid, watched beside it */
	size_t n_more_pids;
	bool children;        /* --children: also every Node process descended from --pid */
	const char *match;    /* --match: every Node process whose command line has this */
	const char *user;     /* --user: every Node process of this user (name or uid) */
	const char *host;
	int port;
	bool allow_remote;
	const char *serve;    /* --serve ADDR:PORT (or PORT): HTTP metrics and profiles */
	char serve_host[64];  /* ...its numeric address */
	int serve_port;
	const char *serve_token_file; /* --serve-token-file: requests need this bearer token */
	const char *serve_allow_host[OPT_SERVE_ALLOW_HOST_MAX]; /* --serve-allow-host: Host names
	                         answered besides IP addresses and localhost */
	size_t n_serve_allow_host;
	double delay_s;
	long interval_us;
	long later_interval_us; /* --later-interval: after the first seconds (0: never) */
	bool batch;
	bool json;
	long iterations;      /* 0: until interrupted */
	const char *output;   /* .cpuprofile written on exit */
	const char *folded;   /* folded stacks written on exit */
	size_t top_n;
	bool no_eval;
	enum jit_method inlining; /* --inlining (--leave-jit, --repair-inlining) */
	bool no_workers;      /* --no-workers */
	bool no_requests;     /* --no-requests */
	bool no_source_maps;  /* --no-source-maps */
	bool no_cpu;          /* --no-cpu: memory only until the live view starts the profiler */
	double max_pause_s;   /* --max-pause */
	double block_threshold_s; /* --block-threshold (0: no blocked-loop events) */
	double cpu_every_s;   /* --cpu-every: one CPU window (a burst) every so often; 0: always */
	double timeout_s;
	bool help, version;
	/* The live view. Unset settings stay as the settings file has them. */
	bool list;             /* --list: print the Node processes and exit */
	char **command;        /* after "--": a program to start and watch (NULL-terminated) */
	const char *save_dir;  /* where s and SIGUSR2 save (default ".") */
	bool no_config;
	bool delay_set, interval_set;
	const char *sort, *mode, *filter; /* NULL: unset */
	bool reverse_set, no_color, hide_internals, hide_node_modules;
	double threshold_pct;  /* < 0: unset */
	/* Memory. */
	double mem_interval_s;     /* 0: no memory readings */
	double growth_window_s;
	bool alloc;
	double alloc_interval_s;
	const char *log_path;      /* --log */
	const char *replay_path;   /* --replay */
	const char *diff_a, *diff_b; /* --diff A B: two .cpuprofile files compared */
	const char *baseline;      /* --baseline FILE: the session compared with it at the end */
	bool follow;
	/* --push: profiles to Grafana Pyroscope */
	const char *push;          /* --push URL */
	struct push_url push_url;  /* ...read */
	long push_every_s;         /* --push-every */
	const char *push_name;     /* --push-name (NULL: ntop-js.TITLE) */
	const char *push_tenant;   /* --push-tenant: X-Scope-OrgID */
	/* Incidents: --trigger, each firing a bundle in --incident-dir (app_incident.c) */
	struct trigger triggers[OPT_TRIGGERS_MAX];
	size_t n_triggers;
	const char *incident_dir;
	double keep_s;             /* --keep: the flight recorder's seconds before a firing */
	double after_s;            /* --after: and after it */
	double cooldown_s;         /* --cooldown: between two firings */
	long incident_max;         /* --incident-max: bundles kept */
	double incident_bytes;     /* --incident-bytes: bytes of bundles kept */
	char *notices[8];     /* clamp messages to show before starting */
	size_t n_notices;
};

/* Parses argv. Returns 0, or EXIT_USAGE with *msg set to one sentence (caller frees). */
int options_parse(int argc, char **argv, struct options *o, char **msg);
void options_free(struct options *o);
/* The --help text. */
const char *options_usage(void);

#endif
