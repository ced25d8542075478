/**
 * nginx's mirror feeding `npm run shadow -- --mirror-sink` (`npm run bench -- --only mirror`): clients through the
 * shipped shadow-phase site (deploy/nginx/reporting-service-shadow.conf, TLS) with the mirror on (its shipped 10%
 * sample, and every request) against the same site with the mirror directive left out (nginx straight to the old host:
 * the anchor), every process alive through every run, rounds rotating the targets, the sink's queue drained before
 * each run. Old and new are production processes with the demo ledger (BASE_PATH=/reporting, as behind the site); the
 * sink runs as users run it (tsx). Each table gives requests/s, p50 and p99 (medians over the rounds), the ratio to
 * the anchor and the p99 difference (the median of each round's difference to the anchor's run beside it), as fast as
 * each answers and at a tenth of the anchor's rate over 5 connections (twice the rounds), where the p99 difference is
 * what the mirror costs a client (goal: ≥ 0.95× and ≤ +1 ms). The clients' failures are counted (errors); the sink's
 * drops are its own, read from its /_shadow.json.
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
import { fmtInt, fmtMs, median, table } from './stats.ts';

const ECHO = '/reporting/v1/echo/hello';
const REPORT = '/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';

export async function benchNginxMirror(rounds: number, duration: number, connections: number): Promise<void> {
  console.log(
    `\nnginx mirror → npm run shadow -- --mirror-sink: ${connections} keep-alive connections, ${duration} s per ` +
      `target (+1 s warm-up), ${rounds} rounds; old and new: node dist/src/start.js with the demo ledger`,
  );
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  const env = { BASE_PATH: '/reporting', TRUST_PROXY: 'loopback' };
  const [old, neu] = await Promise.all([startHost(env), startHost({ ...env, COMPANY_NAME: 'Another Company' })]);
  const sites: [string, RunningNginx][] = [];
  let sink: ServerProcess | undefined;
  try {
    const [oldPort, sinkPort] = [Number(new URL(old.url).port), await freePort()];
    sink = await startServerProcess(
      path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
      [
        'packages/migration-tools/scripts/shadow.ts',
        '--mirror-sink',
        '--old',
        new URL(old.url).origin,
        '--new',
        new URL(neu.url).origin,
        '--listen',
        String(sinkPort),
      ],
      { env: withoutNodeOptions() },
    );
    const site = async (sample: { sample?: string; noMirror?: boolean }) =>
      startShadowNginx({ http: await freePort(), https: await freePort(), legacy: oldPort, sink: sinkPort, ...sample });
    sites.push(['nginx → old host, no mirror (anchor)', await site({ noMirror: true })]);
    sites.push(['nginx → old host, mirror 10% (as shipped)', await site({})]);
    sites.push(['nginx → old host, mirror 100%', await site({ sample: '100%' })]);
    const sinkUrl = figuresUrl(sink);
    const received = async () => ((await (await fetch(sinkUrl)).json()) as ShadowSnapshot).totals;

    for (const [label, url, headers] of [
      ['GET /v1/echo/hello', ECHO, {}],
      ['GET ProfitAndLoss/Flat (demo ledger, 2 years)', REPORT, { 'X-ApiKey': old.apiKey }],
    ] as const) {
      const pids: Record<string, number> = { old: old.child.pid!, new: neu.child.pid!, sink: sink.child.pid! };
      const byName = new Map(sites);
      const measure = async (rate?: number, clients = connections, times = rounds) => {
        const perTarget = await rotatedRounds([...byName.keys()], times, async (name) => {
          await drained([sinkUrl]);
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
            sinkCpu: cpu.sink!,
          };
        };
      };
      const print = (title: string, mid: Awaited<ReturnType<typeof measure>>) => {
        const anchor = mid(sites[0]![0]);
        console.log(`\n${label}, ${title}`);
        console.log(
          table([
            [...leadHeaders('client errors'), 'p99 − anchor (paired)', 'sink CPU ms/req'],
            ...sites.map(([name]) => {
              const m = mid(name);
              return [...leadCells(name, m, anchor), `${m.p99Delta.toFixed(2)} ms`, fmtMs(m.sinkCpu)];
            }),
          ]),
        );
        return anchor;
      };
      const before = await received();
      const saturated = print('as fast as each answers', await measure());
      const light = lightLoad(saturated.rps);
      print(light.title, await measure(light.rate, light.connections, rounds * 2));
      await drained([sinkUrl]);
      const after = await received();
      const delta = (key: keyof typeof after) => fmtInt(after[key] - before[key]);
      console.log(
        `sink: received ${delta('served')}, mirrored ${delta('mirrored')} (${delta('different')} ` +
          `different, ${delta('errors')} errors), dropped ${delta('dropped')}, skipped ${delta('skipped')}`,
      );
    }
    const s = (await (await fetch(sinkUrl)).json()) as ShadowSnapshot;
    console.log(`sink drops by reason: ${JSON.stringify(s.droppedBecause)}`);
    console.log(
      "Goal (issue 38): with the mirror on, ≥ 0.95× the anchor's requests/s and p99 ≤ the anchor's + 1 ms at a " +
        "tenth of the anchor's rate (medians over the rounds); client errors count every failed client request, " +
        "the sink's drops are counted apart.",
    );
  } finally {
    await Promise.all([...sites.map(([, n]) => n.stop()), sink?.stop(), old.stop(), neu.stop()]);
    for (const host of [old, neu]) rmSync(host.dataDir, { recursive: true, force: true });
  }
}
