/**
 * Resolves a request to its operation record, once: the path is matched against the contract's routes the way
 * ServiceStack did (HEAD as GET, case-insensitive literals, empty segments dropped, the extension of a format the
 * operation answers in stripped from REST routes; the suffix of a format it does not answer in is a 404 naming the
 * suffixes it has where the operation documents a 404 (a report link's `.xml`), else it stays part of the path, as
 * 4.5 kept a suffix it did not know (`/v1/echo/a.xlsx` echoes `a.xlsx`)), a pre-defined `/{format}/reply/{Op}` route's
 * prefix read as its format), `req.url` is rewritten to the path as openapi/ spells it (so the validator
 * sees one canonical form), and the record, path variables and extension format go into the request context.
 * ServiceStack 6+'s `/api/{Op}` route (beyond 4.5) is read as `/json/reply/{Op}`, `/api/{Op}.{ext}` as
 * `/{ext}/reply/{Op}`.
 * `callbackLimit` refuses a JSONP callback name over the limit before anything is read.
 */
import type { RequestHandler } from 'express';
import { Keywords, keywordValue } from '../contract/keywords.ts';
import { successMediaTypes, type OperationRecord } from '../contract/operations.ts';
import { matchRoute, type RouteMatch } from '../contract/routes.ts';
import { appError } from '../errors/app-error.ts';
import { formatMessage } from '../errors/messages.ts';
import { MAX_CALLBACK_CHARS } from '../formats/jsonp.ts';
import type { FormatRegistry } from '../formats/registry.ts';
import { contextOf } from './request-context.ts';

function safeLower(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/**
 * A pre-defined route as 4.5 split it: leading slashes dropped, then `{format}/{reply|oneway}/` and the rest, with its
 * own leading slashes dropped, is the operation name. So `//json/reply//EchoRequest` is EchoRequest, while
 * `/json/reply/EchoRequest/` names the operation `EchoRequest/` (405) and `/json//reply/EchoRequest` is no route (404),
 * as the 4.5.14 host answered; REST routes drop every empty segment.
 */
function isPredefinedShape(rawPath: string): boolean {
  const parts = rawPath.replace(/^\/+/, '').split('/');
  const operationName = parts.slice(2).join('/').replace(/^\/+/, '');
  return parts.length >= 3 && parts[0] !== '' && parts[1] !== '' && !operationName.includes('/');
}

/**
 * ServiceStack 6+'s pre-defined `/api/{Request}` route (PredefinedRoutesFeature.JsonApiRoute, ApiHandlers.Json): JSON,
 * or the format of a registered extension (`/api/EchoRequest.xml`). Matched as ServiceStack matched it: `/api/` in
 * lower case, one operation name after it. Returns the format and the operation name.
 */
function apiRoute(
  rawPath: string,
  extension: [string, string] | undefined,
): [format: string, name: string] | undefined {
  const name = /^\/api\/([^/]+)$/.exec(rawPath)?.[1];
  if (name === undefined) return undefined;
  return extension ? [extension[1], extension[0]] : ['json', name];
}

export function resolveOperation(operations: readonly OperationRecord[], formats: FormatRegistry): RequestHandler {
  const byMethod = new Map<string, OperationRecord[]>();
  for (const op of operations) byMethod.set(op.method, [...(byMethod.get(op.method) ?? []), op]);
  // A pre-defined route's segments after its format prefix, matched against the request's after its own.
  const afterPrefix = new Map(operations.map((op) => [op, op.segments.slice(1)]));
  // The formats each operation answers in (its documented 200 media types); none documented = any.
  const answersIn = new Map(operations.map((op) => [op, formats.offered(successMediaTypes(op)).map((e) => e.format)]));
  const answers = (op: OperationRecord, format: string) =>
    answersIn.get(op)!.length === 0 || answersIn.get(op)!.includes(format);
  const formNotServed = (op: OperationRecord, suffix: string) => {
    const forms = answersIn.get(op)!.map((f) => `.${f}`);
    return appError('FormNotServed', {
      suffix,
      forms: forms.length > 1 ? `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}` : forms.join(''),
    });
  };

  const splitExtension = (last: string): [string, string] | undefined => {
    const dot = last.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const format = formats.byExtension(last.slice(dot + 1))?.format;
    return format ? [last.slice(0, dot), format] : undefined;
  };

  return (req, res, next) => {
    const done = () => next();
    const queryStart = req.url.indexOf('?');
    const rawPath = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : req.url.slice(queryStart);
    const segments = rawPath.split('/').filter(Boolean);
    const withExtension = segments.length ? splitExtension(segments[segments.length - 1]!) : undefined;
    const stripped = withExtension && [...segments.slice(0, -1), withExtension[0]];

    // `/{format}/reply/...` of a format that answers pre-defined routes: matched as the contract's `/json/reply/...`.
    const api = apiRoute(rawPath, withExtension);
    const prefix = api ? formats.get(api[0]) : segments.length ? formats.get(safeLower(segments[0]!)) : undefined;
    // `oneway` is answered as `reply` (4.5 ran the service and answered it on both).
    const asPredefined = !prefix?.predefinedRoutes
      ? undefined
      : api
        ? ['reply', api[1]]
        : isPredefinedShape(rawPath)
          ? segments.slice(1).map((s, i) => (i === 0 && /^oneway$/i.test(s) ? 'reply' : s))
          : undefined;

    const resolve = (op: OperationRecord, match: RouteMatch, formatFrom?: { extension?: string; prefix?: string }) => {
      req.url = match.canonicalPath + query;
      const context = contextOf(res);
      context.operation = op;
      context.params = match.params;
      if (formatFrom?.extension) context.extensionFormat = formatFrom.extension;
      if (formatFrom?.prefix) context.prefixFormat = formatFrom.prefix;
      done();
    };
    for (const op of byMethod.get(req.method === 'HEAD' ? 'GET' : req.method) ?? []) {
      if (op.predefined) {
        const match = asPredefined && matchRoute(afterPrefix.get(op)!, asPredefined);
        if (match)
          return resolve(
            op,
            { canonicalPath: `/${op.segments[0]!.literal}${match.canonicalPath}`, params: match.params },
            { prefix: prefix!.format },
          );
        continue;
      }
      const withoutExtension = stripped ? matchRoute(op.segments, stripped) : undefined;
      if (withoutExtension && answers(op, withExtension![1]))
        return resolve(op, withoutExtension, { extension: withExtension![1] });
      if (withoutExtension && op.responses.has('404')) {
        contextOf(res).operation = op;
        return next(formNotServed(op, segments.at(-1)!.slice(withExtension![0].length + 1)));
      }
      const asSent = matchRoute(op.segments, segments);
      if (asSent) return resolve(op, asSent);
    }
    done();
  };
}

/** A JSONP callback name over the limit is a 400 naming the field, before anything else of the request is read. */
export const callbackLimit: RequestHandler = (req, _res, next) => {
  if (!req.url.includes('=')) return next();
  const name = keywordValue(req.query as Record<string, unknown>, Keywords.callback);
  if (name === undefined || name.length <= MAX_CALLBACK_CHARS) return next();
  const message = formatMessage('CallbackTooLong', { max: MAX_CALLBACK_CHARS });
  next(
    appError(
      'CallbackTooLong',
      { max: MAX_CALLBACK_CHARS },
      { fieldErrors: [{ errorCode: 'ArgumentException', fieldName: Keywords.callback, message }] },
    ),
  );
};
