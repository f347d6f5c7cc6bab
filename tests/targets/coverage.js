// A target run under NODE_V8_COVERAGE (as c8 and nyc's test runs are): a function with a
// branch, called on a timer, until it has run for the given milliseconds; then it prints how
// many calls it made and exits, so that Node writes its coverage file. Prints "ready PID".
'use strict';
let n = 0;
function branchy(i) {
	if (i % 3 === 0) {
		n += 2;
	} else {
		n += 1;
	}
	return n;
}
let i = 0;
const timer = setInterval(() => { for (let k = 0; k < 1000; k++) branchy(i++); }, 10);
console.log('ready', process.pid);
setTimeout(() => { clearInterval(timer); console.log('calls', i); }, Number(process.argv[2] || 8000));
