// Asks a target's inspector whether ntop-js keeps something on its globalThis (a symbol whose
// name has NAME in it: by default any of ntop-js's, as its GC profiler's, but the count of the
// built-ins its deoptimizations used, Symbol.for('ntop-js.deopt'), which stays by design).
// node gc-key.js PORT [NAME]: prints "present" or "absent". Needs a node with a WebSocket (22+).
'use strict';
const port = process.argv[2];
const name = process.argv[3] || 'ntop-js';
(async () => {
	const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
	const ws = new WebSocket(list[0].webSocketDebuggerUrl);
	ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: {
		expression: `Object.getOwnPropertySymbols(globalThis).some(s => String(s).includes(${JSON.stringify(name)}) &&
			s !== Symbol.for('ntop-js.deopt'))`,
		returnByValue: true } }));
	ws.onmessage = (ev) => {
		const m = JSON.parse(ev.data);
		if (m.id !== 1) return;
		console.log(m.result.result.value ? 'present' : 'absent');
		ws.close();
		process.exit(0);
	};
	setTimeout(() => { console.log('no answer'); process.exit(1); }, 10000);
})().catch((e) => { console.log('error', e.message); process.exit(1); });
