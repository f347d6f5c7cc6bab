// A program that starts other node processes, for launch mode's tests: `launcher.js DIR`
// spawns a detached child that outlives it (stdio ignored, unref'd), forks a child at once and
// another once its own inspector is open, and burns a little CPU. Each child writes its PID to
// DIR/NAME.pid and runs for at most 60 s. Prints "ready PID".
'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');

const [role, dir] = process.argv[2] === 'child' ? [process.argv[3], process.argv[4]] :
	['launcher', process.argv[2]];

function writePid(name) {
	const file = path.join(dir, name + '.pid');
	fs.writeFileSync(file + '.tmp', String(process.pid));
	fs.renameSync(file + '.tmp', file);
}

if (role !== 'launcher') {
	writePid(role);
	setInterval(() => {}, 1000);
	setTimeout(() => process.exit(0), 60000);
	// forked: go when the launcher does
	if (process.send) process.on('disconnect', () => process.exit(0));
} else {
	const args = (name) => ['child', name, dir];
	cp.spawn(process.execPath, [__filename, ...args('detached')],
		{ detached: true, stdio: 'ignore' }).unref();
	cp.fork(__filename, args('forked'));
	// a child started while the launcher's inspector is open
	const inspector = require('inspector');
	const poll = setInterval(() => {
		if (!inspector.url()) return;
		clearInterval(poll);
		cp.fork(__filename, args('late'));
	}, 20);
	function burn() {
		const end = Date.now() + 5;
		let x = 0;
		while (Date.now() < end) x = (x * 31 + 7) | 0;
		setTimeout(burn, 5);
		return x;
	}
	burn();
	console.log('ready', process.pid);
}
