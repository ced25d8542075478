/**
 * INDEX_MEMORY_MB on both stores: with a budget too small for two companies, each report of another company evicts
 * the one held before; every report stays what the JavaScript oracle computes, evicted companies are rebuilt from the
 * store (a change made while one was evicted included), and /metrics exports the hits, rebuilds and evictions.
 */
import { expect } from 'chai';
import request from 'supertest';
import { seededRandom } from '../../src/store/demo-ledger.ts';
import { DuckDbLedgerStore } from '../../src/store/duckdb-store.ts';
import type { LedgerBatch, LedgerStore, PnlQuery } from '../../src/store/ledger-store.ts';
import { PostgresLedgerStore } from '../../src/store/postgres-store.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import { createTestApp } from '../support/test-app.ts';
import { RANDOM_COMPANY, expectedTotals, randomLedger, randomQuery } from './random-ledger.ts';

const COMPANIES = [7, 8, 9];
/** Smaller than any company's index: the budget holds only the company used last. */
const TINY_BUDGET = 1;

/** Company 7's ledger under the ids of `companyId` (its own locations, accounts and tracking options). */
function asCompany(batch: LedgerBatch, companyId: number): LedgerBatch {
  if (companyId === RANDOM_COMPANY) return batch;
  const shift = (companyId - RANDOM_COMPANY) * 100_000;
  const guid = (id: string) => (BigInt(`0x${id}`) + BigInt(shift)).toString(16).padStart(32, '0');
  return {
    companies: batch.companies!.map((c) => ({ ...c, id: companyId, name: `Random Co ${companyId}` })),
    locations: batch.locations!.map((l) => ({ ...l, id: l.id + shift, companyId })),
    standardAccounts: [],
    accounts: batch.accounts!.map((a) => ({ ...a, id: a.id + shift, companyId })),
    trackingCategories: batch.trackingCategories!.map((c) => ({ ...c, id: guid(c.id), companyId })),
    trackingOptions: batch.trackingOptions!.map((o) => ({ ...o, id: guid(o.id), categoryId: guid(o.categoryId) })),
    entries: batch.entries!.map((e) => ({
      ...e,
      companyId,
      locationId: e.locationId + shift,
      lines: e.lines.map((l) => ({
        ...l,
        accountId: l.accountId + shift,
        ...(l.locationId ? { locationId: l.locationId + shift } : {}),
        ...(l.trackingOptionIds ? { trackingOptionIds: l.trackingOptionIds.map(guid) } : {}),
      })),
    })),
  };
}

function queryOf(query: PnlQuery, companyId: number): PnlQuery {
  const shift = (companyId - RANDOM_COMPANY) * 100_000;
  const guid = (id: string) => (BigInt(`0x${id}`) + BigInt(shift)).toString(16).padStart(32, '0');
  return {
    ...query,
    companyId,
    locationIds: query.locationIds.map((id) => id + shift),
    optionGroups: query.optionGroups.map((g) => g.map(guid)),
  };
}

const ledgers = new Map(COMPANIES.map((id) => [id, asCompany(randomLedger(4040 + id, 400), id)]));
const merged = (extra: LedgerBatch['entries'] = []): LedgerBatch => ({
  accounts: [...ledgers.values()].flatMap((l) => l.accounts!),
  entries: [...[...ledgers.values()].flatMap((l) => l.entries!), ...extra],
});

/** Reports of the companies in turn (each evicts the one before), then one company twice (a hit). */
async function reportsAgree(store: LedgerStore, loaded: LedgerBatch, seed: number): Promise<void> {
  const rnd = seededRandom(seed);
  for (let i = 0; i < 12; i++) {
    const query = queryOf(randomQuery(rnd), COMPANIES[i % COMPANIES.length]!);
    const figures = await store.readSnapshot((view) => view.sumPnlByAccountMonth(query));
    expect(figures, JSON.stringify(query)).to.deep.equal(expectedTotals(loaded, query));
  }
  const again = queryOf(randomQuery(rnd), COMPANIES[0]!);
  for (let i = 0; i < 2; i++)
    expect(await store.sumPnlByAccountMonth(again)).to.deep.equal(expectedTotals(loaded, again));
}

function expectEvictions(store: LedgerStore): void {
  const stats = store.indexStats();
  expect(stats.companies, 'companies held').to.equal(1);
  expect(stats.evictions).to.be.greaterThan(8);
  expect(stats.rebuilds).to.be.greaterThan(8);
  expect(stats.hits).to.be.greaterThan(0);
  expect(stats.misses).to.equal(stats.rebuilds + COMPANIES.length);
}

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
    } finally {
      await store.close();
    }
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
    } finally {
      await store.close();
    }
  });

  (skipPostgres ? describe.skip : describe)('PostgreSQL', () => {
    let server: PostgresServer;
    before(async () => {
      server = await startPostgresServer('index_budget');
    });
    after(async () => {
      await server?.destroy();
    });

    it('an instance with a budget for one company follows only it; an evicted company changed meanwhile is read again exactly', async () => {
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
        // The writer's budget (the default) holds every company it reported on.
        await reportsAgree(writer, merged(more), 7);
        expect(writer.indexStats()).to.include({ companies: 3, evictions: 0 });
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });
  });
});
