/**
 * Ledger schema (DDL valid for both DuckDB and PostgreSQL). GUIDs are 32 lowercase hex text; money is BIGINT cents.
 * balance_monthly / balance_daily hold posted-line sums per (company, location, account, tag set, month|day),
 * maintained by load() inside the same transaction as the journal rows.
 */
export type Dialect = 'duckdb' | 'postgres';

/**
 * The pre-aggregate tables, keyed by (company, period, location, account, tag set). PostgreSQL holds the key as a
 * PRIMARY KEY (loads fold into it with ON CONFLICT). DuckDB does not: its key would be an ART index, which DuckDB keeps
 * in memory whole while a load inserts into it and commits, beyond any memory limit (2.2M keys after a 10M-entry
 * import); its loads keep each key once by folding the load's sums, grouped by the key, into the rows (load-sql.ts).
 */
export const BALANCE_PERIOD = { balance_monthly: 'month', balance_daily: 'day' } as const;
export type BalanceTable = keyof typeof BALANCE_PERIOD;
const BALANCE_TABLES = Object.keys(BALANCE_PERIOD) as BalanceTable[];
/** A pre-aggregate table's key columns. */
export const balanceKey = (table: BalanceTable) =>
  `company_id, ${BALANCE_PERIOD[table]}, location_id, account_id, tag_set_id`;

function balanceTableDdl(dialect: Dialect, table: BalanceTable, name: string = table): string {
  const key = dialect === 'postgres' ? `, PRIMARY KEY (${balanceKey(table)})` : '';
  return `CREATE TABLE IF NOT EXISTS ${name} (
      company_id INTEGER NOT NULL, ${BALANCE_PERIOD[table]} DATE NOT NULL, location_id INTEGER NOT NULL, account_id
        INTEGER NOT NULL,
      tag_set_id INTEGER NOT NULL, cents BIGINT NOT NULL${key})`;
}

/**
 * balance_daily per company-month in one binary value (memory/month-snapshot.ts), rewritten by the loads that touch
 * the month: what an instance reads to build a company's index. Created with its rows (month-snapshots-sql.ts).
 */
export const BALANCE_SNAPSHOTS_DDL: Record<Dialect, string> = {
  duckdb:
    'CREATE TABLE IF NOT EXISTS balance_snapshots (company_id INTEGER NOT NULL, month INTEGER NOT NULL, ' +
    'snapshot BLOB NOT NULL)',
  postgres:
    'CREATE TABLE IF NOT EXISTS balance_snapshots (company_id INTEGER NOT NULL, month INTEGER NOT NULL, ' +
    'snapshot BYTEA NOT NULL, PRIMARY KEY (company_id, month))',
};

/**
 * DuckDB files made before the balance tables lost their key: each keyed table is rebuilt without it (DuckDB cannot
 * drop a PRIMARY KEY), rows kept. `keyed` lists the tables that still have one (duckdb_constraints()).
 */
export function duckdbBalanceKeyMigration(keyed: readonly string[]): string[] {
  return BALANCE_TABLES.filter((t) => keyed.includes(t)).flatMap((t) => [
    balanceTableDdl('duckdb', t, `${t}_unkeyed`),
    `INSERT INTO ${t}_unkeyed SELECT * FROM ${t}`,
    `DROP TABLE ${t}`,
    `ALTER TABLE ${t}_unkeyed RENAME TO ${t}`,
  ]);
}

/** The query listing the DuckDB balance tables that still have a PRIMARY KEY (column `t`). */
export const DUCKDB_KEYED_BALANCE_TABLES = `SELECT DISTINCT table_name AS t FROM duckdb_constraints()
  WHERE constraint_type = 'PRIMARY KEY' AND database_name = current_database() AND schema_name = 'main'
    AND table_name IN (${BALANCE_TABLES.map((t) => `'${t}'`).join(', ')})`;

export function schemaStatements(dialect: Dialect): string[] {
  // PostgreSQL gets keys on the journal tables; DuckDB skips them (ART indexes slow bulk appends, and ids are
  // assigned by the store under its load lock, so they are unique by construction).
  const pk = dialect === 'postgres' ? ' PRIMARY KEY' : '';
  const stmts = [
    `CREATE TABLE IF NOT EXISTS companies (
      id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, base_currency VARCHAR NOT NULL,
      fiscal_year_start_month INTEGER NOT NULL, time_zone VARCHAR NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS locations (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, name VARCHAR NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS standard_accounts (
      id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, number VARCHAR, name VARCHAR NOT NULL, type VARCHAR NOT NULL,
      parent_id INTEGER, sort_order INTEGER NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS accounts (
      id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, number VARCHAR, name VARCHAR NOT NULL, type VARCHAR NOT NULL,
      parent_id INTEGER, is_active BOOLEAN NOT NULL, standard_account_id INTEGER)`,
    `CREATE TABLE IF NOT EXISTS tracking_categories (id VARCHAR(32) PRIMARY KEY, company_id INTEGER NOT NULL, ` +
      `name VARCHAR NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS tracking_options (id VARCHAR(32) PRIMARY KEY, category_id VARCHAR(32) NOT NULL, ` +
      `name VARCHAR NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS journal_entries (
      id BIGINT${pk}, company_id INTEGER NOT NULL, location_id INTEGER NOT NULL, entry_date DATE NOT NULL,
      memo VARCHAR, is_posted BOOLEAN NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS journal_lines (
      id BIGINT${pk}, entry_id BIGINT NOT NULL, account_id INTEGER NOT NULL, location_id INTEGER NOT NULL,
      amount_cents BIGINT NOT NULL, tag_set_id INTEGER NOT NULL)`,
    // The entry ids an import named (the CSV's `entry`), per company: a re-import of one is refused.
    `CREATE TABLE IF NOT EXISTS journal_entry_refs (
      company_id INTEGER NOT NULL, ref VARCHAR NOT NULL, entry_id BIGINT NOT
        NULL${dialect === 'postgres' ? ', PRIMARY KEY (company_id, ref)' : ''})`,
    // A line's options are its tag set's (tag_set_options); stores made before kept them per line as well.
    'DROP TABLE IF EXISTS journal_line_options',
    `CREATE TABLE IF NOT EXISTS tag_sets (
      id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, tag_key VARCHAR NOT NULL, UNIQUE (company_id, tag_key))`,
    `CREATE TABLE IF NOT EXISTS tag_set_options (tag_set_id INTEGER NOT NULL, option_id VARCHAR(32) NOT NULL, ` +
      `PRIMARY KEY (tag_set_id, option_id))`,
    ...BALANCE_TABLES.map((t) => balanceTableDdl(dialect, t)),
    // Service settings shared by every instance over this store (e.g. the report-link signing secret).
    `CREATE TABLE IF NOT EXISTS settings (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS api_keys (
      id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, key_hash VARCHAR(64) NOT NULL UNIQUE,
      created_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP)`,
    `CREATE TABLE IF NOT EXISTS api_key_companies (key_id INTEGER NOT NULL, company_id INTEGER NOT NULL, ` +
      `PRIMARY KEY (key_id, company_id))`,
  ];
  if (dialect === 'postgres') {
    stmts.push(
      // Entries are read by id (replaced entries) or all of a company's (the full scan): an index by company and date,
      // which stores made before have, served only the full scan and cost an import of 1M entries a second.
      'DROP INDEX IF EXISTS journal_entries_company_date',
      'CREATE INDEX IF NOT EXISTS journal_lines_entry ON journal_lines (entry_id)',
      // Every committed load, in commit order (loads hold the load lock until COMMIT), with the companies it changed;
      // its net change to balance_daily is in ledger_deltas; both are pruned after a window. Instances follow it
      // (change-log-sql.ts).
      `CREATE TABLE IF NOT EXISTS ledger_changes (
        seq BIGSERIAL PRIMARY KEY, company_ids INTEGER[] NOT NULL, deltas_pruned BOOLEAN NOT NULL DEFAULT false,
        committed_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      // Whether the load wrote reference rows (else a follower keeps the catalogs it has); a change logged by a store
      // made before, or by an instance of before, counts as one that did.
      'ALTER TABLE ledger_changes ADD COLUMN IF NOT EXISTS catalogs_changed BOOLEAN NOT NULL DEFAULT true',
      `CREATE TABLE IF NOT EXISTS ledger_deltas (
        seq BIGINT NOT NULL, company_id INTEGER NOT NULL, day DATE NOT NULL, location_id INTEGER NOT NULL,
        account_id INTEGER NOT NULL, tag_set_id INTEGER NOT NULL, cents BIGINT NOT NULL)`,
      'CREATE INDEX IF NOT EXISTS ledger_deltas_seq ON ledger_deltas (seq, company_id)',
      // The last seq pruned from ledger_changes: an instance behind it cannot know which companies it missed.
      `CREATE TABLE IF NOT EXISTS ledger_changes_pruned (
        one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), through BIGINT NOT NULL)`,
    );
  }
  return stmts;
}

/** Staging tables filled by the adapter's bulk writer, then moved into the ledger by shared SQL (see load-sql.ts). */
export const STAGE_DDL = [
  `CREATE TEMP TABLE stage_entries (id BIGINT, company_id INTEGER, location_id INTEGER, entry_date DATE, memo ` +
    `VARCHAR, is_posted BOOLEAN, ref VARCHAR)`,
  `CREATE TEMP TABLE stage_lines (id BIGINT, entry_id BIGINT, company_id INTEGER, location_id INTEGER, account_id
    INTEGER,
    tag_set_id INTEGER, entry_date DATE, is_posted BOOLEAN, amount_cents BIGINT)`,
];
