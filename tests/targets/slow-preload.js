// A --require preload that keeps the main thread busy for NTOP_TEST_PRELOAD_S seconds (default
// 1.5), as an agent that instruments a program at its start does, then says whether the
// inspector module was loaded while it ran: code evaluated there runs inside Node's startup
// (pre_execution), where a built-in module's first load can find another half loaded.
'use strict';
const until = Date.now() + 1000 * Number(process.env.NTOP_TEST_PRELOAD_S || 1.5);
let spins = 0;
while (Date.now() < until)
	spins++;
console.log('preload done; inspector loaded during it: ' +
	process.moduleLoadList.includes('NativeModule inspector'));
