/** LedgerStore over DuckDB (embedded; a file path or ':memory:'). */
import {
  BIGINT,
  BOOLEAN,
  DATE,
  DuckDBDataChunk,
  DuckDBInstance,
  INTEGER,
  LIST,
  VARCHAR,
  dateValue,
  listValue,
  type DuckDBConnection,
  type DuckDBDateValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { CompanyBalances } from '../memory/balance-index.ts';
import { deepFreeze } from '../memory/deep-freeze.ts';
import { FoundApiKeys } from '../memory/found-api-keys.ts';
import { readCatalog } from '../sql/catalog-sql.ts';
import { isoEpochDay } from '../../scalars/dates.ts';
import * as keys from '../sql/api-key-sql.ts';
import type { AccountMonthTotal, Company, CompanyCatalog, LedgerBatch, PnlQuery } from '../../domain/ledger.ts';
import type { ApiKeyRecord, NewApiKey } from '../ledger/api-keys.ts';
import type { JournalLoad } from '../ledger/writer.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import type { LedgerView, ReadOptions } from '../ledger/reader.ts';
import { loadJournal } from '../sql/journal-import-sql.ts';
import type { JournalReader } from '../sql/journal-import/rows.ts';
import { loadBatch } from '../sql/load-sql.ts';
import { pnlSpan, readTagSets, scanPnl, sumPnl } from '../sql/pnl-sql.ts';
import { DUCKDB_KEYED_BALANCE_TABLES, STAGE_DDL, duckdbBalanceKeyMigration, schemaStatements } from '../sql/schema.ts';
import { getOrCreateSetting, LINK_SECRET_KEY, newLinkSecret } from '../sql/settings-sql.ts';
import { JournalLineError } from '../ledger/errors.ts';
import { inTransaction, type SqlParam, type SqlRow, type SqlSession, type Staging } from '../sql/session.ts';
import { checkRange, isFiltered, sumFromIndex } from '../memory/index-sums.ts';
import { defaultIndexMemoryMb, IndexBudget, objectBytes, type BuildTimes } from '../memory/index-budget.ts';
import type { IndexStats } from '../ledger/lifecycle.ts';

/** Runs one task at a time on a connection (DuckDB connections are not meant for interleaved statements). */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * Read connections of one instance: DuckDB runs statements of different connections in parallel, so concurrent
 * report requests do not queue behind one another. Each task goes to the connection with the fewest waiting.
 */
class ReaderPool {
  private readonly slots: { connection: DuckDBConnection; queue: Serial; waiting: number }[];
  constructor(connections: DuckDBConnection[]) {
    this.slots = connections.map((connection) => ({ connection, queue: new Serial(), waiting: 0 }));
  }

  run<T>(task: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const slot = this.slots.reduce((best, s) => (s.waiting < best.waiting ? s : best));
    slot.waiting++;
    return slot.queue.run(() => task(slot.connection)).finally(() => slot.waiting--);
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.queue.run(async () => undefined)));
    for (const s of this.slots) s.connection.closeSync();
  }
}

/**
 * DuckDB's settings while a journal is imported (restored after it): with the process's own memory, the import stays
 * under 500 MB of RSS whatever the file's size. Its memory is capped (`memory_limit`, a file store only: ':memory:' has
 * no disk to spill to), so its import tables, sorts and joins spill to disk instead of growing with the file. Its
 * allocator gives freed memory back as it goes (a flush after each task past 8 MB, purged by background threads)
 * instead of keeping up to 128 MB per thread: about 60 MiB less peak RSS at 1M entries.
 */
const IMPORT_SETTINGS = {
  memory_limit: '128MB',
  allocator_flush_threshold: '8MB',
  allocator_background_threads: 'true',
} as const;
/** DuckDB's memory cap while serving (a file store; ':memory:' holds its data in it and has no cap). */
const SERVING_MEMORY_LIMIT = '128MB';
/** Settings an import may change as it goes (journalReader), restored after it with the others. */
const IMPORT_CHANGES = ['preserve_insertion_order'] as const;

/** The import's settings for a store at `path`. */
function importSettings(path: string): Record<string, string> {
  const { memory_limit: cap, ...allocator } = IMPORT_SETTINGS;
  return path === ':memory:' ? allocator : { memory_limit: cap, ...allocator };
}

const settingLiteral = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;

/** Read connections per store: enough to overlap requests on a small machine without oversubscribing it. */
const READ_CONNECTIONS = 4;

function session(conn: DuckDBConnection): SqlSession {
  return {
    async query(sql: string, params: readonly SqlParam[] = []): Promise<SqlRow[]> {
      const values: DuckDBValue[] = [];
      const types: (DuckDBType | undefined)[] = [];
      for (const p of params) {
        if (Array.isArray(p)) {
          values.push(listValue(p as DuckDBValue[]));
          types.push(typeof p[0] === 'string' ? LIST(VARCHAR) : LIST(INTEGER));
        } else if (typeof p === 'number' && Number.isInteger(p)) {
          values.push(BigInt(p));
          types.push(BIGINT);
        } else {
          values.push(p as DuckDBValue);
          types.push(undefined);
        }
      }
      const reader = await conn.runAndReadAll(sql, values, types as DuckDBType[]);
      return reader.getRowObjectsJS() as SqlRow[];
    },
  };
}

const CHUNK = 2048;

async function appendColumns(
  conn: DuckDBConnection,
  table: string,
  types: DuckDBType[],
  columns: DuckDBValue[][],
): Promise<void> {
  const appender = await conn.createAppender(table);
  const rows = columns[0]?.length ?? 0;
  for (let off = 0; off < rows; off += CHUNK) {
    const n = Math.min(CHUNK, rows - off);
    const chunk = DuckDBDataChunk.create(types, n);
    columns.forEach((col, i) => chunk.setColumnValues(i, col.slice(off, off + n)));
    appender.appendDataChunk(chunk);
  }
  appender.closeSync();
}

/** `YYYY-MM-DD` → DuckDB DATE, each distinct date converted once. */
function dateCache(): (d: string) => DuckDBDateValue {
  const dates = new Map<string, DuckDBDateValue>();
  return (d) => {
    let v = dates.get(d);
    if (!v) dates.set(d, (v = dateValue(isoEpochDay(d))));
    return v;
  };
}

const bigints = (a: number[]) => a.map((v) => BigInt(v));

async function writeStaging(conn: DuckDBConnection, st: Staging): Promise<void> {
  const s = session(conn);
  for (const ddl of STAGE_DDL) await s.query(ddl);
  const date = dateCache();
  const big = bigints;
  const E = st.entries,
    L = st.lines;
  await appendColumns(
    conn,
    'stage_entries',
    [BIGINT, INTEGER, INTEGER, DATE, VARCHAR, BOOLEAN, VARCHAR],
    [big(E.id), E.companyId, E.locationId, E.date.map(date), E.memo, E.posted, E.ref],
  );
  await appendColumns(
    conn,
    'stage_lines',
    [BIGINT, BIGINT, INTEGER, INTEGER, INTEGER, INTEGER, DATE, BOOLEAN, BIGINT],
    [
      big(L.id),
      big(L.entryId),
      L.companyId,
      L.locationId,
      L.accountId,
      L.tagSetId,
      L.date.map(date),
      L.posted,
      big(L.cents),
    ],
  );
}

/**
 * DuckDB reads the journal file itself (read_csv: every cell as text, the options set, no sniffing), straight into
 * import_rows (journal-import-sql.ts), in the file's order (insertion order is kept), so a row's rowid gives its
 * ordinal. It tells no share of the file read: DuckDB's query progress stays unknown (-1) for this statement.
 */
function journalReader(conn: DuckDBConnection): JournalReader {
  return {
    dialect: 'duckdb',
    async read(journal, createRows) {
      const columns = Array.from({ length: journal.width }, (_, i) => `'c${i}': 'VARCHAR'`).join(', ');
      const path = `'${journal.path.replace(/'/g, "''")}'`;
      try {
        await conn.run(
          createRows(`read_csv(${path}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
          columns = {${columns}}, strict_mode = true, null_padding = false)`),
        );
      } catch (err) {
        throw malformedCsv(err) ?? err;
      }
      // Rows written in this transaction are numbered from a base of DuckDB's (not 0), contiguously in insertion order.
      const [base] = (
        await conn.runAndReadAll('SELECT CAST(COALESCE(MIN(rowid), 0) AS VARCHAR) AS b FROM import_rows')
      ).getRowObjectsJS();
      // Every later table is keyed, not read in order: without keeping it, DuckDB's inserts need far less memory.
      await conn.run('SET preserve_insertion_order = false');
      return { ordinal: `(rowid - ${BigInt(String(base?.b ?? 0))})` };
    },
  };
}

/** DuckDB's refusal of a malformed CSV row ("CSV Error on Line: N", the row, then the reason) as the import's own. */
function malformedCsv(err: unknown): JournalLineError | undefined {
  const message = String((err as Error | undefined)?.message ?? err);
  const line = /CSV Error on Line: (\d+)/.exec(message)?.[1];
  if (line === undefined) return undefined;
  const rest = message.split('\n');
  const reason = rest
    .slice(rest.findIndex((l) => l.startsWith('Original Line:')) + 1)
    .find((l) => l.trim() !== '')
    ?.trim();
  return new JournalLineError(Number(line), `malformed CSV: ${reason ?? 'the row cannot be read'}`);
}

/**
 * A company's balance_daily rows, read column by column into the in-memory index; undefined when some daily sum is
 * beyond 2^53 cents (such a company is answered by SQL, which reports the unsafe amount).
 */
async function readBalances(
  conn: DuckDBConnection,
  companyId: number,
  times: BuildTimes,
): Promise<CompanyBalances | undefined> {
  let at = performance.now();
  // Ordered so that consecutive rows share their month and cell: the index then looks each cell up once per month.
  const result = await conn.run(
    `SELECT CAST(year(day) * 12 + month(day) - 1 AS INTEGER) AS month_index, CAST(day(day) AS INTEGER) AS day_of_month,
            location_id, account_id, tag_set_id, CAST(cents AS DOUBLE) AS cents
       FROM balance_daily WHERE company_id = $1
      ORDER BY month_index, location_id, account_id, tag_set_id`,
    [companyId],
    [INTEGER],
  );
  const balances = new CompanyBalances();
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const columns = [0, 1, 2, 3, 4, 5].map((i) => chunk!.getColumnValues(i) as number[]);
    const read = performance.now();
    times.readMs += read - at;
    const exact = balances.addColumns(columns, chunk.rowCount);
    at = performance.now();
    times.indexMs += at - read;
    if (!exact) return undefined;
  }
  times.readMs += performance.now() - at;
  balances.compact();
  return balances;
}

export class DuckDbLedgerStore implements LedgerStore {
  readonly kind = 'duckdb' as const;
  private readonly writeQueue = new Serial();
  private readonly catalogs = new Map<number, Promise<CompanyCatalog | undefined>>();
  /**
   * The pre-aggregates in memory (balance-index.ts), per company: built from balance_daily on first use and kept in
   * step by every load of this process, the file's only writer. A build overtaken by a load is not kept. They fit the
   * index budget (index-budget.ts): the least recently used company is dropped, with its catalog and tag sets.
   */
  private readonly balances = new Map<number, Promise<CompanyBalances | undefined>>();
  private readonly builtBalances = new Map<number, CompanyBalances>();
  private loads = 0;
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
    budgetBytes: number,
  ) {
    this.budget = new IndexBudget(budgetBytes, (companyId) => {
      this.balances.delete(companyId);
      this.builtBalances.delete(companyId);
      this.catalogs.delete(companyId);
      this.tagSets.delete(companyId);
    });
  }

  static async open(path: string, options: { indexMemoryBytes?: number } = {}): Promise<DuckDbLedgerStore> {
    const instance = await DuckDBInstance.create(path);
    const readers = await Promise.all(Array.from({ length: READ_CONNECTIONS }, () => instance.connect()));
    const writer = await instance.connect();
    const budget = options.indexMemoryBytes ?? defaultIndexMemoryMb() * 2 ** 20;
    // A file's pages are cached by the OS: DuckDB's own buffer pool (80% of the machine's memory by default) is capped
    // while serving, so that an instance's memory is its index budget plus a bounded rest. A load (API batches, the
    // demo ledger) runs under DuckDB's default, which its staging needs; an import under IMPORT_SETTINGS (it spills).
    let loadSettings: Record<string, string> | undefined;
    if (path !== ':memory:') {
      const [row] = (
        await writer.runAndReadAll("SELECT CAST(current_setting('memory_limit') AS VARCHAR) AS m")
      ).getRowObjectsJS();
      loadSettings = { memory_limit: String(row!.m) };
      await writer.run(`SET memory_limit = '${SERVING_MEMORY_LIMIT}'`);
    }
    return new DuckDbLedgerStore(instance, new ReaderPool(readers), writer, importSettings(path), loadSettings, budget);
  }

  private read<T>(fn: (s: SqlSession) => Promise<T>): Promise<T> {
    return this.readers.run((connection) => fn(session(connection)));
  }

  async migrate(): Promise<void> {
    // One call for the whole schema: DuckDB runs the statements in turn, each prepared call would cost a round trip.
    await this.writeQueue.run(async () => {
      await this.writer.run(schemaStatements('duckdb').join(';\n'));
      const s = session(this.writer);
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
    const building = this.readers.run((conn) => readBalances(conn, companyId, this.budget.times));
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
    const [catalog, balances, tagSets] = await Promise.all([
      this.getCatalog(query.companyId),
      this.balancesOf(query.companyId),
      isFiltered(query) ? this.tagSetsOf(query.companyId) : undefined,
    ]);
    if (!catalog) return [];
    if (!balances) return this.sumPnlBySql(query);
    return sumFromIndex(balances, catalog, tagSets, query);
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
        await loadBatch(s, 'duckdb', batch, (_s, staging) => writeStaging(this.writer, (staged = staging)));
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
   * company's index is read again from balance_daily on its next report (the lines never were in memory).
   */
  async loadJournal(load: JournalLoad): Promise<number> {
    let loaded = 0;
    try {
      // DuckDB's memory is capped for the import: its import tables and joins spill to disk instead of growing with the
      // file.
      loaded = await this.write((s) => loadJournal(s, load, journalReader(this.writer)), this.importSettings);
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
    const L = staged.lines;
    const changed = new Set<number>();
    for (let i = 0; i < L.id.length; i++) {
      if (!L.posted[i]) continue;
      const balances = this.builtBalances.get(L.companyId[i]!);
      if (!balances) continue;
      balances.add(L.locationId[i]!, L.accountId[i]!, L.tagSetId[i]!, isoEpochDay(L.date[i]!), L.cents[i]!);
      changed.add(L.companyId[i]!);
    }
    for (const companyId of changed) this.budget.resize(companyId, this.builtBalances.get(companyId)!.estimatedBytes());
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

  /**
   * One transaction in the write queue, under `settings` when given (a load's, an import's). An import may also drop
   * insertion order once its rows are read (journalReader): every setting changed is restored after it.
   */
  private write<T>(fn: (s: SqlSession) => Promise<T>, settings?: Record<string, string>): Promise<T> {
    return this.writeQueue.run(async () => {
      const s = session(this.writer);
      if (!settings) return inTransaction(s, () => fn(s), 'BEGIN TRANSACTION');
      const changed = [...new Set([...Object.keys(settings), ...IMPORT_CHANGES])];
      const [saved] = await s.query(
        `SELECT ${changed.map((n) => `CAST(current_setting('${n}') AS VARCHAR) AS ${n}`).join(', ')}`,
      );
      for (const [name, value] of Object.entries(settings))
        await this.writer.run(`SET ${name} = ${settingLiteral(value)}`);
      try {
        return await inTransaction(s, () => fn(s), 'BEGIN TRANSACTION');
      } finally {
        for (const name of changed) await this.writer.run(`SET ${name} = ${settingLiteral(saved?.[name])}`);
      }
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
  }
}
