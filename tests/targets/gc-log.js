// Preloaded into a test target (node -r gc-log.js target.js): appends the time of each major
// collection (ms since the epoch) to the file named by NTOP_TEST_GC_LOG, so that a test knows
// how many V8 did, independently of ntop-js. V8 sizes its next collection by how fast its last
// ones went in wall-clock time, so on a starved machine a steady leak can go minutes between
// two of them. A performance observer changes nothing in when V8 collects.
'use strict';
const { PerformanceObserver, constants, performance } = require('perf_hooks');
const fs = require('fs');
const file = process.env.NTOP_TEST_GC_LOG;
if (file) {
	new PerformanceObserver((list) => {
		for (const e of list.getEntries()) {
			const kind = e.detail ? e.detail.kind : e.kind;
			if (kind === constants.NODE_PERFORMANCE_GC_MAJOR)
				fs.appendFileSync(file, Math.round(performance.timeOrigin + e.startTime) + '\n');
		}
	}).observe({ entryTypes: ['gc'] });
}
