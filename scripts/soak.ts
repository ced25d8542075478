/**
 * Soak: 60 s of mixed traffic at 100 connections (autocannon) against `src/main.ts` started here on loopback
 * (DuckDB demo ledger in a temp DATA_DIR). Prints errors, non-2xx, p50/p99 latency and the server's RSS at start
 * (after a 5 s warm-up) and at the end. Goal: 0 errors and RSS growth <= 10 %. Exit 1 when there were errors.
 *   npm run soak [-- --duration 60 --connections 100]
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '60' }, connections: { type: 'string', default: '100' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

const dataDir = mkdtempSync(join(tmpdir(), 'rs-soak-'));
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '1', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (d) => (out += d));
const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 180_000);
  child.once('exit', (code) => reject(new Error(`server exited ${code}:\n${out}`)));
  child.stdout.on('data', () => {
    const u = /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1];
    const k = /(rsk_[A-Za-z0-9_-]{43})/.exec(out)?.[1];
    if (u && k) {
      clearTimeout(timer);
      resolve({ url: u, key: k });
    }
  });
});
const pid = child.pid!;
console.log(`server ${url} (pid ${pid}), RSS after boot ${rssMiB(pid).toFixed(1)} MiB`);

const auth = { 'x-apikey': key };
const json = { 'content-type': 'application/json', ...auth };
const year = new Date().getUTCFullYear();
const requests: autocannon.Request[] = [
  { method: 'GET', path: '/v1/echo/hello' },
  { method: 'GET', path: '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true', headers: auth },
  {
    method: 'POST',
    path: '/json/reply/GetFlatRequest',
    headers: json,
    body: JSON.stringify({
      CompanyId: 1,
      UseCustomDateRange: true,
      StartDate: `${year - 1}-01-15`,
      EndDate: `${year - 1}-06-10`,
    }),
  },
  {
    method: 'GET',
    path:
      `/json/reply/GetFlatRequest?CompanyId=1&UseCustomDateRange=true&StartDate=${year - 1}0101&` +
      `EndDate=${year - 1}1231&UseAccountMapping=true&OrderBy=AmountDescending`,
    headers: auth,
  },
  { method: 'POST', path: '/json/reply/EchoRequest', headers: json, body: '{"Message":"soak"}' },
  { method: 'GET', path: '/json/reply/EchoRequest?Message=x&callback=cb', headers: auth },
  { method: 'GET', path: '/health' },
];

function run(seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, requests, timeout: 10 }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

await run(5); // warm-up: JIT, validators, caches
const rssStart = rssMiB(pid);
console.log(
  `soak: ${duration} s, ${connections} connections, ${requests.length} request kinds; RSS at ` +
    `start ${rssStart.toFixed(1)} MiB`,
);
const result = await run(duration);
const rssEnd = rssMiB(pid);
const growth = ((rssEnd - rssStart) / rssStart) * 100;

const errors = result.errors + result.timeouts;
console.log(`requests:      ${result.requests.total} (${result.requests.average.toFixed(0)}/s)`);
console.log(`errors:        ${errors} (socket errors ${result.errors}, timeouts ${result.timeouts})`);
console.log(`non-2xx:       ${result.non2xx}`);
console.log(`latency:       p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
console.log(
  `RSS:           start ${rssStart.toFixed(1)} MiB, end ${rssEnd.toFixed(1)} MiB, growth ${growth.toFixed(1)} %`,
);
console.log(
  `goal (0 errors, 0 non-2xx, RSS growth <= 10 ` +
    `%): ${errors === 0 && result.non2xx === 0 && growth <= 10 ? 'met' : 'NOT met'}`,
);

child.kill('SIGTERM');
const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
  child.once('exit', (c, s) => resolve([c, s])),
);
console.log(`server exited ${code ?? `by signal ${signal}`} after SIGTERM`);
rmSync(dataDir, { recursive: true, force: true });
process.exitCode = errors === 0 && result.non2xx === 0 ? 0 : 1;
