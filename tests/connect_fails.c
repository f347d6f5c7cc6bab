/* connect_fails.c: an LD_PRELOAD shim for exits_close.sh. The Nth websocket that ntop-js
 * opens (NTOP_TEST_FAIL_CONNECT=N, counted from 1) cannot be created, as when the system is
 * out of descriptors: the paths where an engine cannot start after its target's inspector
 * was opened. Every other call goes to libwebsockets. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

struct lws;
struct lws_client_connect_info;

typedef struct lws *(*connect_fn)(const struct lws_client_connect_info *);

struct lws *lws_client_connect_via_info(const struct lws_client_connect_info *i)
{
	static connect_fn real;
	static int calls;
	const char *fail = getenv("NTOP_TEST_FAIL_CONNECT");

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "lws_client_connect_via_info");
	if (fail && ++calls == atoi(fail))
		return NULL;
	return real ? real(i) : NULL;
}
