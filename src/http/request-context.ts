/**
 * What the pipeline knows about one request, kept in one typed object (res.locals.context): the operation record it
 * resolved to (once, at routing), the bound request DTO, the negotiated response form, and the edge
 * that renders its errors. Each step fills in its part; later steps only read, through the type of their stage
 * (ResolvedContext after routing, BoundContext after binding).
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
  /** What the binder made of the request (src/http/bind-request.ts). */
  bound?: BoundRequest;
  /** Canonical field → name as sent, for error messages. */
  sentNames: Record<string, string>;
  edge?: ErrorEdge;
  /** Set once the operation's service runs: errors after this point are the service's own. */
  serviceStarted?: boolean;
  /** The answer's weak entity tag, when its service named what it is made of (src/http/conditional-get.ts). */
  entityTag?: string;
  /**
   * Headers every answer carries (the request id, the security headers), as name, value, name, value…, not yet set on
   * the response: the writer sends them with its own in one writeHead (src/http/response-head.ts).
   */
  head: string[];
}

/**
 * The request DTO (path, query and body values bound and merged), or a batch's request DTOs
 * (`/{format}/reply/{Op}[]`), each bound from its item, in order.
 */
export type BoundRequest = { dto: Record<string, unknown> } | { batch: Record<string, unknown>[] };

/** After routing (src/http/resolve-operation.ts): the request names a contract operation. */
export type ResolvedContext = RequestContext & { operation: OperationRecord };
/** After binding: the operation and its bound request, what validation and the service read. */
export type BoundContext = ResolvedContext & { bound: BoundRequest };

/** The context of a request that resolved to an operation; undefined before (or outside the contract). */
export function resolvedContext(res: Response): ResolvedContext | undefined {
  const context = contextOf(res);
  return context.operation ? (context as ResolvedContext) : undefined;
}

/** The context of a request whose operation's request was bound; undefined before. */
export function boundContext(res: Response): BoundContext | undefined {
  const context = contextOf(res);
  return context.operation && context.bound ? (context as BoundContext) : undefined;
}

/** Every field of a request's context from the start, so that every context has one shape. */
function newContext(): RequestContext {
  return {
    operation: undefined,
    params: {},
    extensionFormat: undefined,
    prefixFormat: undefined,
    form: undefined,
    bodyFromDocument: undefined,
    bodyFromForm: undefined,
    bound: undefined,
    sentNames: {},
    edge: undefined,
    serviceStarted: undefined,
    entityTag: undefined,
    head: [],
  };
}

export function contextOf(res: Response): RequestContext {
  res.locals.context ??= newContext();
  return res.locals.context as RequestContext;
}

/** The request DTO's name, for error messages (`Request` outside the contract). */
export function requestDtoName(context: RequestContext): string {
  return context.operation?.requestDto ?? 'Request';
}
