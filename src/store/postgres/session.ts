/** A node-postgres client as the shared store logic's SqlSession. */
import type pg from 'pg';
import type { SqlParam, SqlRow, SqlSession } from '../sql/session.ts';

export function session(client: pg.PoolClient): SqlSession {
  return {
    async query(sql: string, params: readonly SqlParam[] = []): Promise<SqlRow[]> {
      return (await client.query(sql, params as unknown[])).rows as SqlRow[];
    },
  };
}
