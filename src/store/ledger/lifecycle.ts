/** A store's life: its kind, schema, probes, read-ahead, index memory and release. */

export interface IndexStats {
  budgetBytes: number;
  /**
   * What the indexes may hold now: the budget, or less: what they hold plus the RSS left below budget + headroom, less
   * the most the memory beside them grew between two of the budget's decisions lately.
   */
  roomBytes: number;
  /** Estimated bytes of every index held now. */
  heldBytes: number;
  /** Estimated bytes of the indexes being built now (charged before they are made). */
  buildingBytes: number;
  companies: number;
  /** Reports that found their company's index in memory. */
  hits: number;
  /** Reports that had to build it (the first report of a company, or one evicted before). */
  misses: number;
  /** Builds of a company evicted before (a subset of misses). */
  rebuilds: number;
  evictions: number;
  /** P&L sums answered (from memory or by SQL): one per report built, none for a report its client already holds. */
  sums: number;
  /** Where the builds' time went: reading the company's daily sums from the store, and adding them to the index. */
  readMs: number;
  indexMs: number;
}

export interface StoreLifecycle {
  readonly kind: 'duckdb' | 'postgres';
  /** Creates the schema if missing. Idempotent. */
  migrate(): Promise<void>;
  /** True when the store holds no company at all (first start). */
  isEmpty(): Promise<boolean>;
  /** Cheap reachability probe. */
  ping(): Promise<void>;
  /**
   * Reads ahead what reports read, so the first report does not wait for it (DuckDB: the in-memory pre-aggregates
   * of the first `companies` companies by id, within the index budget). Optional work: the server starts it in the
   * background once it is ready.
   */
  preload(companies?: number): Promise<void>;
  /** The in-memory indexes against their budget (INDEX_MEMORY_MB): what /metrics exports. */
  indexStats(): IndexStats;
  /**
   * Releases the store. With `beforeExit` (the process ends right after) an embedded store only makes its data
   * durable in its file and leaves its handles to the process's end (see DuckDbLedgerStore.close).
   */
  close(options?: { beforeExit?: boolean }): Promise<void>;
}
