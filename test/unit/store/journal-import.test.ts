/** The bulk journal import (test/support/journal-import-suite.ts) on DuckDB in memory. */
import { expect } from 'chai';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { journalImport } from '../../support/journal-import-suite.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

journalImport('DuckDB', () => DuckDbLedgerStore.open(':memory:'));

describe('bulk journal import: a quote in a cell, and a later row of another width (DuckDB)', () => {
  const HEADER = 'entry,date,location,account,amount,options,memo,posted';
  const row = (entry: string, account: number, amount: string, memo = '') =>
    `${entry},2024-01-05,71,${account},${amount},,${memo},true`;
  const journal = (memo: string, extra: string) =>
    [HEADER, row('A1', 1000, '10.00', memo), row('A1', 4000, '-10.00'), row('A2', 1000, '5.00') + extra]
      .concat(row('A2', 4000, '-5.00'))
      .join('\n');
  let store: LedgerStore;
  beforeEach(async () => {
    store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    await store.load({ ...randomLedger(11, 0), entries: [] });
  });
  afterEach(() => store.close());

  it('When a later row has an extra empty cell after a quoted quote, then it is refused at its line', async () => {
    for (const extra of [',', ',,', ',""']) {
      const text = journal('"a 6"" pipe"', extra);
      const err = await importLedgerCsv(store, text, { companyId: RANDOM_COMPANY }).catch((e: unknown) => e);
      expect((err as Error).message, extra).to.equal("line 4: malformed CSV: more cells than the header's 8");
    }
    expect(await store.listCompanies()).to.have.length(1);
    expect((await store.pnlSpan(RANDOM_COMPANY)) ?? null).to.equal(null);
  });

  it('When a quote stands inside an unquoted cell, then it is named at its line before a later row', async () => {
    const err = await importLedgerCsv(store, journal('a 6" pipe', ','), { companyId: RANDOM_COMPANY }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).to.match(/^line 2: malformed CSV: a quote inside an unquoted cell/);
    expect(await importLedgerCsv(store, journal('"a 6"" pipe"', ''), { companyId: RANDOM_COMPANY })).to.equal(2);
  });
});
