/**
 * The services, keyed by request DTO as ServiceStack's were: each takes the bound DTO (path, query and body
 * merged) and what the host provides, and returns a DTO or a RichResult. The app refuses to start when an
 * operation of the contract names a request DTO that has no service here.
 */
import type { Caller } from '../auth/caller.ts';
import type { EchoRequest, GetFlatReportRequest, GetFlatRequest } from '../contract/dtos.ts';
import type { Revalidate } from '../contract/service-result.ts';
import type { ReportLimits } from '../reports/flat-options.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { echo } from './echo.ts';
import { getFlat } from './get-flat.ts';
import { getFlatReport } from './get-flat-report.ts';
import type { LinkSecretSource } from './link-secret.ts';

export interface ServiceContext {
  store: LedgerStore;
  now: () => Date;
  /** Signs and verifies report links (GetFlatResponse.Url). */
  linkSecret: LinkSecretSource;
  caller: Caller;
  /** `<scheme>://<host>` of the request, for absolute links. */
  baseUrl: string;
  /** What one report may compute (MAX_REPORT_COLUMNS). */
  reportLimits: ReportLimits;
  /** Aborted when the request times out: the service stops its work. */
  signal?: AbortSignal;
  /** A GET or HEAD's conditional check: a service that can name its answer's making before building it may use it. */
  revalidate?: Revalidate;
}

// The binder and the validator have made the DTO match the contract's type for the operation.
type Service<Dto> = (request: Dto, context: ServiceContext) => unknown;

export const services = {
  EchoRequest: ((request, context) => echo(request, context.caller)) satisfies Service<EchoRequest>,
  GetFlatRequest: ((request, context) => getFlat(request, context)) satisfies Service<GetFlatRequest>,
  GetFlatReportRequest: ((request, context) => getFlatReport(request, context)) satisfies Service<GetFlatReportRequest>,
} as const;

export type RequestDtoName = keyof typeof services;

/** The service of a request DTO, typed loosely for the host (which hands it the DTO the binder built). */
export function serviceFor(requestDto: string): Service<never> | undefined {
  return Object.hasOwn(services, requestDto) ? (services[requestDto as RequestDtoName] as Service<never>) : undefined;
}
