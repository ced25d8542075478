/**
 * One company-month of balance_daily in one binary value (balance_snapshots), kept in step with it by every load: a
 * company's index is built from its months' snapshots in one query instead of one row per daily sum. Little endian:
 * int32 version, cells n (-1: a daily sum beyond 2^53 cents, answered by SQL), sums v, their width w (4: int32, 8:
 * float64); n int32 location ids, n account ids, n tag set ids, n uint32 day masks (bit d: day d + 1 has a sum);
 * padding to 8 bytes; the v sums, cell by cell, day by day. Small companies have a few sums per cell and month.
 */
import { CompanyBalances } from './balance-index.ts';
import type { ReserveBuild } from './index-budget.ts';

/** The layout's version (a store keeps the one its snapshots have, month-snapshots-sql.ts). */
export const SNAPSHOT_VERSION = 2;
const DAYS = 31;
const HEADER = 16;
const INEXACT = -1;
const INT32 = 2 ** 31;

const valuesOffset = (cells: number) => HEADER + Math.ceil((cells * 16) / 8) * 8;

/** Collects one company-month's daily sums, in any order, and encodes them. */
class MonthSnapshotWriter {
  /** Location → account → tag set → slot. */
  private readonly slotOf = new Map<number, Map<number, Map<number, number>>>();
  private readonly ids: number[] = [];
  private daily: number[] = [];
  private exact = true;

  /** Adds the cents of one (location, account, tag set) on day `day` (1-31) of the month. */
  add(locationId: number, accountId: number, tagSetId: number, day: number, cents: number): void {
    if (!(Math.abs(cents) < Number.MAX_SAFE_INTEGER)) this.exact = false;
    let byAccount = this.slotOf.get(locationId);
    if (!byAccount) this.slotOf.set(locationId, (byAccount = new Map()));
    let byTagSet = byAccount.get(accountId);
    if (!byTagSet) byAccount.set(accountId, (byTagSet = new Map()));
    let slot = byTagSet.get(tagSetId);
    if (slot === undefined) {
      slot = this.ids.length / 3;
      byTagSet.set(tagSetId, slot);
      this.ids.push(locationId, accountId, tagSetId);
      for (let d = 0; d < DAYS; d++) this.daily.push(0);
    }
    this.daily[slot * DAYS + day - 1]! += cents;
  }

  /** The encoded snapshot, its cells ordered by (location, account, tag set). */
  bytes(): Uint8Array {
    if (!this.exact) {
      const out = new DataView(new ArrayBuffer(HEADER));
      out.setInt32(0, SNAPSHOT_VERSION, true);
      out.setInt32(4, INEXACT, true);
      return new Uint8Array(out.buffer);
    }
    const n = this.ids.length / 3;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) =>
        this.ids[a * 3]! - this.ids[b * 3]! ||
        this.ids[a * 3 + 1]! - this.ids[b * 3 + 1]! ||
        this.ids[a * 3 + 2]! - this.ids[b * 3 + 2]!,
    );
    let count = 0;
    let width = 4;
    for (const cents of this.daily) {
      if (cents === 0) continue;
      count++;
      if (cents < -INT32 || cents >= INT32) width = 8;
    }
    const base = valuesOffset(n);
    const out = new DataView(new ArrayBuffer(base + count * width));
    for (const [at, value] of [SNAPSHOT_VERSION, n, count, width].entries()) out.setInt32(at * 4, value, true);
    let at = base;
    order.forEach((slot, c) => {
      for (let k = 0; k < 3; k++) out.setInt32(HEADER + (k * n + c) * 4, this.ids[slot * 3 + k]!, true);
      let mask = 0;
      for (let d = 0; d < DAYS; d++) {
        const cents = this.daily[slot * DAYS + d]!;
        if (cents === 0) continue;
        mask |= 1 << d;
        if (width === 4) out.setInt32(at, cents, true);
        else out.setFloat64(at, cents, true);
        at += width;
      }
      out.setUint32(HEADER + (3 * n + c) * 4, mask >>> 0, true);
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
  if (snapshot.byteLength < HEADER || view.getInt32(0, true) !== SNAPSHOT_VERSION) return false;
  const [n, count, width] = [1, 2, 3].map((i) => view.getInt32(i * 4, true)) as [number, number, number];
  if (n < 0 || (width !== 4 && width !== 8)) return false;
  const base = valuesOffset(n);
  if (snapshot.byteLength !== base + count * width) return false;
  const isNew = balances.reserveCells(monthIndex, n);
  const days = new Float64Array(DAYS);
  let at = base;
  for (let c = 0; c < n; c++) {
    const mask = view.getUint32(HEADER + (3 * n + c) * 4, true);
    for (let d = 0; d < DAYS; d++) {
      if ((mask & (1 << d)) === 0) days[d] = 0;
      else {
        days[d] = width === 4 ? view.getInt32(at, true) : view.getFloat64(at, true);
        at += width;
      }
    }
    const location = view.getInt32(HEADER + c * 4, true);
    const account = view.getInt32(HEADER + (n + c) * 4, true);
    const tagSet = view.getInt32(HEADER + (2 * n + c) * 4, true);
    balances.addMonthDays(monthIndex, location, account, tagSet, days, isNew);
  }
  return at === snapshot.byteLength;
}

/** One month's layout as its snapshot gives it: its cells, their daily sums' width, their accounts' ids. */
interface MonthLayout {
  cells: number;
  dayBytes: number;
  accountIds: number[];
}

/** The layout of a snapshot of this version and a whole header; undefined otherwise. */
function layoutOf(snapshot: Uint8Array): MonthLayout | undefined {
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength);
  if (snapshot.byteLength < HEADER || view.getInt32(0, true) !== SNAPSHOT_VERSION) return undefined;
  const n = view.getInt32(4, true);
  if (n < 0 || snapshot.byteLength < valuesOffset(n)) return undefined;
  const accountIds = new Array<number>(n);
  for (let c = 0; c < n; c++) accountIds[c] = view.getInt32(HEADER + (n + c) * 4, true);
  return { cells: n, dayBytes: view.getInt32(12, true) === 4 ? 4 : 8, accountIds };
}

/** About what an index of months of these layouts will be charged (CompanyBalances.expectedBytes). */
function expectedBytesOf(layouts: readonly MonthLayout[]): number {
  const accounts = new Set<number>();
  for (const { accountIds } of layouts) for (const id of accountIds) accounts.add(id);
  return CompanyBalances.expectedBytes(layouts, accounts.size);
}

/**
 * A company's index from its months' snapshots (`[month index, snapshot]`), its arrays in one allocation
 * (CompanyBalances.allocate), its expected size told to `reserve` before it is made. Undefined when a month holds a
 * daily sum beyond 2^53 cents or a snapshot is not of this layout (as addMonthSnapshot's false).
 */
export function balancesFromSnapshots(
  months: readonly (readonly [number, Uint8Array])[],
  reserve?: ReserveBuild,
): CompanyBalances | undefined {
  const layouts: (MonthLayout & { monthIndex: number })[] = [];
  for (const [monthIndex, snapshot] of months) {
    const layout = layoutOf(snapshot);
    if (!layout) return undefined;
    layouts.push({ monthIndex, ...layout });
  }
  reserve?.(expectedBytesOf(layouts));
  const balances = new CompanyBalances();
  balances.allocate(layouts);
  if (!months.every(([monthIndex, snapshot]) => addMonthSnapshot(balances, monthIndex, snapshot))) {
    balances.release();
    return undefined;
  }
  balances.compact();
  return balances;
}

/**
 * The snapshot of one company-month's daily sums, given in any order as columns: day of month (1-31), location,
 * account, tag set, cents.
 */
export function encodeMonthSnapshot(columns: readonly ArrayLike<number>[], rows: number): Uint8Array {
  const [day, location, account, tagSet, cents] = columns as [
    ArrayLike<number>,
    ArrayLike<number>,
    ArrayLike<number>,
    ArrayLike<number>,
    ArrayLike<number>,
  ];
  const writer = new MonthSnapshotWriter();
  for (let i = 0; i < rows; i++) writer.add(location[i]!, account[i]!, tagSet[i]!, day[i]!, cents[i]!);
  return writer.bytes();
}
