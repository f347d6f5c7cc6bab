/* inspector_ws.c: one-shot evaluations in a target over a websocket of their own, before
 * the event loop runs (inspector_ws.h). */
#include "config.h"

#include "inspector_ws.h"
#include "http.h"
#include "procfs.h"
#include "strbuf.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

int inspector_eval_closing(const struct inspector_ws *w, const char *body, double timeout_s,
	char **reply, char **why)
{
	struct strbuf expr, msg;
	int code;

	strbuf_init(&expr);
	strbuf_init(&msg);
	strbuf_puts(&expr, "(function(i){");
	strbuf_puts(&expr, body);
	strbuf_puts(&expr, "})(" INSPECTOR_MODULE ")");
	strbuf_puts(&msg, "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":");
	strbuf_json_string(&msg, expr.data, expr.len);
	strbuf_puts(&msg, ",\"includeCommandLineAPI\":true}}");
	code = http_ws_command(w->ns, w->host, w->port, w->host_header, w->path, msg.data,
		timeout_s, reply, why);
	strbuf_free(&expr);
	strbuf_free(&msg);
	return code < 0 ? -1 : 0;
}

/* Node dispatches an inspector message by interrupting the JavaScript that runs, so code
 * ntop-js evaluates in a process that is still starting runs inside Node's own bootstrap, or
 * inside a built-in module's first load: loading the inspector module from there found a module
 * half loaded ("TypeError: Cannot redefine property: Symbol(kCreateEvent)" in Node 20, launched
 * on a loaded machine), which failed the session and could leave that module broken for the
 * program. The first evaluation in a young process therefore only looks at its own stack: with
 * a frame of node:internal/bootstrap/ (the module loader, the bootstrap; Node 18's
 * pre_execution) or node:internal/process/pre_execution (--require preloads run there) below
 * it, it returns false and is sent again later; else it loads the inspector module while it
 * knows nothing is half loaded, and returns true. A stack it cannot read counts as settled. */
#define SETTLE_YOUNG_S 60.0   /* a process older than this finished starting long ago */
#define SETTLE_MAX_S 5.0      /* then the evaluations go ahead as they did before */
#define SETTLE_FIRST_WAIT_S 0.02 /* between two tries, doubling */
#define SETTLE_LAST_WAIT_S 0.32
#define SETTLE_EXPR \
	"(function ntopJsSettle(){var E=Error,h=Object.prototype.hasOwnProperty.call(E," \
	"'prepareStackTrace'),p=E.prepareStackTrace,l=E.stackTraceLimit,o={},f;" \
	"try{E.stackTraceLimit=200;E.prepareStackTrace=function(e,c){return c.map(function(x){" \
	"return String(x.getFileName())})};E.captureStackTrace(o);f=o.stack}finally{" \
	"E.stackTraceLimit=l;if(h)E.prepareStackTrace=p;else delete E.prepareStackTrace}" \
	"if(Array.isArray(f))for(var i=0;i<f.length;i++)" \
	"if(f[i].indexOf('node:internal/bootstrap/')===0||" \
	"f[i].indexOf('node:internal/process/pre_execution')===0)return false;" \
	INSPECTOR_MODULE ";return true})()"

/* False only when the reply to SETTLE_EXPR is the boolean false (startup under it): an error or
 * an exception is not for waiting out, and the evaluations that follow say what it was. */
static bool settle_reply(const char *reply)
{
	cJSON *root = cJSON_Parse(reply);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "result");
	const cJSON *inner = cJSON_GetObjectItemCaseSensitive(res, "result");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(inner, "value");
	bool settled = !cJSON_IsFalse(v);

	cJSON_Delete(root);
	return settled;
}

void inspector_settle(const struct inspector_ws *w, pid_t pid, double timeout_s)
{
	static const char msg[] = "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":"
		"{\"expression\":\"" SETTLE_EXPR "\",\"silent\":true,\"includeCommandLineAPI\":true}}";
	double age_s, until_s = util_now_mono_s() + fmin(timeout_s, SETTLE_MAX_S);
	double wait_s = SETTLE_FIRST_WAIT_S;

	if (procfs_age_s(pid, &age_s) < 0 || age_s > SETTLE_YOUNG_S)
		return;
	for (;;) {
		char *reply = NULL, *why = NULL;
		bool settled;

		if (http_ws_command(w->ns, w->host, w->port, w->host_header, w->path, msg,
			until_s - util_now_mono_s(), &reply, &why) < 0) {
			free(why);
			return; /* the evaluations that follow meet the same trouble and say so */
		}
		settled = !reply || settle_reply(reply);
		free(reply);
		if (settled || util_now_mono_s() + wait_s >= until_s)
			return;
		util_sleep_s(wait_s);
		wait_s = fmin(wait_s * 2, SETTLE_LAST_WAIT_S);
	}
}
