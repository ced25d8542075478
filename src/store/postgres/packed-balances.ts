/**
 * The in-memory index (balance-index.ts) and PostgreSQL: a company's index built from its month snapshots
 * (balance_snapshots, memory/month-snapshot.ts) in one query, and daily sums packed by PostgreSQL into one bytea per
 * month (PACKED_DAYS: 24 bytes a row, big-endian: day of month, location, account and tag set as int4, cents as
 * float8), as the change log's deltas are read: one value per month instead of six text fields per row.
 */
import type pg from 'pg';
import { CompanyBalances } from '../memory/balance-index.ts';
import type { BuildTimes, ReserveBuild } from '../memory/index-budget.ts';
import { balancesFromSnapshots, encodeMonthSnapshot } from '../memory/month-snapshot.ts';
import {
  COMPANY_SNAPSHOTS_SQL,
  MONTH_SUMS_SQL,
  SNAPSHOTS_BEHIND,
  type SnapshotWrite,
} from '../sql/month-snapshots-sql.ts';

/** The month of `day` as CompanyBalances indexes months (`year * 12 + month - 1`). */
export const MONTH_INDEX_OF_DAY = 'CAST(EXTRACT(YEAR FROM day) * 12 + EXTRACT(MONTH FROM day) - 1 AS INTEGER)';

/** An aggregate over rows of (day, location_id, account_id, tag_set_id, cents) of one month: their packed bytes. */
export const PACKED_DAYS = `string_agg(int4send(CAST(EXTRACT(DAY FROM day) AS INTEGER)) || int4send(location_id)
  || int4send(account_id) || int4send(tag_set_id) || float8send(CAST(cents AS DOUBLE PRECISION)), ''::bytea)`;

const ROW_BYTES = 24;

/**
 * Adds one month's packed rows (PACKED_DAYS) to `balances`. False, adding nothing further, at the first |cents| beyond
 * 2^53 (float64 is exact below it: such a company is answered by SQL), as CompanyBalances.addColumns.
 */
export function addPackedMonth(balances: CompanyBalances, monthIndex: number, packed: Buffer): boolean {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  for (let at = 0; at < packed.byteLength; at += ROW_BYTES) {
    const cents = view.getFloat64(at + 16);
    if (!(Math.abs(cents) < Number.MAX_SAFE_INTEGER)) return false;
    balances.addOn(
      monthIndex,
      view.getInt32(at),
      view.getInt32(at + 4),
      view.getInt32(at + 8),
      view.getInt32(at + 12),
      cents,
    );
  }
  return true;
}

/**
 * The company's index from its month snapshots (balance_snapshots), or from its balance_daily rows (packed by month)
 * when the snapshots are behind its ledger (an older tool's import), read in the client's transaction (the caller's
 * snapshot); undefined when some daily sum is beyond 2^53 cents. `reserve` is told the snapshots'
 * index size before it is made.
 */
export async function readCompanyBalances(
  client: pg.PoolClient,
  companyId: number,
  times: BuildTimes = { readMs: 0, indexMs: 0 },
  reserve?: ReserveBuild,
): Promise<CompanyBalances | undefined> {
  const started = performance.now();
  let { rows } = await client.query<{ month: number; snapshot: Buffer }>(COMPANY_SNAPSHOTS_SQL, [companyId]);
  let daily: { month: number; packed: Buffer }[] = [];
  if (rows.some((row) => row.month === SNAPSHOTS_BEHIND)) {
    rows = [];
    daily = (
      await client.query<{ month: number; packed: Buffer }>(
        `SELECT ${MONTH_INDEX_OF_DAY} AS month, ${PACKED_DAYS} AS packed FROM balance_daily WHERE company_id = $1
          GROUP BY 1`,
        [companyId],
      )
    ).rows;
  }
  const read = performance.now();
  times.readMs += read - started;
  let balances: CompanyBalances | undefined;
  if (daily.length > 0) {
    balances = new CompanyBalances();
    if (!daily.every((row) => addPackedMonth(balances!, row.month, row.packed))) balances = undefined;
    balances?.compact();
  } else
    balances = balancesFromSnapshots(
      rows.map((row) => [row.month, row.snapshot] as const),
      reserve,
    );
  times.indexMs += performance.now() - read;
  return balances;
}

/** Writes one company-month's snapshot on `client` (inside the load's transaction). */
export function snapshotWriter(client: pg.PoolClient): SnapshotWrite {
  return async (companyId, month, params) => {
    const { rows } = await client.query<number[]>({ text: MONTH_SUMS_SQL, values: params, rowMode: 'array' });
    const columns = [0, 1, 2, 3, 4].map((k) => rows.map((row) => row[k]!));
    await client.query(
      `INSERT INTO balance_snapshots (company_id, month, snapshot) VALUES ($1, $2, $3)
       ON CONFLICT (company_id, month) DO UPDATE SET snapshot = EXCLUDED.snapshot`,
      [companyId, month, Buffer.from(encodeMonthSnapshot(columns, rows.length))],
    );
  };
}
