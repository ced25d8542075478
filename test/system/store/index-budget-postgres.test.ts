/**
 * INDEX_MEMORY_MB on PostgreSQL: an instance with a budget for one company follows only it, and an evicted company
 * changed meanwhile by another instance is read again exactly.
 */
import { expect } from 'chai';
import { seededRandom } from '../../../src/store/demo-ledger.ts';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import {
  TINY_BUDGET,
  asCompany,
  closeGivesIndexesBack,
  concurrentReportsAgree,
  expectEvictions,
  ledgers,
  merged,
  queryOf,
  reportsAgree,
} from '../../support/index-budget.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { expectedTotals, randomLedger, randomQuery } from '../../support/random-store-ledger.ts';

(skipPostgres ? describe.skip : describe)(
  'INDEX_MEMORY_MB on PostgreSQL: the in-memory indexes within their budget',
  function () {
    this.timeout(120_000);
    let server: PostgresServer;
    before(async () => {
      server = await startPostgresServer('index_budget');
    });
    after(async () => {
      await server?.destroy();
    });

    it(
      'a budget for one company: only it is followed; an evicted company changed meanwhile is read again ' + 'exactly',
      async () => {
        const url = await server.createDatabase('index_budget_1');
        const writer = new PostgresLedgerStore(url);
        const reader = new PostgresLedgerStore(url, { indexMemoryBytes: TINY_BUDGET });
        try {
          await writer.migrate();
          for (const ledger of ledgers.values()) await writer.load(ledger);
          await reportsAgree(reader, merged(), 4);
          expectEvictions(reader);
          // Company 9 is not held by the reader (company 7 was used last): a load of it reaches its next report.
          const more = asCompany(randomLedger(6060, 100), 9).entries!;
          await writer.load({ entries: more });
          const query = queryOf(randomQuery(seededRandom(5)), 9);
          expect(await reader.sumPnlByAccountMonth(query)).to.deep.equal(expectedTotals(merged(more), query));
          await reportsAgree(reader, merged(more), 6);
          await concurrentReportsAgree(reader, merged(more), 9);
          // The writer's budget (the default) holds every company it reported on.
          await reportsAgree(writer, merged(more), 7);
          expect(writer.indexStats()).to.include({ companies: 3, evictions: 0 });
        } finally {
          await Promise.all([writer.close(), reader.close()]);
        }
      },
    );

    it('a closed store gives its indexes back at once', async () => {
      const url = await server.createDatabase('index_budget_2');
      const writer = new PostgresLedgerStore(url);
      try {
        await writer.migrate();
        for (const ledger of ledgers.values()) await writer.load(ledger);
      } finally {
        await writer.close();
      }
      await closeGivesIndexesBack(new PostgresLedgerStore(url));
    });
  },
);
