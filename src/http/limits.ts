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

/** What a request's time-out keeps: its abort controller, made only when something asks for its signal. */
interface Timeout {
  controller?: AbortController;
  /** The time-out's error, once it fired. */
  fired?: unknown;
  timer?: NodeJS.Timeout;
}

/** The request's abort signal: aborted when it times out (undefined without a time-out). */
export function requestSignal(res: Response): AbortSignal | undefined {
  const timeout = res.locals.timeout as Timeout | undefined;
  if (!timeout) return undefined;
  if (!timeout.controller) {
    timeout.controller = new AbortController();
    if (timeout.fired !== undefined) timeout.controller.abort(timeout.fired);
  }
  return timeout.controller.signal;
}

/** One timer per request, cleared when its response closes ('close' also ends a request whose connection was cut). */
export function requestTimeout(ms: number, render: ErrorRequestHandler): RequestHandler {
  if (!(ms > 0)) return (_req, _res, next) => next();
  function clear(this: Response) {
    clearTimeout((this.locals.timeout as Timeout).timer);
  }
  return (req, res, next) => {
    const timeout: Timeout = {};
    res.locals.timeout = timeout;
    timeout.timer = setTimeout(() => {
      const error = appError('RequestTimedOut', { ms });
      timeout.fired = error;
      timeout.controller?.abort(error);
      if (res.headersSent) return;
      res.setHeader('Retry-After', '1');
      res.setHeader('Connection', 'close');
      render(error, req, res, () => undefined);
    }, ms);
    res.on('close', clear);
    next();
  };
}
