// Does a reading of monitorEventLoopDelay lose a block's delay? Node's histogram reset()
// forgets when its timer last ticked, so the first tick after a reset records nothing: a
// reading taken between a block and that tick loses the block's delay whole. This holds a
// 300 ms block in a timer callback and takes one reading per trial, its timer set during
// the block ("inside", as an inspector evaluation that interrupts the block sets it), due
// right after it ("before") or well after it ("after"); then reads what the histogram holds
// 300 ms later. "now" resets at once (ntop-js before the fix); "tick" first waits, with
// 1 ms timers (50 at most), until the histogram's count moves (what ntop-js's ntopJsLoop
// does). A block is lost when neither reading holds a delay of 250 ms or more.
//   node bench/eld-reset.js [TRIALS_PER_MODE]   (default 5)
'use strict';
const { monitorEventLoopDelay } = require('perf_hooks');
const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
const trials = Number(process.argv[2] || 5);
const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };

function read(how, done) {
	let c0 = -1, n = 0;
	(function take() {
		if (how === 'tick' && n++ < 50 && (c0 < 0 || h.count === c0)) {
			if (c0 < 0)
				c0 = h.count;
			setTimeout(take, 1);
			return;
		}
		const max = h.max / 1e6;
		h.reset();
		done(max);
	})();
}

function trial(how, when, done) {
	setTimeout(() => {
		let first = 0;
		const got = (max) => { first = max; };
		h.reset();
		setTimeout(() => {
			if (when === 'inside')
				setTimeout(() => read(how, got), 0);
			spin(300);
		}, 50);
		if (when === 'before')
			setTimeout(() => read(how, got), 50);
		if (when === 'after')
			setTimeout(() => read(how, got), 400);
		setTimeout(() => done(first >= 250 || h.max / 1e6 >= 250), 700);
	}, 100);
}

const plan = [];
for (const how of ['now', 'tick'])
	for (const when of ['inside', 'before', 'after'])
		for (let i = 0; i < trials; i++)
			plan.push([how, when]);
const lost = {};
(function next() {
	const p = plan.shift();
	if (!p) {
		console.log(process.version, JSON.stringify(lost));
		return;
	}
	trial(p[0], p[1], (seen) => {
		const k = p[0] + ' ' + p[1];
		lost[k] = (lost[k] || '') + (seen ? '.' : 'L');
		next();
	});
})();
