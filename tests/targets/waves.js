// A target that allocates in waves and keeps nothing: every 300 ms it adds 40,000 small
// objects to an array, and every 3 s it drops the array. What survives a full collection
// stays flat (the wave in progress), but V8 puts off major collections, so heap used climbs
// for a long time between them. Prints "ready PID".
'use strict';
const WAVE_OBJECTS = 40000;
let wave = [];
let n = 0;
function fill() {
	for (let i = 0; i < WAVE_OBJECTS; i++) wave.push({ i, s: 'w' + (n++) });
}
setInterval(fill, 300);
setInterval(() => { wave = []; }, 3000);
console.log('ready', process.pid);
