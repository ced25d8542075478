/**
 * Two real instances (the production build, as `npm start` runs it) over one real PostgreSQL, the ledger loaded by
 * the compiled import CLI while they serve: each import reaches both instances' reports (the goal is within 1 s; the
 * deadline here leaves a loaded CI machine slack), both answer the same figures, and an instance restarted after an
 * import starts from the current ledger.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import {
  REPO_ROOT,
  ensureProductionBuild,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);
const PROPAGATION_MS = 3_000;
const REPORT =
  '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-06-15';

const REFERENCE = `kind,id,company_id,name,type,number,base_currency,time_zone
company,1,,Two Instance Co,,,USD,UTC
location,10,1,Harbour,,,,
account,1000,1,Cash,Bank,1000,,
account,4000,1,Sales,Income,4000,,
account,5000,1,Food Cost,COGS,5000,,
`;
const REFERENCE_2 = `kind,id,company_id,name,type,number
account,4100,1,Catering,Income,4100
`;

/** One balanced entry a day from 2024-01-01: `legs` against Cash. */
function journal(prefix: string, days: number, legs: [account: number, cents: number][]): string {
  const rows = ['entry,date,location,account,amount'];
  for (let i = 0; i < days; i++) {
    const day = new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
    const cash = -legs.reduce((sum, [, cents]) => sum + cents, 0);
    for (const [account, cents] of [...legs, [1000, cash] as [number, number]])
      rows.push(`${prefix}${i},${day},10,${account},${(cents / 100).toFixed(2)}`);
  }
  return `${rows.join('\n')}\n`;
}

/** The report's figures (without BuildTime, which differs on every call). */
async function figures(instance: ServerProcess, key: string): Promise<string> {
  const res = await fetch(instance.url + REPORT, { headers: { 'X-ApiKey': key } });
  const text = await res.text();
  expect(res.status, text).to.equal(200);
  const { BuildTime: _time, ...rest } = (JSON.parse(text) as { ReportModel: Record<string, unknown> }).ReportModel;
  return JSON.stringify(rest);
}

(skipPostgres ? describe.skip : describe)(
  'two instances over one PostgreSQL: imports reach both, a restarted one catches up',
  function () {
    this.timeout(300_000);
    let pg: PostgresServer;
    let dir: string;
    let env: Record<string, string>;
    let instances: ServerProcess[] = [];
    let key: string;
    const cli = (...args: string[]) =>
      run(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH, ...env } });
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };

    before(async () => {
      await ensureProductionBuild();
      pg = await startPostgresServer('two_instances');
      dir = mkdtempSync(path.join(tmpdir(), 'rs-pg-two-'));
      // VALIDATE_RESPONSES: each instance checks every response it writes against openapi/.
      env = { DATABASE_URL: pg.url, DEMO_DATA: '0', LOG_LEVEL: 'warn', VALIDATE_RESPONSES: '1' };
      await cli(
        'dist/scripts/import.js',
        file(
          'j1.csv',
          journal('A', 120, [
            [4000, -50_000],
            [5000, 12_000],
          ]),
        ),
        '--reference',
        file('r1.csv', REFERENCE),
      );
      key = /key \(shown once, stored hashed\): (\S+)/.exec(
        (await cli('dist/scripts/keys.js', 'create', '--company', '1')).stdout,
      )![1]!;
      instances = await Promise.all([0, 1].map(() => startProductionServer(env)));
    });

    after(async () => {
      await Promise.all(instances.map((p) => p.stop()));
      await pg?.destroy();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Polls the instances until their figures differ from `before`; returns them and the time it took. */
    async function nextFigures(before: string, of = instances): Promise<{ figures: string[]; ms: number }> {
      const started = Date.now();
      for (;;) {
        const now = await Promise.all(of.map((p) => figures(p, key)));
        if (now.every((f) => f !== before)) return { figures: now, ms: Date.now() - started };
        if (Date.now() - started > PROPAGATION_MS)
          expect.fail(`an import did not reach both instances within ${PROPAGATION_MS} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it("an import by the CLI is in both instances' reports at once, with the same figures", async () => {
      const [a, b] = await Promise.all(instances.map((p) => figures(p, key)));
      expect(a).to.equal(b);
      await cli(
        'dist/scripts/import.js',
        file(
          'j2.csv',
          journal('B', 150, [
            [4100, -7_500],
            [5000, 3_000],
          ]),
        ),
        '--reference',
        file('r2.csv', REFERENCE_2),
        '--append',
      );
      const { figures: after } = await nextFigures(a!);
      expect(after[0]).to.equal(after[1]);
      expect(after[0]).to.contain('Catering');
    });

    it('an instance stopped during an import starts from the ledger it missed', async () => {
      const before = await figures(instances[0]!, key);
      await instances[1]!.stop();
      await cli(
        'dist/scripts/import.js',
        file(
          'j3.csv',
          journal('C', 100, [
            [4000, -1_234],
            [5000, 999],
          ]),
        ),
        '--append',
      );
      const {
        figures: [running],
      } = await nextFigures(before, [instances[0]!]);
      instances[1] = await startProductionServer(env);
      expect(await figures(instances[1], key))
        .to.equal(running)
        .and.to.not.equal(before);
    });
  },
);
