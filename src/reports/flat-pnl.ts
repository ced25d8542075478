/**
 * The flat profit-and-loss report: a pure function from the company catalog, the effective options and the
 * store's per-account monthly sums to the report (pnl-semantics §3.3–3.12). No I/O, no formatting.
 */
import type { AccountMonthTotal, CompanyCatalog } from '../domain/ledger.ts';
import type { FlatOptions } from './flat-options.ts';
import { monthlyPeriods, type Period } from './periods.ts';
import { PNL_LAYOUT, type SectionName } from './pnl-layout.ts';
import { rowKeysByAccount, type RowKey } from './row-keys.ts';
import { sortRows } from './row-order.ts';
import { sumCents } from './money.ts';

export type RowType = 'Account' | 'SectionTotal' | 'Computed';

export interface FlatRow {
  rowType: RowType;
  /** Empty for computed rows. */
  section: SectionName | '';
  level: number;
  accountNumber?: string;
  rowName: string;
  fullName: string;
  isTotal: boolean;
  /** Integer cents in natural sign, one per column (periods, then Total when present). */
  cents: number[];
}

export interface FlatReport {
  periods: Period[];
  /** Labels of every column: the periods, then `Total` when computed columns apply. */
  columnNames: string[];
  rows: FlatRow[];
}

const TOTAL_COLUMN = 'Total';

/** Column by column, the exact sums of the rows' cells (money.ts: exact, or refused beyond the bound). */
function sumCells(rows: { cents: number[] }[], width: number): number[] {
  return Array.from({ length: width }, (_, i) => sumCents(rows.map((row) => row.cents[i]!)));
}

function displayName(key: RowKey): string {
  return key.accountNumber ? `${key.accountNumber} ${key.name}` : key.name;
}

/** Per row key, the signed cents per period. */
function accumulate(totals: AccountMonthTotal[], keys: Map<number, RowKey>, periods: Period[]) {
  const column = new Map(periods.map((p, i) => [p.key, i]));
  // Several accounts may share a row (account mapping): each cell gathers its terms, then sums them exactly.
  const rows = new Map<string, { key: RowKey; terms: number[][] }>();
  for (const { accountId, month, cents } of totals) {
    const key = keys.get(accountId);
    const index = column.get(month);
    if (!key || index === undefined) continue;
    let row = rows.get(key.key);
    if (!row) rows.set(key.key, (row = { key, terms: periods.map(() => []) }));
    row.terms[index]!.push(key.section.sign * cents);
  }
  return [...rows.values()].map(({ key, terms }) => ({ key, cents: terms.map(sumCents) }));
}

export function buildFlatPnl(catalog: CompanyCatalog, options: FlatOptions, totals: AccountMonthTotal[]): FlatReport {
  const periods = monthlyPeriods(options.range);
  const withTotal = options.includeComputedColumns && periods.length > 1;
  const accountRows = accumulate(totals, rowKeysByAccount(catalog, options.useAccountMapping), periods).filter((r) =>
    r.cents.some((c) => c !== 0),
  );
  const subtotals = new Map<string, number[]>();
  const rows: FlatRow[] = [];

  for (const item of PNL_LAYOUT) {
    if ('section' in item) {
      const { section } = item;
      const inSection = accountRows
        .filter((r) => r.key.section.name === section.name)
        .map((r) => ({ ...r, total: sumCents(r.cents) }));
      for (const row of sortRows(inSection, options.orderBy)) {
        rows.push({
          rowType: 'Account',
          section: section.name,
          level: row.key.path.length - 1,
          accountNumber: row.key.accountNumber,
          rowName: displayName(row.key),
          fullName: [section.name, ...row.key.path].join(':'),
          isTotal: false,
          cents: row.cents,
        });
      }
      const total = sumCells(inSection, periods.length);
      subtotals.set(section.name, total);
      rows.push({
        rowType: 'SectionTotal',
        section: section.name,
        level: 0,
        rowName: section.totalLabel,
        fullName: section.totalLabel,
        isTotal: true,
        cents: total,
      });
    } else {
      const { label, terms } = item.computed;
      const cents = periods.map((_, i) => sumCents(terms.map((t) => t.sign * subtotals.get(t.of)![i]!)));
      subtotals.set(label, cents);
      rows.push({ rowType: 'Computed', section: '', level: 0, rowName: label, fullName: label, isTotal: true, cents });
    }
  }

  if (withTotal) for (const row of rows) row.cents.push(sumCents(row.cents));
  return {
    periods,
    columnNames: [...periods.map((p) => p.label), ...(withTotal ? [TOTAL_COLUMN] : [])],
    rows,
  };
}
