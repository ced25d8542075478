/** `npm run import` as a user runs it: a child process over a DuckDB file in a fresh data directory. */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStore } from '../../src/store/open-store.ts';

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
    run('npx', ['tsx', 'scripts/import.ts', join(dir, file), ...args], { env: { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' } });

  async function salesAndCogs() {
    const store = await openStore({ dataDir: join(dir, 'data') });
    try {
      return await store.sumPnlByAccountMonth({ companyId: 1, from: '2024-01-01', to: '2024-12-31', locationIds: [], optionGroups: [] });
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
    const error = await importCsv('bad.csv').then(() => undefined, (e: { code: number; stderr: string; stdout: string }) => e);
    expect(error?.code).to.equal(1);
    expect(`${error?.stderr}${error?.stdout}`).to.match(/line 4: entry A2 \(2024-01-20\): lines do not balance/);
    expect(await salesAndCogs()).to.deep.equal([
      { accountId: 4000, month: '2024-01', cents: -100_000 },
      { accountId: 5000, month: '2024-01', cents: 30_000 },
    ]);
  });

  it('When the ledger file is held by another process, then the command says so plainly and writes nothing', async () => {
    const holder = await openStore({ dataDir: join(dir, 'data') });
    try {
      const error = await importCsv('good.csv').then(() => undefined, (e: { code: number; stderr: string }) => e);
      expect(error?.code).to.equal(1);
      expect(error?.stderr).to.match(/is in use by another process \(a running server\?\)/);
    } finally {
      await holder.close();
    }
    expect(await salesAndCogs()).to.have.length(2);
  });
});
