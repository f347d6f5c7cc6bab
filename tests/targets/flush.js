'use strict';
// A target that shows whether V8 still flushes bytecode (run it with --stress-flush-code and
// --trace-flush-bytecode, or --trace-flush-code from Node 22): a hot function runs every 5 ms;
// at each SIGUSR2 it compiles a fresh function, runs it once, forces eight full GCs (with
// flushing on, V8 then flushes old bytecode and says so on stdout), and prints "probed N" there.
// Prints "ready PID" first. gc() is exposed at run time, only to drive the GCs. With the
// argument "used-up", the built-ins ntop-js deoptimizes with are marked used (as after
// as many sessions as there are), so that it falls back to switching the coverage mode.
const v8 = require('v8');
v8.setFlagsFromString('--expose-gc');
const gc = require('vm').runInNewContext('gc');
if (process.argv.includes('used-up'))
	Object.defineProperty(globalThis, Symbol.for('ntop-js.deopt'), { value: 1000, configurable: true, writable: true });
let n = 0;
function hot() {
	let s = 0;
	for (let i = 0; i < 1e5; i++)
		s += i % 7;
	return s;
}
setInterval(hot, 5);
process.on('SIGUSR2', () => {
	n++;
	new Function('return ' + n + ' + 1')();
	for (let i = 0; i < 8; i++)
		gc();
	console.log('probed ' + n);
});
console.log('ready ' + process.pid);
