/**
 * The income statement declared as data (pnl-semantics §3.8): sections in fixed order with their account
 * types and sign, and the computed rows as signed sums of section totals.
 */
import type { PnlAccountType } from '../domain/ledger.ts';

export type SectionName = 'Income' | 'COGS' | 'Expenses' | 'Other Income' | 'Other Expenses';

export interface SectionSpec {
  name: SectionName;
  type: PnlAccountType;
  /** Credit-normal sections present −(debit − credit). */
  sign: 1 | -1;
  totalLabel: string;
  unmappedLabel: string;
}

export interface ComputedSpec {
  label: string;
  /** Each term adds (or subtracts) a section total or an earlier computed row. */
  terms: { of: SectionName | string; sign: 1 | -1 }[];
}

/** Items in report order: a section, or a computed row after the sections it depends on. */
export type LayoutItem = { section: SectionSpec } | { computed: ComputedSpec };

const section = (name: SectionName, type: PnlAccountType, sign: 1 | -1, unmapped: string): LayoutItem => ({
  section: { name, type, sign, totalLabel: `Total ${name}`, unmappedLabel: `Unmapped ${unmapped}` },
});

export const PNL_LAYOUT: LayoutItem[] = [
  section('Income', 'Income', -1, 'Income'),
  section('COGS', 'COGS', 1, 'COGS'),
  {
    computed: {
      label: 'Gross Profit',
      terms: [
        { of: 'Income', sign: 1 },
        { of: 'COGS', sign: -1 },
      ],
    },
  },
  section('Expenses', 'Expense', 1, 'Expense'),
  {
    computed: {
      label: 'Net Operating Income',
      terms: [
        { of: 'Gross Profit', sign: 1 },
        { of: 'Expenses', sign: -1 },
      ],
    },
  },
  section('Other Income', 'OtherIncome', -1, 'Other Income'),
  section('Other Expenses', 'OtherExpense', 1, 'Other Expense'),
  {
    computed: {
      label: 'Net Other Income',
      terms: [
        { of: 'Other Income', sign: 1 },
        { of: 'Other Expenses', sign: -1 },
      ],
    },
  },
  {
    computed: {
      label: 'Net Income',
      terms: [
        { of: 'Net Operating Income', sign: 1 },
        { of: 'Net Other Income', sign: 1 },
      ],
    },
  },
];

export const SECTION_OF_TYPE: ReadonlyMap<PnlAccountType, SectionSpec> = new Map(
  PNL_LAYOUT.flatMap((item) => ('section' in item ? [[item.section.type, item.section] as const] : [])),
);
