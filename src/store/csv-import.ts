/**
 * CSV import (format: scripts/import-format.md). Parses a journal CSV (and optionally a reference CSV) into a
 * LedgerBatch, validates it with the shared batch validation, and loads it in one transaction. Every error names the
 * CSV line; nothing is written on any error. A journal file is read as a stream (csv-parse's streaming parser): only
 * the entries it builds are held, never the file's text or its parsed rows (a 114 MB file took 3.7 GB).
 */
import type { Readable } from 'node:stream';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { isIsoDate } from '../scalars/dates.ts';
import { LedgerValidationError, type BatchIssue } from './errors.ts';
import { checkLedgerFileShapes } from './ledger-file-shape.ts';
import type {
  Account, AccountType, JournalEntryInput, JournalLineInput, LedgerBatch, LedgerStore,
} from './ledger-store.ts';
import { parseDecimalCents } from './money.ts';
import { parseSettingBoolean } from '../scalars/booleans.ts';
import { parseGuid } from '../scalars/guids.ts';

export class CsvImportError extends Error {
  override readonly name = 'CsvImportError';
  constructor(readonly line: number, readonly reason: string, readonly file: 'journal' | 'reference' = 'journal') {
    super(`${file === 'reference' ? 'reference ' : ''}line ${line}: ${reason}`);
  }
}

type Row = { record: Record<string, string | undefined>; info: { lines: number } };

/** The parser's options, and the header it read (names trimmed, lower-cased). */
function csvOptions() {
  const seen = { header: [] as string[] };
  const options = {
    columns: (h: string[]) => (seen.header = h.map((c) => c.trim().toLowerCase())),
    info: true, skip_empty_lines: true, trim: true, relax_column_count: true, bom: true,
  };
  return { options, seen };
}

function malformedCsv(err: unknown, file: 'journal' | 'reference'): CsvImportError {
  const e = err as Error & { lines?: number };
  return new CsvImportError(e.lines ?? 1, `malformed CSV: ${e.message}`, file);
}

function checkHeader(header: string[], file: 'journal' | 'reference', required: string[]): void {
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new CsvImportError(1, `missing column(s): ${missing.join(', ')}`, file);
}

function readCsv(text: string, file: 'journal' | 'reference', required: string[]): Row[] {
  const { options, seen } = csvOptions();
  let rows: Row[];
  try {
    rows = parse(text, options) as Row[];
  } catch (err) {
    throw malformedCsv(err, file);
  }
  checkHeader(seen.header, file, required);
  return rows;
}

const JOURNAL_COLUMNS = ['entry', 'date', 'location', 'account', 'amount'];

/** Rows of a CSV stream, one at a time (the header checked before the first). */
async function* streamCsv(input: Readable, file: 'journal' | 'reference', required: string[]): AsyncGenerator<Row> {
  const { options, seen } = csvOptions();
  const parser = input.pipe(parseStream(options));
  input.once('error', (err) => parser.destroy(err));
  let checked = false;
  try {
    for await (const row of parser) {
      if (!checked) (checkHeader(seen.header, file, required), (checked = true));
      yield row as Row;
    }
  } catch (err) {
    if (err instanceof CsvImportError) throw err;
    if ((err as NodeJS.ErrnoException).code?.startsWith('CSV_')) throw malformedCsv(err, file);
    throw err;
  }
  if (!checked) checkHeader(seen.header, file, required);
}

const cell = (r: Row, c: string) => (r.record[c] ?? '').trim();
const intCell = (r: Row, c: string, file: 'journal' | 'reference', optional = false): number | null => {
  const v = cell(r, c);
  if (v === '' && optional) return null;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) <= 0) {
    throw new CsvImportError(r.info.lines, `${c} "${v}" must be a positive integer`, file);
  }
  return Number(v);
};

export interface ParsedCsv {
  batch: LedgerBatch;
  /** CSV line of each entry's lines (journal), and of each reference row by kind. */
  entryLines: number[][];
  referenceLines: Partial<Record<Exclude<BatchIssue['at']['kind'], 'entry'>, number[]>>;
}

/** Journal CSV → entries. Columns: entry,date,location,account,amount[,options][,memo][,posted]. */
export function parseJournalCsv(text: string, companyId: number): Pick<ParsedCsv, 'entryLines'> & { entries: JournalEntryInput[] } {
  const journal = new JournalBuilder(companyId);
  for (const r of readCsv(text, 'journal', JOURNAL_COLUMNS)) journal.add(r);
  return journal.result();
}

/** The same, from a stream (a file of any size): rows are read one at a time. */
export async function readJournalCsv(input: Readable, companyId: number): Promise<Pick<ParsedCsv, 'entryLines'> & { entries: JournalEntryInput[] }> {
  const journal = new JournalBuilder(companyId);
  for await (const r of streamCsv(input, 'journal', JOURNAL_COLUMNS)) journal.add(r);
  return journal.result();
}

/** Journal rows → entries, grouped by their `entry` id, each row checked as it comes. */
class JournalBuilder {
  private readonly byRef = new Map<string, { entry: JournalEntryInput; lines: number[] }>();
  constructor(private readonly companyId: number) {}

  result(): Pick<ParsedCsv, 'entryLines'> & { entries: JournalEntryInput[] } {
    const groups = [...this.byRef.values()];
    return { entries: groups.map((g) => g.entry), entryLines: groups.map((g) => g.lines) };
  }

  add(r: Row): void {
    const { byRef, companyId } = this;
    const line = r.info.lines;
    const ref = cell(r, 'entry');
    if (ref === '') throw new CsvImportError(line, 'entry is empty');
    const date = cell(r, 'date');
    if (!isIsoDate(date)) throw new CsvImportError(line, `date "${date}" is not a valid YYYY-MM-DD date`);
    const locationId = intCell(r, 'location', 'journal')!;
    const accountId = intCell(r, 'account', 'journal')!;
    const cents = parseDecimalCents(cell(r, 'amount'));
    if (cents === undefined) throw new CsvImportError(line, `amount "${cell(r, 'amount')}" is not a decimal with at most 2 decimals`);
    const trackingOptionIds: string[] = [];
    for (const raw of cell(r, 'options').split(';').map((o) => o.trim()).filter((o) => o !== '')) {
      const id = parseGuid(raw);
      if (!id) throw new CsvImportError(line, `option "${raw}" is not a GUID`);
      trackingOptionIds.push(id);
    }
    const posted = cell(r, 'posted');
    const isPosted = posted === '' ? true : parseSettingBoolean(posted);
    if (isPosted === undefined) throw new CsvImportError(line, `posted "${posted.toLowerCase()}" must be true or false`);
    const memo = cell(r, 'memo');
    let group = byRef.get(ref);
    if (!group) {
      group = {
        entry: { ref, companyId, locationId, date, memo: memo || undefined, isPosted, lines: [] },
        lines: [],
      };
      byRef.set(ref, group);
    } else if (group.entry.date !== date) {
      throw new CsvImportError(line, `entry ${ref} has date ${date} but its first line has ${group.entry.date}`);
    }
    const l: JournalLineInput = trackingOptionIds.length ? { accountId, cents, trackingOptionIds } : { accountId, cents };
    if (locationId !== group.entry.locationId) l.locationId = locationId;
    group.entry.lines.push(l);
    group.lines.push(line);
  }
}

/** Reference CSV (a `kind` column) → reference rows of a batch. */
export function parseReferenceCsv(text: string): Pick<ParsedCsv, 'referenceLines'> & { batch: LedgerBatch } {
  const rows = readCsv(text, 'reference', ['kind', 'id', 'name']);
  const batch: Required<Omit<LedgerBatch, 'entries' | 'replaceEntries'>> = {
    companies: [], locations: [], standardAccounts: [], accounts: [], trackingCategories: [], trackingOptions: [],
  };
  const lines: ParsedCsv['referenceLines'] = {};
  const note = (kind: keyof ParsedCsv['referenceLines'], line: number) => (lines[kind] ??= []).push(line);
  for (const r of rows) {
    const line = r.info.lines;
    const kind = cell(r, 'kind').toLowerCase();
    const name = cell(r, 'name');
    const guid = (c: string) => {
      const g = parseGuid(cell(r, c));
      if (!g) throw new CsvImportError(line, `${c} "${cell(r, c)}" is not a GUID`, 'reference');
      return g;
    };
    const int = (c: string, optional = false) => intCell(r, c, 'reference', optional);
    const type = () => cell(r, 'type') as AccountType;
    const number = () => cell(r, 'number') || null;
    switch (kind) {
      case 'company': {
        const fy = cell(r, 'fiscal_year_start_month');
        batch.companies.push({
          id: int('id')!, name, baseCurrency: cell(r, 'base_currency') || 'USD',
          fiscalYearStartMonth: fy === '' ? 1 : Number(fy), timeZone: cell(r, 'time_zone') || 'UTC',
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
          id: int('id')!, companyId: int('company_id')!, number: number(), name, type: type(),
          parentId: int('parent_id', true), sortOrder: cell(r, 'sort_order') === '' ? 0 : Number(cell(r, 'sort_order')),
        });
        note('standardAccounts', line);
        break;
      case 'account': {
        const active = cell(r, 'is_active').toLowerCase();
        const a: Account = {
          id: int('id')!, companyId: int('company_id')!, number: number(), name, type: type(), parentId: int('parent_id', true),
          isActive: !['false', '0', 'no'].includes(active), standardAccountId: int('standard_account_id', true),
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
        throw new CsvImportError(line, `unknown kind "${cell(r, 'kind')}" (expected company, location, account, standard_account, tracking_category or tracking_option)`, 'reference');
    }
  }
  return { batch, referenceLines: lines };
}

export function parseLedgerCsv(journal: string, options: { reference?: string; companyId?: number } = {}): ParsedCsv {
  const ref = options.reference !== undefined ? parseReferenceCsv(options.reference) : undefined;
  const j = parseJournalCsv(journal, journalCompany(ref, options.companyId));
  return { batch: { ...(ref?.batch ?? {}), entries: j.entries }, entryLines: j.entryLines, referenceLines: ref?.referenceLines ?? {} };
}

/** The same, reading the journal as a stream (a file of any size). */
export async function readLedgerCsv(journal: Readable, options: { reference?: string; companyId?: number } = {}): Promise<ParsedCsv> {
  const ref = options.reference !== undefined ? parseReferenceCsv(options.reference) : undefined;
  const j = await readJournalCsv(journal, journalCompany(ref, options.companyId));
  return { batch: { ...(ref?.batch ?? {}), entries: j.entries }, entryLines: j.entryLines, referenceLines: ref?.referenceLines ?? {} };
}

/** `--company N`, else the single company of the reference file, else 1. */
function journalCompany(ref: { batch: LedgerBatch } | undefined, companyId: number | undefined): number {
  return companyId ?? (ref?.batch.companies?.length === 1 ? ref.batch.companies[0]!.id : 1);
}

/** Maps the first validation issue to its CSV line. */
export function toCsvError(err: unknown, parsed: ParsedCsv): unknown {
  if (!(err instanceof LedgerValidationError) || err.issues.length === 0) return err;
  const issue = err.issues[0]!;
  const at = issue.at;
  if (at.kind === 'entry') {
    const lines = parsed.entryLines[at.entryIndex] ?? [];
    return new CsvImportError(lines[at.lineIndex ?? 0] ?? lines[0] ?? 0, issue.message);
  }
  return new CsvImportError(parsed.referenceLines[at.kind]?.[at.index] ?? 0, issue.message, 'reference');
}

/** Parses, validates against the store, and loads in one transaction. Returns the number of entries loaded. */
export async function importLedgerCsv(
  store: Pick<LedgerStore, 'load'>,
  journal: string | Readable,
  options: { reference?: string; companyId?: number; /** Re-imported entry ids replace their earlier entries. */ replace?: boolean } = {},
): Promise<number> {
  journal = await checkLedgerFileShapes(journal, options.reference, (file, reason) => new CsvImportError(1, reason, file));
  const parsed = typeof journal === 'string' ? parseLedgerCsv(journal, options) : await readLedgerCsv(journal, options);
  try {
    // load() validates atomically under its lock; its issues name batch positions, mapped back to CSV lines below.
    await store.load(options.replace ? { ...parsed.batch, replaceEntries: true } : parsed.batch);
  } catch (err) {
    throw toCsvError(err, parsed);
  }
  return parsed.batch.entries?.length ?? 0;
}

/** What `npm run import` asks of a running server that holds the embedded store (src/ops/key-admin-socket.ts). */
export interface ImportFilesRequest {
  /** Absolute paths, read by the server itself (the socket admits only the files' owner). */
  journal: string;
  reference?: string;
  companyId?: number;
  replace?: boolean;
}

export type ImportFilesReply =
  | { loaded: number }
  | { refused: { line: number; reason: string; file: 'journal' | 'reference' } };

/** Imports the files as the CLI would; a refusal is an answer (its CSV line and reason), not an error. */
export async function importLedgerFiles(store: Pick<LedgerStore, 'load'>, request: ImportFilesRequest): Promise<ImportFilesReply> {
  const { createReadStream, readFileSync } = await import('node:fs');
  const reference = request.reference === undefined ? undefined : readFileSync(request.reference, 'utf8');
  try {
    const journal = createReadStream(request.journal);
    await new Promise<void>((resolve, reject) => journal.once('open', () => resolve()).once('error', reject));
    const loaded = await importLedgerCsv(store, journal, { reference, companyId: request.companyId, replace: request.replace });
    return { loaded };
  } catch (err) {
    if (err instanceof CsvImportError) return { refused: { line: err.line, reason: err.reason, file: err.file } };
    throw err;
  }
}
