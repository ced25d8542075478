/**
 * Request limits before any parsing: the URL length (414) and a time-out per request. A request still running at
 * its time-out is answered 503 `RequestTimeout` (the service, not a gateway, gave up: 503 + Retry-After, not 504)
 * and its signal (requestSignal) aborts, so the service and the store stop their work; a late result is dropped.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { appError } from '../errors/app-error.ts';

export function maxUrlLength(limit: number): RequestHandler {
  return (req, _res, next) => {
    if (req.url.length > limit) return next(appError('UrlTooLong', { length: req.url.length, limit }));
    next();
  };
}

/** The request's abort signal: aborted when it times out (undefined without a time-out). */
export function requestSignal(res: Response): AbortSignal | undefined {
  return (res.locals.timeout as AbortController | undefined)?.signal;
}

/** One timer per request, cleared when its response closes ('close' also ends a request whose connection was cut). */
export function requestTimeout(ms: number, render: ErrorRequestHandler): RequestHandler {
  if (!(ms > 0)) return (_req, _res, next) => next();
  return (req, res, next) => {
    const controller = new AbortController();
    res.locals.timeout = controller;
    const timer = setTimeout(() => {
      const error = appError('RequestTimedOut', { ms });
      controller.abort(error);
      if (res.headersSent) return;
      res.setHeader('Retry-After', '1');
      res.setHeader('Connection', 'close');
      render(error, req, res, () => undefined);
    }, ms);
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
