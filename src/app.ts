/**
 * The composition root of the HTTP service: one Express app. Every request passes the edge (its log line and
 * metrics, helmet's headers, the response writer, limits, and the lookup of its contract operation, which rewrites
 * the URL to the operation's canonical path), then the steps of that operation, listed here and put in order once
 * (authentication, body, the legacy binder, the request validator compiled from the contract, the operation's
 * service); a request outside the contract goes on to health, metrics, static pages, SOAP, native types, metadata
 * pages, the legacy 404 and the error writer; all of it mounted under BASE_PATH when one is set.
 */
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { configDefaults, type AppConfig } from './config.ts';
import { authenticate, callerOf, requireAnyApiKey } from './auth/access.ts';
import type { Caller } from './auth/caller.ts';
import { loadOpenApiDocument } from './contract/openapi-document.ts';
import { contractOperations, type OperationRecord } from './contract/operations.ts';
import type { Revalidate } from './contract/service-result.ts';
import { builtInFormats } from './formats/built-in.ts';
import { createFormatRegistry } from './formats/registry.ts';
import { requestBaseUrl, useLinkSettings } from './http/base-url.ts';
import { runBatch } from './http/batch.ts';
import { bindRequest } from './http/bind-request.ts';
import { readRequestBody } from './http/request-body.ts';
import { methodOverride } from './http/method-override.ts';
import { maxUrlLength, requestSignal, requestTimeout } from './http/limits.ts';
import { nativeTypesRoutes } from './http/native-types.ts';
import { metadataPages } from './http/metadata-pages.ts';
import { notFound } from './http/not-found.ts';
import { boundContext, contextOf } from './http/request-context.ts';
import { requestValidation } from './http/request-validation.ts';
import { callbackLimit, resolveOperation } from './http/resolve-operation.ts';
import { securityHeaders } from './http/security-headers.ts';
import { addAnswerHeaders, setPendingHeaders } from './http/response-head.ts';
import { createResponseWriter, type ResponseWriter } from './http/response-writer.ts';
import { REPORT_ASSETS, staticPages } from './http/static-pages.ts';
import { inOrder } from './http/steps.ts';
import { createMetrics } from './ops/metrics.ts';
import { health, ready } from './ops/health.ts';
import { requestLog } from './ops/request-log.ts';
import { serviceFor, type ServiceContext } from './services/index.ts';
import { linkSecretSource, type LinkSecretSource } from './services/link-secret.ts';
import { mountSoap12, SOAP12_PATH } from './soap/mount-soap12.ts';
import type { LedgerStore } from './store/ledger/ledger-store.ts';

export interface AppDependencies {
  /** Settings the app reads; a key left out takes its default from the config schema. */
  config: Partial<AppConfig>;
  store: LedgerStore;
  logger: Logger;
  now?: () => Date;
  /**
   * Takes start-up work the app can answer without (node-soap's description of the SOAP service), for the composition
   * root to run once it listens and to finish before it reports ready; without it createApp runs that work itself.
   */
  finishLater?: (work: () => Promise<void>) => void;
  /**
   * Validate requests with express-openapi-validator's own middleware instead of the compiled validators: the
   * reference the parity test compares them with.
   */
  referenceRequestValidation?: boolean;
}

export async function createApp({
  config: given,
  store,
  logger,
  now = () => new Date(),
  finishLater,
  referenceRequestValidation = false,
}: AppDependencies): Promise<Express> {
  const config = { ...configDefaults, ...given };
  const operations = contractOperations();
  const formats = createFormatRegistry(builtInFormats(REPORT_ASSETS));
  const writer = createResponseWriter({ formats, operations, debug: config.debug, logger });
  const services = new Map(
    operations.all.map((op) => {
      const service = serviceFor(op.requestDto);
      if (!service) throw new Error(`no service for ${op.requestDto} (operation ${op.operationId})`);
      return [op.operationId, service] as const;
    }),
  );
  const linkSecret = linkSecretSource(store, config.reportLinkSecret);
  const reportLimits = { maxColumns: config.maxReportColumns };
  const metrics = createMetrics({
    indexStats: () => store.indexStats(),
    templateOf: (res) => contextOf(res).operation?.template,
    mountedPaths: [SOAP12_PATH],
  });

  const app = express();
  app.disable('x-powered-by');
  // 4.5.14 sent no ETag: no hash of every answer's body.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy ?? false);
  useLinkSettings(app, { publicBaseUrl: config.publicBaseUrl, basePath: config.basePath ?? '' });

  // Each operation's steps (resolved once, by resolveOperation, which also rewrote the URL to the operation's path):
  // authentication, its body (if it takes one), the legacy binder, the OpenAPI validator, its service.
  const authentication = authenticate({
    store,
    mode: config.auth,
    defaultCompanyName: config.companyName,
    requiresKey: (_req, res) => contextOf(res).operation?.secured === true,
  });
  const readBody = readRequestBody({ limit: config.bodyLimitBytes, formats });
  const binder = bindRequest({ maxArrayItems: config.maxArrayItems });
  const validateRequest = referenceRequestValidation ? undefined : requestValidation(operations.all);
  // express-openapi-validator, loaded only where it acts: response validation (tests, VALIDATE_RESPONSES=1) and the
  // reference request validation.
  const reference =
    config.validateResponses || referenceRequestValidation
      ? await referenceValidation({ requests: referenceRequestValidation, responses: config.validateResponses })
      : [];
  const host = { store, now, linkSecret, reportLimits, revalidator: writer.revalidator };
  const answerWith = (req: Request, res: Response, result: unknown): Promise<void> | undefined => {
    if (res.headersSent) return undefined; // the request ran past its time-out and was answered
    return writer.send(req, res, result);
  };
  const routeOf = (op: OperationRecord): RequestHandler[] => {
    const service = services.get(op.operationId)!;
    const runService: RequestHandler = (req, res, next) => {
      const context = boundContext(res);
      if (!context) return next(new Error(`${op.operationId}: no request DTO was bound`));
      context.serviceStarted = true;
      const answer = (dto: Record<string, unknown>) => service(dto as never, new RequestServiceContext(host, req, res));
      // A batch (`/{format}/reply/{Op}[]`): each DTO through the same service, answered as one list.
      const { bound } = context;
      const result =
        'batch' in bound
          ? runBatch(res, bound.batch, answer, {
              maxAnswerBytes: config.maxBatchAnswerBytes,
              listBytes: writer.listMeter(res),
              signal: requestSignal(res),
            })
          : answer(bound.dto);
      // A service that answers at once (the echo) is written at once; a rejection reaches the error writer.
      return result instanceof Promise
        ? result.then((value) => answerWith(req, res, value))
        : answerWith(req, res, result);
    };
    return [
      callbackLimit,
      authentication,
      ...(op.binding.body ? [readBody] : []),
      binder,
      ...(validateRequest ? [validateRequest(op)] : []),
      ...reference,
      runService,
    ];
  };
  // A contract operation's steps run as one precompiled list, chosen by the operation the request resolved to.
  const operationSteps = new Map(operations.all.map((op) => [op, inOrder(routeOf(op))]));
  const runOperation: RequestHandler = (req, res, next) => {
    const op = contextOf(res).operation;
    if (op) return operationSteps.get(op)!(req, res, next);
    // The routes below write their answers themselves: the headers every answer carries are set on it now.
    setPendingHeaders(res);
    next();
  };

  // Every request, in order: its log line and metrics, safe headers, the response writer, limits, its operation (one
  // layer of Express's router for all of them); a request outside the contract goes on to the routes below.
  app.use(
    inOrder([
      requestLog(logger, (res, name, id) => addAnswerHeaders(res, [name, id])),
      metrics.middleware,
      securityHeaders(),
      writer.install,
      maxUrlLength(config.maxUrlLength),
      requestTimeout(config.requestTimeoutMs, writer.errorHandler),
      methodOverride(),
      resolveOperation(operations.all, formats),
      runOperation,
    ]),
  );

  app.get('/health', health);
  app.get('/ready', ready(store));
  // METRICS: off (the legacy 404), public, or behind any valid API key.
  if (config.metrics === 'public') app.get('/metrics', metrics.handler);
  else if (config.metrics === 'key') app.get('/metrics', requireAnyApiKey(store), metrics.handler);
  app.use(staticPages());
  const { describe } = await mountSoap12(app, { bodyLimitBytes: config.bodyLimitBytes });
  if (finishLater) finishLater(describe);
  else await describe();
  app.use(callbackLimit);
  app.use(nativeTypesRoutes(now)); // /types/typescript, /types/csharp: before the legacy 404
  app.use(metadataPages(formats)); // GET / → /metadata, the metadata pages, /types, /types/metadata
  app.use(notFound(operations.all, config.debug));
  app.use(writer.errorHandler);
  return config.basePath ? underBasePath(app, config.basePath, config.trustProxy ?? false) : app;
}

/**
 * What a service is given of its request. The base URL, the abort signal and the conditional check are worked out
 * when a service reads them (a report), not for every echo; a class, not an object literal with getters, whose
 * getters would be new functions each time and keep the request alive until a full collection
 * (src/http/response-writer.ts, ResponseWriteContext).
 */
class RequestServiceContext implements ServiceContext {
  readonly store: LedgerStore;
  readonly now: () => Date;
  readonly linkSecret: LinkSecretSource;
  readonly reportLimits: ServiceContext['reportLimits'];
  readonly caller: Caller;

  constructor(
    private readonly host: Pick<ServiceContext, 'store' | 'now' | 'linkSecret' | 'reportLimits'> & {
      revalidator: ResponseWriter['revalidator'];
    },
    private readonly req: Request,
    private readonly res: Response,
  ) {
    this.store = host.store;
    this.now = host.now;
    this.linkSecret = host.linkSecret;
    this.reportLimits = host.reportLimits;
    this.caller = callerOf(res);
  }

  get baseUrl(): string {
    return requestBaseUrl(this.req);
  }

  get signal(): AbortSignal | undefined {
    return requestSignal(this.res);
  }

  get revalidate(): Revalidate | undefined {
    return this.host.revalidator(this.req, this.res);
  }
}

/** express-openapi-validator's middleware over the contract (src/http/openapi-validation.ts), imported on demand. */
async function referenceValidation(validate: { requests: boolean; responses: boolean }): Promise<RequestHandler[]> {
  const [{ openApiValidation }, { validatorDocument }] = await Promise.all([
    import('./http/openapi-validation.ts'),
    import('./http/validator-document.ts'),
  ]);
  return openApiValidation(validatorDocument(loadOpenApiDocument()), validate);
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
