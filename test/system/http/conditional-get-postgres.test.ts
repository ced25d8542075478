/**
 * Conditional GET of the report operations over a real PostgreSQL (the shared suite), and what is PostgreSQL's own:
 * two instances over one database give one answer one tag, and an import through either reaches the other's tags.
 */
import { expect } from 'chai';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';
import { MORE_SALES, REPORT, conditionalGetSuite, get, tagOf } from '../../support/conditional-get-suite.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

(skipPostgres ? describe.skip : describe)('conditional GET of the reports, over PostgreSQL', function () {
  this.timeout(120_000);
  let server: PostgresServer;
  let databases = 0;
  before(async () => {
    server = await startPostgresServer('conditional_get');
  });
  after(async () => {
    await server?.destroy();
  });

  /** An instance (its own store and app) over `url`. */
  async function instance(url: string): Promise<TestApp> {
    const store = new PostgresLedgerStore(url);
    await store.migrate();
    const t = await createTestApp({ store });
    return { ...t, close: () => store.close() };
  }

  async function loadedDatabase(): Promise<string> {
    const url = await server.createDatabase(`conditional_get_${++databases}`);
    const store = new PostgresLedgerStore(url);
    try {
      await store.migrate();
      await store.load(workedExampleBatch);
    } finally {
      await store.close();
    }
    return url;
  }

  conditionalGetSuite(async () => instance(await loadedDatabase()));

  it('two instances at one ledger state give one tag; an import through one reaches the other', async () => {
    const url = await loadedDatabase();
    const [a, b] = [await instance(url), await instance(url)];
    try {
      const tag = await tagOf(a.app, REPORT);
      expect(await tagOf(b.app, REPORT), 'the same state on another instance').to.equal(tag);
      expect((await get(b.app, REPORT, { 'If-None-Match': tag })).status).to.equal(304);
      await importLedgerCsv(a.store, MORE_SALES, { companyId: 1 });
      const changed = await tagOf(a.app, REPORT);
      expect(changed).to.not.equal(tag);
      // B hears of the import by NOTIFY: its tag moves on to A's, and the old one gets the new figures.
      const until = Date.now() + 10_000;
      while ((await get(b.app, REPORT, { 'If-None-Match': tag })).status === 304) {
        expect(Date.now() < until, 'the other instance hears of the import').to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const res = await get(b.app, REPORT, { 'If-None-Match': tag });
      expect(res.status).to.equal(200);
      expect(res.headers.etag).to.equal(changed);
      expect((res.body as { ReportModel: { Rows: { Values: number[] }[] } }).ReportModel.Rows[0]!.Values[0]).to.equal(
        1950,
      );
      // A third instance, started after the import, reads the same state and gives the same tag.
      const c = await instance(url);
      try {
        expect(await tagOf(c.app, REPORT)).to.equal(changed);
      } finally {
        await c.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
