/**
 * The memory budget of an instance's in-memory indexes (INDEX_MEMORY_MB): each company held is charged its estimated
 * bytes, and so is each build before it makes its arrays (a reservation); while the total is over the room left the
 * least recently used company is evicted (its store drops it, gives its arrays' memory back and stops following it;
 * its next report rebuilds it from the store). The room is the budget, or less when the process's RSS would pass budget
 * + INDEX_RSS_HEADROOM_MB: what they hold plus what the RSS has left below that. The company built last stays even
 * when it alone is over. Counts what /metrics exports.
 */
import { totalmem } from 'node:os';
import type { IndexStats } from '../ledger/lifecycle.ts';

const MIB = 2 ** 20;

/** How long a rise of the memory beside the indexes is kept as room below the RSS limit: one to two windows. */
const RISE_WINDOW_MS = 60_000;

/** INDEX_RSS_HEADROOM_MB's default: what the process may hold beyond its indexes' budget before they give way. */
export const DEFAULT_RSS_HEADROOM_MB = 200;

/** A quarter of what the process may use (the cgroup's limit when lower than the machine's memory), at least 64 MiB. */
export function defaultIndexMemoryMb(): number {
  const limit = Math.min(totalmem(), process.constrainedMemory() || Number.POSITIVE_INFINITY);
  return Math.max(64, Math.floor(limit / 4 / MIB));
}

/** Charges a build's expected bytes to the budget before it makes its index (IndexBudget.reserve). */
export type ReserveBuild = (bytes: number) => void;

/** A store's index memory: its budget, and the RSS its indexes give way to (undefined: none). */
export interface IndexMemory {
  budgetBytes: number;
  rssLimitBytes: number | undefined;
}

/**
 * The index memory of a store opened with these options: INDEX_MEMORY_MB (unset: the machine's default) and
 * INDEX_RSS_HEADROOM_MB (unset: the default; 0: no RSS limit).
 */
export function indexMemoryOf(options: { indexMemoryBytes?: number; rssHeadroomBytes?: number }): IndexMemory {
  const budgetBytes = options.indexMemoryBytes ?? defaultIndexMemoryMb() * MIB;
  const headroom = options.rssHeadroomBytes ?? DEFAULT_RSS_HEADROOM_MB * MIB;
  return { budgetBytes, rssLimitBytes: headroom === 0 ? undefined : budgetBytes + headroom };
}

/** Build time by part, added to by the stores' readers of daily sums. */
export interface BuildTimes {
  readMs: number;
  indexMs: number;
}

export class IndexBudget {
  /** Company → charged bytes, least recently used first (a Map keeps insertion order). */
  private readonly held = new Map<number, number>();
  private heldBytes = 0;
  /** Builds under way: reservation → bytes. */
  private readonly reserved = new Map<number, number>();
  private reservedBytes = 0;
  private reservations = 0;
  /**
   * The RSS beside the indexes held (RSS less what they hold) after the latest decision, and the most it has grown
   * from one decision to the next in this window of RISE_WINDOW_MS and the one before (a rise once, as an import's, is
   * forgotten after two windows).
   */
  private restAfterFit: number | undefined;
  private readonly rises = { windowStart: 0, current: 0, previous: 0 };
  private readonly evictedBefore = new Set<number>();
  private readonly counts = { hits: 0, misses: 0, rebuilds: 0, evictions: 0, sums: 0 };
  readonly times: BuildTimes = { readMs: 0, indexMs: 0 };

  constructor(
    readonly budgetBytes: number,
    /** Drops the company's index and everything kept with it. */
    private readonly evict: (companyId: number) => void,
    /** The process's resident bytes the indexes give way to (budget + INDEX_RSS_HEADROOM_MB); undefined: none. */
    private readonly rssLimitBytes: number | undefined = undefined,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A report found the company held: it becomes the most recently used. */
  hit(companyId: number): void {
    const bytes = this.held.get(companyId);
    if (bytes === undefined) return;
    this.held.delete(companyId);
    this.held.set(companyId, bytes);
    this.counts.hits++;
  }

  /** A report's sums were answered (from the index or by SQL). */
  summed(): void {
    this.counts.sums++;
  }

  /** A report found nothing held: the company is being built. */
  miss(companyId: number): void {
    this.counts.misses++;
    if (this.evictedBefore.delete(companyId)) this.counts.rebuilds++;
  }

  /**
   * A build is about to make an index of about `bytes`: charged from now on, the least recently used companies evicted
   * first to make room for it. Returns the reservation, which the build ends with unreserve() (before hold()).
   */
  reserve(bytes: number): number {
    const reservation = ++this.reservations;
    this.reserved.set(reservation, bytes);
    this.reservedBytes += bytes;
    this.fit(0);
    return reservation;
  }

  /** Runs a build that may reserve its bytes (once it knows them); the reservation ends when the build settles. */
  building<T>(build: (reserve: ReserveBuild) => Promise<T>): Promise<T> {
    let reservation: number | undefined;
    return build((bytes) => {
      reservation = this.reserve(bytes);
    }).finally(() => this.unreserve(reservation));
  }

  /** The build of `reservation` ended (held, dropped or failed); undefined or a second call does nothing. */
  unreserve(reservation: number | undefined): void {
    const bytes = reservation === undefined ? undefined : this.reserved.get(reservation);
    if (bytes === undefined) return;
    this.reserved.delete(reservation!);
    this.reservedBytes -= bytes;
  }

  /** A built company is held with its size, as the most recently used; others are evicted to fit. */
  hold(companyId: number, bytes: number): void {
    this.release(companyId);
    this.held.set(companyId, bytes);
    this.heldBytes += bytes;
    this.fit(1);
  }

  /** A held company changed size (a load's change applied to it); its place in the order stays. */
  resize(companyId: number, bytes: number): void {
    const before = this.held.get(companyId);
    if (before === undefined) return;
    this.held.set(companyId, bytes);
    this.heldBytes += bytes - before;
    this.fit(1);
  }

  /** The store dropped the company itself (deleted, to be read again): not an eviction. */
  release(companyId: number): void {
    const bytes = this.held.get(companyId);
    if (bytes === undefined) return;
    this.held.delete(companyId);
    this.heldBytes -= bytes;
  }

  /** No room left: a preload stops here rather than evict what it read first. */
  full(): boolean {
    return this.heldBytes + this.reservedBytes >= this.room();
  }

  stats(): IndexStats {
    return {
      budgetBytes: this.budgetBytes,
      roomBytes: this.room(),
      heldBytes: this.heldBytes,
      buildingBytes: this.reservedBytes,
      companies: this.held.size,
      ...this.counts,
      ...this.times,
    };
  }

  /** Evicts the least recently used companies while over the budget, keeping the `keep` most recently used. */
  private fit(keep: number): void {
    const rss = this.rssLimitBytes === undefined ? undefined : this.rss();
    this.noteRestRise(rss);
    const room = this.room(rss);
    while (this.heldBytes + this.reservedBytes > room && this.held.size > keep) {
      const [companyId, bytes] = this.held.entries().next().value!;
      this.held.delete(companyId);
      this.heldBytes -= bytes;
      this.evictedBefore.add(companyId);
      this.counts.evictions++;
      this.evict(companyId);
    }
    if (this.rssLimitBytes !== undefined) this.restAfterFit = this.rss() - this.heldBytes;
  }

  /**
   * How much the RSS beside the indexes grew since the latest decision (a build's read, the store's and V8's own
   * memory): it grows unseen between two decisions, while an index built or evicted moves the RSS and what is held
   * alike.
   */
  private noteRestRise(rss: number | undefined): void {
    if (rss === undefined || this.restAfterFit === undefined) return;
    const now = this.now();
    if (now - this.rises.windowStart >= RISE_WINDOW_MS) {
      this.rises.previous = now - this.rises.windowStart >= 2 * RISE_WINDOW_MS ? 0 : this.rises.current;
      this.rises.current = 0;
      this.rises.windowStart = now;
    }
    this.rises.current = Math.max(this.rises.current, rss - this.heldBytes - this.restAfterFit);
  }

  /**
   * The budget, or what is held plus what the RSS has left below its limit when that is less: over the limit, the
   * indexes give way until the RSS is back within it (an evicted index gives its pages back to the system at once,
   * CellSlab), and a build fits in what is left below it. Below the limit room is kept for the most the memory beside
   * the indexes has grown between two decisions, which comes before the next decision can evict. `rss`: read already.
   */
  private room(rss?: number): number {
    if (this.rssLimitBytes === undefined) return this.budgetBytes;
    const left = this.rssLimitBytes - Math.max(this.rises.current, this.rises.previous) - (rss ?? this.rss());
    return Math.max(0, Math.min(this.budgetBytes, this.heldBytes + left));
  }

  /**
   * Every company dropped (the store closes), none evicted: what is held goes to zero; the running totals, the build
   * times and which companies were evicted (a later build of one is still a rebuild) stay.
   */
  clear(): void {
    this.held.clear();
    this.heldBytes = 0;
    this.reserved.clear();
    this.reservedBytes = 0;
  }
}

/** What a catalog and tag sets cost in memory, roughly: two bytes per character of their JSON, plus the objects. */
export function objectBytes(value: unknown): number {
  return value === undefined ? 0 : 3 * JSON.stringify(value).length;
}
