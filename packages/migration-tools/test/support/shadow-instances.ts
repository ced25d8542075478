/**
 * What the migration tools' tests start as users start them: an instance of this service (`npm start`'s production
 * process over a fresh data folder with the demo ledger, its demo key read from what it printed) and `npm run shadow`
 * (scripts/shadow.ts through tsx, which forwards SIGTERM to it), and the proxy's figures behind the page's token.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import type { ShadowSnapshot } from '../../src/shadow/stats.ts';
import {
  REPO_ROOT,
  startProductionServer,
  startServerProcess,
  type ServerProcess,
} from '../../../../scripts/lib/server-process.ts';

/** Mirrors never dropped for a contended CPU. */
export const NEVER_CPU_BUSY = ['--cpu-busy', '100'];
/** tsx as npm runs it, for the migration tools' scripts. */
export const TSX = join(REPO_ROOT, 'node_modules/.bin/tsx');
const DEMO_KEY = /Demo API key for company 1[^:]*: (\S+)\n/;

export interface DemoService {
  url: string;
  /** The demo key the service printed on first start. */
  apiKey: string;
  server: ServerProcess;
}

/** `npm start` on a fresh data directory (`env` added): the demo ledger is loaded and a key for company 1 printed. */
export async function startDemoService(dataDir: string, env: Record<string, string> = {}): Promise<DemoService> {
  const server = await startProductionServer({ DATA_DIR: dataDir, DEMO_DATA: '1', LOG_LEVEL: 'warn', ...env });
  await server.waitForOutput(DEMO_KEY, 120_000);
  return { url: server.url, apiKey: DEMO_KEY.exec(server.output())![1]!, server };
}

/**
 * The proxy (or with `--mirror-sink`, the sink) as `npm run shadow -- …` starts it, with `--cpu-busy 100` unless
 * `args` set it: the tests count mirrors on a machine other tests keep busy (the CPU gate has a test of its own).
 */
export function startShadow(...args: string[]): Promise<ServerProcess> {
  const cpu = args.includes('--cpu-busy') ? [] : NEVER_CPU_BUSY;
  return startServerProcess(TSX, ['packages/migration-tools/scripts/shadow.ts', ...args, ...cpu], {
    env: { ...process.env, NODE_OPTIONS: '' },
    timeoutMs: 60_000,
  });
}

/** The page's and the JSON's addresses, with their token, as the proxy printed them. */
export function pageOf(proxy: ServerProcess): { page: string; json: string } {
  const [, page, json] = /live page (\S+), JSON (\S+?)[;\s]/.exec(proxy.output())!;
  return { page: page!, json: json! };
}

/** The proxy's figures from the page's JSON: 200, JSON. */
export async function figures(proxy: ServerProcess): Promise<ShadowSnapshot> {
  const res = await fetch(pageOf(proxy).json);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  return (await res.json()) as ShadowSnapshot;
}

/** The figures once every served request is mirrored, skipped or dropped, the queue is empty and `until` holds. */
export async function settled(
  proxy: ServerProcess,
  until: (s: ShadowSnapshot) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<ShadowSnapshot> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await figures(proxy);
    const t = s.totals;
    if (s.queue.waitingOrInFlight === 0 && t.mirrored + t.skipped + t.dropped === t.served && until(s)) return s;
    if (Date.now() > deadline) throw new Error(`the mirror never settled: ${JSON.stringify(s.totals)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
