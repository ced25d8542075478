/**
 * The months of a company's ledger that carry profit-and-loss figures, and a report URL that covers them. A report
 * without `UseCustomDateRange=true` is this calendar year to date (as the old host's), so a ledger of other years
 * shows zeros: the start banner and the import's summary say where the figures are and give a URL that shows them.
 */
import type { LedgerView } from '../store/ledger-store.ts';

export interface LedgerSpan {
  /** First day of the first month with figures, last day of the last one (YYYY-MM-DD). */
  from: string;
  to: string;
}

const ALL_TIME = { from: '1900-01-01', to: '2999-12-31' };

function lastDayOf(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(year, m, 0)).getUTCDate()).padStart(2, '0')}`;
}

/** The span of the company's P&L figures (posted lines on income and expense accounts), or undefined when it has none. */
export async function ledgerSpan(store: Pick<LedgerView, 'sumPnlByAccountMonth'>, companyId: number): Promise<LedgerSpan | undefined> {
  const months = (await store.sumPnlByAccountMonth({ companyId, ...ALL_TIME, locationIds: [], optionGroups: [] }))
    .filter((t) => t.cents !== 0).map((t) => t.month).sort();
  if (months.length === 0) return undefined;
  return spanOfMonths(months[0]!, months.at(-1)!);
}

/** The span from the first day of month `first` to the last day of month `last` (YYYY-MM). */
export function spanOfMonths(first: string, last: string): LedgerSpan {
  return { from: `${first}-01`, to: lastDayOf(last) };
}

/** The flat report of the whole span (a URL of the service rooted at `base`). */
export function spanReportUrl(base: string, companyId: number, span: LedgerSpan): string {
  return `${base}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=${companyId}&UseCustomDateRange=true&StartDate=${span.from}&EndDate=${span.to}&IncludeComputedColumns=true`;
}

/** One line for a human about `company` (e.g. `Company 1`): where its figures are, and when the default range misses them. */
export function describeSpan(company: string, span: LedgerSpan | undefined, today: Date): string {
  if (!span) return `${company} has no income or expense figures yet.`;
  const yearStart = `${today.getUTCFullYear()}-01-01`;
  const outside = span.to < yearStart ? ' (all before this year: a report without UseCustomDateRange=true covers this year to date and shows zeros; this URL covers them)' : '';
  return `${company}: figures from ${span.from} to ${span.to}${outside}.`;
}
