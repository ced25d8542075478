/** LedgerStore over DuckDB (embedded; a file path or ':memory:'). */
import {
  BIGINT, BOOLEAN, DATE, DuckDBConnection, DuckDBDataChunk, DuckDBInstance, INTEGER, LIST, VARCHAR,
  dateValue, listValue, type DuckDBDateValue, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import { readCatalog } from './catalog-sql.ts';
import { isoEpochDay } from '../scalars/dates.ts';
import * as keys from './api-key-sql.ts';
import type {
  AccountMonthTotal, ApiKeyRecord, Company, CompanyCatalog, LedgerBatch, LedgerStore, NewApiKey, PnlQuery,
} from './ledger-store.ts';
import { loadBatch } from './load-sql.ts';
import { scanPnl, sumPnl } from './pnl-sql.ts';
import { STAGE_DDL, schemaStatements } from './schema.ts';
import { getOrCreateSetting, LINK_SECRET_KEY, newLinkSecret } from './settings-sql.ts';
import type { SqlParam, SqlRow, SqlSession, Staging } from './sql-session.ts';

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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

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
        }
        else if (typeof p === 'number' && Number.isInteger(p)) { values.push(BigInt(p)); types.push(BIGINT); }
        else { values.push(p as DuckDBValue); types.push(undefined); }
      }
      const reader = await conn.runAndReadAll(sql, values, types as DuckDBType[]);
      return reader.getRowObjectsJS() as SqlRow[];
    },
  };
}

const CHUNK = 2048;

async function appendColumns(conn: DuckDBConnection, table: string, types: DuckDBType[], columns: DuckDBValue[][]): Promise<void> {
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

async function writeStaging(conn: DuckDBConnection, st: Staging): Promise<void> {
  const s = session(conn);
  for (const ddl of STAGE_DDL) await s.query(ddl);
  const dates = new Map<string, DuckDBDateValue>();
  const date = (d: string) => {
    let v = dates.get(d);
    if (!v) dates.set(d, (v = dateValue(isoEpochDay(d))));
    return v;
  };
  const big = (a: number[]) => a.map((v) => BigInt(v));
  const E = st.entries, L = st.lines, O = st.options;
  await appendColumns(conn, 'stage_entries', [BIGINT, INTEGER, INTEGER, DATE, VARCHAR, BOOLEAN],
    [big(E.id), E.companyId, E.locationId, E.date.map(date), E.memo, E.posted]);
  await appendColumns(conn, 'stage_lines', [BIGINT, BIGINT, INTEGER, INTEGER, INTEGER, INTEGER, DATE, BOOLEAN, BIGINT],
    [big(L.id), big(L.entryId), L.companyId, L.locationId, L.accountId, L.tagSetId, L.date.map(date), L.posted, big(L.cents)]);
  await appendColumns(conn, 'stage_line_options', [BIGINT, VARCHAR], [big(O.lineId), O.optionId]);
}

export class DuckDbLedgerStore implements LedgerStore {
  readonly kind = 'duckdb' as const;
  private readonly writeQueue = new Serial();
  private readonly catalogs = new Map<number, Promise<CompanyCatalog | undefined>>();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly readers: ReaderPool,
    private readonly writer: DuckDBConnection,
  ) {}

  static async open(path: string): Promise<DuckDbLedgerStore> {
    const instance = await DuckDBInstance.create(path);
    const readers = await Promise.all(Array.from({ length: READ_CONNECTIONS }, () => instance.connect()));
    return new DuckDbLedgerStore(instance, new ReaderPool(readers), await instance.connect());
  }

  private read<T>(fn: (s: SqlSession) => Promise<T>): Promise<T> {
    return this.readers.run((connection) => fn(session(connection)));
  }

  async migrate(): Promise<void> {
    await this.writeQueue.run(async () => {
      const s = session(this.writer);
      for (const ddl of schemaStatements('duckdb')) await s.query(ddl);
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

  sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.read((s) => sumPnl(s, query));
  }

  /** Reference implementation: the same figures by a direct scan of journal lines (slow; for tests and checks). */
  scanPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]> {
    return this.read((s) => scanPnl(s, query));
  }

  async load(batch: LedgerBatch): Promise<void> {
    await this.write((s) => loadBatch(s, batch, (_s, staging) => writeStaging(this.writer, staging)));
    this.catalogs.clear();
  }

  linkSecret(): Promise<string> {
    return this.writeQueue.run(() => getOrCreateSetting(session(this.writer), LINK_SECRET_KEY, newLinkSecret()));
  }

  listCompanies(): Promise<Company[]> {
    return this.read((s) => keys.listCompanies(s));
  }

  private write<T>(fn: (s: SqlSession) => Promise<T>): Promise<T> {
    return this.writeQueue.run(async () => {
      const s = session(this.writer);
      await s.query('BEGIN TRANSACTION');
      try {
        const result = await fn(s);
        await s.query('COMMIT');
        return result;
      } catch (err) {
        await s.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  createApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    return this.write((s) => keys.insertApiKey(s, key));
  }

  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.read((s) => keys.findApiKeyByHash(s, keyHash));
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.read((s) => keys.listApiKeys(s));
  }

  revokeApiKey(id: number): Promise<boolean> {
    return this.write((s) => keys.revokeApiKey(s, id));
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
