/**
 * CSV import (format: scripts/import-format.md). Parses a journal CSV (and optionally a reference CSV) into a
 * LedgerBatch, validates it with the shared batch validation, and loads it in one transaction. Every error names the
 * CSV line; nothing is written on any error.
 */
import { parse } from 'csv-parse/sync';
import { validateBatch, referencedCompanyIds } from './batch-validation.ts';
import { isIsoDate } from '../scalars/dates.ts';
import { LedgerValidationError, type BatchIssue } from './errors.ts';
import type {
  Account, AccountType, CompanyCatalog, JournalEntryInput, JournalLineInput, LedgerBatch, LedgerStore,
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

function readCsv(text: string, file: 'journal' | 'reference', required: string[]): Row[] {
  let rows: Row[];
  try {
    rows = parse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), info: true, skip_empty_lines: true, trim: true, relax_column_count: true, bom: true }) as Row[];
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new CsvImportError(e.lines ?? 1, `malformed CSV: ${e.message}`, file);
  }
  const header = rows[0] ? Object.keys(rows[0].record) : (parse(text, { to_line: 1, bom: true }) as string[][])[0]?.map((c) => c.trim().toLowerCase()) ?? [];
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new CsvImportError(1, `missing column(s): ${missing.join(', ')}`, file);
  return rows;
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
  const rows = readCsv(text, 'journal', ['entry', 'date', 'location', 'account', 'amount']);
  const byRef = new Map<string, { entry: JournalEntryInput; lines: number[] }>();
  for (const r of rows) {
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
    const l: JournalLineInput = { accountId, cents, trackingOptionIds };
    if (locationId !== group.entry.locationId) l.locationId = locationId;
    group.entry.lines.push(l);
    group.lines.push(line);
  }
  const groups = [...byRef.values()];
  return { entries: groups.map((g) => g.entry), entryLines: groups.map((g) => g.lines) };
}

/** Reference CSV (a `kind` column) → reference rows of a batch. */
export function parseReferenceCsv(text: string): Pick<ParsedCsv, 'referenceLines'> & { batch: LedgerBatch } {
  const rows = readCsv(text, 'reference', ['kind', 'id', 'name']);
  const batch: Required<Omit<LedgerBatch, 'entries'>> = {
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
  const companyId = options.companyId ?? (ref?.batch.companies?.length === 1 ? ref.batch.companies[0]!.id : 1);
  const j = parseJournalCsv(journal, companyId);
  return { batch: { ...(ref?.batch ?? {}), entries: j.entries }, entryLines: j.entryLines, referenceLines: ref?.referenceLines ?? {} };
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
  store: LedgerStore,
  journal: string,
  options: { reference?: string; companyId?: number } = {},
): Promise<number> {
  const parsed = parseLedgerCsv(journal, options);
  try {
    // Dry validation first for line-numbered errors (load() validates again, atomically, under its lock).
    const catalogs: CompanyCatalog[] = [];
    for (const id of referencedCompanyIds(parsed.batch)) {
      const c = await store.getCatalog(id);
      if (c) catalogs.push(c);
    }
    validateBatch(parsed.batch, catalogs);
    await store.load(parsed.batch);
  } catch (err) {
    throw toCsvError(err, parsed);
  }
  return parsed.batch.entries?.length ?? 0;
}
