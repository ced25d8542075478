/**
 * The PostgreSQL change log every instance follows (schema.ts: ledger_changes, ledger_deltas). A load records, in its
 * own transaction, the companies it changed and its net change to balance_daily, then NOTIFYs `ledger_changed` with
 * the change's seq: PostgreSQL delivers the notification at COMMIT, so a listener never hears of a change it cannot
 * read yet. A change and its deltas are kept for CHANGE_RETENTION, and the log keeps at most MAX_CHANGES_KEPT rows:
 * an instance that fell further behind (ledger_changes_pruned) re-reads every company it follows.
 */
import type { LoadChange } from '../sql/load-sql.ts';
import { LOAD_IS_LARGE } from '../sql/move-rows.ts';
import { int, type SqlSession } from '../sql/session.ts';

export const CHANGE_CHANNEL = 'ledger_changed';
/** Notified (at COMMIT) by every creation or revocation of an API key: instances forget the keys they found. */
export const API_KEYS_CHANNEL = 'api_keys_changed';
const CHANGE_RETENTION = "interval '10 minutes'";
const MAX_CHANGES_KEPT = 10_000;
/**
 * A change of at least this many balance_daily keys that is also a fair share of the table is logged without its
 * deltas (pruned at birth): a follower re-reads the company, which costs it about what applying the deltas would,
 * and the load is spared writing them (a row per key) and pruning them later.
 */
const LARGE_DELTA_ROWS = 10_000;

/** The ChangeRecorder of the PostgreSQL adapter (load-sql.ts): the last step of a load before COMMIT. */
export async function recordChange(s: SqlSession, change: LoadChange): Promise<void> {
  const large =
    change.hasDelta &&
    (
      await s.query(
        `SELECT n >= ${LARGE_DELTA_ROWS} AND ${LOAD_IS_LARGE('balance_daily', 'n')} AS large ` +
          `FROM (SELECT COUNT(*) AS n FROM load_delta) d`,
      )
    )[0]?.large === true;
  const [row] = await s.query(
    'INSERT INTO ledger_changes (company_ids, deltas_pruned, catalogs_changed) VALUES ($1, $2, $3) ' +
      'RETURNING CAST(seq AS VARCHAR) AS seq',
    [change.companyIds, large, change.catalogsChanged],
  );
  const seq = int(row!.seq);
  if (change.hasDelta && !large) {
    await s.query(
      `INSERT INTO ledger_deltas (seq, company_id, day, location_id, account_id, tag_set_id, cents)
       SELECT $1, company_id, day, location_id, account_id, tag_set_id, cents FROM load_delta WHERE cents <> 0`,
      [seq],
    );
  }
  await pruneChanges(s, seq);
  await s.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, String(seq)]);
}

/**
 * Deletes the changes (and their deltas) older than the window, never the one just recorded (`seq`), and moves the
 * pruned mark past them. Loads hold the load lock, so prunes run one at a time.
 */
async function pruneChanges(s: SqlSession, seq: number): Promise<void> {
  await s.query(
    `WITH old AS (DELETE FROM ledger_changes
                   WHERE seq < $1 AND (committed_at < now() - ${CHANGE_RETENTION} OR seq <= $1 - ${MAX_CHANGES_KEPT})
                   RETURNING seq),
          deltas AS (DELETE FROM ledger_deltas WHERE seq IN (SELECT seq FROM old))
     INSERT INTO ledger_changes_pruned (through) SELECT MAX(seq) FROM old HAVING COUNT(*) > 0
     ON CONFLICT (one) DO UPDATE SET through = GREATEST(ledger_changes_pruned.through, EXCLUDED.through)`,
    [seq],
  );
}

/** The seq of the last change committed in this snapshot (0 before the first). */
export async function lastChange(s: SqlSession): Promise<number> {
  const [row] = await s.query(
    `SELECT CAST(GREATEST(COALESCE(MAX(seq), 0), (SELECT COALESCE(MAX(through), 0) FROM ledger_changes_pruned))
       AS VARCHAR) AS seq FROM ledger_changes`,
  );
  return int(row!.seq);
}

/**
 * The version of a company's ledger in this snapshot: the last change that touched it, or the pruned mark when that is
 * later (a pruned change may have touched it). Loads commit in seq order, so a later state of the company has a higher
 * one, and every instance reading the same state with the same mark finds the same one.
 */
export async function companyChange(s: SqlSession, companyId: number): Promise<number> {
  const [row] = await s.query(
    `SELECT CAST(GREATEST((SELECT COALESCE(MAX(seq), 0) FROM ledger_changes WHERE $1 = ANY(company_ids)),
       (SELECT COALESCE(MAX(through), 0) FROM ledger_changes_pruned)) AS VARCHAR) AS seq`,
    [companyId],
  );
  return int(row!.seq);
}

/** The last seq pruned from the log in this snapshot (0 when none was): who is behind it re-reads what it follows. */
export async function prunedThrough(s: SqlSession): Promise<number> {
  const [row] = await s.query('SELECT CAST(COALESCE(MAX(through), 0) AS VARCHAR) AS seq FROM ledger_changes_pruned');
  return int(row!.seq);
}

export interface LoggedChange {
  seq: number;
  companyIds: number[];
  /** Logged without its deltas (a large load): a follower behind it re-reads the companies. */
  pruned: boolean;
  /** The load wrote reference rows: a follower re-reads the companies' catalogs. */
  catalogsChanged: boolean;
}

export async function changesSince(s: SqlSession, seq: number): Promise<LoggedChange[]> {
  const rows = await s.query(
    'SELECT CAST(seq AS VARCHAR) AS seq, company_ids, deltas_pruned, catalogs_changed FROM ledger_changes ' +
      'WHERE seq > $1 ORDER BY seq',
    [seq],
  );
  return rows.map((r) => ({
    seq: int(r.seq),
    companyIds: (r.company_ids as unknown[]).map(int),
    pruned: r.deltas_pruned === true,
    catalogsChanged: r.catalogs_changed !== false,
  }));
}
