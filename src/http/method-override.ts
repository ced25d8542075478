/**
 * `X-HTTP-Method-Override: <verb>`, honoured as ServiceStack 4.5 honoured it: the request is routed and bound as
 * that verb (a client behind a proxy that only passes GET and POST sends POST with `X-HTTP-Method-Override: GET`).
 * Only the standard verbs are taken; anything else leaves the request as sent.
 */
import type { RequestHandler } from 'express';

const VERBS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

export function methodOverride(): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers['x-http-method-override'];
    const verb = (Array.isArray(header) ? header[0] : header)?.trim().toUpperCase();
    if (verb && VERBS.has(verb)) req.method = verb;
    next();
  };
}
