// leaf.js: does V8's CPU profile name a function inlined into the sampled code? hotInner is
// inlined into outer once hot; the profile runs 1.5 s (in-process inspector session, 200 us).
// Node 18-24 charge hotInner's samples to outer (positionTicks on hotInner's own line), Node 26
// names hotInner. Usage: node leaf.js [warm] (warm: optimized first, before the profiler).
// Used for doc/inlining.md, cause 1.
const inspector = require('inspector');
const s = new inspector.Session(); s.connect();
const post = (m, p) => new Promise((res, rej) => s.post(m, p || {}, (e, r) => e ? rej(e) : res(r)));
function hotInner(n) { let x = 0; for (let i = 0; i < n; i++) { x = (x * 31 + i) | 0; } return x; }
function outer() { let t = 0; for (let k = 0; k < 50; k++) t += hotInner(20000); return t; }
function spin(ms) { const end = Date.now() + ms; let r = 0; while (Date.now() < end) r += outer(); return r; }
(async () => {
  const warmFirst = process.argv[2] === 'warm';
  if (warmFirst) spin(1500);
  await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  spin(1500);
  const { profile } = await post('Profiler.stop');
  const self = {};
  const dt = {}; profile.samples.forEach((id) => { dt[id] = (dt[id] || 0) + 1; });
  for (const n of profile.nodes) {
    const k = n.callFrame.functionName || '(anon)';
    self[k] = (self[k] || 0) + (dt[n.id] || 0);
    if (n.positionTicks && (k === 'outer' || k === 'spin')) console.log(k, 'line', n.callFrame.lineNumber + 1, JSON.stringify(n.positionTicks));
  }
  console.log(process.version, warmFirst ? 'warm' : 'cold', JSON.stringify(Object.entries(self).filter(([k, v]) => v > 5)));
})();
