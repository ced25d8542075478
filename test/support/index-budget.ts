/**
 * Three companies' ledgers and the checks the INDEX_MEMORY_MB tests of both stores share
 * (test/wire/store/index-budget.test.ts, test/system/store/index-budget-postgres.test.ts).
 */
import { expect } from 'chai';
import { seededRandom } from '../../src/store/demo-ledger.ts';
import type { LedgerBatch, PnlQuery } from '../../src/domain/ledger.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { RANDOM_COMPANY, expectedTotals, randomLedger, randomQuery } from './random-store-ledger.ts';

export const COMPANIES = [7, 8, 9];
/** Smaller than any company's index: the budget holds only the company used last. */
export const TINY_BUDGET = 1;

/** Company 7's ledger under the ids of `companyId` (its own locations, accounts and tracking options). */
export function asCompany(batch: LedgerBatch, companyId: number): LedgerBatch {
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

export function queryOf(query: PnlQuery, companyId: number): PnlQuery {
  const shift = (companyId - RANDOM_COMPANY) * 100_000;
  const guid = (id: string) => (BigInt(`0x${id}`) + BigInt(shift)).toString(16).padStart(32, '0');
  return {
    ...query,
    companyId,
    locationIds: query.locationIds.map((id) => id + shift),
    optionGroups: query.optionGroups.map((g) => g.map(guid)),
  };
}

export const ledgers = new Map(COMPANIES.map((id) => [id, asCompany(randomLedger(4040 + id, 400), id)]));
export const merged = (extra: LedgerBatch['entries'] = []): LedgerBatch => ({
  accounts: [...ledgers.values()].flatMap((l) => l.accounts!),
  entries: [...[...ledgers.values()].flatMap((l) => l.entries!), ...extra],
});

/** Reports of the companies in turn (each evicts the one before), then one company twice (a hit). */
export async function reportsAgree(store: LedgerStore, loaded: LedgerBatch, seed: number): Promise<void> {
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

/**
 * Reports of the three companies all at once, each company's build evicting (and releasing) the others' while their
 * reports wait: every report still agrees with the oracle (read again, or by SQL), and nothing stays reserved.
 */
export async function concurrentReportsAgree(store: LedgerStore, loaded: LedgerBatch, seed: number): Promise<void> {
  const rnd = seededRandom(seed);
  const queries = Array.from({ length: 24 }, (_, i) => queryOf(randomQuery(rnd), COMPANIES[i % COMPANIES.length]!));
  const answers = await Promise.all(
    queries.map((query, i) =>
      i % 2 === 0 ? store.readSnapshot((view) => view.sumPnlByAccountMonth(query)) : store.sumPnlByAccountMonth(query),
    ),
  );
  answers.forEach((figures, i) =>
    expect(figures, JSON.stringify(queries[i])).to.deep.equal(expectedTotals(loaded, queries[i]!)),
  );
  // A read that found its company held, then waited while the other companies' builds evicted it.
  const [first, ...others] = queries;
  const figures = await store.readSnapshot(async (view) => {
    await view.getCatalog(first!.companyId);
    for (const query of others.slice(0, 2)) await store.sumPnlByAccountMonth(query);
    return view.sumPnlByAccountMonth(first!);
  });
  expect(figures).to.deep.equal(expectedTotals(loaded, first!));
  expect(store.indexStats().buildingBytes, 'bytes still reserved').to.equal(0);
}

export function expectEvictions(store: LedgerStore): void {
  const stats = store.indexStats();
  expect(stats.companies, 'companies held').to.equal(1);
  expect(stats.evictions).to.be.greaterThan(8);
  expect(stats.rebuilds).to.be.greaterThan(8);
  expect(stats.hits).to.be.greaterThan(0);
  expect(stats.misses).to.equal(stats.rebuilds + COMPANIES.length);
}

/**
 * A store closed gives its indexes' memory back at once (each index's slab resized to nothing: V8's external memory
 * drops by about their bytes), not at some later collection of the store's objects. Closes the store.
 */
export async function closeGivesIndexesBack(store: LedgerStore & { indexBytes(): number }): Promise<void> {
  const rnd = seededRandom(12);
  for (const companyId of COMPANIES) await store.sumPnlByAccountMonth(queryOf(randomQuery(rnd), companyId));
  const indexBytes = store.indexBytes();
  expect(store.indexStats().companies).to.equal(COMPANIES.length);
  expect(indexBytes).to.be.greaterThan(0);
  const before = process.memoryUsage().external;
  await store.close();
  // At least most of it: closing the connections may allocate a few buffers of their own meanwhile.
  expect(before - process.memoryUsage().external, 'external memory given back').to.be.at.least(0.9 * indexBytes);
  expect(store.indexStats()).to.include({ heldBytes: 0, companies: 0 });
}
