/**
 * The bulk body of loadJournal(): runs inside the adapter's transaction (and load lock). The engine reads the journal
 * CSV file (adapter reader: DuckDB read_csv, PostgreSQL COPY) and, in the same pass, shared SQL trims, checks and types
 * every row into import_rows (the first bad row's line is named with the message of scripts/import-format.md); the
 * reference rows are validated and written as load() does, then set-based SQL checks every entry (one date, known
 * location, accounts and tracking options of the company, one option per
 * category, balance, never imported before) and names the CSV line of the first problem, in the order the row-by-row
 * validation reported them. The checked rows become the stage_* tables with SQL, and join the ledger as any load
 * (moveStaged).
 */
import { IMPORT_STEPS, type JournalLoad } from '../ledger/writer.ts';
import { ENTRIES_SQL, checkCompany, checkEntries, checkEntryDates, checkReimports } from './journal-import/entries.ts';
import { ANALYZE, type JournalReader, readRows, type StepReporter } from './journal-import/rows.ts';
import {
  DROP_IMPORT,
  STAGED_IN_KEY_ORDER,
  checkAccountMonths,
  registerTagSets,
  stageJournal,
} from './journal-import/staging.ts';
import { type ChangeRecorder, moveStaged, writeBatchReferences } from './load-sql.ts';
import { MOVE_FORM } from './move-rows.ts';
import { type SqlSession, int } from './session.ts';

function stepReporter(progress: JournalLoad['progress']): StepReporter {
  return (name, fraction = 0) => progress?.({ step: IMPORT_STEPS.indexOf(name), name, fraction });
}

export async function loadJournal(
  s: SqlSession,
  load: JournalLoad,
  read: JournalReader,
  recordChange?: ChangeRecorder,
): Promise<number> {
  const step = stepReporter(load.progress);
  step('reading the file');
  await readRows(s, load.journal, read, step);
  const { companyId } = load;
  const { changed } = await writeBatchReferences(s, { ...load.references, entries: undefined }, recordChange, [
    companyId,
  ]);
  await s.query(ENTRIES_SQL);
  await ANALYZE[read.dialect](s, 'import_entries, locations, accounts, tracking_categories, tracking_options');
  const [count] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS n FROM import_entries');
  const entries = int(count?.n ?? '0');
  if (entries === 0) {
    for (const sql of DROP_IMPORT) await s.query(sql);
    await changed(false);
    return 0;
  }
  step('checking entries');
  await checkEntryDates(s);
  await checkCompany(s, companyId);
  await checkEntries(s, companyId);
  step('staging');
  await registerTagSets(s, companyId);
  await ANALYZE[read.dialect](s, 'tag_sets');
  await stageJournal(s, read.dialect, companyId);
  const replace = load.references.replaceEntries === true;
  if (!replace) await checkReimports(s, read.dialect, companyId, entries);
  step('writing the ledger');
  await moveStaged(
    s,
    { ...MOVE_FORM[read.dialect], staged: { inKeyOrder: STAGED_IN_KEY_ORDER[read.dialect] } },
    replace,
    () => checkAccountMonths(s, companyId),
    changed,
  );
  for (const sql of DROP_IMPORT) await s.query(sql);
  return entries;
}
