/**
 * The days of a company's ledger that carry profit-and-loss figures, and a report URL that covers them. A report
 * without `UseCustomDateRange=true` is this calendar year to date (as the old host's), so a ledger of other years
 * shows zeros: the start banner and the import's summary say where the figures are and give a URL that shows them.
 */
import type { LedgerStore } from '../store/ledger/ledger-store.ts';

export interface LedgerSpan {
  /** First and last day with figures (YYYY-MM-DD). */
  from: string;
  to: string;
}

/**
 * The span of the company's P&L figures (months where an income or expense account totals other than zero), or
 * undefined.
 */
export async function ledgerSpan(
  store: Pick<LedgerStore, 'pnlSpan'>,
  companyId: number,
): Promise<LedgerSpan | undefined> {
  const days = await store.pnlSpan(companyId);
  return days && { from: days.first, to: days.last };
}

/** The flat report of the whole span (a URL of the service rooted at `base`). */
export function spanReportUrl(base: string, companyId: number, span: LedgerSpan): string {
  return (
    `${base}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=${companyId}&UseCustomDateRange=true&` +
    `StartDate=${span.from}&EndDate=${span.to}&IncludeComputedColumns=true`
  );
}

/**
 * One line for a human about `company` (e.g. `Company 1`): where its figures are, and when the default range misses
 * them.
 */
export function describeSpan(company: string, span: LedgerSpan | undefined, today: Date): string {
  if (!span) return `${company} has no income or expense figures yet.`;
  const yearStart = `${today.getUTCFullYear()}-01-01`;
  const outside =
    span.to < yearStart
      ? ' (all before this year: a report without UseCustomDateRange=true covers this year to date and shows ' +
        'zeros; this URL covers them)'
      : '';
  return `${company}: figures from ${span.from} to ${span.to}${outside}.`;
}
