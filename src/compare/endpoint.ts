/** Which endpoint a request is: `METHOD template` of openapi/ (the host's own route matching), else its method and path. */
import { loadOpenApiDocument } from '../contract/openapi-document.ts';
import { matchRoute, routeTemplates, type RouteTemplate } from '../contract/routes.ts';

let routes: RouteTemplate[] | undefined;

export function endpointOf(method: string, url: string): string {
  routes ??= routeTemplates(loadOpenApiDocument());
  const path = new URL(`http://host${url.startsWith('/') ? '' : '/'}${url}`).pathname;
  const segments = path.split('/').filter(Boolean);
  const withoutSuffix = segments.length ? [...segments.slice(0, -1), segments.at(-1)!.replace(/\.(json|xml|csv|html|xlsx)$/, '')] : segments;
  for (const candidate of [segments, withoutSuffix]) {
    const route = routes.find((r) => (r.methods.has(method) || (method === 'HEAD' && r.methods.has('GET'))) && matchRoute(r, candidate));
    if (route) return `${method} ${route.template}`;
  }
  return `${method} ${path}`;
}
