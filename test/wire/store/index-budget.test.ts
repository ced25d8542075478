/**
 * INDEX_MEMORY_MB on DuckDB: with a budget too small for two companies, each report of another company evicts the one
 * held before; every report stays what the JavaScript oracle computes, evicted companies are rebuilt from the store
 * (a load made while one was evicted included), and /metrics exports the hits, rebuilds and evictions.
 */
import { expect } from 'chai';
import request from 'supertest';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import {
  TINY_BUDGET,
  asCompany,
  closeGivesIndexesBack,
  concurrentReportsAgree,
  expectEvictions,
  ledgers,
  merged,
  reportsAgree,
} from '../../support/index-budget.ts';
import { randomLedger } from '../../support/random-store-ledger.ts';
import { createTestApp } from '../../support/test-app.ts';

describe('INDEX_MEMORY_MB: the in-memory indexes within their budget', function () {
  this.timeout(120_000);

  it('DuckDB: a budget for one company evicts the others, and every report stays exact', async () => {
    const store = await DuckDbLedgerStore.open(':memory:', { indexMemoryBytes: TINY_BUDGET });
    try {
      await store.migrate();
      for (const ledger of ledgers.values()) await store.load(ledger);
      await reportsAgree(store, merged(), 1);
      expectEvictions(store);
      // A load for a company that is not held now: its next report reads it again, with the load.
      const more = asCompany(randomLedger(5050, 100), 8).entries!;
      await store.load({ entries: more });
      await reportsAgree(store, merged(more), 2);
      await concurrentReportsAgree(store, merged(more), 8);
    } finally {
      await store.close();
    }
  });

  it('DuckDB: a closed store gives its indexes back at once', async () => {
    const store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    for (const ledger of ledgers.values()) await store.load(ledger);
    await closeGivesIndexesBack(store);
  });

  it('DuckDB: /metrics exports the budget, hits, misses, rebuilds and evictions', async () => {
    const store = await DuckDbLedgerStore.open(':memory:', { indexMemoryBytes: TINY_BUDGET });
    await store.migrate();
    for (const ledger of ledgers.values()) await store.load(ledger);
    const { app } = await createTestApp({ store });
    try {
      await reportsAgree(store, merged(), 3);
      const { text } = await request(app).get('/metrics').expect(200);
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      const stats = store.indexStats();
      expect(value('reporting_index_budget_bytes')).to.equal(TINY_BUDGET);
      expect(value('reporting_index_companies')).to.equal(1);
      expect(value('reporting_index_evictions_total')).to.equal(stats.evictions);
      expect(value('reporting_index_rebuilds_total')).to.equal(stats.rebuilds);
      expect(value('reporting_index_hits_total')).to.equal(stats.hits);
      expect(value('reporting_index_misses_total')).to.equal(stats.misses);
      expect(value('reporting_index_bytes')).to.equal(stats.heldBytes).and.to.be.greaterThan(0);
      expect(value('reporting_index_building_bytes')).to.equal(stats.buildingBytes).and.to.equal(0);
      expect(value('reporting_index_room_bytes')).to.equal(stats.roomBytes).and.to.be.at.most(TINY_BUDGET);
    } finally {
      await store.close();
    }
  });
});
