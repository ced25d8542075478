/**
 * One calendar month of a company's in-memory index (balance-index.ts): a slot per (location, account, tag set) with
 * its month total and 31 daily sums, and the same per account alone, in typed arrays that a release gives back at once:
 * either the month's own arrays, or views into its company's CellSlab (one allocation for every month of a build).
 */
export const MAX_DAYS = 31;
/** Bytes of a cell's typed arrays (location, account, tag set, total, daily sums). */
export const CELL_BYTES = 3 * 4 + (1 + MAX_DAYS) * 8;

/**
 * Bytes of a month's arrays with room for `cells` cells and `accounts` accounts, its daily sums `dayBytes` wide (4:
 * int32, as a month snapshot holds them when they fit; 8: float64), rounded up to 8 (CellSlab).
 */
export const monthBytes = (cells: number, accounts: number, dayBytes = 8) =>
  Math.ceil(
    (Math.max(cells, 1) * (CELL_BYTES - MAX_DAYS * (8 - dayBytes)) + Math.max(accounts, 1) * (1 + MAX_DAYS) * 8) / 8,
  ) * 8;

/** A cell's daily sums: int32 while every one fits (a month snapshot says so), float64 otherwise. */
export type DailySums = Float64Array | Int32Array;

/** Detaches the array's buffer, which frees its memory now (the array is empty afterwards). */
const freeBuffer = (a: DailySums) => {
  if (a.buffer instanceof ArrayBuffer) a.buffer.transfer(0);
};

/**
 * The months of one build in one allocation, carved into each month's arrays. A resizable ArrayBuffer: V8 maps its
 * pages itself (mmap) instead of asking the C allocator, so they never lie among other allocations' pages, and the
 * last month given back (resize(0)) returns them to the system at once; the mapping goes at the buffer's collection.
 */
export class CellSlab {
  private readonly buffer: ArrayBuffer;
  private at = 0;
  /** Months still lying in it. */
  private months = 0;

  constructor(bytes: number) {
    this.buffer = new ArrayBuffer(bytes, { maxByteLength: bytes });
  }

  /** Views for one month's arrays (monthBytes(cells, accounts, dayBytes) of the slab). */
  carve(cells: number, accounts: number, dayBytes: number) {
    const start = this.at;
    const n = Math.max(cells, 1),
      a = Math.max(accounts, 1);
    const f64 = (length: number) => {
      const view = new Float64Array(this.buffer, this.at, length);
      this.at += length * 8;
      return view;
    };
    const i32 = (length: number) => {
      const view = new Int32Array(this.buffer, this.at, length);
      this.at += length * 4;
      return view;
    };
    const total = f64(n),
      accountTotal = f64(a),
      accountDaily = f64(a * MAX_DAYS);
    const wide = dayBytes === 8 ? f64(n * MAX_DAYS) : undefined;
    const views = {
      total,
      accountTotal,
      accountDaily,
      location: i32(n),
      account: i32(n),
      tagSet: i32(n),
      daily: wide ?? i32(n * MAX_DAYS),
    };
    this.at = start + monthBytes(cells, accounts, dayBytes);
    this.months++;
    return views;
  }

  /** A month left the slab (freed, or moved to arrays of its own): the last one gives its pages back. */
  leave(): void {
    if (--this.months === 0) this.buffer.resize(0);
  }
}

/** A cell's key: dense indexes stay below 2^16 per kind in any real company; the key is exact up to 2^53. */
const cellKey = (location: number, account: number, tagSet: number) => (location * 65_536 + account) * 65_536 + tagSet;

/** Cells of one calendar month: one slot per (location, account, tag set) seen in it, as dense company-wide indexes. */
export class MonthCells {
  /**
   * Cell key → slot, made on the first change after a build (a build from month snapshots needs none: their cells are
   * distinct) and dropped at compact(): a held month is only read.
   */
  private slotOf: Map<number, number> | undefined;
  location: Int32Array;
  account: Int32Array;
  tagSet: Int32Array;
  total: Float64Array;
  /** Slot s, day d (0-based) at s * 31 + d; int32 in a slab month whose snapshot had them so, till one outgrows it. */
  daily: DailySums;
  size = 0;
  /** Indexes sharing these cells (CompanyBalances.clone): the last one released gives their memory back. */
  owners = 1;
  /** The slab its arrays are views of; undefined when they are its own. */
  private slab: CellSlab | undefined;
  /** The same per account alone (every location and tag set): what a report without filters reads. */
  accountTotal: Float64Array;
  accountDaily: Float64Array;

  /**
   * `capacity`: cells allocated at once (a month snapshot tells how many it has: no growth, no copy to compact); with
   * a slab, the month's arrays are carved from it with room for `capacity` cells and `accounts` accounts.
   */
  constructor(
    readonly key: string /* YYYY-MM */,
    readonly days: number,
    capacity = 16,
    slab?: { from: CellSlab; accounts: number; dayBytes: number },
  ) {
    const n = Math.max(capacity, 1);
    const arrays = slab
      ? slab.from.carve(capacity, slab.accounts, slab.dayBytes)
      : {
          location: new Int32Array(n),
          account: new Int32Array(n),
          tagSet: new Int32Array(n),
          total: new Float64Array(n),
          daily: new Float64Array(n * MAX_DAYS),
          accountTotal: new Float64Array(8),
          accountDaily: new Float64Array(8 * MAX_DAYS),
        };
    this.slab = slab?.from;
    this.location = arrays.location;
    this.account = arrays.account;
    this.tagSet = arrays.tagSet;
    this.total = arrays.total;
    this.daily = arrays.daily;
    this.accountTotal = arrays.accountTotal;
    this.accountDaily = arrays.accountDaily;
  }

  /** An unshared copy (a change to a cloned index copies the months it touches, see CompanyBalances.clone). */
  copy(): MonthCells {
    const c = new MonthCells(this.key, this.days, 0);
    c.location = this.location.slice();
    c.account = this.account.slice();
    c.tagSet = this.tagSet.slice();
    c.total = this.total.slice();
    c.daily = this.daily.slice();
    c.size = this.size;
    c.accountTotal = this.accountTotal.slice();
    c.accountDaily = this.accountDaily.slice();
    return c;
  }

  private lastKey = -1;
  private lastSlot = -1;

  add(location: number, account: number, tagSet: number, dayIndex: number, cents: number): void {
    const slot = this.slot(location, account, tagSet);
    this.total[slot]! += cents;
    const at = slot * MAX_DAYS + dayIndex;
    const day = this.daily[at]! + cents;
    if (this.daily instanceof Int32Array && (day | 0) !== day) this.widenDaily();
    this.daily[at] = day;
    this.accountTotal[account]! += cents;
    this.accountDaily[account * MAX_DAYS + dayIndex]! += cents;
  }

  /** Adds a cell's daily cents of the whole month (`days[d]`, d 0-based); `isNew`: the month has no such cell yet. */
  addDays(location: number, account: number, tagSet: number, days: Float64Array, isNew = false): void {
    const slot = isNew ? this.newSlot(location, account, tagSet) : this.slot(location, account, tagSet);
    let sum = 0;
    for (let d = 0; d < this.days; d++) {
      const cents = days[d]!;
      sum += cents;
      const day = this.daily[slot * MAX_DAYS + d]! + cents;
      if ((day | 0) !== day && this.daily instanceof Int32Array) this.widenDaily();
      this.daily[slot * MAX_DAYS + d] = day;
      this.accountDaily[account * MAX_DAYS + d]! += cents;
    }
    this.total[slot]! += sum;
    this.accountTotal[account]! += sum;
  }

  /** The slot of a cell, made when new. */
  private slot(location: number, account: number, tagSet: number): number {
    const k = cellKey(location, account, tagSet);
    // Rows read in (location, account, tag set) order hit the same slot for every day of the month.
    let slot = k === this.lastKey ? this.lastSlot : this.slots().get(k);
    if (slot === undefined) slot = this.newSlot(location, account, tagSet);
    this.lastKey = k;
    this.lastSlot = slot;
    return slot;
  }

  private slots(): Map<number, number> {
    if (!this.slotOf) {
      this.slotOf = new Map();
      for (let s = 0; s < this.size; s++)
        this.slotOf.set(cellKey(this.location[s]!, this.account[s]!, this.tagSet[s]!), s);
    }
    return this.slotOf;
  }

  /** Cells whose slot map entry exists now (what estimatedBytes charges for the map). */
  get mappedSlots(): number {
    return this.slotOf?.size ?? 0;
  }

  /** A slot for a cell the month does not have; the per-account arrays then reach `account`. */
  private newSlot(location: number, account: number, tagSet: number): number {
    const slot = this.size++;
    if (slot === this.location.length) this.grow();
    this.location[slot] = location;
    this.account[slot] = account;
    this.tagSet[slot] = tagSet;
    this.slotOf?.set(cellKey(location, account, tagSet), slot);
    if (account >= this.accountTotal.length) {
      this.ownArrays();
      const n = Math.max(account + 1, this.accountTotal.length * 2);
      const total = new Float64Array(n),
        daily = new Float64Array(n * MAX_DAYS);
      total.set(this.accountTotal);
      daily.set(this.accountDaily);
      this.accountTotal = total;
      this.accountDaily = daily;
    }
    return slot;
  }

  /** Arrays cut to what they hold (a build leaves up to half of each unused); the slot map dropped. */
  compact(): void {
    this.slotOf = undefined;
    this.lastKey = -1;
    if (this.slab) return; // carved to the size its snapshot gave
    const n = Math.max(this.size, 1);
    if (this.location.length > n) {
      this.location = this.location.slice(0, n);
      this.account = this.account.slice(0, n);
      this.tagSet = this.tagSet.slice(0, n);
      this.total = this.total.slice(0, n);
      this.daily = this.daily.slice(0, n * MAX_DAYS);
    }
    let accounts = 1;
    for (let s = 0; s < this.size; s++) accounts = Math.max(accounts, this.account[s]! + 1);
    if (this.accountTotal.length > accounts) {
      this.accountTotal = this.accountTotal.slice(0, accounts);
      this.accountDaily = this.accountDaily.slice(0, accounts * MAX_DAYS);
    }
  }

  /**
   * Gives the arrays' memory back at once (ArrayBuffer.prototype.transfer(0) detaches and frees each), rather than at
   * V8's next collection of them: the cells are empty afterwards.
   */
  free(): void {
    if (this.slab) {
      this.slab.leave();
      this.slab = undefined;
    } else {
      for (const a of [this.location, this.account, this.tagSet, this.total, this.daily]) freeBuffer(a);
      for (const a of [this.accountTotal, this.accountDaily]) freeBuffer(a);
    }
    this.slotOf = undefined;
    this.size = 0;
  }

  /** Room for `cells` more cells than it holds. */
  reserve(cells: number): void {
    if (this.size + cells > this.location.length) this.grow(this.size + cells);
  }

  /** A month in a slab moves to arrays of its own before it grows (the slab's room for it is exact). */
  private ownArrays(): void {
    if (!this.slab) return;
    this.location = this.location.slice();
    this.account = this.account.slice();
    this.tagSet = this.tagSet.slice();
    this.total = this.total.slice();
    this.daily = this.daily.slice();
    this.accountTotal = this.accountTotal.slice();
    this.accountDaily = this.accountDaily.slice();
    this.slab.leave();
    this.slab = undefined;
  }

  /** A daily sum no longer fits int32: the month's daily sums become float64 (in arrays of its own). */
  private widenDaily(): void {
    this.ownArrays();
    const narrow = this.daily;
    this.daily = Float64Array.from(narrow);
    freeBuffer(narrow);
  }

  private grow(n = this.location.length * 2): void {
    this.ownArrays();
    const widen = <T extends Int32Array | Float64Array>(a: T, size: number): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.location = widen(this.location, n);
    this.account = widen(this.account, n);
    this.tagSet = widen(this.tagSet, n);
    this.total = widen(this.total, n);
    this.daily = widen(this.daily, n * MAX_DAYS);
  }
}
