/**
 * LedgerStore over PostgreSQL (node-postgres Pool from a connection string). Reports are answered from memory: each
 * instance follows the companies it reports on (followed-companies.ts), kept current by the shared change log and
 * LISTEN/NOTIFY (change-log-sql.ts, change-feed.ts).
 */
import pg from 'pg';
import type { AccountMonthTotal, Company, CompanyCatalog, LedgerBatch, PnlQuery } from '../../domain/ledger.ts';
import type { ApiKeyRecord, NewApiKey } from '../ledger/api-keys.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import type { IndexStats } from '../ledger/lifecycle.ts';
import type { LedgerView, ReadOptions } from '../ledger/reader.ts';
import type { JournalLoad } from '../ledger/writer.ts';
import { IndexReleased } from '../memory/balance-index.ts';
import { deepFreeze } from '../memory/deep-freeze.ts';
import { FoundApiKeys } from '../memory/found-api-keys.ts';
import { indexMemoryOf } from '../memory/index-budget.ts';
import { checkRange, isFiltered, sumFromIndex } from '../memory/index-sums.ts';
import * as keys from '../sql/api-key-sql.ts';
import { readCatalog } from '../sql/catalog-sql.ts';
import { loadJournal } from '../sql/journal-import-sql.ts';
import { type ChangeRecorder, loadBatch } from '../sql/load-sql.ts';
import { SNAPSHOT_VERSION } from '../memory/month-snapshot.ts';
import { ensureSnapshots, repairSnapshots, writeLoadSnapshots } from '../sql/month-snapshots-sql.ts';
import { pnlSpan, scanPnl, sumPnl } from '../sql/pnl-sql.ts';
import { schemaStatements } from '../sql/schema.ts';
import { inTransaction } from '../sql/session.ts';
import { LINK_SECRET_KEY, getOrCreateSetting, newLinkSecret } from '../sql/settings-sql.ts';
import * as keyWrites from './api-key-writes.ts';
import { ChangeFeed } from './change-feed.ts';
import { recordChange } from './change-log-sql.ts';
import { mapPgError } from './errors.ts';
import { type CompanyState, FollowedCompanies } from './followed-companies.ts';
import { KeptCatalogs } from './kept-catalogs.ts';
import { snapshotWriter } from './packed-balances.ts';
import { journalReader } from './journal-reader.ts';
import { session } from './session.ts';
import { readInSnapshot } from './sql-snapshot.ts';
import { writeStaging } from './staging-writer.ts';

const MIGRATE_LOCK = 7_310_411; // advisory lock id serializing concurrent migrations
/** Serializes loads (id and tag-set allocation, the snapshots they rewrite) while leaving reads free. */
const LOAD_LOCK = 'LOCK TABLE journal_entries IN SHARE ROW EXCLUSIVE MODE';

/** A load's last steps: the snapshots of the months it changed, then its entry in the change log. */
const recordLoad =
  (client: pg.PoolClient): ChangeRecorder =>
  async (s, change) => {
    await writeLoadSnapshots(s, change.hasDelta, snapshotWriter(client));
    await recordChange(s, change);
  };

/**
 * A load's first steps: the load lock, then the snapshots of the companies an older tool's import left behind (none,
 * unless one wrote since the last load).
 */
async function lockLoad(client: pg.PoolClient): Promise<void> {
  await client.query(LOAD_LOCK);
  await repairSnapshots(session(client), snapshotWriter(client));
}

const IMPORT_WORK_MEM = '256MB';

/** The company's sums are beyond what memory holds exactly: the report is read by SQL. */
class NotInMemory extends Error {}

export class PostgresLedgerStore implements LedgerStore {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  /** Where reports read (DATABASE_READ_URL: a streaming standby), else the primary's pool. */
  private readonly readPool: pg.Pool;
  private readonly followed: FollowedCompanies;
  private readonly feed: ChangeFeed;
  private following = false;
  /** Found API keys, kept only while the feed is connected: a creation or revocation NOTIFYs every instance. */
  private readonly apiKeys = new FoundApiKeys();
  private readonly keptCatalogs = new KeptCatalogs();

  constructor(
    connectionString: string,
    options: {
      max?: number;
      connectionTimeoutMillis?: number;
      indexMemoryBytes?: number;
      rssHeadroomBytes?: number;
      readUrl?: string;
    } = {},
  ) {
    const poolOf = (url: string) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: options.max ?? 10,
        connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
        idleTimeoutMillis: 30_000,
      });
      // Idle clients die when the server goes away; the pool drops them and reconnects on the next checkout.
      pool.on('error', () => undefined);
      return pool;
    };
    this.pool = poolOf(connectionString);
    this.readPool = options.readUrl ? poolOf(options.readUrl) : this.pool;
    // Reports read from the read pool; the change feed, key lookups, imports and the change log stay on the primary
    // (a standby hears no NOTIFY and takes no writes).
    this.followed = new FollowedCompanies(
      (read) => this.transaction(read, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', this.readPool),
      indexMemoryOf(options),
    );
    this.feed = new ChangeFeed(
      connectionString,
      (seq) => {
        this.keptCatalogs.forget();
        this.followed.changed(seq);
      },
      () => {
        this.keptCatalogs.forget();
        this.apiKeys.forget();
      },
    );
  }

  /** The first report or key lookup starts listening for changes (a CLI that only loads or manages keys never does). */
  private follow(): void {
    if (this.following) return;
    this.following = true;
    this.feed.start();
  }

  /** The company's in-memory state. */
  private stateOf(companyId: number): Promise<CompanyState | undefined> {
    this.follow();
    return this.followed.state(companyId);
  }

  /** Runs fn on one pooled client; connection failures surface as StoreUnavailableError and the client is discarded. */
  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>, pool = this.pool): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw mapPgError(err);
    }
    let broken: Error | undefined;
    // The server may end the connection between two statements (shutdown, pg_terminate_backend): node-postgres then
    // emits 'error' on the checked-out client, which the pool listens for only while the client is idle.
    const lost = (err: Error) => void (broken ??= err);
    client.on('error', lost);
    try {
      return await fn(client);
    } catch (err) {
      const mapped = mapPgError(err);
      if (mapped !== err) broken ??= err as Error;
      throw mapped;
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  private async transaction<T>(
    fn: (client: pg.PoolClient) => Promise<T>,
    begin = 'BEGIN',
    pool = this.pool,
  ): Promise<T> {
    return this.withClient((client) => inTransaction(session(client), () => fn(client), begin), pool);
  }

  async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
      // The snapshots' fill reads balance_daily: under the load lock, taken before the schema's locks (as a load takes
      // it before its others), an import commits before the fill reads or starts after it has committed.
      const ledger = await client.query("SELECT to_regclass('journal_entries') IS NOT NULL AS exists");
      if (ledger.rows[0]?.exists === true) await client.query(LOAD_LOCK);
      for (const ddl of schemaStatements('postgres')) await client.query(ddl);
      await ensureSnapshots(session(client), 'postgres', SNAPSHOT_VERSION, snapshotWriter(client));
    });
  }

  async isEmpty(): Promise<boolean> {
    return this.withClient(async (c) => (await c.query('SELECT 1 FROM companies LIMIT 1')).rowCount === 0);
  }

  /**
   * The catalog of a followed company from memory; of another one (echo names a key's first company) by SQL, kept
   * until this instance hears of the next change, without building the company's index.
   */
  async getCatalog(companyId: number): Promise<CompanyCatalog | undefined> {
    const held = this.followed.held(companyId);
    if (held) return held.catalog;
    this.follow();
    const read = () =>
      this.withClient((c) => readCatalog(session(c), companyId), this.readPool).then((c) => c && deepFreeze(c));
    return this.feed.connected ? this.keptCatalogs.get(companyId, read) : read();
  }

  /**
   * From the in-memory pre-aggregates (the same figures as the SQL over balance_monthly/balance_daily; see the contract
   * test).
   */
  async sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    checkRange(query);
    this.followed.summed();
    const state = await this.stateOf(query.companyId);
    if (!state) return [];
    // Evicted (its memory given back) while this report waited: SQL answers.
    if (!state.balances || state.balances.released) return this.sumPnlBySql(query);
    return sumFromIndex(state.balances, state.catalog, isFiltered(query) ? state.tagSets : undefined, query);
  }

  /** The same figures by SQL over the pre-aggregate tables (balance_monthly + balance_daily). */
  sumPnlBySql(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.withClient((c) => sumPnl(session(c), query));
  }

  /**
   * From memory: every step of the read uses the state of the company its first step found (a change makes a new
   * state, never alters one), so the catalog and the sums agree and an import is seen entirely or not at all. A
   * company whose sums memory cannot hold exactly is read in one SQL snapshot.
   */
  async readSnapshot<T>(read: (view: LedgerView) => Promise<T>, options: ReadOptions = {}): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    const pinned = new Map<number, Promise<CompanyState | undefined>>();
    const stateOf = async (companyId: number): Promise<CompanyState | undefined> => {
      let state = pinned.get(companyId);
      if (!state) pinned.set(companyId, (state = this.stateOf(companyId)));
      const found = await state;
      signal?.throwIfAborted();
      // No index (sums beyond 2^53), or evicted meanwhile (its memory given back): the read runs in SQL.
      if (found && (!found.balances || found.balances.released)) throw new NotInMemory();
      return found;
    };
    try {
      return await read({
        getCatalog: async (companyId) => (await stateOf(companyId))?.catalog,
        sumPnlByAccountMonth: async (query) => {
          checkRange(query);
          this.followed.summed();
          // Memory answers without I/O: one turn of the event loop per sum lets timers (a request's time-out) and
          // other requests in, as a database round trip did.
          await new Promise((resolve) => setImmediate(resolve));
          const state = await stateOf(query.companyId);
          return state
            ? sumFromIndex(state.balances!, state.catalog, isFiltered(query) ? state.tagSets : undefined, query)
            : [];
        },
        ledgerVersion: async (companyId) => `postgres:${(await stateOf(companyId))?.changed ?? 0}`,
      });
    } catch (err) {
      if (!(err instanceof NotInMemory || err instanceof IndexReleased)) throw err;
    }
    return this.readSqlSnapshot(read, options);
  }

  /** One REPEATABLE READ READ ONLY transaction on the read pool (sql-snapshot.ts). */
  private readSqlSnapshot<T>(read: (view: LedgerView) => Promise<T>, options: ReadOptions = {}): Promise<T> {
    options.signal?.throwIfAborted();
    const summed = () => this.followed.summed();
    return this.withClient((client) => readInSnapshot(client, this.readPool, read, options, summed), this.readPool);
  }

  /** Reference implementation: the same figures by a direct scan of journal lines (slow; for tests and checks). */
  scanPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.withClient((c) => scanPnl(session(c), query));
  }

  async load(batch: LedgerBatch): Promise<void> {
    await this.loadLocked(batch, false);
  }

  /**
   * The emptiness check runs after the load lock is granted, in the load's own READ COMMITTED transaction, so it
   * sees a concurrent seeder's committed rows: instances starting together on an empty database seed it once.
   */
  async loadIfEmpty(batch: LedgerBatch): Promise<boolean> {
    return this.loadLocked(batch, true);
  }

  /** A journal CSV file (an import), read by COPY and loaded by SQL under the load lock (journal-import-sql.ts). */
  async loadJournal(load: JournalLoad): Promise<number> {
    const loaded = await this.transaction(async (client) => {
      await lockLoad(client);
      // The import's joins, sums and sorts work on the whole journal (1M entries: 3M rows) in memory rather than in
      // batches spilled to disk (the server's memory, for this transaction only).
      await client.query(`SET LOCAL work_mem = '${IMPORT_WORK_MEM}'`);
      return loadJournal(session(client), load, journalReader(client), recordLoad(client));
    });
    await this.afterLoad(loaded > 0);
    return loaded;
  }

  /** Fresh statistics after a bulk load, and this instance's own reports in step with it (others hear by NOTIFY). */
  private async afterLoad(hadEntries: boolean): Promise<void> {
    // The planner uses the indexes of the pre-aggregates at once instead of waiting for autovacuum (a clipped range
    // otherwise scans balance_daily).
    if (hadEntries) await this.withClient((c) => c.query('ANALYZE balance_monthly, balance_daily, tag_sets'));
    this.keptCatalogs.forget();
    await this.followed.catchUp().catch(() => undefined);
  }

  private async loadLocked(batch: LedgerBatch, onlyIfEmpty: boolean): Promise<boolean> {
    const loaded = await this.transaction(async (client) => {
      await lockLoad(client);
      if (onlyIfEmpty && ((await client.query('SELECT 1 FROM companies LIMIT 1')).rowCount ?? 0) > 0) return false;
      await loadBatch(
        session(client),
        'postgres',
        batch,
        (_s, staging) => writeStaging(client, staging),
        recordLoad(client),
      );
      return true;
    });
    if (loaded) await this.afterLoad((batch.entries?.length ?? 0) > 0);
    return loaded;
  }

  linkSecret(): Promise<string> {
    return this.withClient((c) => getOrCreateSetting(session(c), LINK_SECRET_KEY, newLinkSecret()));
  }

  pnlSpan(companyId: number): Promise<{ first: string; last: string } | undefined> {
    return this.withClient((c) => pnlSpan(session(c), companyId));
  }

  storedCatalog(companyId: number): Promise<CompanyCatalog | undefined> {
    return this.withClient((c) => readCatalog(session(c), companyId));
  }

  listCompanies(): Promise<Company[]> {
    return this.withClient((c) => keys.listCompanies(session(c)));
  }

  async createApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    return (await this.insertKey(key, false))!;
  }

  createFirstApiKey(key: NewApiKey): Promise<ApiKeyRecord | undefined> {
    return this.insertKey(key, true);
  }

  private insertKey(key: NewApiKey, onlyIfNone: boolean): Promise<ApiKeyRecord | undefined> {
    return this.transaction((client) => keyWrites.insertApiKey(client, key, onlyIfNone)).finally(() =>
      this.apiKeys.forget(),
    );
  }

  /**
   * A found key is kept while the change feed is connected (every instance hears each creation and revocation at its
   * COMMIT and forgets what it kept); unknown hashes are always looked up, never kept.
   */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.follow();
    const lookup = () => this.withClient((c) => keys.findApiKeyByHash(session(c), keyHash));
    return this.feed.connected ? this.apiKeys.find(keyHash, lookup) : lookup();
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.withClient((c) => keys.listApiKeys(session(c)));
  }

  revokeApiKey(id: number): Promise<boolean> {
    return this.transaction((client) => keyWrites.revokeApiKey(client, id)).finally(() => this.apiKeys.forget());
  }

  /**
   * Reads up to `companies` companies into memory, stopping when the index budget is full (the server runs it in the
   * background once it is ready).
   */
  async preload(companies = Number.POSITIVE_INFINITY): Promise<void> {
    for (const company of (await this.listCompanies()).slice(0, companies)) {
      if (!this.followed.hasRoom()) return;
      await this.stateOf(company.id);
    }
  }

  indexStats(): IndexStats {
    return this.followed.stats();
  }

  /** Bytes of the in-memory pre-aggregates of the companies followed (benchmarks). */
  indexBytes(): number {
    return this.followed.indexBytes();
  }

  async ping(): Promise<void> {
    await this.withClient((c) => c.query('SELECT 1'));
  }

  async close(): Promise<void> {
    this.followed.close();
    this.apiKeys.forget();
    await this.feed.close();
    await this.pool.end();
    if (this.readPool !== this.pool) await this.readPool.end();
  }
}
