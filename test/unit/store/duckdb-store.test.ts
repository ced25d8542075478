/**
 * The DuckDB adapter: the LedgerStore contract (test/support/store-contract.ts) on an in-memory database, its
 * in-memory pre-aggregates, and files written by earlier versions.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { seededRandom } from '../../../src/store/demo-ledger.ts';
import type { LedgerBatch } from '../../../src/domain/ledger.ts';
import { contract, expectOracleFigures } from '../../support/store-contract.ts';
import { expectedTotals, randomLedger, randomQuery } from '../../support/random-store-ledger.ts';

contract('DuckDB', () => DuckDbLedgerStore.open(':memory:'));

describe('DuckDB adapter: in-memory pre-aggregates', function () {
  this.timeout(60_000);
  it(
    'stay in step with loads: after every load they equal the SQL pre-aggregates, a direct scan and the expected ' +
      'sums',
    async () => {
      const store = await DuckDbLedgerStore.open(':memory:');
      try {
        await store.migrate();
        const batch = randomLedger(4242, 2400);
        const entries = batch.entries!;
        const rnd = seededRandom(7);
        const check = async (loaded: LedgerBatch) => {
          for (let i = 0; i < 15; i++) {
            const query = randomQuery(rnd);
            const fromMemory = await store.sumPnlByAccountMonth(query);
            expect(fromMemory, JSON.stringify(query)).to.deep.equal(await store.sumPnlBySql(query));
            expect(fromMemory, JSON.stringify(query)).to.deep.equal(await store.scanPnlByAccountMonth(query));
            expect(fromMemory, JSON.stringify(query)).to.deep.equal(expectedTotals(loaded, query));
          }
        };
        await store.load({ ...batch, entries: entries.slice(0, 800) });
        await check({ ...batch, entries: entries.slice(0, 800) }); // builds the index from balance_daily
        await store.load({ entries: entries.slice(800, 1600) }); // folded into the built index
        const unbalanced = { ...entries[0]!, lines: [{ ...entries[0]!.lines[0]!, cents: 1 }] };
        await store.load({ entries: [...entries.slice(1600), unbalanced] }).then(
          () => expect.fail('loaded'),
          () => undefined,
        );
        await check({ ...batch, entries: entries.slice(0, 1600) }); // a refused load changes nothing
        // A query concurrent with a load leaves nothing stale behind.
        const racing = store.sumPnlByAccountMonth(randomQuery(rnd));
        await store.load({ entries: entries.slice(1600) });
        await racing;
        await check(batch);
      } finally {
        await store.close();
      }
    },
  );
});

describe('DuckDB adapter: link secret persistence', () => {
  it('a DuckDB file keeps its link secret across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-secret-'));
    try {
      const first = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'));
      await first.migrate();
      const secret = await first.linkSecret();
      await first.close();
      const second = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'));
      expect(await second.linkSecret()).to.equal(secret);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DuckDB adapter: its own memory while serving (STORE_MEMORY_MB)', function () {
  this.timeout(60_000);
  it('caps a file store at STORE_MEMORY_MB (64 MiB unset), also after a load that ran under its own cap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-memory-'));
    try {
      const unset = await DuckDbLedgerStore.open(join(dir, 'default.duckdb'));
      expect((await unset.engineMemory()).limit).to.equal('64.0 MiB');
      await unset.close();
      const store = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'), { memoryMb: 48 });
      try {
        await store.migrate();
        expect((await store.engineMemory()).limit).to.equal('48.0 MiB');
        await store.load(randomLedger(99, 50));
        expect((await store.engineMemory()).limit).to.equal('48.0 MiB');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DuckDB adapter: a file whose balance tables still have a PRIMARY KEY', function () {
  this.timeout(60_000);
  // The shape of balance_monthly / balance_daily before they lost their key (an ART index DuckDB holds in memory
  // whole).
  const KEYED = {
    balance_monthly: 'month',
    balance_daily: 'day',
  } as const;
  const query = async (path: string, sql: string): Promise<Record<string, unknown>[]> => {
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    try {
      return (await conn.runAndReadAll(sql)).getRowObjectsJS();
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  };
  const keyedTables = async (path: string): Promise<string[]> =>
    (
      await query(
        path,
        `SELECT table_name AS t FROM duckdb_constraints()
    WHERE constraint_type = 'PRIMARY KEY' AND table_name LIKE 'balance_%' ORDER BY 1`,
      )
    ).map((r) => String(r.t));

  it('is rebuilt without the key when opened, keeping its sums; later loads fold into them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-keyed-'));
    const path = join(dir, 'ledger.duckdb');
    const batch = randomLedger(4242, 1200);
    const entries = batch.entries!;
    try {
      const first = await DuckDbLedgerStore.open(path);
      await first.migrate();
      await first.load({ ...batch, entries: entries.slice(0, 600) });
      await first.close();
      // The file as an older version left it: the same rows, in tables keyed by (company, period, location, account,
      // tag set).
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      for (const [table, period] of Object.entries(KEYED)) {
        await conn.run(`CREATE TABLE old_${table} (company_id INTEGER NOT NULL, ${period} DATE NOT NULL, location_id
          INTEGER NOT NULL,
          account_id INTEGER NOT NULL, tag_set_id INTEGER NOT NULL, cents BIGINT NOT NULL,
          PRIMARY KEY (company_id, ${period}, location_id, account_id, tag_set_id))`);
        await conn.run(`INSERT INTO old_${table} SELECT * FROM ${table}`);
        await conn.run(`DROP TABLE ${table}`);
        await conn.run(`ALTER TABLE old_${table} RENAME TO ${table}`);
      }
      conn.closeSync();
      instance.closeSync();
      expect(await keyedTables(path)).to.deep.equal(['balance_daily', 'balance_monthly']);

      const store = await DuckDbLedgerStore.open(path);
      try {
        await store.migrate();
        await store.migrate(); // a second open finds nothing to rebuild
        // The same keys again: folded into the rows, not added beside them.
        await store.load({ entries: entries.slice(600) });
        await expectOracleFigures(
          batch,
          11,
          15,
          (q) => store.sumPnlBySql(q),
          (q) => store.sumPnlByAccountMonth(q),
        );
      } finally {
        await store.close();
      }
      expect(await keyedTables(path)).to.deep.equal([]);
      for (const [table, period] of Object.entries(KEYED)) {
        const [repeated] = await query(
          path,
          `SELECT CAST(COUNT(*) - COUNT(DISTINCT (company_id, ${period}, location_id, account_id, tag_set_id))` +
            ` AS INTEGER) AS n FROM ${table}`,
        );
        expect(repeated?.n, `keys of ${table} held by more than one row`).to.equal(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
