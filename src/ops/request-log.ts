/**
 * Structured access logs (pino-http) with one request id per request: the caller's `X-Request-Id` when it is a
 * sane token, else a new UUID; echoed in the `X-Request-Id` response header. Headers are never logged (API keys), and an `apikey` query value is redacted.
 * The address logged is the client's (behind a trusted proxy, from X-Forwarded-For).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { redactApiKey } from '../auth/api-keys.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const sent = req.headers['x-request-id'];
  const id = typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestId,
    quietReqLogger: true,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      // remoteAddress is the client's: Express's req.ip, which follows X-Forwarded-For only from trusted proxies (TRUST_PROXY).
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string; raw?: { ip?: string } }) =>
        ({ id: req.id, method: req.method, url: redactApiKey(req.url), remoteAddress: req.raw?.ip ?? req.remoteAddress }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
