/** The store's DuckDB connections: one task at a time on each, a pool of readers, and the SQL session over one. */
import {
  BIGINT,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
} from '@duckdb/node-api';
import type { SqlParam, SqlRow, SqlSession } from '../sql/session.ts';

/** Runs one task at a time on a connection (DuckDB connections are not meant for interleaved statements). */
export class Serial {
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
export class ReaderPool {
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

/** Read connections per store: enough to overlap requests on a small machine without oversubscribing it. */
export const READ_CONNECTIONS = 4;

/**
 * The SQL session over one connection. A reader's results are streamed: DuckDB hands over each chunk as it is made
 * instead of first copying the whole result into a materialized one. Both live in native memory that
 * `@duckdb/node-api` frees only when the JavaScript objects holding them are collected (docs/scaling.md, "Where the
 * memory goes"), so a reader keeps no second copy. The writer's statements (DDL, loads, transactions) stay
 * materialized.
 */
export function session(conn: DuckDBConnection, { streamed = false } = {}): SqlSession {
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
      const reader = await (streamed
        ? conn.streamAndReadAll(sql, values, types as DuckDBType[])
        : conn.runAndReadAll(sql, values, types as DuckDBType[]));
      return reader.getRowObjectsJS() as SqlRow[];
    },
  };
}
