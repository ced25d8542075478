/**
 * Prometheus metrics (prom-client): request count and latency by method, route template (never the raw URL, so
 * label cardinality stays bounded) and status; the store's in-memory indexes against their budget, read at each
 * scrape; the process's default metrics once per process. What it reads of the app (the request's contract route,
 * the SOAP path, the store's figures) the composition root passes in (`MetricsSources`). prom-client is loaded when
 * the first answer has been sent (or /metrics is read), not before the server's first answer.
 */
import { createRequire } from 'node:module';
import type { Request, RequestHandler, Response } from 'express';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { IndexStats } from '../store/ledger/lifecycle.ts';

type PromClient = typeof import('prom-client');
let promClient: PromClient | undefined;
const loadPromClient = (): PromClient => (promClient ??= createRequire(import.meta.url)('prom-client') as PromClient);

let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    const { Registry, collectDefaultMetrics } = loadPromClient();
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** What the metrics read of the app, given by the composition root (src/app.ts). */
export interface MetricsSources {
  /** The store's index figures (LedgerStore.indexStats), exported with the request metrics. */
  indexStats?: () => IndexStats;
  /** The contract's path template a finished request was resolved to, if any. */
  templateOf?: (res: Response) => string | undefined;
  /** Lower-case paths served outside Express's routes (the SOAP endpoint), each its own label. */
  mountedPaths?: readonly string[];
}

/** The route a finished request matched: its contract path template, an Express route, a mounted path, `unmatched`. */
function routeLabel(req: Request, res: Response, sources: MetricsSources): string {
  const template = sources.templateOf?.(res);
  if (template) return template;
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return (req.baseUrl || '') + route.path;
  const path = req.path.toLowerCase();
  return sources.mountedPaths?.includes(path) ? path : 'unmatched';
}

export interface Metrics {
  middleware: RequestHandler;
  handler: RequestHandler;
}

/** The index figures, each read from the store's stats when Prometheus scrapes (counters as running totals). */
function registerIndexMetrics(registry: Registry, stats: () => IndexStats): void {
  const { Counter, Gauge } = loadPromClient();
  const gauges: [string, string, (s: IndexStats) => number][] = [
    [
      'reporting_index_budget_bytes',
      'INDEX_MEMORY_MB in bytes: what the in-memory indexes may hold.',
      (s) => s.budgetBytes,
    ],
    [
      'reporting_index_room_bytes',
      'What the indexes may hold now: the budget, or less: what they hold plus what the RSS has left below ' +
        'budget + INDEX_RSS_HEADROOM_MB, less the most the memory beside them grew between two decisions lately.',
      (s) => s.roomBytes,
    ],
    ['reporting_index_bytes', 'Estimated bytes of the in-memory indexes held now.', (s) => s.heldBytes],
    [
      'reporting_index_building_bytes',
      'Estimated bytes of the indexes being built now, charged to the budget before they are made.',
      (s) => s.buildingBytes,
    ],
    ['reporting_index_companies', 'Companies whose index is held (and followed) now.', (s) => s.companies],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(stats()));
      },
    });
  }
  const counters: [string, string, (s: IndexStats) => number][] = [
    ['reporting_index_hits_total', "Reports that found their company's index in memory.", (s) => s.hits],
    ['reporting_index_misses_total', "Reports that built their company's index from the store.", (s) => s.misses],
    ['reporting_index_rebuilds_total', 'Builds of a company evicted before (part of the misses).', (s) => s.rebuilds],
    ['reporting_index_evictions_total', 'Companies dropped to keep the indexes within the budget.', (s) => s.evictions],
    [
      'reporting_pnl_sums_total',
      'P&L sums the store answered: one per report built (a 304 Not Modified builds none).',
      (s) => s.sums,
    ],
  ];
  for (const [name, help, read] of counters) {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read(stats());
        if (now > reported) this.inc(now - reported);
        reported = now;
      },
    });
  }
}

type LabelName = 'method' | 'route' | 'status';

/** The request metrics of one app, in their own registry (with the store's index figures, when given). */
interface Instruments {
  registry: Registry;
  requests: Counter<LabelName>;
  duration: Histogram<LabelName>;
}

function createInstruments(sources: MetricsSources): Instruments {
  const { Counter, Histogram, Registry } = loadPromClient();
  const registry = new Registry();
  if (sources.indexStats) registerIndexMetrics(registry, sources.indexStats);
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
  return { registry, requests, duration };
}

export function createMetrics(sources: MetricsSources = {}): Metrics {
  let made: Instruments | undefined;
  const instruments = () => (made ??= createInstruments(sources));
  // One pair of labelled children per (method, route, status): prom-client hashes a label set on every call otherwise.
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<LabelName> }>();
  const childrenOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let found = children.get(key);
    if (!found) {
      const { requests, duration } = instruments();
      const labels = { method, route, status: String(status) };
      found = { count: requests.labels(labels), time: duration.labels(labels) };
      children.set(key, found);
    }
    return found;
  };
  // One listener for every response (no closure per request).
  function observe(this: Response) {
    const { count, time } = childrenOf(this.req.method, routeLabel(this.req, this, sources), this.statusCode);
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
      const { registry } = instruments();
      const text = `${await registry.metrics()}\n${await processMetrics().metrics()}`;
      res.status(200).setHeader('Content-Type', registry.contentType);
      res.send(Buffer.from(text));
    } catch (error) {
      next(error);
    }
  };
  return { middleware, handler };
}
