/** OrderBy within a section (pnl-semantics §2); section totals and computed rows never move. */
import type { OrderBy } from '../contract/dtos.ts';
import type { RowKey } from './row-keys.ts';

export interface SortableRow {
  key: RowKey;
  /** The row's total over the range, in cents. */
  total: number;
}

// Made on first use: the first Intl object of a process loads ICU's locale data, a share of start-up otherwise.
let collatorMade: Intl.Collator | undefined;
const collator = () => (collatorMade ??= new Intl.Collator('en', { numeric: true, sensitivity: 'base' }));

function byName(a: SortableRow, b: SortableRow): number {
  return collator().compare(a.key.name, b.key.name);
}

/** Number ascending (numeric), unnumbered last by name; synthetic rows last. */
function byNumber(a: SortableRow, b: SortableRow): number {
  if (a.key.synthetic !== b.key.synthetic) return a.key.synthetic ? 1 : -1;
  const an = a.key.accountNumber;
  const bn = b.key.accountNumber;
  if (an !== undefined && bn !== undefined) return collator().compare(an, bn) || byName(a, b);
  if (an !== undefined || bn !== undefined) return an !== undefined ? -1 : 1;
  return byName(a, b);
}

function byDefault(a: SortableRow, b: SortableRow): number {
  const as = a.key.sortOrder;
  const bs = b.key.sortOrder;
  if (as !== undefined && bs !== undefined && as !== bs) return as - bs;
  return byNumber(a, b);
}

const COMPARATORS: Record<OrderBy, (a: SortableRow, b: SortableRow) => number> = {
  '': byDefault,
  Default: byDefault,
  AccountNumber: byNumber,
  AccountName: (a, b) => byName(a, b) || byDefault(a, b),
  AmountDescending: (a, b) => b.total - a.total || byDefault(a, b),
  AmountAscending: (a, b) => a.total - b.total || byDefault(a, b),
};

export function sortRows<T extends SortableRow>(rows: T[], orderBy: OrderBy): T[] {
  return [...rows].sort(COMPARATORS[orderBy]);
}
