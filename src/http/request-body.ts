/**
 * Request bodies of the operations that take one (`/{format}/reply/{Op}` POST), read as a real ServiceStack 4.5.14
 * host read them:
 *  - `multipart/form-data` (multer) and `application/x-www-form-urlencoded` bodies are form fields, read as text like
 *    query values;
 *  - any other body is read in the predefined route's format, through that format's `read` in the format registry:
 *    XML on `/xml/reply/`, JSV on `/jsv/reply/`, and JSON on `/json/reply/` whatever its Content-Type (`text/json`,
 *    `text/plain`, none at all). JSON is parsed as 4.5 parsed it, a trailing comma accepted (jsonc-parser), anything
 *    else malformed (a truncated body included, which 4.5 half-read and answered 200) is a 400; CSV on `/csv/reply/`;
 *  - an empty body binds the defaults (the query string ignored), as the 4.5.14 host did on every predefined route.
 * The fields then go to the binder as one object; the Content-Type is set to JSON, the canonical form the contract
 * (and so the validator) describes, as the canonical URL is for paths.
 */
import express, { type RequestHandler } from 'express';
import multer from 'multer';
import { appError, type AppError } from '../errors/app-error.ts';
import type { FormatRegistry } from '../formats/registry.ts';
import { contextOf } from './request-context.ts';

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export function readRequestBody({ limit, formats }: { limit: number; formats: FormatRegistry }): RequestHandler[] {
  const form = express.urlencoded({ extended: false, limit, type: () => true });
  const multipart = multer({ limits: { fieldSize: limit, fields: 1000, files: 0 } }).none();
  const text = express.text({ limit, type: () => true, defaultCharset: 'utf-8' });
  const read: RequestHandler = (req, res, next) => {
    const context = contextOf(res);
    const op = context.operation;
    if (!op?.binding.body) return next();
    const media = mediaTypeOf(req.headers['content-type']);
    const asJson = () => {
      req.headers['content-type'] = 'application/json';
      next();
    };
    if (media === 'multipart/form-data') return multipart(req, res, (error?: unknown) => (error ? next(multipartError(error)) : asJson()));
    if (media === 'application/x-www-form-urlencoded') return form(req, res, (error?: unknown) => (error ? next(error) : asJson()));
    text(req, res, (error?: unknown) => {
      if (error) return next(error);
      const body = typeof req.body === 'string' ? req.body : '';
      // An empty body (`Post(url, null)` from the C# clients) binds the DTO's defaults, the query string ignored,
      // whatever the route's format, as the 4.5.14 host answered; a body of only white space is the format's to refuse.
      if (body === '') {
        req.body = {};
        return asJson();
      }
      // The route's format reads the body; formats without a reader (HTML) read JSON, as 4.5's did.
      const reader = formats.get(context.prefixFormat ?? 'json')?.read ?? formats.fallback.read!;
      try {
        req.body = reader(body, { operation: op });
      } catch (thrown) {
        return next(thrown);
      }
      context.bodyFromDocument = true;
      asJson();
    });
  };
  return [read];
}

function multipartError(error: unknown): AppError {
  const code = (error as { code?: string }).code;
  if (code === 'LIMIT_FIELD_VALUE' || code === 'LIMIT_FIELD_COUNT') return appError('BodyTooLarge');
  return appError('BodyReadFailed', { reason: (error as Error).message });
}
