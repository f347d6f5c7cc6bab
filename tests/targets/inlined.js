// A warm target whose hot function's helpers V8 inlines (the inline-repair fixture's workload,
// tests/fixtures/inlinefix/main.js), with V8's default flags: hot() runs in batches from the
// event loop, and reports every v8.setFlagsFromString call ("flags ARGS"), so that a test can
// see the JIT was left alone. Prints "ready PID" once warm (3 s).
'use strict';
const path = require('path');
const v8 = require('v8');
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = function (flags) {
	console.log('flags', flags);
	return setFlags.apply(this, arguments);
};
const { hot } = require(path.join(__dirname, '..', 'fixtures', 'inlinefix', 'main.js'));

const started = Date.now();
let said = false, sink = 0;
function batch() {
	const end = Date.now() + 20;
	while (Date.now() < end)
		sink += hot(2000);
	if (!said && Date.now() - started > 3000) {
		said = true;
		console.log('ready', process.pid);
	}
	setImmediate(batch);
}
batch();
process.on('exit', () => { if (sink === 42) console.log(''); });
