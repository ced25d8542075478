/**
 * nginx's mirror feeding `npm run shadow -- --mirror-sink` (`npm run bench -- --only mirror`): clients through the
 * shipped shadow-phase site (deploy/nginx/reporting-service-shadow.conf, TLS) with the mirror on (its shipped 10%
 * sample, and every request) against the same site with no sample drawn (nginx straight to the old host: the anchor),
 * every process alive through every run, rounds rotating the targets, the sinks' queues drained before each run. Old
 * and new are production processes with the demo ledger (BASE_PATH=/reporting, as behind the site); the sink runs as
 * the README starts it (tsx, normal priority: its mirror thread lowers itself to SCHED_IDLE); a second sink runs wholly
 * under `chrt --idle 0 nice -n 19`, to show what that costs clients. Each table gives requests/s, p50 and p99 (medians
 * over the rounds), the ratio to the anchor (of the medians, and paired: the median of each round's ratio to the
 * anchor's run beside it, which the goal reads) and the p99 difference (paired likewise), as fast as each answers and
 * at a tenth of the anchor's rate over 5 connections (--light-rounds, four times the rounds by default; with root, on a
 * quiet machine emulated by realtime.ts), where the p99 difference is what the mirror costs a client (goal: ≥ 0.95× and
 * ≤ +1 ms). The clients' failures are counted (errors); the sink's drops are its own, read from its /_shadow.json.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../lib/free-port.ts';
import { startShadowNginx, type RunningNginx } from '../lib/nginx.ts';
import { REPO_ROOT, startServerProcess, type ServerProcess, withoutNodeOptions } from '../lib/server-process.ts';
import type { ShadowSnapshot } from '../../packages/migration-tools/src/shadow/stats.ts';
import {
  drained,
  figuresUrl,
  leadCells,
  leadHeaders,
  lightLoad,
  load,
  mediansOf,
  rotatedRounds,
  startHost,
} from './shadow.ts';
import { favoured, quietMachine, realtimeUnavailable } from './realtime.ts';
import { fmtInt, fmtMs, fmtRatio, median, table } from './stats.ts';

const ECHO = '/reporting/v1/echo/hello';
const REPORT = '/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';

export async function benchNginxMirror(
  rounds: number,
  duration: number,
  connections: number,
  lightRounds = rounds * 4,
): Promise<void> {
  console.log(
    `\nnginx mirror → npm run shadow -- --mirror-sink: ${connections} keep-alive connections, ${duration} s per ` +
      `target (+1 s warm-up), ${rounds} rounds as fast as each answers, ${lightRounds} at a tenth of that; old and ` +
      'new: node dist/src/start.js with the demo ledger',
  );
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  const env = { BASE_PATH: '/reporting', TRUST_PROXY: 'loopback' };
  const [old, neu] = await Promise.all([startHost(env), startHost({ ...env, COMPANY_NAME: 'Another Company' })]);
  const sites: [string, RunningNginx][] = [];
  const sinks: ServerProcess[] = [];
  try {
    const oldPort = Number(new URL(old.url).port);
    const startSink = async (prefix: string[]) => {
      const port = await freePort();
      const args = ['packages/migration-tools/scripts/shadow.ts', '--mirror-sink', '--listen', String(port)];
      const hosts = ['--old', new URL(old.url).origin, '--new', new URL(neu.url).origin];
      const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
      const [bin, ...rest] = [...prefix, tsx, ...args, ...hosts];
      sinks.push(await startServerProcess(bin!, rest, { env: withoutNodeOptions() }));
      return port;
    };
    // As the README starts it, and (not to be done) the whole process at idle priority.
    const [sinkPort, idleSinkPort] = [
      await startSink([]),
      await startSink(['chrt', '--idle', '0', 'nice', '-n', '19']),
    ];
    const site = async (sample: { sample?: string; noMirror?: boolean }, sink = sinkPort) =>
      startShadowNginx({ http: await freePort(), https: await freePort(), legacy: oldPort, sink, ...sample });
    sites.push(['nginx → old host, no mirror (anchor)', await site({ noMirror: true })]);
    sites.push(['nginx → old host, mirror 10% (as shipped)', await site({})]);
    sites.push(['mirror 10%, sink wholly under chrt --idle', await site({}, idleSinkPort)]);
    sites.push(['nginx → old host, mirror 100%', await site({ sample: '100%' })]);
    const sink = sinks[0]!;
    const sinkUrl = figuresUrl(sink);
    const sinkUrls = sinks.map(figuresUrl);
    const snapshot = async () => (await (await fetch(sinkUrl)).json()) as ShadowSnapshot;
    const received = async () => (await snapshot()).totals;
    /** The sink's drops by reason since `from`. */
    const dropsSince = (from: ShadowSnapshot, to: ShadowSnapshot) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(to.droppedBecause ?? {})
            .map(([why, n]) => [why, n - (from.droppedBecause?.[why] ?? 0)])
            .filter(([, n]) => n),
        ),
      );
    const noQuiet = realtimeUnavailable();

    for (const [label, url, headers] of [
      ['GET /v1/echo/hello', ECHO, {}],
      ['GET ProfitAndLoss/Flat (demo ledger, 2 years)', REPORT, { 'X-ApiKey': old.apiKey }],
    ] as const) {
      const pids: Record<string, number> = { old: old.child.pid!, new: neu.child.pid!, sink: sink.child.pid! };
      pids['idle sink'] = sinks[1]!.child.pid!;
      const byName = new Map(sites);
      const measure = async (rate?: number, clients = connections, times = rounds) => {
        const perTarget = await rotatedRounds([...byName.keys()], times, async (name) => {
          await drained(sinkUrls);
          return load(byName.get(name)!.httpsUrl + url, headers, duration, clients, pids, rate);
        });
        const anchorRuns = perTarget.get(sites[0]![0])!;
        return (name: string) => {
          const all = perTarget.get(name)!;
          const { cpu, ...medians } = mediansOf(all);
          return {
            ...medians,
            // Each round's p99 against the anchor's of the same round (run next to it): the machine's load drifts.
            p99Delta: median(all.map((m, round) => m.p99 - anchorRuns[round]!.p99)),
            // Likewise each round's requests/s over the anchor's of the same round.
            rpsPaired: median(all.map((m, round) => m.rps / anchorRuns[round]!.rps)),
            sinkCpu: name === sites[2]![0] ? cpu['idle sink']! : cpu.sink!,
          };
        };
      };
      const print = (title: string, mid: Awaited<ReturnType<typeof measure>>) => {
        const anchor = mid(sites[0]![0]);
        console.log(`\n${label}, ${title}`);
        console.log(
          table([
            [...leadHeaders('client errors'), 'req/s vs anchor (paired)', 'p99 − anchor (paired)', 'sink CPU ms/req'],
            ...sites.map(([name]) => {
              const m = mid(name);
              const paired = [fmtRatio(m.rpsPaired), `${m.p99Delta.toFixed(2)} ms`];
              return [...leadCells(name, m, anchor), ...paired, fmtMs(m.sinkCpu)];
            }),
          ]),
        );
        return { anchor, shipped: mid(sites[1]![0]) };
      };
      const [before, dropsBefore] = [await received(), await snapshot()];
      const saturated = print(
        'as fast as each answers' +
          (noQuiet ? '' : ", every process of the bench 10 nice steps above the machine's other load"),
        noQuiet ? await measure() : await favoured(() => measure()),
      );
      const light = lightLoad(saturated.anchor.rps);
      const lightRuns = () => measure(light.rate, light.connections, lightRounds);
      const [beforeLight, dropsBeforeLight] = [await received(), await snapshot()];
      const quiet = print(
        light.title +
          (noQuiet
            ? ` (no quiet machine emulated: ${noQuiet})`
            : ", every process of the bench at SCHED_RR 2 (a SCHED_IDLE thread at 1): the machine's other load " +
              'left out'),
        noQuiet ? await lightRuns() : await quietMachine(lightRuns),
      );
      await drained(sinkUrls);
      const [after, dropsAfter] = [await received(), await snapshot()];
      const delta = (key: keyof typeof after, from = before) => fmtInt(after[key] - from[key]);
      console.log(
        `sink: received ${delta('served')}, mirrored ${delta('mirrored')} (${delta('different')} ` +
          `different, ${delta('errors')} errors), dropped ${delta('dropped')}, skipped ${delta('skipped')}; at a ` +
          `tenth of the rate: received ${delta('served', beforeLight)}, mirrored ${delta('mirrored', beforeLight)}, ` +
          `dropped ${delta('dropped', beforeLight)}; drops by reason as fast as each answers ` +
          `${dropsSince(dropsBefore, dropsBeforeLight)}, at a tenth ${dropsSince(dropsBeforeLight, dropsAfter)}`,
      );
      const rpsRatio = saturated.shipped.rpsPaired;
      const met = rpsRatio >= 0.95 && quiet.shipped.p99Delta <= 1;
      console.log(
        `goal, mirror 10% as shipped: req/s ${fmtRatio(rpsRatio)} (paired; ≥ 0.95×; medians' ratio ` +
          `${fmtRatio(saturated.shipped.rps / saturated.anchor.rps)}), ` +
          `p99 ${quiet.shipped.p99Delta.toFixed(2)} ms over the anchor at a tenth of its rate (≤ +1 ms): ` +
          (met ? 'met' : 'not met'),
      );
    }
    const s = await snapshot();
    console.log(
      `sink drops by reason: ${JSON.stringify(s.droppedBecause)}; connections from nginx: ${s.listener.connections}`,
    );
    console.log(
      "Goal (issue 38): with the mirror on, ≥ 0.95× the anchor's requests/s and p99 ≤ the anchor's + 1 ms at a " +
        "tenth of the anchor's rate (medians over the rounds of each round's ratio or difference to the anchor's " +
        "run beside it); client errors count every failed client request, the sink's drops are counted apart.",
    );
  } finally {
    await Promise.all([...sites.map(([, n]) => n.stop()), ...sinks.map((p) => p.stop()), old.stop(), neu.stop()]);
    for (const host of [old, neu]) rmSync(host.dataDir, { recursive: true, force: true });
  }
}
