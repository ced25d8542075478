/**
 * Structured access logs (pino-http) with one request id per request: the caller's `X-Request-Id` when it is a sane
 * token, else a new UUID; echoed in the `X-Request-Id` response header. Headers are never logged (API keys), and an
 * `apikey` query value is redacted. The address logged is the client's (behind a trusted proxy, from X-Forwarded-For).
 * One line per request when its response ends (`request completed`, `request aborted`, or `request errored` at level
 * error for a 5xx). The server's own warm-up requests at start are not logged (src/ops/warm-up-requests.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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

interface SerializedRequest {
  id: string;
  method: string;
  url: string;
  remoteAddress?: string;
  raw: Request;
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
    serializers: {
      // Express's req.ip is the client's address: it follows X-Forwarded-For only from trusted proxies (TRUST_PROXY).
      req: (req: SerializedRequest) => ({ id: req.id, method: req.method, url: redactApiKey(req.url), remoteAddress: req.raw.ip ?? req.remoteAddress }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
