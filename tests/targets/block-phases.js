'use strict';
// Blocked-loop events at every phase against ntop-js's windows: blockingParse holds the loop
// for 300 ms, then 450 ms, in turn, every 1.7 s (so that, against 1 s windows, the blocks
// start at every tenth of a window; two lengths, so that a block confirmed by another's delay
// shows), nearly idle otherwise. Inside each block: plain JavaScript (a Date.now() loop),
// allocation enough for scavenges, and natives (JSON.parse, a sync hash). Each block is logged
// on stdout with its start (unix ms) and length: {"event":"block","wall_ms":..,"ms":..};
// first {"event":"ready"}.
const crypto = require('crypto');

const BLOCKS_MS = [300, 450], PERIOD_MS = 1700;
let blocks = 0;
const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i, name: 'row ' + i })));
function blockingParse() {
	const start = Date.now(), end = start + BLOCKS_MS[blocks++ % BLOCKS_MS.length];
	let keep = null, n = 0;
	while (Date.now() < end) {
		keep = JSON.parse(text);                                   // a native, allocating
		crypto.createHash('sha256').update(text).digest('hex');    // a native
		for (let i = 0; i < 2000; i++) keep[i % keep.length].x = { n: n++ }; // scavenges
	}
	console.log(JSON.stringify({ event: 'block', wall_ms: start, ms: Date.now() - start, n: keep.length }));
}
setInterval(blockingParse, PERIOD_MS);
console.log(JSON.stringify({ event: 'ready', pid: process.pid }));
