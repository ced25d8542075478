/**
 * The real app, in-process, over a real store (DuckDB in memory by default), with response validation on:
 * every response a test receives has been checked against openapi/.
 *
 * Authentication: the test app creates an API key scoped to every company of the store (and of the batch) and
 * `app` sends it on every request that carries no key of its own (`X-ApiKey` / `Authorization`), except echo
 * requests (public; a key would change their CompanyName) and requests with the `x-test-no-key` header.
 * `rawApp` is the app without that injection; `keyFor(companyId)` makes a key for one company.
 */
import type { Express, NextFunction, Request, Response } from 'express';
import { pino, type Logger } from 'pino';
import { createApp } from '../../src/app.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { AppConfig } from '../../src/config.ts';
import type { LedgerBatch } from '../../src/domain/ledger.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { workedExampleBatch } from '../fixtures/worked-example.ts';

export interface TestApp {
  /** The app, sending the default API key when a request has none (see above). */
  app: Express;
  /** The app as deployed: no key unless the test sends one. */
  rawApp: Express;
  store: LedgerStore;
  /** The default key: scoped to every company of the store and of the batch. */
  apiKey: string;
  /** A new key scoped to exactly these companies. */
  keyFor(...companyIds: number[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  store?: LedgerStore;
  batch?: LedgerBatch;
  debug?: boolean;
  companyName?: string;
  now?: () => Date;
  /** Validate requests with express-openapi-validator's middleware (the reference of the compiled validators). */
  referenceRequestValidation?: boolean;
  /** The app's logger (silent by default). */
  logger?: Logger;
  /** Limits and deployment settings (defaults as in production). */
  config?: Partial<
    Pick<
      AppConfig,
      | 'maxUrlLength'
      | 'maxArrayItems'
      | 'maxBatchAnswerBytes'
      | 'requestTimeoutMs'
      | 'bodyLimitBytes'
      | 'publicBaseUrl'
      | 'basePath'
      | 'trustProxy'
      | 'auth'
      | 'maxReportColumns'
      | 'metrics'
    >
  >;
}

export const TEST_COMPANY_NAME = 'Test Company';
/** Requests with this header get no default key. */
export const NO_KEY_HEADER = 'x-test-no-key';

const PUBLIC_PATH =
  /^\/+(v1\/+echo(\/|$)|(json|xml|jsv|csv|html)\/+(reply|oneway)\/+echorequest\b|api\/echorequest\b)/i;

/** Wraps an app so that requests without a key get `apiKey` (see the module comment). */
export function withDefaultKey(app: Express, apiKey: string): Express {
  const wrapped = (req: Request, res: Response, next?: NextFunction) => {
    const h = req.headers;
    if (
      h['x-apikey'] === undefined &&
      h.authorization === undefined &&
      h[NO_KEY_HEADER] === undefined &&
      !PUBLIC_PATH.test(req.url ?? '')
    ) {
      h['x-apikey'] = apiKey;
    }
    return (app as unknown as (req: Request, res: Response, next?: NextFunction) => void)(req, res, next);
  };
  Object.setPrototypeOf(wrapped, app); // listen(), settings, ... resolve to the real app
  return wrapped as unknown as Express;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const store = options.store ?? (await openStore({ dataDir: '.', duckdbPath: ':memory:' }));
  const batch = options.batch ?? workedExampleBatch;
  if (!options.store) await store.load(batch);
  const companyIds = new Set<number>([
    ...(await store.listCompanies()).map((c) => c.id),
    ...(batch.companies ?? []).map((c) => c.id),
  ]);
  if (!companyIds.size) companyIds.add(1);
  const { key: apiKey } = await createApiKey(store, { name: 'test default', companyIds: [...companyIds] });
  const rawApp = await createApp({
    config: {
      companyName: options.companyName ?? TEST_COMPANY_NAME,
      debug: options.debug ?? false,
      bodyLimitBytes: 65_536,
      validateResponses: true,
      ...options.config,
    },
    store,
    logger: options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    now: options.now ?? (() => new Date('2024-03-15T12:00:00Z')),
    referenceRequestValidation: options.referenceRequestValidation,
  });
  return {
    app: withDefaultKey(rawApp, apiKey),
    rawApp,
    store,
    apiKey,
    keyFor: async (...ids: number[]) =>
      (await createApiKey(store, { name: `test ${ids.join(',')}`, companyIds: ids })).key,
    close: () => (options.store ? Promise.resolve() : store.close()),
  };
}
