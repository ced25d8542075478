/**
 * The flat profit-and-loss report: a pure function from the company catalog, the effective options and the
 * store's per-account monthly sums to the report (pnl-semantics §3.3–3.12). No I/O, no formatting.
 */
import type { AccountMonthTotal, CompanyCatalog } from '../domain/ledger.ts';
import type { FlatOptions } from './flat-options.ts';
import { monthlyPeriods, type Period } from './periods.ts';
import { PNL_LAYOUT, type SectionName } from './pnl-layout.ts';
import { rowKeysByAccount, type RowKey } from './row-keys.ts';
import { sortRows, type SortableRow } from './row-order.ts';
import { boundedCents, sumCents, sumColumns } from './money.ts';

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

type RowKeys = ReadonlyMap<number, Readonly<RowKey>>;

/**
 * Per row key, the signed cents per period. Several accounts may share a row (account mapping): a cell adds its terms
 * in doubles while the sum stays a safe integer, and from the first that would not, every cell sums its terms exactly.
 */
function accumulate(totals: AccountMonthTotal[], keys: RowKeys, periods: Period[]) {
  const column = new Map(periods.map((p, i) => [p.key, i]));
  const rows = new Map<string, { key: RowKey; cents: number[] }>();
  for (const { accountId, month, cents } of totals) {
    const key = keys.get(accountId);
    const index = column.get(month);
    if (!key || index === undefined) continue;
    let row = rows.get(key.key);
    if (!row) rows.set(key.key, (row = { key, cents: new Array<number>(periods.length).fill(0) }));
    const next = row.cents[index]! + key.section.sign * cents;
    if (!Number.isSafeInteger(next)) return accumulateExactly(totals, keys, column, periods.length);
    row.cents[index] = next;
  }
  const sums = [...rows.values()];
  for (const row of sums) for (const cell of row.cents) boundedCents(cell);
  return sums;
}

/** The same sums, each cell gathering its terms and summing them exactly (money.ts). */
function accumulateExactly(totals: AccountMonthTotal[], keys: RowKeys, column: Map<string, number>, width: number) {
  const rows = new Map<string, { key: RowKey; terms: number[][] }>();
  for (const { accountId, month, cents } of totals) {
    const key = keys.get(accountId);
    const index = column.get(month);
    if (!key || index === undefined) continue;
    let row = rows.get(key.key);
    if (!row) rows.set(key.key, (row = { key, terms: Array.from({ length: width }, () => []) }));
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
  const bySection = new Map<string, (SortableRow & { cents: number[] })[]>();
  for (const { key, cents } of accountRows) {
    let inSection = bySection.get(key.section.name);
    if (!inSection) bySection.set(key.section.name, (inSection = []));
    inSection.push({ key, cents, total: sumCents(cents) });
  }
  const subtotals = new Map<string, number[]>();
  const rows: FlatRow[] = [];

  for (const item of PNL_LAYOUT) {
    if ('section' in item) {
      const { section } = item;
      const inSection = bySection.get(section.name) ?? [];
      for (const row of sortRows(inSection, options.orderBy)) {
        rows.push({
          rowType: 'Account',
          section: section.name,
          level: row.key.path.length - 1,
          accountNumber: row.key.accountNumber,
          rowName: row.key.rowName,
          fullName: row.key.fullName,
          isTotal: false,
          cents: row.cents,
        });
      }
      const total = sumColumns(
        inSection.map((r) => r.cents),
        periods.length,
      );
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
      const signed = terms.map(({ of, sign }) => subtotals.get(of)!.map((cents) => sign * cents));
      const cents = sumColumns(signed, periods.length);
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
