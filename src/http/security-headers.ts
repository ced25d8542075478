/**
 * The service's security headers: helmet's, with the service's options, worked out once at start by helmet's own
 * middleware (each of its headers is the same on every answer for these options), then added to each answer's
 * pending headers (src/http/response-head.ts) by one step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { addAnswerHeaders } from './response-head.ts';

/** No CSP here: HTML resources set their own; JSONP must stay loadable cross-origin. */
export const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};

/** The headers helmet's middleware sets with `options`, in its order, as name, value, name, value… */
export function helmetHeaders(options: Readonly<HelmetOptions> = SECURITY_HEADER_OPTIONS): readonly string[] {
  const pairs: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      pairs.push(name, String(value));
      return recorder;
    },
    removeHeader() {},
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers at once');
  return pairs;
}

/** The step that gives every answer helmet's headers. */
export function securityHeaders(options: Readonly<HelmetOptions> = SECURITY_HEADER_OPTIONS): RequestHandler {
  const pairs = helmetHeaders(options);
  return (_req, res, next) => {
    addAnswerHeaders(res, pairs);
    next();
  };
}
