/**
 * A store's month snapshots (balance_snapshots) on both stores, against the oracle and balance_daily (staleSnapshots):
 * a fresh instance after loads and a replacement, a store made before the table, an older tool's import that leaves
 * them behind (read from the rows until rewritten), and a first fill while an import commits (PostgreSQL: held at
 * chosen points by other sessions' locks).
 */
import { expect } from 'chai';
import type { LedgerBatch } from '../../src/domain/ledger.ts';
import { encodeMonthSnapshot } from '../../src/store/memory/month-snapshot.ts';
import type { SqlSession } from '../../src/store/sql/session.ts';
import { olderToolEntries } from './older-tool-write.ts';
import { expectOracleFigures, type TestStore } from './store-contract.ts';
import { randomLedger } from './random-store-ledger.ts';

type Entry = NonNullable<LedgerBatch['entries']>[number];

export interface SnapshotStores {
  /** A new instance over the same ledger (nothing held in memory yet), migrated. */
  open(): Promise<TestStore>;
  /** A new instance that has not run migrate() yet. */
  openUnmigrated(): Promise<TestStore>;
  /** Drops balance_snapshots, as a store made before it has none (no instance open on DuckDB). */
  dropSnapshots(): Promise<void>;
  /**
   * Imports `entries` as a tool of a version before snapshots did (older-tool-write.ts, in its own transaction under
   * the store's load lock; on PostgreSQL with its change logged and notified): no instance open on DuckDB. With
   * `beforeCommit`, which only PostgreSQL takes (another writer beside the instances), that runs while the import is
   * written and not committed.
   */
  olderToolImport(entries: Entry[], beforeCommit?: () => Promise<void>): Promise<void>;
  /** A session on the ledger outside any instance (no instance open on DuckDB), for the checks below. */
  sql<T>(fn: (s: SqlSession) => Promise<T>): Promise<T>;
  /** PostgreSQL: resolves once `sessions` (1) sessions of the database wait for a lock, or `done` settles first. */
  someoneWaits?(done: Promise<unknown>, sessions?: number): Promise<void>;
  /** PostgreSQL: runs `fn` while another session holds the settings table (a migration reading it waits). */
  holdingSettings?<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The company-months whose snapshot differs from what balance_daily holds now (`company:month`), encoded as every
 * writer encodes them: none, when nothing was left behind.
 */
export async function staleSnapshots(s: SqlSession): Promise<string[]> {
  const rows = await s.query(
    `SELECT CAST(company_id AS INTEGER) AS c,
            CAST(EXTRACT(YEAR FROM day) * 12 + EXTRACT(MONTH FROM day) - 1 AS INTEGER) AS m,
            CAST(EXTRACT(DAY FROM day) AS INTEGER) AS d, CAST(location_id AS INTEGER) AS l,
            CAST(account_id AS INTEGER) AS a, CAST(tag_set_id AS INTEGER) AS t, CAST(cents AS DOUBLE PRECISION) AS v
       FROM balance_daily`,
  );
  const months = new Map<string, number[][]>();
  for (const r of rows) {
    const key = `${r.c}:${r.m}`;
    let columns = months.get(key);
    if (!columns) months.set(key, (columns = [[], [], [], [], []]));
    for (const [k, name] of ['d', 'l', 'a', 't', 'v'].entries()) columns[k]!.push(Number(r[name]));
  }
  const stored = new Map<string, Uint8Array>();
  for (const r of await s.query('SELECT company_id AS c, month AS m, snapshot FROM balance_snapshots'))
    stored.set(`${r.c}:${r.m}`, r.snapshot as Uint8Array);
  const empty = Buffer.from(encodeMonthSnapshot([], 0));
  const stale: string[] = [];
  for (const key of new Set([...months.keys(), ...stored.keys()])) {
    const columns = months.get(key);
    const expected = columns ? Buffer.from(encodeMonthSnapshot(columns, columns[0]!.length)) : empty;
    const found = stored.get(key);
    if (!found || !expected.equals(Buffer.from(found))) stale.push(key);
  }
  return stale.sort();
}

export function monthSnapshotsSuite(
  name: string,
  stores: () => Promise<SnapshotStores & { cleanUp(): Promise<void> }>,
  /** Whether another process may write the ledger while an instance opens it (PostgreSQL; DuckDB: one process). */
  { writersBesideInstances }: { writersBesideInstances: boolean },
) {
  describe(`month snapshots: ${name}`, function () {
    this.timeout(120_000);
    const batch = randomLedger(5151, 1500);
    const entries = batch.entries!.map((e, i) => ({ ...e, ref: `M${i}` }));
    // Entries 0-99 again, each a year later (other months) and its first line's amounts doubled.
    const replacements = entries.slice(0, 100).map((e) => ({
      ...e,
      date: `${Number(e.date.slice(0, 4)) + 1}${e.date.slice(4)}`.replace('-02-29', '-02-28'),
      lines: e.lines.map((l) => ({ ...l, cents: l.cents * 2 })),
    }));
    const final: LedgerBatch = { ...batch, entries: [...replacements, ...entries.slice(100)] };
    const older = olderToolEntries(6161, 40);
    const again = olderToolEntries(6262, 10);
    const later = olderToolEntries(7171, 5).map((e, i) => ({ ...e, ref: `L${i}` }));
    const withEntries = (...more: Entry[][]): LedgerBatch => ({ ...batch, entries: [...entries, ...more.flat()] });

    it('a fresh instance builds each company from them, exact after loads and a replacement', async () => {
      const s = await stores();
      try {
        const writer = await s.open();
        await writer.load({ ...batch, entries: entries.slice(0, 700) });
        await writer.load({ entries: entries.slice(700) });
        await writer.load({ entries: replacements, replaceEntries: true });
        await writer.close();
        const reader = await s.open();
        await expectOracleFigures(final, 31, 25, (q) => reader.sumPnlByAccountMonth(q));
        await expectOracleFigures(final, 32, 10, (q) => reader.scanPnlByAccountMonth(q));
        await reader.close();
        await s.dropSnapshots();
        const migrated = await s.open();
        await expectOracleFigures(final, 33, 25, (q) => migrated.sumPnlByAccountMonth(q));
        await migrated.close();
        expect(await s.sql(staleSnapshots)).to.deep.equal([]);
      } finally {
        await s.cleanUp();
      }
    });

    it("an older tool's import, which leaves them behind, is read from the rows until they are rewritten", async () => {
      const s = await stores();
      try {
        const writer = await s.open();
        await writer.load({ ...batch, entries });
        // PostgreSQL: an instance holding the company hears of the import (its deltas not logged) and reads it again.
        const running = writersBesideInstances ? writer : undefined;
        const version = () => writer.readSnapshot((view) => view.ledgerVersion(7));
        const before = await version();
        if (!running) await writer.close();
        await s.olderToolImport(older);
        if (running) {
          while ((await version()) === before) await new Promise((resolve) => setTimeout(resolve, 20));
          await expectOracleFigures(withEntries(older), 40, 25, (q) => running.sumPnlByAccountMonth(q));
          await running.close();
        }
        expect(await s.sql(staleSnapshots)).to.not.be.empty;
        // An instance that has not migrated (nothing rewritten yet) reads the company from its rows; migrate rewrites.
        const reader = await s.openUnmigrated();
        await expectOracleFigures(withEntries(older), 41, 25, (q) => reader.sumPnlByAccountMonth(q));
        await reader.migrate();
        await reader.close();
        expect(await s.sql(staleSnapshots)).to.deep.equal([]);
        // Left behind again, then rewritten by the next import's first step.
        await s.olderToolImport(again);
        const importer = await s.openUnmigrated();
        await importer.load({ entries: later });
        await importer.close();
        expect(await s.sql(staleSnapshots)).to.deep.equal([]);
        const fresh = await s.open();
        await expectOracleFigures(withEntries(older, again, later), 43, 25, (q) => fresh.sumPnlByAccountMonth(q));
        await fresh.close();
      } finally {
        await s.cleanUp();
      }
    });

    it('an import during the first fill of the table is in the snapshots when both are done', async () => {
      const s = await stores();
      try {
        const writer = await s.open();
        await writer.load({ ...batch, entries });
        await writer.close();
        await s.dropSnapshots();
        const instance = await s.openUnmigrated();
        if (s.holdingSettings && s.someoneWaits) {
          // PostgreSQL: the fill held before it reads the settings, the import started meanwhile by the instance.
          const { someoneWaits } = s;
          const [migrated, loaded] = await s.holdingSettings(async () => {
            const migrating = instance.migrate();
            await someoneWaits(migrating);
            const loading = instance.load({ entries: later });
            await someoneWaits(loading, 2);
            return [migrating, loading];
          });
          await Promise.all([migrated, loaded]);
        } else await Promise.all([instance.migrate(), instance.load({ entries: later })]);
        await expectOracleFigures(withEntries(later), 51, 25, (q) => instance.sumPnlByAccountMonth(q));
        await instance.close();
        expect(await s.sql(staleSnapshots)).to.deep.equal([]);
      } finally {
        await s.cleanUp();
      }
    });

    const itWithWritersBeside = writersBesideInstances ? it : undefined;
    itWithWritersBeside?.("an older tool's import that commits during the first fill is in the snapshots", async () => {
      const s = await stores();
      const { someoneWaits } = s;
      if (!someoneWaits) throw new Error('a store with writers beside its instances tells when someone waits');
      try {
        const writer = await s.open();
        await writer.load({ ...batch, entries });
        await writer.close();
        await s.dropSnapshots();
        const instance = await s.openUnmigrated();
        let migrated: Promise<void> | undefined;
        await s.olderToolImport(older, async () => {
          migrated = instance.migrate();
          await someoneWaits(migrated);
        });
        await migrated;
        await expectOracleFigures(withEntries(older), 61, 25, (q) => instance.sumPnlByAccountMonth(q));
        await instance.close();
        expect(await s.sql(staleSnapshots)).to.deep.equal([]);
      } finally {
        await s.cleanUp();
      }
    });
  });
}
