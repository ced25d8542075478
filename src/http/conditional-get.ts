/**
 * Conditional GET of the operations whose service names its answer's making before building it (the reports): that
 * material and the answer's form become a weak entity tag (RFC 9110 §8.8.1); a GET or HEAD whose If-None-Match holds
 * it is answered 304 with no body (§15.4.5), nothing built. If-None-Match is read by the fresh package (`*`, lists,
 * weak comparison, §13.1.2). The answers depend on a credential: `private`, revalidated on every use.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import { Keywords, keywordText } from '../contract/keywords.ts';
import type { Revalidate } from '../contract/service-result.ts';
import { contextOf, type ResponseForm } from './request-context.ts';

const CACHE_CONTROL = 'private, no-cache';

/** `W/"<27 base64url characters of SHA-256>"` of the parts as JSON. */
function weakEntityTag(parts: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 27)}"`;
}

/**
 * The check a service is given for a GET or HEAD of a single request (undefined otherwise: If-None-Match is ignored).
 * The form's part of the tag: the operation, the format, the JSONP callback, `?jsconfig=`, the public path, and the
 * request's URL for a format whose output links to it (the HTML pages).
 */
export function revalidator(
  req: Request,
  res: Response,
  form: ResponseForm,
  publicPath: string,
): Revalidate | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const context = contextOf(res);
  if (!context.operation || context.operation.batch) return undefined;
  const variant = [
    context.operation.operationId,
    form.entry.format,
    form.wrapper?.value,
    keywordText(req.query as Record<string, unknown>, Keywords.jsconfig),
    publicPath,
    form.entry.linksToRequest ? req.originalUrl : undefined,
  ];
  // If-None-Match alone: fresh (and Express's req.fresh) would ignore it beside `Cache-Control: no-cache`, a request
  // directive for caches that fetch() adds to every request carrying If-None-Match (Fetch standard, HTTP-network-or-
  // cache fetch), so no fetch-based client would ever get a 304.
  const held = { 'if-none-match': req.headers['if-none-match'] };
  return (material) => {
    const tag = weakEntityTag([variant, material]);
    context.entityTag = tag;
    return fresh(held, { etag: tag });
  };
}

/** A 200 answer whose service made an entity tag carries it (the writer sets `Vary: Accept` itself). */
export function writeValidators(res: Response): void {
  const tag = contextOf(res).entityTag;
  if (tag === undefined || res.statusCode !== 200) return;
  res.setHeader('ETag', tag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
}

/** 304: the headers a 200 would have carried for caches (ETag, Cache-Control, Vary), no body. */
export function answerNotModified(res: Response): void {
  res.status(304);
  res.setHeader('ETag', contextOf(res).entityTag ?? '');
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.vary('Accept');
  res.end();
}
