/** A validated batch's stage tables written by DuckDB's appender, column by column in chunks. */
import {
  BIGINT,
  BOOLEAN,
  DATE,
  type DuckDBConnection,
  DuckDBDataChunk,
  type DuckDBDateValue,
  type DuckDBType,
  type DuckDBValue,
  INTEGER,
  VARCHAR,
  dateValue,
} from '@duckdb/node-api';
import { isoEpochDay } from '../../scalars/dates.ts';
import { STAGE_DDL } from '../sql/schema.ts';
import type { Staging } from '../sql/session.ts';
import { session } from './connections.ts';

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

export async function writeStaging(conn: DuckDBConnection, st: Staging): Promise<void> {
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
