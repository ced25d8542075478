/**
 * Liveness and readiness: `/health` answers 200 while the process runs; `/ready` answers 200 when the store
 * answers a ping within the time limit, else 503 with a ResponseStatus (StoreUnavailable).
 */
import type { RequestHandler } from 'express';
import { appError } from '../errors/app-error.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';

const PING_TIMEOUT_MS = 2_000;

function sendJson(res: Parameters<RequestHandler>[1], body: unknown): void {
  res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.send(Buffer.from(JSON.stringify(body)));
}

export const health: RequestHandler = (_req, res) => sendJson(res, { Status: 'Healthy' });

export function ready(store: LedgerStore, timeoutMs = PING_TIMEOUT_MS): RequestHandler {
  return async (_req, res, next) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        store.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('ping timed out')), timeoutMs);
        }),
      ]);
      sendJson(res, { Status: 'Ready', Store: store.kind });
    } catch (error) {
      res.setHeader('Cache-Control', 'no-store');
      next(appError('StoreUnavailable', {}, { cause: error }));
    } finally {
      clearTimeout(timer);
    }
  };
}
