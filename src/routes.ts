/**
 * Thin routes: each operationId of openapi/ maps to a service call. The app refuses to start when an
 * operation of the contract has no handler here.
 */
import { requestBaseUrl } from './http/base-url.ts';
import type { Request } from 'express';
import type { EchoRequest, GetFlatRequest } from './contract/dtos.ts';
import { echo } from './services/echo.ts';
import { getFlat } from './services/get-flat.ts';
import { getFlatReport } from './services/get-flat-report.ts';
import type { LinkSecretSource } from './services/link-secret.ts';
import { reportResponse } from './http/report-formats.ts';
import { requireCompanyAccess } from './auth/access.ts';
import type { Caller } from './services/caller.ts';
import type { LedgerStore } from './store/ledger-store.ts';
import type { ReportLimits } from './reports/flat-options.ts';

export interface ServiceDependencies {
  store: LedgerStore;
  now: () => Date;
  caller: Caller;
  /** Signs and verifies report links (GetFlatResponse.Url). */
  linkSecret: LinkSecretSource;
  /** What one report may compute (MAX_REPORT_COLUMNS). */
  reportLimits: ReportLimits;
  /** Aborted when the request times out: the service stops its work. */
  signal?: AbortSignal;
}

type Handler = (req: Request, deps: ServiceDependencies) => unknown;

const echoFromQuery: Handler = (req, deps) => echo(req.query as EchoRequest, deps.caller);
const echoFromBody: Handler = (req, deps) => echo(req.body as EchoRequest, deps.caller);
const flatFromQuery: Handler = (req, deps) => getFlat(req.query as GetFlatRequest, { ...deps, baseUrl: requestBaseUrl(req) });
const flatFromBody: Handler = (req, deps) => getFlat(req.body as GetFlatRequest, { ...deps, baseUrl: requestBaseUrl(req) });

export const handlers: Record<string, Handler> = {
  Echo: (req, deps) => echo({ Message: req.params.Message as string }, deps.caller),
  EchoReplyGet: echoFromQuery,
  EchoReplyPost: echoFromBody,
  GetFlat: flatFromQuery,
  GetFlatReplyGet: flatFromQuery,
  GetFlatReplyPost: flatFromBody,
  GetFlatReport: async (req, deps) => {
    const context = { ...deps, baseUrl: requestBaseUrl(req), authorizeCompany: (companyId: number) => requireCompanyAccess(deps.caller, companyId, req.res) };
    const built = await getFlatReport(req.params.Token as string, context);
    deps.signal?.throwIfAborted(); // no rendering for a request that timed out
    return reportResponse(req, built);
  },
};
