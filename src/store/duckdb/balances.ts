/** A company's index read from DuckDB's balance_snapshots, and those snapshots written (month-snapshots-sql.ts). */
import { BLOB, blobValue, type DuckDBBlobValue, type DuckDBConnection, INTEGER, VARCHAR } from '@duckdb/node-api';
import { CompanyBalances } from '../memory/balance-index.ts';
import type { BuildTimes, ReserveBuild } from '../memory/index-budget.ts';
import { SNAPSHOT_VERSION, balancesFromSnapshots, encodeMonthSnapshot } from '../memory/month-snapshot.ts';
import * as snapshots from '../sql/month-snapshots-sql.ts';
import type { SqlSession } from '../sql/session.ts';

/** A company's balance_daily as columns: month index, day of month, location, account, tag set, cents. */
const COMPANY_DAILY_SQL = `SELECT CAST(year(day) * 12 + month(day) - 1 AS INTEGER), CAST(day(day) AS INTEGER),
    location_id, account_id, tag_set_id, CAST(cents AS DOUBLE)
  FROM balance_daily WHERE company_id = $1`;

/**
 * A company's index from its month snapshots, in one query, or from its balance_daily rows when the snapshots are
 * behind its ledger (an older tool's import); undefined when some daily sum is beyond 2^53 cents (such a company is
 * answered by SQL, which reports the unsafe amount). `reserve` is told the snapshots' index size before it is made.
 */
export async function readBalances(
  conn: DuckDBConnection,
  companyId: number,
  times: BuildTimes,
  reserve?: ReserveBuild,
): Promise<CompanyBalances | undefined> {
  const started = performance.now();
  // Streamed (connections.ts): no materialized copy of the snapshots beside the chunks.
  const reader = await conn.streamAndReadAll(snapshots.COMPANY_SNAPSHOTS_SQL, [companyId], [INTEGER]);
  const rows = reader.getRows() as [number, DuckDBBlobValue | null][];
  if (rows.some(([month]) => month === snapshots.SNAPSHOTS_BEHIND)) {
    const fromDaily = new CompanyBalances();
    const daily = await conn.streamAndReadAll(COMPANY_DAILY_SQL, [companyId], [INTEGER]);
    const count = daily.currentRowCount;
    if (count > 0 && !fromDaily.addColumns(daily.getColumns() as number[][], count)) return undefined;
    times.readMs += performance.now() - started;
    fromDaily.compact();
    return fromDaily;
  }
  const months = rows.map(([month, snapshot]) => [month, snapshot!.bytes] as const);
  const read = performance.now();
  times.readMs += read - started;
  const balances = balancesFromSnapshots(months, reserve);
  times.indexMs += performance.now() - read;
  return balances;
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

/** A load's first step on the writer `conn`: the snapshots of companies an older tool left behind, rewritten. */
export function repairSnapshots(s: SqlSession, conn: DuckDBConnection): Promise<void> {
  return snapshots.repairSnapshots(s, snapshotWriter(conn));
}

/** The ChangeRecorder step of a load on the writer `conn`: the snapshots of the months it changed. */
export function writeLoadSnapshots(s: SqlSession, hasDelta: boolean, conn: DuckDBConnection): Promise<void> {
  return snapshots.writeLoadSnapshots(s, hasDelta, snapshotWriter(conn));
}

/** balance_snapshots complete and in this layout (migrate(), in a transaction on the writer `conn`). */
export function ensureSnapshots(s: SqlSession, conn: DuckDBConnection): Promise<void> {
  return snapshots.ensureSnapshots(s, 'duckdb', SNAPSHOT_VERSION, snapshotWriter(conn));
}
