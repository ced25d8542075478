/**
 * Matches the request path against the contract's routes the way ServiceStack did (case-insensitive literals,
 * empty segments dropped, a known format extension stripped from REST routes) and rewrites `req.url` to the
 * path as openapi/ spells it, so the validator and the router see one canonical form.
 */
import type { RequestHandler } from 'express';
import { matchRoute, type RouteTemplate } from '../contract/routes.ts';
import { formatOfExtension } from './format.ts';
import { wireContext } from './wire-context.ts';

function splitExtension(last: string): [string, string] | undefined {
  const dot = last.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const format = formatOfExtension(last.slice(dot + 1));
  return format ? [last.slice(0, dot), format] : undefined;
}

export function canonicalRoutes(routes: RouteTemplate[]): RequestHandler {
  return (req, res, next) => {
    const queryStart = req.url.indexOf('?');
    const rawPath = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : req.url.slice(queryStart);
    const segments = rawPath.split('/').filter(Boolean);
    const withExtension = segments.length ? splitExtension(segments[segments.length - 1]!) : undefined;

    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const route of routes) {
      if (!route.methods.has(method)) continue;
      const candidates: [string[], string | undefined][] = [[segments, undefined]];
      if (withExtension && !route.predefined) candidates.unshift([[...segments.slice(0, -1), withExtension[0]], withExtension[1]]);
      for (const [parts, extensionFormat] of candidates) {
        const canonical = matchRoute(route, parts);
        if (canonical === undefined) continue;
        req.url = canonical + query;
        const wire = wireContext(res);
        wire.template = route.template;
        if (extensionFormat) wire.extensionFormat = extensionFormat;
        return next();
      }
    }
    next();
  };
}
