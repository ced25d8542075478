/**
 * `npm run import` as a user runs it: a child process over a DuckDB file in a fresh data directory, and over the file
 * of a running server (`npm start`'s production build), which it hands the files to through DATA_DIR/keys.sock.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStore } from '../../../src/store/open-store.ts';
import {
  ensureProductionBuild,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);

const REFERENCE = `kind,id,company_id,name,type,number,standard_account_id,category_id,base_currency,time_zone
company,1,,Import Co,,,,,USD,UTC
location,10,1,Downtown,,,,,,
account,1000,1,Cash,Bank,1000,,,,
account,4000,1,Sales,Income,4000,,,,
account,5000,1,Food Cost,COGS,5000,,,,
`;
const JOURNAL = `entry,date,location,account,amount,memo
A1,2024-01-05,10,4000,-1000.00,Dinner
A1,2024-01-05,10,1000,1000.00,
A2,2024-01-20,10,5000,300,Food
A2,2024-01-20,10,1000,-300,
`;

describe('npm run import (CLI)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
    writeFileSync(join(dir, 'reference.csv'), REFERENCE);
    writeFileSync(join(dir, 'good.csv'), JOURNAL);
    writeFileSync(join(dir, 'bad.csv'), JOURNAL.replace('A2,2024-01-20,10,1000,-300', 'A2,2024-01-20,10,1000,-299'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const importCsv = (file: string, ...args: string[]) =>
    run('npx', ['tsx', 'scripts/import.ts', join(dir, file), ...args], {
      env: { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' },
    });

  async function salesAndCogs() {
    const store = await openStore({ dataDir: join(dir, 'data') });
    try {
      return await store.sumPnlByAccountMonth({
        companyId: 1,
        from: '2024-01-01',
        to: '2024-12-31',
        locationIds: [],
        optionGroups: [],
      });
    } finally {
      await store.close();
    }
  }

  it('When a good file is imported, then its entries are in the store', async () => {
    const { stdout } = await importCsv('good.csv', '--reference', join(dir, 'reference.csv'));
    expect(stdout).to.match(/2 entries/);
    expect(await salesAndCogs()).to.deep.equal([
      { accountId: 4000, month: '2024-01', cents: -100_000 },
      { accountId: 5000, month: '2024-01', cents: 30_000 },
    ]);
  });

  it('When a file has one unbalanced entry, then the command fails naming the line and writes nothing', async () => {
    const error = await importCsv('bad.csv', '--append').then(
      () => undefined,
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(error?.code).to.equal(1);
    expect(`${error?.stderr}${error?.stdout}`).to.match(/line 4 \(entry A2, 2024-01-20\): lines do not balance/);
    expect(await salesAndCogs()).to.deep.equal([
      { accountId: 4000, month: '2024-01', cents: -100_000 },
      { accountId: 5000, month: '2024-01', cents: 30_000 },
    ]);
  });

  it(
    'When the ledger file is held by another process, then the command says so plainly and writes ' + 'nothing',
    async () => {
      const holder = await openStore({ dataDir: join(dir, 'data') });
      try {
        const error = await importCsv('good.csv').then(
          () => undefined,
          (e: { code: number; stderr: string }) => e,
        );
        expect(error?.code).to.equal(1);
        expect(error?.stderr).to.match(/is in use by another process \(a running server\?\)/);
      } finally {
        await holder.close();
      }
      expect(await salesAndCogs()).to.have.length(2);
    },
  );
});

describe('npm run import while a server holds the DuckDB file', function () {
  this.timeout(180_000);
  let dir: string;
  let server: ServerProcess;
  let key: string;
  const env = () => ({ ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' });
  const importCsv = (file: string, ...args: string[]) =>
    run('npx', ['tsx', 'scripts/import.ts', join(dir, file), ...args], { env: env() });
  const REPORT =
    '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-12-31';
  const figures = async () => {
    const res = await fetch(server.url + REPORT, { headers: { 'X-ApiKey': key } });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    const { BuildTime: _time, ...rest } = (JSON.parse(text) as { ReportModel: Record<string, unknown> }).ReportModel;
    return JSON.stringify(rest);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'import-server-'));
    writeFileSync(join(dir, 'reference.csv'), REFERENCE);
    writeFileSync(join(dir, 'good.csv'), JOURNAL);
    writeFileSync(
      join(dir, 'bad.csv'),
      JOURNAL.replace('A2,2024-01-20,10,1000,-300', 'A2,2024-01-20,10,1000,-299').replaceAll('A', 'C'),
    );
    const rows = ['entry,date,location,account,amount'];
    for (let i = 0; i < 3000; i++)
      rows.push(
        `B${i},2024-03-${String(1 + (i % 28)).padStart(2, '0')},10,4000,-1.00`,
        `B${i},2024-03-${String(1 + (i % 28)).padStart(2, '0')},10,1000,1.00`,
      );
    writeFileSync(join(dir, 'big.csv'), `${rows.join('\n')}\n`);
    await ensureProductionBuild();
    server = await startProductionServer({ DATA_DIR: join(dir, 'data'), DEMO_DATA: '0', VALIDATE_RESPONSES: '1' });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('When a file is imported, then the server loads it and its reports show it at once', async () => {
    const { stdout, stderr } = await importCsv('good.csv', '--reference', join(dir, 'reference.csv'));
    expect(stderr).to.contain('a running server holds');
    expect(stdout).to.match(/loaded 2 entries into the running server's duckdb store/);
    const made = await run('npx', ['tsx', 'scripts/keys.ts', 'create', '--company', '1'], { env: env() });
    key = /key \(shown once, stored hashed\): (\S+)/.exec(made.stdout)![1]!;
    expect(await figures()).to.contain(
      '"RowName":"4000 Sales","FullName":"Income:Sales","IsTotal":false,"Values":[1000,0,',
    );
  });

  it(
    'When a handed-over file has a bad line or repeats an import, then it is refused at its line and nothing ' +
      'changes',
    async () => {
      const before = await figures();
      const bad = await importCsv('bad.csv', '--append').then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(bad?.code).to.equal(1);
      expect(bad?.stderr).to.match(/line 4 \(entry C2, 2024-01-20\): lines do not balance/);
      const again = await importCsv('good.csv', '--append').then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(again?.code).to.equal(1);
      expect(again?.stderr).to.match(/line 2: entry A1 was already imported for company 1/);
      expect(await figures()).to.equal(before);
    },
  );

  it('When readers read during a handed-over import, then each sees the old or the new figures', async () => {
    const before = await figures();
    const seen: string[] = [];
    let importing = true;
    const readers = Array.from({ length: 3 }, async () => {
      while (importing) seen.push(await figures());
    });
    await importCsv('big.csv', '--append').finally(() => {
      importing = false;
    });
    await Promise.all(readers);
    const after = await figures();
    expect(after).to.not.equal(before);
    expect(seen.filter((s) => s !== before && s !== after)).to.deep.equal([]);
  });
});
