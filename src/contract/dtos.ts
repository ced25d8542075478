/** Names for the contract's DTOs, all derived from the generated OpenAPI types. */
import type { components, operations } from '../../generated/openapi.ts';

type Schemas = components['schemas'];
export type EchoRequest = Schemas['EchoRequest'];
export type EchoResponse = Schemas['EchoResponse'];
/**
 * The request as services receive it: the contract requires CompanyId on the wire, but SOAP and service-level
 * callers may still omit it, and the service answers that with FluentValidation's NotEmpty as the original did.
 */
export type GetFlatRequest = Omit<Schemas['GetFlatRequest'], 'CompanyId'> &
  Partial<Pick<Schemas['GetFlatRequest'], 'CompanyId'>>;
export type GetFlatResponse = Schemas['GetFlatResponse'];
/** The report link's request: its path variable (the signed token). */
export type GetFlatReportRequest = operations['GetFlatReport']['parameters']['path'];
export type SelectedOptions = Schemas['SelectedOptions'];
export type ReportModel = Schemas['ReportModel'];
export type ReportRow = Schemas['ReportRow'];
export type OrderBy = Schemas['OrderBy'];
export type ResponseStatus = Schemas['ResponseStatus'];
export type ResponseError = Schemas['ResponseError'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type RelativeDateRange = NonNullable<SelectedOptions['RelativeDateRange']>;
