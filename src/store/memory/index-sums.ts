/** A report's sums answered from a company's in-memory pre-aggregates (balance-index.ts), as both adapters do. */
import { isIsoDate, isoEpochDay } from '../../scalars/dates.ts';
import type { CompanyBalances } from './balance-index.ts';
import { PNL_ACCOUNT_TYPES, type AccountMonthTotal, type CompanyCatalog, type PnlQuery } from '../../domain/ledger.ts';
import { resolveTagSets } from '../ledger/tag-sets.ts';

export type TagSetRows = readonly { id: number; optionIds: readonly string[] }[];

const PNL_TYPES: ReadonlySet<string> = new Set(PNL_ACCOUNT_TYPES);

export const isFiltered = (query: PnlQuery): boolean => query.optionGroups.some((g) => g.length > 0);

export function checkRange(query: PnlQuery): void {
  if (!isIsoDate(query.from) || !isIsoDate(query.to))
    throw new RangeError(`invalid date range ${query.from}..${query.to}`);
}

/**
 * The same figures as the SQL over balance_monthly/balance_daily (the contract tests compare them after every load).
 */
export function sumFromIndex(
  balances: CompanyBalances,
  catalog: CompanyCatalog,
  tagSets: TagSetRows | undefined,
  query: PnlQuery,
): AccountMonthTotal[] {
  const tagSetIds = tagSets && resolveTagSets(tagSets, query.optionGroups);
  if (tagSetIds && tagSetIds.length === 0) return [];
  return balances.sum({
    fromDay: isoEpochDay(query.from),
    toDay: isoEpochDay(query.to),
    locations: query.locationIds,
    tagSets: tagSetIds,
    accounts: catalog.accounts.filter((a) => PNL_TYPES.has(a.type)).map((a) => a.id),
  });
}
