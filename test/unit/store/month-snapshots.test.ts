/** The month snapshots of a DuckDB file (test/support/month-snapshots-suite.ts), and their codec. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { CompanyBalances } from '../../../src/store/memory/balance-index.ts';
import { addMonthSnapshot, encodeMonthSnapshot } from '../../../src/store/memory/month-snapshot.ts';
import { seededRandom } from '../../../src/store/demo-ledger.ts';
import { session } from '../../../src/store/duckdb/connections.ts';
import { inTransaction, type SqlSession } from '../../../src/store/sql/session.ts';
import { writeAsOlderTool } from '../../support/older-tool-write.ts';
import { monthSnapshotsSuite } from '../../support/month-snapshots-suite.ts';

monthSnapshotsSuite(
  'DuckDB',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-snapshots-'));
    const path = join(dir, 'ledger.duckdb');
    /** A session on the file outside any instance (DuckDB lets one process at a time open it). */
    const sql = async <T>(fn: (s: SqlSession) => Promise<T>): Promise<T> => {
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      try {
        return await fn(session(conn));
      } finally {
        conn.closeSync();
        instance.closeSync();
      }
    };
    return {
      async open() {
        const store = await DuckDbLedgerStore.open(path);
        await store.migrate();
        return store;
      },
      openUnmigrated: () => DuckDbLedgerStore.open(path),
      dropSnapshots: () => sql((s) => s.query('DROP TABLE balance_snapshots')).then(() => undefined),
      olderToolImport: (entries) =>
        sql((s) => inTransaction(s, () => writeAsOlderTool(s, entries), 'BEGIN TRANSACTION')),
      sql,
      cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { writersBesideInstances: false },
);

describe('month snapshot codec (memory/month-snapshot.ts)', () => {
  const rnd = seededRandom(3);
  const sums = Array.from(
    { length: 500 },
    () =>
      [
        1 + Math.floor(rnd() * 30),
        1 + Math.floor(rnd() * 3),
        100 + Math.floor(rnd() * 9),
        Math.floor(rnd() * 4),
        Math.round((rnd() - 0.5) * 1e6),
      ] as const,
  );
  const encode = (rows: readonly (readonly number[])[]) =>
    encodeMonthSnapshot(
      [0, 1, 2, 3, 4].map((k) => rows.map((row) => row[k]!)),
      rows.length,
    );
  const filter = { fromDay: 19_723, toDay: 19_752, locations: [], tagSets: undefined, accounts: [100, 104, 108] };
  const clipped = { ...filter, fromDay: 19_730, toDay: 19_740, locations: [2], tagSets: [1, 3] };

  it('builds the same index as the daily sums added one by one (2024-01: month index 24288)', () => {
    const byRow = new CompanyBalances();
    for (const [day, location, account, tagSet, cents] of sums)
      byRow.addOn(24_288, day, location, account, tagSet, cents);
    const bySnapshot = new CompanyBalances();
    expect(addMonthSnapshot(bySnapshot, 24_288, encode(sums))).to.equal(true);
    expect(bySnapshot.sum(filter)).to.deep.equal(byRow.sum(filter)).and.not.be.empty;
    expect(bySnapshot.sum(clipped)).to.deep.equal(byRow.sum(clipped)).and.not.be.empty;
  });

  it('refuses a month with a daily sum beyond 2^53 cents, and bytes of another layout', () => {
    const inexact = encode([...sums, [5, 1, 100, 0, 2 ** 53]]);
    expect(addMonthSnapshot(new CompanyBalances(), 24_288, inexact)).to.equal(false);
    expect(addMonthSnapshot(new CompanyBalances(), 24_288, encode(sums).subarray(0, 100))).to.equal(false);
  });
});
