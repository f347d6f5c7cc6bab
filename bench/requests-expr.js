'use strict';
// The expressions ntop-js's requests reading evaluates in the target (src/engine_requests.c),
// taken from the C source so that what is recorded or measured is what ships:
//   reading(nonce): the evaluation made at every window (the first subscribes)
//   leave(nonce):   the one made at detach (unsubscribes)
//   channels:       the diagnostics_channel channels the reading subscribes to
// with the limits the engine passes (REQ_ROWS_MAX, the watchdog, REQ_OPEN_MAX, REQ_WAITS_MAX,
// REQ_FOLLOW_PER_S).
// Used by tests/fixtures/requests/record.js and bench/requests-cost.js.
const fs = require('fs'), path = require('path');

const top = path.join(__dirname, '..');
const src = fs.readFileSync(path.join(top, 'src/engine_requests.c'), 'utf8');
const hdr = fs.readFileSync(path.join(top, 'src/requests.h'), 'utf8');
const key = /#define REQ_KEY "(.*)"/.exec(src)[1];
const define = (text, name) => Number(new RegExp(`#define ${name} ([0-9]+)`).exec(text)[1]);
// a C string constant's literals joined, REQ_KEY put in
const part = (name) => {
	const from = src.indexOf(`static const char ${name}[] =`), to = src.indexOf(';\n', from);
	return src.slice(from, to).replace(/" REQ_KEY "/g, key)
		.match(/"((?:[^"\\]|\\.)*)"/g).map((l) => JSON.parse(l)).join('');
};
const args = [define(hdr, 'REQ_ROWS_MAX'), 60000, define(src, 'REQ_OPEN_MAX'),
	define(hdr, 'REQ_WAITS_MAX'), define(hdr, 'REQ_FOLLOW_PER_S')].join(',');

exports.reading = (nonce) => part('req_head') + nonce + part('req_body') + args + ')';
exports.leave = (nonce) => part('leave_head') + nonce + part('leave_tail');
// the diagnostics_channel channels the reading subscribes to, in its order
exports.channels = [...part('req_body').matchAll(/\bon\('([^']+)'/g)].map((m) => m[1]);
