/**
 * Request limits before any parsing: the URL length (414) and a time-out per request. A request still running at
 * its time-out is answered 503 `RequestTimeout` (the service, not a gateway, gave up: 503 + Retry-After, not 504)
 * and its signal (requestSignal) aborts, so the service and the store stop its work; a late result is dropped.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { appError } from '../errors/app-error.ts';
import { applyPendingHeaders } from './pending-headers.ts';

export function maxUrlLength(limit: number): RequestHandler {
  return (req, _res, next) => {
    if (req.url.length > limit) return next(appError('UrlTooLong', { length: req.url.length, limit }));
    next();
  };
}

interface Deadline {
  /** Created on first use: most requests (an echo) never ask for their signal, and an AbortController is not free. */
  controller?: AbortController;
  reason?: unknown;
}

const deadlines = new WeakMap<Response, Deadline>();

/** The request's abort signal: aborted when it times out (undefined without a time-out). */
export function requestSignal(res: Response): AbortSignal | undefined {
  const deadline = deadlines.get(res);
  if (!deadline) return undefined;
  if (!deadline.controller) {
    deadline.controller = new AbortController();
    if (deadline.reason !== undefined) deadline.controller.abort(deadline.reason);
  }
  return deadline.controller.signal;
}

export function requestTimeout(ms: number, render: ErrorRequestHandler): RequestHandler {
  if (!(ms > 0)) return (_req, _res, next) => next();
  return (req, res, next) => {
    const deadline: Deadline = {};
    deadlines.set(res, deadline);
    const timer = setTimeout(() => {
      deadline.reason = appError('RequestTimedOut', { ms });
      deadline.controller?.abort(deadline.reason);
      if (res.headersSent) return;
      res.setHeader('Retry-After', '1');
      res.setHeader('Connection', 'close');
      const error = appError('RequestTimedOut', { ms });
      try {
        render(error, req, res, () => undefined);
      } catch {
        if (!res.headersSent) {
          applyPendingHeaders(res);
          res.status(error.status).end();
        }
      }
    }, ms);
    timer.unref();
    // 'close' follows 'finish', and also ends a request whose connection was cut.
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
