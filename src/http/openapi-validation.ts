/**
 * express-openapi-validator over the contract, through its public middleware: it validates responses (tests,
 * VALIDATE_RESPONSES=1) and is the reference the compiled request validators are held to. Each operation's route runs
 * it after the legacy binder (src/http/bind-request.ts): by then `req.url` is the operation's canonical path
 * (src/http/resolve-operation.ts; `useRequestUrl`) and the query and body hold the bound, typed values.
 */
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'openapi-types';

export interface OpenApiValidationOptions {
  /** Validate requests (the reference for src/http/request-validation.ts). */
  requests: boolean;
  /** Validate every response against the operation's documented responses. */
  responses: boolean;
}

type ValidatorDocument = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

export function openApiValidation(
  apiSpec: OpenAPIV3.Document,
  { requests, responses }: OpenApiValidationOptions,
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: apiSpec as unknown as ValidatorDocument,
    validateRequests: requests && { allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: responses,
    validateSecurity: false,
    // The contract is checked where it is written (npm run lint:openapi, generate --check), not at every start.
    validateApiSpec: false,
    // Bodies are read before the binder (src/http/request-body.ts): multipart by busboy there, within the body limit.
    fileUploader: false,
    ignoreUndocumented: true,
    useRequestUrl: true,
  }) as unknown as RequestHandler[];
}
