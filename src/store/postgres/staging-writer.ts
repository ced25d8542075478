/** A validated batch's stage tables written by multi-row INSERTs of column arrays (unnest), in slices. */
import type pg from 'pg';
import { STAGE_DDL } from '../sql/schema.ts';
import type { Staging } from '../sql/session.ts';

const STAGE_BATCH = 20_000;

async function insertColumns(
  client: pg.PoolClient,
  table: string,
  casts: string[],
  columns: unknown[][],
): Promise<void> {
  const rows = columns[0]?.length ?? 0;
  const sql = `INSERT INTO ${table} SELECT * FROM unnest(${casts.map((c, i) => `$${i + 1}::${c}[]`).join(', ')})`;
  for (let off = 0; off < rows; off += STAGE_BATCH) {
    await client.query(
      sql,
      columns.map((col) => col.slice(off, off + STAGE_BATCH)),
    );
  }
}

export async function writeStaging(client: pg.PoolClient, st: Staging): Promise<void> {
  for (const ddl of STAGE_DDL) await client.query(ddl);
  const E = st.entries,
    L = st.lines;
  await insertColumns(
    client,
    'stage_entries',
    ['bigint', 'int', 'int', 'date', 'text', 'boolean', 'text'],
    [E.id, E.companyId, E.locationId, E.date, E.memo, E.posted, E.ref],
  );
  await insertColumns(
    client,
    'stage_lines',
    ['bigint', 'bigint', 'int', 'int', 'int', 'int', 'date', 'boolean', 'bigint'],
    [L.id, L.entryId, L.companyId, L.locationId, L.accountId, L.tagSetId, L.date, L.posted, L.cents],
  );
}
