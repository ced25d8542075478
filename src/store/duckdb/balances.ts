/** A company's index read from DuckDB's balance_snapshots, and those snapshots written (month-snapshots-sql.ts). */
import { BLOB, blobValue, type DuckDBBlobValue, type DuckDBConnection, INTEGER, VARCHAR } from '@duckdb/node-api';
import { CompanyBalances } from '../memory/balance-index.ts';
import type { BuildTimes } from '../memory/index-budget.ts';
import { SNAPSHOT_VERSION, addMonthSnapshot, encodeMonthSnapshot } from '../memory/month-snapshot.ts';
import type { LoadChange } from '../sql/load-sql.ts';
import * as snapshots from '../sql/month-snapshots-sql.ts';
import type { SqlSession } from '../sql/session.ts';

/**
 * A company's index from its month snapshots, in one query; undefined when some daily sum is beyond 2^53 cents (such
 * a company is answered by SQL, which reports the unsafe amount).
 */
export async function readBalances(
  conn: DuckDBConnection,
  companyId: number,
  times: BuildTimes,
): Promise<CompanyBalances | undefined> {
  const started = performance.now();
  // Streamed (connections.ts): no materialized copy of the snapshots beside the chunks.
  const reader = await conn.streamAndReadAll(snapshots.COMPANY_SNAPSHOTS_SQL, [companyId], [INTEGER]);
  const months = reader.getRows() as [number, DuckDBBlobValue][];
  const read = performance.now();
  times.readMs += read - started;
  const balances = new CompanyBalances();
  const exact = months.every(([month, snapshot]) => addMonthSnapshot(balances, month, snapshot.bytes));
  balances.compact();
  times.indexMs += performance.now() - read;
  return exact ? balances : undefined;
}

/** Writes one company-month's snapshot on `conn` (the writer, inside the load's transaction). */
function snapshotWriter(conn: DuckDBConnection): snapshots.SnapshotWrite {
  return async (companyId, month, params) => {
    const sums = await conn.runAndReadAll(snapshots.MONTH_SUMS_SQL, params, [INTEGER, VARCHAR, VARCHAR]);
    const rows = sums.currentRowCount;
    const snapshot = encodeMonthSnapshot(rows === 0 ? [] : (sums.getColumns() as number[][]), rows);
    await conn.run(
      'DELETE FROM balance_snapshots WHERE company_id = $1 AND month = $2',
      [companyId, month],
      [INTEGER, INTEGER],
    );
    await conn.run(
      'INSERT INTO balance_snapshots VALUES ($1, $2, $3)',
      [companyId, month, blobValue(snapshot)],
      [INTEGER, INTEGER, BLOB],
    );
  };
}

/** The ChangeRecorder step of a load on the writer `conn`: the snapshots of the months it changed. */
export async function writeLoadSnapshots(s: SqlSession, change: LoadChange, conn: DuckDBConnection): Promise<void> {
  if (change.hasDelta) await snapshots.writeLoadSnapshots(s, snapshotWriter(conn));
}

/** balance_snapshots complete and in this layout (migrate(), in a transaction on the writer `conn`). */
export function ensureSnapshots(s: SqlSession, conn: DuckDBConnection): Promise<void> {
  return snapshots.ensureSnapshots(s, 'duckdb', SNAPSHOT_VERSION, snapshotWriter(conn));
}
