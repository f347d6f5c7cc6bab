/* test_push.c: --push's pure parts: the URL, names and query escaping, the request (its
 * multipart body), the reply's status line, and the queue's and the retries' decisions. */
#include "config.h"

#include "tap.h"
#include "push.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

static void test_url(void)
{
	struct push_url u;
	char *cause = NULL;

	ok(push_parse_url("http://127.0.0.1:4040", &u, &cause) == 0, "numeric host and port");
	is_str(u.host, "127.0.0.1", "host");
	is_int(u.port, 4040, "port");
	is_str(u.base, "", "no prefix");
	ok(push_parse_url("http://localhost/pyro/", &u, &cause) == 0, "localhost with a prefix");
	is_str(u.host, "127.0.0.1", "localhost is 127.0.0.1");
	is_int(u.port, 80, "port 80 by default");
	is_str(u.base, "/pyro", "prefix without its last slash");
	ok(push_parse_url("http://[::1]:9/", &u, &cause) == 0, "IPv6");
	is_str(u.host, "::1", "IPv6 host");
	is_str(u.shown, "http://[::1]:9", "shown");
	ok(push_parse_url("https://127.0.0.1", &u, &cause) < 0 && strstr(cause, "http://"),
		"https refused: %s", cause);
	free(cause);
	cause = NULL;
	ok(push_parse_url("http://pyroscope.example:4040", &u, &cause) < 0 &&
		strstr(cause, "resolves no host names"), "a name is refused with the reason: %s", cause);
	free(cause);
	cause = NULL;
	ok(push_parse_url("http://127.0.0.1:0", &u, &cause) < 0, "port 0");
	free(cause);
	cause = NULL;
	ok(push_parse_url("http://127.0.0.1:80/a?b", &u, &cause) < 0, "a query in the URL");
	free(cause);
	cause = NULL;
	ok(push_parse_url("http://:80", &u, &cause) < 0, "no host");
	free(cause);
}

/* Credentials in the URL: sent as basic authentication, never shown. */
static void test_credentials(void)
{
	struct push_url u;
	struct strbuf b;
	struct push_meta m;
	char *cause = NULL, out[128];
	unsigned char gz[1] = { 0 };
	static const char *const bad[] = {
		"http://user:PASSWORD@pyroscope.example:4040",
		"https://user:PASSWORD@127.0.0.1:4040",
		"http://user:PASSWORD@127.0.0.1:0",
		"http://user:PASSWORD@127.0.0.1:4040/a?b",
		"http://user:PASSWORD@",
		"http://user:PASS%zzWORD@127.0.0.1",
		"http://user:PASS%0aWORD@127.0.0.1",
		"http://@127.0.0.1",
	};

	ok(push_parse_url("http://user:PASSWORD@127.0.0.1:4040/p", &u, &cause) == 0,
		"USER:PASSWORD@ is taken");
	is_str(u.host, "127.0.0.1", "the host after it");
	is_int(u.port, 4040, "its port");
	is_str(u.shown, "http://127.0.0.1:4040/p", "shown without the credentials");
	is_str(u.auth, "Basic dXNlcjpQQVNTV09SRA==", "basic authentication of user:PASSWORD");
	memset(&m, 0, sizeof m);
	m.name = "app";
	strbuf_init(&b);
	push_build_request(&b, &u, &m, gz, sizeof gz);
	ok(strstr(b.data, "\r\nAuthorization: Basic dXNlcjpQQVNTV09SRA==\r\n") != NULL,
		"sent as an Authorization header");
	ok(strstr(b.data, "PASSWORD") == NULL, "never in clear");
	ok(push_parse_url("http://a%40b:p%2F%3Aw@[::1]", &u, &cause) == 0 &&
		strcmp(u.auth, "Basic YUBiOnAvOnc=") == 0, "percent-encoded (a@b:p/:w): %s", u.auth);
	ok(push_parse_url("http://u:pa/ss@127.0.0.1", &u, &cause) == 0 &&
		strcmp(u.host, "127.0.0.1") == 0 && strcmp(u.base, "") == 0,
		"a / in the password stays in the password");
	ok(push_parse_url("http://tok@127.0.0.1", &u, &cause) == 0 &&
		strcmp(u.auth, "Basic dG9r") == 0, "a user alone");
	ok(push_parse_url("http://127.0.0.1", &u, &cause) == 0 && u.auth[0] == '\0',
		"none: no authentication");
	strbuf_reset(&b);
	push_build_request(&b, &u, &m, gz, sizeof gz);
	ok(strstr(b.data, "Authorization") == NULL, "and no header");
	strbuf_free(&b);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		ok(push_parse_url(bad[i], &u, &cause) < 0 && cause && !strstr(cause, "PASS") &&
			!strstr(cause, "user:"), "'%s' refused without its credentials: %s", bad[i],
			cause ? cause : "(none)");
		free(cause);
	}
	push_redact_url("http://user:PASSWORD@127.0.0.1:4040/x", out, sizeof out);
	is_str(out, "http://***@127.0.0.1:4040/x", "redacted");
	push_redact_url("http://127.0.0.1:4040/x", out, sizeof out);
	is_str(out, "http://127.0.0.1:4040/x", "nothing to redact");
	push_redact_url("ftp://u:p@h@i\n", out, sizeof out);
	ok(strncmp(out, "ftp://***@i", 11) == 0 && !strchr(out, '\n'),
		"any scheme, the last @, sanitized: %s", out);
	push_redact_url(NULL, out, sizeof out);
	is_str(out, "", "NULL");
}

static void test_names(void)
{
	struct strbuf b;
	char out[16];

	ok(push_name_ok("ntop-js.api_v2/x:1"), "a name of the allowed bytes");
	ok(!push_name_ok("a{b}"), "braces refused");
	ok(!push_name_ok("a b"), "space refused");
	ok(!push_name_ok(""), "empty refused");
	push_name_clean("node app.js{x}", out, sizeof out);
	is_str(out, "node_app.js_x_", "cleaned");
	push_name_clean(NULL, out, sizeof out);
	is_str(out, "node", "no title: node");
	strbuf_init(&b);
	push_query_escape(&b, "ntop-js.node{pid=12,thread=main}");
	is_str(b.data, "ntop-js.node%7Bpid%3D12%2Cthread%3Dmain%7D", "name and labels escaped");
	strbuf_reset(&b);
	push_query_escape(&b, "a/b:c ~&\xc3\xa9");
	is_str(b.data, "a%2Fb%3Ac%20~%26%C3%A9", "reserved, space and UTF-8 escaped");
	strbuf_free(&b);
}

static void test_request(void)
{
	struct push_url u;
	struct push_meta m;
	struct strbuf b;
	char *cause = NULL, *body, *bnd, boundary[80], want[200];
	const char *ct, *cl;
	unsigned char gz[5] = { 0x1f, 0x8b, 0x00, '\r', '\n' };
	size_t len, n;

	ok(push_parse_url("http://127.0.0.1:4040/p", &u, &cause) == 0, "url");
	memset(&m, 0, sizeof m);
	m.name = "app{pid=1}";
	m.tenant = "team-a";
	m.from = 1700000000;
	m.until = 1700000015;
	m.sample_rate = 1000;
	strbuf_init(&b);
	push_build_request(&b, &u, &m, gz, sizeof gz);
	ok(strncmp(b.data, "POST /p/ingest?name=app%7Bpid%3D1%7D&from=1700000000&until=1700000015"
		"&format=pprof&spyName=ntop-js&sampleRate=1000 HTTP/1.1\r\n", 117) == 0,
		"request line");
	ok(strstr(b.data, "\r\nHost: 127.0.0.1:4040\r\n") != NULL, "Host");
	ok(strstr(b.data, "\r\nX-Scope-OrgID: team-a\r\n") != NULL, "tenant");
	ok(strstr(b.data, "\r\nConnection: close\r\n\r\n") != NULL, "one request a connection");
	ct = strstr(b.data, "Content-Type: multipart/form-data; boundary=");
	ok(ct != NULL, "multipart");
	n = strcspn(ct + 44, "\r");
	ok(n > 0 && n < sizeof boundary, "boundary");
	memcpy(boundary, ct + 44, n);
	boundary[n] = '\0';
	body = strstr(b.data, "\r\n\r\n") + 4;
	len = b.len - (size_t)(body - b.data);
	cl = strstr(b.data, "Content-Length: ");
	is_int(strtol(cl + 16, NULL, 10), (long)len, "Content-Length is the body's");
	snprintf(want, sizeof want, "--%s\r\nContent-Disposition: form-data; name=\"profile\"; "
		"filename=\"profile.pprof\"\r\nContent-Type: application/octet-stream\r\n\r\n",
		boundary);
	ok(strncmp(body, want, strlen(want)) == 0, "the part's head");
	ok(memcmp(body + strlen(want), gz, sizeof gz) == 0, "the gzipped bytes as they are");
	snprintf(want, sizeof want, "\r\n--%s--\r\n", boundary);
	bnd = body + len - strlen(want);
	ok(memcmp(bnd, want, strlen(want)) == 0, "the closing boundary ends the body");
	strbuf_reset(&b);
	m.tenant = NULL;
	push_build_request(&b, &u, &m, gz, sizeof gz);
	ok(strstr(b.data, "X-Scope-OrgID") == NULL, "no tenant, no header");
	strbuf_free(&b);
}

static void test_status(void)
{
	int st = 0;

	is_int(push_parse_status("HTTP/1.1 200 OK\r\n", 17, &st), 1, "200 whole");
	is_int(st, 200, "status 200");
	is_int(push_parse_status("HTTP/1.0 503\r\n", 14, &st), 1, "no reason");
	is_int(st, 503, "status 503");
	is_int(push_parse_status("HTTP/1.1 20", 11, &st), 0, "more needed");
	is_int(push_parse_status("HTT", 3, &st), 0, "a prefix: more needed");
	is_int(push_parse_status("SSH-2.0-x\r\n", 11, &st), -1, "not HTTP");
	is_int(push_parse_status("HTTP/1.1 2x0 OK\r\n", 17, &st), -1, "bad digits");
	is_int(push_parse_status("HTTP/1.1 999 OK\r\n", 17, &st), -1, "out of range");
	is_int(push_classify(200), PUSH_DELIVERED, "2xx delivered");
	is_int(push_classify(204), PUSH_DELIVERED, "204 delivered");
	is_int(push_classify(500), PUSH_RETRY, "5xx retried");
	is_int(push_classify(429), PUSH_RETRY, "429 retried");
	is_int(push_classify(400), PUSH_REFUSED, "400 refused");
	is_int(push_classify(413), PUSH_REFUSED, "413 refused");
	is_int(push_classify(301), PUSH_RETRY, "a redirect is not followed: retried");
}

static void test_backoff(void)
{
	double d = 0;

	d = push_backoff_next(d);
	is_num(d, 1, 0, "first retry after 1 s");
	d = push_backoff_next(d);
	is_num(d, 2, 0, "then 2 s");
	for (int i = 0; i < 10; i++)
		d = push_backoff_next(d);
	is_num(d, PUSH_BACKOFF_MAX_S, 0, "at most 60 s");
}

static int notices;

static void on_notice(void *ud, const char *msg)
{
	(void)ud;
	(void)msg;
	notices++;
}

static void test_queue(void)
{
	struct push_url u;
	struct push_handlers h = { on_notice };
	struct push *p;
	char *cause = NULL;
	static unsigned char big[1 << 20];

	ok(push_parse_url("http://127.0.0.1:4040", &u, &cause) == 0, "url");
	p = push_create(&u, NULL, &h, NULL);
	for (int i = 0; i < PUSH_QUEUE_MAX; i++)
		push_enqueue(p, "a", i, i + 1, 100, "x", 1);
	is_int(push_queued(p), PUSH_QUEUE_MAX, "the queue holds 32 profiles");
	is_int(push_dropped(p), 0, "none dropped");
	is_int(notices, 0, "nothing said");
	push_enqueue(p, "a", 40, 41, 100, "x", 1);
	push_enqueue(p, "a", 41, 42, 100, "x", 1);
	is_int(push_queued(p), PUSH_QUEUE_MAX, "still 32");
	is_int(push_dropped(p), 2, "the two oldest dropped");
	is_int(notices, 1, "said once");
	push_free(p);

	notices = 0;
	p = push_create(&u, "t", &h, NULL);
	for (int i = 0; i < 20; i++)
		push_enqueue(p, "a", i, i + 1, 100, big, sizeof big);
	ok(push_queued_bytes(p) <= PUSH_QUEUE_MAX_BYTES, "at most 16 MB queued");
	is_int(push_queued(p), 16, "16 profiles of 1 MB");
	is_int(push_dropped(p), 4, "4 dropped for the bytes");
	is_int(notices, 1, "said once");
	is_num(push_backoff(p), 0, 0, "no retry pending");
	push_free(p);
	push_free(NULL);
}

int main(void)
{
	test_url();
	test_credentials();
	test_names();
	test_request();
	test_status();
	test_backoff();
	test_queue();
	return done_testing();
}
