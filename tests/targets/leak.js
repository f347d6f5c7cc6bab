// A target that retains memory at a known rate under a GC sawtooth. Every 100 ms leakyCache
// keeps one new flat string of STRING_BYTES (one byte a character), and churn makes garbage
// that is never kept. Prints "ready PID RATE" where RATE is the retained bytes per hour.
// Options: node leak.js [bytes-per-second] (default 1000000).
'use strict';
const rate = Number(process.argv[2] || 1e6);
const TICKS_PER_S = 10;
const STRING_BYTES = Math.round(rate / TICKS_PER_S);
const kept = [];
let n = 0;
function leakyCache() {
	// A flat one-byte string made from a buffer: its heap size is its length plus a small
	// header. (padEnd or repeat would build a rope that shares its pieces and keeps little.)
	const b = Buffer.alloc(STRING_BYTES, 120);
	b.write('k' + (n++) + ':');
	kept.push(b.toString('latin1'));
}
function churn() {
	let garbage = [];
	for (let i = 0; i < 2000; i++) garbage.push({ i, s: 'g' + i });
	return garbage.length;
}
setInterval(() => { leakyCache(); churn(); }, 1000 / TICKS_PER_S);
console.log('ready', process.pid, Math.round(STRING_BYTES * TICKS_PER_S * 3600));
