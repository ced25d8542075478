/**
 * The request path of one GetFlatRequest, counted: which Express layers (middlewares, routers, routes) it enters,
 * and how many calls of functions in src/ it makes (V8 precise coverage with call counts, diffed around the request).
 * Usage: npx tsx scripts/request-path.ts
 */
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const imp = (p: string) => import(pathToFileURL(path.join(repo, p)).href);
const { pino } = await import('pino');
const { createApp } = await imp('src/app.ts');
const { openStore } = await imp('src/store/open-store.ts');
const { createApiKey } = await imp('src/auth/api-keys.ts');
const { workedExampleBatch } = await imp('test/fixtures/worked-example.ts');
const { listen } = await imp('src/server.ts');

const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
await store.load(workedExampleBatch);
const { key } = await createApiKey(store, { name: 'm', companyIds: [1] });
const app = await createApp({ config: { companyName: 'M', debug: false, bodyLimitBytes: 1_048_576, validateResponses: false }, store, logger: pino({ level: 'silent' }) });

// Express layers entered (by name), recorded by wrapping each layer of the app's router, recursively.
const entered: string[] = [];
let recording = false;
function wrap(stack: any[], prefix: string) {
  for (const layer of stack) {
    const name = `${prefix}${layer.name || '<anonymous>'}${layer.route ? ` ${layer.route.path}` : ''}`;
    const handle = layer.handle;
    if (handle?.stack) wrap(handle.stack, `${name} > `);
    if (layer.route?.stack) wrap(layer.route.stack, `${name} > `);
    layer.handle = function (this: unknown, ...args: unknown[]) {
      if (recording) entered.push(name);
      return handle.apply(this, args);
    };
    Object.defineProperty(layer.handle, 'length', { value: handle.length });
  }
}
wrap((app as any).router.stack, '');

const { server, url } = await listen(app, 0, '127.0.0.1');
const target = `${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29&IncludeComputedColumns=true`;
const get = () => fetch(target, { headers: { 'X-ApiKey': key } }).then(async (r) => { await r.arrayBuffer(); return r.status; });
for (let i = 0; i < 3; i++) await get(); // warm: validators compiled, caches filled

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const counts = async () => {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const out = new Map<string, number>();
  for (const script of result) {
    if (!script.url.includes('/src/') || script.url.includes('node_modules')) continue;
    const file = script.url.slice(script.url.indexOf('/src/') + 1);
    for (const fn of script.functions) {
      if (!fn.functionName && fn.ranges[0]!.startOffset === 0) continue; // module body
      const k = `${file}:${fn.functionName || '(anonymous)'}@${fn.ranges[0]!.startOffset}`;
      out.set(k, (out.get(k) ?? 0) + fn.ranges[0]!.count);
    }
  }
  return out;
};
await counts(); // reset (takePreciseCoverage resets counters)
recording = true;
const status = await get();
recording = false;
const after = await counts();
await session.post('Profiler.stopPreciseCoverage');
server.close();
await store.close();

const called = [...after].filter(([, n]) => n > 0);
const files = new Set(called.map(([k]) => k.split(':')[0]));
console.log(`GET ${new URL(target).pathname}${new URL(target).search} → ${status}`);
console.log(`\nExpress layers entered (${entered.length}):`);
entered.forEach((n, i) => console.log(`  ${String(i + 1).padStart(2)}. ${n}`));
console.log(`\nsrc/ functions called: ${called.length} distinct, ${called.reduce((s, [, n]) => s + n, 0)} calls, in ${files.size} files`);
const byFolder = new Map<string, [number, number]>();
for (const [k, n] of called) {
  const parts = k.split(':')[0]!.split('/');
  const folder = parts.length > 2 ? `${parts[1]}/` : parts[1]!;
  const [d, c] = byFolder.get(folder) ?? [0, 0];
  byFolder.set(folder, [d + 1, c + n]);
}
console.log(`  by folder: ${[...byFolder].sort().map(([f, [d, c]]) => `${f} ${d} fns/${c} calls`).join(', ')}`);
for (const f of [...files].sort()) {
  const fns = called.filter(([k]) => k.startsWith(f + ':')).map(([k, n]) => `${k.split(':')[1]!.replace(/@\d+$/, '')}${n > 1 ? `×${n}` : ''}`);
  console.log(`  ${f}: ${fns.join(', ')}`);
}
process.exit(0);
