/**
 * The pre-aggregates of one company held in process memory: posted cents per (location, account, tag set) and
 * calendar day, grouped by month, and the same per account alone. A report over a range reads each whole month's
 * totals and, for a clipped first or last month, the days inside it (or the month's total minus the days outside
 * it, whichever is fewer). Without filters it reads one cell per account and month; with a location or tracking
 * filter, one per (location, account, tag set) of each month. Its cost follows the answer and the company's
 * chart, never the number of journal lines. Pure data structure: filled from balance_daily or from a load's staged
 * lines, no I/O.
 *
 * Amounts are integer cents held in float64, exact while |sum| < 2^53; `sum()` checks every figure it returns.
 */
import { daysInMonth } from '../../scalars/dates.ts';
import type { AccountMonthTotal } from '../../domain/ledger.ts';
import { toSafeCents } from '../ledger/money.ts';
import { CellSlab, type DailySums, MAX_DAYS, MonthCells, monthBytes } from './month-cells.ts';

const DAY_MS = 86_400_000;
/** What estimatedBytes() charges per cell's slot map entry and per month's objects. */
const SLOT_BYTES = 64;
const MONTH_BYTES = 1_024;
/** A report read an index released meanwhile (CompanyBalances.release): the store reads the company again. */
export class IndexReleased extends Error {
  constructor() {
    super('the index was released (evicted) while a report read it');
  }
}

/** Which cells a query counts. `tagSets` undefined = every tag set; `locations` empty = every location. */
export interface BalanceFilter {
  /** Inclusive epoch days (UTC calendar days since 1970-01-01). */
  fromDay: number;
  toDay: number;
  locations: readonly number[];
  tagSets: readonly number[] | undefined;
  /** Accounts to report (the company's P&L accounts). */
  accounts: Iterable<number>;
}

const monthIndexOf = (year: number, month: number) => year * 12 + (month - 1);

/** Ids ↔ dense indexes (0, 1, 2, …) in order of first sight. */
class Dense {
  readonly ids: number[] = [];
  private readonly index = new Map<number, number>();
  of(id: number): number {
    let i = this.index.get(id);
    if (i === undefined) this.index.set(id, (i = this.ids.push(id) - 1));
    return i;
  }
  find(id: number): number | undefined {
    return this.index.get(id);
  }
  copy(): Dense {
    const d = new Dense();
    for (const id of this.ids) d.of(id);
    return d;
  }
  /** 1 for each dense index whose id is listed. */
  mask(ids: Iterable<number>): Uint8Array {
    const m = new Uint8Array(this.ids.length);
    for (const id of ids) {
      const i = this.index.get(id);
      if (i !== undefined) m[i] = 1;
    }
    return m;
  }
}

/** Per-slot filter state of one query, as arrays indexed by dense index. */
interface Plan {
  location: Uint8Array | null;
  tagSet: Uint8Array | null;
  /** Dense account → output row, or -1 when the account is not reported. */
  row: Int32Array;
  width: number;
  sums: Float64Array;
}

export class CompanyBalances {
  private readonly months = new Map<number, MonthCells>();
  private locations = new Dense();
  private accounts = new Dense();
  private tagSets = new Dense();
  /** Months still shared with the index this one was cloned from: copied before their first change. */
  private readonly borrowed = new Set<MonthCells>();
  private lastCells: MonthCells | undefined;
  private lastMonth = -1;
  private isReleased = false;

  /**
   * A copy that shares every month with this index until it changes one (then it copies that month): a store
   * applies a change to a clone, so a report holding this index keeps reading it unchanged.
   */
  clone(): CompanyBalances {
    const c = new CompanyBalances();
    for (const [m, cells] of this.months) {
      c.months.set(m, cells);
      c.borrowed.add(cells);
      cells.owners++;
    }
    c.locations = this.locations.copy();
    c.accounts = this.accounts.copy();
    c.tagSets = this.tagSets.copy();
    return c;
  }

  /** Adds posted cents of one (location, account, tag set) on one epoch day. */
  add(locationId: number, accountId: number, tagSetId: number, epochDay: number, cents: number): void {
    const date = new Date(epochDay * DAY_MS);
    this.addOn(
      monthIndexOf(date.getUTCFullYear(), date.getUTCMonth() + 1),
      date.getUTCDate(),
      locationId,
      accountId,
      tagSetId,
      cents,
    );
  }

  /** The same, the day given as its month (`year * 12 + month - 1`) and day of month (1-31): the bulk path. */
  addOn(
    monthIndex: number,
    dayOfMonth: number,
    locationId: number,
    accountId: number,
    tagSetId: number,
    cents: number,
  ): void {
    this.cellsOf(monthIndex).add(
      this.locations.of(locationId),
      this.accounts.of(accountId),
      this.tagSets.of(tagSetId),
      dayOfMonth - 1,
      cents,
    );
  }

  /**
   * Lays out the months a build will fill in one allocation (CellSlab): month `monthIndex` with room for `cells`
   * cells, their daily sums `dayBytes` wide (4 when all fit int32), and for the accounts `accountIds` (made dense here,
   * in the order given). Does nothing to an index that has months.
   */
  allocate(
    months: readonly { monthIndex: number; cells: number; dayBytes: number; accountIds: readonly number[] }[],
  ): void {
    if (this.months.size > 0 || months.length === 0) return;
    if (new Set(months.map((m) => m.monthIndex)).size !== months.length) return;
    const accounts = months.map(({ accountIds }) => {
      let most = 0;
      for (const id of accountIds) most = Math.max(most, this.accounts.of(id) + 1);
      return most;
    });
    const slab = new CellSlab(months.reduce((bytes, m, i) => bytes + monthBytes(m.cells, accounts[i]!, m.dayBytes), 0));
    months.forEach(({ monthIndex, cells, dayBytes }, i) =>
      this.months.set(monthIndex, this.newMonth(monthIndex, cells, { from: slab, accounts: accounts[i]!, dayBytes })),
    );
  }

  /**
   * Makes room for `cells` more cells in the month at once (a month snapshot says how many it holds), so that adding
   * them neither grows nor, at compact(), copies its arrays. True when the month has no cell yet.
   */
  reserveCells(monthIndex: number, cells: number): boolean {
    const known = this.months.has(monthIndex);
    const month = this.cellsOf(monthIndex, cells);
    if (known) month.reserve(cells);
    return month.size === 0;
  }

  /**
   * Adds one cell's daily cents of a whole month (`days[d]` for day d + 1): a month snapshot's cell. `isNew`: the
   * month has no such cell yet (a snapshot's cells are distinct, and reserveCells said the month was empty).
   */
  addMonthDays(
    monthIndex: number,
    locationId: number,
    accountId: number,
    tagSetId: number,
    days: Float64Array,
    isNew = false,
  ): void {
    this.cellsOf(monthIndex).addDays(
      this.locations.of(locationId),
      this.accounts.of(accountId),
      this.tagSets.of(tagSetId),
      days,
      isNew,
    );
  }

  /** The month's cells, made when new, copied before their first change when still shared with another index. */
  private cellsOf(monthIndex: number, capacity?: number): MonthCells {
    let cells = this.lastMonth === monthIndex ? this.lastCells : this.months.get(monthIndex);
    if (cells && this.borrowed.delete(cells)) {
      cells.owners--;
      cells = cells.copy();
      this.months.set(monthIndex, cells);
    }
    if (!cells) {
      cells = this.newMonth(monthIndex, capacity);
      this.months.set(monthIndex, cells);
    }
    this.lastMonth = monthIndex;
    this.lastCells = cells;
    return cells;
  }

  private newMonth(monthIndex: number, capacity?: number, slab?: ConstructorParameters<typeof MonthCells>[3]) {
    const year = Math.floor(monthIndex / 12),
      month = (monthIndex % 12) + 1;
    return new MonthCells(`${year}-${String(month).padStart(2, '0')}`, daysInMonth(year, month), capacity, slab);
  }

  /**
   * Adds rows given column by column (month index, day of month, location, account, tag set, cents), as a store reads
   * balance_daily or a change's deltas. False, adding nothing further, at the first |cents| beyond 2^53 (a float64
   * would not hold it exactly: such a company is answered by SQL).
   */
  addColumns(columns: ArrayLike<number>[], rows: number): boolean {
    const [month, day, location, account, tagSet, cents] = columns as [
      ArrayLike<number>,
      ArrayLike<number>,
      ArrayLike<number>,
      ArrayLike<number>,
      ArrayLike<number>,
      ArrayLike<number>,
    ];
    for (let i = 0; i < rows; i++) {
      const c = cents[i]!;
      if (!(Math.abs(c) < Number.MAX_SAFE_INTEGER)) return false;
      this.addOn(month[i]!, day[i]!, location[i]!, account[i]!, tagSet[i]!, c);
    }
    return true;
  }

  /** Bytes held by the typed arrays of every month (what `sum` reads), for the benchmarks' memory figures. */
  byteSize(): number {
    let bytes = 0;
    for (const m of this.months.values()) {
      for (const a of [m.location, m.account, m.tagSet, m.total, m.daily, m.accountTotal, m.accountDaily])
        bytes += a.byteLength;
    }
    return bytes;
  }

  /** The buffers its arrays lie in: one for an index built from month snapshots (CompanyBalances.allocate). */
  buffers(): Set<ArrayBufferLike> {
    const buffers = new Set<ArrayBufferLike>();
    for (const m of this.months.values())
      for (const a of [m.location, m.account, m.tagSet, m.total, m.daily, m.accountTotal, m.accountDaily])
        buffers.add(a.buffer);
    return buffers;
  }

  /**
   * What the index costs in memory, roughly: its typed arrays, a slot map entry per cell (its key a heap number) and
   * the objects of each month. What an instance's index budget (index-budget.ts) charges for the company.
   */
  estimatedBytes(): number {
    let slots = 0;
    for (const m of this.months.values()) slots += m.mappedSlots;
    return this.byteSize() + slots * SLOT_BYTES + this.months.size * MONTH_BYTES;
  }

  /**
   * At least what estimatedBytes() will say, once compacted, of an index built with `cells` cells in each month (their
   * daily sums `dayBytes` wide) and `accounts` accounts in all: what a build reserves before it makes its arrays.
   */
  static expectedBytes(months: readonly { cells: number; dayBytes: number }[], accounts: number): number {
    let bytes = 0;
    for (const { cells, dayBytes } of months) bytes += monthBytes(cells, accounts, dayBytes) + MONTH_BYTES;
    return bytes;
  }

  /**
   * The index is dropped (evicted from the budget): the months no other index shares give their memory back now.
   * A report that still holds it finds it released (sum() throws IndexReleased) and reads the company again.
   */
  release(): void {
    if (this.isReleased) return;
    this.isReleased = true;
    for (const cells of this.months.values()) if (--cells.owners === 0) cells.free();
    this.months.clear();
    this.borrowed.clear();
    this.lastCells = undefined;
    this.lastMonth = -1;
  }

  get released(): boolean {
    return this.isReleased;
  }

  /** Cuts the arrays of every month this index owns to their size (after a build: it holds up to twice its cells). */
  compact(): void {
    for (const m of this.months.values()) if (!this.borrowed.has(m)) m.compact();
  }

  /**
   * Cents per account and month over the filter, nonzero sums only, ordered by account then month (as the SQL answers).
   */
  sum(filter: BalanceFilter): AccountMonthTotal[] {
    if (this.isReleased) throw new IndexReleased();
    if (filter.fromDay > filter.toDay) return [];
    const from = new Date(filter.fromDay * DAY_MS),
      to = new Date(filter.toDay * DAY_MS);
    const first = monthIndexOf(from.getUTCFullYear(), from.getUTCMonth() + 1);
    const last = monthIndexOf(to.getUTCFullYear(), to.getUTCMonth() + 1);
    const width = last - first + 1;
    const reported = [...new Set(filter.accounts)]
      .filter((id) => this.accounts.find(id) !== undefined)
      .sort((a, b) => a - b);
    const row = new Int32Array(this.accounts.ids.length).fill(-1);
    reported.forEach((id, r) => (row[this.accounts.find(id)!] = r));
    const plan: Plan = {
      location: filter.locations.length === 0 ? null : this.locations.mask(filter.locations),
      tagSet: filter.tagSets === undefined ? null : this.tagSets.mask(filter.tagSets),
      row,
      width,
      sums: new Float64Array(reported.length * width),
    };
    const keys: string[] = new Array<string>(width);
    for (let m = first; m <= last; m++) {
      const cells = this.months.get(m);
      if (!cells) continue;
      keys[m - first] = cells.key;
      const lo = m === first ? from.getUTCDate() - 1 : 0;
      const hi = m === last ? to.getUTCDate() - 1 : cells.days - 1;
      addMonth(cells, lo, hi, plan, m - first);
    }
    const out: AccountMonthTotal[] = [];
    reported.forEach((accountId, r) => {
      for (let c = 0; c < width; c++) {
        const cents = plan.sums[r * width + c]!;
        if (cents !== 0) out.push({ accountId, month: keys[c]!, cents: toSafeCents(cents) });
      }
    });
    return out;
  }
}

/** Adds days lo..hi (0-based, inclusive) of one month's passing cells into column `col`. */
function addMonth(cells: MonthCells, lo: number, hi: number, plan: Plan, col: number): void {
  const { location: locationMask, tagSet: tagSetMask, row, width, sums } = plan;
  if (locationMask === null && tagSetMask === null) {
    // No filter: the per-account cells answer, one per reported account.
    const accounts = Math.min(row.length, cells.accountTotal.length);
    for (let a = 0; a < accounts; a++) {
      const r = row[a]!;
      if (r >= 0) sums[r * width + col]! += cellSum(cells.accountTotal, cells.accountDaily, a, lo, hi, cells.days);
    }
    return;
  }
  const { location, account, tagSet, total, daily, size, days } = cells;
  for (let s = 0; s < size; s++) {
    const r = row[account[s]!]!;
    if (r < 0) continue;
    if (locationMask !== null && locationMask[location[s]!] === 0) continue;
    if (tagSetMask !== null && tagSetMask[tagSet[s]!] === 0) continue;
    sums[r * width + col]! += cellSum(total, daily, s, lo, hi, days);
  }
}

/**
 * Days lo..hi (0-based, inclusive) of cell i: its total for the whole month; for a clipped month its days, or its
 * total minus the days outside, whichever reads fewer days (at most 15).
 */
function cellSum(total: Float64Array, daily: DailySums, i: number, lo: number, hi: number, days: number): number {
  if (lo === 0 && hi === days - 1) return total[i]!;
  const base = i * MAX_DAYS;
  let part = 0;
  if (hi - lo + 1 > days - (hi - lo + 1)) {
    for (let d = 0; d < lo; d++) part += daily[base + d]!;
    for (let d = hi + 1; d < days; d++) part += daily[base + d]!;
    return total[i]! - part;
  }
  for (let d = lo; d <= hi; d++) part += daily[base + d]!;
  return part;
}
