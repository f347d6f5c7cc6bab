'use strict';
// Benchmark target: a program whose CPU profiles are huge. N generated functions call each
// other along seeded random paths to depth 7, so nearly every sample lands on a new stack and
// a window's profile has hundreds of thousands of nodes (about 30 MB of JSON for a 6 s window
// sampled every 100 us with the default N). It works in slices of ~20 ms and yields to the
// event loop between them, so the process stays responsive.
// Usage: node big-profiles.js [--functions N] (default 8000). Prints "ready PID".
const argv = process.argv.slice(2);
const n = argv[0] === '--functions' ? Number(argv[1]) : 8000;
let state = 1;
const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 4294967296;
const fns = new Array(n);
for (let i = 0; i < n; i++) {
	// new Function gives each one a real name and its own call frame in the profile
	fns[i] = new Function('fns', 'rand', 'depth', `return function gen_${i}_work(d) {
		let x = 0;
		for (let k = 0; k < 200; k++) x = (x * 17 + k) | 0;
		if (d < depth) {
			const a = fns[(rand() * fns.length) | 0];
			const b = fns[(rand() * fns.length) | 0];
			x += a(d + 1) + b(d + 1);
		}
		return x;
	};`)(fns, rand, 7);
}
let round = 0;
function slice() {
	const end = Date.now() + 20;
	let sink = 0;
	while (Date.now() < end) sink += fns[(round++ * 7919) % n](0);
	setImmediate(slice);
	return sink;
}
slice();
console.log('ready', process.pid);
