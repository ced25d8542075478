/**
 * Start-up of the real process, as a user starts it: the production build (`node dist/src/start.js`) against the
 * sources
 * through tsx (`tsx src/main.ts`, the development start), measured in the same run over the same DuckDB file (created
 * by a first, unmeasured start), with two anchors started the same way: a bare node:http server (what starting any
 * Node process costs here: Node's own boot, including the CA certificates it reads when NODE_EXTRA_CA_CERTS is set)
 * and a plain Express 5 echo. Two moments per start, from spawn:
 *   - first 200: the first `200` to GET /v1/echo/hello, polled every 2 ms on the port the process is given;
 *   - ready: the process prints its `listening on` line, which main.ts writes after the warm-up requests.
 * Runs alternate between the two commands; the table gives median and best.
 * Then the production process's memory: RSS once it is ready and idle (the demo ledger loaded, its pre-aggregates
 * read),
 * and its peak (VmHWM) after echo and report load at 50 connections.
 */
import { PRODUCTION_NODE_ARGS } from '../lib/production-start.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { failedRequests, measuredLoad } from './load.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';
import { fmtInt, fmtMs, fmtRatio, median, table } from './stats.ts';

const ECHO = '/v1/echo/hello';

/**
 * The smallest servers answering the same request, started the same way: what any Node process costs on this machine.
 */
const ANCHOR_LISTEN =
  "listen(Number(process.env.PORT), process.env.HOST, () => console.log('listening on http://' + " +
  "process.env.HOST + ':' + process.env.PORT))";
const PRODUCTION = [process.execPath, ...PRODUCTION_NODE_ARGS] as const;
const BARE_NODE = [
  process.execPath,
  '-e',
  `require('node:http').createServer((req, res) => res.end('{}')).${ANCHOR_LISTEN}`,
] as const;
/**
 * Node reads the whole bundle NODE_EXTRA_CA_CERTS names before it runs any code (here ~80 ms of every start); a
 * machine that sets it for its own proxies, as this sandbox does, gets the production build and bare Node once more
 * without it, as the systemd unit starts the service (deploy/systemd sets no such variable).
 */
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS ? ['NODE_EXTRA_CA_CERTS'] : [];
const COMMANDS: Record<string, { argv: readonly [string, ...string[]]; unset?: readonly string[] }> = {
  'node dist/src/start.js': { argv: PRODUCTION },
  'tsx src/main.ts': { argv: [process.execPath, '--import', 'tsx', 'src/main.ts'] },
  'anchor: bare node:http': { argv: BARE_NODE },
  'anchor: plain Express 5': {
    argv: [
      process.execPath,
      '-e',
      `require('express')().get('/v1/echo/:m', (req, res) => res.json({ Message: req.params.m })).${ANCHOR_LISTEN}`,
    ],
  },
  ...(EXTRA_CA.length
    ? {
        'node dist/src/start.js, NODE_EXTRA_CA_CERTS unset': { argv: PRODUCTION, unset: EXTRA_CA },
        'anchor: bare node:http, NODE_EXTRA_CA_CERTS unset': { argv: BARE_NODE, unset: EXTRA_CA },
      }
    : {}),
};
type Command = keyof typeof COMMANDS;

/**
 * One GET of the echo on a new connection: true on a 200. node:http, not fetch: on a 2-core machine the probe's own
 * CPU is taken from the process it measures, and undici's per-request work cost the production start ~80 ms there.
 */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    get({ host: '127.0.0.1', port, path: ECHO, agent: false }, (res) => {
      res.resume().once('end', () => resolve(res.statusCode === 200));
    }).once('error', () => resolve(false));
  });
}

interface Started {
  server: SpawnedServer;
  firstOkMs: number;
  readyMs: number;
}

/** Starts the command and probes the echo every 2 ms until the first 200; then waits for its `listening on` line. */
async function start(command: Command, dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const { argv, unset } = COMMANDS[command]!;
  const server = await spawnServer(argv, { dataDir, env, unset, keepOutput: true });
  let exited = false;
  server.child.once('exit', () => (exited = true));
  let firstOkMs = NaN;
  while (!exited) {
    if (await probe(server.port)) {
      firstOkMs = performance.now() - server.spawnedAt;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { server, firstOkMs, readyMs: await server.ready };
}

export async function benchStartup(runs: number): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-startup-'));
  try {
    await (await start('node dist/src/start.js', dataDir)).server.stop(); // creates the store file; not measured
    const commands = Object.keys(COMMANDS) as Command[];
    const samples = new Map(commands.map((c) => [c, { firstOk: [] as number[], ready: [] as number[] }]));
    for (let i = 0; i < runs; i++) {
      for (const command of commands) {
        const s = await start(command, dataDir);
        await s.server.stop();
        samples.get(command)!.firstOk.push(s.firstOkMs);
        samples.get(command)!.ready.push(s.readyMs);
      }
    }
    const rows = [['start command', 'first 200 median ms', 'best ms', 'ready median ms', 'best ms', 'runs']];
    for (const command of commands) {
      const { firstOk, ready } = samples.get(command)!;
      rows.push([
        command,
        fmtMs(median(firstOk)),
        fmtMs(Math.min(...firstOk)),
        fmtMs(median(ready)),
        fmtMs(Math.min(...ready)),
        String(runs),
      ]);
    }
    console.log(
      `\nStart-up from spawn (DuckDB store, DEMO_DATA=0, ${runs} runs each, alternating): first 200 of ` +
        `GET ${ECHO}, and "listening on" (after the warm-up)`,
    );
    console.log(table(rows));
    const firstOk = (command: Command) => median(samples.get(command)!.firstOk);
    const build = firstOk('node dist/src/start.js'),
      bare = firstOk('anchor: bare node:http');
    console.log(
      `production build: first 200 in ${fmtMs(build)} ms (goal ≤ 500 ms); vs ` +
        `tsx: ${fmtRatio(build / firstOk('tsx src/main.ts'))}; ` +
        `vs bare node:http: ${fmtRatio(build / bare)} (+${fmtMs(build - bare)} ms); vs plain ` +
        `Express: ${fmtRatio(build / firstOk('anchor: plain Express 5'))}`,
    );
    const startRatio = build / firstOk('anchor: plain Express 5');
    const best = (command: Command) => Math.min(...samples.get(command)!.firstOk);
    const bestRatio = best('node dist/src/start.js') / best('anchor: plain Express 5');
    console.log(
      `goal 3, start → first 200 ≤ 3.5× plain Express 5 (stretch 2.5×): ${fmtRatio(startRatio)} ` +
        `${startRatio <= 3.5 ? 'met' : 'NOT met'} (medians; best of each: ${fmtRatio(bestRatio)})`,
    );
    if (EXTRA_CA.length) {
      const buildClean = firstOk('node dist/src/start.js, NODE_EXTRA_CA_CERTS unset'),
        bareClean = firstOk('anchor: bare node:http, NODE_EXTRA_CA_CERTS unset');
      console.log(
        `without NODE_EXTRA_CA_CERTS (as the systemd unit starts it): first 200 in ${fmtMs(buildClean)} ms; vs ` +
          `bare node:http alike: ` +
          `${fmtRatio(buildClean / bareClean)} (+${fmtMs(buildClean - bareClean)} ms)`,
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function memoryKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
}

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

/** RSS of the production process: idle once ready (demo ledger, pre-aggregates read), and its peak after load. */
export async function benchMemory(connections: number, seconds: number): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-memory-'));
  let server: SpawnedServer | undefined;
  try {
    // The first start generates and loads the demo ledger (its garbage grows V8's young generation, which stays
    // resident) and prints the demo key; the server is then restarted over that ledger, as it runs from then on.
    ({ server } = await start('node dist/src/start.js', dataDir, { DEMO_DATA: '1' }));
    await new Promise((resolve) => setTimeout(resolve, 2000)); // preload and warm-up settle; the demo key is printed
    const key = /(rsk_[A-Za-z0-9_-]{43})/.exec(server.output())?.[1];
    const firstStartIdle = memoryKiB(server.child.pid!, 'VmRSS');
    await server.stop();
    ({ server } = await start('node dist/src/start.js', dataDir, { DEMO_DATA: '1' }));
    const url = /listening on (http:\/\/[^\s]+)/.exec(server.output())![1]!;
    await new Promise((resolve) => setTimeout(resolve, 2000)); // preload and warm-up settle
    const pid = server.child.pid!;
    const idle = memoryKiB(pid, 'VmRSS');
    const report =
      `${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2025-01-01&` +
      `EndDate=2025-12-31&IncludeComputedColumns=true`;
    const load = async (target: string, headers: Record<string, string> = {}) => {
      const r = await measuredLoad({ url: target, connections, headers }, seconds, { warmUpSeconds: 0 });
      return { rps: r.requests.average, errors: failedRequests(r) };
    };
    const echo = await load(url + ECHO);
    const reports = key ? await load(report, { 'X-ApiKey': key }) : undefined;
    const after = memoryKiB(pid, 'VmRSS'),
      peak = memoryKiB(pid, 'VmHWM');
    console.log(
      `\nMemory of the production process (node dist/src/start.js, DuckDB, demo ledger), ${connections} connections:`,
    );
    console.log(
      table([
        ['moment', 'RSS'],
        ['first start, idle (2 s after "listening on"; it loaded the demo ledger)', mib(firstStartIdle)],
        ['restarted over the demo ledger, idle (2 s after "listening on")', mib(idle)],
        [
          `after ${seconds} s echo (${fmtInt(echo.rps)} req/s) + ${seconds} s report ` +
            `(${reports ? fmtInt(reports.rps) : '—'} req/s)`,
          mib(after),
        ],
        ['peak (VmHWM)', mib(peak)],
      ]),
    );
    const [idleMiB, peakMiB] = [idle / 1024, peak / 1024];
    console.log(
      `goal 4, idle RSS ≤ 200 MiB: ${idleMiB.toFixed(0)} MiB ${idleMiB <= 200 ? 'met' : 'NOT met'}; ` +
        `peak under the bench ≤ 350 MiB: ${peakMiB.toFixed(0)} MiB ${peakMiB <= 350 ? 'met' : 'NOT met'}`,
    );
    if (echo.errors || reports?.errors) console.log(`errors: echo ${echo.errors}, report ${reports?.errors ?? '—'}`);
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
