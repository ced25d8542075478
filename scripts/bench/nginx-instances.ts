/**
 * Report requests per second through nginx (the shipped deploy/nginx site, TLS) with one and with two instances
 * (started with the shipped systemd unit's ExecStart, production build) over the same PostgreSQL, in one run, with the
 * same instance measured directly (no nginx) as the anchor. The demo ledger (two years of daily activity) is seeded
 * by the first instance; the key comes from the compiled CLI. One instance = both upstream entries on the same port.
 * On a 2-core machine two instances cannot double (nginx, PostgreSQL, the load generator and both instances share the
 * cores); the figures are there to be read on bigger machines, with the core count printed beside them.
 */
import { failedRequests, measuredLoad } from './load.ts';
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { freePort } from '../lib/free-port.ts';
import { startNginx, type RunningNginx } from '../lib/nginx.ts';
import { startPostgresServer } from '../lib/postgres-server.ts';
import { REPO_ROOT, ensureProductionBuild, type ServerProcess } from '../lib/server-process.ts';
import { startUnitInstance } from '../lib/systemd-unit.ts';
import { fmtInt, fmtMs, fmtRatio, table } from './stats.ts';

const REPORT = '/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';

interface Measured {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function drive(
  target: string,
  url: string,
  key: string,
  duration: number,
  connections: number,
): Promise<Measured> {
  const opts = { url, headers: { 'X-ApiKey': key }, connections };
  const result = await measuredLoad(opts, duration, { warmUpSeconds: 2 });
  return {
    target,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: failedRequests(result),
  };
}

export async function benchInstances(duration: number, connections = 50): Promise<void> {
  await ensureProductionBuild();
  const pg = await startPostgresServer('reporting');
  const instances: ServerProcess[] = [];
  let nginx: RunningNginx | undefined;
  try {
    const env = { DATABASE_URL: pg.url, LOG_LEVEL: 'warn' };
    const ports: [number, number] = [await freePort(), await freePort()];
    instances.push(await startUnitInstance(ports[0], { ...env, DEMO_DATA: '1' })); // seeds the demo ledger
    const made = await promisify(execFile)(
      process.execPath,
      ['dist/scripts/keys.js', 'create', '--company', '1', '--name', 'bench'],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH, ...env } },
    );
    const key = /key \(shown once, stored hashed\): (\S+)/.exec(made.stdout)![1]!;
    const results: Measured[] = [];
    results.push(
      await drive('1 instance, direct (no nginx)', `http://127.0.0.1:${ports[0]}${REPORT}`, key, duration, connections),
    );
    nginx = await startNginx({ http: await freePort(), https: await freePort(), upstreams: [ports[0], ports[0]] });
    results.push(await drive('nginx → 1 instance', nginx.httpsUrl + REPORT, key, duration, connections));
    await nginx.stop();
    instances.push(await startUnitInstance(ports[1], env));
    nginx = await startNginx({ http: await freePort(), https: await freePort(), upstreams: ports });
    results.push(await drive('nginx → 2 instances', nginx.httpsUrl + REPORT, key, duration, connections));

    console.log(
      `\nReports through nginx (deploy/nginx, TLS) over one PostgreSQL: GET ${REPORT.split('?')[0]} (demo ` +
        `ledger, this year), ` +
        `${connections} connections, ${duration} s each (+2 s warm-up); machine: ${availableParallelism()} cores`,
    );
    console.log(
      table([
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
        ...results.map((r) => [r.target, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), String(r.errors)]),
      ]),
    );
    const [direct, one, two] = results as [Measured, Measured, Measured];
    console.log(
      `two instances / one instance through nginx: ${fmtRatio(two.rps / one.rps)}; nginx → 1 instance / ` +
        `direct: ${fmtRatio(one.rps / direct.rps)}`,
    );
    if (availableParallelism() <= 2)
      console.log(
        '(2 cores or fewer: nginx, PostgreSQL, autocannon and the instances share them; two instances cannot ' +
          'double here)',
      );
  } finally {
    await nginx?.stop();
    await Promise.all(instances.map((p) => p.stop()));
    await pg.destroy();
  }
}
