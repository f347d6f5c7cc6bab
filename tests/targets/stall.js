// A target whose main thread blocks in native code (a synchronous child process) for 700 ms
// every 1.5 s: the inspector cannot answer meanwhile. Prints "ready".
'use strict';
const cp = require('child_process');
setInterval(() => { cp.execSync('sleep 0.7'); }, 1500);
console.log('ready', process.pid);
