/* fuzz_procfs: the /proc text parsers on hostile input.
 *
 * Each input goes through every parser, so that a recorded file of any kind (status, net/tcp,
 * children, cmdline, environ, fd links) is a useful seed for all of them:
 * procfs_status_parse, procfs_status_rss, procfs_net_tcp_parse (both families),
 * procfs_children_parse, procfs_environ_get, procfs_cmdline_argv0, procfs_inspect_scan_argv,
 * procfs_inspect_scan_node_options, procfs_inspect_addr_scan, procfs_hostport_parse and
 * procfs_socket_inode_parse (on a NUL-terminated copy, and on each line), and contention.h's
 * parsers (schedstat, /proc/PID/cgroup, cpu.stat, cpu.max, cfs quota). The harness checks
 * that the results stay within the structures (names NUL-terminated and free of control
 * characters, ports in range). */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "contention.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_procfs"
#include "fuzz_check.h"

static void check_addr(const struct procfs_inspect_addr *a)
{
	CHECK(memchr(a->host, '\0', sizeof a->host) != NULL, "host not NUL-terminated");
	CHECK(a->port >= 0 && a->port <= 65535, "port %d", a->port);
}

static void listeners(const char *text, size_t len, int family)
{
	struct procfs_listeners l = { 0 };
	char addr[64];
	int r = procfs_net_tcp_parse(text, len, family, &l);

	CHECK(r < 0 || (size_t)r == l.n, "%d rows but %zu listeners", r, l.n);
	for (size_t i = 0; i < l.n; i++) {
		CHECK(l.v[i].family == family, "family %d", l.v[i].family);
		CHECK(l.v[i].port >= 0 && l.v[i].port <= 65535, "port %d", l.v[i].port);
		procfs_listener_addr_str(&l.v[i], addr, sizeof addr);
		CHECK(memchr(addr, '\0', sizeof addr) != NULL, "address not NUL-terminated");
		(void)procfs_listener_is_wildcard(&l.v[i]);
		(void)procfs_listener_is_loopback(&l.v[i]);
	}
	procfs_listeners_free(&l);
}

/* The kernel's CPU-contention files: numbers that are numbers, a group that is a clean
 * absolute path without "..". */
static void contention(const char *text, size_t size)
{
	char group[256];
	struct contention_sample k;
	double v;
	bool v2;

	if (contention_schedstat_parse(text, size, &v) == 0)
		CHECK(v >= 0 && isfinite(v), "wait %g", v);
	if (contention_cpu_stat_parse(text, size, &k) == 0)
		CHECK(k.throttled_s >= 0 && isfinite(k.throttled_s), "throttled %g", k.throttled_s);
	if (contention_cpu_max_parse(text, size, &v) == 0)
		CHECK(v >= 0 && !isnan(v), "cores %g", v);
	if (contention_cfs_parse(text, size, text, size, &v) == 0)
		CHECK(v >= 0 && !isnan(v), "cores %g", v);
	if (contention_cgroup_parse(text, size, &v2, group, sizeof group) == 0) {
		check_clean(group, sizeof group);
		CHECK(group[0] == '/' && !strstr(group, "/../") && !strstr(group, "/./"),
			"group %s", group);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct procfs_status st;
	struct procfs_pids pids = { 0 };
	struct procfs_inspect_addr a;
	char *z, argv0[64], host[256];
	const char *env;
	double rss;
	int port, r;

	if (procfs_status_parse(text, size, &st) == 0) {
		check_clean(st.name, sizeof st.name);
		CHECK(st.tgid >= 0 && st.ppid >= 0, "negative pid");
		CHECK(st.ns_levels >= 0 && st.ns_levels <= 64 && st.ns_tgid >= 0 &&
			(st.ns_levels == 0) == (st.ns_tgid == 0), "NStgid %d, %d levels",
			(int)st.ns_tgid, st.ns_levels);
	}
	if (procfs_status_rss(text, size, &rss) == 0)
		CHECK(rss >= 0 && !isnan(rss), "rss %g", rss);
	contention(text, size);

	listeners(text, size, AF_INET);
	listeners(text, size, AF_INET6);

	r = procfs_children_parse(text, size, &pids);
	CHECK(r < 0 || (size_t)r == pids.n, "%d children but %zu pids", r, pids.n);
	for (size_t i = 0; i < pids.n; i++)
		CHECK(pids.v[i] > 0, "pid %d", (int)pids.v[i]);
	procfs_pids_free(&pids);

	env = procfs_environ_get(text, size, "NODE_OPTIONS");
	procfs_inspect_addr_init(&a);
	if (env) {
		CHECK(env > text && env < text + size, "value outside the buffer");
		CHECK(memchr(env, '\0', size - (size_t)(env - text)) != NULL,
			"value not NUL-terminated inside the buffer");
		procfs_inspect_scan_node_options(env, &a);
		check_addr(&a);
	}
	procfs_cmdline_argv0(text, size, argv0, sizeof argv0);
	check_clean(argv0, sizeof argv0);
	procfs_cmdline_argv0(text, size, argv0, 1);
	CHECK(argv0[0] == '\0', "argv0 into a 1-byte buffer");
	procfs_inspect_scan_argv(text, size, &a);
	check_addr(&a);
	procfs_inspect_addr_scan(text, size, text, size, &a);
	check_addr(&a);

	/* the string parsers take C strings: the input up to its first NUL, and each line */
	z = malloc(size + 1);
	memcpy(z, data, size);
	z[size] = '\0';
	procfs_inspect_addr_init(&a);
	procfs_inspect_scan_node_options(z, &a);
	check_addr(&a);
	for (char *line = z, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		(void)procfs_socket_inode_parse(line);
		if (procfs_hostport_parse(line, host, sizeof host, &port) == 0) {
			CHECK(memchr(host, '\0', sizeof host) != NULL, "host not NUL-terminated");
			CHECK(port >= -1 && port <= 65535, "port %d", port);
		}
		if (procfs_hostport_parse(line, host, 8, &port) == 0)
			CHECK(strlen(host) < 8, "host overflows its buffer");
	}
	free(z);
	return 0;
}
