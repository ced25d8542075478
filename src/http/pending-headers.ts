/**
 * Headers every answer carries whatever writes it (the request id, helmet's security headers), held in the request
 * context until the answer is written. The DTO writer hands them to node in one `writeHead` together with its own;
 * any other writer (errors, the Express app's pages, SOAP, downloads) gets them set on the response first, through
 * `applyPendingHeaders`. Node's setHeader validates and stores every header one by one; a header list given whole to
 * writeHead on a response that has none set is written as it is.
 */
import type { Response } from 'express';
import { contextOf } from './request-context.ts';

/** Adds headers (a flat name, value, name, value list) to be written with the answer. */
export function deferHeaders(res: Response, headers: readonly string[]): void {
  const pending = contextOf(res).pendingHeaders;
  for (const item of headers) pending.push(item);
}

/** Sets the held headers on the response, for a writer that sets its own one by one. */
export function applyPendingHeaders(res: Response): void {
  const pending = contextOf(res).pendingHeaders;
  if (!pending.length || res.headersSent) return;
  for (let i = 0; i < pending.length; i += 2) res.setHeader(pending[i]!, pending[i + 1]!);
  pending.length = 0;
}

/** The held headers, taken by a writer that writes them itself. */
export function takePendingHeaders(res: Response): string[] {
  const context = contextOf(res);
  const pending = context.pendingHeaders;
  context.pendingHeaders = [];
  return pending;
}
