/**
 * The shadow proxy's cost (`npm run bench -- --only shadow`): GET /v1/echo/hello (the cheapest answer, so the proxy's
 * own cost shows most) and a profit-and-loss report over the demo ledger, with autocannon, keep-alive connections,
 * straight to the old host (the anchor) and through `npm run shadow` in front of it, mirroring every request (and, in
 * a second configuration, one in ten) to a new instance; the old host is asked again for noise, as by default. Old and
 * new are production processes (`node dist/src/start.js`, the demo ledger, each its own demo key); the proxy runs as users
 * run it (tsx). Rounds alternate the targets; the table gives each one's median requests/s and p99 over the
 * rounds, and the ratios to the anchor (goal: throughput ≥ 0.8×, p99 ≤ anchor + 2 ms), then the proxy's own figures
 * (mirrored, dropped: the queue bounds the mirror's work under a load it cannot follow).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import type { ShadowSnapshot } from '../../src/shadow/stats.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';
import { fmtInt, fmtMs, fmtRatio, median, percentile, table } from './stats.ts';

const ECHO = '/v1/echo/hello';
const REPORT = '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';

interface Measured { rps: number; p50: number; p99: number; errors: number }

async function load(url: string, headers: Record<string, string>, duration: number, connections: number): Promise<Measured> {
  const options = { url, headers, connections, pipelining: 1 };
  await autocannon({ ...options, duration: 1 }); // warm-up: JIT, sockets
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...options, duration }, (err, res) => (err ? reject(err) : resolve(res)));
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 200) latencies.push(ms);
    });
  });
  return { rps: result.requests.average, p50: median(latencies), p99: percentile(latencies, 99), errors: result.errors + result.timeouts + result.non2xx };
}

/** `node dist/src/start.js` over a fresh store with the demo ledger, and the demo key it prints. */
async function startHost(env: Record<string, string> = {}): Promise<SpawnedServer & { dataDir: string; apiKey: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-shadow-'));
  const server = await spawnServer([process.execPath, 'dist/src/start.js'], { dataDir, env: { LOG_LEVEL: 'warn', DEMO_DATA: '1', ...env }, keepOutput: true });
  await server.ready;
  // The demo ledger is loaded (and its key printed) after the server listens.
  const until = Date.now() + 180_000;
  let apiKey: string | undefined;
  while (!(apiKey = /Demo API key for company 1[^:]*: (\S+)/.exec(server.output())?.[1])) {
    if (Date.now() > until || server.child.exitCode !== null) throw new Error(`no demo key printed: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...server, dataDir, apiKey };
}

function startShadow(old: string, neu: string, ...args: string[]): Promise<ServerProcess> {
  const { NODE_OPTIONS: _bench, ...env } = process.env;
  return startServerProcess(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), ['scripts/shadow.ts', '--old', old, '--new', neu, '--listen', '0', ...args], { env });
}

export async function benchShadow(rounds: number, duration: number, connections: number): Promise<void> {
  console.log(`\nShadow proxy: ${connections} keep-alive connections, ${duration} s per target (+1 s warm-up), ${rounds} rounds; old and new: node dist/src/start.js with the demo ledger`);
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  const [old, neu] = await Promise.all([startHost(), startHost({ COMPANY_NAME: 'Another Company' })]);
  const proxies: [string, ServerProcess][] = [];
  try {
    const newKey = ['--new-header', `X-ApiKey: ${neu.apiKey}`];
    proxies.push(['through shadow (mirror all)', await startShadow(old.url, neu.url, ...newKey)]);
    proxies.push(['through shadow (--sample 0.1)', await startShadow(old.url, neu.url, ...newKey, '--sample', '0.1')]);
    const targets: [string, string][] = [['old host direct (anchor)', old.url], ...proxies.map(([name, p]): [string, string] => [name, p.url])];
    for (const [label, url, headers] of [['GET /v1/echo/hello', ECHO, {}], ['GET ProfitAndLoss/Flat (demo ledger, 2 years)', REPORT, { 'X-ApiKey': old.apiKey }]] as const) {
      // The same answer each way, but for the report's own timing and the host its link names (the one the client called).
      const same = (text: string, base: string) => text.split(base).join('{host}').replace(/"BuildTime":\d+/, '');
      const body = await (await fetch(old.url + url, { headers })).text();
      for (const [name, base] of targets) {
        const check = await (await fetch(base + url, { headers })).text();
        if (same(check, base) !== same(body, old.url)) throw new Error(`${name} answers another body: ${check.slice(0, 200)}`);
      }
      const perTarget = new Map<string, Measured[]>(targets.map(([name]) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        const shift = round % targets.length;
        for (const [name, base] of [...targets.slice(shift), ...targets.slice(0, shift)]) perTarget.get(name)!.push(await load(base + url, headers, duration, connections));
      }
      const mid = (name: string) => {
        const all = perTarget.get(name)!;
        return { rps: median(all.map((m) => m.rps)), p50: median(all.map((m) => m.p50)), p99: median(all.map((m) => m.p99)), errors: all.reduce((n, m) => n + m.errors, 0) };
      };
      const anchor = mid(targets[0]![0]);
      console.log(`\n${label} (${fmtInt(Buffer.byteLength(body))} bytes)`);
      console.log(table([
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'req/s vs anchor', 'p99 − anchor'],
        ...targets.map(([name]) => {
          const m = mid(name);
          return [name, fmtInt(m.rps), fmtMs(m.p50), fmtMs(m.p99), String(m.errors), fmtRatio(m.rps / anchor.rps), `${(m.p99 - anchor.p99).toFixed(2)} ms`];
        }),
      ]));
    }
    console.log('');
    for (const [name, proxy] of proxies) {
      const s = (await (await fetch(`${proxy.url}/_shadow.json`)).json()) as ShadowSnapshot;
      const t = s.totals;
      console.log(`${name}: served ${fmtInt(t.served)}, mirrored ${fmtInt(t.mirrored)} (${fmtInt(t.different)} different, ${fmtInt(t.errors)} errors), dropped ${fmtInt(t.dropped)} (queue full), skipped ${fmtInt(t.skipped)}; old p50/p99 ${s.latency.old.p50}/${s.latency.old.p99} ms, new ${s.latency.new.p50}/${s.latency.new.p99} ms`);
    }
    console.log('Goal: through the proxy ≥ 0.8× the anchor\'s requests/s and p99 ≤ the anchor\'s + 2 ms (medians over the rounds).');
  } finally {
    await Promise.all([...proxies.map(([, p]) => p.stop()), old.stop(), neu.stop()]);
    for (const host of [old, neu]) rmSync(host.dataDir, { recursive: true, force: true });
  }
}
