/**
 * One company-month of balance_daily in one binary value (balance_snapshots), kept in step with it by every load: a
 * company's index is built from its months' snapshots in one query instead of one row per daily sum. Little endian:
 * int32 version, int32 cells n (-1: a daily sum beyond 2^53 cents, answered by SQL), n int32 location ids, n account
 * ids, n tag set ids, padding to 8 bytes, n × 31 float64 daily cents (cell c, day d at c × 31 + d).
 */
import type { CompanyBalances } from './balance-index.ts';

const VERSION = 1;
const DAYS = 31;
const HEADER = 8;
const INEXACT = -1;

const dailyOffset = (cells: number) => HEADER + Math.ceil((cells * 12) / 8) * 8;

/** Collects one company-month's daily sums, in any order, and encodes them. */
class MonthSnapshotWriter {
  private readonly slotOf = new Map<string, number>();
  private readonly ids: number[] = [];
  private daily: number[] = [];
  private exact = true;

  /** Adds the cents of one (location, account, tag set) on day `day` (1-31) of the month. */
  add(locationId: number, accountId: number, tagSetId: number, day: number, cents: number): void {
    if (!(Math.abs(cents) < Number.MAX_SAFE_INTEGER)) this.exact = false;
    const key = `${locationId},${accountId},${tagSetId}`;
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.slotOf.size;
      this.slotOf.set(key, slot);
      this.ids.push(locationId, accountId, tagSetId);
      for (let d = 0; d < DAYS; d++) this.daily.push(0);
    }
    this.daily[slot * DAYS + day - 1]! += cents;
  }

  /** The encoded snapshot, its cells ordered by (location, account, tag set). */
  bytes(): Uint8Array {
    if (!this.exact) {
      const out = new DataView(new ArrayBuffer(HEADER));
      out.setInt32(0, VERSION, true);
      out.setInt32(4, INEXACT, true);
      return new Uint8Array(out.buffer);
    }
    const n = this.slotOf.size;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) =>
        this.ids[a * 3]! - this.ids[b * 3]! ||
        this.ids[a * 3 + 1]! - this.ids[b * 3 + 1]! ||
        this.ids[a * 3 + 2]! - this.ids[b * 3 + 2]!,
    );
    const base = dailyOffset(n);
    const out = new DataView(new ArrayBuffer(base + n * DAYS * 8));
    out.setInt32(0, VERSION, true);
    out.setInt32(4, n, true);
    order.forEach((slot, c) => {
      for (let k = 0; k < 3; k++) out.setInt32(HEADER + (k * n + c) * 4, this.ids[slot * 3 + k]!, true);
      for (let d = 0; d < DAYS; d++) out.setFloat64(base + (c * DAYS + d) * 8, this.daily[slot * DAYS + d]!, true);
    });
    return new Uint8Array(out.buffer);
  }
}

/**
 * Adds a snapshot of month `monthIndex` (`year * 12 + month - 1`) to `balances`. False, adding nothing, when the
 * month holds a daily sum beyond 2^53 cents (as CompanyBalances.addColumns) or the snapshot is not of this layout.
 */
export function addMonthSnapshot(balances: CompanyBalances, monthIndex: number, snapshot: Uint8Array): boolean {
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength);
  const n = snapshot.byteLength >= HEADER ? view.getInt32(4, true) : INEXACT;
  if (view.getInt32(0, true) !== VERSION || n < 0) return false;
  const base = dailyOffset(n);
  if (snapshot.byteLength !== base + n * DAYS * 8) return false;
  const days = new Float64Array(DAYS);
  for (let c = 0; c < n; c++) {
    for (let d = 0; d < DAYS; d++) days[d] = view.getFloat64(base + (c * DAYS + d) * 8, true);
    const location = view.getInt32(HEADER + c * 4, true);
    const account = view.getInt32(HEADER + (n + c) * 4, true);
    const tagSet = view.getInt32(HEADER + (2 * n + c) * 4, true);
    balances.addMonthDays(monthIndex, location, account, tagSet, days);
  }
  return true;
}

/** The snapshot of one company-month's daily sums, in any order: (day 1-31, location, account, tag set, cents). */
export function encodeMonthSnapshot(sums: Iterable<readonly [number, number, number, number, number]>): Uint8Array {
  const writer = new MonthSnapshotWriter();
  for (const [day, location, account, tagSet, cents] of sums) writer.add(location, account, tagSet, day, cents);
  return writer.bytes();
}
