/** The bulk journal import (test/support/journal-import-suite.ts) on DuckDB in memory. */
import { expect } from 'chai';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { journalImport } from '../../support/journal-import-suite.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

journalImport('DuckDB', () => DuckDbLedgerStore.open(':memory:'));

describe('bulk journal import: DuckDB reads a quote inside an unquoted cell as text, and still counts cells', () => {
  const HEADER = 'entry,date,location,account,amount,options,memo,posted';
  const row = (entry: string, account: number, amount: string, memo = '') =>
    `${entry},2024-01-05,71,${account},${amount},,${memo},true`;
  const journal = (extra: string) =>
    [HEADER, row('A1', 1000, '10.00', 'a 6" pipe'), row('A1', 4000, '-10.00'), row('A2', 1000, '5.00') + extra]
      .concat(row('A2', 4000, '-5.00'))
      .join('\n');
  let store: LedgerStore;
  beforeEach(async () => {
    store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    await store.load({ ...randomLedger(11, 0), entries: [] });
  });
  afterEach(() => store.close());

  it('When a later row has an extra empty cell, then it is refused at its line and nothing is written', async () => {
    for (const extra of [',', ',,', ',""']) {
      const err = await importLedgerCsv(store, journal(extra), { companyId: RANDOM_COMPANY }).catch((e: unknown) => e);
      expect((err as Error).message, extra).to.equal("line 4: malformed CSV: more cells than the header's 8");
    }
    expect(await store.listCompanies()).to.have.length(1);
    expect((await store.pnlSpan(RANDOM_COMPANY)) ?? null).to.equal(null);
  });

  it('When every row has the header width, then the journal loads (its stray quote is memo text)', async () => {
    expect(await importLedgerCsv(store, journal(''), { companyId: RANDOM_COMPANY })).to.equal(2);
  });
});
