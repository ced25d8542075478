/**
 * FlatReport → CSV, the wide form of pnl-semantics §3: RowType, Section, Level, AccountNumber, Name, FullName,
 * one column per period, then Total when present. RFC 4180 (csv-stringify: CRLF, quotes doubled when needed).
 * Amounts are exact decimals with two fraction digits, natural sign, no thousands separator. Text cells that a
 * spreadsheet would run as a formula (leading = + - @ tab CR) get a leading apostrophe (OWASP CSV injection).
 */
import { stringify } from 'csv-stringify/sync';
import type { FlatReport } from './flat-pnl.ts';
import { centsToFixed } from './money.ts';

export const CSV_FIXED_COLUMNS = ['RowType', 'Section', 'Level', 'AccountNumber', 'Name', 'FullName'] as const;

function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function renderCsv(report: FlatReport): string {
  const header = [...CSV_FIXED_COLUMNS, ...report.columnNames];
  const rows = report.rows.map((row) => [
    row.rowType,
    row.section,
    String(row.level),
    text(row.accountNumber ?? ''),
    text(row.rowName),
    text(row.fullName),
    ...row.cents.map(centsToFixed),
  ]);
  // A bare CR or LF in a cell (an account name) is quoted too: unquoted it starts a row the formula guard never saw.
  return stringify([header, ...rows], { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
}
