/**
 * A journal import's entries, checked set-based against each other and the store (one date, known location, accounts
 * and tracking options of the company, one option per category, balance, never imported before): the CSV line of the
 * first problem is named, in the order the row-by-row validation reported them.
 */
import { JournalLineError, ordinal } from '../../ledger/errors.ts';
import type { Dialect } from '../schema.ts';
import { type SqlParam, type SqlRow, type SqlSession, int, str } from '../session.ts';
import { canonical, trim } from './rows.ts';

/**
 * One entry per `ref`: its first CSV line, and the date, location, memo and posted flag of that line; whether its lines
 * hold more than one date, and the sum of their amounts. One window over the lines gives them all (a join of the
 * entries back to their first lines would hash one side whole, beyond a large import's memory).
 */
export const ENTRIES_SQL = `CREATE TEMP TABLE import_entries AS
  SELECT ref, first_line, entry_date, location_id, memo, is_posted, dates_differ, total
    FROM (SELECT ref, line, entry_date, location_id, memo, is_posted, MIN(line) OVER e AS first_line,
                 MIN(entry_date) OVER e <> MAX(entry_date) OVER e AS dates_differ, SUM(amount_cents) OVER e AS total
            FROM import_lines WINDOW e AS (PARTITION BY ref)) w
   WHERE line = first_line`;

/**
 * A failed check: where the row-by-row validation met it (the entry's first line, then the step within the entry,
 * then the line, then the check within the line), so the first failure reported is the same as it was.
 */
interface Failure {
  order: [number, number, number, number];
  line: number;
  reason: string;
}

/** A set-based check over the staged import ($1 = the company): at most one row, its first failure. */
interface JournalCheck {
  /**
   * A small query that finds whether the check can fail at all (its ids against the catalog, once each): `sql`, which
   * finds the failure's earliest line among all the lines, runs only when it does.
   */
  guard?: string;
  sql: string;
  /** False for a check that does not depend on the company (its SQL has no $1). */
  byCompany?: false;
  failure(row: SqlRow, s: SqlSession, companyId: number): Promise<Failure>;
}

/** "(entry R, D" without its closing parenthesis: a line's name adds which of the entry's lines it is. */
const entryOpen = (row: SqlRow) => `(entry ${str(row.ref)}, ${str(row.entry_date)}`;
const entryName = (row: SqlRow) => `${entryOpen(row)})`;

/** "(entry R, D, its kth line)": k counts the entry's lines, as the row-by-row messages did. */
async function lineName(s: SqlSession, row: SqlRow): Promise<string> {
  const [k] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS k FROM import_lines WHERE ref = $1 AND line <= $2', [
    str(row.ref),
    int(row.line),
  ]);
  return `${entryOpen(row)}, its ${ordinal(Number(str(k?.k)))} line)`;
}

const LINE_OF_ENTRY = `SELECT l.line, l.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date`;

/** The guard of a catalog check: some distinct `column` of `table` is not among `known` ids. */
const unknownIds = (table: string, column: string, known: string) =>
  `SELECT 1 AS x FROM (SELECT DISTINCT ${column} AS id FROM ${table}) u WHERE u.id NOT IN (${known}) LIMIT 1`;
const KNOWN_LOCATIONS = 'SELECT id FROM locations WHERE company_id = $1';
const KNOWN_ACCOUNTS = 'SELECT id FROM accounts WHERE company_id = $1';
/** Options cells that name more than one option of a category, with the category. */
const SEVERAL_OF_A_CATEGORY = `SELECT o.options, t.category_id FROM import_cell_options o
  JOIN tracking_options t ON t.id = o.option_id GROUP BY o.options, t.category_id HAVING COUNT(*) > 1`;
const KNOWN_OPTIONS =
  'SELECT t.id FROM tracking_options t JOIN tracking_categories g ON g.id = t.category_id WHERE g.company_id = $1';

/** The first option of an options cell that is not one of the company's (the cell is known to have one), canonical. */
async function firstUnknownOption(s: SqlSession, cell: string, companyId: number): Promise<string> {
  const option = trim("split_part($2, ';', g.i)");
  const [r] = await s.query(
    `SELECT option_id FROM (SELECT ${canonical(option)} AS option_id, ${option} AS o, g.i
      FROM generate_series(1, $3) AS g(i)) x
    WHERE o <> '' AND option_id NOT IN (${KNOWN_OPTIONS}) ORDER BY i LIMIT 1`,
    [companyId, cell, cell.split(';').length],
  );
  return str(r?.option_id);
}

/** Entry-level and line-level checks, run after the rows are staged and the reference rows written. */
const JOURNAL_CHECKS: readonly JournalCheck[] = [
  {
    guard: unknownIds('import_entries', 'location_id', KNOWN_LOCATIONS),
    sql: `SELECT e.first_line AS line, e.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date, e.location_id
      FROM import_entries e
             LEFT JOIN locations o ON o.id = e.location_id AND o.company_id = $1 WHERE o.id IS NULL
               ORDER BY e.first_line LIMIT 1`,
    failure: async (r, _s, c) => ({
      order: [int(r.line), 0, 0, 0],
      line: int(r.line),
      reason: `${entryName(r)}: unknown location ${str(r.location_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_line_keys', 'account_id', KNOWN_ACCOUNTS),
    sql: `${LINE_OF_ENTRY}, l.account_id FROM import_entries e JOIN (SELECT l.line, l.ref, l.account_id
      FROM import_lines l
             LEFT JOIN accounts a ON a.id = l.account_id AND a.company_id = $1 WHERE a.id IS NULL) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 0],
      line: int(r.line),
      reason: `${await lineName(s, r)}: unknown account ${str(r.account_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_line_keys', 'location_id', KNOWN_LOCATIONS),
    sql: `${LINE_OF_ENTRY}, l.location_id FROM import_entries e JOIN (SELECT l.line, l.ref, l.location_id
      FROM import_lines l
             LEFT JOIN locations o ON o.id = l.location_id AND o.company_id = $1 WHERE o.id IS NULL) l
           ON e.ref = l.ref WHERE l.location_id <> e.location_id ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 1],
      line: int(r.line),
      reason: `${await lineName(s, r)}: unknown location ${str(r.location_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_cell_options', 'option_id', KNOWN_OPTIONS),
    sql: `${LINE_OF_ENTRY}, l.options FROM import_entries e JOIN (SELECT line, ref, options FROM import_lines
             WHERE options IN (SELECT options FROM import_cell_options WHERE option_id NOT IN (${KNOWN_OPTIONS}))) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 2],
      line: int(r.line),
      reason:
        `${await lineName(s, r)}: unknown tracking option ${await firstUnknownOption(s, str(r.options), c)} for ` +
        `company ${c}`,
    }),
  },
  {
    guard: `SELECT 1 AS x FROM (${SEVERAL_OF_A_CATEGORY}) d LIMIT 1`,
    sql: `${LINE_OF_ENTRY}, l.category_id FROM import_entries e JOIN (SELECT l.line, l.ref, d.category_id
      FROM import_lines l
             JOIN (${SEVERAL_OF_A_CATEGORY}) d ON l.options = d.options) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    byCompany: false,
    failure: async (r, s) => ({
      order: [int(r.first_line), 1, int(r.line), 3],
      line: int(r.line),
      reason: `${await lineName(s, r)}: more than one option of tracking category ${str(r.category_id)}`,
    }),
  },
  {
    sql: `SELECT first_line AS line, ref, CAST(entry_date AS VARCHAR) AS entry_date, CAST(total AS VARCHAR) AS total
            FROM import_entries WHERE total <> 0 ORDER BY first_line LIMIT 1`,
    byCompany: false,
    failure: async (r) => ({
      order: [int(r.line), 2, 0, 0],
      line: int(r.line),
      reason: `${entryName(r)}: lines do not balance (they sum to ${str(r.total)} cents, expected 0)`,
    }),
  },
];

/** True when failure a was met before b (lexicographic order of their positions). */
function before(a: Failure, b: Failure): boolean {
  const i = a.order.findIndex((v, k) => v !== b.order[k]);
  return i >= 0 && a.order[i]! < b.order[i]!;
}

export async function firstRow(s: SqlSession, sql: string, params: readonly SqlParam[]): Promise<SqlRow | undefined> {
  return (await s.query(sql, params))[0];
}

/** Every entry keeps one date: a later line with another date is refused (it was a parse error, reported first). */
export async function checkEntryDates(s: SqlSession): Promise<void> {
  // Only the lines of entries of more than one date are compared with their first line's.
  if (!(await firstRow(s, 'SELECT 1 AS x FROM import_entries WHERE dates_differ LIMIT 1', []))) return;
  const r = await firstRow(
    s,
    `SELECT l.line, l.ref, CAST(l.entry_date AS VARCHAR) AS d, CAST(e.entry_date AS VARCHAR) AS first_date
      FROM import_lines l JOIN (SELECT ref, entry_date FROM import_entries WHERE dates_differ) e ON l.ref = e.ref
     WHERE l.entry_date <> e.entry_date ORDER BY l.line LIMIT 1`,
    [],
  );
  if (r)
    throw new JournalLineError(
      int(r.line),
      `entry ${str(r.ref)} has date ${str(r.d)} but its first line has ${str(r.first_date)}`,
    );
}

export async function checkCompany(s: SqlSession, companyId: number): Promise<void> {
  if (await firstRow(s, 'SELECT 1 AS x FROM companies WHERE id = $1', [companyId])) return;
  const r = (await firstRow(
    s,
    `SELECT first_line AS line, ref, CAST(entry_date AS VARCHAR) AS entry_date FROM import_entries ` +
      `ORDER BY first_line LIMIT 1`,
    [],
  ))!;
  throw new JournalLineError(int(r.line), `${entryName(r)}: unknown company ${companyId}`);
}

export async function checkEntries(s: SqlSession, companyId: number): Promise<void> {
  let first: Failure | undefined;
  for (const check of JOURNAL_CHECKS) {
    const params = check.byCompany === false ? [] : [companyId];
    if (check.guard !== undefined && !(await firstRow(s, check.guard, params))) continue;
    const row = await firstRow(s, check.sql, params);
    if (!row) continue;
    const failure = await check.failure(row, s, companyId);
    if (!first || before(failure, first)) first = failure;
  }
  if (first) throw new JournalLineError(first.line, first.reason);
}

/** Ids per pass of the re-import check: its aggregation over one pass's ids stays within DuckDB's import memory. */
const IDS_PER_PASS = 4_000_000;
/** A row's pass of `passes` (0 … passes - 1), by a hash of its entry id. */
const PASS_OF: Record<Dialect, (passes: number) => string> = {
  duckdb: (passes) => `hash(ref) % ${passes}`,
  postgres: (passes) => `(hashtext(ref) & 2147483647) % ${passes}`,
};

/**
 * Entry ids are kept per company: one already imported is refused at its first line, unless it is replaced. Found by
 * aggregation over both sets of ids rather than a join, which hashes one side whole (millions of ids once a large
 * journal is in): an id of both sets has a row of each, one with the journal's line. With many ids, in passes over
 * shares of them (by hash), so that each pass's aggregation stays small.
 */
export async function checkReimports(
  s: SqlSession,
  dialect: Dialect,
  companyId: number,
  entries: number,
): Promise<void> {
  const [stored] = await s.query(
    'SELECT CAST(COUNT(*) AS VARCHAR) AS n FROM journal_entry_refs WHERE company_id = $1',
    [companyId],
  );
  const storedIds = int(stored?.n ?? '0');
  if (storedIds === 0) return; // the company's first import
  const passes = Math.max(1, Math.ceil((entries + storedIds) / IDS_PER_PASS));
  let first: SqlRow | undefined;
  for (let pass = 0; pass < passes; pass++) {
    const share = passes === 1 ? '' : ` AND ${PASS_OF[dialect](passes)} = ${pass}`;
    const r = await firstRow(
      s,
      `SELECT MIN(first_line) AS line, ref
        FROM (SELECT ref, first_line FROM import_entries WHERE true${share}
              UNION ALL SELECT ref, NULL FROM journal_entry_refs WHERE company_id = $1${share}) u
       GROUP BY ref HAVING COUNT(*) > COUNT(first_line) AND COUNT(first_line) > 0 ORDER BY line LIMIT 1`,
      [companyId],
    );
    if (r && (!first || int(r.line) < int(first.line))) first = r;
  }
  if (!first) return;
  // The entry is named from its line (a 10M-entry run in passes once named another entry than the line's).
  const [entry] = await s.query('SELECT ref FROM import_entries WHERE first_line = $1', [int(first.line)]);
  throw new JournalLineError(
    int(first.line),
    `entry ${str(entry?.ref ?? first.ref)} was already imported for company ${companyId} (an entry is never ` +
      `added twice)`,
  );
}
