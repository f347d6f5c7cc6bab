// Benchmark target: the same work every 10 ms whatever happens around it, so that the CPU
// time it spends beyond that work is what an observer costs it (bench/memcost.sh). Each tick
// hashes a 64 KB buffer eight times (about 2-3 ms of CPU) and makes 2,000 small objects of
// garbage (young-generation collections all along, no growth). Prints "ready PID".
'use strict';
const buf = Buffer.alloc(65536, 7);
let sink = 0;
function hash(b, seed) {
	let h = seed >>> 0;
	for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619) >>> 0;
	return h;
}
function tick() {
	for (let k = 0; k < 8; k++) sink ^= hash(buf, k);
	const garbage = [];
	for (let i = 0; i < 2000; i++) garbage.push({ i, s: 'x' + (i & 63) });
	sink ^= garbage.length;
}
setInterval(tick, 10);
console.log('ready', process.pid);
