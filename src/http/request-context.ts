/**
 * What the pipeline knows about one request, kept in one typed object (res.locals.context): the operation record it
 * resolved to (once, at routing), the bound request DTO, the negotiated response form, and the edge
 * that renders its errors. Each step fills in its part; later steps only read.
 */
import type { Response } from 'express';
import type { OperationRecord } from '../contract/operations.ts';
import type { AppError } from '../errors/app-error.ts';
import type { FormatEntry } from '../formats/registry.ts';

/** The response form, negotiated once per request. */
export interface ResponseForm {
  entry: FormatEntry;
  /** A wrapper (JSONP) and its keyword's value, when one applies to `entry`. */
  wrapper?: { entry: FormatEntry; value: string };
}

/** An edge that speaks its own error form (the SOAP endpoint: a fault). */
export interface ErrorEdge {
  writeError(res: Response, error: AppError): void;
}

export interface RequestContext {
  /** The contract operation the request resolved to, if any. */
  operation?: OperationRecord;
  /** Path variables of the matched template, decoded. */
  params: Record<string, string>;
  /** The format a path suffix (`.xml`) asked for, if any. */
  extensionFormat?: string;
  /** The format a pre-defined route's prefix (`/json/reply/...`) names, if the request came that way. */
  prefixFormat?: string;
  form?: ResponseForm;
  /**
   * The body was a document read by a format (JSON, XML, JSV), where an empty string is a value (4.5 echoed
   * `{"Message":""}` as ""); in form fields and the query an empty value is absent, as 4.5 bound them.
   */
  bodyFromDocument?: boolean;
  /** The body was form fields (urlencoded or multipart): flat names as sent, bound as the query is. */
  bodyFromForm?: boolean;
  /** The request DTO: path, query and body values bound and merged. */
  dto?: Record<string, unknown>;
  /** A batch's request DTOs (`/{format}/reply/{Op}[]`), each bound from its item, in order. */
  batch?: Record<string, unknown>[];
  /** Canonical field → name as sent, for error messages. */
  sentNames: Record<string, string>;
  edge?: ErrorEdge;
  /** Set once the operation's service runs: errors after this point are the service's own. */
  serviceStarted?: boolean;
}

export function contextOf(res: Response): RequestContext {
  res.locals.context ??= { params: {}, sentNames: {} } satisfies RequestContext;
  return res.locals.context as RequestContext;
}

/** The request DTO's name, for error messages (`Request` outside the contract). */
export function requestDtoName(context: RequestContext): string {
  return context.operation?.requestDto ?? 'Request';
}
