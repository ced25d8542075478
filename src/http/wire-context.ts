/** Per-request facts the wire layer gathers before the service runs, kept on res.locals. */
import type { RequestHandler, Response } from 'express';
import type { OperationPlan } from '../contract/binding-plan.ts';
import type { AppError } from '../errors/app-error.ts';

export interface WireContext {
  /** The openapi/ path template the request matched, if any. */
  template?: string;
  /** Format forced by a path extension (`.json`), if any. */
  extensionFormat?: string;
  /** The contract operation the request matched, if any. */
  operation?: OperationPlan;
  /** The raw JSONP callback, if any. */
  callback?: string;
  /** Canonical field → name as sent, for error messages. */
  sentNames: Record<string, string>;
  /**
   * An error decided before the request was read (an anonymous call to a secured operation). The request is still
   * bound and validated, then this error is answered, in place of any error those steps raise.
   */
  pendingError?: AppError;
  /** The request DTO's name, for error messages. */
  dtoName: string;
  /** Set once the service (the operation's handler) runs: errors after this point are the service's own. */
  serviceStarted?: boolean;
}

export function wireContext(res: Response): WireContext {
  res.locals.wire ??= { sentNames: {}, dtoName: 'Request' } satisfies WireContext;
  return res.locals.wire as WireContext;
}

/** Answers the pending error, if any, once binding and validation have run (see WireContext.pendingError). */
export function rejectPending(): RequestHandler {
  return (_req, res, next) => next(wireContext(res).pendingError);
}
