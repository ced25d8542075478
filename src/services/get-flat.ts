/**
 * GetFlat: read the company's catalog, settle the options, sum the ledger, build the report.
 */
import type { GetFlatRequest, GetFlatResponse } from '../contract/dtos.ts';
import { NOT_MODIFIED, type Revalidate } from '../contract/service-result.ts';
import { requireCompanyId, resolveFlatOptions, unknownCompany, type ReportLimits } from '../reports/flat-options.ts';
import { todayIn } from '../scalars/dates.ts';
import { buildFlatResponse, readFlat } from './flat-response.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { requireCompanyAccess } from '../auth/access.ts';
import type { Caller } from '../auth/caller.ts';

export interface GetFlatContext {
  store: LedgerStore;
  now: () => Date;
  /** `<scheme>://<host>` of the request, for the report link. */
  baseUrl: string;
  /** The secret that signs the report link. */
  linkSecret: () => Promise<string>;
  /** Who asks: the API key's scope must include the company (403 otherwise). */
  caller: Caller;
  /** What one report may compute (MAX_REPORT_COLUMNS). */
  reportLimits?: ReportLimits;
  /** Aborted when the request timed out. */
  signal?: AbortSignal;
  /** A conditional GET's check (none for other methods). */
  revalidate?: Revalidate;
}

export async function getFlat(
  request: GetFlatRequest,
  context: GetFlatContext,
): Promise<GetFlatResponse | typeof NOT_MODIFIED> {
  const { store, now, baseUrl, caller, linkSecret, reportLimits, signal } = context;
  const started = performance.now();
  const companyId = requireCompanyId(request);
  requireCompanyAccess(caller, companyId);
  const read = await readFlat({
    store,
    companyId,
    signal,
    link: { baseUrl, secret: await linkSecret() },
    revalidate: context.revalidate,
    missing: () => unknownCompany(companyId),
    settle: (catalog) =>
      resolveFlatOptions(request, catalog, () => todayIn(catalog.company.timeZone, now()), reportLimits),
  });
  if (!read) return NOT_MODIFIED;
  return buildFlatResponse({ ...read, started, signal }).response;
}
