/**
 * An import that renames a company shows the new name in every answer at once: echo's CompanyName for a key of that
 * company agrees with the report's, on DuckDB (the importing process) and on a second PostgreSQL instance (which
 * hears of the import by NOTIFY), with no minute-long cache of names in between.
 */
import { expect } from 'chai';
import request from 'supertest';
import { importLedgerCsv } from '../../src/store/csv-import.ts';
import type { LedgerStore } from '../../src/store/ledger-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const RENAME = 'kind,id,company_id,name\ncompany,1,,Renamed Bistro\n';
const JOURNAL = 'entry,date,location,account,amount\nN1,2024-02-01,10,4000,-5\nN1,2024-02-01,10,1000,5\n';

async function echoName(test: TestApp, key: string): Promise<string> {
  const res = await request(test.rawApp).get('/v1/echo/hi').set('X-ApiKey', key).expect(200);
  return (res.body as { CompanyName: string }).CompanyName;
}

/** The company name on the report's page (its link, as HTML). */
async function reportName(test: TestApp): Promise<string> {
  const flat = await request(test.app)
    .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29')
    .expect(200);
  const page = await request(test.app)
    .get(`${new URL((flat.body as { Url: string }).Url).pathname}.html`)
    .expect(200);
  return /<p class="company">([^<]*)<\/p>/.exec(page.text)![1]!;
}

describe('names after an import', function () {
  this.timeout(120_000);

  it('When an import renames the company on DuckDB, then echo answers the new name at once, as the report does', async () => {
    const test = await createTestApp();
    try {
      const key = await test.keyFor(1);
      const before = await echoName(test, key);
      expect(before).to.equal(await reportName(test));
      await importLedgerCsv(test.store, JOURNAL, { reference: RENAME, companyId: 1 });
      expect(await echoName(test, key)).to.equal('Renamed Bistro');
      expect(await reportName(test)).to.equal('Renamed Bistro');
    } finally {
      await test.close();
    }
  });

  (skipPostgres ? describe.skip : describe)('over PostgreSQL', () => {
    let pg: PostgresServer;
    const stores: LedgerStore[] = [];
    before(async () => {
      pg = await startPostgresServer();
    });
    after(async () => {
      for (const store of stores) await store.close();
      await pg?.destroy();
    });

    it('When another instance renames the company, then echo answers the new name as soon as the report does', async () => {
      const url = await pg.createDatabase('names_after_import');
      const serving = await openStore({ databaseUrl: url, dataDir: '.' });
      stores.push(serving);
      const test = await createTestApp({ store: serving });
      const { workedExampleBatch } = await import('../fixtures/worked-example.ts');
      await serving.load(workedExampleBatch);
      const key = await test.keyFor(1);
      expect(await echoName(test, key)).to.equal(await reportName(test));
      const importing = await openStore({ databaseUrl: url, dataDir: '.' });
      stores.push(importing);
      await importLedgerCsv(importing, JOURNAL, { reference: RENAME, companyId: 1 });
      const until = Date.now() + 10_000;
      while ((await reportName(test)) !== 'Renamed Bistro') {
        expect(Date.now() < until, 'the serving instance hears of the import').to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await echoName(test, key)).to.equal('Renamed Bistro');
    });
  });
});
