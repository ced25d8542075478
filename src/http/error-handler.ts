/** The one place anything thrown becomes a response: a ResponseStatus with the registry's status code. */
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { toAppError } from '../errors/app-error.ts';
import { fromLibraryError } from './request-errors.ts';
import { toErrorResponse } from './response-status.ts';
import { wireContext } from './wire-context.ts';

export function errorHandler(options: { debug: boolean; logger: Logger }): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const wire = wireContext(res);
    const appError = wire.pendingError ?? fromLibraryError(error, wire.sentNames, wire.dtoName) ?? toAppError(error);
    if (appError.status >= 500) options.logger.error({ err: appError.cause ?? error, code: appError.code }, 'request failed');
    if (res.writableEnded) return; // already answered (e.g. a request that ran past its time-out)
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // 4.5 wrapped only errors raised inside the service in the JSONP callback; an error raised before it (binding,
    // unknown operation, authentication) is plain JSON with its status even when ?callback= is given.
    if (!wire.serviceStarted) wire.callback = undefined;
    res.status(appError.status).json(toErrorResponse(appError, { debug: options.debug, dtoName: wire.dtoName, inService: wire.serviceStarted === true }));
  };
}
