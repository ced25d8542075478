/**
 * The shadow proxy's cost (`npm run bench -- --only shadow`): GET /v1/echo/hello (the cheapest answer, so the proxy's
 * own cost shows most) and a profit-and-loss report over the demo ledger, with autocannon, keep-alive connections,
 * straight to the old host (the anchor) and through `npm run shadow` in front of it, mirroring every request (and, in
 * a second configuration, one in ten) to a new instance; the old host is asked again for noise, as by default. Old and
 * new are production processes (`node dist/src/start.js`, the demo ledger, each its own demo key); the proxy runs as
 * users
 * run it (tsx). Rounds alternate the targets; the table gives each one's median requests/s and p99 over the
 * rounds, and the ratios to the anchor (goal: throughput ≥ 0.8×, p99 ≤ anchor + 2 ms), then the proxy's own figures
 * (mirrored, dropped: the queue bounds the mirror's work under a load it cannot follow).
 *
 * Fairness: every process (old, new, both proxies) is alive through every run, the anchor's included, and before each
 * measured run the proxies' mirror queues are drained, so no run inherits another's mirror work. On a machine of few
 * cores the load generator, the old host, the new one and the proxy share them, so at saturation the ratio measures
 * the CPU the proxy (and its mirror) take from the others as much as the proxy's own speed: each table gives the CPU
 * time per request of each process (from /proc: old host, new host, the proxy's process tree with its mirror thread,
 * and the load generator, this process) over the measured window. A second table runs each target at a fixed rate
 * (half the anchor's saturated requests/s, open-loop), where nothing is saturated and the p99 difference is the
 * latency the proxy adds under load; a third runs a tenth of the anchor's rate over 5 connections, where requests
 * rarely queue behind each other and the p99 difference is the proxy's hop itself. Each table also has a bare
 * node:http proxy (scripts/bench/bare-proxy.mjs, nothing mirrored) in front of the same old host: the floor any
 * proxy on node:http has on this machine in this run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { failedRequests, measuredLoad } from './load.ts';
import { REPO_ROOT, startServerProcess, type ServerProcess, withoutNodeOptions } from '../lib/server-process.ts';
import type { ShadowSnapshot } from '../../packages/migration-tools/src/shadow/stats.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';
import { processTreeCpuMs } from './process-cpu.ts';
import { fmtInt, fmtMs, fmtRatio, median, percentile, table } from './stats.ts';

const ECHO = '/v1/echo/hello';
const LIGHT_CONNECTIONS = 5;
const REPORT = '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpu: Record<string, number>;
}

/**
 * Runs each target once a round, the order rotated by one each round (the machine's load drifts between runs); the
 * runs by target, in round order.
 */
export async function rotatedRounds(
  names: readonly string[],
  rounds: number,
  run: (name: string) => Promise<Measured>,
): Promise<Map<string, Measured[]>> {
  const perTarget = new Map<string, Measured[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const shift = round % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) perTarget.get(name)!.push(await run(name));
  }
  return perTarget;
}

/** One target's runs as medians over the rounds (errors: their sum), the CPU of each named process too. */
export function mediansOf(all: readonly Measured[]): Measured {
  return {
    rps: median(all.map((m) => m.rps)),
    p50: median(all.map((m) => m.p50)),
    p99: median(all.map((m) => m.p99)),
    errors: all.reduce((n, m) => n + m.errors, 0),
    cpu: Object.fromEntries(Object.keys(all[0]!.cpu).map((k) => [k, median(all.map((m) => m.cpu[k]!))])),
  };
}

/** The light load: a tenth of the anchor's requests/s (in steps of 50, at least 50) over LIGHT_CONNECTIONS. */
export function lightLoad(anchorRps: number): { rate: number; connections: number; title: string } {
  const rate = Math.max(50, Math.round(anchorRps / 10 / 50) * 50);
  return {
    rate,
    connections: LIGHT_CONNECTIONS,
    title:
      `at a fixed ${fmtInt(rate)} requests/s (a tenth of the anchor's) over ${LIGHT_CONNECTIONS} ` +
      `connections, open loop`,
  };
}

/** A table's first columns, both benchmarks alike: the target, its medians, its failures, req/s against the anchor. */
export const leadHeaders = (errors: string) => ['target', 'req/s', 'p50 ms', 'p99 ms', errors, 'req/s vs anchor'];

export function leadCells(name: string, m: Omit<Measured, 'cpu'>, anchor: { rps: number }): string[] {
  return [name, fmtInt(m.rps), fmtMs(m.p50), fmtMs(m.p99), String(m.errors), fmtRatio(m.rps / anchor.rps)];
}

/** The CPU (ms) of each named process so far; `load generator` is this process (autocannon runs in it). */
function cpuNow(pids: Record<string, number>): Record<string, number> {
  const own = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processTreeCpuMs(pid)])),
    'load generator': (own.user + own.system) / 1000,
  };
}

/** `rate`: requests/s over all connections (open loop); none: as fast as the target answers. */
export async function load(
  url: string,
  headers: Record<string, string>,
  duration: number,
  connections: number,
  pids: Record<string, number>,
  rate?: number,
): Promise<Measured> {
  const options = { url, headers, connections, pipelining: 1, ...(rate ? { overallRate: rate } : {}) };
  const latencies: number[] = [];
  let cpuBefore: Record<string, number> = {};
  const result = await measuredLoad(options, duration, {
    beforeMeasured: () => (cpuBefore = cpuNow(pids)),
    onResponse: (status, ms) => status === 200 && latencies.push(ms),
  });
  const cpuAfter = cpuNow(pids);
  const cpu = Object.fromEntries(
    Object.keys(cpuAfter).map((name) => [
      name,
      (cpuAfter[name]! - cpuBefore[name]!) / Math.max(1, result.requests.total),
    ]),
  );
  return {
    rps: result.requests.average,
    p50: median(latencies),
    p99: percentile(latencies, 99),
    errors: failedRequests(result),
    cpu,
  };
}

/** A proxy's (or sink's) JSON figures address, with the page's token, as it printed them at start. */
export function figuresUrl(proxy: { output(): string }): string {
  return /live page \S+, JSON (\S+?)[;\s]/.exec(proxy.output())![1]!;
}

/** Until no proxy has mirrors waiting or in flight (the work a run left must not land in the next one). */
export async function drained(urls: readonly string[]): Promise<void> {
  const until = Date.now() + 60_000;
  for (const url of urls) {
    while (((await (await fetch(url)).json()) as ShadowSnapshot).queue.waitingOrInFlight > 0) {
      if (Date.now() > until) throw new Error(`the mirror queue of ${url} never drained`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** `node dist/src/start.js` over a fresh store with the demo ledger, and the demo key it prints. */
export async function startHost(
  env: Record<string, string> = {},
): Promise<SpawnedServer & { dataDir: string; apiKey: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-shadow-'));
  const server = await spawnServer([process.execPath, 'dist/src/start.js'], {
    dataDir,
    env: { LOG_LEVEL: 'warn', DEMO_DATA: '1', ...env },
    keepOutput: true,
  });
  await server.ready;
  // The demo ledger is loaded (and its key printed) after the server listens.
  const until = Date.now() + 180_000;
  let apiKey: string | undefined;
  while (!(apiKey = /Demo API key for company 1[^:]*: (\S+)/.exec(server.output())?.[1])) {
    if (Date.now() > until || server.child.exitCode !== null)
      throw new Error(`no demo key printed: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...server, dataDir, apiKey };
}

function startShadow(old: string, neu: string, ...args: string[]): Promise<ServerProcess> {
  return startServerProcess(
    path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
    ['packages/migration-tools/scripts/shadow.ts', '--old', old, '--new', neu, '--listen', '0', ...args],
    { env: withoutNodeOptions() },
  );
}

export async function benchShadow(rounds: number, duration: number, connections: number): Promise<void> {
  console.log(
    `\nShadow proxy: ${connections} keep-alive connections, ${duration} s per target (+1 s warm-up), ${rounds} ` +
      `rounds; old and new: node dist/src/start.js with the demo ledger`,
  );
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  const [old, neu] = await Promise.all([startHost(), startHost({ COMPANY_NAME: 'Another Company' })]);
  const proxies: [string, ServerProcess][] = [];
  try {
    // Callers send the old host's key; the new service gets its counterpart (never a key for every caller).
    const credentials = path.join(old.dataDir, 'credentials.json');
    writeFileSync(credentials, JSON.stringify([{ old: `X-ApiKey: ${old.apiKey}`, new: `X-ApiKey: ${neu.apiKey}` }]));
    const newKey = ['--credential-map', credentials];
    proxies.push(['through shadow (mirror all)', await startShadow(old.url, neu.url, ...newKey)]);
    proxies.push(['through shadow (--sample 0.1)', await startShadow(old.url, neu.url, ...newKey, '--sample', '0.1')]);
    // The floor: a bare node:http proxy in front of the same old host, nothing mirrored.
    proxies.push([
      'bare node:http proxy (floor)',
      await startServerProcess(process.execPath, [path.join(REPO_ROOT, 'scripts/bench/bare-proxy.mjs'), old.url], {
        env: withoutNodeOptions(),
      }),
    ]);
    const targets: [string, string][] = [
      ['old host direct (anchor)', old.url],
      ...proxies.map(([name, p]): [string, string] => [name, p.url]),
    ];
    const shadows = proxies.filter(([name]) => name.startsWith('through shadow'));
    for (const [label, url, headers] of [
      ['GET /v1/echo/hello', ECHO, {}],
      ['GET ProfitAndLoss/Flat (demo ledger, 2 years)', REPORT, { 'X-ApiKey': old.apiKey }],
    ] as const) {
      // The same answer each way, but for the report's own timing and the host its link names (the one the client
      // called).
      const same = (text: string, base: string) =>
        text
          .split(base)
          .join('{host}')
          .replace(/"BuildTime":\d+/, '');
      const body = await (await fetch(old.url + url, { headers })).text();
      for (const [name, base] of targets) {
        const check = await (await fetch(base + url, { headers })).text();
        if (same(check, base) !== same(body, old.url))
          throw new Error(`${name} answers another body: ${check.slice(0, 200)}`);
      }
      const pids: Record<string, number> = { old: old.child.pid!, new: neu.child.pid!, proxy: 0 };
      const bases = new Map(targets);
      const measure = async (rate?: number, clients = connections) => {
        const perTarget = await rotatedRounds([...bases.keys()], rounds, async (name) => {
          await drained(shadows.map(([, p]) => figuresUrl(p)));
          // The proxy's CPU is that of the one under load; the anchor's run counts none.
          const proxy = proxies.find(([n]) => n === name)?.[1];
          const processes = { ...pids, proxy: proxy?.child.pid ?? 0 };
          return load(bases.get(name)! + url, headers, duration, clients, processes, rate);
        });
        return (name: string) => mediansOf(perTarget.get(name)!);
      };
      const print = (title: string, mid: Awaited<ReturnType<typeof measure>>) => {
        const anchor = mid(targets[0]![0]);
        console.log(`\n${label} (${fmtInt(Buffer.byteLength(body))} bytes), ${title}`);
        console.log(
          table([
            [...leadHeaders('errors'), 'p99 − anchor', 'CPU ms/req: old', 'new', 'proxy', 'load gen'],
            ...targets.map(([name]) => {
              const m = mid(name);
              const cpu = (k: string) => fmtMs(m.cpu[k]!);
              return [
                ...leadCells(name, m, anchor),
                `${(m.p99 - anchor.p99).toFixed(2)} ms`,
                cpu('old'),
                cpu('new'),
                cpu('proxy'),
                cpu('load generator'),
              ];
            }),
          ]),
        );
        return anchor;
      };
      const saturated = print('as fast as each answers', await measure());
      const rate = Math.max(100, Math.round(saturated.rps / 2 / 100) * 100);
      print(`at a fixed ${fmtInt(rate)} requests/s (half the anchor's), open loop`, await measure(rate));
      // Bursts of 50 at once queue behind each other on 2 cores whatever the proxy does; a light load shows the hop
      // itself.
      const light = lightLoad(saturated.rps);
      print(light.title, await measure(light.rate, light.connections));
    }
    console.log('');
    for (const [name, proxy] of shadows) {
      const s = (await (await fetch(figuresUrl(proxy))).json()) as ShadowSnapshot;
      const t = s.totals;
      console.log(
        `${name}: served ${fmtInt(t.served)}, mirrored ${fmtInt(t.mirrored)} (${fmtInt(t.different)} ` +
          `different, ${fmtInt(t.errors)} errors), dropped ${fmtInt(t.dropped)} (queue full), ` +
          `skipped ${fmtInt(t.skipped)}; old p50/p99 ${s.latency.old.p50}/${s.latency.old.p99} ms, ` +
          `new ${s.latency.new.p50}/${s.latency.new.p99} ms`,
      );
    }
    console.log(
      "Goal: through the proxy ≥ 0.8× the anchor's requests/s and p99 ≤ the anchor's + 2 ms (medians over the " +
        "rounds); CPU ms/req: each process's CPU time over the measured window per request answered (proxy: its " +
        'process tree, mirror thread included).',
    );
  } finally {
    await Promise.all([...proxies.map(([, p]) => p.stop()), old.stop(), neu.stop()]);
    for (const host of [old, neu]) rmSync(host.dataDir, { recursive: true, force: true });
  }
}
