/** What writes a store's ledger: a batch, a batch into an empty store, and a journal CSV file read by the engine. */
import type { LedgerBatch } from '../../domain/ledger.ts';

/** The journal's columns (scripts/import-format.md); the first five are required. */
export const JOURNAL_COLUMNS = ['entry', 'date', 'location', 'account', 'amount', 'options', 'memo', 'posted'] as const;
export type JournalColumn = (typeof JOURNAL_COLUMNS)[number];

/** A journal CSV file as the engine reads it (import/journal-file.ts describes one). */
export interface JournalFile {
  path: string;
  /** Cells per row (the header's). */
  width: number;
  /** The header's names (trimmed, lower-cased), by position. */
  header: string[];
  /** The position of each journal column the header names. */
  columns: Partial<Record<JournalColumn, number>>;
  /** True when the file holds a quote: some cell may then span lines. */
  quoted: boolean;
  /** Bytes up to the last row's end (trailing blank lines left out). */
  size: number;
}

/**
 * A journal to load in bulk (a CSV import): the engine reads the file itself (DuckDB read_csv, PostgreSQL COPY) and
 * set-based SQL checks its rows, against each other and the store (journal-import-sql.ts). All-or-nothing.
 */
export interface JournalLoad {
  /** Reference rows loaded with the journal (no `entries`; `replaceEntries` as for load()). */
  references: LedgerBatch;
  /** The company every entry of the journal belongs to. */
  companyId: number;
  journal: JournalFile;
  /**
   * Told each step of the import as it starts, and how far the engine has read the file when it can say (a progress
   * bar).
   */
  progress?: (at: ImportProgress) => void;
}

/** The steps of an import, in order (journal-import-sql.ts). */
export const IMPORT_STEPS = [
  'reading the file',
  'checking rows',
  'checking entries',
  'staging',
  'writing the ledger',
] as const;

/** Where an import is: step `step` (0-based) of IMPORT_STEPS, `fraction` (0-1) of it done. */
export interface ImportProgress {
  step: number;
  name: (typeof IMPORT_STEPS)[number];
  fraction: number;
}

export interface LedgerWriter {
  /**
   * Validates (balanced entries, known references) and writes the batch in one transaction, or throws and writes
   * nothing.
   */
  load(batch: LedgerBatch): Promise<void>;
  /**
   * Loads the batch only into a store that holds no company, deciding under the load lock in the same transaction,
   * so of any number of concurrent callers (instances starting together) exactly one loads. True when it loaded.
   */
  loadIfEmpty(batch: LedgerBatch): Promise<boolean>;
  /**
   * Loads a journal CSV file read by the engine, in one transaction, in memory that does not grow with the file;
   * returns the number of entries. A row the checks refuse throws JournalLineError naming its CSV line; reference rows
   * as load() does.
   */
  loadJournal(load: JournalLoad): Promise<number>;
}
