'use strict';
// A server's three kinds of incident, on a schedule, each logged on stdout as a JSON line with
// its wall times (unix ms), after {"event":"ready","pid":..}:
//   spike   spikeHash keeps the CPU busy for SPIKE_MS (in slices, so the loop still turns) every
//           PERIOD_MS, the first FIRST_MS after the start; nearly idle in between (quietTick,
//           2 ms every 47 ms): {"event":"spike","start":..,"end":..}
//   block   blockFor holds the loop BLOCK_MS at each period instead: {"event":"block",...}
//   grow    at FIRST_MS, 160 MB of arrays kept for good: {"event":"grow","at":..}
//   node incidents.js spike|block|grow [PERIOD_MS] [FIRST_MS]
const mode = process.argv[2] || 'spike';
const PERIOD_MS = Number(process.argv[3] || 10000), FIRST_MS = Number(process.argv[4] || 4000);
const SPIKE_MS = 2500, BLOCK_MS = 450;
const log = o => console.log(JSON.stringify(o));
let sink = 0;

// about 2 ms of work every 47 ms: 4 % busy, enough to be sampled at the recorder's 20 ms (a
// period that is not a multiple of the sampler's, whose samples would else fall at the same
// few phases of it every time, and could miss it for good)
function quietTick() {
	const end = Date.now() + 2;
	let h = sink;
	while (Date.now() < end)
		for (let i = 0; i < 1000; i++) h = (h * 31 + i) % 1000003;
	sink = h;
}
setInterval(quietTick, 47);

// arithmetic only: no allocation, no native call but Date.now(), so that the spike's time is
// spikeHash's own (a hash from node:crypto would put it in natives and the GC)
function spikeHash(until) {
	const end = Math.min(until, Date.now() + 20);
	let h = sink;
	while (Date.now() < end)
		for (let i = 0; i < 5000; i++) h = (h * 31 + i) % 1000003;
	sink = h;
}
function spike() {
	const start = Date.now(), until = start + SPIKE_MS;
	const slice = () => {
		spikeHash(until);
		if (Date.now() < until)
			setImmediate(slice);
		else
			log({ event: 'spike', start, end: Date.now() });
	};
	slice();
}

function blockFor() {
	const start = Date.now();
	let h = sink;
	while (Date.now() - start < BLOCK_MS)
		for (let i = 0; i < 5000; i++) h = (h * 31 + i) % 1000003;
	sink = h;
	log({ event: 'block', start, end: Date.now() });
}

const kept = [];
function grow() {
	for (let i = 0; i < 160; i++)
		kept.push(new Array(128 * 1024).fill(i)); // 1 MB each (SMIs, 8 bytes a slot)
	log({ event: 'grow', at: Date.now() });
}

const run = { spike, block: blockFor, grow }[mode];
setTimeout(() => {
	run();
	if (mode !== 'grow')
		setInterval(run, PERIOD_MS);
}, FIRST_MS);
log({ event: 'ready', pid: process.pid });
