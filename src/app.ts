/**
 * The composition root of the HTTP service: wire rules, validator, routes, SOAP, errors — in that order.
 */
import express, { type Express, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from 'pino';
import type { AppConfig } from './config.ts';
import { loadOpenApiDocument } from './contract/openapi-document.ts';
import { routeTemplates } from './contract/routes.ts';
import { bindRequest, identifyOperation } from './http/bind-request.ts';
import { canonicalRoutes } from './http/canonical-route.ts';
import { errorHandler } from './http/error-handler.ts';
import { legacyResponseWriter } from './http/legacy-response.ts';
import { notFound } from './http/not-found.ts';
import { wireContext } from './http/wire-context.ts';
import { contractOperations } from './http/operations.ts';
import { handlers, type ServiceDependencies } from './routes.ts';
import { mountSoap12 } from './soap/mount-soap12.ts';
import type { LedgerStore } from './store/ledger-store.ts';

export interface AppDependencies {
  config: Pick<AppConfig, 'companyName' | 'debug' | 'bodyLimitBytes' | 'validateResponses'>;
  store: LedgerStore;
  logger: Logger;
  now?: () => Date;
}

export async function createApp({ config, store, logger, now = () => new Date() }: AppDependencies): Promise<Express> {
  const doc = loadOpenApiDocument();
  const routes = routeTemplates(doc);
  const operations = contractOperations(doc, routes);
  const planFor = (req: Request, res: Response) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const template = wireContext(res).template;
    return operations.find((op) => op.method === method && op.template === template);
  };
  const deps: ServiceDependencies = { store, now, caller: { companyName: config.companyName } };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(legacyResponseWriter());
  app.use(canonicalRoutes(routes));
  await mountSoap12(app, { bodyLimitBytes: config.bodyLimitBytes });
  app.use(identifyOperation(planFor));
  app.use(express.json({ limit: config.bodyLimitBytes, strict: false }));
  app.use(bindRequest());
  app.use(
    OpenApiValidator.middleware({
      apiSpec: doc,
      validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false },
      validateResponses: config.validateResponses,
      validateSecurity: false,
      ignoreUndocumented: true,
      useRequestUrl: true,
    }),
  );
  for (const op of operations) {
    const handler = handlers[op.operationId];
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    app[op.method.toLowerCase() as 'get' | 'post'](op.expressPath, async (req, res) => {
      res.json(await handler(req, deps));
    });
  }
  app.use(notFound(routes, config.debug));
  app.use(errorHandler({ debug: config.debug, logger }));
  return app;
}
