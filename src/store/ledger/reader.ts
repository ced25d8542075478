/** What reports read from a store: a company's catalog and P&L sums, one consistent snapshot at a time. */
import type { AccountMonthTotal, CompanyCatalog, PnlQuery } from '../../domain/ledger.ts';

/** What one report reads: the company's catalog and its sums, which must agree (one snapshot). */
export interface LedgerView {
  getCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
  sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]>;
  /**
   * Names the state of the company's ledger this view reads (catalog, tag sets, sums): another state never has the
   * same name, so an answer's entity tag can be made from it without reading the sums. DuckDB: an epoch of the
   * opening and its count of the loads that touched the company; PostgreSQL: the last change of the shared log that
   * touched the company, the same on every instance at that state.
   */
  ledgerVersion(companyId: number): Promise<string>;
}

export interface ReadOptions {
  /** Aborted when the request that asked has timed out: the read stops (rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface LedgerReader {
  getCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
  sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]>;
  /**
   * Runs `read` against one consistent state of the ledger, so a load committing meanwhile is seen entirely or not
   * at all (PostgreSQL: a REPEATABLE READ READ ONLY transaction). Stops with the signal's reason once it aborts.
   */
  readSnapshot<T>(read: (view: LedgerView) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * First and last day (YYYY-MM-DD) with P&L figures of the company, by SQL over the pre-aggregates (for tools that
   * exit right after: no in-memory index is built); undefined when it has none.
   */
  pnlSpan(companyId: number): Promise<{ first: string; last: string } | undefined>;
  /**
   * The company's catalog as stored now, by SQL (for tools: no in-memory state is built or kept), or undefined when
   * there is no such company.
   */
  storedCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
}
