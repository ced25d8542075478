/**
 * Structured access logs (pino) with one request id per request: the caller's `X-Request-Id` when it is a sane token,
 * else a new UUID; echoed in the `X-Request-Id` response header. Headers are never logged (API keys), and an `apikey`
 * query value is redacted. The address logged is the client's (behind a trusted proxy, from X-Forwarded-For).
 *
 * One line per request when its response ends, in pino-http's shape (`reqId`, `req`, `res`, `responseTime`;
 * `request completed`, `request aborted`, or `request errored` at level error for a 5xx), written with the app's pino
 * logger directly: pino-http made two child loggers per request (each serialising its bindings) and three listeners.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { redactApiKey } from '../auth/api-keys.ts';
import { deferHeaders } from '../http/pending-headers.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is a sane token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID();
}

/** What the line needs of the request as it arrived: later steps rewrite the method (X-HTTP-Method-Override) and the URL (canonical routes). */
interface Arrival {
  id: string;
  started: number;
  method: string;
  url: string;
}

export function requestLog(processLogger: Logger): RequestHandler {
  // The line's shape is fixed above and holds no header, so the process logger's header redaction (which clones `req`
  // on every line it writes) is left out for it; every other line keeps it.
  const logger = processLogger.child({}, { redact: [] });
  // One listener for every response (no closure per request).
  function writeLine(this: Response) {
    const res = this;
    const req = res.req;
    const { id, started, method, url } = res.locals.accessLog as Arrival;
    const failed = res.statusCode >= 500;
    if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
    // remoteAddress is the client's: Express's req.ip, which follows X-Forwarded-For only from trusted proxies (TRUST_PROXY).
    const entry: Record<string, unknown> = {
      reqId: id,
      req: { id, method, url: redactApiKey(url), remoteAddress: req.ip ?? req.socket?.remoteAddress },
      res: { statusCode: res.statusCode },
      responseTime: Date.now() - started,
    };
    if (failed) {
      entry.err = new Error(`failed with status code ${res.statusCode}`);
      logger.error(entry, 'request errored');
    } else {
      logger.info(entry, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
    }
  }
  return (req, res, next) => {
    const id = requestId(req);
    (req as Request & { id?: string }).id = id;
    res.locals.accessLog = { id, started: Date.now(), method: req.method, url: req.originalUrl || req.url } satisfies Arrival;
    deferHeaders(res, [REQUEST_ID_HEADER, id]);
    res.on('close', writeLine);
    next();
  };
}
