/** LedgerStore over DuckDB (embedded; a file path or ':memory:'). */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { AccountMonthTotal, Company, CompanyCatalog, LedgerBatch, PnlQuery } from '../../domain/ledger.ts';
import type { ApiKeyRecord, NewApiKey } from '../ledger/api-keys.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import type { IndexStats } from '../ledger/lifecycle.ts';
import type { LedgerView, ReadOptions } from '../ledger/reader.ts';
import type { JournalLoad } from '../ledger/writer.ts';
import type { CompanyBalances } from '../memory/balance-index.ts';
import { deepFreeze } from '../memory/deep-freeze.ts';
import { FoundApiKeys } from '../memory/found-api-keys.ts';
import { IndexBudget, type IndexMemory, indexMemoryOf, objectBytes } from '../memory/index-budget.ts';
import { checkRange, isFiltered, sumFromIndex } from '../memory/index-sums.ts';
import * as keys from '../sql/api-key-sql.ts';
import { readCatalog } from '../sql/catalog-sql.ts';
import { loadJournal } from '../sql/journal-import-sql.ts';
import { type ChangeRecorder, loadBatch } from '../sql/load-sql.ts';
import { pnlSpan, readTagSets, scanPnl, sumPnl } from '../sql/pnl-sql.ts';
import { DUCKDB_KEYED_BALANCE_TABLES, duckdbBalanceKeyMigration, schemaStatements } from '../sql/schema.ts';
import { type SqlSession, type Staging, inTransaction } from '../sql/session.ts';
import { LINK_SECRET_KEY, getOrCreateSetting, newLinkSecret } from '../sql/settings-sql.ts';
import { ensureSnapshots, readBalances, repairSnapshots, writeLoadSnapshots } from './balances.ts';
import { READ_CONNECTIONS, ReaderPool, Serial, session } from './connections.ts';
import { refusedInFileOrder } from './journal-reader.ts';
import { LoadVersions } from './load-versions.ts';
import { addPostedLines } from './posted-lines.ts';
import { ENGINE_MEMORY_SQL, importSettings, serveUnderSettings, underSettings } from './settings.ts';
import { writeStaging } from './staging-writer.ts';

export class DuckDbLedgerStore implements LedgerStore {
  readonly kind = 'duckdb' as const;
  private readonly writeQueue = new Serial();
  private readonly catalogs = new Map<number, Promise<CompanyCatalog | undefined>>();
  /**
   * The pre-aggregates in memory (balance-index.ts), per company: built from its month snapshots on first use and
   * kept in step by every load of this process, the file's only writer. A build overtaken by a load is not kept. They
   * fit the index budget (index-budget.ts): the least recently used company is dropped, with its catalog and tag sets.
   */
  private readonly balances = new Map<number, Promise<CompanyBalances | undefined>>();
  private readonly builtBalances = new Map<number, CompanyBalances>();
  private loads = 0;
  private readonly versions = new LoadVersions();
  private readonly tagSets = new Map<number, Promise<{ id: number; optionIds: string[] }[]>>();
  /** Found API keys; creation and revocation go through this process, which forgets them. */
  private readonly apiKeys = new FoundApiKeys();
  private readonly budget: IndexBudget;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly readers: ReaderPool,
    private readonly writer: DuckDBConnection,
    /** DuckDB's settings during an import (IMPORT_SETTINGS, without the memory cap in memory). */
    private readonly importSettings: Record<string, string>,
    /** DuckDB's settings during a load (its default memory cap, for a file store). */
    private readonly loadSettings: Record<string, string> | undefined,
    memory: IndexMemory,
  ) {
    this.budget = new IndexBudget(memory.budgetBytes, (companyId) => this.evicted(companyId), memory.rssLimitBytes);
  }

  /** The budget evicted the company: its index (its memory given back), catalog and tag sets are dropped. */
  private evicted(companyId: number): void {
    this.balances.delete(companyId);
    this.builtBalances.get(companyId)?.release();
    this.builtBalances.delete(companyId);
    this.catalogs.delete(companyId);
    this.tagSets.delete(companyId);
  }

  static async open(
    path: string,
    options: { indexMemoryBytes?: number; rssHeadroomBytes?: number; memoryMb?: number } = {},
  ): Promise<DuckDbLedgerStore> {
    const instance = await DuckDBInstance.create(path);
    const readers = await Promise.all(Array.from({ length: READ_CONNECTIONS }, () => instance.connect()));
    const writer = await instance.connect();
    const loadSettings = await serveUnderSettings(writer, path, options.memoryMb);
    const pool = new ReaderPool(readers);
    const memory = indexMemoryOf(options);
    return new DuckDbLedgerStore(instance, pool, writer, importSettings(path), loadSettings, memory);
  }

  private read<T>(fn: (s: SqlSession) => Promise<T>): Promise<T> {
    return this.readers.run((connection) => fn(session(connection, { streamed: true })));
  }

  async migrate(): Promise<void> {
    // One call for the whole schema: DuckDB runs the statements in turn, each prepared call would cost a round trip.
    await this.writeQueue.run(async () => {
      await this.writer.run(schemaStatements('duckdb').join(';\n'));
      const s = session(this.writer);
      await inTransaction(s, () => ensureSnapshots(s, this.writer), 'BEGIN TRANSACTION');
      const keyed = (await s.query(DUCKDB_KEYED_BALANCE_TABLES)).map((r) => String(r.t));
      if (keyed.length > 0)
        await inTransaction(
          s,
          async () => {
            for (const sql of duckdbBalanceKeyMigration(keyed)) await s.query(sql);
          },
          'BEGIN TRANSACTION',
        );
    });
  }

  /** A load's last step: the snapshots of the months it changed (balance_snapshots; its first: repairSnapshots). */
  private readonly writeSnapshots: ChangeRecorder = (s, change) => {
    this.versions.loading(change.companyIds);
    return writeLoadSnapshots(s, change.hasDelta, this.writer);
  };

  async isEmpty(): Promise<boolean> {
    return this.read(async (s) => (await s.query('SELECT 1 AS x FROM companies LIMIT 1')).length === 0);
  }

  /**
   * Catalogs are kept until the next load: a DuckDB file has one writer process, this one, so nothing else can
   * change them. They are frozen, since every request shares them.
   */
  getCatalog(companyId: number): Promise<CompanyCatalog | undefined> {
    const cached = this.catalogs.get(companyId);
    if (cached) return cached;
    const reading = this.read((s) => readCatalog(s, companyId)).then((catalog) => {
      if (!catalog) this.catalogs.delete(companyId);
      return catalog && deepFreeze(catalog);
    });
    this.catalogs.set(companyId, reading);
    reading.catch(() => this.catalogs.delete(companyId));
    return reading;
  }

  private balancesOf(companyId: number): Promise<CompanyBalances | undefined> {
    const cached = this.balances.get(companyId);
    if (cached) {
      this.budget.hit(companyId);
      return cached;
    }
    this.budget.miss(companyId);
    const loadsAtStart = this.loads;
    const building = this.budget.building((reserve) =>
      this.readers.run((conn) => readBalances(conn, companyId, this.budget.times, reserve)),
    );
    this.balances.set(companyId, building);
    const catalog = this.getCatalog(companyId).catch(() => undefined);
    void Promise.all([building, catalog]).then(
      ([built, catalogRead]) => {
        if (built && this.loads === loadsAtStart && this.balances.get(companyId) === building) {
          this.builtBalances.set(companyId, built);
          this.budget.hold(companyId, built.estimatedBytes() + objectBytes(catalogRead));
        } else if (this.balances.get(companyId) === building) this.balances.delete(companyId);
      },
      () => {
        if (this.balances.get(companyId) === building) this.balances.delete(companyId);
      },
    );
    return building;
  }

  private tagSetsOf(companyId: number): Promise<{ id: number; optionIds: string[] }[]> {
    let cached = this.tagSets.get(companyId);
    if (!cached) {
      cached = this.read((s) => readTagSets(s, companyId));
      this.tagSets.set(companyId, cached);
      cached.catch(() => this.tagSets.delete(companyId));
    }
    return cached;
  }

  /**
   * From the in-memory pre-aggregates (the same figures as the SQL over balance_monthly/balance_daily; see the contract
   * test).
   */
  async sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    checkRange(query);
    this.budget.summed();
    // An index evicted (and released) while this report waited for it is read again, once; then SQL answers.
    for (let attempt = 0; attempt < 2; attempt++) {
      const [catalog, balances, tagSets] = await Promise.all([
        this.getCatalog(query.companyId),
        this.balancesOf(query.companyId),
        isFiltered(query) ? this.tagSetsOf(query.companyId) : undefined,
      ]);
      if (!catalog) return [];
      if (!balances) break;
      if (!balances.released) return sumFromIndex(balances, catalog, tagSets, query);
    }
    return this.sumPnlBySql(query);
  }

  /** The same figures by SQL over the pre-aggregate tables (balance_monthly + balance_daily). */
  sumPnlBySql(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.read((s) => sumPnl(s, query));
  }

  /**
   * A DuckDB file has one writer, this process; a load (an import handed over by `npm run import`, see
   * ops/key-admin-socket.ts) changes the catalogs and the in-memory sums in one synchronous step after its COMMIT.
   * A read that a load overtook between its steps is run again; after two such tries it runs in the write queue,
   * where no load can overtake it. The signal is checked between the steps, so a request that timed out stops
   * before its next one.
   */
  async readSnapshot<T>(read: (view: LedgerView) => Promise<T>, { signal }: ReadOptions = {}): Promise<T> {
    const checked = async <R>(work: () => Promise<R>): Promise<R> => {
      signal?.throwIfAborted();
      const result = await work();
      signal?.throwIfAborted();
      return result;
    };
    const view: LedgerView = {
      getCatalog: (companyId) => checked(() => this.getCatalog(companyId)),
      sumPnlByAccountMonth: (query) => checked(() => this.sumPnlByAccountMonth(query)),
      ledgerVersion: (companyId) => Promise.resolve(this.versions.of(companyId)),
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      const loadsAtStart = this.loads;
      const result = await read(view);
      if (this.loads === loadsAtStart) return result;
    }
    return this.writeQueue.run(() => read(view));
  }

  /** Reference implementation: the same figures by a direct scan of journal lines (slow; for tests and checks). */
  scanPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.read((s) => scanPnl(s, query));
  }

  async load(batch: LedgerBatch): Promise<void> {
    await this.loadSerially(batch, false);
  }

  /** Loads are serial (one writer queue), so the emptiness check and the load cannot interleave with another load. */
  loadIfEmpty(batch: LedgerBatch): Promise<boolean> {
    return this.loadSerially(batch, true);
  }

  private async loadSerially(batch: LedgerBatch, onlyIfEmpty: boolean): Promise<boolean> {
    let staged: Staging | undefined;
    let loaded = false;
    try {
      loaded = await this.write(async (s) => {
        if (onlyIfEmpty && (await s.query('SELECT 1 AS x FROM companies LIMIT 1')).length > 0) return false;
        await repairSnapshots(s, this.writer);
        await loadBatch(
          s,
          'duckdb',
          batch,
          (_s, staging) => writeStaging(this.writer, (staged = staging)),
          this.writeSnapshots,
        );
        return true;
      }, this.loadSettings);
    } finally {
      // Replaced entries left the pre-aggregates in SQL: their companies' indexes are read again rather than patched.
      const replaced = loaded && staged && batch.replaceEntries === true ? new Set(staged.entries.companyId) : [];
      this.afterLoad(loaded ? staged : undefined, replaced);
    }
    return loaded;
  }

  /**
   * A journal CSV file (an import): read by DuckDB and loaded by SQL (journal-import-sql.ts), in the write queue. Its
   * company's index is read again from its month snapshots on its next report (the lines never were in memory).
   */
  async loadJournal(load: JournalLoad): Promise<number> {
    let loaded = 0;
    try {
      loaded = await refusedInFileOrder(this.writer, (reader) =>
        this.write(async (s) => {
          await repairSnapshots(s, this.writer);
          return loadJournal(s, load, reader, this.writeSnapshots);
        }, this.importSettings),
      );
    } finally {
      this.afterLoad(undefined, [load.companyId]);
    }
    return loaded;
  }

  /**
   * Brings the in-memory caches in step with a load: committed lines join the built indexes; the rest, and the
   * companies named in `reread`, are read again.
   */
  private afterLoad(staged: Staging | undefined, reread: Iterable<number> = []): void {
    this.loads++;
    this.versions.loaded();
    this.catalogs.clear();
    this.tagSets.clear();
    for (const companyId of reread) {
      this.builtBalances.delete(companyId);
      this.budget.release(companyId);
    }
    for (const companyId of this.balances.keys()) {
      if (!this.builtBalances.has(companyId)) this.balances.delete(companyId);
    }
    if (!staged) return;
    for (const companyId of addPostedLines(staged.lines, this.builtBalances))
      this.budget.resize(companyId, this.builtBalances.get(companyId)!.estimatedBytes());
  }

  linkSecret(): Promise<string> {
    return this.writeQueue.run(() => getOrCreateSetting(session(this.writer), LINK_SECRET_KEY, newLinkSecret()));
  }

  pnlSpan(companyId: number): Promise<{ first: string; last: string } | undefined> {
    return this.read((s) => pnlSpan(s, companyId));
  }

  storedCatalog(companyId: number): Promise<CompanyCatalog | undefined> {
    return this.read((s) => readCatalog(s, companyId));
  }

  listCompanies(): Promise<Company[]> {
    return this.read((s) => keys.listCompanies(s));
  }

  /** One transaction in the write queue, under `settings` when given (a load's, an import's; settings.ts). */
  private write<T>(fn: (s: SqlSession) => Promise<T>, settings?: Record<string, string>): Promise<T> {
    return this.writeQueue.run(() => {
      const s = session(this.writer);
      const transaction = () => inTransaction(s, () => fn(s), 'BEGIN TRANSACTION');
      return settings ? underSettings(this.writer, settings, transaction) : transaction();
    });
  }

  createApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    return this.write((s) => keys.insertApiKey(s, key)).finally(() => this.apiKeys.forget());
  }

  createFirstApiKey(key: NewApiKey): Promise<ApiKeyRecord | undefined> {
    return this.write(async (s) => ((await keys.hasApiKeys(s)) ? undefined : keys.insertApiKey(s, key))).finally(() =>
      this.apiKeys.forget(),
    );
  }

  /** Found keys are kept (until a key is created or revoked); unknown hashes are always looked up, never kept. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.apiKeys.find(keyHash, () => this.read((s) => keys.findApiKeyByHash(s, keyHash)));
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.read((s) => keys.listApiKeys(s));
  }

  revokeApiKey(id: number): Promise<boolean> {
    return this.write((s) => keys.revokeApiKey(s, id)).finally(() => this.apiKeys.forget());
  }

  /** Reads up to `companies` companies' indexes, stopping when the index budget is full. */
  async preload(companies = Number.POSITIVE_INFINITY): Promise<void> {
    for (const company of (await this.listCompanies()).slice(0, companies)) {
      if (this.budget.full()) return;
      await this.balancesOf(company.id);
    }
  }

  indexStats(): IndexStats {
    return this.budget.stats();
  }

  /** Bytes of the in-memory pre-aggregates built so far (benchmarks). */
  indexBytes(): number {
    let bytes = 0;
    for (const balances of this.builtBalances.values()) bytes += balances.byteSize();
    return bytes;
  }

  /** DuckDB's accounted memory and its memory_limit (settings.ts), for the benchmarks and tests. */
  async engineMemory(): Promise<{ usedBytes: number; limit: string }> {
    const [row] = await this.read((s) => s.query(ENGINE_MEMORY_SQL));
    return { usedBytes: Number(row?.b ?? 0), limit: String(row?.l) };
  }

  async ping(): Promise<void> {
    await this.read((s) => s.query('SELECT 1'));
  }

  /**
   * Waits for running statements, then closes every handle. Before the process exits (SIGTERM) it checkpoints
   * instead and leaves the handles open: results of earlier queries are freed by finalizers, and the bindings'
   * exit-time finalizers of results that outlive an explicitly closed instance crash the process (SIGSEGV, SIGABRT
   * or a hang were seen under load). The checkpoint writes every committed change into the database file.
   */
  async close(options: { beforeExit?: boolean } = {}): Promise<void> {
    if (options.beforeExit) {
      await this.writeQueue.run(() => session(this.writer).query('CHECKPOINT'));
      return;
    }
    await this.writeQueue.run(async () => undefined);
    await this.readers.close();
    this.writer.closeSync();
    this.instance.closeSync();
    // The indexes' memory goes back now, not at V8's next collection of a store no longer used.
    for (const balances of this.builtBalances.values()) balances.release();
    this.builtBalances.clear();
    this.balances.clear();
    this.budget.clear();
  }
}
