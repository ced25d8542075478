/**
 * A checked journal import staged for the ledger: its new tag sets registered, its entries and lines in the stage_*
 * tables (then moved as any load: load-sql.ts moveStaged), each account-month kept within what a report shows exactly.
 */
import { JournalLineError } from '../../ledger/errors.ts';
import { nextId, overfullAccountMonth } from '../load-sql.ts';
import type { StagedTable } from '../move-rows.ts';
import { type Dialect, STAGE_DDL } from '../schema.ts';
import { type SqlSession, int } from '../session.ts';
import { firstRow } from './entries.ts';

/**
 * New tag sets of the journal's lines, with their options (a tag key is its options, canonical and sorted, joined with
 * ',').
 */
export async function registerTagSets(s: SqlSession, companyId: number): Promise<void> {
  const first = await nextId(s, 'tag_sets');
  await s.query(
    `INSERT INTO tag_sets (id, company_id, tag_key)
    SELECT CAST($2 AS BIGINT) - 1 + ROW_NUMBER() OVER (ORDER BY k.tag_key), CAST($1 AS INTEGER), k.tag_key
      FROM (SELECT DISTINCT tag_key FROM import_cells) k
     WHERE NOT EXISTS (SELECT 1 FROM tag_sets t WHERE t.company_id = $1 AND t.tag_key = k.tag_key)`,
    [companyId, first],
  );
  await s.query(
    `INSERT INTO tag_set_options (tag_set_id, option_id)
    SELECT id, option_id FROM (SELECT id, unnest(string_to_array(tag_key, ',')) AS option_id FROM tag_sets
                                WHERE company_id = $1 AND id >= $2 AND tag_key <> '') t`,
    [companyId, first],
  );
}

/**
 * Each line's tag set (its options cell, `l.options` → the cell's tag key → its id). DuckDB looks the cell up in a map
 * of the journal's cells to the company's tag sets held in a variable: with a join, its optimizer (which has no row
 * estimates for the tables an import makes in its transaction) may build the join's hash table on the 30M lines of a
 * large journal instead of the few cells, beyond the import's memory. PostgreSQL joins.
 */
const TAG_SET_OF: Record<
  Dialect,
  { prepare?: (companyId: number) => string; id: string; join: string; done?: string }
> = {
  duckdb: {
    prepare: (companyId) => `SET VARIABLE import_tag_sets = (SELECT map(list(c.options), list(t.id))
      FROM import_cells c JOIN tag_sets t ON t.tag_key = c.tag_key WHERE t.company_id = ${int(companyId)})`,
    id: "getvariable('import_tag_sets')[l.options]",
    join: '',
    done: 'RESET VARIABLE import_tag_sets',
  },
  postgres: {
    id: 't.id',
    join:
      'JOIN (SELECT c.options, t.id FROM import_cells c JOIN tag_sets t ON t.company_id = $1 ' +
      'AND t.tag_key = c.tag_key) t ON t.options = l.options',
  },
};

/**
 * Each line (`l`) with its entry: the entry's first line and the posted flag of that line (every line of an entry has
 * its date, checked).
 */
const LINE_ENTRY: Record<Dialect, { lines: string; firstLine: string; posted: string }> = {
  // A window over the lines, not a join of every line to its entry: a large import's memory holds the one, not the
  // other. One aggregate gives both: the least line * 2 + posted is the first line's, its low bit the flag.
  duckdb: {
    lines: `(SELECT line, location_id, account_id, options, entry_date, amount_cents,
                   MIN(line * 2 + CASE WHEN is_posted THEN 1 ELSE 0 END) OVER (PARTITION BY ref) AS first
              FROM import_lines) l`,
    firstLine: '(l.first >> 1)',
    posted: '(l.first & 1) = 1',
  },
  // A hash join of the lines with their entries (import_entries has each entry's first line and flag): PostgreSQL
  // spills a hash that outgrows work_mem in batches, and it is cheaper than sorting every line by entry. The lines
  // (the probe side) come out in the file's order, the order of their ids (STAGED_IN_KEY_ORDER).
  postgres: {
    lines: 'import_lines l JOIN import_entries e ON e.ref = l.ref',
    firstLine: 'e.first_line',
    posted: 'e.is_posted',
  },
};

/** The staged tables an import writes in their target's key order (MoveForm.staged): moved without a sort. */
export const STAGED_IN_KEY_ORDER: Record<Dialect, readonly StagedTable[]> = { postgres: ['stage_lines'], duckdb: [] };

/**
 * The checked journal as stage_* rows. Ids are the next free ids plus the CSV line (unique in one file; gaps do not
 * matter), so no row needs numbering.
 */
export async function stageJournal(s: SqlSession, dialect: Dialect, companyId: number): Promise<void> {
  const tagSet = TAG_SET_OF[dialect];
  const entryBase = (await nextId(s, 'journal_entries')) - 1;
  const lineBase = (await nextId(s, 'journal_lines')) - 1;
  for (const ddl of STAGE_DDL) await s.query(ddl);
  await s.query(
    `INSERT INTO stage_entries (id, company_id, location_id, entry_date, memo, is_posted, ref)
    SELECT CAST($2 AS BIGINT) + first_line, CAST($1 AS INTEGER), location_id, entry_date, memo, is_posted, ref
      FROM import_entries`,
    [companyId, entryBase],
  );
  if (tagSet.prepare !== undefined) await s.query(tagSet.prepare(companyId));
  const entry = LINE_ENTRY[dialect];
  await s.query(
    `INSERT INTO stage_lines (id, entry_id, company_id, location_id, account_id, tag_set_id, entry_date, is_posted,
      amount_cents)
    SELECT CAST($3 AS BIGINT) + l.line, CAST($2 AS BIGINT) + ${entry.firstLine}, CAST($1 AS INTEGER), l.location_id,
      l.account_id, ${tagSet.id}, l.entry_date, ${entry.posted}, l.amount_cents
      FROM ${entry.lines} ${tagSet.join}`,
    [companyId, entryBase, lineBase],
  );
  if (tagSet.done !== undefined) await s.query(tagSet.done);
}

/** An account-month beyond 2^53 - 1 cents is refused at the journal's first posted line on that account and month. */
export async function checkAccountMonths(s: SqlSession, companyId: number): Promise<void> {
  const over = await overfullAccountMonth(s, [companyId]);
  if (!over) return;
  const r = await firstRow(
    s,
    `SELECT l.line FROM import_entries e JOIN (SELECT line, ref FROM import_lines WHERE account_id = $1) l
      ON e.ref = l.ref
    WHERE e.is_posted AND CAST(e.entry_date AS VARCHAR) LIKE $2 ORDER BY e.first_line, l.line LIMIT 1`,
    [over.accountId, `${over.month}%`],
  );
  throw new JournalLineError(
    r ? int(r.line) : 2,
    `account ${over.accountId} would total more than 2^53 - 1 cents in ${over.month} (the largest amount a ` +
      `report can show exactly)`,
  );
}

export const DROP_IMPORT = [
  'DROP TABLE import_entries',
  'DROP VIEW import_lines',
  'DROP TABLE import_rows',
  'DROP TABLE import_cell_options',
  'DROP TABLE import_cells',
  'DROP TABLE import_line_keys',
];
