/**
 * The end of the line, as ServiceStack answered it: an unknown `/json/reply/{Op}` (or a verb the operation
 * does not take) is a 405 ResponseStatus; any other unknown route is `404` in text/plain.
 */
import type { RequestHandler } from 'express';
import { appError } from '../errors/app-error.ts';
import type { OperationRecord } from '../contract/operations.ts';

/** `/{format}/reply/{Op}` or `/{format}/oneway/{Op}`; without an operation, 4.5 named the rest of the path (`reply/`). */
const PREDEFINED = /^\/(?:json|xml|jsv|csv|html)\/((?:reply|oneway)(?:\/([^/?]+\/?))?\/?)$/i; // `EchoRequest/` is a name

export function notFound(operations: readonly OperationRecord[], debug: boolean): RequestHandler {
  const predefinedDtos = new Set(operations.filter((op) => op.predefined).map((op) => op.requestDto.toLowerCase()));
  return (req, res, next) => {
    const predefined = PREDEFINED.exec(req.path);
    if (predefined) {
      const name = predefined[2] ? safeDecode(predefined[2]) : predefined[1]!;
      const known = predefinedDtos.has(name.toLowerCase());
      const verb = req.method.charAt(0) + req.method.slice(1).toLowerCase();
      return next(
        known
          ? appError('MethodNotFound', { verb, name, service: name.replace(/Request$/, '') })
          : appError('OperationNotFound', { name }),
      );
    }
    const body = debug
      ? `Handler for Request not found (404):\n\n  Request.HttpMethod: ${req.method}\n  Request.PathInfo: ${req.path}\n  Request.QueryString: ${new URLSearchParams(req.query as Record<string, string>).toString()}\n  Request.RawUrl: ${req.originalUrl}`
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
