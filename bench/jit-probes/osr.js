// osr.js: code V8 compiled for a loop on the stack (OSR) before the profiler started is not
// listed to it: its samples go to the caller's line, with no frame for osrLoop, on every Node
// version 18-26. Used for doc/inlining.md, cause 3.
const inspector = require('inspector'); let s;
const post = (m, p) => new Promise((res, rej) => s.post(m, p || {}, (e, r) => e ? rej(e) : res(r)));
function osrLoop(ms) {            // line 3: called rarely, its hot loop runs in OSR code
  const end = Date.now() + ms; let x = 0, n = 0;
  while (true) { for (let i = 0; i < 100000; i++) x = (x * 31 + i) | 0; if (++n % 16 === 0 && Date.now() > end) break; }
  return x;
}
function caller(ms) { return osrLoop(ms); }   // line 8
(async () => {
  caller(800); // pre-attach: OSR code for osrLoop is made now
  s = new inspector.Session(); s.connect(); console.log('PROFILER START');
  await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 500 }); await post('Profiler.start');
  caller(1000);
  const { profile } = await post('Profiler.stop');
  const dt = {}; profile.samples.forEach((id) => { dt[id] = (dt[id] || 0) + 1; });
  const out = [];
  for (const n of profile.nodes) if (dt[n.id] > 3) out.push(`${n.callFrame.functionName}:${n.callFrame.lineNumber + 1} self=${dt[n.id]} pt=${JSON.stringify((n.positionTicks || []).map(p => p.line + ':' + p.ticks))}`);
  console.log(process.version, out.join(' | '));
})();
