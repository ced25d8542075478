/**
 * Which endpoint a request is: `METHOD template` of openapi/ (the host's own route matching), else its method and path.
 */
import { contractOperations } from '../../../../src/tooling-exports.ts';
import { matchRoute } from '../../../../src/tooling-exports.ts';

export function endpointOf(method: string, url: string): string {
  const operations = contractOperations().all;
  const path = new URL(`http://host${url.startsWith('/') ? '' : '/'}${url}`).pathname;
  const segments = path.split('/').filter(Boolean);
  const withoutSuffix = segments.length
    ? [...segments.slice(0, -1), segments.at(-1)!.replace(/\.(json|xml|csv|html|xlsx)$/, '')]
    : segments;
  for (const candidate of [segments, withoutSuffix]) {
    const op = operations.find(
      (o) => o.method === (method === 'HEAD' ? 'GET' : method) && matchRoute(o.segments, candidate),
    );
    if (op) return `${method} ${op.template}`;
  }
  return `${method} ${path}`;
}
