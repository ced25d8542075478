/**
 * Structured access logs with one request id per request: the caller's `X-Request-Id` when it is a sane token, else a
 * new UUID; echoed in the `X-Request-Id` response header. One pino line per response when it ends (`request
 * completed`, `request aborted`, or `request errored` at level error for a 5xx), written by a logger without the
 * redaction pass: a line holds the method, the URL (an `apikey` or other secret query value redacted), the client's
 * address (behind a trusted proxy, from X-Forwarded-For), the status and the time taken, never a header. The
 * server's own warm-up requests at start are not logged (src/ops/warm-up-requests.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { redactApiKey } from '../auth/api-keys.ts';
import { isWarmUpRequest } from './warm-up-requests.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is a sane token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID();
}

/** What the line says of the request, taken as it arrives (before routing rewrites `req.url`). */
interface Arrival {
  id: string;
  method: string;
  url: string;
  remoteAddress: string | undefined;
  startedAt: number;
  logger: Logger;
}

const ARRIVAL = Symbol('access-log arrival');
type Logged = Response & { [ARRIVAL]?: Arrival };

/** Written once per response, when it closes (after it finished, or cut short). */
function writeLine(this: Logged): void {
  const arrival = this[ARRIVAL]!;
  const { id, method, url, remoteAddress } = arrival;
  const statusCode = this.statusCode;
  const line = { reqId: id, req: { id, method, url, remoteAddress }, res: { statusCode } };
  const responseTime = Date.now() - arrival.startedAt;
  if (statusCode >= 500) {
    arrival.logger.error(
      { ...line, err: new Error(`failed with status code ${statusCode}`), responseTime },
      'request errored',
    );
    return;
  }
  const completed = !this.req.readableAborted && this.writableEnded;
  arrival.logger.info({ ...line, responseTime }, completed ? 'request completed' : 'request aborted');
}

/** How the request id goes into the answer's headers (by default set on the response at once). */
export type SendRequestId = (res: Response, name: string, id: string) => void;

const setOnResponse: SendRequestId = (res, name, id) => void res.setHeader(name, id);

export function requestLog(logger: Logger, sendId: SendRequestId = setOnResponse): RequestHandler {
  // The lines carry no header, so the redaction of credential headers (src/ops/logger.ts) has nothing to do here.
  const access = logger.child({}, { redact: [] });
  return (req: Request, res: Logged, next) => {
    const id = requestId(req);
    sendId(res, REQUEST_ID_HEADER, id);
    if (!isWarmUpRequest(req)) {
      res[ARRIVAL] = {
        id,
        method: req.method,
        url: redactApiKey(req.originalUrl ?? req.url),
        // Express's req.ip follows X-Forwarded-For only from trusted proxies (TRUST_PROXY).
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
        startedAt: Date.now(),
        logger: access,
      };
      res.on('close', writeLine);
    }
    next();
  };
}
