/**
 * HTTP overhead benchmark (`npm run bench -- [--duration 5] [--connections 50] [--rounds 3]`).
 *
 * Measures the echo, GET /v1/echo/hello and POST /json/reply/EchoRequest, on our app against anchors sending the same
 * JSON bytes and the same headers (helmet's, Vary, a new X-Request-Id each), in one run:
 *   - node:http   a bare node:http server (the floor of any Node HTTP service);
 *   - express     plain Express 5, one route per request, express.json() for the POST (the framework we build on);
 *   - fastify     Fastify 5 with schema validation and one pino line per response (context);
 *   - app         the production process, `node dist/src/start.js` as deployed (wire rules, binder, request
 *                 validation, legacy JSON writer, metrics, and the access log at info to its stdout, a pipe the bench
 *                 drains), over an empty DuckDB file, responses not validated (the default), loaded once it is ready.
 * Each server runs in its own child process (so the load generator does not share its event loop); autocannon drives
 * it over loopback with N keep-alive connections for a warm-up second, then for --duration seconds; --rounds times, the
 * targets in a rotated order each round, the medians reported. Latencies of every
 * response are recorded to give exact p50/p95/p99; requests/s is autocannon's average; the server's own CPU time
 * (user + system, over the measured window) per request is reported too, since autocannon shares the machine.
 * Then start-up (first 200 and ready), production build against tsx, and the production process's idle and peak
 * memory (scripts/bench/startup.ts), and report requests/s through nginx with one and two instances over one
 * PostgreSQL (scripts/bench/nginx-instances.ts), then `npm run compare` replaying the battery between two
 * local instances against plain replays (compareScenario), then requests/s and p99 through `npm run shadow` against the
 * old host direct (scripts/bench/shadow.ts), then through nginx with its mirror feeding `npm run shadow --
 * --mirror-sink` against nginx direct (scripts/bench/nginx-mirror.ts).
 * `--only overhead,startup,memory,instances,compare,shadow,mirror` picks sections.
 */
import { PRODUCTION_NODE_ARGS } from './lib/production-start.ts';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism, devNull, loadavg, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { failedRequests, measuredLoad } from './bench/load.ts';
import { processCpuMs } from './bench/process-cpu.ts';
import { fmtInt, fmtMs, fmtRatio, intArg, median, parseArgs, percentile, table } from './bench/stats.ts';
import { benchInstances } from './bench/nginx-instances.ts';
import { benchShadow } from './bench/shadow.ts';
import { benchNginxMirror } from './bench/nginx-mirror.ts';
import { benchMemory, benchStartup } from './bench/startup.ts';
import { firstMessage, READY_TIMEOUT_MS, spawnServer, stop } from './bench/spawn-server.ts';
import { startAnchor, type Answer } from './bench/anchors.ts';

/** The two echo requests measured: a GET with a path variable, and a POST of a JSON body to the pre-defined route. */
const SCENARIOS = [
  { name: 'GET echo', method: 'GET', path: '/v1/echo/hello', body: undefined },
  { name: 'POST echo', method: 'POST', path: '/json/reply/EchoRequest', body: '{"Message":"hello"}' },
] as const;
type Scenario = (typeof SCENARIOS)[number];
/** `app` is the production process (`node dist/src/start.js`); the others are anchors answering the same bytes. */
const TARGETS = ['node:http', 'express', 'fastify', 'app'] as const;
type Target = (typeof TARGETS)[number];
/** Served in a child process: the anchors, and the app run from the sources (`npm run compare`'s two instances). */
type ChildTarget = Exclude<Target, 'app'> | 'app under tsx';

const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'content-length', 'x-request-id']);

// ---------------------------------------------------------------- child: one server
async function serve(target: ChildTarget): Promise<void> {
  let url: string;
  if (target !== 'app under tsx') {
    const answer = JSON.parse(process.env.BENCH_ECHO_ANSWER ?? '{"body":"{}","headers":{}}') as Answer;
    url = (await startAnchor(target, answer)).url;
  } else {
    const { pino } = await import('pino');
    const { createLogger } = await import('../src/ops/logger.ts');
    const { createApp } = await import('../src/app.ts');
    const { listen, warmUp } = await import('../src/server.ts');
    const { openStore } = await import('../src/store/open-store.ts');
    const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
    const app = await createApp({
      config: { debug: false, bodyLimitBytes: 1_048_576, validateResponses: false },
      store,
      logger: createLogger('info', pino.destination({ dest: devNull, sync: false })),
    });
    const running = await listen(app, 0, '127.0.0.1');
    await warmUp(running.url);
    url = running.url;
  }
  process.send!({ url });
  // The server's own CPU time so far, asked for by the parent: the load generator shares the machine.
  process.on('message', (m: { cpu?: 'read' }) => {
    if (m.cpu !== 'read') return;
    const used = process.cpuUsage();
    process.send!({ cpuMicros: used.user + used.system });
  });
}

/** A server under load, and its own CPU time (user + system, µs) so far. */
interface Served {
  child: ChildProcess;
  url: string;
  cpuMicros(): Promise<number>;
}

// ---------------------------------------------------------------- parent: drive the load
function startChild(target: ChildTarget, answer?: Answer): Promise<Served> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', target], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...(answer ? { BENCH_ECHO_ANSWER: JSON.stringify(answer) } : {}) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The child reports its process.cpuUsage() when asked.
  const cpuMicros = () =>
    new Promise<number>((resolve) => {
      const take = (m: { cpuMicros?: number }) => {
        if (m.cpuMicros === undefined) return;
        child.off('message', take);
        resolve(m.cpuMicros);
      };
      child.on('message', take);
      child.send({ cpu: 'read' });
    });
  return firstMessage<{ url: string }>(child, `the ${target} server`, READY_TIMEOUT_MS).then(({ url }) => ({
    child,
    url,
    cpuMicros,
  }));
}

/**
 * The production process as deployed: `node dist/src/start.js` over an empty DuckDB file, metrics and the access log at
 * info on (its stdout, drained and dropped), responses not validated (the default). Load starts once it prints
 * `listening on` (after its own warm-up). Its CPU time is read from /proc (clock ticks of 10 ms).
 */
async function startProduction(): Promise<Served> {
  execFileSync(process.execPath, [fileURLToPath(new URL('./ensure-build.mjs', import.meta.url))], { stdio: 'inherit' });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-app-'));
  const server = await spawnServer([process.execPath, ...PRODUCTION_NODE_ARGS], {
    dataDir,
    env: { LOG_LEVEL: 'info' },
    readyTimeoutMs: 30_000,
  });
  server.child.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  await server.ready;
  const cpuMicros = async () => processCpuMs(server.child.pid!) * 1000;
  return { child: server.child, url: server.url, cpuMicros };
}

const startServer = (target: Target, answer?: Answer): Promise<Served> =>
  target === 'app' ? startProduction() : startChild(target, answer);

interface Measured {
  target: Target;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  requests: number;
  errors: number;
  cpuPerRequest: number;
}

const requestOf = (scenario: Scenario) => ({
  method: scenario.method,
  ...(scenario.body ? { body: scenario.body, headers: { 'content-type': 'application/json' } } : {}),
});

async function drive(
  target: Target,
  server: Served,
  scenario: Scenario,
  duration: number,
  connections: number,
): Promise<Measured> {
  const opts = { url: server.url + scenario.path, connections, pipelining: 1, ...requestOf(scenario) };
  const latencies: number[] = [];
  let cpuAtStart = 0;
  const result = await measuredLoad(opts, duration, {
    beforeMeasured: async () => (cpuAtStart = await server.cpuMicros()),
    onResponse: (status, ms) => status === 200 && latencies.push(ms),
  });
  const cpuMicros = (await server.cpuMicros()) - cpuAtStart;
  return {
    target,
    p50: median(latencies),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    rps: result.requests.average,
    requests: latencies.length,
    errors: failedRequests(result),
    cpuPerRequest: cpuMicros / Math.max(1, result.requests.total),
  };
}

async function fetchAnswer(url: string, scenario: Scenario): Promise<{ status: number; answer: Answer }> {
  const res = await fetch(url + scenario.path, {
    method: scenario.method,
    body: scenario.body,
    headers: scenario.body ? { 'content-type': 'application/json' } : {},
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!PER_CONNECTION.has(name)) headers[name] = value;
  });
  return { status: res.status, answer: { body: await res.text(), headers } };
}

/** Per scenario, the median over the rounds of each target's figures. */
function medians(perRound: Measured[][], target: Target): Measured {
  const all = perRound.map((m) => m.find((r) => r.target === target)!);
  const mid = (pick: (m: Measured) => number) => median(all.map(pick));
  return {
    target,
    p50: mid((m) => m.p50),
    p95: mid((m) => m.p95),
    p99: mid((m) => m.p99),
    rps: mid((m) => m.rps),
    requests: all.reduce((n, m) => n + m.requests, 0),
    errors: all.reduce((n, m) => n + m.errors, 0),
    cpuPerRequest: mid((m) => m.cpuPerRequest),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const duration = intArg(args, 'duration', 5);
  const connections = intArg(args, 'connections', 50);
  const rounds = intArg(args, 'rounds', 3);
  console.log(
    `HTTP overhead: ${SCENARIOS.map((s) => `${s.method} ${s.path}`).join(' and ')}, ${connections} keep-alive ` +
      `connections, ${duration} s per target (+1 s warm-up), loopback, ${rounds} rounds`,
  );

  // The app's answer is what the anchors must send, body and headers (both echoes answer the same bytes).
  let answer: Answer | undefined;
  {
    const { child, url } = await startServer('app');
    try {
      for (const scenario of SCENARIOS) {
        const got = await fetchAnswer(url, scenario);
        if (got.status !== 200) throw new Error(`app answered ${scenario.name} with ${got.status}: ${got.answer.body}`);
        if (answer && got.answer.body !== answer.body) throw new Error(`app answers ${scenario.name} differently`);
        answer = got.answer;
      }
      console.log(`  body (${Buffer.byteLength(answer!.body)} bytes): ${answer!.body}`);
      console.log(`  headers, as every anchor sends them: ${Object.keys(answer!.headers).join(', ')}, x-request-id`);
    } finally {
      await stop(child);
    }
  }
  // Rounds, each target once per round in a rotated order (both scenarios on one start), so a machine that slows down
  // or speeds up meanwhile weighs on every target alike; the tables give each target's median over the rounds.
  const perRound = new Map<Scenario, Measured[][]>(SCENARIOS.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    const measured = new Map<Scenario, Measured[]>(SCENARIOS.map((s) => [s, []]));
    const shift = round % TARGETS.length;
    for (const target of [...TARGETS.slice(shift), ...TARGETS.slice(0, shift)]) {
      const server = await startServer(target, answer);
      try {
        for (const scenario of SCENARIOS) {
          const check = await fetchAnswer(server.url, scenario);
          if (check.answer.body !== answer!.body)
            throw new Error(`${target} answers ${scenario.name} differently: ${check.answer.body}`);
          measured.get(scenario)!.push(await drive(target, server, scenario, duration, connections));
        }
      } finally {
        await stop(server.child);
      }
    }
    for (const scenario of SCENARIOS) perRound.get(scenario)!.push(measured.get(scenario)!);
  }
  const goals: string[] = [];
  for (const scenario of SCENARIOS) {
    const rounds_ = perRound.get(scenario)!;
    const by = (t: Target) => medians(rounds_, t);
    const [bare, exp, fast, app] = [by('node:http'), by('express'), by('fastify'), by('app')];
    const rows = [['target', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s', 'requests', 'errors', 'server CPU µs/req']];
    for (const r of [bare, exp, fast, app]) {
      rows.push([
        r.target,
        fmtMs(r.p50),
        fmtMs(r.p95),
        fmtMs(r.p99),
        fmtInt(r.rps),
        fmtInt(r.requests),
        String(r.errors),
        r.cpuPerRequest.toFixed(1),
      ]);
    }
    console.log(`\n${scenario.name}: ${scenario.method} ${scenario.path}`);
    console.log(table(rows));
    const perRoundRatio = rounds_.map((m) =>
      fmtRatio(m.find((r) => r.target === 'app')!.rps / m.find((r) => r.target === 'express')!.rps),
    );
    console.log(
      table([
        ['ratio to plain Express 5 (same JSON and headers)', 'app', 'fastify (context)'],
        ['throughput (req/s), median of rounds', fmtRatio(app.rps / exp.rps), fmtRatio(fast.rps / exp.rps)],
        [
          'CPU per request (Express µs / target µs)',
          fmtRatio(exp.cpuPerRequest / app.cpuPerRequest),
          fmtRatio(exp.cpuPerRequest / fast.cpuPerRequest),
        ],
        ['p50 latency (target / Express)', fmtRatio(app.p50 / exp.p50), fmtRatio(fast.p50 / exp.p50)],
      ]),
    );
    console.log(`app / express throughput in each round: ${perRoundRatio.join(', ')}`);
    const ratio = app.rps / exp.rps;
    goals.push(
      `goal 1, ${scenario.name} ≥ 0.5× plain Express 5 (stretch 0.8×): ${fmtRatio(ratio)} ` +
        `${ratio >= 0.5 ? 'met' : 'NOT met'} (CPU ${app.cpuPerRequest.toFixed(0)} µs/req vs ` +
        `${exp.cpuPerRequest.toFixed(0)}: ${fmtRatio(exp.cpuPerRequest / app.cpuPerRequest)})`,
    );
  }
  console.log('');
  for (const goal of goals) console.log(goal);
  console.log(
    "Throughput ratios < 1 mean fewer requests per second than the anchor; server CPU is the process's own " +
      '(user + system) over the measured window (autocannon shares the machine).',
  );
}

// ---------------------------------------------------------------- compare scenario
/**
 * `npm run compare` between two local instances (each its own child process): the battery's GET/HEAD requests,
 * `rounds` times, each sent to old, old again (noise) and new, then compared. Anchor, in the same run: the same three
 * fetches per request with the bodies read but nothing compared (the replay floor).
 */
async function compareScenario(rounds: number, concurrency: number): Promise<void> {
  const { batteryRequests } = await import('../packages/migration-tools/src/compare/sources/battery.ts');
  const { runComparison } = await import('../packages/migration-tools/src/compare/run.ts');
  const { replay } = await import('../packages/migration-tools/src/compare/replay.ts');
  const { DEFAULT_HEADERS } = await import('../packages/migration-tools/src/compare/rules.ts');
  const { default: pLimit } = await import('p-limit');
  const gets = batteryRequests().filter((r) => r.method === 'GET' || r.method === 'HEAD');
  const requests = Array.from({ length: rounds }, () => gets).flat();
  console.log(
    `\nCompare: ${requests.length} requests (the battery's ${gets.length} GET/HEAD × ${rounds}), each to old, ` +
      `old again and new, concurrency ${concurrency}, two app instances`,
  );
  const [old, neu] = await Promise.all([startChild('app under tsx'), startChild('app under tsx')]);
  try {
    const hosts = { old: { base: old.url, headers: {} }, new: { base: neu.url, headers: {} } };
    const measure = async (name: string, run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      const seconds = (performance.now() - started) / 1000;
      return { name, seconds, rps: requests.length / seconds };
    };
    const plain = () => {
      const limit = pLimit(concurrency);
      return Promise.all(
        requests.map((r) =>
          limit(() =>
            Promise.all([replay(r, hosts.old, 30_000), replay(r, hosts.old, 30_000), replay(r, hosts.new, 30_000)]),
          ),
        ),
      );
    };
    const compare = () =>
      runComparison(
        requests,
        {
          ...hosts,
          rules: { headers: DEFAULT_HEADERS, ignore: [], tolerances: [] },
          concurrency,
          timeoutMs: 30_000,
          allowNonGet: false,
        },
        { sources: [], issues: [] },
      );
    await plain(); // warm-up: JIT, sockets, validators
    // Alternating runs, the best of each: a shared machine slows whichever happens to run during other work.
    const best = (runs: { rps: number }[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const anchors: Awaited<ReturnType<typeof measure>>[] = [];
    const compares: Awaited<ReturnType<typeof measure>>[] = [];
    for (let i = 0; i < 2; i++) {
      anchors.push(await measure('replay only (anchor)', plain));
      compares.push(await measure('npm run compare', compare));
    }
    const anchor = best(anchors) as (typeof anchors)[number];
    const measured = best(compares) as (typeof compares)[number];
    console.log('');
    console.log(
      table([
        ['scenario', 'seconds', 'requests/s', 'HTTP calls/s'],
        ...[anchor, measured].map((m) => [m.name, m.seconds.toFixed(2), fmtInt(m.rps), fmtInt(m.rps * 3)]),
      ]),
    );
    console.log(
      `\ncompare throughput vs replay only: ${fmtRatio(measured.rps / anchor.rps)} (best of 2 alternating runs each)`,
    );
  } finally {
    await Promise.all([stop(old.child), stop(neu.child)]);
  }
}

/** `--only overhead,startup` runs some sections; all by default. */
async function runSections(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const onlyArg = args.get('only');
  const only = typeof onlyArg === 'string' ? onlyArg.split(',') : undefined;
  const wanted = (section: string) => !only || only.includes(section);
  console.log(
    `machine: ${availableParallelism()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, Node ${process.version}`,
  );
  if (wanted('overhead')) await main();
  if (wanted('startup') || wanted('memory')) {
    execFileSync(process.execPath, [fileURLToPath(new URL('./ensure-build.mjs', import.meta.url))], {
      stdio: 'inherit',
    });
  }
  if (wanted('startup')) await benchStartup(intArg(args, 'startup-runs', 5));
  if (wanted('memory')) await benchMemory(intArg(args, 'connections', 50), intArg(args, 'duration', 5));
  if (wanted('instances')) await benchInstances(intArg(args, 'instances-duration', 10));
  if (wanted('compare'))
    await compareScenario(intArg(args, 'compare-rounds', 3), intArg(args, 'compare-concurrency', 8));
  if (wanted('shadow'))
    await benchShadow(intArg(args, 'rounds', 3), intArg(args, 'duration', 5), intArg(args, 'connections', 50));
  if (wanted('mirror'))
    await benchNginxMirror(
      intArg(args, 'rounds', 3),
      intArg(args, 'duration', 5),
      intArg(args, 'connections', 50),
      intArg(args, 'light-rounds', 4 * intArg(args, 'rounds', 3)),
    );
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) await serve(process.argv[serveAt + 1] as ChildTarget);
else await runSections();
