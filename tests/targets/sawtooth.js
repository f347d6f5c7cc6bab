// A target with a busy but stable heap: it allocates a lot and keeps nothing, so its heap
// draws a GC sawtooth that does not grow. With a number N, it also keeps the last N batches'
// results (N x 20 ms of work, a request cache's share), which V8 promotes and then drops: old
// space fills with garbage and major collections come every few seconds (one in 4 s for 50
// on Node 20), where without it V8 may put them off for a minute. Prints "ready PID".
'use strict';
const keepN = Math.max(0, parseInt(process.argv[2], 10) || 0);
const kept = new Array(keepN);
let batch = 0;
function churn() {
	let garbage = [];
	for (let i = 0; i < 20000; i++) garbage.push({ i, s: 'g' + i, a: [i, i + 1] });
	if (keepN) {
		const keep = [];
		for (let i = 0; i < 2000; i++) keep.push({ i, s: 'k' + i + '.' + batch });
		kept[batch++ % keepN] = keep;
	}
	return garbage.length;
}
setInterval(churn, 20);
console.log('ready', process.pid);
