/* procfs_inspect.c: Node's inspector options as /proc shows them: --inspect, --inspect-brk,
 * --inspect-port and --debug-port in a command line or NODE_OPTIONS, and [host:]port values;
 * the one reader attach, discover and launch use for where a target's inspector should be.
 * Declared in procfs.h. */
#include "config.h"

#include "procfs.h"
#include "strbuf.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for any real environment or command line; past it the rest is not read. */
#define PROCFS_INSPECT_ARGS_MAX_BYTES (1024u * 1024)

void procfs_inspect_addr_init(struct procfs_inspect_addr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->host, sizeof(a->host), "127.0.0.1");
	a->port = PROCFS_INSPECT_DEFAULT_PORT;
}

/* Node's RemoveBrackets: "[x]" -> "x", anything else unchanged. */
static size_t procfs_unbracket(const char *s, size_t n, const char **out)
{
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		*out = s + 1;
		return n - 2;
	}
	*out = s;
	return n;
}

int procfs_hostport_parse(const char *arg, char *host, size_t hostsz, int *port)
{
	size_t n = strlen(arg), hn;
	const char *colon = strrchr(arg, ':'), *h;
	unsigned long v;

	host[0] = '\0';
	/* Same rules as Node's SplitHostPort, including its default port for a host given alone:
	 * "--inspect-port=9300 --inspect=0.0.0.0" listens on 9229, not 9300. */
	*port = PROCFS_INSPECT_DEFAULT_PORT;
	if (n == 0)
		return -1;
	hn = procfs_unbracket(arg, n, &h);
	if (hn < n) {
		if (hn == 0 || hn >= hostsz)
			return -1;
		memcpy(host, h, hn);
		host[hn] = '\0';
		return 0;
	}
	if (!colon) {
		/* All digits is a port (valid or not); anything else a host name. */
		if (strspn(arg, "0123456789") == n) {
			if (!procfs_parse_dec(arg, n, 65535, &v))
				return -1;
			*port = (int)v;
			return 0;
		}
		if (n >= hostsz)
			return -1;
		memcpy(host, arg, n + 1);
		return 0;
	}
	if (!procfs_parse_dec(colon + 1, strlen(colon + 1), 65535, &v))
		return -1;
	/* ":9230" names only a port, as in Node. */
	hn = procfs_unbracket(arg, (size_t)(colon - arg), &h);
	if (hn >= hostsz)
		return -1;
	memcpy(host, h, hn);
	host[hn] = '\0';
	*port = (int)v;
	return 0;
}

static void procfs_inspect_apply(struct procfs_inspect_addr *a, const char *value)
{
	char host[256];
	int port;

	if (procfs_hostport_parse(value, host, sizeof(host), &port) < 0)
		return;
	if (host[0])
		snprintf(a->host, sizeof(a->host), "%s", host);
	a->port = port;
	a->seen = true;
}

/* Node options that take their value as the next argument: skipping them keeps a value
 * like "-e '...'" from being read as an option or as the script name. */
static bool procfs_option_takes_value(const char *name)
{
	static const char *const names[] = {
		"-e", "--eval", "-p", "--print", "-pe", "-r", "--require", "--import", "--loader",
		"--experimental-loader", "-C", "--conditions", "--input-type", "--title",
		"--inspect-port", "--debug-port", "--env-file", "--env-file-if-exists",
		"--icu-data-dir", "--openssl-config", "--redirect-warnings",
		"--trace-event-categories", "--trace-event-file-pattern", "--unhandled-rejections",
		"--dns-result-order", "--diagnostic-dir", "--report-dir", "--report-directory",
		"--report-filename", "--report-signal", "--heapsnapshot-signal",
		"--heapsnapshot-near-heap-limit", "--secure-heap", "--secure-heap-min",
		"--max-http-header-size", "--experimental-policy", "--policy-integrity",
		"--use-largepages", "--tls-cipher-list", "--tls-keylog", "--cpu-prof-dir",
		"--cpu-prof-name", "--cpu-prof-interval", "--heap-prof-dir", "--heap-prof-name",
		"--heap-prof-interval", "--watch-path", "--test-reporter",
		"--test-reporter-destination", "--test-name-pattern", "--test-shard",
		"--test-concurrency", "--test-timeout", "--disable-proto", "--snapshot-blob",
		"--experimental-default-type", "--experimental-sea-config", "--localstorage-file",
		"--stack-trace-limit", "--run",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Scans tokens tok[0..n). With stop_at_script, the first non-option ends the options. */
static void procfs_inspect_scan(char **tok, size_t n, bool stop_at_script,
	struct procfs_inspect_addr *a)
{
	for (size_t i = 0; i < n; i++) {
		char name[64];
		const char *arg = tok[i], *eq, *value = NULL;
		size_t nl;

		if (strcmp(arg, "--") == 0)
			return;
		if (arg[0] != '-' || arg[1] == '\0') {
			if (stop_at_script)
				return;
			continue;
		}
		eq = strchr(arg, '=');
		nl = eq ? (size_t)(eq - arg) : strlen(arg);
		if (nl >= sizeof(name))
			continue;
		memcpy(name, arg, nl);
		name[nl] = '\0';
		/* Node accepts "_" for "-" inside option names. */
		if (name[1] == '-')
			for (size_t k = 2; k < nl; k++)
				if (name[k] == '_')
					name[k] = '-';
		if (eq)
			value = eq + 1;
		if (strcmp(name, "--inspect") == 0 || strcmp(name, "--inspect-brk") == 0 ||
			strcmp(name, "--inspect-wait") == 0 || strcmp(name, "--inspect-brk-node") == 0) {
			a->opens = true;
			if (value)
				procfs_inspect_apply(a, value);
			continue;
		}
		if (!value && procfs_option_takes_value(name) && i + 1 < n)
			value = tok[++i];
		if (value && (strcmp(name, "--inspect-port") == 0 || strcmp(name, "--debug-port") == 0))
			procfs_inspect_apply(a, value);
	}
}

/* Splits a NUL-separated buffer into a vector of strings (the buffer's last item may lack
 * its NUL: the copy adds one). */
static char **procfs_split_nul(const char *buf, size_t len, char **copy, size_t *count)
{
	char **v = NULL;
	size_t cap = 0, n = 0, i = 0;

	*copy = xmalloc(len + 1);
	memcpy(*copy, buf, len);
	(*copy)[len] = '\0';
	while (i < len) {
		size_t el = strlen(*copy + i);
		v = xreallocarray_grow(v, &cap, n + 1, sizeof(*v));
		v[n++] = *copy + i;
		i += el + 1;
	}
	*count = n;
	return v;
}

void procfs_inspect_scan_argv(const char *buf, size_t len, struct procfs_inspect_addr *a)
{
	char *copy, **v;
	size_t n;

	v = procfs_split_nul(buf, len, &copy, &n);
	if (n > 1)
		procfs_inspect_scan(v + 1, n - 1, true, a);
	free(v);
	free(copy);
}

void procfs_inspect_scan_node_options(const char *value, struct procfs_inspect_addr *a)
{
	struct strbuf sb;
	bool in_quotes = false, in_token = false;
	char *copy, **v;
	size_t n;

	/* Node's ParseNodeOptionsEnvVar: spaces separate, "..." groups, \ escapes in quotes. */
	strbuf_init(&sb);
	for (const char *p = value; *p; p++) {
		if (!in_quotes && *p == ' ') {
			if (in_token)
				strbuf_putc(&sb, '\0');
			in_token = false;
			continue;
		}
		in_token = true;
		if (*p == '"') {
			in_quotes = !in_quotes;
			continue;
		}
		if (in_quotes && *p == '\\' && p[1]) {
			p++;
		}
		strbuf_putc(&sb, *p);
	}
	if (in_token)
		strbuf_putc(&sb, '\0');
	if (sb.len) {
		v = procfs_split_nul(sb.data, sb.len, &copy, &n);
		procfs_inspect_scan(v, n, false, a);
		free(v);
		free(copy);
	}
	strbuf_free(&sb);
}

void procfs_inspect_addr_scan(const char *env, size_t env_len, const char *cmd, size_t cmd_len,
	struct procfs_inspect_addr *a)
{
	const char *node_options = env ? procfs_environ_get(env, env_len, "NODE_OPTIONS") : NULL;

	procfs_inspect_addr_init(a);
	if (node_options)
		procfs_inspect_scan_node_options(node_options, a);
	if (cmd)
		procfs_inspect_scan_argv(cmd, cmd_len, a);
}

void procfs_inspect_addr_read(pid_t pid, struct procfs_inspect_addr *a)
{
	char path[64], *env, *cmd;
	size_t env_len, cmd_len;

	/* A file that cannot be read comes back NULL, and is scanned as empty. */
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	procfs_file_read(path, PROCFS_INSPECT_ARGS_MAX_BYTES, &env, &env_len, NULL);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	procfs_file_read(path, PROCFS_INSPECT_ARGS_MAX_BYTES, &cmd, &cmd_len, NULL);
	procfs_inspect_addr_scan(env, env_len, cmd, cmd_len, a);
	free(env);
	free(cmd);
}
