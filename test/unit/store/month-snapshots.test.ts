/** The month snapshots (test/support/month-snapshots-suite.ts) of a DuckDB file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { monthSnapshotsSuite } from '../../support/month-snapshots-suite.ts';

monthSnapshotsSuite('DuckDB', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-snapshots-'));
  const path = join(dir, 'ledger.duckdb');
  return {
    async open() {
      const store = await DuckDbLedgerStore.open(path);
      await store.migrate();
      return store;
    },
    async dropSnapshots() {
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      await conn.run('DROP TABLE balance_snapshots');
      conn.closeSync();
      instance.closeSync();
    },
    cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
