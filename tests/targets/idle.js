// A mostly idle target. With an argument N it exits after N milliseconds. Prints "ready".
'use strict';
const exitAfter = Number(process.argv[2] || 0);
setInterval(() => { let s = 0; for (let i = 0; i < 1e4; i++) s += i; }, 20);
if (exitAfter > 0) setTimeout(() => process.exit(0), exitAfter);
console.log('ready', process.pid);
