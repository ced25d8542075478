/**
 * A refusal names the row's own line in a journal of several of DuckDB's read buffers (30 MB, 600,000 rows): a
 * row of another width and a bad date near the end of the file, on a DuckDB file store as `npm run import` opens it.
 * (Rows read in parallel were inserted out of the file's order, and most runs named another line.)
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

const ENTRIES = 300_000;

/** A balanced journal of two rows per entry; `change` edits the row at `line` (the header is line 1). */
function journal(line: number, change: (row: string) => string): string {
  const rows = ['entry,date,location,account,amount,options,memo,posted'];
  for (let i = 0; i < ENTRIES; i++) {
    rows.push(`E${i},2024-01-05,71,1000,1.00,,memo of entry ${i},true`, `E${i},2024-01-05,71,4000,-1.00,,,true`);
  }
  rows[line - 1] = change(rows[line - 1]!);
  return `${rows.join('\n')}\n`;
}

describe('a refusal names its line in a journal of several read buffers (DuckDB file store)', function () {
  this.timeout(180_000);
  let dir: string;
  let store: LedgerStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-import-lines-'));
    store = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'));
    await store.migrate();
    await store.load({ ...randomLedger(11, 0), entries: [] });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, (row: string) => string, string][] = [
    ['an extra empty cell', (row) => `${row},`, "malformed CSV: more cells than the header's 8"],
    [
      'a bad date',
      (row) => row.replace('2024-01-05', '2024-02-30'),
      'date "2024-02-30" is not a valid YYYY-MM-DD date',
    ],
  ];
  for (const [what, change, reason] of cases) {
    it(`When row 540,001 of 600,001 has ${what}, then the import is refused at line 540001`, async () => {
      const path = join(dir, 'journal.csv');
      writeFileSync(path, journal(540_001, change));
      const err = await importLedgerCsv(store, { path }, { companyId: RANDOM_COMPANY }).catch((e: unknown) => e);
      expect((err as Error).message).to.equal(`line 540001: ${reason}`);
      expect((await store.pnlSpan(RANDOM_COMPANY)) ?? null).to.equal(null);
    });
  }
});
