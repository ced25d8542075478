/**
 * Request bodies of the operations that take one (`/{format}/reply/{Op}` POST), read as a real ServiceStack 4.5.14
 * host read them:
 *  - `multipart/form-data` (busboy, multipart-form.ts) and `application/x-www-form-urlencoded` bodies are flat form
 *    fields (a name as sent → its value or values), bound as the query is bound;
 *  - any other body is read in the predefined route's format, through that format's `read` in the format registry:
 *    XML on `/xml/reply/`, JSV on `/jsv/reply/`, and JSON on `/json/reply/` whatever its Content-Type (`text/json`,
 *    `text/plain`, none at all). JSON is parsed as 4.5 parsed it, a trailing comma accepted (jsonc-parser), anything
 *    else malformed (a truncated body included, which 4.5 half-read and answered 200) is a 400; CSV on `/csv/reply/`;
 *  - an empty body binds the defaults (the query string ignored), as the 4.5.14 host did on every predefined route;
 *  - a batch's body (`/{format}/reply/{Op}[]`) is read by the format's `readList`: an array of requests.
 * The fields then go to the binder as one object; the Content-Type is set to JSON, the canonical form the contract
 * (and so the validator) describes, as the canonical URL is for paths.
 *
 * A declared charset other than UTF-8 (its ASCII subset) or ISO-8859-1 (the one other charset both the form
 * parser and ASP.NET's form reader used) is a 415: a body in UTF-7 or UTF-16 is not decoded, so what the service
 * reads is what a filter in front of it read.
 */
import express, { type RequestHandler } from 'express';
import { appError } from '../errors/app-error.ts';
import type { FormatRegistry } from '../formats/registry.ts';
import { MULTIPART_FORM, parseContentType, URLENCODED_FORM } from './content-type.ts';
import { discardRest } from './discard-rest.ts';
import { MULTIPART_FIELD_LIMITS, readMultipartForm } from './multipart-form.ts';
import { contextOf } from './request-context.ts';

/** Charsets a body may declare (lower case): UTF-8 and its names, US-ASCII, ISO-8859-1 and its names. */
export const ACCEPTED_BODY_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii', 'iso-8859-1', 'latin1']);

export function readRequestBody({ limit, formats }: { limit: number; formats: FormatRegistry }): RequestHandler {
  const form = express.urlencoded({
    extended: false,
    limit,
    type: () => true,
    parameterLimit: MULTIPART_FIELD_LIMITS.fields,
  });
  const multipartLimits = { bodyBytes: limit, ...MULTIPART_FIELD_LIMITS };
  const text = express.text({ limit, type: () => true, defaultCharset: 'utf-8' });
  const read: RequestHandler = (req, res, next) => {
    const context = contextOf(res);
    const op = context.operation;
    if (!op?.binding.body) return next();
    const { mediaType: media, charset } = parseContentType(req.headers['content-type']);
    if (charset !== undefined && !ACCEPTED_BODY_CHARSETS.has(charset)) {
      discardRest(req);
      return next(appError('CharsetUnsupported', { charset }));
    }
    const asJson = () => {
      req.headers['content-type'] = 'application/json';
      next();
    };
    const asForm = () => {
      context.bodyFromForm = true;
      asJson();
    };
    if (media === MULTIPART_FORM) {
      return void readMultipartForm(req, multipartLimits).then((fields) => {
        req.body = fields;
        asForm();
      }, next);
    }
    if (media === URLENCODED_FORM) return form(req, res, (error?: unknown) => (error ? next(error) : asForm()));
    text(req, res, (error?: unknown) => {
      if (error) return next(error);
      const body = typeof req.body === 'string' ? req.body : '';
      // An empty body (`Post(url, null)` from the C# clients) binds the DTO's defaults, the query string ignored,
      // whatever the route's format, as the 4.5.14 host answered; a body of only white space is the format's to refuse.
      // A batch's empty body is an empty batch (4.5.14 answered `[]`).
      if (body === '') {
        req.body = op.batch ? [] : {};
        return asJson();
      }
      // The route's format reads the body (a batch's as a list); formats without a reader (HTML) read JSON, as 4.5's
      // did.
      const entry = formats.get(context.prefixFormat ?? 'json');
      const reader = op.batch
        ? (entry?.readList ?? formats.fallback.readList!)
        : (entry?.read ?? formats.fallback.read!);
      try {
        req.body = reader(body, { operation: op });
      } catch (thrown) {
        return next(thrown);
      }
      context.bodyFromDocument = true;
      asJson();
    });
  };
  return read;
}
