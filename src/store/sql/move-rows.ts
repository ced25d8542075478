/**
 * A load's last step: the staged journal moved into the journal_* tables and its net change (load_delta) folded into
 * balance_monthly / balance_daily, each store in its own form (key order, fold).
 */
import { BALANCE_PERIOD, type BalanceTable, type Dialect, balanceKey } from './schema.ts';
import { type SqlSession, int } from './session.ts';

/**
 * The load's net change to the pre-aggregates, one row per (company, day, location, account, tag set): its posted
 * staged lines, less (under replaceEntries, `replaced`) the posted lines of the entries it replaces. Both pre-aggregate
 * tables are folded from it, and the PostgreSQL adapter logs it for the other instances (ledger_deltas).
 */
export const deltaSql = (replaced: boolean) => `CREATE TEMP TABLE load_delta AS
   SELECT company_id, day, location_id, account_id, tag_set_id, CAST(SUM(cents) AS BIGINT) AS cents
     FROM (SELECT company_id, entry_date AS day, location_id, account_id, tag_set_id, amount_cents AS cents
       FROM stage_lines WHERE is_posted${
         replaced
           ? `
           UNION ALL
           SELECT e.company_id, e.entry_date, l.location_id, l.account_id, l.tag_set_id, -l.amount_cents
             FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
             WHERE e.is_posted AND e.id IN (SELECT id FROM replaced_entries)`
           : ''
       }) d
    GROUP BY 1, 2, 3, 4, 5`;

const sameKey = (table: BalanceTable, a: string, b: string) =>
  balanceKey(table)
    .split(', ')
    .map((c) => `${a}.${c} = ${b}.${c}`)
    .join(' AND ');
/**
 * load_delta per key of the table (one row per key): its rows are the daily ones, summed per month for balance_monthly.
 */
const deltaOf = (table: BalanceTable, order = '') =>
  table === 'balance_daily'
    ? `SELECT company_id, day, location_id, account_id, tag_set_id, cents FROM load_delta${order}`
    : `SELECT company_id, CAST(date_trunc('month', day) AS DATE) AS month, location_id, account_id, tag_set_id,
      SUM(cents) AS cents
       FROM load_delta GROUP BY 1, 2, 3, 4, 5${order}`;

/**
 * Ways of adding the load's net change to a pre-aggregate table that holds some of the load's companies: a new key is
 * inserted, a stored one gets the sum.
 */
type Fold = (s: SqlSession, table: BalanceTable) => Promise<void>;

/** PostgreSQL: the tables are keyed, ON CONFLICT adds to the stored row. */
const upsertFold: Fold = async (s, table) => {
  await s.query(`INSERT INTO ${table} (${balanceKey(table)}, cents) ${deltaOf(table)}
   ON CONFLICT (${balanceKey(table)}) DO UPDATE SET cents = ${table}.cents + EXCLUDED.cents`);
};

/**
 * Whether the load's change is a fair share of the table (at least a quarter of its rows at its last ANALYZE, which
 * every load ends with; reltuples is -1 before any).
 */
export const LOAD_IS_LARGE = (table: string, rows = '(SELECT COUNT(*) FROM load_delta)') =>
  `${rows} * 4 >= (SELECT reltuples FROM pg_class WHERE oid = '${table}'::regclass)`;

/** True when the table holds no row of the load's companies yet: the load's sums go in as they are (moveRows). */
async function holdsNoneOfTheLoad(s: SqlSession, table: BalanceTable): Promise<boolean> {
  return (
    (
      await s.query(
        `SELECT 1 AS x FROM ${table} WHERE company_id IN (SELECT DISTINCT company_id FROM load_delta) LIMIT 1`,
      )
    ).length === 0
  );
}

/**
 * PostgreSQL, into a table holding some of the load's companies: from PostgreSQL 15 on and when the load's change is a
 * fair share of the table, one join with the stored keys (MERGE) beats a speculative insertion per key (loads hold
 * the load lock, so no other writer adds a key meanwhile); the new keys go in key order. Otherwise the upsert.
 */
const pgFold: Fold = async (s, table) => {
  const [r] = await s.query(
    `SELECT CAST(current_setting('server_version_num') AS INTEGER) >= 150000 AND ${LOAD_IS_LARGE(table)} AS large`,
  );
  if (r?.large !== true) return upsertFold(s, table);
  await s.query(`MERGE INTO ${table} b USING (${deltaOf(table, ' ORDER BY 1, 2, 3, 4, 5')}) d
    ON ${sameKey(table, 'b', 'd')}
   WHEN MATCHED THEN UPDATE SET cents = b.cents + d.cents
   WHEN NOT MATCHED THEN INSERT (${balanceKey(table)}, cents) VALUES (${balanceKey(table)
     .split(', ')
     .map((c) => `d.${c}`)
     .join(', ')}, d.cents)`);
};

/** A DuckDB fold of at most this many keys, and under a quarter of the table, updates the stored rows by a join. */
const FEW_KEYS = 10_000;

/**
 * DuckDB, into a table holding some of the load's companies (the tables have no key: schema.ts). A few keys against a
 * much larger table (a batch from the API) update the stored rows by a join and insert the
 * others: rewriting the load's span would rewrite every stored row between its first and last day (a two-entry batch
 * two years apart would rewrite two years of a company's sums). Otherwise the table's rows of the load's
 * companies within the load's span of periods are summed with the load's by key (an aggregation, which spills, rather
 * than a join of millions of keys, which hashes one side whole: a second 10M-entry import into a 10M-entry company),
 * then replace them.
 */
const keylessFold: Fold = async (s, table) => {
  const insert = `INSERT INTO ${table} (${balanceKey(table)}, cents)`;
  const period = BALANCE_PERIOD[table];
  await s.query(`CREATE TEMP TABLE load_fold AS ${deltaOf(table)}`);
  const [size] = await s.query(
    `SELECT CAST((SELECT COUNT(*) FROM load_fold) AS VARCHAR) AS load, CAST((SELECT COUNT(*) ` +
      `FROM ${table}) AS VARCHAR) AS stored`,
  );
  const keys = int(size?.load ?? '0');
  if (keys <= FEW_KEYS && keys * 4 < int(size?.stored ?? '0')) {
    await s.query(`UPDATE ${table} b SET cents = b.cents + d.cents FROM load_fold d WHERE ${sameKey(table, 'b', 'd')}`);
    await s.query(
      `${insert} SELECT * FROM load_fold d WHERE NOT EXISTS (SELECT 1 FROM ${table} b ` +
        `WHERE ${sameKey(table, 'b', 'd')})`,
    );
    await s.query('DROP TABLE load_fold');
    return;
  }
  await s.query(
    `CREATE TEMP TABLE load_span AS SELECT company_id, MIN(${period}) AS lo, MAX(${period}) AS hi ` +
      `FROM load_fold GROUP BY company_id`,
  );
  const within = `EXISTS (SELECT 1 FROM load_span p
    WHERE p.company_id = b.company_id AND b.${period} BETWEEN p.lo AND p.hi)`;
  await s.query(`CREATE TEMP TABLE load_folded AS SELECT ${balanceKey(table)}, CAST(SUM(cents) AS BIGINT) AS cents
    FROM (SELECT ${balanceKey(table)}, cents FROM ${table} b WHERE ${within} UNION ALL
      SELECT ${balanceKey(table)}, cents FROM load_fold) u
   GROUP BY ${balanceKey(table)}`);
  await s.query(`DELETE FROM ${table} b WHERE ${within}`);
  await s.query(`${insert} SELECT ${balanceKey(table)}, cents FROM load_folded`);
  for (const t of ['load_fold', 'load_span', 'load_folded']) await s.query(`DROP TABLE ${t}`);
};

/**
 * How a store moves the staged journal: PostgreSQL's journal tables have btree keys, and rows inserted in key order
 * grow each index at its right edge (a journal's staged rows come in the order of a join, and each key inserted at a
 * random place costs a descent and page splits); DuckDB keeps no
 * such index, and the order would cost it a sort.
 */
export interface MoveForm {
  inKeyOrder: boolean;
  fold: Fold;
  /**
   * Staged tables a load wrote in the key order of their target already (no sort before they move; a speed matter
   * only).
   */
  staged?: { inKeyOrder: readonly StagedTable[] };
}
export type StagedTable = 'stage_entries' | 'stage_lines';
export const MOVE_FORM: Record<Dialect, MoveForm> = {
  postgres: { inKeyOrder: true, fold: pgFold },
  duckdb: { inKeyOrder: false, fold: keylessFold },
};

export async function moveRows(s: SqlSession, { inKeyOrder, fold, staged }: MoveForm): Promise<void> {
  /** ORDER BY the target's key, unless the staged table is already in that order (`table`). */
  const by = (key: string, table?: StagedTable) =>
    inKeyOrder && !(table && staged?.inKeyOrder.includes(table)) ? ` ORDER BY ${key}` : '';
  await s.query(`INSERT INTO journal_entries (id, company_id, location_id, entry_date, memo, is_posted)
     SELECT id, company_id, location_id, entry_date, memo, is_posted FROM stage_entries${by('id', 'stage_entries')}`);
  await s.query(`INSERT INTO journal_lines (id, entry_id, account_id, location_id, amount_cents, tag_set_id)
     SELECT id, entry_id, account_id, location_id, amount_cents, tag_set_id
       FROM stage_lines${by('id', 'stage_lines')}`);
  // A table holding none of the load's companies takes its sums as they are (a plain insert in key order, cheaper
  // than a MERGE that finds no match); the others are folded.
  for (const table of ['balance_monthly', 'balance_daily'] as const) {
    if (await holdsNoneOfTheLoad(s, table))
      await s.query(`INSERT INTO ${table} (${balanceKey(table)}, cents) ${deltaOf(table, by('1, 2, 3, 4, 5'))}`);
    else await fold(s, table);
  }
  await s.query(`INSERT INTO journal_entry_refs (company_id, ref, entry_id)
     SELECT company_id, ref, id FROM stage_entries WHERE ref IS NOT NULL${by('company_id, ref')}`);
  for (const table of ['stage_entries', 'stage_lines']) await s.query(`DROP TABLE ${table}`);
}
