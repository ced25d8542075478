/**
 * An import that renames a company shows the new name at once on a second PostgreSQL instance (which hears of the
 * import by NOTIFY): echo's CompanyName agrees with the report's, with no minute-long cache of names in between.
 */
import { expect } from 'chai';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { JOURNAL, RENAME, echoName, reportName } from '../../support/company-names.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { createTestApp } from '../../support/test-app.ts';

(skipPostgres ? describe.skip : describe)('names after an import, over PostgreSQL', function () {
  this.timeout(120_000);
  let pg: PostgresServer;
  const stores: LedgerStore[] = [];
  before(async () => {
    pg = await startPostgresServer();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await pg?.destroy();
  });

  it('When another instance renames the company, then echo names it as soon as the report does', async () => {
    const url = await pg.createDatabase('names_after_import');
    const serving = await openStore({ databaseUrl: url, dataDir: '.' });
    stores.push(serving);
    const test = await createTestApp({ store: serving });
    const { workedExampleBatch } = await import('../../fixtures/worked-example.ts');
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
