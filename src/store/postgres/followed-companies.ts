/**
 * What an instance over PostgreSQL keeps of each company it reports on: its catalog, tag sets and the in-memory
 * pre-aggregates (balance-index.ts), as of one committed change of the shared change log (change-log-sql.ts). A
 * company is read in one snapshot on first use; afterwards every change another process commits reaches it by
 * LISTEN/NOTIFY (change-feed.ts), and the instance reads, again in one snapshot, only what changed: the new
 * catalogs and the changes' deltas, applied to the index in one synchronous step. So a report reads memory only,
 * an import is in it entirely or not at all, and a restarted instance starts from a fresh snapshot. The companies
 * followed fit the instance's index budget (index-budget.ts): the least recently used one is dropped, and no longer
 * followed, when a build or a change would pass it. The snapshots may come from a streaming standby (DATABASE_READ_URL)
 * while notifications come from the primary: a change not replayed yet is read again shortly. A standby replays in
 * order, so every snapshot an instance reads is at least as new as the ones before: its figures never go back.
 */
import type pg from 'pg';
import type { CompanyBalances } from '../memory/balance-index.ts';
import { deepFreeze } from '../memory/deep-freeze.ts';
import {
  IndexBudget,
  objectBytes,
  type BuildTimes,
  type IndexMemory,
  type ReserveBuild,
} from '../memory/index-budget.ts';
import type { IndexStats } from '../ledger/lifecycle.ts';
import { readCatalog } from '../sql/catalog-sql.ts';
import type { SqlSession } from '../sql/session.ts';
import { changesSince, companyChange, lastChange, prunedThrough } from './change-log-sql.ts';
import type { CompanyCatalog } from '../../domain/ledger.ts';
import { addPackedMonth, MONTH_INDEX_OF_DAY, PACKED_DAYS, readCompanyBalances } from './packed-balances.ts';
import { readTagSets } from '../sql/pnl-sql.ts';
import { session } from './session.ts';
import type { TagSetRows } from '../memory/index-sums.ts';

/**
 * One company's report inputs as of change `seq`; a later change of the company makes a new state, only `seq` moves
 * on.
 */
export interface CompanyState {
  seq: number;
  /** The company's ledger version (change-log-sql.ts companyChange) in the snapshot this state was read from. */
  changed: number;
  catalog: CompanyCatalog;
  tagSets: TagSetRows;
  /** Undefined when some daily sum is beyond 2^53 cents: reports of the company are answered by SQL. */
  balances: CompanyBalances | undefined;
  /** What the budget charges for the catalog and for the tag sets, measured once, when they were read. */
  catalogBytes: number;
  tagSetsBytes: number;
}

/** How soon a standby (DATABASE_READ_URL) that has not replayed a change heard of is read again. */
const LAG_RETRY_MS = 50;

export type Snapshot = <T>(read: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

async function readState(
  client: pg.PoolClient,
  companyId: number,
  seq: number,
  times: BuildTimes,
  reserve: ReserveBuild,
): Promise<CompanyState | undefined> {
  const s = session(client);
  const { catalog, catalogBytes } = await measuredCatalog(s, companyId);
  if (!catalog) return undefined;
  return {
    seq,
    changed: await companyChange(s, companyId),
    catalog,
    catalogBytes,
    ...(await measuredTagSets(s, companyId)),
    balances: await readCompanyBalances(client, companyId, times, reserve),
  };
}

/** The company's catalog (undefined: no such company), frozen, with what the budget charges for it. */
async function measuredCatalog(
  s: SqlSession,
  companyId: number,
): Promise<{ catalog: CompanyCatalog | undefined; catalogBytes: number }> {
  const catalog = await readCatalog(s, companyId);
  return { catalog: catalog && deepFreeze(catalog), catalogBytes: objectBytes(catalog) };
}

/** The company's tag sets, frozen, with what the budget charges for them. */
async function measuredTagSets(
  s: SqlSession,
  companyId: number,
): Promise<{ tagSets: TagSetRows; tagSetsBytes: number }> {
  const tagSets = await readTagSets(s, companyId);
  return { tagSets: deepFreeze(tagSets), tagSetsBytes: objectBytes(tagSets) };
}

/** What the budget charges for a company's state. */
const stateBytes = (state: CompanyState): number =>
  (state.balances?.estimatedBytes() ?? 0) + state.catalogBytes + state.tagSetsBytes;

/** What one catch-up read for a followed company, all in the snapshot of change `seq`. */
interface Update {
  state: CompanyState;
  catalog: CompanyCatalog | undefined;
  tagSets: TagSetRows;
  catalogBytes: number;
  tagSetsBytes: number;
  changed: number;
  /** A full re-read (the change log no longer holds the deltas it missed), or the deltas to add. */
  rebuilt?: CompanyBalances | undefined;
  deltas?: PackedDeltas;
}

/** Logged deltas, one row per change, company and month, packed as packed-balances.ts packs balance_daily. */
type PackedDeltas = { seq: number; company_id: number; month: number; packed: Buffer }[];

export class FollowedCompanies {
  private readonly states = new Map<number, CompanyState>();
  private readonly building = new Map<number, Promise<CompanyState | undefined>>();
  /** The highest change seq known to be committed (notifications, catch-ups). */
  private latestSeq = 0;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly budget: IndexBudget;

  constructor(
    private readonly snapshot: Snapshot,
    memory: IndexMemory,
  ) {
    this.budget = new IndexBudget(
      memory.budgetBytes,
      (companyId) => {
        this.states.get(companyId)?.balances?.release();
        this.states.delete(companyId);
      },
      memory.rssLimitBytes,
    );
  }

  /** The company's state (built on first use), or undefined when there is no such company. */
  state(companyId: number): Promise<CompanyState | undefined> {
    const known = this.states.get(companyId);
    if (known) {
      this.budget.hit(companyId);
      return Promise.resolve(known);
    }
    let building = this.building.get(companyId);
    if (!building) {
      this.budget.miss(companyId);
      building = this.build(companyId);
      this.building.set(companyId, building);
      const done = () => {
        if (this.building.get(companyId) === building) this.building.delete(companyId);
      };
      building.then(done, done);
    }
    return building;
  }

  private async build(companyId: number): Promise<CompanyState | undefined> {
    const state = await this.budget.building((reserve) =>
      this.snapshot(async (client) =>
        readState(client, companyId, await lastChange(session(client)), this.budget.times, reserve),
      ),
    );
    if (!state || this.closed) return state;
    const current = this.states.get(companyId);
    if (current && current.seq >= state.seq) return current;
    this.states.set(companyId, state);
    this.budget.hold(companyId, stateBytes(state));
    if (state.seq < this.latestSeq) void this.catchUp().catch(() => undefined);
    return state;
  }

  /** A change was committed (its seq when a notification named it). */
  changed(seq: number | undefined): void {
    if (seq !== undefined) this.latestSeq = Math.max(this.latestSeq, seq);
    void this.catchUp().catch(() => undefined);
  }

  /**
   * Brings every followed company up to the last committed change. Resolves once a catch-up that started after this
   * call has finished (at most one runs, at most one waits: calls meanwhile share the waiting one).
   */
  catchUp(): Promise<void> {
    if (!this.running) {
      const running = this.readChanges().finally(() => {
        if (this.running === running) this.running = undefined;
      });
      this.running = running;
      running.catch(() => this.retryLater());
      return running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.catchUp();
      });
    return this.queued;
  }

  /** The read database has not replayed a change this instance heard of: read again shortly. */
  private retrySoon(): void {
    if (this.closed || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.catchUp().catch(() => undefined);
    }, LAG_RETRY_MS);
    this.soon.unref();
  }

  private retryLater(): void {
    if (this.closed || this.retry || this.states.size === 0) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.catchUp().catch(() => undefined);
    }, 1_000);
    this.retry.unref();
  }

  private async readChanges(): Promise<void> {
    const followed = [...this.states.values()];
    if (followed.length === 0 || this.closed) return;
    const from = Math.min(...followed.map((s) => s.seq));
    const { seq, updates } = await this.snapshot(async (client) => {
      const s = session(client);
      const seq = await lastChange(s);
      if (seq <= from) return { seq, updates: [] as Update[] };
      const changes = await changesSince(s, from);
      // A company followed since before the log's pruned mark may have missed changes no longer logged: read again.
      const pruned = await prunedThrough(s);
      const touched: CompanyState[] = [];
      const incremental = new Set<number>();
      const sameCatalog = new Set<number>();
      for (const state of followed) {
        const companyId = state.catalog.company.id;
        const missed = changes.filter((c) => c.seq > state.seq && c.companyIds.includes(companyId));
        if (state.seq >= pruned && missed.length === 0) continue;
        touched.push(state);
        if (state.seq < pruned) continue;
        if (!missed.some((c) => c.pruned)) incremental.add(companyId);
        if (!missed.some((c) => c.catalogsChanged)) sameCatalog.add(companyId);
      }
      const deltas =
        incremental.size === 0
          ? new Map<number, PackedDeltas>()
          : deltasByCompany(
              (
                await client.query<PackedDeltas[number]>(
                  `SELECT CAST(seq AS DOUBLE PRECISION) AS seq, company_id, ${MONTH_INDEX_OF_DAY} AS month,
                    ${PACKED_DAYS} AS packed
             FROM ledger_deltas WHERE seq > $1 AND company_id = ANY($2) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
                  [from, [...incremental]],
                )
              ).rows,
            );
      const updates: Update[] = [];
      for (const state of touched) {
        const companyId = state.catalog.company.id;
        const { catalog, catalogBytes } = sameCatalog.has(companyId) ? state : await measuredCatalog(s, companyId);
        const update: Update = {
          state,
          catalog,
          catalogBytes,
          ...(await measuredTagSets(s, companyId)),
          changed: await companyChange(s, companyId),
        };
        if (!incremental.has(companyId)) update.rebuilt = await readCompanyBalances(client, companyId);
        else update.deltas = deltas.get(companyId) ?? [];
        updates.push(update);
      }
      return { seq, updates };
    });
    this.apply(seq, followed, updates);
  }

  /**
   * One synchronous step: a report sees every update of this catch-up or none. An updated company gets a new state
   * (its index a clone sharing the months the change left alone), so a report holding the old one reads it unchanged.
   */
  private apply(seq: number, followed: CompanyState[], updates: Update[]): void {
    for (const { state, catalog, tagSets, changed, rebuilt, deltas, catalogBytes, tagSetsBytes } of updates) {
      const companyId = state.catalog.company.id;
      if (this.states.get(companyId) !== state) continue; // replaced meanwhile by a newer build
      if (!catalog) {
        this.states.delete(companyId);
        this.budget.release(companyId);
        continue;
      }
      const balances = deltas ? addDeltas(state.balances?.clone(), deltas, state.seq) : rebuilt;
      const next: CompanyState = { seq, changed, catalog, tagSets, balances, catalogBytes, tagSetsBytes };
      this.states.set(companyId, next);
      this.budget.resize(companyId, stateBytes(next));
    }
    for (const state of followed) if (state.seq < seq) state.seq = seq;
    // Builds started before this catch-up may hold older snapshots: later callers start a fresh one.
    this.building.clear();
    this.latestSeq = Math.max(this.latestSeq, seq);
    if (![...this.states.values()].some((s) => s.seq < this.latestSeq)) return;
    // Behind a change heard of: a standby that has not replayed it yet is asked again shortly, else at once.
    if (seq < this.latestSeq) this.retrySoon();
    else void this.catchUp().catch(() => undefined);
  }

  /** The company's state when it is followed now (no build, not a use). */
  held(companyId: number): CompanyState | undefined {
    return this.states.get(companyId);
  }

  /** A report's sums were answered (from memory or by SQL): counted for /metrics. */
  summed(): void {
    this.budget.summed();
  }

  /** Whether a preload should read further companies. */
  hasRoom(): boolean {
    return !this.budget.full();
  }

  stats(): IndexStats {
    return this.budget.stats();
  }

  /** Bytes of every company's index, for the benchmarks. */
  indexBytes(): number {
    let bytes = 0;
    for (const s of this.states.values()) bytes += s.balances?.byteSize() ?? 0;
    return bytes;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    clearTimeout(this.soon);
    // The indexes' memory goes back now, not at V8's next collection of a store no longer used.
    for (const state of this.states.values()) state.balances?.release();
    this.states.clear();
    this.building.clear();
    this.budget.clear();
  }
}

/** The deltas by company, each company's in the order read. */
function deltasByCompany(rows: PackedDeltas): Map<number, PackedDeltas> {
  const byCompany = new Map<number, PackedDeltas>();
  for (const row of rows) {
    const rowsOf = byCompany.get(row.company_id);
    if (rowsOf) rowsOf.push(row);
    else byCompany.set(row.company_id, [row]);
  }
  return byCompany;
}

/** One company's deltas newer than `after` added to its index (undefined stays undefined: answered by SQL). */
function addDeltas(
  balances: CompanyBalances | undefined,
  deltas: PackedDeltas,
  after: number,
): CompanyBalances | undefined {
  if (!balances) return undefined;
  for (const { seq, month, packed } of deltas) {
    if (seq <= after) continue;
    if (!addPackedMonth(balances, month, packed)) return undefined;
  }
  return balances;
}
