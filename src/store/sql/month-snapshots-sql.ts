/**
 * balance_snapshots (memory/month-snapshot.ts) written from balance_daily, in both dialects: inside a load for the
 * months its net change (load_delta) touched, and once for every month when a store gains the table. One company-month
 * is read at a time, so a write holds one month's rows whatever the ledger's size.
 */
import { BALANCE_SNAPSHOTS_DDL, type Dialect } from './schema.ts';
import { type SqlSession, int } from './session.ts';

/**
 * The daily sums of one company-month ($1 company, $2 its first day, $3 the next month's), as columns: day of month,
 * location, account, tag set, cents.
 */
export const MONTH_SUMS_SQL = `SELECT CAST(EXTRACT(DAY FROM day) AS INTEGER) AS d, location_id, account_id, tag_set_id,
       CAST(cents AS DOUBLE PRECISION) AS cents
  FROM balance_daily WHERE company_id = $1 AND day >= CAST($2 AS DATE) AND day < CAST($3 AS DATE)`;

/**
 * Replaces the snapshot of one company-month from its sums (MONTH_SUMS_SQL with `params`): the adapter's, which reads
 * them in its bulk form, encodes them (memory/month-snapshot.ts) and writes the binary value.
 */
export type SnapshotWrite = (companyId: number, month: number, params: [number, string, string]) => Promise<void>;

const MONTH_INDEX = 'CAST(EXTRACT(YEAR FROM day) * 12 + EXTRACT(MONTH FROM day) - 1 AS INTEGER)';

const firstDay = (month: number) => `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01`;

async function writeSnapshots(months: { companyId: number; month: number }[], write: SnapshotWrite): Promise<void> {
  for (const { companyId, month } of months)
    await write(companyId, month, [companyId, firstDay(month), firstDay(month + 1)]);
}

const monthsOf = async (s: SqlSession, table: string) =>
  (
    await s.query(
      `SELECT DISTINCT CAST(company_id AS VARCHAR) AS c, CAST(${MONTH_INDEX} AS VARCHAR) AS m FROM ${table}
        ORDER BY 1, 2`,
    )
  ).map((r) => ({ companyId: int(r.c), month: int(r.m) }));

/** The snapshots of the months a load's net change (the temp table load_delta) touched, in the load's transaction. */
export async function writeLoadSnapshots(s: SqlSession, write: SnapshotWrite): Promise<void> {
  await writeSnapshots(await monthsOf(s, 'load_delta'), write);
}

/**
 * A store without balance_snapshots (a new one, or one made by an earlier version) gains it, and one whose snapshots
 * are of another layout than `version` gets them all again, with every company-month's snapshot, in the caller's
 * transaction: the table exists only complete, in the layout of the setting `balance_snapshots`.
 */
export async function ensureSnapshots(
  s: SqlSession,
  dialect: Dialect,
  version: number,
  write: SnapshotWrite,
): Promise<void> {
  const exists = await s.query(
    `SELECT 1 AS x FROM information_schema.tables WHERE table_name = 'balance_snapshots'
        AND table_schema = current_schema() AND table_catalog = current_database()`,
  );
  const [stored] = await s.query("SELECT value FROM settings WHERE key = 'balance_snapshots'");
  if (exists.length > 0 && stored?.value === String(version)) return;
  if (exists.length > 0) await s.query('DELETE FROM balance_snapshots');
  else await s.query(BALANCE_SNAPSHOTS_DDL[dialect]);
  await writeSnapshots(await monthsOf(s, 'balance_daily'), write);
  await s.query("DELETE FROM settings WHERE key = 'balance_snapshots'");
  await s.query("INSERT INTO settings (key, value) VALUES ('balance_snapshots', $1)", [String(version)]);
}

/** A company's snapshots, one row per month (`month`, `snapshot`). */
export const COMPANY_SNAPSHOTS_SQL = 'SELECT month, snapshot FROM balance_snapshots WHERE company_id = $1';
