/**
 * balance_snapshots (memory/month-snapshot.ts) written from balance_daily, one company-month at a time, in both
 * dialects: by a load for the months it touched, and whole for the companies a writer left behind. The setting
 * balance_snapshots_entries is the last journal entry id they account for (every version numbers entries upwards): a
 * company with a later entry is read from balance_daily until a load or migrate() rewrites its snapshots.
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
const ENTRIES_MARK = 'balance_snapshots_entries';

const firstDay = (month: number) => `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01`;

async function writeSnapshots(months: { companyId: number; month: number }[], write: SnapshotWrite): Promise<void> {
  for (const { companyId, month } of months)
    await write(companyId, month, [companyId, firstDay(month), firstDay(month + 1)]);
}

const monthsOf = async (s: SqlSession, table: string, where = '', params: number[][] = []) =>
  (
    await s.query(
      `SELECT DISTINCT CAST(company_id AS VARCHAR) AS c, CAST(${MONTH_INDEX} AS VARCHAR) AS m FROM ${table} ${where}
        ORDER BY 1, 2`,
      params,
    )
  ).map((r) => ({ companyId: int(r.c), month: int(r.m) }));

/** The last entry id the snapshots account for (undefined: none recorded, every company is to be written). */
export async function snapshotsEntryMark(s: SqlSession): Promise<number | undefined> {
  const [row] = await s.query(`SELECT value FROM settings WHERE key = '${ENTRIES_MARK}'`);
  return row ? int(row.value) : undefined;
}

/** The snapshots account for every entry stored now (a load's last step, or a fill's). */
async function markSnapshots(s: SqlSession): Promise<void> {
  await s.query(`DELETE FROM settings WHERE key = '${ENTRIES_MARK}'`);
  await s.query(
    `INSERT INTO settings (key, value)
     SELECT '${ENTRIES_MARK}', CAST(COALESCE(MAX(id), 0) AS VARCHAR) FROM journal_entries`,
  );
}

/**
 * Rewrites every snapshot of the companies with entries past the mark (all companies without one), then moves the
 * mark to the last entry: nothing to do unless a writer left them behind. Under the load lock, in the caller's
 * transaction (a load's first step, migrate()).
 */
export async function repairSnapshots(s: SqlSession, write: SnapshotWrite): Promise<void> {
  const mark = await snapshotsEntryMark(s);
  if (mark === undefined) {
    await s.query('DELETE FROM balance_snapshots');
    await writeSnapshots(await monthsOf(s, 'balance_daily'), write);
  } else {
    // The last entry first (one step of the key's index): companies are listed only when some entry is past the mark.
    const [last] = await s.query('SELECT CAST(COALESCE(MAX(id), 0) AS VARCHAR) AS m FROM journal_entries');
    if (int(last!.m) <= mark) return;
    const stale = (
      await s.query('SELECT DISTINCT CAST(company_id AS VARCHAR) AS c FROM journal_entries WHERE id > $1 ORDER BY 1', [
        mark,
      ])
    ).map((r) => int(r.c));
    await s.query('DELETE FROM balance_snapshots WHERE company_id = ANY($1)', [stale]);
    await writeSnapshots(await monthsOf(s, 'balance_daily', 'WHERE company_id = ANY($1)', [stale]), write);
  }
  await markSnapshots(s);
}

/**
 * The snapshots of the months a load's net change (the temp table load_delta, when `hasDelta`) touched, and the mark
 * moved past the load's entries, in the load's transaction.
 */
export async function writeLoadSnapshots(s: SqlSession, hasDelta: boolean, write: SnapshotWrite): Promise<void> {
  if (hasDelta) await writeSnapshots(await monthsOf(s, 'load_delta'), write);
  await markSnapshots(s);
}

/**
 * A store without balance_snapshots (a new one, or one made by an earlier version) gains it, one whose snapshots are of
 * another layout than `version` gets them all again, and the companies written by a tool that left them behind get
 * theirs (repairSnapshots), in the caller's transaction: the table exists only complete, in the layout of the setting
 * `balance_snapshots`.
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
  if (exists.length === 0) await s.query(BALANCE_SNAPSHOTS_DDL[dialect]);
  if (exists.length === 0 || stored?.value !== String(version)) {
    await s.query(`DELETE FROM settings WHERE key IN ('balance_snapshots', '${ENTRIES_MARK}')`);
    await s.query("INSERT INTO settings (key, value) VALUES ('balance_snapshots', $1)", [String(version)]);
  }
  await repairSnapshots(s, write);
}

/**
 * A company's ($1) snapshots, one row per month (`month`, `snapshot`), and a row of month -1 when the company has an
 * entry past the mark the snapshots account for (ENTRIES_MARK, read by the statement itself: no round trip of its own;
 * -1 when there is none): its snapshots are behind, read balance_daily instead. The check is the company's first entry
 * past the mark in id order, so that PostgreSQL reads the settings row once (an InitPlan) and walks the entries' key
 * from its value (as EXISTS, without fresh statistics of journal_entries, it scanned the whole table); DuckDB skips the
 * row groups below the mark.
 */
export const COMPANY_SNAPSHOTS_SQL = `SELECT month, snapshot FROM balance_snapshots WHERE company_id = $1
  UNION ALL SELECT -1, NULL
   WHERE (SELECT id FROM journal_entries
          WHERE id > COALESCE((SELECT CAST(value AS BIGINT) FROM settings WHERE key = '${ENTRIES_MARK}'), -1)
            AND company_id = $1 ORDER BY id LIMIT 1) IS NOT NULL`;

/** Month -1 among a company's snapshot rows (COMPANY_SNAPSHOTS_SQL): they are behind its ledger. */
export const SNAPSHOTS_BEHIND = -1;
