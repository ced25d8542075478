/**
 * Structured access logs (pino-http) with one request id per request: the caller's `X-Request-Id` when it is a sane
 * token, else a new UUID; echoed in the `X-Request-Id` response header. Headers are never logged (API keys), and an
 * `apikey` query value is redacted. The address logged is the client's (behind a trusted proxy, from X-Forwarded-For).
 * One line per request when its response ends (`request completed`, `request aborted`, or `request errored` at level
 * error for a 5xx). The server's own warm-up requests at start are not logged (src/ops/warm-up-requests.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { redactApiKey } from '../auth/api-keys.ts';
import { isWarmUpRequest } from './warm-up-requests.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is a sane token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID();
}

export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    quietReqLogger: true,
    autoLogging: { ignore: isWarmUpRequest },
    genReqId: (req, res) => {
      const id = requestId(req);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    // The serializers read the request and response themselves (pino-http's documented `wrapSerializers: false`):
    // pino-std-serializers would first copy every header of both into objects these lines never print.
    wrapSerializers: false,
    serializers: {
      // Express's req.ip is the client's address: it follows X-Forwarded-For only from trusted proxies (TRUST_PROXY).
      // The line is made as the request arrives, so originalUrl and url are the URL as sent.
      req: (req: Request) => ({
        id: req.id,
        method: req.method,
        url: redactApiKey(req.originalUrl ?? req.url),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
