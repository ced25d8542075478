/**
 * Prometheus metrics (prom-client): request count and latency by method, route template (never the raw URL, so
 * label cardinality stays bounded) and status; the process's default metrics once per process.
 */
import type { Request, RequestHandler, Response } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { contextOf } from '../http/request-context.ts';
import { SOAP12_PATH } from '../soap/mount-soap12.ts';

let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The route template a finished request matched: the contract's path, an Express route, /soap12, or `unmatched`. */
export function routeLabel(req: Request, res: Response): string {
  const template = contextOf(res).operation?.template;
  if (template) return template;
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return (req.baseUrl || '') + route.path;
  if (req.path.toLowerCase() === SOAP12_PATH) return SOAP12_PATH;
  return 'unmatched';
}

export interface Metrics {
  middleware: RequestHandler;
  handler: RequestHandler;
  registry: Registry;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route template and status.',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // One pair of labelled children per (method, route, status): prom-client hashes a label set on every call otherwise.
  const children = new Map<
    string,
    { count: Counter.Internal; time: Histogram.Internal<(typeof labelNames)[number]> }
  >();
  const childrenOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let found = children.get(key);
    if (!found) {
      const labels = { method, route, status: String(status) };
      found = { count: requests.labels(labels), time: duration.labels(labels) };
      children.set(key, found);
    }
    return found;
  };
  // One listener for every response (no closure per request).
  function observe(this: Response) {
    const { count, time } = childrenOf(this.req.method, routeLabel(this.req, this), this.statusCode);
    count.inc();
    time.observe((performance.now() - (this.locals.metricsStarted as number)) / 1000);
  }
  const middleware: RequestHandler = (_req, res, next) => {
    res.locals.metricsStarted = performance.now();
    res.once('finish', observe);
    next();
  };
  const handler: RequestHandler = async (_req, res, next) => {
    try {
      const text = `${await registry.metrics()}\n${await processMetrics().metrics()}`;
      res.status(200).setHeader('Content-Type', registry.contentType);
      res.send(Buffer.from(text));
    } catch (error) {
      next(error);
    }
  };
  return { middleware, handler, registry };
}
