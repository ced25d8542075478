/**
 * Request limits before any parsing: the URL length (414) and a time-out per request. A request still running at
 * its time-out is answered 503 `RequestTimeout` (the service, not a gateway, gave up: 503 + Retry-After, not 504)
 * and its signal (requestSignal) aborts, so the service and the store stop its work; a late result is dropped.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { appError } from '../errors/app-error.ts';
import { applyPendingHeaders } from './pending-headers.ts';

export function maxUrlLength(limit: number): RequestHandler {
  return (req, _res, next) => {
    if (req.url.length > limit) return next(appError('UrlTooLong', { length: req.url.length, limit }));
    next();
  };
}

/** A request in flight, in the time-out's list (oldest first). */
interface Deadline {
  req: Request;
  res: Response;
  at: number;
  previous?: Deadline;
  next?: Deadline;
  /** Created on first use: most requests (an echo) never ask for their signal, and an AbortController is not free. */
  controller?: AbortController;
  reason?: unknown;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

const deadlineOf = (res: Response) => res.locals.deadline as Deadline | undefined;

/** The request's abort signal: aborted when it times out (undefined without a time-out). */
export function requestSignal(res: Response): AbortSignal | undefined {
  const deadline = deadlineOf(res);
  if (!deadline) return undefined;
  if (!deadline.controller) {
    deadline.controller = new AbortController();
    if (deadline.reason !== undefined) deadline.controller.abort(deadline.reason);
  }
  return deadline.controller.signal;
}

/**
 * Every request gets the same time-out, so deadlines come in the order requests arrive: the requests in flight are one
 * list, oldest first, with one timer for the oldest; a request leaves the list when its response closes. (A timer and
 * a closure per request cost more than the rest of an echo's edge.)
 */
export function requestTimeout(ms: number, render: ErrorRequestHandler): RequestHandler {
  if (!(ms > 0)) return (_req, _res, next) => next();
  let oldest: Deadline | undefined;
  let newest: Deadline | undefined;
  let timer: NodeJS.Timeout | undefined;

  const leave = (deadline: Deadline) => {
    if (deadline.previous) deadline.previous.next = deadline.next;
    else if (oldest === deadline) oldest = deadline.next;
    if (deadline.next) deadline.next.previous = deadline.previous;
    else if (newest === deadline) newest = deadline.previous;
    deadline.previous = deadline.next = undefined;
  };
  const timeOut = (deadline: Deadline) => {
    const { req, res } = deadline;
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
  };
  const arm = () => {
    timer = undefined;
    if (!oldest) return;
    // setTimeout takes at most 2^31 - 1 ms (longer fires at once); a later deadline is looked at again then.
    timer = setTimeout(sweep, Math.min(MAX_TIMER_MS, Math.max(0, oldest.at - performance.now())));
    timer.unref();
  };
  const sweep = () => {
    const now = performance.now();
    while (oldest && oldest.at <= now) {
      const due = oldest;
      leave(due);
      timeOut(due);
    }
    arm();
  };
  // Shared by every response ('close' follows 'finish', and also ends a request whose connection was cut).
  function onClose(this: Response) {
    const deadline = deadlineOf(this);
    if (deadline) leave(deadline);
  }

  return (req, res, next) => {
    const deadline: Deadline = { req, res, at: performance.now() + ms, previous: newest };
    res.locals.deadline = deadline;
    if (newest) newest.next = deadline;
    else oldest = deadline;
    newest = deadline;
    if (!timer) arm();
    res.on('close', onClose);
    next();
  };
}
