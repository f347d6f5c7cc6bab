'use strict';
// Small helpers for helpers-app.js, in a module of their own as an application keeps its
// utilities: V8 inlines them into callers in another file (another script), which a
// profiler must still show as themselves.
//   fnvStep   one FNV-1a step (a byte or char code into a 32-bit hash)
//   xorshift  xorshift32, the final mix of a hash
//   clamp     a number kept within [lo, hi]

function fnvStep(h, c) {
	return Math.imul(h ^ c, 0x01000193);
}

function xorshift(x) {
	x ^= x << 13;
	x ^= x >>> 17;
	x ^= x << 5;
	return x >>> 0;
}

function clamp(x, lo, hi) {
	return x < lo ? lo : x > hi ? hi : x;
}

module.exports = { fnvStep, xorshift, clamp };
