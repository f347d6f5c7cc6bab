// The task of tests/targets/pool.js's piscina pool: counts the primes under n, by trial
// division in isPrime (small enough for V8 to inline into primeCount once it is warm).
'use strict';
const { threadId } = require('worker_threads');

function isPrime(k) {
	if (k < 2)
		return false;
	for (let d = 2; d * d <= k; d++)
		if (k % d === 0)
			return false;
	return true;
}
function primeCount(n) {
	let c = 0;
	for (let k = 0; k < n; k++)
		if (isPrime(k))
			c++;
	return c;
}
// (as pool.js: the count of the built-ins ntop-js's deoptimizations used stays, not counted)
setInterval(() => console.log(`syms ${threadId} ${Object.getOwnPropertySymbols(globalThis)
	.filter((s) => String(s).includes('ntop-js') && s !== Symbol.for('ntop-js.deopt')).length}`),
	1000).unref();
module.exports = primeCount;
