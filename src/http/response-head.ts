/**
 * The headers every answer carries (the request id, helmet's security headers), kept in the request's context until
 * the answer is written: the response writer sends them with its own in one writeHead, which node:http stores and
 * checks in one pass (no setHeader per header); any other answer gets them set on the response before it is written.
 */
import type { Response } from 'express';
import { contextOf } from './request-context.ts';

/** Adds name/value pairs (name, value, name, value…) to the headers every answer of this request carries. */
export function addAnswerHeaders(res: Response, pairs: readonly string[]): void {
  const { head } = contextOf(res);
  for (const item of pairs) head.push(item);
}

/** Sets the pending headers on the response (after any a step set itself, such as a 401's WWW-Authenticate). */
export function setPendingHeaders(res: Response): void {
  const { head } = contextOf(res);
  for (let i = 0; i < head.length; i += 2) res.setHeader(head[i]!, head[i + 1]!);
  head.length = 0;
}

/**
 * Writes the status, the pending headers and then `own` in one writeHead when nothing was set on the response
 * (true); false, with nothing written, when something was: the caller then sets its headers one by one.
 */
export function writeHeadWith(res: Response, own: readonly string[]): boolean {
  const { head } = contextOf(res);
  if (head.length === 0 || res.getHeaderNames().length > 0) return false;
  for (const item of own) head.push(item);
  res.writeHead(res.statusCode, head);
  head.length = 0;
  return true;
}
