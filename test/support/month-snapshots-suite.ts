/**
 * A store's month snapshots (balance_snapshots), on both stores: an instance that opens the ledger afresh builds each
 * company's index from them, and its figures equal the oracle's after loads, a load that replaces entries (moving
 * some to other months) and a store made before the table existed (it gains the table when opened).
 */
import type { LedgerBatch } from '../../src/domain/ledger.ts';
import { expectOracleFigures, type TestStore } from './store-contract.ts';
import { randomLedger } from './random-store-ledger.ts';

export interface SnapshotStores {
  /** A new instance over the same ledger (nothing held in memory yet), migrated. */
  open(): Promise<TestStore>;
  /** Drops balance_snapshots, as a store made before it has none (no instance open). */
  dropSnapshots(): Promise<void>;
}

export function monthSnapshotsSuite(
  name: string,
  stores: () => Promise<SnapshotStores & { cleanUp(): Promise<void> }>,
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
      } finally {
        await s.cleanUp();
      }
    });
  });
}
