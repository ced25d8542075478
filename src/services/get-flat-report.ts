/**
 * GetFlatReport: the report a link names. The token is verified (HMAC) before anything else; a token that does
 * not verify is no report (404), whatever it claims. Then the company is checked against the caller's scope,
 * the options are re-validated against the company's current catalog, and the report is built exactly as
 * GetFlat builds it. Returns the DTO with the report, which the report's own formats render.
 */
import { requireCompanyAccess } from '../auth/access.ts';
import type { Caller } from '../auth/caller.ts';
import type { GetFlatReportRequest } from '../contract/dtos.ts';
import { NOT_MODIFIED, type Revalidate } from '../contract/service-result.ts';
import { appError } from '../errors/app-error.ts';
import { parseIsoDate } from '../scalars/dates.ts';
import { resolveFlatOptions, type FlatOptions, type ReportLimits } from '../reports/flat-options.ts';
import { FlatReportResult } from '../reports/flat-report-result.ts';
import { decodeReportToken, type ReportLinkPayload } from '../reports/report-link.ts';
import { reportMeta } from '../reports/report-meta.ts';
import { buildFlatResponse, readFlat } from './flat-response.ts';
import type { CompanyCatalog } from '../domain/ledger.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import type { LinkSecretSource } from './link-secret.ts';

export interface GetFlatReportContext {
  store: LedgerStore;
  linkSecret: LinkSecretSource;
  /** `<scheme>://<host>` of the request, for the report's own Url. */
  baseUrl: string;
  /** Who asks: the API key's scope must include the report's company (403 otherwise). */
  caller: Caller;
  /** What one report may compute (MAX_REPORT_COLUMNS): a link made under a larger limit is refused too. */
  reportLimits?: ReportLimits;
  /** Aborted when the request timed out. */
  signal?: AbortSignal;
  /** A conditional GET's check (none for other methods). */
  revalidate?: Revalidate;
}

function noSuchReport(): never {
  throw appError('ReportNotFound');
}

/** The link's options, validated again against the company's catalog as it is now. */
function linkOptions(link: ReportLinkPayload, catalog: CompanyCatalog, limits?: ReportLimits): FlatOptions {
  const linkStart = parseIsoDate(link.f) ?? noSuchReport();
  const options = resolveFlatOptions(
    {
      CompanyId: link.c,
      UseCustomDateRange: true,
      StartDate: link.f,
      EndDate: link.t,
      UseAccountMapping: link.m === 1,
      IncludeComputedColumns: link.x === 1,
      OrderBy: link.o,
      Locations: link.l,
      Filters: link.g,
    },
    catalog,
    () => linkStart,
    limits,
  );
  return link.r ? { ...options, useCustomDateRange: false, relativeDateRange: link.r } : options;
}

export async function getFlatReport(
  request: GetFlatReportRequest,
  context: GetFlatReportContext,
): Promise<FlatReportResult | typeof NOT_MODIFIED> {
  const started = performance.now();
  const secret = await context.linkSecret();
  const link = decodeReportToken(request.Token, secret) ?? noSuchReport();
  requireCompanyAccess(context.caller, link.c);
  const { signal } = context;
  const read = await readFlat({
    store: context.store,
    companyId: link.c,
    signal,
    missing: noSuchReport,
    settle: (catalog) => linkOptions(link, catalog, context.reportLimits),
    link: { baseUrl: context.baseUrl, secret },
    revalidate: context.revalidate,
  });
  if (!read) return NOT_MODIFIED;
  const { response, report } = buildFlatResponse({ ...read, started, signal });
  signal?.throwIfAborted(); // no rendering for a request that timed out
  return new FlatReportResult(response, report, read.options, reportMeta(read.catalog, read.options));
}
