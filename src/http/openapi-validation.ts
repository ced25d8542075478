/**
 * express-openapi-validator, handed the operation the request was already resolved to. Its own middleware chain
 * finds the operation again on every request (four promise-chained middlewares, and a route lookup that compiles
 * the path pattern of every route of the contract for every request); here the same library parts are set up once
 * (its spec loader, schema preprocessor, request and response validators, with the options its middleware() would
 * use) and each request goes straight to the validator of its operation, compiled on first use and kept per
 * operation and content type by the library itself. Validation rules and error objects are the library's.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BadRequest, type OpenAPIV3, type OpenApiRequest, type OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import { OpenAPIFramework } from 'express-openapi-validator/dist/framework/index.js';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';

export interface ValidatedOperation {
  /** Upper-case method of the operation (HEAD requests use the GET operation). */
  method: string;
  /** The path as openapi/ spells it, e.g. `/v1/echo/{Message}`. */
  template: string;
}

export interface OpenApiValidationOptions {
  /** Also validate every response against the operation's documented responses. */
  validateResponses: boolean;
}

/** What the library's route lookup would have put on req.openapi, fixed per operation. */
interface OperationMetadata {
  expressRoute: string;
  openApiRoute: string;
  schema: OpenAPIV3.OperationObject;
  responseSchema: unknown;
  /** Position of each path variable among the path's segments. */
  pathParams: readonly (readonly [name: string, segment: number])[];
}

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

/** The parts of the library's OpenAPIFramework this module reuses (TypeScript-private there, plain methods in its code). */
interface FrameworkParts {
  args: { apiDoc: unknown; $refParser?: unknown };
  loadSpec(apiDoc: unknown, refParser: unknown): Promise<OpenAPIV3.DocumentV3>;
  getBasePathsFromServers(servers: unknown): { all(): string[] }[];
  sortApiDocTags(apiDoc: OpenAPIV3.DocumentV3): void;
}

/** Whether any `$ref` in the document points outside it (a file or URL, anything not starting with `#`). */
export function hasExternalRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalRef);
  if (node === null || typeof node !== 'object') return false;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && !ref.startsWith('#')) return true;
  return Object.values(node).some(hasExternalRef);
}

/**
 * The library's framework, initialised as its own initialize() does with validateApiSpec false, minus two steps:
 * that method still builds the OpenAPI meta-schema validator (an ajv compile of the whole OpenAPI 3 schema, 0.6-0.9 s
 * of start-up here) when it will not use it; and it runs json-schema-ref-parser's bundle over a document whose
 * references are all internal already, which returns it as it was (test/http/openapi-validation.test.ts compares).
 */
class UncheckedSpecFramework extends OpenAPIFramework {
  override async initialize(visitor: Parameters<OpenAPIFramework['initialize']>[0]) {
    const self = this as unknown as FrameworkParts;
    const apiDoc = hasExternalRef(self.args.apiDoc)
      ? await self.loadSpec(self.args.apiDoc, self.args.$refParser)
      : self.args.apiDoc as OpenAPIV3.DocumentV3;
    const basePaths = [...new Set(self.getBasePathsFromServers(apiDoc.servers).flatMap((bp) => bp.all()))];
    self.sortApiDocTags(apiDoc);
    visitor.visitApi?.({ basePaths, getApiDoc: () => apiDoc });
    return { apiDoc, basePaths };
  }
}

const COMPONENT_REF = /^#\/components\/(\w+)\/([\w.-]+)$/;

/**
 * The library's schema preprocessor, with what its resolveSchema() would find for each `#/components/...` reference
 * filled in beforehand. It finds the same object (the component in the document; for schemas through the ajv it
 * registered them in, which keeps them as given), but compiles the whole schema with ajv first and only reads the
 * schema back (most of the validator's start-up). Test/http/openapi-validation.test.ts checks the preprocessed
 * documents are the library's.
 */
export function schemaPreprocessor(apiDoc: OpenAPIV3.DocumentV3, ...options: [ajvOptions: never, validateResponses: never]): SchemaPreprocessor {
  const preprocessor = new SchemaPreprocessor(apiDoc, ...options);
  const resolved = (preprocessor as unknown as { resolvedSchemaCache: Map<string, unknown> }).resolvedSchemaCache;
  const components = (apiDoc.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const ref = (node as { $ref?: unknown }).$ref;
    const [, section, name] = (typeof ref === 'string' && COMPONENT_REF.exec(ref)) || [];
    const target = section && name ? components[section]?.[name] : undefined;
    if (typeof ref === 'string' && target !== undefined) resolved.set(ref, target);
    Object.values(node).forEach(visit);
  };
  visit(apiDoc);
  return preprocessor;
}

/**
 * The path variables of a request whose `req.url` is its canonical path, decoded as the library's route lookup
 * decodes them (a malformed escape is its `malformed uri` 400).
 */
function pathParamsOf(req: Request, positions: OperationMetadata['pathParams']): Record<string, string> {
  const query = req.url.indexOf('?');
  const segments = (query === -1 ? req.url : req.url.slice(0, query)).split('/');
  const params: Record<string, string> = {};
  for (const [name, index] of positions) {
    try {
      params[name] = decodeURIComponent(segments[index] ?? '');
    } catch {
      throw new BadRequest({ path: req.path, message: "malformed uri'" });
    }
  }
  return params;
}

/** The validation step of one operation, or undefined when the contract does not describe it. */
export type OperationValidation = (operation: ValidatedOperation) => RequestHandler | undefined;

/**
 * The validator, set up once: `forOperation` gives each operation's step, with the operation's metadata looked up
 * when the plan is compiled, not per request. `req.url` is then the operation's canonical path.
 * The method is the request's own, as the library matches it: a HEAD request is not validated.
 */
export async function createOpenApiValidation(apiSpec: OpenAPIV3.DocumentV3, options: OpenApiValidationOptions): Promise<OperationValidation> {
  const oav = new OpenApiValidator({
    apiSpec,
    validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: options.validateResponses,
    validateSecurity: false,
    ignoreUndocumented: true,
    useRequestUrl: true,
  });
  // The contract is checked where it is written (npm run lint:openapi, generate --check); checking it again against the
  // OpenAPI meta-schema at every start compiled that schema (a large share of start-up).
  const loaderOptions = { apiDoc: structuredClone(apiSpec), validateApiSpec: false, $refParser: { mode: 'bundle' as const } };
  const loader = new OpenApiSpecLoader(loaderOptions);
  (loader as unknown as { framework: OpenAPIFramework }).framework = new UncheckedSpecFramework(loaderOptions);
  const spec = await loader.load();
  const internals = oav as unknown as {
    ajvOpts: { preprocessor: object };
    options: { validateResponses: unknown };
    requestValidationMiddleware(apiDoc: OpenAPIV3.DocumentV3): Handler;
    responseValidationMiddleware(apiDoc: OpenAPIV3.DocumentV3, serial: number): Handler;
  };
  const apiDoc = spec.apiDoc as OpenAPIV3.DocumentV3;
  const { apiDocRes } = schemaPreprocessor(apiDoc, internals.ajvOpts.preprocessor as never, internals.options.validateResponses as never).preProcess();
  const validateRequest = internals.requestValidationMiddleware(apiDoc);
  const validateResponse = options.validateResponses && apiDocRes
    ? internals.responseValidationMiddleware(apiDocRes as OpenAPIV3.DocumentV3, spec.serial)
    : undefined;

  const metadata = new Map<string, OperationMetadata>();
  for (const route of spec.routes) {
    const pathKey = route.openApiRoute.slice(route.basePath.length);
    const method = route.method.toLowerCase();
    metadata.set(`${route.method} ${pathKey}`, {
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      schema: (apiDoc.paths[pathKey] as Record<string, OpenAPIV3.OperationObject>)[method]!,
      responseSchema: (apiDocRes?.paths?.[pathKey] as Record<string, unknown> | undefined)?.[method],
      pathParams: route.pathParams.map((name) => [name, pathKey.split('/').indexOf(`{${name}}`)] as const),
    });
  }

  return (operation) => {
    const meta = metadata.get(`${operation.method} ${operation.template}`);
    if (!meta) return undefined;
    return (req, res, next) => {
      // The library validates by the request's own method: HEAD is not a documented operation.
      if (req.method !== operation.method) return next();
      let pathParams: Record<string, string>;
      try {
        pathParams = pathParamsOf(req, meta.pathParams);
      } catch (error) {
        return next(error);
      }
      const openapi: OpenApiRequestMetadata & { _responseSchema?: unknown } = {
        expressRoute: meta.expressRoute,
        openApiRoute: meta.openApiRoute,
        pathParams,
        schema: meta.schema,
        serial: spec.serial,
      };
      if (validateResponse) openapi._responseSchema = meta.responseSchema;
      (req as OpenApiRequest).openapi = openapi;
      req.params = pathParams;
      try {
        validateRequest(req, res, (error?: unknown) => {
          if (error || !validateResponse) return next(error);
          validateResponse(req, res, next);
        });
      } catch (error) {
        next(error);
      }
    };
  };
}

/**
 * The validator as one middleware: `operationOf` names the operation the request was resolved to (undefined = not a
 * contract operation, left alone, as the library leaves undocumented routes).
 */
export async function openApiValidation(
  apiSpec: OpenAPIV3.DocumentV3,
  options: OpenApiValidationOptions,
  operationOf: (req: Request, res: Response) => ValidatedOperation | undefined,
): Promise<RequestHandler> {
  const forOperation = await createOpenApiValidation(apiSpec, options);
  const steps = new Map<string, RequestHandler | undefined>();
  return (req, res, next) => {
    const operation = operationOf(req, res);
    if (!operation) return next();
    const key = `${operation.method} ${operation.template}`;
    if (!steps.has(key)) steps.set(key, forOperation(operation));
    const step = steps.get(key);
    return step ? step(req, res, next) : next();
  };
}
