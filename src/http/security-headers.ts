/**
 * helmet's response headers, decided once: the middleware is run at start against a recorder and each request then
 * gets the recorded headers (helmet's headers depend on its options only, never on the request). The options stay
 * helmet's own, so an upgrade of helmet changes the headers here too.
 */
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { deferHeaders } from './pending-headers.ts';

/** The service's helmet options. No CSP here: HTML resources set their own; JSONP must stay loadable cross-origin. */
export const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};

export interface RecordedHeaders {
  set: readonly (readonly [name: string, value: string])[];
  removed: readonly string[];
}

export function recordHelmetHeaders(options: Readonly<HelmetOptions>): RecordedHeaders {
  const set = new Map<string, string>();
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) { set.set(name, String(value)); return recorder; },
    removeHeader(name: string) { set.delete(name); removed.push(name); },
    getHeader: () => undefined,
  };
  let finished = false;
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously: its headers cannot be recorded');
  return { set: [...set], removed };
}

/** helmet's headers, held for the answer (src/http/pending-headers.ts). */
export function securityHeaders(options: Readonly<HelmetOptions>): RequestHandler {
  const { set, removed } = recordHelmetHeaders(options);
  const flat = set.flat();
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    deferHeaders(res, flat);
    next();
  };
}
