'use strict';
// Benchmark target: the TypeScript compiler type-checking a generated project in a loop,
// through its API (ts.createProgram + ts.getPreEmitDiagnostics), as a build server or an
// editor plugin does. typescript comes from NODE_PATH (bench/lib.sh's bench_npm_deps).
//
// Usage: node tsc-loop.js --dir DIR [--files N] [--out FILE] [--duration SECS]
//   --dir DIR     where the project is generated (rewritten at every start)
//   --files N     generated .ts files (default 300): interfaces, generic classes, unions,
//                 mapped types and functions that import from two earlier files
// The lib .d.ts files are parsed once and reused (a real build server keeps them too), so
// the loop spends its time parsing, binding and checking the generated files. Prints
// {"event":"ready","files":..,"diagnostics":..} then monitor.js's per-second lines, where
// ops is the number of whole-project checks finished.
const fs = require('fs');
const path = require('path');
const ts = require('typescript');
const { start } = require('./monitor');

const opt = { dir: null, files: 300, out: null, duration_s: 0 };
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i];
	if (a === '--dir') opt.dir = process.argv[++i];
	else if (a === '--files') opt.files = Number(process.argv[++i]);
	else if (a === '--out') opt.out = process.argv[++i];
	else if (a === '--duration') opt.duration_s = Number(process.argv[++i]);
	else { process.stderr.write(`tsc-loop.js: unknown argument ${a}\n`); process.exit(2); }
}
if (!opt.dir || !(opt.files >= 1)) { process.stderr.write('tsc-loop.js: --dir DIR is needed\n'); process.exit(2); }

function fileSource(i) {
	const imports = [];
	if (i > 0) imports.push(`import { Entity${i - 1}, make${i - 1}, Repo${i - 1} } from './m${i - 1}';`);
	if (i > 1) imports.push(`import { Entity${(i * 7) % i} as Other, Status${(i * 7) % i} } from './m${(i * 7) % i}';`);
	const base = i > 0 ? `Entity${i - 1}` : '{ id: number }';
	return `${imports.join('\n')}
export type Status${i} = 'new' | 'open' | 'closed' | 'archived${i}';
export interface Entity${i} extends Omit<${base}, 'tag' | 'status'> {
  id: number;
  tag: 'e${i}';
  name: string;
  status: Status${i};
  scores: ReadonlyArray<number>;
  meta?: { [key: string]: string | number | undefined };
}
export type Patch${i} = { [K in keyof Entity${i}]?: Entity${i}[K] extends object ? Partial<Entity${i}[K]> : Entity${i}[K] };
export function make${i}(id: number, name: string): Entity${i} {
  ${i > 0 ? `const prev = make${i - 1}(id, name);` : 'const prev = { id };'}
  return { ...prev, id, tag: 'e${i}', name: name + ${i}, status: 'new', scores: [id, ${i}] } as Entity${i};
}
export function score${i}(e: Entity${i}): number {
  return e.scores.reduce((a, b) => a + b, 0) * (e.status === 'open' ? 2 : 1);
}
export class Repo${i}<T extends { id: number } = Entity${i}> {
  private items = new Map<number, T>();
  add(item: T): this { this.items.set(item.id, item); return this; }
  find(pred: (t: T) => boolean): T | undefined { for (const t of this.items.values()) if (pred(t)) return t; return undefined; }
  map<U>(f: (t: T, i: number) => U): U[] { return Array.from(this.items.values(), f); }
  patch(id: number, p: Partial<T>): T | undefined { const t = this.items.get(id); return t && Object.assign(t, p); }
}
export const repo${i} = new Repo${i}().add(make${i}(1, 'one')).add(make${i}(2, 'two'));
export const best${i}: number = repo${i}.map(score${i}).sort((a, b) => b - a)[0] ?? 0;
${i > 1 ? `export function link${i}(a: Entity${i}, b: Other): [string, Status${(i * 7) % i}] { return [a.name + b.name, b.status]; }` : ''}
${i > 0 ? `export const upstream${i}: Repo${i - 1} = new Repo${i - 1}();` : ''}
`;
}

fs.rmSync(opt.dir, { recursive: true, force: true });
fs.mkdirSync(opt.dir, { recursive: true });
const files = [];
for (let i = 0; i < opt.files; i++) {
	const f = path.join(opt.dir, `m${i}.ts`);
	fs.writeFileSync(f, fileSource(i));
	files.push(f);
}
const options = { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, strict: true, noEmit: true,
	skipLibCheck: true, types: [] };
const host = ts.createCompilerHost(options);
const libCache = new Map();
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (name, lang, onError) => {
	if (!name.includes('/typescript/lib/')) return getSourceFile(name, lang, onError);
	if (!libCache.has(name)) libCache.set(name, getSourceFile(name, lang, onError));
	return libCache.get(name);
};

function check() {
	const program = ts.createProgram(files, options, host);
	return ts.getPreEmitDiagnostics(program);
}

const mon = start(opt);
const first = check();
mon.count();
mon.emit({ event: 'ready', pid: process.pid, node: process.version, files: files.length, diagnostics: first.length,
	first_diagnostic: first.length ? ts.flattenDiagnosticMessageText(first[0].messageText, ' ') : null });
function loop() {
	check();
	mon.count();
	setImmediate(loop);
}
setImmediate(loop);
