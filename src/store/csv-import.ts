/**
 * CSV import (format: scripts/import-format.md). The reference CSV (small) is parsed into a LedgerBatch; the journal
 * is read as a stream (csv-parse's streaming parser), each row checked on its own and handed to the store in chunks
 * that the engine takes in bulk, so memory holds one chunk whatever the file's size (it held every entry: 2.8 GB for
 * 1M). The store checks the rows against each other and the catalogs with set-based SQL, in the load's one
 * transaction. Every error names the CSV line; nothing is written on any error.
 */
import { Readable } from 'node:stream';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { isIsoDate } from '../scalars/dates.ts';
import { JournalLineError, LedgerValidationError, type BatchIssue } from './errors.ts';
import { checkLedgerFileShapes } from './ledger-file-shape.ts';
import type { Account, AccountType, LedgerBatch, LedgerStore } from './ledger-store.ts';
import type { JournalChunk } from './sql-session.ts';
import { tagSetKey } from './tag-sets.ts';
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

/** CSV line of each reference row, by kind (a refusal of a reference row names it). */
export type ReferenceLines = Partial<Record<Exclude<BatchIssue['at']['kind'], 'entry'>, number[]>>;

/** Rows per chunk handed to the store: memory holds one chunk, whatever the file's size. */
const CHUNK_ROWS = 8_192;

function emptyChunk(): JournalChunk {
  return {
    lines: { line: [], ref: [], date: [], locationId: [], accountId: [], cents: [], tagKey: [], memo: [], posted: [] },
    options: { line: [], optionId: [] },
  };
}

/**
 * Journal CSV rows, each checked on its own (formats: date, ids, amount, GUIDs, posted) and handed on in chunks;
 * checks across rows and against the store are the store's, in SQL (journal-import-sql.ts).
 */
export async function* journalChunks(input: Readable): AsyncGenerator<JournalChunk> {
  let chunk = emptyChunk();
  for await (const r of streamCsv(input, 'journal', JOURNAL_COLUMNS)) {
    addJournalRow(chunk, r);
    if (chunk.lines.line.length >= CHUNK_ROWS) (yield chunk, (chunk = emptyChunk()));
  }
  if (chunk.lines.line.length > 0) yield chunk;
}

function addJournalRow({ lines: L, options: O }: JournalChunk, r: Row): void {
  const line = r.info.lines;
  const ref = cell(r, 'entry');
  if (ref === '') throw new CsvImportError(line, 'entry is empty');
  const date = cell(r, 'date');
  if (!isIsoDate(date)) throw new CsvImportError(line, `date "${date}" is not a valid YYYY-MM-DD date`);
  const locationId = intCell(r, 'location', 'journal')!;
  const accountId = intCell(r, 'account', 'journal')!;
  const cents = parseDecimalCents(cell(r, 'amount'));
  if (cents === undefined) throw new CsvImportError(line, `amount "${cell(r, 'amount')}" is not a decimal with at most 2 decimals`);
  const optionIds: string[] = [];
  for (const raw of cell(r, 'options').split(';').map((o) => o.trim()).filter((o) => o !== '')) {
    const id = parseGuid(raw);
    if (!id) throw new CsvImportError(line, `option "${raw}" is not a GUID`);
    optionIds.push(id);
  }
  const posted = cell(r, 'posted');
  const isPosted = posted === '' ? true : parseSettingBoolean(posted);
  if (isPosted === undefined) throw new CsvImportError(line, `posted "${posted.toLowerCase()}" must be true or false`);
  const distinct = [...new Set(optionIds)].sort();
  L.line.push(line); L.ref.push(ref); L.date.push(date); L.locationId.push(locationId); L.accountId.push(accountId);
  L.cents.push(cents); L.tagKey.push(tagSetKey(distinct)); L.memo.push(cell(r, 'memo') || null); L.posted.push(isPosted);
  for (const id of optionIds) (O.line.push(line), O.optionId.push(id));
}

/** Reference CSV (a `kind` column) → reference rows of a batch. */
export function parseReferenceCsv(text: string): { referenceLines: ReferenceLines; batch: LedgerBatch } {
  const rows = readCsv(text, 'reference', ['kind', 'id', 'name']);
  const batch: Required<Omit<LedgerBatch, 'entries' | 'replaceEntries'>> = {
    companies: [], locations: [], standardAccounts: [], accounts: [], trackingCategories: [], trackingOptions: [],
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

/**
 * Parses and loads in one transaction: the journal is streamed to the store a chunk at a time and checked there by
 * set-based SQL. Returns the number of entries loaded.
 */
export async function importLedgerCsv(
  store: Pick<LedgerStore, 'loadJournal'>,
  journal: string | Readable,
  options: { reference?: string; companyId?: number; /** Re-imported entry ids replace their earlier entries. */ replace?: boolean } = {},
): Promise<number> {
  journal = await checkLedgerFileShapes(journal, options.reference, (file, reason) => new CsvImportError(1, reason, file));
  const ref = options.reference !== undefined ? parseReferenceCsv(options.reference) : undefined;
  const references: LedgerBatch = { ...(ref?.batch ?? {}), replaceEntries: options.replace === true };
  const input = typeof journal === 'string' ? Readable.from([journal]) : journal;
  try {
    return await store.loadJournal({ references, companyId: journalCompany(ref, options.companyId), chunks: journalChunks(input) });
  } catch (err) {
    throw toCsvError(err, ref?.referenceLines ?? {});
  }
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
export async function importLedgerFiles(store: Pick<LedgerStore, 'loadJournal'>, request: ImportFilesRequest): Promise<ImportFilesReply> {
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
