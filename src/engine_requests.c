/* engine_requests.c: the target's HTTP requests and calls (requests.h). At every window, one
 * evaluation (ntopJsReq) returns what finished since the last one and how many are in flight.
 * The first subscribes to Node's diagnostics_channel (no flag; channels with no subscriber
 * cost nothing): http.server.request.start and .response.finish for inbound requests (the
 * route is read when the response finishes, when express has set req.route), and
 * http.client.request.start, .response.finish and .request.error and undici's
 * request:create, :headers and :error (fetch) for outbound calls. Every request and call is
 * counted; up to REQ_FOLLOW_PER_S a second each is followed, above that one in N (at random,
 * N on average), counted N times. A followed request is held in a Map by its response object
 * until it finishes (at most 10,000; one whose socket closed first counts as aborted, an
 * error) and a followed call in a WeakMap (a call whose end never comes stays in its
 * destination's in-flight count, as the N it stands for): nothing is added to the
 * application's own objects. Each kind keeps at most REQ_ROWS_MAX rows (the rest is "other"). Everything
 * lives in an object on a Symbol.for key of globalThis under this session's nonce, with an
 * unref'd watchdog that unsubscribes if ntop-js stops reading (a kill -9); engine_requests_leave
 * unsubscribes at detach. Eval mode only. */
#include "config.h"

#include "engine_priv.h"
#include "jsonpull.h"
#include "requests.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* HTTP requests and calls: the reading's evaluation and what it returned. */
struct engine_req {
	char *expr;                   /* the reading's evaluation (this session's nonce) */
	bool pending;                 /* a reading is on its way */
	bool installed;               /* a reading was sent (which subscribes to the channels) */
	bool fresh;                   /* last has not been taken (engine_requests_take) */
	struct req_window *last;      /* the latest reading's (NULL: none yet) */
	struct req_window *totals;    /* since attach */
};

#define REQ_KEY "Symbol.for('ntop-js.req')"
/* The watchdog: as the event-loop reading's (a minute, or three windows and twice the
 * timeout if longer). */
#define REQ_WATCHDOG_MIN_S 60.0
/* Inbound requests followed at once; beyond, new ones are not timed. */
#define REQ_OPEN_MAX 10000

static const char req_head[] =
	"(function ntopJsReq(MAXR,WD,OPEN,WMAX,FOL){var dc=process.getBuiltinModule?"
	"process.getBuiltinModule('diagnostics_channel'):require('diagnostics_channel'),"
	"K=" REQ_KEY ",all=globalThis[K],id='";
static const char req_body[] =
	"',P=globalThis.performance;"
	"if(!all||typeof all!=='object'){all=Object.create(null);"
	"Object.defineProperty(globalThis,K,{value:all,configurable:true,writable:true});}"
	"var o=all[id];function now(){return P.now()}"
	/* a finished request or call into its row, weighing n (a request followed as one of n):
	 * count, errors, longest, sum, histogram, and (a request) the time it waited on each
	 * destination (w: Map dest -> [open, since, ms]) */
	"function add(m,k,ms,err,e,t,n){var b=m.get(k);if(!b){if(m.size>=MAXR){k='other';b=m.get(k);}"
	"if(!b){b={n:0,e:0,x:0,s:0,h:{},w:null,wn:0,ws:0};m.set(k,b);}}n=n||1;b.n+=n;if(err)b.e+=n;if(ms>b.x)b.x=ms;b.s+=ms*n;"
	"var i=ms<=0.05?0:Math.min(95,1+Math.floor(Math.log2(ms/0.05)*4));b.h[i]=(b.h[i]||0)+n;"
	"if(e&&e.s){b.wn++;b.ws+=ms;if(e.w){if(!b.w)b.w=Object.create(null);e.w.forEach(function(x,d){"
	"if(!(d in b.w)&&Object.keys(b.w).length>=WMAX)d='other';"
	"b.w[d]=(b.w[d]||0)+x[2]+(x[0]>0?t-x[1]:0)})}}}"
	/* the framework's pattern (express: the mount path and the route's), else the path with
	 * numbers, long hex and uuids as :id */
	"function route(q){var r=q.route;if(r&&typeof r.path==='string')"
	"return(typeof q.baseUrl==='string'?q.baseUrl:'')+r.path;"
	"var u=String(q.url||'/'),i=u.indexOf('?');if(i>=0)u=u.slice(0,i);"
	"return u.slice(0,200).split('/').map(function(s){return/^[0-9]+$/.test(s)||"
	"/^[0-9a-fA-F-]{16,}$/.test(s)||/^[0-9a-fA-F]{8,}$/.test(s)&&/[0-9]/.test(s)?':id':s})"
	".join('/')}"
	/* A request's key, method and route. Made once per route, not per request: express's
	 * Route object (and the mount path it was reached by) or the raw URL (up to 512 of them)
	 * keeps the string it gave, whose hash V8 then keeps too; a new string per request, built
	 * and hashed, was most of what reading routes cost (doc/benchmarks.md section 21). */
	"function skey(e){if(e.r)return e.r;var q=e.q,m=q.method||'?',r=q.route,b,c,k;"
	"if(r&&typeof r==='object'&&typeof r.path==='string'){b=typeof q.baseUrl==='string'?q.baseUrl:'';"
	"c=o.rk.get(r);if(c&&c[0]===b&&c[1]===m)return c[2];k=m+' '+b+r.path;o.rk.set(r,[b,m,k]);return k}"
	"b=String(q.url||'/');k=b.indexOf('?');if(k>=0)b=b.slice(0,k);b=b.slice(0,200);"
	"c=o.uk.get(b);if(c&&c[0]===m)return c[1];"
	"k=m+' '+route(q);if(o.uk.size>=512)o.uk.clear();o.uk.set(b,[m,k]);return k}"
	"function dest(q){var h=typeof q.getHeader==='function'?q.getHeader('host'):null;"
	"h=String(h||q.host||'?');return/:[0-9]+$/.test(h)?h:h+(q.protocol==='https:'?':443':':80')}"
	"function origin(r){var s=String(r.origin||'?'),t=s.replace(/^[a-z]+:\\/\\//,'');"
	"return/:[0-9]+$/.test(t)?t:t+(s.indexOf('https:')===0?':443':':80')}"
	/* a request ends: d marks it done for the calls that outlive it */
	"function fin(e,err){var t=now();e.d=1;add(o.s,skey(e),t-e.t,err,e,t,e.n)}"
	"if(!o){o=all[id]={s:new Map(),c:new Map(),open:new Map(),cw:new WeakMap(),cf:new Map(),"
	"rk:new WeakMap(),uk:new Map(),sub:[],als:null,lt:0,tk:10,N:1,sk:1,st:0,fo:0,sl:0,fl:0,lr:0,"
	"Nc:1,csk:1,cst:0,cfo:0,csl:0,cfl:0,sw:0,csw:0};"
	/* Which request a call is made for: an AsyncLocalStorage entered at the request's start,
	 * only where it is built on AsyncContextFrame (Node 24 and later, and 22 with
	 * --experimental-async-context-frame); the older one enables async_hooks for the whole
	 * process, a cost on every promise. Entering costs a few microseconds: it is done for
	 * one followed request a millisecond at most (a token a millisecond, ten at most), and a
	 * route's waits are over those requests (wn of them, ws ms in all). */
	"try{var AH=process.getBuiltinModule?process.getBuiltinModule('async_hooks'):require('async_hooks'),"
	"a=new AH.AsyncLocalStorage();if(typeof a._propagate!=='function')o.als=a}catch(x){}"
	/* a subscriber's exception would be rethrown in the application (an uncaught
	 * exception): none may leave it */
	JS_LATER_HEAD "if(all[id]!==o)return;"
	"var on=function(n,f){var ch=dc.channel(n),g=function(m){try{f(m)}catch(x){}};"
	"ch.subscribe(g);o.sub.push([ch,g])};"
	/* every request is counted (st); one in N is followed (fo), as n = N of them: the next
	 * one after 1 to 2N-1 more, at random, so that traffic with a period cannot line up with
	 * N and hide a route */
	"function gap(N){return N>1?1+Math.floor(Math.random()*(2*N-1)):1}"
	"on('http.server.request.start',function(m){if(all[id]!==o)return;o.st++;"
	"if(--o.sk>0||o.open.size>=OPEN)return;o.sk=gap(o.N);o.fo++;"
	"var t=now(),e={q:m.request,t:t,w:null,r:null,d:0,s:0,n:o.N},k=Math.min(10,o.tk+t-o.lt);o.lt=t;"
	"o.open.set(m.response,e);if(o.als&&k>=1){k--;e.s=1;o.als.enterWith(e)}o.tk=k});"
	"on('http.server.response.finish',function(m){if(all[id]!==o||!o.open.size)return;"
	"var e=o.open.get(m.response);if(!e)return;o.open.delete(m.response);fin(e,m.response.statusCode>=500)});"
	/* fastify 5 names its route on its own channel */
	"on('tracing:fastify.request.handler:start',function(m){var e=m.reply&&o.open.get(m.reply.raw);"
	"if(e&&m.route&&typeof m.route.url==='string')e.r=(e.q.method||'?')+' '+m.route.url.slice(0,200)});"
	/* Calls as requests: every one counted (cst), one in Nc followed (cfo) and counted Nc
	 * times (n); a call made for a request whose waits are followed is followed for them too,
	 * outside the rows when it is not one of the Nc (n = 0). f gives its destination. */
	"var cs=function(q,f){if(all[id]!==o||!q||typeof q!=='object')return;o.cst++;"
	"var p=o.als?o.als.getStore():null,n=0;if(!(p&&typeof p==='object'&&p.s&&!p.d))p=null;"
	"if(--o.csk<=0){o.csk=gap(o.Nc);n=o.Nc}if(!n&&!p||o.cw.has(q))return;if(n)o.cfo++;"
	"var t=now(),d=f(q);if(p){if(!p.w)p.w=new Map();var dw=d;"
	"if(!p.w.has(dw)&&p.w.size>=WMAX)dw='other';var x=p.w.get(dw);if(!x)p.w.set(dw,x=[0,0,0]);"
	"if(x[0]++===0)x[1]=t}"
	"o.cw.set(q,[d,t,p,n]);if(n)o.cf.set(d,(o.cf.get(d)||0)+n)};"
	"var ce=function(q,err){var e=q&&typeof q==='object'?o.cw.get(q):null;if(!e)return;"
	"o.cw.delete(q);var t=now(),n=e[3];"
	"if(n){var c=(o.cf.get(e[0])||n)-n;if(c>0)o.cf.set(e[0],c);else o.cf.delete(e[0])}"
	"var p=e[2],x=p&&!p.d&&p.w.get(p.w.has(e[0])?e[0]:'other');"
	"if(x&&x[0]>0&&--x[0]===0)x[2]+=t-x[1];if(n)add(o.c,e[0],t-e[1],err,null,0,n)};"
	"on('http.client.request.start',function(m){cs(m.request,dest)});"
	"on('http.client.response.finish',function(m){ce(m.request,m.response.statusCode>=500)});"
	"on('http.client.request.error',function(m){ce(m.request,true)});"
	"on('undici:request:create',function(m){cs(m.request,origin)});"
	"on('undici:request:headers',function(m){ce(m.request,m.response.statusCode>=500)});"
	"on('undici:request:error',function(m){ce(m.request,true)});" JS_LATER_TAIL "}"
	/* in flight now, per route; a request whose socket closed before it finished: aborted */
	"var fl=new Map();o.open.forEach(function(e,res){"
	"if(res.destroyed&&!res.writableFinished){o.open.delete(res);fin(e,true);return}"
	"var k=skey(e);fl.set(k,(fl.get(k)||0)+e.n)});"
	/* what started and was followed since the last reading; the next N and Nc from the
	 * rates over at least 0.1 s (readings come as often as every 0.05 s) */
	"var tn=now(),st=o.st-o.sw,fo=o.fo-o.fl,cst=o.cst-o.csw,cfo=o.cfo-o.cfl,el=o.lr?(tn-o.lr)/1e3:0;"
	"o.sw=o.st;o.fl=o.fo;o.csw=o.cst;o.cfl=o.cfo;if(!o.lr)o.lr=tn;"
	"if(el>0.1){o.N=Math.max(1,Math.ceil((o.st-o.sl)/el/FOL));"
	"o.Nc=Math.max(1,Math.ceil((o.cst-o.csl)/el/FOL));o.lr=tn;o.sl=o.st;o.csl=o.cst}"
	"if(o.sk>2*o.N-1)o.sk=2*o.N-1;if(o.csk>2*o.Nc-1)o.csk=2*o.Nc-1;"
	"var out={s:[],c:[],ctx:!!o.als,st:st,fo:fo,cst:cst,cfo:cfo},cf=new Map(o.cf);"
	"o.s.forEach(function(b,k){out.s.push([k,b.n,b.e,b.x,b.h,fl.get(k)||0,b.s,b.w||{},b.wn,b.ws]);fl.delete(k)});"
	"fl.forEach(function(n,k){out.s.push([k,0,0,0,{},n,0,{},0,0])});"
	"o.c.forEach(function(b,k){out.c.push([k,b.n,b.e,b.x,b.h,cf.get(k)||0,b.s,{},0,0]);cf.delete(k)});"
	"cf.forEach(function(n,k){if(out.c.length<MAXR)out.c.push([k,0,0,0,{},n,0,{},0,0])});"
	"o.s=new Map();o.c=new Map();" JS_LATER_HEAD "if(all[id]!==o)return;clearTimeout(o.t);"
	"o.t=setTimeout(function(){if(all[id]!==o)return;"
	"o.sub.forEach(function(x){x[0].unsubscribe(x[1])});if(o.als)o.als.disable();delete all[id];"
	"if(globalThis[K]===all&&!Object.keys(all).length)delete globalThis[K];},WD);"
	"if(o.t.unref)o.t.unref();" JS_LATER_TAIL "return JSON.stringify(out)})(";
static const char leave_head[] = "(function(){var K=" REQ_KEY ",all=globalThis[K],id='";
static const char leave_tail[] =
	"',o=all&&all[id];if(o){delete all[id];" JS_LATER_HEAD "clearTimeout(o.t);"
	"o.sub.forEach(function(x){try{x[0].unsubscribe(x[1])}catch(e){}});if(o.als)o.als.disable();"
	JS_LATER_TAIL "}"
	"if(all&&typeof all==='object'&&!Object.keys(all).length)delete globalThis[K];})()";

void engine_requests_init(struct engine *e)
{
	double watchdog_s = 3 * e->cfg.delay_s + 2 * e->cfg.timeout_s;

	e->req = xcalloc(1, sizeof *e->req);
	if (watchdog_s < REQ_WATCHDOG_MIN_S)
		watchdog_s = REQ_WATCHDOG_MIN_S;
	/* the nonce is letters, digits and '-': safe inside the quotes */
	e->req->expr = xasprintf("%s%s%s%d,%.0f,%d,%d,%d)", req_head, e->title_prefix, req_body,
		REQ_ROWS_MAX, watchdog_s * 1e3, REQ_OPEN_MAX, REQ_WAITS_MAX, REQ_FOLLOW_PER_S);
}

void engine_requests_free(struct engine *e)
{
	free(e->req->expr);
	free(e->req->last);
	free(e->req->totals);
	free(e->req);
	e->req = NULL;
}

void engine_requests_reset_session(struct engine *e)
{
	e->req->pending = false;
	e->req->installed = false;
	e->req->fresh = false;
}

static void req_on_reading(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	struct engine *e = ud;
	struct json_span res, value;
	char *text = NULL;
	size_t len;

	e->req->pending = false;
	if (o != SESSION_REPLY || m->error.n || json_object_get(m->result, "result", &res) != 1 ||
	    json_object_get(res, "value", &value) != 1 || json_span_type(value) != JSON_T_STRING ||
	    json_string_decode(value, &text, &len) != 0)
		return; /* a failed reading costs only the reading */
	if (!e->req->last)
		e->req->last = xcalloc(1, sizeof *e->req->last);
	if (!e->req->totals)
		e->req->totals = xcalloc(1, sizeof *e->req->totals);
	if (requests_parse(text, len, e->req->last) == 0) {
		requests_add(e->req->totals, e->req->last);
		e->req->fresh = true;
	}
	free(text);
}

void engine_requests_read(struct engine *e)
{
	if (!e->cfg.requests || e->cfg.worker || !e->eval_mode || !e->sess ||
	    e->state != ST_RUNNING || e->req->pending)
		return;
	e->req->pending = true;
	e->req->installed = true; /* perhaps: engine_requests_leave removes it if so */
	engine_evaluate(e, e->req->expr, req_on_reading);
}

static void req_on_left(void *ud, enum session_outcome o, const struct protocol_msg *m)
{
	/* Nothing to do: if it failed, the watchdog in the target unsubscribes. */
}

void engine_requests_leave(struct engine *e)
{
	char *expr;

	if (!e->req->installed || !e->eval_mode || !e->sess)
		return;
	e->req->installed = false;
	expr = xasprintf("%s%s%s", leave_head, e->title_prefix, leave_tail);
	engine_evaluate(e, expr, req_on_left);
	free(expr);
}

bool engine_requests_on(const struct engine *e)
{
	return e->cfg.requests && !e->cfg.worker && e->eval_mode;
}

const struct req_window *engine_requests_take(struct engine *e)
{
	if (!e->req->fresh)
		return NULL;
	e->req->fresh = false;
	return e->req->last;
}

const struct req_window *engine_requests_totals(const struct engine *e)
{
	return e->req->totals;
}
