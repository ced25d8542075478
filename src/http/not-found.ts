/**
 * The end of the line, as ServiceStack answered it: an unknown `/json/reply/{Op}` or `/api/{Op}` (or a verb the
 * operation does not take) is a 405 ResponseStatus with the `Allow` header RFC 9110 requires (the operation's verbs;
 * empty for an operation that does not exist); any other unknown route is `404` in text/plain.
 */
import type { RequestHandler } from 'express';
import { appError } from '../errors/app-error.ts';
import type { OperationRecord } from '../contract/operations.ts';

/**
 * `/{format}/reply/{Op}` or `/{format}/oneway/{Op}`; without an operation, 4.5 named the rest of the path (`reply/`).
 */
// `EchoRequest/` is a name.
const PREDEFINED = /^\/(?:json|xml|jsv|csv|html)\/((?:reply|oneway)(?:\/([^/?]+\/?))?\/?)$/i;
/** ServiceStack 6+'s `/api/{Op}` (an extension is the format, not part of the name). */
const API = /^\/api\/([^/?.]+)(?:\.[^/?]*)?$/;

export function notFound(operations: readonly OperationRecord[], debug: boolean): RequestHandler {
  const allowed = new Map<string, Set<string>>(); // request DTO (lower case) → the verbs of its pre-defined routes
  for (const op of operations.filter((o) => o.predefined)) {
    const verbs = allowed.get(op.requestDto.toLowerCase()) ?? new Set<string>();
    allowed.set(op.requestDto.toLowerCase(), verbs.add(op.method));
    if (op.method === 'GET') verbs.add('HEAD');
  }
  return (req, res, next) => {
    const predefined = PREDEFINED.exec(req.path);
    const api = predefined ? undefined : API.exec(req.path);
    if (predefined || api) {
      const name = predefined ? (predefined[2] ? safeDecode(predefined[2]) : predefined[1]!) : safeDecode(api![1]!);
      const verbs = allowed.get(name.toLowerCase());
      const known = verbs !== undefined;
      const verb = req.method.charAt(0) + req.method.slice(1).toLowerCase();
      res.setHeader('Allow', [...(verbs ?? [])].join(', '));
      return next(
        known
          ? appError('MethodNotFound', { verb, name, service: name.replace(/Request$/, '') })
          : appError('OperationNotFound', { name }),
      );
    }
    const body = debug
      ? `Handler for Request not found (404):\n\n  Request.HttpMethod: ${req.method}\n  ` +
        `Request.PathInfo: ${req.path}\n  ` +
        `Request.QueryString: ${new URLSearchParams(req.query as Record<string, string>).toString()}\n  ` +
        `Request.RawUrl: ${req.originalUrl}`
      : '404';
    res.status(404).setHeader('Content-Type', 'text/plain');
    res.vary('Accept'); // as every 4.5 answer, its 404 included
    res.send(Buffer.from(body));
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
