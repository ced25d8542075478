/**
 * The composition root of the HTTP service, in request order: logs and metrics, safe headers, the legacy
 * writer and limits, operations endpoints and static pages, route canonicalisation, SOAP, authentication,
 * the legacy binder, the OpenAPI validator, the contract's routes, native types, the legacy 404, errors; all of it
 * mounted under BASE_PATH when one is set.
 */
import express, { type Express, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { configDefaults, type AppConfig } from './config.ts';
import { loadOpenApiDocument } from './contract/openapi-document.ts';
import { validatorDocument } from './http/validator-document.ts';
import { routeTemplates } from './contract/routes.ts';
import { securedOperations } from './contract/secured-operations.ts';
import { bindRequest, identifyOperation } from './http/bind-request.ts';
import { canonicalRoutes } from './http/canonical-route.ts';
import { errorHandler } from './http/error-handler.ts';
import { legacyResponseWriter } from './http/legacy-response.ts';
import { nativeTypesRoutes } from './http/native-types.ts';
import { notFound } from './http/not-found.ts';
import { rejectPending, wireContext } from './http/wire-context.ts';
import { contractOperations } from './http/operations.ts';
import { handlers, type ServiceDependencies } from './routes.ts';
import { useLinkSettings } from './http/base-url.ts';
import { RawBody, sendRaw } from './http/raw-body.ts';
import { staticPages } from './http/static-pages.ts';
import { linkSecretSource } from './services/link-secret.ts';
import { authenticate, callerOf } from './auth/access.ts';
import { maxUrlLength, requestSignal, requestTimeout } from './http/limits.ts';
import { createMetrics } from './ops/metrics.ts';
import { health, ready } from './ops/health.ts';
import { requestLog } from './ops/request-log.ts';
import { mountSoap12 } from './soap/mount-soap12.ts';
import type { LedgerStore } from './store/ledger-store.ts';

export interface AppDependencies {
  /** Settings the app reads; a key left out takes its default from the config schema. */
  config: Partial<AppConfig>;
  store: LedgerStore;
  logger: Logger;
  now?: () => Date;
}

export async function createApp({ config: given, store, logger, now = () => new Date() }: AppDependencies): Promise<Express> {
  const config = { ...configDefaults, ...given };
  const doc = loadOpenApiDocument();
  const routes = routeTemplates(doc);
  const operations = contractOperations(doc, routes);
  const planFor = (req: Request, res: Response) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const template = wireContext(res).template;
    return operations.find((op) => op.method === method && op.template === template);
  };
  const deps: Omit<ServiceDependencies, 'caller'> = {
    store, now, linkSecret: linkSecretSource(store, config.reportLinkSecret), reportLimits: { maxColumns: config.maxReportColumns },
  };
  const secured = securedOperations(doc);
  const renderError = errorHandler({ debug: config.debug, logger });
  const metrics = createMetrics();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy ?? false);
  useLinkSettings(app, { publicBaseUrl: config.publicBaseUrl, basePath: config.basePath ?? '' });
  app.use(requestLog(logger));
  app.use(metrics.middleware);
  // No CSP here: HTML resources set their own; JSONP must stay loadable cross-origin.
  app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } }));
  app.use(legacyResponseWriter());
  app.use(maxUrlLength(config.maxUrlLength));
  app.use(requestTimeout(config.requestTimeoutMs, renderError));
  app.get('/health', health);
  app.get('/ready', ready(store));
  app.get('/metrics', metrics.handler);
  app.use(staticPages());
  app.use(canonicalRoutes(routes));
  await mountSoap12(app, { bodyLimitBytes: config.bodyLimitBytes });
  app.use(identifyOperation(planFor));
  app.use(authenticate({
    store,
    mode: config.auth,
    defaultCompanyName: config.companyName,
    requiresKey: (req, res) => secured.has(`${req.method === 'HEAD' ? 'GET' : req.method} ${wireContext(res).template}`),
  }));
  app.use(express.json({ limit: config.bodyLimitBytes, strict: false }));
  app.use(bindRequest({ maxArrayItems: config.maxArrayItems }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: validatorDocument(doc),
      validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false },
      validateResponses: config.validateResponses,
      validateSecurity: false,
      ignoreUndocumented: true,
      useRequestUrl: true,
    }),
  );
  app.use(rejectPending());
  for (const op of operations) {
    const handler = handlers[op.operationId];
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    app[op.method.toLowerCase() as 'get' | 'post'](op.expressPath, async (req, res) => {
      wireContext(res).serviceStarted = true;
      const result = await handler(req, { ...deps, caller: callerOf(res), signal: requestSignal(res) });
      if (res.headersSent) return; // the request ran past its time-out and was answered
      if (result instanceof RawBody) sendRaw(res, result);
      else res.json(result);
    });
  }
  app.use(nativeTypesRoutes(now)); // /types/typescript, /types/csharp: before the legacy 404
  app.use(notFound(routes, config.debug));
  app.use(renderError);
  return config.basePath ? underBasePath(app, config.basePath, config.trustProxy ?? false) : app;
}

/**
 * The app mounted under BASE_PATH, as an IIS virtual directory served it: inside, every route, page and rule as at
 * the root (req.url without the prefix); outside, a plain 404.
 */
function underBasePath(app: Express, basePath: string, trustProxy: NonNullable<AppConfig['trustProxy']>): Express {
  const outer = express();
  outer.disable('x-powered-by');
  outer.set('trust proxy', trustProxy);
  outer.use(basePath, app);
  outer.use((_req: Request, res: Response) => {
    res.status(404).type('text/plain').send(`Not found: the service is under ${basePath}/`);
  });
  return outer;
}
