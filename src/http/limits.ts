/**
 * Request limits before any parsing: the URL length (414) and a time-out per request. A request still running at
 * its time-out is answered 503 `RequestTimeout` (the service, not a gateway, gave up: 503 + Retry-After, not 504)
 * and its signal (requestSignal) aborts, so the service and the store stop its work; a late result is dropped.
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
  return (res.locals.abort as AbortController | undefined)?.signal;
}

export function requestTimeout(ms: number, render: ErrorRequestHandler): RequestHandler {
  return (req, res, next) => {
    if (!(ms > 0)) return next();
    const abort = new AbortController();
    res.locals.abort = abort;
    const timer = setTimeout(() => {
      abort.abort(appError('RequestTimedOut', { ms }));
      if (res.headersSent) return;
      res.setHeader('Retry-After', '1');
      res.setHeader('Connection', 'close');
      const error = appError('RequestTimedOut', { ms });
      try {
        render(error, req, res, () => undefined);
      } catch {
        if (!res.headersSent) res.status(error.status).end();
      }
    }, ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}
