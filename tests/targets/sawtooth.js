// A target with a busy but stable heap: it allocates a lot and keeps nothing, so its heap
// draws a GC sawtooth that does not grow. Prints "ready PID".
'use strict';
function churn() {
	let garbage = [];
	for (let i = 0; i < 20000; i++) garbage.push({ i, s: 'g' + i, a: [i, i + 1] });
	return garbage.length;
}
setInterval(churn, 20);
console.log('ready', process.pid);
