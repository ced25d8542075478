/**
 * GetFlat: read the company's catalog, settle the options, sum the ledger, build the report.
 */
import type { GetFlatRequest, GetFlatResponse } from '../contract/dtos.ts';
import { requireCompanyId, resolveFlatOptions, unknownCompany } from '../reports/flat-options.ts';
import { todayIn } from '../scalars/dates.ts';
import { buildFlatResponse } from './flat-response.ts';
import type { LedgerStore } from '../store/ledger-store.ts';
import { requireCompanyAccess } from '../auth/access.ts';
import type { Caller } from './caller.ts';

export interface GetFlatContext {
  store: LedgerStore;
  now: () => Date;
  /** `<scheme>://<host>` of the request, for the report link. */
  baseUrl: string;
  /** The secret that signs the report link. */
  linkSecret: () => Promise<string>;
  /** Who asks: the API key's scope must include the company (401 without a key, 403 for another company). */
  caller: Caller;
}

export async function getFlat(request: GetFlatRequest, { store, now, baseUrl, caller, linkSecret }: GetFlatContext): Promise<GetFlatResponse> {
  const started = performance.now();
  const companyId = requireCompanyId(request);
  requireCompanyAccess(caller, companyId);
  const catalog = (await store.getCatalog(companyId)) ?? unknownCompany(companyId);
  const options = resolveFlatOptions(request, catalog, todayIn(catalog.company.timeZone, now()));
  const { response } = await buildFlatResponse({ store, catalog, options, link: { baseUrl, secret: await linkSecret() }, started });
  return response;
}
