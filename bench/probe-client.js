'use strict';
// probe-client.js: the plain inspector client of the probes (jit-probe.js, inline-repair.js):
// opens a target's inspector by SIGUSR1, reads its URL from the target's stderr, which must go
// to /tmp/jit-probe.PID.err, and connects. Needs a global WebSocket (Node 22 or newer).
//   const { call, events, ws } = await require('./probe-client').connect(pid);
const fs = require('fs');
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function inspectorUrl(pid) {
	process.kill(Number(pid), 'SIGUSR1');
	for (let i = 0; i < 200; i++) {
		await sleep(50);
		const m = fs.readFileSync(`/tmp/jit-probe.${pid}.err`, 'utf8').match(/ws:\/\/127\.0\.0\.1:\d+\/\S+/);
		if (m) return m[0];
	}
	throw new Error('the target opened no inspector');
}

async function connect(pid) {
	const ws = new WebSocket(await inspectorUrl(pid));
	await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
	let id = 0;
	const pending = new Map(), events = [];
	ws.onmessage = e => {
		const m = JSON.parse(e.data);
		if (m.id) { pending.get(m.id)(m); pending.delete(m.id); } else events.push(m);
	};
	const call = (method, params = {}) => new Promise(r => {
		pending.set(++id, r);
		ws.send(JSON.stringify({ id, method, params }));
	});
	return { ws, call, events };
}

module.exports = { connect, sleep };
