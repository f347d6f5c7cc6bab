// A server-like loop for the source-map tests (tests/integration/sourcemaps.sh): 20 ms of
// pricing, then a pause, forever. Prints "ready PID".
import { priceLines, Line } from './pricing';

const lines: Line[] = [];
for (let i = 0; i < 50; i++) lines.push({ sku: i * 7, qty: 1 + (i % 3) });

function tick(): void {
	const end = Date.now() + 20;
	let sum = 0;
	while (Date.now() < end) sum += priceLines(lines);
	if (sum < 0) console.log(sum);
	setTimeout(tick, 5);
}

tick();
console.log('ready', process.pid);
