/**
 * The bulk body of loadJournal(): runs inside the adapter's transaction (and load lock). The journal's rows are
 * streamed into import_lines / import_line_options (adapter writer, a chunk at a time), the reference rows are
 * validated and written as load() does, then set-based SQL checks every entry (one date, known location, accounts
 * and tracking options of the company, one option per category, balance, never imported before) and names the CSV
 * line of the first problem, in the order the row-by-row validation reported them. The checked rows become the
 * stage_* tables with SQL, and join the ledger as any load (moveStaged).
 */
import { JournalLineError } from './errors.ts';
import type { JournalLoad } from './ledger-store.ts';
import { moveStaged, nextId, overfullAccountMonth, writeBatchReferences, type ChangeRecorder } from './load-sql.ts';
import { JOURNAL_IMPORT_DDL, STAGE_DDL } from './schema.ts';
import { int, str, type JournalChunkWriter, type SqlParam, type SqlRow, type SqlSession } from './sql-session.ts';

/** One entry per `ref`: its first CSV line, and the date, location, memo and posted flag of that line. */
const ENTRIES_SQL = `CREATE TEMP TABLE import_entries AS
  SELECT f.ref, f.first_line, l.entry_date, l.location_id, l.memo, l.is_posted
    FROM (SELECT ref, MIN(line) AS first_line FROM import_lines GROUP BY ref) f JOIN import_lines l ON l.line = f.first_line`;

/**
 * A failed check: where the row-by-row validation met it (the entry's first line, then the step within the entry,
 * then the line, then the check within the line), so the first failure reported is the same as it was.
 */
interface Failure { order: [number, number, number, number]; line: number; reason: string }

/** A set-based check over the staged import ($1 = the company): at most one row, its first failure. */
interface JournalCheck {
  sql: string;
  /** False for a check that does not depend on the company (its SQL has no $1). */
  byCompany?: false;
  failure(row: SqlRow, s: SqlSession, companyId: number): Promise<Failure>;
}

const entryName = (row: SqlRow) => `entry ${str(row.ref)} (${str(row.entry_date)})`;

/** "entry R (D) line k": k counts the entry's lines, as the row-by-row messages did. */
async function lineName(s: SqlSession, row: SqlRow): Promise<string> {
  const [k] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS k FROM import_lines WHERE ref = $1 AND line <= $2', [str(row.ref), int(row.line)]);
  return `${entryName(row)} line ${str(k?.k)}`;
}

const LINE_OF_ENTRY = `SELECT l.line, l.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date`;

/** Entry-level and line-level checks, run after the rows are staged and the reference rows written. */
const JOURNAL_CHECKS: readonly JournalCheck[] = [
  {
    sql: `SELECT e.first_line AS line, e.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date, e.location_id FROM import_entries e
           WHERE NOT EXISTS (SELECT 1 FROM locations o WHERE o.id = e.location_id AND o.company_id = $1) ORDER BY e.first_line LIMIT 1`,
    failure: async (r, _s, c) => ({ order: [int(r.line), 0, 0, 0], line: int(r.line), reason: `${entryName(r)}: unknown location ${str(r.location_id)} for company ${c}` }),
  },
  {
    sql: `${LINE_OF_ENTRY}, l.account_id FROM import_lines l JOIN import_entries e ON e.ref = l.ref
           WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = l.account_id AND a.company_id = $1) ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 0], line: int(r.line), reason: `${await lineName(s, r)}: unknown account ${str(r.account_id)} for company ${c}`,
    }),
  },
  {
    sql: `${LINE_OF_ENTRY}, l.location_id FROM import_lines l JOIN import_entries e ON e.ref = l.ref
           WHERE l.location_id <> e.location_id AND NOT EXISTS (SELECT 1 FROM locations o WHERE o.id = l.location_id AND o.company_id = $1)
           ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 1], line: int(r.line), reason: `${await lineName(s, r)}: unknown location ${str(r.location_id)} for company ${c}`,
    }),
  },
  {
    sql: `${LINE_OF_ENTRY}, o.option_id FROM import_line_options o JOIN import_lines l ON l.line = o.line JOIN import_entries e ON e.ref = l.ref
           WHERE NOT EXISTS (SELECT 1 FROM tracking_options t JOIN tracking_categories g ON g.id = t.category_id
                              WHERE t.id = o.option_id AND g.company_id = $1)
           ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 2], line: int(r.line), reason: `${await lineName(s, r)}: unknown tracking option ${str(r.option_id)} for company ${c}`,
    }),
  },
  {
    sql: `${LINE_OF_ENTRY}, d.category_id FROM (SELECT o.line, t.category_id FROM import_line_options o JOIN tracking_options t ON t.id = o.option_id
                                                 GROUP BY o.line, t.category_id HAVING COUNT(*) > 1) d
           JOIN import_lines l ON l.line = d.line JOIN import_entries e ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    byCompany: false,
    failure: async (r, s) => ({
      order: [int(r.first_line), 1, int(r.line), 3], line: int(r.line), reason: `${await lineName(s, r)}: more than one option of tracking category ${str(r.category_id)}`,
    }),
  },
  {
    sql: `SELECT e.first_line AS line, e.ref, CAST(e.entry_date AS VARCHAR) AS entry_date, b.total
            FROM (SELECT ref, CAST(SUM(amount_cents) AS VARCHAR) AS total FROM import_lines GROUP BY ref HAVING SUM(amount_cents) <> 0) b
            JOIN import_entries e ON e.ref = b.ref ORDER BY e.first_line LIMIT 1`,
    byCompany: false,
    failure: async (r) => ({
      order: [int(r.line), 2, 0, 0], line: int(r.line), reason: `${entryName(r)}: lines do not balance (they sum to ${str(r.total)} cents, expected 0)`,
    }),
  },
];

/** True when failure a was met before b (lexicographic order of their positions). */
function before(a: Failure, b: Failure): boolean {
  const i = a.order.findIndex((v, k) => v !== b.order[k]);
  return i >= 0 && a.order[i]! < b.order[i]!;
}

async function firstRow(s: SqlSession, sql: string, params: readonly SqlParam[]): Promise<SqlRow | undefined> {
  return (await s.query(sql, params))[0];
}

/** Every entry keeps one date: a later line with another date is refused (it was a parse error, reported first). */
async function checkEntryDates(s: SqlSession): Promise<void> {
  const r = await firstRow(s, `SELECT l.line, l.ref, CAST(l.entry_date AS VARCHAR) AS d, CAST(e.entry_date AS VARCHAR) AS first_date
    FROM import_lines l JOIN import_entries e ON e.ref = l.ref WHERE l.entry_date <> e.entry_date ORDER BY l.line LIMIT 1`, []);
  if (r) throw new JournalLineError(int(r.line), `entry ${str(r.ref)} has date ${str(r.d)} but its first line has ${str(r.first_date)}`);
}

async function checkCompany(s: SqlSession, companyId: number): Promise<void> {
  if (await firstRow(s, 'SELECT 1 AS x FROM companies WHERE id = $1', [companyId])) return;
  const r = (await firstRow(s, `SELECT first_line AS line, ref, CAST(entry_date AS VARCHAR) AS entry_date FROM import_entries ORDER BY first_line LIMIT 1`, []))!;
  throw new JournalLineError(int(r.line), `${entryName(r)}: unknown company ${companyId}`);
}

async function checkEntries(s: SqlSession, companyId: number): Promise<void> {
  let first: Failure | undefined;
  for (const check of JOURNAL_CHECKS) {
    const row = await firstRow(s, check.sql, check.byCompany === false ? [] : [companyId]);
    if (!row) continue;
    const failure = await check.failure(row, s, companyId);
    if (!first || before(failure, first)) first = failure;
  }
  if (first) throw new JournalLineError(first.line, first.reason);
}

/** Entry ids are kept per company: one already imported is refused at its first line, unless it is replaced. */
async function checkReimports(s: SqlSession, companyId: number): Promise<void> {
  const r = await firstRow(s, `SELECT e.first_line AS line, e.ref FROM import_entries e
    JOIN journal_entry_refs r ON r.company_id = $1 AND r.ref = e.ref ORDER BY e.first_line LIMIT 1`, [companyId]);
  if (r) throw new JournalLineError(int(r.line), `entry ${str(r.ref)} was already imported for company ${companyId} (an entry is never added twice)`);
}

/** New tag sets of the journal's lines, with their options (from one line that carries each). */
async function registerTagSets(s: SqlSession, companyId: number): Promise<void> {
  const first = await nextId(s, 'tag_sets');
  await s.query(`INSERT INTO tag_sets (id, company_id, tag_key)
    SELECT CAST($2 AS BIGINT) - 1 + ROW_NUMBER() OVER (ORDER BY k.tag_key), CAST($1 AS INTEGER), k.tag_key FROM (SELECT DISTINCT tag_key FROM import_lines) k
     WHERE NOT EXISTS (SELECT 1 FROM tag_sets t WHERE t.company_id = $1 AND t.tag_key = k.tag_key)`, [companyId, first]);
  await s.query(`INSERT INTO tag_set_options (tag_set_id, option_id)
    SELECT t.id, o.option_id FROM tag_sets t
      JOIN (SELECT tag_key, MIN(line) AS line FROM import_lines WHERE tag_key <> '' GROUP BY tag_key) k ON k.tag_key = t.tag_key
      JOIN import_line_options o ON o.line = k.line
     WHERE t.company_id = $1 AND t.id >= $2`, [companyId, first]);
}

/**
 * The checked journal as stage_* rows. Ids are the next free ids plus the CSV line (unique in one file; gaps do not
 * matter), so no row needs numbering.
 */
async function stageJournal(s: SqlSession, companyId: number): Promise<void> {
  const entryBase = (await nextId(s, 'journal_entries')) - 1;
  const lineBase = (await nextId(s, 'journal_lines')) - 1;
  for (const ddl of STAGE_DDL) await s.query(ddl);
  await s.query(`INSERT INTO stage_entries (id, company_id, location_id, entry_date, memo, is_posted, ref)
    SELECT CAST($2 AS BIGINT) + first_line, CAST($1 AS INTEGER), location_id, entry_date, memo, is_posted, ref FROM import_entries`, [companyId, entryBase]);
  await s.query(`INSERT INTO stage_lines (id, entry_id, company_id, location_id, account_id, tag_set_id, entry_date, is_posted, amount_cents)
    SELECT CAST($3 AS BIGINT) + l.line, CAST($2 AS BIGINT) + e.first_line, CAST($1 AS INTEGER), l.location_id, l.account_id, t.id, e.entry_date, e.is_posted, l.amount_cents
      FROM import_lines l JOIN import_entries e ON e.ref = l.ref JOIN tag_sets t ON t.company_id = $1 AND t.tag_key = l.tag_key`,
  [companyId, entryBase, lineBase]);
  await s.query('INSERT INTO stage_line_options (line_id, option_id) SELECT CAST($1 AS BIGINT) + line, option_id FROM import_line_options', [lineBase]);
}

/** An account-month beyond 2^53 - 1 cents is refused at the journal's first posted line on that account and month. */
async function checkAccountMonths(s: SqlSession, companyId: number): Promise<void> {
  const over = await overfullAccountMonth(s, [companyId]);
  if (!over) return;
  const r = await firstRow(s, `SELECT l.line FROM import_lines l JOIN import_entries e ON e.ref = l.ref
    WHERE e.is_posted AND l.account_id = $1 AND CAST(e.entry_date AS VARCHAR) LIKE $2 ORDER BY e.first_line, l.line LIMIT 1`,
  [over.accountId, `${over.month}%`]);
  throw new JournalLineError(r ? int(r.line) : 2,
    `account ${over.accountId} would total more than 2^53 - 1 cents in ${over.month} (the largest amount a report can show exactly)`);
}

const DROP_IMPORT = ['DROP TABLE import_entries', 'DROP TABLE import_lines', 'DROP TABLE import_line_options'];

export async function loadJournal(s: SqlSession, load: JournalLoad, writeChunk: JournalChunkWriter, recordChange?: ChangeRecorder): Promise<number> {
  for (const ddl of JOURNAL_IMPORT_DDL) await s.query(ddl);
  for await (const chunk of load.chunks) await writeChunk(chunk);
  const { companyId } = load;
  const { changed } = await writeBatchReferences(s, { ...load.references, entries: undefined }, recordChange, [companyId]);
  await s.query(ENTRIES_SQL);
  const [count] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS n FROM import_entries');
  const entries = int(count?.n ?? '0');
  if (entries === 0) {
    for (const sql of DROP_IMPORT) await s.query(sql);
    await changed(false);
    return 0;
  }
  await checkEntryDates(s);
  await checkCompany(s, companyId);
  await checkEntries(s, companyId);
  await registerTagSets(s, companyId);
  await stageJournal(s, companyId);
  const replace = load.references.replaceEntries === true;
  if (!replace) await checkReimports(s, companyId);
  await moveStaged(s, replace, () => checkAccountMonths(s, companyId), changed);
  for (const sql of DROP_IMPORT) await s.query(sql);
  return entries;
}
