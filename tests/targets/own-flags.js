// A target that switched an inlining flag off itself, at run time (as hot.js does): whatever
// a session changes, V8's flags must end as this program left them. It prints "flags same" or
// "flags differ" each time V8's flag hash (cachedDataVersionTag) moves from or back to the one
// it had after its own change. Prints "ready PID".
'use strict';
const v8 = require('v8');
v8.setFlagsFromString('--no-turbo-inlining');
const own = v8.cachedDataVersionTag();
let same = true;
setInterval(() => {
	const now = v8.cachedDataVersionTag() === own;
	if (now !== same)
		console.log('flags', now ? 'same' : 'differ');
	same = now;
}, 100);
console.log('ready', process.pid);
