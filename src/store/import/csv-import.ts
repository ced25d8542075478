/**
 * CSV import (format: scripts/import-format.md). The reference CSV (small) is parsed into a LedgerBatch; the journal
 * is a file the engine reads itself (DuckDB read_csv, PostgreSQL COPY: journal-file.ts says where its columns are),
 * and the store checks its rows, against each other and the catalogs, with set-based SQL in the load's one
 * transaction, so memory does not grow with the file. A journal given as text or a stream is written to a temp file
 * first. Every error names the CSV line; nothing is written on any error.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse/sync';
import { atLine, JournalLineError, LedgerValidationError, type BatchIssue } from '../ledger/errors.ts';
import { readImportText, withImportFile } from './import-file.ts';
import { importChanges, ImportNotConfirmed, type AllowedChanges, type ImportChange } from './import-changes.ts';
import { describeJournalFile, readHead } from './journal-file.ts';
import { checkLedgerFileShapes } from './ledger-file-shape.ts';
import type { Account, AccountType, LedgerBatch } from '../../domain/ledger.ts';
import type { JournalLoad } from '../ledger/writer.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import { parseGuid } from '../../scalars/guids.ts';

export class CsvImportError extends Error {
  override readonly name = 'CsvImportError';
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly file: 'journal' | 'reference' = 'journal',
  ) {
    super(`${file === 'reference' ? 'reference ' : ''}${atLine(line, reason)}`);
  }
}

type Row = { record: Record<string, string | undefined>; info: { lines: number } };

/** The reference CSV's rows (the journal is read by the engine: journal-file.ts, journal-import-sql.ts). */
function readReferenceCsv(text: string, required: string[]): Row[] {
  let header: string[] = [];
  let rows: Row[];
  try {
    rows = parse(text, {
      columns: (h: string[]) => (header = h.map((c) => c.trim().toLowerCase())),
      info: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      bom: true,
    }) as Row[];
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new CsvImportError(e.lines ?? 1, `malformed CSV: ${e.message}`, 'reference');
  }
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new CsvImportError(1, `missing column(s): ${missing.join(', ')}`, 'reference');
  return rows;
}

const cell = (r: Row, c: string) => (r.record[c] ?? '').trim();
const intCell = (r: Row, c: string, optional = false): number | null => {
  const v = cell(r, c);
  if (v === '' && optional) return null;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) <= 0) {
    throw new CsvImportError(r.info.lines, `${c} "${v}" must be a positive integer`, 'reference');
  }
  return Number(v);
};

/** CSV line of each reference row, by kind (a refusal of a reference row names it). */
export type ReferenceLines = Partial<Record<Exclude<BatchIssue['at']['kind'], 'entry'>, number[]>>;

/** Reference CSV (a `kind` column) → reference rows of a batch. */
export function parseReferenceCsv(text: string): { referenceLines: ReferenceLines; batch: LedgerBatch } {
  const rows = readReferenceCsv(text, ['kind', 'id', 'name']);
  const batch: Required<Omit<LedgerBatch, 'entries' | 'replaceEntries'>> = {
    companies: [],
    locations: [],
    standardAccounts: [],
    accounts: [],
    trackingCategories: [],
    trackingOptions: [],
  };
  const lines: ReferenceLines = {};
  const note = (kind: keyof ReferenceLines, line: number) => (lines[kind] ??= []).push(line);
  for (const r of rows) {
    const line = r.info.lines;
    const kind = cell(r, 'kind').toLowerCase();
    const name = cell(r, 'name');
    const guid = (c: string) => {
      const g = parseGuid(cell(r, c));
      if (!g) throw new CsvImportError(line, `${c} "${cell(r, c)}" is not a GUID`, 'reference');
      return g;
    };
    const int = (c: string, optional = false) => intCell(r, c, optional);
    const type = () => cell(r, 'type') as AccountType;
    const number = () => cell(r, 'number') || null;
    switch (kind) {
      case 'company': {
        const fy = cell(r, 'fiscal_year_start_month');
        batch.companies.push({
          id: int('id')!,
          name,
          baseCurrency: cell(r, 'base_currency') || 'USD',
          fiscalYearStartMonth: fy === '' ? 1 : Number(fy),
          timeZone: cell(r, 'time_zone') || 'UTC',
        });
        note('companies', line);
        break;
      }
      case 'location':
        batch.locations.push({ id: int('id')!, companyId: int('company_id')!, name });
        note('locations', line);
        break;
      case 'standard_account':
        batch.standardAccounts.push({
          id: int('id')!,
          companyId: int('company_id')!,
          number: number(),
          name,
          type: type(),
          parentId: int('parent_id', true),
          sortOrder: cell(r, 'sort_order') === '' ? 0 : Number(cell(r, 'sort_order')),
        });
        note('standardAccounts', line);
        break;
      case 'account': {
        const active = cell(r, 'is_active').toLowerCase();
        const a: Account = {
          id: int('id')!,
          companyId: int('company_id')!,
          number: number(),
          name,
          type: type(),
          parentId: int('parent_id', true),
          isActive: !['false', '0', 'no'].includes(active),
          standardAccountId: int('standard_account_id', true),
        };
        batch.accounts.push(a);
        note('accounts', line);
        break;
      }
      case 'tracking_category':
        batch.trackingCategories.push({ id: guid('id'), companyId: int('company_id')!, name });
        note('trackingCategories', line);
        break;
      case 'tracking_option':
        batch.trackingOptions.push({ id: guid('id'), categoryId: guid('category_id'), name });
        note('trackingOptions', line);
        break;
      default:
        throw new CsvImportError(
          line,
          `unknown kind "${cell(r, 'kind')}" (expected company, location, account, standard_account, ` +
            `tracking_category or tracking_option)`,
          'reference',
        );
    }
  }
  return { batch, referenceLines: lines };
}

/** The companies an import loads: the journal's first, then those its reference file names. */
export function importedCompanyIds(reference: string | undefined, companyId: number | undefined): number[] {
  const ref = reference === undefined ? undefined : parseReferenceCsv(reference);
  return [...new Set([journalCompany(ref, companyId), ...(ref?.batch.companies ?? []).map((c) => c.id)])];
}

/** `--company N`, else the single company of the reference file, else 1. */
function journalCompany(ref: { batch: LedgerBatch } | undefined, companyId: number | undefined): number {
  return companyId ?? (ref?.batch.companies?.length === 1 ? ref.batch.companies[0]!.id : 1);
}

/** Maps a refusal of the store to the CSV line it names (journal), or to the reference row's line. */
export function toCsvError(err: unknown, referenceLines: ReferenceLines): unknown {
  if (err instanceof JournalLineError) return new CsvImportError(err.line, err.reason);
  if (!(err instanceof LedgerValidationError) || err.issues.length === 0) return err;
  const { at, message } = err.issues[0]!;
  if (at.kind === 'entry') return new CsvImportError(0, message);
  return new CsvImportError(referenceLines[at.kind]?.[at.index] ?? 0, message, 'reference');
}

/** A journal: CSV text, a stream of it, or a file (read where it is, by the engine). */
export type JournalInput = string | Readable | { path: string };

/**
 * Runs `use` with the path the engine reads the journal's file by (import-file.ts: a regular file only, its path taken
 * literally); text and streams are written to a temp file first (then removed).
 */
async function withJournalFile<T>(journal: JournalInput, use: (path: string) => Promise<T>): Promise<T> {
  if (typeof journal === 'object' && 'path' in journal) return withImportFile(journal.path, (file) => use(file.path));
  const dir = await mkdtemp(join(tmpdir(), 'journal-'));
  try {
    const path = join(dir, 'journal.csv');
    if (typeof journal === 'string') await writeFile(path, journal);
    else await pipeline(journal, createWriteStream(path));
    return await withImportFile(path, (file) => use(file.path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Loads the journal (and the reference rows) in one transaction: the engine reads the journal file and set-based SQL
 * checks it. Returns the number of entries loaded.
 */
export async function importLedgerCsv(
  store: Pick<LedgerStore, 'loadJournal' | 'storedCatalog' | 'pnlSpan'>,
  journal: JournalInput,
  options: {
    reference?: string;
    companyId?: number;
    /** Re-imported entry ids replace their earlier entries. */
    replace?: boolean;
    /** Told each step of the import as it starts (and the share of the file read, when the engine says). */
    progress?: JournalLoad['progress'];
    /**
     * Asked, before anything is written, whether to go on with the changes the import makes to data the store holds
     * (import-changes.ts); false refuses the import with ImportNotConfirmed. Without it the import does not look.
     */
    confirm?: (changes: ImportChange[]) => Promise<boolean>;
  } = {},
): Promise<number> {
  return withJournalFile(journal, async (path) => {
    const head = await readHead(path);
    checkLedgerFileShapes(head, options.reference, (file, reason) => new CsvImportError(1, reason, file));
    const ref = options.reference !== undefined ? parseReferenceCsv(options.reference) : undefined;
    const references: LedgerBatch = { ...(ref?.batch ?? {}), replaceEntries: options.replace === true };
    const companyId = journalCompany(ref, options.companyId);
    if (options.confirm) {
      const changes = await importChanges(store, references, companyId);
      if (changes.length && !(await options.confirm(changes))) throw new ImportNotConfirmed(changes);
    }
    try {
      const file = await describeJournalFile(path, head);
      return await store.loadJournal({
        references,
        companyId,
        journal: file,
        progress: options.progress,
      });
    } catch (err) {
      throw toCsvError(err, ref?.referenceLines ?? {});
    }
  });
}

/** What `npm run import` asks of a running server that holds the embedded store (src/ops/key-admin-socket.ts). */
export interface ImportFilesRequest {
  /** Absolute paths, read by the server itself (the socket admits only the files' owner). */
  journal: string;
  reference?: string;
  companyId?: number;
  replace?: boolean;
  /** The kinds of change to existing data the user allowed by flag (import-changes.ts). */
  allow?: AllowedChanges;
}

export type ImportFilesReply =
  | { loaded: number; companyIds: number[] }
  | { refused: { line: number; reason: string; file: 'journal' | 'reference' } }
  | { unconfirmed: ImportChange[] };

/**
 * Imports the files as the CLI would; a refusal is an answer (its CSV line and reason, or the changes to existing data
 * that were neither allowed nor confirmed through `confirm`), not an error.
 */
export async function importLedgerFiles(
  store: Pick<LedgerStore, 'loadJournal' | 'storedCatalog' | 'pnlSpan'>,
  request: ImportFilesRequest,
  report: Pick<NonNullable<Parameters<typeof importLedgerCsv>[2]>, 'progress' | 'confirm'> = {},
): Promise<ImportFilesReply> {
  const reference = request.reference === undefined ? undefined : await readImportText(request.reference);
  try {
    const loaded = await importLedgerCsv(
      store,
      { path: request.journal },
      { reference, companyId: request.companyId, replace: request.replace, ...report },
    );
    return { loaded, companyIds: importedCompanyIds(reference, request.companyId) };
  } catch (err) {
    if (err instanceof CsvImportError) return { refused: { line: err.line, reason: err.reason, file: err.file } };
    if (err instanceof ImportNotConfirmed) return { unconfirmed: err.changes };
    throw err;
  }
}
